"""The quality tier of check-impl: every buggy implementation in tests/buggy/ is caught, with a
counterexample that replays on the executable model, and the project's own algorithms are
PROVED. A test here passes when the bug is found.
"""

import pytest

from vredmax.impl import ALGORITHMS
from vredmax.proofs.check_impl import INSTRUCTION, SMALL_CONFIGS, UNIT, check_implementation
from vredmax.proofs.verdict import Verdict
from vredmax.spec.config import Config
from tests.buggy.instructions import BUGGY_INSTRUCTIONS
from tests.buggy.units import BUGGY_UNITS

# A subset of SMALL_CONFIGS that is quick with Z3 alone too: VLMAX 2 to 16, a register group
# and a fractional LMUL. The whole set runs with -m sweep.
QUICK_CONFIGS = (Config(128, 64, 64, "m1"), Config(128, 64, 64, "m2"), Config(128, 64, 32, "m1"),
                 Config(128, 64, 8, "mf2"), Config(128, 64, 8, "m1"))

BUGS = [(UNIT, f) for f in BUGGY_UNITS] + [(INSTRUCTION, f) for f in BUGGY_INSTRUCTIONS]


def test_there_are_enough_buggy_implementations():
    assert len(BUGS) >= 10


@pytest.mark.parametrize("level, function", BUGS, ids=[f.__name__ for _, f in BUGS])
def test_buggy_implementation_is_caught(level, function):
    report = check_implementation(function, level, SMALL_CONFIGS)
    assert report.verdict == Verdict.COUNTEREXAMPLE, report.detail
    cx = report.counterexample
    assert cx is not None and cx.differing, "the counterexample must replay concretely"
    assert cx.other != cx.spec


@pytest.mark.parametrize("name", sorted(ALGORITHMS))
def test_project_algorithms_are_proved(name):
    report = check_implementation(ALGORITHMS[name], UNIT, QUICK_CONFIGS)
    assert report.verdict == Verdict.PROVED, report.detail
    assert len(report.bounds) == len(QUICK_CONFIGS)


@pytest.mark.sweep
@pytest.mark.parametrize("name", sorted(ALGORITHMS))
def test_project_algorithms_are_proved_everywhere_small(name):
    report = check_implementation(ALGORITHMS[name], UNIT, SMALL_CONFIGS)
    assert report.verdict == Verdict.PROVED, report.detail


@pytest.mark.parametrize("bug, vl", [("odd_level_drops_last", 2), ("vl0_writes_seed", 0),
                                     ("lmul_first_register_only", 3), ("unsigned_compare", 1)])
def test_counterexamples_are_small(bug, vl):
    level, function = next((lv, f) for lv, f in BUGS if f.__name__ == bug)
    cx = check_implementation(function, level, SMALL_CONFIGS).counterexample
    assert cx.pre.vl == vl
