"""examples/cases/: each case runs with `vredmax exec` and gives the outcome its name says.

A file's name starts with its outcome (`retired-`, `illegal-`, `reserved-`); EXPECTED says what
else it shows (the value written to vd[0], or that vd is left alone), so a case that drifts
from its name or from the docs that cite it fails here. Every file must be listed.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vredmax.cli.main import main

CASES = Path(__file__).resolve().parent.parent / "examples" / "cases"
OUTCOMES = {"retired": "retired", "illegal": "illegal-instruction", "reserved": "reserved"}

# name -> (vd register, what vd[0] holds afterwards: a value, or "unchanged"), and a phrase of
# the reason for a trap or a vl=0 retirement.
EXPECTED = {
    "retired-seed-usage": ("v8", 0x03, ""),  # the seed document's usage scenario
    "retired-seed-animation": ("v4", 0x0011, ""),  # the seed document's animation
    "retired-masked": ("v4", 0x0000000C, ""),  # lanes 0 and 2 masked off
    "retired-all-masked-off": ("v8", 0xFF85, ""),  # no active lane: vd[0] = the seed
    "retired-vl0": ("v8", "unchanged", "vl=0"),
    "retired-tail-agnostic": ("v8", 0x0009, ""),  # vta=1, exec keeps the tail (all ones allowed too)
    "retired-tail-agnostic-ones": ("v8", 0x0009, ""),  # the case asks for all-ones tails
    "retired-lmul2": ("v1", 0x00000064, ""),  # the maximum is in v13, the group's second register
    "illegal-vstart": ("v8", "unchanged", "vstart=1 is nonzero"),
    "illegal-vs-off": ("v8", "unchanged", "mstatus.VS is Off"),
    "illegal-vill": ("v8", "unchanged", "vtype.vill is set"),
    "illegal-sew64-at-elen32": ("v8", "unchanged", "not supported when ELEN=32"),
    "reserved-v0-in-vs2": ("v8", "unchanged", "v0 is in the vs2 group"),
    "reserved-vs1-is-v0": ("v8", "unchanged", "vs1=v0"),
    "reserved-misaligned-vs2": ("v8", "unchanged", "not a multiple of LMUL"),
}


def test_every_case_file_is_expected():
    assert sorted(p.stem for p in CASES.glob("*.json")) == sorted(EXPECTED)


def _exec(capsys, *argv):
    code = main(["exec", *map(str, argv)])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_case_gives_the_outcome_its_name_says(capsys, name):
    path = CASES / f"{name}.json"
    case = json.loads(path.read_text(encoding="utf-8"))
    code, out, err = _exec(capsys, path, "--json")
    assert (code, err) == (0, "")
    result = json.loads(out)
    assert result["outcome"] == OUTCOMES[name.split("-")[0]]
    register, vd0, reason = EXPECTED[name]
    assert reason in result["reason"] and bool(reason) == bool(result["reason"])
    after = int(result["vregs"][register], 16)
    before = int(str(case.get("vregs", {}).get(register, 0)), 0)
    if vd0 == "unchanged":
        assert after == before
    else:
        sew = case["vtype"]["sew"]
        assert after & ((1 << sew) - 1) == vd0
    if name == "retired-tail-agnostic-ones":  # elements 1 .. 7 all ones
        assert after >> 16 == (1 << 112) - 1
    elif result["outcome"] == "retired" and vd0 != "unchanged":  # an undisturbed tail
        assert after >> case["vtype"]["sew"] == before >> case["vtype"]["sew"]


def test_the_human_view_names_the_outcome(capsys):
    code, out, _ = _exec(capsys, CASES / "reserved-v0-in-vs2.json")
    assert code == 0 and "reserved" in out
    code, out, _ = _exec(capsys, CASES / "retired-seed-usage.json")
    assert code == 0 and "v8[0] = #x03 (3, 3)" in out


def test_the_seed_cases_are_the_manual_pages():
    """The manual page animates the same cases (presentation/documents/manual/content.py)."""
    from vredmax.presentation.documents.manual import content
    from vredmax.impl.case import parse_case

    shipped = json.loads((CASES / "retired-seed-animation.json").read_text(encoding="utf-8"))
    assert parse_case(shipped) == parse_case(content.SEED_CASE)
    usage = json.loads((CASES / "retired-seed-usage.json").read_text(encoding="utf-8"))
    assert parse_case(usage) == parse_case(content.EXAMPLES[0][2])
