"""Whole instructions whose vd is rebuilt element by element (tests/buggy/whole_step_shapes.py), with
the proof alone at VLEN=128 SEW=64 LMUL=m8 (VLMAX 16, one element in vd's tail): the correct
ones PROVED by the cut in seconds, the wrong twins a COUNTEREXAMPLE that replays.

A guard of a regression: a tail element that meets the reduction's result in the element ops
(`ops.ite`, or a plain-Python `|` of vd's pieces) reached the machine ops as a second cut, which
was taken for a second reduction joining vd's old tail: UNKNOWN at the cut, then the monolithic
query timed out (121 s). Such a value is now put back as its exact term
(proofs/python/cutstep.py: _uncut_other_values).
"""

import pytest

from vredmax.proofs.python.check_impl import INSTRUCTION, MONOLITHIC, InProcess, check_implementation, load
from vredmax.proofs.engine.verdict import Verdict
from tests.buggy import unusual_correct, whole_step_shapes
from tests.buggy.whole_step_shapes import WIDE_ELEMENTS
from tests.proof_alone import case_id, cases, check_proof_alone

FILE = "tests/buggy/whole_step_shapes.py"
# in the default run: the four correct shapes at VLEN=128 SEW=64 m8 and a wrong tail (seconds each);
# the rest with -m check_impl_scale
DEFAULT = {
    "step_writes_vd_when_reserved",
    "step_whole_registers",
    "step_tail_half_ones",
    "step_gated_on_vl",
    "step_tail_half_ones_wrong",
}
CASES = [
    pytest.param(
        *c,
        id=case_id(c),
        marks=() if c[1].__name__ in DEFAULT and c[2] == WIDE_ELEMENTS else pytest.mark.check_impl_scale,
    )
    for c in cases(whole_step_shapes)
]


@pytest.mark.parametrize("level, function, cfg", CASES)
def test_the_proof_alone_gives_the_verdict(level, function, cfg):
    report = check_proof_alone(FILE, level, function, cfg)
    assert report.results[0].seconds < 30


@pytest.mark.check_impl_scale
@pytest.mark.parametrize("function", unusual_correct.CORRECT_INSTRUCTIONS, ids=lambda f: f.__name__)
def test_the_unusual_steps_are_cut_where_vd_has_a_tail_element(function):
    """tests/buggy/unusual_correct.py's steps write vd with `m.concat` through the machine ops: at
    SEW=64 VLEN=128 the old tail element met the result as a second cut (UNKNOWN)."""
    target = load(f"tests/buggy/unusual_correct.py:{function.__name__}")
    report = check_implementation(
        InProcess(target, INSTRUCTION, random_states=0, directed=False), INSTRUCTION, [WIDE_ELEMENTS]
    )
    assert report.verdict == Verdict.PROVED, report.detail
    assert all(c.method != MONOLITHIC for c in report.results[0].checks)
