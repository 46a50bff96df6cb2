"""The RVV 1.0 architectural state that vredmax.vs reads and writes."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from vredmax.spec.bv import Concrete, Machine
from vredmax.spec.config import XLEN, VType, check_machine, decode_vtype

NUM_VREGS = 32
VS_NAMES = ("off", "initial", "clean", "dirty")  # mstatus.VS encoding 0..3
VS_OFF, VS_DIRTY = 0, 3


@dataclass(frozen=True)
class ArchState:
    """VLEN and ELEN are fixed parameters; the rest are the CSRs and the register file.

    With the concrete backend every field is an int (regs a tuple of 32 ints, element 0 in
    the least-significant bits); with the symbolic backend they are Z3 terms (regs a Z3 array).
    """

    vlen: int
    elen: int
    regs: Any
    vtype: Any
    vl: Any
    vstart: Any
    vs: Any

    def with_(self, **changes: Any) -> "ArchState":
        return replace(self, **changes)

    def check(self, vt: VType | None = None) -> None:
        """Raise ValueError naming the field when a concrete state cannot exist.

        `vt`: the decoded vtype to bound vl by (default decode_vtype; spec/profiles.py passes
        its reading when SEW > LMUL*ELEN at fractional LMUL is supported)."""
        check_machine(self.vlen, self.elen)
        if len(self.regs) != NUM_VREGS:
            raise ValueError(f"vregs: need {NUM_VREGS} registers, got {len(self.regs)}")
        for number, value in enumerate(self.regs):
            if not 0 <= value < 1 << self.vlen:
                raise ValueError(f"vregs.v{number}: value is wider than VLEN={self.vlen} bits")
        if not 0 <= self.vtype < 1 << XLEN:
            raise ValueError("vtype: must be a 64-bit value")
        vt = vt or decode_vtype(self.vtype, self.elen)
        layout = vt.layout(self.vlen, self.elen)
        limit = 0 if layout is None else layout.vlmax
        reachable = dict(reachable_conditions(Concrete, self, vt.vill, limit))
        if not (0 <= self.vl < 1 << XLEN and reachable["vl"]):
            why = "vtype.vill is set" if vt.vill else f"VLMAX={limit} for SEW={vt.sew} LMUL={vt.lmul}"
            raise ValueError(f"vl: must be 0..{limit} ({why}), got {self.vl}")
        if not (0 <= self.vstart < 1 << XLEN and reachable["vstart"]):
            raise ValueError(f"vstart: must be 0..{self.vlen - 1}, got {self.vstart}")
        if self.vs not in range(len(VS_NAMES)):
            raise ValueError(f"vs: must be one of {', '.join(VS_NAMES)}")


def reachable_conditions(m: Machine, state: ArchState, vill: Any, vlmax_: int) -> list[tuple[str, Any]]:
    """The architecturally reachable states, written once against the machine ops `m`: the
    concrete check above (`vredmax exec` accepts exactly these) and the symbolic domain of
    every proof (spec/relation.py `in_configuration`) both use it. vsetvl never makes more:
    vl <= VLMAX of the vtype, and vl = 0 when vtype is vill (`vill` a condition, `vlmax_`
    the VLMAX of the non-vill reading); vstart < VLEN. (vsetvl also clears vtype's other
    bits when it sets vill, and reserved bits are never set: the symbolic domain fixes them
    with the configuration; the concrete decoder reads any such vtype as vill.)"""
    return [
        ("vl", m.all_(m.ult(state.vl, m.const(vlmax_ + 1, XLEN)), m.any_(m.not_(vill), m.eq(state.vl, 0)))),
        ("vstart", m.ult(state.vstart, m.const(state.vlen, XLEN))),
    ]
