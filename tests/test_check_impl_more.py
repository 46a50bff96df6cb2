"""check-impl on more emulator-style implementations (tests/buggy/emulators_more.py), each with
the proof alone (`--random 0`, no directed states) at the configuration where its bug lives:
the correct ones PROVED, the wrong ones a COUNTEREXAMPLE that replays (never PROVED).

The whole steps here read operands that are the spec's by value but not the same terms (an
element put together from its bytes, the register `vs2 | k`): before the cut accepted equal
operands (proofs/python/operands.py) they were UNKNOWN at the cut and fell back to the slow
monolithic query (VLMAX 16) or stayed UNKNOWN (VLMAX 32 and above).
"""

import pytest

from vredmax.proofs.engine.verdict import Verdict
from vredmax.proofs.python.check_impl import INSTRUCTION, MONOLITHIC, InProcess, check_implementation, load
from vredmax.spec.config import Config
from tests.buggy import emulators, emulators_more
from tests.proof_alone import VERDICTS, case_id, cases, check_proof_alone

FILE = "tests/buggy/emulators_more.py"
CASES = cases(emulators_more)


def test_there_are_enough_new_implementations():
    functions = emulators_more.UNITS + emulators_more.STEPS
    wrong = [f for f in functions if f.expect == "counterexample"]
    right = [f for f in functions if f.expect == "proved"]
    assert len(wrong) >= 7 and len(right) >= 6
    names = {f.__name__ for f in functions}
    assert len(names) == len(functions)
    assert not names & {f.__name__ for f in emulators.UNITS + emulators.STEPS}


@pytest.mark.parametrize("level, function, cfg", CASES, ids=[case_id(c) for c in CASES])
def test_the_proof_alone_gives_the_verdict(level, function, cfg):
    check_proof_alone(FILE, level, function, cfg)


def test_equal_operands_are_proved_by_a_query_per_register_not_per_element():
    """`vs2 | k` against the spec's `vs2 + k`: one question per register of the group."""
    from vredmax.proofs.python.check_impl import check_at_scale

    cfg = Config(256, 64, 64, "m8")
    check, _ = check_at_scale(load(f"{FILE}:step_group_or"), INSTRUCTION, cfg, "undisturbed", 60_000)
    assert check.verdict == Verdict.PROVED, check.detail
    assert "28 leaves equal to the spec's operands by 1 solver query" in check.detail


@pytest.mark.parametrize("cfg", [emulators.STEP_CUT, emulators.WIDE], ids=lambda c: f"VLMAX{c.vlmax}")
def test_a_register_class_step_is_cut(cfg):
    """tests/buggy/emulators.py's step_register_class filters with `insn.vm or rf.mask_bit(i)` (an
    int or a bool): only its truth is used, so it merges (branches.any_of); explored, it took
    a path per lane and was UNKNOWN after minutes at VLMAX 16."""
    report = check_implementation(
        InProcess(
            load("tests/buggy/emulators.py:step_register_class"), INSTRUCTION, random_states=0, directed=False
        ),
        INSTRUCTION,
        [cfg],
    )
    assert report.verdict == Verdict.PROVED, report.detail
    assert all(c.method != MONOLITHIC for c in report.results[0].checks)


SCALE_CFG = Config(512, 64, 8, "m8")  # VLMAX 512: minutes, most of it the symbolic run of the user's loop


@pytest.mark.check_impl_scale
@pytest.mark.parametrize(
    "name, expect",
    [
        (f.__name__, f.expect)
        for f in emulators_more.STEPS
        if f.__name__
        in (
            "step_bytes_concat",
            "step_group_or",
            "step_inactive_replaced",
            "step_register_object",
            "step_last_lanes_dropped",
        )
    ],
)
def test_whole_step_styles_at_vlmax_512(name, expect):
    report = check_implementation(
        InProcess(load(f"{FILE}:{name}"), INSTRUCTION, random_states=0, directed=False),
        INSTRUCTION,
        [SCALE_CFG],
    )
    assert report.verdict == VERDICTS[expect], report.detail
