"""Encoding conformance with GNU binutils: all 65536 vd/vs2/vs1/vm combinations."""

from __future__ import annotations

from vredmax.spec.encoding import Insn, decode, encode, format_asm, parse_asm
from vredmax.platforms.conformance.gnu import all_insns, check_encodings, normalize


def test_all_insns_are_distinct_and_complete():
    insns = all_insns()
    assert len(insns) == 65536 == len({encode(insn) for insn in insns})


def test_normalize_ignores_whitespace_only():
    assert normalize("vredmax.vs\tv4,v8,v12,v0.t") == normalize("vredmax.vs v4, v8, v12, v0.t")
    assert normalize("vredmax.vs v4, v8, v12") != normalize("vredmax.vs v4, v12, v8")


def test_every_encoding_matches_gnu(gnu_tools):
    report = check_encodings()
    assert report.compared == 65536
    assert report.words == [], report.words[:5]
    assert report.texts == [], report.texts[:5]
    assert report.agreed


def test_a_wrong_assembler_is_caught(gnu_tools):
    """vs1 and vs2 swapped in the word: GNU as disagrees wherever they differ."""

    def swapped(text):
        insn = parse_asm(text)
        return encode(Insn(vd=insn.vd, vs2=insn.vs1, vs1=insn.vs2, vm=insn.vm))

    insns = [Insn(4, 8, 12, 0), Insn(3, 3, 3, 1), Insn(0, 31, 1, 1)]
    report = check_encodings(insns, assemble=swapped)
    assert [text for text, _, _ in report.words] == ["vredmax.vs v4, v8, v12, v0.t", "vredmax.vs v0, v31, v1"]
    assert not report.agreed


def test_a_wrong_disassembler_is_caught(gnu_tools):
    """Printing the mask operand as v0 instead of v0.t."""

    def sloppy(word):
        return format_asm(decode(word)).replace("v0.t", "v0")

    report = check_encodings([Insn(4, 8, 12, 0), Insn(4, 8, 12, 1)], disassemble=sloppy)
    assert report.texts == [(0x1C862257, "vredmax.vs v4, v8, v12, v0", "vredmax.vs\tv4,v8,v12,v0.t")]
