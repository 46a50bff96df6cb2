"""The 32-bit OP-V word of vredmax.vs, and its assembler syntax.

31:26 funct6=000111 | 25 vm | 24:20 vs2 | 19:15 vs1 | 14:12 funct3=010 | 11:7 vd | 6:0 1010111
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from vredmax.runtime.errors import shown_number

OPCODE_OP_V = 0b1010111
FUNCT3_OPMVV = 0b010
FUNCT6_VREDMAX = 0b000111
MNEMONIC = "vredmax.vs"

# The OPMVV single-width integer reductions, by funct6.
REDUCTIONS = {
    0b000000: "vredsum.vs",
    0b000001: "vredand.vs",
    0b000010: "vredor.vs",
    0b000011: "vredxor.vs",
    0b000100: "vredminu.vs",
    0b000101: "vredmin.vs",
    0b000110: "vredmaxu.vs",
    0b000111: "vredmax.vs",
}


class EncodingError(ValueError):
    """A word or a line of assembly that is not vredmax.vs; the message says why."""


@dataclass(frozen=True)
class Insn:
    """The operand fields of vredmax.vs. vm=1 is unmasked, vm=0 is masked by v0.t."""

    vd: int
    vs2: int
    vs1: int
    vm: int = 1

    def __post_init__(self) -> None:
        for name in ("vd", "vs2", "vs1"):
            value = getattr(self, name)
            if not (isinstance(value, int) and 0 <= value < 32):
                raise EncodingError(f"{name}: must be a register number 0..31, got {value!r}")
        if self.vm not in (0, 1):
            raise EncodingError(f"vm: must be 0 or 1, got {self.vm!r}")


def encode(insn: Insn) -> int:
    return (
        FUNCT6_VREDMAX << 26
        | insn.vm << 25
        | insn.vs2 << 20
        | insn.vs1 << 15
        | FUNCT3_OPMVV << 12
        | insn.vd << 7
        | OPCODE_OP_V
    )


def decode(word: int) -> Insn:
    if not (isinstance(word, int) and 0 <= word < 1 << 32):
        raise EncodingError(
            f"insn: must be a 32-bit word, got {shown_number(word) if isinstance(word, int) else repr(word)}"
        )
    funct6 = word >> 26
    if word & 0x7F != OPCODE_OP_V or word >> 12 & 0b111 != FUNCT3_OPMVV or funct6 not in REDUCTIONS:
        raise EncodingError(f"insn: {word:#010x} is not an OP-V reduction")
    if funct6 != FUNCT6_VREDMAX:
        raise EncodingError(f"insn: {word:#010x} is {REDUCTIONS[funct6]}, not {MNEMONIC}")
    return Insn(vd=word >> 7 & 31, vs2=word >> 20 & 31, vs1=word >> 15 & 31, vm=word >> 25 & 1)


def format_asm(insn: Insn) -> str:
    text = f"{MNEMONIC} v{insn.vd}, v{insn.vs2}, v{insn.vs1}"
    return text if insn.vm else text + ", v0.t"


_REGISTER = re.compile(r"v([0-9]|[12][0-9]|3[01])")


def parse_asm(text: str) -> Insn:
    """Parse `vredmax.vs vd, vs2, vs1[, v0.t]` (case and spacing free)."""
    parts = text.strip().split(None, 1)
    if not parts or parts[0].lower() != MNEMONIC:
        got = parts[0] if parts else ""
        raise EncodingError(f"insn: expected mnemonic {MNEMONIC}, got {got!r}")
    operands = [op.strip().lower() for op in parts[1].split(",")] if len(parts) > 1 else []
    if len(operands) == 4:
        if operands[3] != "v0.t":
            raise EncodingError(f"insn: the mask operand must be v0.t, got {operands[3]!r}")
        vm = 0
    elif len(operands) == 3:
        vm = 1
    else:
        raise EncodingError(f"insn: {MNEMONIC} takes vd, vs2, vs1[, v0.t]; got {len(operands)} operands")
    fields = {}
    for name, operand in zip(("vd", "vs2", "vs1"), operands):
        match = _REGISTER.fullmatch(operand)
        if not match:
            raise EncodingError(f"insn: {name} must be a vector register v0..v31, got {operand!r}")
        fields[name] = int(match.group(1))
    return Insn(vm=vm, **fields)


def describe_fields(word: int) -> list[tuple[str, str, int]]:
    """(field, bits, value) for every field of the word, most significant first."""
    layout = [
        ("funct6", 31, 26),
        ("vm", 25, 25),
        ("vs2", 24, 20),
        ("vs1", 19, 15),
        ("funct3", 14, 12),
        ("vd", 11, 7),
        ("opcode", 6, 0),
    ]
    return [
        (
            name,
            format(word >> lo & ((1 << (hi - lo + 1)) - 1), f"0{hi - lo + 1}b"),
            word >> lo & ((1 << (hi - lo + 1)) - 1),
        )
        for name, hi, lo in layout
    ]
