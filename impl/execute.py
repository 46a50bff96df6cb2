"""One vredmax.vs instruction on the architectural state, around a reduction unit.

`step` is written against the machine ops of spec/bv.py: with `Concrete` it executes, with
`Symbolic` it gives the post-state as Z3 terms of a symbolic pre-state (for the proofs).
`execute` is the concrete entry point that `vredmax exec` uses.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from vredmax.impl import ALGORITHMS
from vredmax.spec.bv import B, Concrete, MachineOps, ReductionUnit, V
from vredmax.spec.config import VTYPE_VILL_BIT, VTYPE_VTA_BIT, XLEN, Config, decode_vtype
from vredmax.spec.encoding import Insn
from vredmax.spec.legality import RETIRED, TrapRule, lmul_text, trap_conditions
from vredmax.spec.state import VS_DIRTY, ArchState

TAIL_POLICIES = ("undisturbed", "ones")


def operands(m: MachineOps[V, B], pre: ArchState, insn: Any, cfg: Config) -> tuple[V, list[V], list[B]]:
    """Read the sources: (seed, vs2 elements, active flags), all before vd is written."""
    regs, sew, count = pre.regs, cfg.sew, cfg.vlmax
    elements: list[Any] = []
    for k in range(cfg.group_registers):
        register = m.read(regs, m.add(insn.vs2, k, 5))
        elements += m.split(register, sew, min(cfg.elements_per_register, count - len(elements)))
    seed = m.extract(m.read(regs, insn.vs1), sew - 1, 0)
    mask = m.bits(m.read(regs, 0), count)
    unmasked = m.eq(insn.vm, 1)
    active = [m.all_(m.ult(m.const(i, XLEN), pre.vl), m.any_(unmasked, mask[i])) for i in range(count)]
    return seed, elements, active


def written_vd(m: MachineOps[V, B], old_vd: V, result: V, vta: B | bool, cfg: Config, tail: str) -> V:
    """vd after a reduction: element 0 is the result, the tail per vta and the policy."""
    sew, vlen = cfg.sew, cfg.vlen
    if vlen == sew:
        return result
    kept = m.concat(m.extract(old_vd, vlen - 1, sew), result, sew)
    if tail == "undisturbed":
        return kept
    ones = m.concat(m.const((1 << (vlen - sew)) - 1, vlen - sew), result, sew)
    return m.ite(vta, ones, kept)


def choose(m: MachineOps[V, B], cond: B | bool, then: ArchState, other: ArchState) -> ArchState:
    fields = ("regs", "vtype", "vl", "vstart", "vs")
    return then.with_(**{f: m.ite(cond, getattr(then, f), getattr(other, f)) for f in fields})


def step(
    m: MachineOps[V, B],
    pre: ArchState,
    insn: Any,
    cfg: Config | None,
    reduce: ReductionUnit,
    tail: str = "undisturbed",
    vill: B | bool | None = None,
    sources: tuple[V, list[V], list[B]] | None = None,
) -> tuple[list[tuple[TrapRule, Any]], ArchState]:
    """Return (trap conditions, post-state). A trap and vl=0 change nothing.

    cfg is the element layout the vtype selects; it may be None only when vill is
    concretely set. vill defaults to vtype bit 63 (the caller constrains the other bits).
    sources is `operands(m, pre, insn, cfg)` when the caller has it already (a proof runs the
    step once per tail policy; at VLMAX 65536 reading them is a second's work).
    """
    if tail not in TAIL_POLICIES:
        raise ValueError(f"tail: must be one of {', '.join(TAIL_POLICIES)}, got {tail!r}")
    if vill is None:
        vill = m.bit(pre.vtype, VTYPE_VILL_BIT)
    traps = trap_conditions(m, pre, insn, vill, cfg.lmul if cfg else None)
    trapped = m.any_(*(cond for _, cond in traps))
    no_elements = m.eq(pre.vl, 0)
    if m.decided(trapped) or m.decided(no_elements):
        return traps, pre
    assert cfg is not None, "a vtype with no layout is vill, and vill traps"
    seed, elements, active = sources if sources is not None else operands(m, pre, insn, cfg)
    result = reduce(m.elements(cfg.sew), seed, elements, active)
    vd = written_vd(m, m.read(pre.regs, insn.vd), result, m.bit(pre.vtype, VTYPE_VTA_BIT), cfg, tail)
    retired = pre.with_(regs=m.write(pre.regs, insn.vd, vd), vstart=m.const(0, XLEN), vs=m.const(VS_DIRTY, 2))
    return traps, choose(m, m.any_(trapped, no_elements), pre, retired)


@dataclass(frozen=True)
class Result:
    outcome: str
    reason: str
    state: ArchState


def execute(
    pre: ArchState,
    insn: Insn,
    algorithm: str = "sequential",
    tail: str = "undisturbed",
    reduce: ReductionUnit | None = None,
) -> Result:
    """Execute concretely. `reduce` overrides the named algorithm (a user's own unit)."""
    if reduce is None:
        if algorithm not in ALGORITHMS:
            raise ValueError(f"impl: must be one of {', '.join(ALGORITHMS)}, got {algorithm!r}")
        reduce = ALGORITHMS[algorithm]
    vt = decode_vtype(pre.vtype, pre.elen)
    cfg = vt.layout(pre.vlen, pre.elen)
    traps, post = step(Concrete, pre, insn, cfg, reduce, tail, vill=vt.vill)
    for rule, fired in traps:
        if fired:
            return Result(
                rule.outcome,
                rule.reason(
                    vd=insn.vd,
                    vs2=insn.vs2,
                    vs1=insn.vs1,
                    vm=insn.vm,
                    vstart=pre.vstart,
                    lmul=lmul_text(vt.lmul) if vt.lmul else "",
                    why_vill=vt.why_vill,
                ),
                post,
            )
    if pre.vl == 0:
        return Result(RETIRED, "vl=0: no elements, nothing is written", post)
    return Result(RETIRED, "", post)
