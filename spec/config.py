"""Machine parameters and vtype: VLEN, ELEN, SEW, LMUL, VLMAX and the legal configurations."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from vredmax.spec.bv import B, MachineOps, V

from vredmax.runtime.errors import shown_number

XLEN = 64
SEWS = (8, 16, 32, 64)
ELENS = (32, 64)
MIN_VLEN, MAX_VLEN = 32, 65536

# vlmul encoding (vtype bits 2:0) -> (name, LMUL); 0b100 is reserved.
LMUL_BY_CODE = {
    0b000: ("m1", Fraction(1)),
    0b001: ("m2", Fraction(2)),
    0b010: ("m4", Fraction(4)),
    0b011: ("m8", Fraction(8)),
    0b101: ("mf8", Fraction(1, 8)),
    0b110: ("mf4", Fraction(1, 4)),
    0b111: ("mf2", Fraction(1, 2)),
}
LMUL_CODE = {name: code for code, (name, _) in LMUL_BY_CODE.items()}
LMUL_VALUE = {name: value for name, value in LMUL_BY_CODE.values()}
LMUL_NAMES = ("mf8", "mf4", "mf2", "m1", "m2", "m4", "m8")

VTYPE_VILL_BIT = 63
VTYPE_VTA_BIT = 6
VTYPE_VMA_BIT = 7


def is_power_of_two(n: int) -> bool:
    return n > 0 and n & (n - 1) == 0


def check_machine(vlen: int, elen: int) -> None:
    """Raise ValueError naming the parameter when (VLEN, ELEN) is not a machine we model."""
    if not (isinstance(vlen, int) and is_power_of_two(vlen) and MIN_VLEN <= vlen <= MAX_VLEN):
        raise ValueError(
            f"vlen: must be a power of two from {MIN_VLEN} to {MAX_VLEN}, got {shown_number(vlen) if isinstance(vlen, int) else repr(vlen)}"
        )
    if elen not in ELENS:
        raise ValueError(
            f"elen: must be 32 or 64, got {shown_number(elen) if isinstance(elen, int) else repr(elen)}"
        )
    if elen > vlen:
        raise ValueError(f"elen: ELEN={elen} exceeds VLEN={vlen}")


def sew_lmul_supported(sew: int, lmul: str, elen: int) -> bool:
    """SEW <= ELEN, and for fractional LMUL also SEW <= LMUL*ELEN (else vill)."""
    return sew <= elen and sew <= LMUL_VALUE[lmul] * elen


def vlmax(vlen: int, sew: int, lmul: str) -> int:
    return int(LMUL_VALUE[lmul] * vlen // sew)


def group_registers(lmul: str) -> int:
    """How many registers a vs2 group occupies (fractional LMUL: one)."""
    return max(1, int(LMUL_VALUE[lmul]))


@dataclass(frozen=True)
class VType:
    """A decoded vtype CSR. sew and lmul are None when vill."""

    raw: int
    vill: bool
    sew: int | None
    lmul: str | None
    vta: bool
    vma: bool
    why_vill: str = ""

    def layout(self, vlen: int, elen: int) -> "Config | None":
        """The element layout this vtype selects on the machine; None when vill."""
        if self.vill or self.sew is None or self.lmul is None:
            return None
        return Config(vlen, elen, self.sew, self.lmul)


def encode_vtype(sew: int, lmul: str, vta: bool = False, vma: bool = False) -> int:
    vsew = SEWS.index(sew)
    return LMUL_CODE[lmul] | vsew << 3 | int(vta) << VTYPE_VTA_BIT | int(vma) << VTYPE_VMA_BIT


def vill_rules(m: MachineOps[V, B], raw: V, elen: int) -> list[tuple[str, B | bool]]:
    """Why a raw vtype is vill, each reason with its condition, first reason first.

    Written against the machine ops of spec/bv.py: `decode_vtype` evaluates it on an int, the
    proofs on a 64-bit Z3 term (so "SEW=64 is vill when ELEN=32" is proved for every vtype,
    not tested). The templates are formatted with vsew, vlmul, sew, lmul and elen.
    """
    vsew, vlmul = m.extract(raw, 5, 3), m.extract(raw, 2, 0)

    def selects(sew: int, lmul: str) -> B:
        return m.all_(m.eq(vsew, SEWS.index(sew)), m.eq(vlmul, LMUL_CODE[lmul]))

    unsupported = [
        selects(sew, lmul) for sew in SEWS for lmul in LMUL_NAMES if not sew_lmul_supported(sew, lmul, elen)
    ]
    return [
        ("vtype.vill is set", m.bit(raw, VTYPE_VILL_BIT)),
        ("reserved vtype bits 62:8 are nonzero", m.not_(m.eq(m.extract(raw, VTYPE_VILL_BIT - 1, 8), 0))),
        ("vsew={vsew:#05b} is reserved", m.not_(m.ult(vsew, len(SEWS)))),
        ("vlmul={vlmul:#05b} is reserved", m.eq(vlmul, 0b100)),
        ("SEW={sew} with LMUL={lmul} is not supported when ELEN={elen}", m.any_(*unsupported)),
    ]


def decode_vtype(raw: int, elen: int) -> VType:
    """Decode the raw 64-bit vtype; reserved or unsupported settings read as vill."""
    from vredmax.spec.bv import Concrete  # bv.py needs nothing of this module

    vta = bool(raw >> VTYPE_VTA_BIT & 1)
    vma = bool(raw >> VTYPE_VMA_BIT & 1)
    vsew, vlmul = raw >> 3 & 0b111, raw & 0b111
    for template, fired in vill_rules(Concrete, raw, elen):
        if fired:
            sew = SEWS[vsew] if vsew < len(SEWS) else None
            lmul = LMUL_BY_CODE[vlmul][0] if vlmul in LMUL_BY_CODE else None
            why = template.format(vsew=vsew, vlmul=vlmul, sew=sew, lmul=lmul, elen=elen)
            return VType(raw, True, None, None, vta, vma, why)
    return VType(raw, False, SEWS[vsew], LMUL_BY_CODE[vlmul][0], vta, vma)


@dataclass(frozen=True)
class Config:
    """One legal (VLEN, ELEN, SEW, LMUL) point: everything that fixes the element layout."""

    vlen: int
    elen: int
    sew: int
    lmul: str

    @property
    def vlmax(self) -> int:
        return vlmax(self.vlen, self.sew, self.lmul)

    @property
    def elements_per_register(self) -> int:
        return self.vlen // self.sew

    @property
    def group_registers(self) -> int:
        return group_registers(self.lmul)

    def __str__(self) -> str:
        return f"VLEN={self.vlen} ELEN={self.elen} SEW={self.sew} LMUL={self.lmul}"


def machine_vlens(elen: int) -> tuple[int, ...]:
    """Every VLEN a machine with this ELEN may have: ELEN .. 65536 (Zve32x allows VLEN=32,
    Zve64x VLEN=64; the V extension itself needs VLEN >= 128)."""
    return tuple(1 << k for k in range(elen.bit_length() - 1, MAX_VLEN.bit_length()))


def legal_configs(
    elen: int = 64,
    vlens: Iterable[int] | None = None,
    sews: Iterable[int] = SEWS,
    lmuls: Iterable[str] = LMUL_NAMES,
) -> list[Config]:
    """Every supported (VLEN, SEW, LMUL) for an ELEN; by default VLEN 128..65536 (the V
    extension's range; `every_config` adds the small VLENs of the embedded profiles)."""
    if vlens is None:
        vlens = [1 << k for k in range(7, 17)]
    return [
        Config(vlen, elen, sew, lmul)
        for vlen in vlens
        if elen <= vlen
        for sew in sews
        for lmul in lmuls
        if sew_lmul_supported(sew, lmul, elen)
    ]


def every_config(elens: Iterable[int] = ELENS) -> list[Config]:
    """Every legal (ELEN, VLEN, SEW, LMUL): ELEN=32 with VLEN 32..65536 (180) and ELEN=64
    with VLEN 64..65536 (242), 422 in all."""
    return [cfg for elen in elens for cfg in legal_configs(elen, machine_vlens(elen))]
