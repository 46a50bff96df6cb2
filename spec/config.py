"""Machine parameters and vtype: VLEN, ELEN, SEW, LMUL, VLMAX and the legal configurations."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

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
        raise ValueError(f"vlen: must be a power of two from {MIN_VLEN} to {MAX_VLEN}, got {vlen!r}")
    if elen not in ELENS:
        raise ValueError(f"elen: must be 32 or 64, got {elen!r}")
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


def encode_vtype(sew: int, lmul: str, vta: bool = False, vma: bool = False) -> int:
    vsew = SEWS.index(sew)
    return LMUL_CODE[lmul] | vsew << 3 | int(vta) << VTYPE_VTA_BIT | int(vma) << VTYPE_VMA_BIT


def decode_vtype(raw: int, elen: int) -> VType:
    """Decode the raw 64-bit vtype; reserved or unsupported settings read as vill."""
    vta = bool(raw >> VTYPE_VTA_BIT & 1)
    vma = bool(raw >> VTYPE_VMA_BIT & 1)

    def vill(why: str) -> VType:
        return VType(raw, True, None, None, vta, vma, why)

    if raw >> VTYPE_VILL_BIT & 1:
        return vill("vtype.vill is set")
    if raw >> 8 & ((1 << (VTYPE_VILL_BIT - 8)) - 1):
        return vill("reserved vtype bits 62:8 are nonzero")
    vsew, vlmul = raw >> 3 & 0b111, raw & 0b111
    if vsew >= len(SEWS):
        return vill(f"vsew={vsew:#05b} is reserved")
    if vlmul not in LMUL_BY_CODE:
        return vill(f"vlmul={vlmul:#05b} is reserved")
    sew, lmul = SEWS[vsew], LMUL_BY_CODE[vlmul][0]
    if not sew_lmul_supported(sew, lmul, elen):
        return vill(f"SEW={sew} with LMUL={lmul} is not supported when ELEN={elen}")
    return VType(raw, False, sew, lmul, vta, vma)


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


def legal_configs(elen: int = 64, vlens=None, sews=SEWS, lmuls=LMUL_NAMES) -> list[Config]:
    """Every supported (VLEN, SEW, LMUL) for an ELEN; by default VLEN 128..65536."""
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
