"""The step-by-step trace of one vredmax.vs, for teaching and bug reports.

Built from the very code `vredmax exec` runs: the encoding fields, the trap rules of
spec/legality.py in priority order, the operands `impl.execute.operands` reads, the running
maximum of the sequential unit (`impl.sequential.running_max`, the loop `reduce_sequential`
is made of), and the post-state of `impl.execute.execute`. Nothing here computes the
semantics a second time; `trace` checks that the last running maximum is what execute wrote.
"""

from __future__ import annotations

from dataclasses import dataclass

from vredmax.impl.execute import Result, execute, operands
from vredmax.impl.sequential import running_max
from vredmax.spec.bv import Concrete
from vredmax.spec.config import Config, VType, decode_vtype
from vredmax.spec.encoding import Insn, describe_fields, encode, format_asm
from vredmax.spec.legality import RETIRED, TrapRule, lmul_text, trap_conditions
from vredmax.spec.state import ArchState


@dataclass(frozen=True)
class Lane:
    """Element i of the vs2 group, for i < vl."""

    index: int
    value: int
    mask: bool | None  # bit i of v0; None when the instruction is unmasked (vm=1)
    active: bool
    acc: int  # the running maximum after this lane


@dataclass(frozen=True)
class Check:
    """One trap rule, in priority order, and whether it fired."""

    rule: TrapRule
    fired: bool


@dataclass(frozen=True)
class Trace:
    pre: ArchState
    insn: Insn
    tail: str
    vtype: VType
    cfg: Config | None  # None when vtype is vill
    checks: tuple[Check, ...]  # every rule that was evaluated, highest priority first
    result: Result  # what execute returned (outcome, reason, post-state)
    seed: int | None  # vs1[0], when the instruction gets as far as reading it
    lanes: tuple[Lane, ...]  # lanes 0 .. vl-1 (empty for a trap or vl = 0)

    @property
    def word(self) -> int:
        return encode(self.insn)

    @property
    def asm(self) -> str:
        return format_asm(self.insn)

    @property
    def fields(self) -> list[tuple[str, str, int]]:
        return describe_fields(self.word)

    @property
    def trapped(self) -> bool:
        return self.result.outcome != RETIRED

    @property
    def fired(self) -> Check | None:
        return next((check for check in self.checks if check.fired), None)

    @property
    def writes(self) -> bool:
        """vd is written: retired with vl > 0."""
        return not self.trapped and self.pre.vl > 0

    @property
    def vd_before(self) -> int:
        return int(self.pre.regs[self.insn.vd])

    @property
    def vd_after(self) -> int:
        return int(self.result.state.regs[self.insn.vd])

    def elements(self, register_value: int) -> list[int]:
        """The SEW-bit elements of one register, element 0 first."""
        assert self.cfg is not None, "a vill vtype has no elements"
        return Concrete.split(register_value, self.cfg.sew, self.cfg.elements_per_register)

    @property
    def written(self) -> int | None:
        """vd[0] after the instruction, when it was written."""
        return self.elements(self.vd_after)[0] if self.writes else None

    @property
    def tail_changed(self) -> list[int]:
        """Indices of vd's tail elements (1 .. VLEN/SEW-1) whose value changed."""
        if not self.writes:
            return []
        before, after = self.elements(self.vd_before), self.elements(self.vd_after)
        return [k for k in range(1, len(before)) if before[k] != after[k]]

    @property
    def lmul(self) -> str:
        return lmul_text(self.vtype.lmul) if self.vtype.lmul else ""


def trace(pre: ArchState, insn: Insn, tail: str = "undisturbed") -> Trace:
    """Execute one case with the sequential unit (what `vredmax exec` runs) and record how."""
    result = execute(pre, insn, "sequential", tail)
    vt = decode_vtype(pre.vtype, pre.elen)
    cfg = vt.layout(pre.vlen, pre.elen)
    rules = trap_conditions(Concrete, pre, insn, vt.vill, vt.lmul)
    checks = []
    for rule, fired in rules:
        checks.append(Check(rule, bool(fired)))
        if fired:
            break  # lower-priority rules are not consulted once one fires
    seed: int | None = None
    lanes: tuple[Lane, ...] = ()
    if cfg is not None and result.outcome == RETIRED:
        seed, elements, active = operands(Concrete, pre, insn, cfg)
        vl = pre.vl
        mask = Concrete.bits(pre.regs[0], vl) if insn.vm == 0 else [None] * vl
        ops = Concrete.elements(cfg.sew)
        lanes = tuple(
            Lane(i, elements[i], mask[i], bool(active[i]), acc)
            for i, acc in enumerate(running_max(ops, seed, elements[:vl], active[:vl]))
        )
    made = Trace(pre, insn, tail, vt, cfg, tuple(checks), result, seed, lanes)
    if made.writes and made.written != lanes[-1].acc:
        raise AssertionError(
            f"trace: the running maximum {lanes[-1].acc:#x} is not what execute "
            f"wrote to vd[0] ({made.written:#x})"
        )
    return made
