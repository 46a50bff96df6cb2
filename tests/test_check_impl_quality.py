"""The quality tier of check-impl: every buggy implementation in tests/buggy/ is a
COUNTEREXAMPLE at the configuration where its bug lives, with a case that replays (the
implementation and the executable spec disagree on it, and it is a valid `vredmax exec`
case); every unusual but correct one, and the project's own algorithms, are PROVED.
A test here passes when the bug is found. Large configurations: -m check_impl_scale.
"""

import pytest

from vredmax.impl.case import case_json, parse_case
from vredmax.impl import ALGORITHMS
from vredmax.proofs.python.check_impl import (
    INSTRUCTION,
    UNIT,
    InProcess,
    as_instruction,
    check_implementation,
    default_configs,
    replay,
)
from vredmax.proofs.engine.verdict import Verdict
from vredmax.spec.config import Config
from tests.buggy.instructions import BUGGY_INSTRUCTIONS
from tests.buggy.scale_instructions import BUGGY_SCALE_INSTRUCTIONS
from tests.buggy.scale_units import BUGGY_SCALE_UNITS
from tests.buggy.units import BUGGY_UNITS
from tests.buggy.unusual_correct import CORRECT_INSTRUCTIONS, CORRECT_UNITS

# Small configurations that are quick with the monolithic proof: VLMAX 2 to 16, register
# groups and a fractional LMUL (for the older buggy set, which has no `.where`).
QUICK_CONFIGS = (
    Config(128, 64, 64, "m1"),
    Config(128, 64, 64, "m2"),
    Config(128, 64, 32, "m1"),
    Config(128, 64, 8, "mf2"),
    Config(128, 64, 8, "m1"),
)

OLD_BUGS = [(UNIT, f) for f in BUGGY_UNITS] + [(INSTRUCTION, f) for f in BUGGY_INSTRUCTIONS]
NEW_BUGS = [(UNIT, f) for f in BUGGY_SCALE_UNITS] + [(INSTRUCTION, f) for f in BUGGY_SCALE_INSTRUCTIONS]
CORRECT = [(UNIT, f) for f in CORRECT_UNITS] + [(INSTRUCTION, f) for f in CORRECT_INSTRUCTIONS]


def test_there_are_enough_implementations():
    assert len(NEW_BUGS) >= 25 and len(CORRECT) >= 10
    assert {level for level, _ in NEW_BUGS} == {UNIT, INSTRUCTION}
    assert len({f.__name__ for _, f in OLD_BUGS + NEW_BUGS + CORRECT}) == len(OLD_BUGS + NEW_BUGS + CORRECT)


def caught(level, function, configs):
    report = check_implementation(InProcess(function, level, random_states=0), level, configs)
    assert report.verdict == Verdict.COUNTEREXAMPLE, f"{report.verdict.value}: {report.detail}"
    cx = report.counterexample
    assert cx is not None and cx.differing, "the counterexample must replay concretely"
    pre, insn, tail = parse_case(case_json(cx.pre, cx.insn, cx.tail))  # a valid exec case
    instruction = as_instruction(function) if level == UNIT else function
    assert replay(instruction, cx.cfg, pre, insn, tail).differing == cx.differing
    return report


@pytest.mark.parametrize("level, function", OLD_BUGS, ids=[f.__name__ for _, f in OLD_BUGS])
def test_buggy_implementation_is_caught(level, function):
    caught(level, function, QUICK_CONFIGS)


@pytest.mark.parametrize("level, function", NEW_BUGS, ids=[f.__name__ for _, f in NEW_BUGS])
def test_bug_is_caught_where_it_lives(level, function):
    report = caught(level, function, [function.where])
    assert report.counterexample.cfg.sew == function.where.sew


@pytest.mark.parametrize("level, function", CORRECT, ids=[f.__name__ for _, f in CORRECT])
def test_unusual_correct_implementation_is_proved(level, function):
    report = check_implementation(InProcess(function, level, random_states=50), level, [function.where])
    assert report.verdict == Verdict.PROVED, report.detail
    assert report.random_states == 50


@pytest.mark.parametrize("name", ["compare_select", "sign_flip_unsigned"])
def test_comparator_units_are_proved_at_scale(name):
    function = next(f for _, f in CORRECT if f.__name__ == name)
    report = check_implementation(
        InProcess(function, UNIT, random_states=10), UNIT, [Config(1024, 64, 8, "m8")]
    )
    assert report.verdict == Verdict.PROVED, report.detail
    assert report.results[0].method != "monolithic"


@pytest.mark.parametrize("name", sorted(ALGORITHMS))
def test_project_algorithms_are_proved(name):
    configs = (Config(128, 64, 64, "m1"), Config(128, 64, 8, "mf2"))
    report = check_implementation(InProcess(ALGORITHMS[name], UNIT, random_states=20), UNIT, configs)
    assert report.verdict == Verdict.PROVED, report.detail
    assert len(report.bounds) == len(configs)


@pytest.mark.check_impl_scale
@pytest.mark.parametrize("name", sorted(ALGORITHMS))
def test_project_algorithms_are_proved_by_default(name):
    report = check_implementation(InProcess(ALGORITHMS[name], UNIT), UNIT, default_configs(UNIT))
    assert report.verdict == Verdict.PROVED, report.detail


@pytest.mark.parametrize(
    "bug, vl",
    [
        ("odd_level_drops_last", 2),
        ("vl0_writes_seed", 0),
        ("lmul_first_register_only", 3),
        ("unsigned_compare", 1),
    ],
)
def test_counterexamples_are_small(bug, vl):
    level, function = next((lv, f) for lv, f in OLD_BUGS if f.__name__ == bug)
    cx = check_implementation(
        InProcess(function, level, random_states=0), level, QUICK_CONFIGS
    ).counterexample
    assert cx.pre.vl == vl


def test_a_bug_past_element_4096_gets_a_small_concrete_case():
    """Found by cut points at VLMAX=8192: minimised to the one element that matters."""
    from tests.buggy.scale_units import ignores_past_4096

    cx = caught(UNIT, ignores_past_4096, [ignores_past_4096.where]).counterexample
    assert cx.pre.vl == 4097 and cx.active_lanes <= 2


@pytest.mark.check_impl_scale
@pytest.mark.parametrize("level, function", CORRECT, ids=[f.__name__ for _, f in CORRECT])
def test_unusual_correct_implementation_is_proved_everywhere(level, function):
    report = check_implementation(InProcess(function, level, random_states=20), level, default_configs(level))
    assert report.verdict == Verdict.PROVED, report.detail
