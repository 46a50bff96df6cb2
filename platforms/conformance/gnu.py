"""Encoding conformance against GNU binutils: every vd, vs2, vs1, vm in one assembly file.

The project's assembler (parse_asm then encode) must give GNU as's word for each line, and
the project's disassembler (decode then format_asm) must print GNU objdump's text for each
word, whitespace aside (objdump prints `vredmax.vs\tv4,v8,v12,v0.t`).
"""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from itertools import product
from pathlib import Path

from vredmax.spec.encoding import Insn, decode, encode, format_asm, parse_asm

ASSEMBLER = "riscv64-linux-gnu-as"
OBJDUMP = "riscv64-linux-gnu-objdump"
MARCH = "-march=rv64gcv"
_LISTING = re.compile(r"^\s*([0-9a-f]+):\s+([0-9a-f]{8})\s+(.+?)\s*$")


class ToolError(Exception):
    """A GNU tool is missing or failed; the message is one line."""


def all_insns() -> list[Insn]:
    """All 65536 operand combinations, unmasked first."""
    return [
        Insn(vd=vd, vs2=vs2, vs1=vs1, vm=vm)
        for vm, vd, vs2, vs1 in product((1, 0), range(32), range(32), range(32))
    ]


def normalize(text: str) -> str:
    """Whitespace aside: one space after the mnemonic, none around commas."""
    return re.sub(r"\s*,\s*", ",", " ".join(text.split()))


def _run(command: list[str]) -> str:
    if shutil.which(command[0]) is None:
        raise ToolError(f"{command[0]}: not found (install binutils-riscv64-linux-gnu)")
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        first = (done.stderr.strip().splitlines() or ["no message"])[0]
        raise ToolError(f"{command[0]}: failed: {first}")
    return done.stdout


def gnu_listing(lines: list[str]) -> list[tuple[int, str]]:
    """Assemble the lines with GNU as, disassemble with objdump: (word, text) per line."""
    with tempfile.TemporaryDirectory() as work:
        source, obj = Path(work) / "all.s", Path(work) / "all.o"
        source.write_text("".join(f"\t{line}\n" for line in lines))
        _run([ASSEMBLER, MARCH, "-o", str(obj), str(source)])
        dump = _run([OBJDUMP, "-d", str(obj)])
    listing = []
    for row in dump.splitlines():
        match = _LISTING.match(row)
        if match:
            address, word, text = match.groups()
            if int(address, 16) != 4 * len(listing):
                raise ToolError(f"{OBJDUMP}: unexpected address {address} at line {len(listing)}")
            listing.append((int(word, 16), text))
    if len(listing) != len(lines):
        raise ToolError(f"{OBJDUMP}: listed {len(listing)} instructions for {len(lines)} lines")
    return listing


@dataclass
class EncodingReport:
    compared: int = 0
    words: list[tuple[str, int, int]] = field(default_factory=list)  # (text, ours, GNU's)
    texts: list[tuple[int, str, str]] = field(default_factory=list)  # (word, ours, GNU's)

    @property
    def agreed(self) -> bool:
        return self.compared > 0 and not self.words and not self.texts


def check_encodings(
    insns=None,
    assemble=lambda text: encode(parse_asm(text)),
    disassemble=lambda word: format_asm(decode(word)),
) -> EncodingReport:
    """Compare the project's assembler and disassembler with GNU's on every instruction."""
    insns = all_insns() if insns is None else list(insns)
    lines = [format_asm(insn) for insn in insns]
    report = EncodingReport()
    for line, (gnu_word, gnu_text) in zip(lines, gnu_listing(lines)):
        report.compared += 1
        ours = assemble(line)
        if ours != gnu_word:
            report.words.append((line, ours, gnu_word))
        our_text = disassemble(gnu_word)
        if normalize(our_text) != normalize(gnu_text):
            report.texts.append((gnu_word, our_text, gnu_text))
    return report
