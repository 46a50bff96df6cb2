"""Counterexamples as data: from a Z3 model to a concrete case and each side's values.

A model of a symbolic `View` becomes a concrete pre-state and instruction (registers the
instruction does not read are set to zero, which cannot change its outcome; the replay
checks it). presentation/counterexamples.py shows it as Alive2 does; `to_json` gives the
same data with the case in the `vredmax exec` format; proofs/claims/emit_test.py makes pytest
files of them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, cast

import z3

from vredmax.impl.execute import Result, execute, operands
from vredmax.spec.bv import Concrete
from vredmax.spec.config import Config
from vredmax.spec.encoding import Insn
from vredmax.spec.state import ArchState
from vredmax.impl.case import case_json

TRAPS = "traps"


def _int(model: z3.ModelRef, term: z3.BitVecRef) -> int:
    return cast(z3.BitVecNumRef, model.eval(term, model_completion=True)).as_long()


def read_registers(cfg: Config, insn: Insn, vm: int) -> set[int]:
    """The registers vredmax.vs reads: vd (its tail), vs1, the vs2 group, and v0 when masked."""
    group = {(insn.vs2 + k) % 32 for k in range(cfg.group_registers)}
    return {insn.vd, insn.vs1} | group | ({0} if vm == 0 else set())


def concrete_case(model: z3.ModelRef, cfg: Config, pre: ArchState, insn: Any) -> tuple[ArchState, Insn]:
    """The concrete pre-state and instruction a model gives to symbolic ones."""
    fields = Insn(
        vd=_int(model, insn.vd), vs2=_int(model, insn.vs2), vs1=_int(model, insn.vs1), vm=_int(model, insn.vm)
    )
    read = read_registers(cfg, fields, fields.vm)
    regs = tuple(_int(model, z3.Select(pre.regs, r)) if r in read else 0 for r in range(32))
    state = ArchState(
        cfg.vlen,
        cfg.elen,
        regs,
        _int(model, pre.vtype),
        _int(model, pre.vl),
        _int(model, pre.vstart),
        _int(model, pre.vs),
    )
    return state, fields


def model_register(model: z3.ModelRef, state: ArchState, register: int) -> int:
    return _int(model, z3.Select(state.regs, register))


def tail_policy_for(cfg: Config, pre: ArchState, insn: Insn, vd_after: int) -> str | None:
    """Which tail policy of the executable model writes this vd (None: neither does)."""
    for tail in ("undisturbed", "ones"):
        if execute(pre, insn, "sequential", tail).state.regs[insn.vd] == vd_after:
            return tail
    return None


def active_lanes(cfg: Config, pre: ArchState, insn: Insn) -> int:
    _, _, active = operands(Concrete, pre, insn, cfg)
    return sum(map(bool, active))


def json_value(value: int | bool, width: int) -> bool | dict[str, Any]:
    if isinstance(value, bool):
        return value
    signed = value - (1 << width) if value >> (width - 1) & 1 else value
    return {"hex": f"{value:#0{(width + 3) // 4 + 2}x}", "unsigned": value, "signed": signed}


@dataclass
class Counterexample:
    """A concrete case where two sides disagree: the spec, and a claim or an implementation."""

    cfg: Config
    pre: ArchState
    insn: Insn
    tail: str  # the executable's tail policy that reproduces the spec side
    spec: dict[str, Any]  # name -> value (int for SEW-bit elements, bool for traps)
    other: dict[str, Any]  # the same names, as the claim or implementation has them
    other_label: str = "claim"
    spec_reason: str = ""  # why the spec traps, when it does
    notes: list[str] = field(default_factory=list)
    widths: dict[str, int] = field(default_factory=dict)  # name -> bit width, when not SEW

    def width(self, name: str) -> int:
        return self.widths.get(name, self.cfg.sew)

    @property
    def differing(self) -> list[str]:
        return [name for name in self.spec if self.spec[name] != self.other.get(name)]

    @property
    def active_lanes(self) -> int:
        return active_lanes(self.cfg, self.pre, self.insn)

    def summary(self) -> str:
        lanes = self.active_lanes
        return f"{self.cfg}, vl={self.pre.vl}, {lanes} active lane{'s' * (lanes != 1)}"

    def overlaps(self) -> list[str]:
        insn, group = self.insn, {(self.insn.vs2 + k) % 32 for k in range(self.cfg.group_registers)}
        found = []
        if insn.vd in group:
            found.append(f"vd=v{insn.vd} overlaps the vs2 group")
        if insn.vd == insn.vs1:
            found.append(f"vd = vs1 = v{insn.vd}")
        if insn.vd == 0 and insn.vm == 0:
            found.append("vd = v0, which also holds the mask")
        if insn.vs1 in group:
            found.append(f"vs1=v{insn.vs1} is in the vs2 group")
        return found

    def to_json(self) -> dict[str, Any]:
        width = self.width
        return {
            "config": {
                "vlen": self.cfg.vlen,
                "elen": self.cfg.elen,
                "sew": self.cfg.sew,
                "lmul": self.cfg.lmul,
            },
            "vl": self.pre.vl,
            "active_lanes": self.active_lanes,
            "case": case_json(self.pre, self.insn, self.tail),
            "spec": {n: json_value(v, width(n)) for n, v in self.spec.items()},
            self.other_label: {n: json_value(v, width(n)) for n, v in self.other.items()},
            "differing": self.differing,
            "spec_reason": self.spec_reason,
            "notes": self.notes,
        }


def element_place(name: str, insn: Insn) -> tuple[int, int] | None:
    """(register, element) for `vd[k]` and `v<r>[k]` names, else None."""
    match = re.fullmatch(r"v(d|\d+)\[(\d+)\]", name)
    if not match:
        return None
    register = insn.vd if match.group(1) == "d" else int(match.group(1))
    return register, int(match.group(2))


def observed_values(result: Result, insn: Insn, sew: int, names: Iterable[str]) -> dict[str, Any]:
    """The compared values (`traps`, `vd[k]`) of a concrete execution result."""
    values: dict[str, Any] = {}
    for name in names:
        if name == TRAPS:
            values[name] = result.outcome != "retired"
        else:
            k = int(name[3:-1])
            values[name] = Concrete.extract(result.state.regs[insn.vd], k * sew + sew - 1, k * sew)
    return values
