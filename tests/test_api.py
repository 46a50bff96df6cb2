"""vredmax.api.check_impl and assert_proved, and the pytest plugin's field diff.

Each check runs at one small configuration (VLEN=128 SEW=8 LMUL=m1): the machinery is the
CLI's (proofs/python/session.py), whose methods tests/test_check_impl.py covers.
"""

import json
import subprocess
import sys
import textwrap

import pytest

from vredmax.api import CheckReport, Insn, Verdict, assert_proved, check_impl, execute, parse_case
from vredmax.presentation.differences import differences
from vredmax.pytest_plugin import pytest_assertrepr_compare
from tests.strategies import make_state

SMALL = {"vlen": 128, "sew": 8, "lmul": "m1"}


def correct(ops, seed, elements, active):
    acc = seed
    for element, on in zip(elements, active):
        acc = ops.ite(on, ops.smax(acc, element), acc)
    return acc


def skips_lane_3(ops, seed, elements, active):
    """Wrong: lane 3 never takes part."""
    acc = seed
    for i, (element, on) in enumerate(zip(elements, active)):
        if i != 3:
            acc = ops.ite(on, ops.smax(acc, element), acc)
    return acc


def test_a_correct_unit_is_proved_with_its_bounds():
    report = check_impl(correct, **SMALL)
    assert isinstance(report, CheckReport)
    assert report.verdict == Verdict.PROVED and report.proved
    assert report.counterexample is None and report.case is None
    assert len(report.bounds) == 1 and report.bounds[0].startswith("VLEN=128 ELEN=64 SEW=8 LMUL=m1, VLMAX=16")
    assert [c.verdict for c in report.configurations] == [Verdict.PROVED]
    assert report.level == "unit" and report.summary.startswith("Summary: 1 proved")


def test_a_buggy_unit_gives_a_counterexample_that_replays():
    report = check_impl(skips_lane_3, **SMALL)
    assert report.verdict == Verdict.COUNTEREXAMPLE and not report.proved
    cx = report.counterexample
    assert cx is not None and report.case is not None and report.bounds == []
    # the case, as `vredmax exec` reads it: the spec and the buggy unit disagree on it
    pre, insn, tail = parse_case(report.case)
    spec = execute(pre, insn, "sequential", tail)
    mine = execute(pre, insn, tail=tail, reduce=skips_lane_3)
    assert spec.state != mine.state
    assert report.replay().differing == ["vd[0]"]
    assert report.replay(correct).differing == []
    assert "lane" in report.lane_table() and "running max" in report.lane_table()


def test_the_report_is_the_cli_s():
    """The same verdict, counterexample and bounds as `vredmax check-impl --json`."""
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "vredmax",
            "check-impl",
            f"{__file__}:skips_lane_3",
            "--vlen",
            "128",
            "--sew",
            "8",
            "--lmul",
            "m1",
            "--json",
        ],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 1, done.stderr
    cli = json.loads(done.stdout)
    report = check_impl(f"{__file__}:skips_lane_3", **SMALL)
    mine = report.to_json()
    assert mine["verdict"] == cli["verdict"] == "COUNTEREXAMPLE"
    assert mine["counterexample"]["case"] == cli["counterexample"]["case"] == report.case
    assert mine["bounds"] == cli["bounds"] and mine["coverage"] == cli["coverage"]
    assert report.text().splitlines()[-1] == "Summary: 0 proved, 1 counterexamples, 0 unknown, 0 errors"


def test_a_lambda_runs_in_this_process():
    report = check_impl(lambda ops, seed, elements, active: seed, **SMALL, random_states=10)
    assert report.verdict == Verdict.COUNTEREXAMPLE
    with pytest.raises(ValueError, match="^isolate: the function cannot be loaded"):
        check_impl(lambda ops, seed, elements, active: seed, isolate=True, **SMALL)


@pytest.mark.parametrize(
    "options, message",
    [
        ({"vlen": 100}, "vlen: must be a power of two from 32 to 65536, got 100"),
        ({"vlen": "128,x"}, "vlen: expected integers"),
        ({"sew": 12}, "sew: must be one of 8, 16, 32, 64, got 12"),
        ({"lmul": "m3"}, "lmul: must be one of mf8"),
        ({"elen": 16}, "elen: must be one of 32, 64, got 16"),
        ({"sew": 64, "lmul": "mf8"}, "lmul: no legal configuration matches"),
        ({"timeout": 0}, "timeout: must be positive"),
        ({"random_states": -1}, "random: must be at least 0, got -1"),
        ({"seed": "x"}, "seed: expected an integer"),
        ({"solver": "yices"}, "solver: must be one of"),
        ({"level": "chip"}, "level: must be unit or instruction"),
        ({"level": "instruction", "vlen": 8192}, "vlen: a whole instruction is checked up to VLEN=4096"),
    ],
)
def test_bad_arguments_are_value_errors_naming_the_field(options, message):
    with pytest.raises(ValueError) as error:
        check_impl(correct, **options)
    assert str(error.value).startswith(message)


def test_a_name_that_cannot_be_loaded():
    with pytest.raises(ValueError, match="^impl: no such file: .*nowhere.py"):
        check_impl("nowhere.py:reduce")
    with pytest.raises(ValueError, match="^function: expected a function"):
        check_impl(42)


def test_assert_proved_returns_the_report():
    assert assert_proved(correct, **SMALL).proved


def test_assert_proved_fails_with_the_lane_table():
    with pytest.raises(AssertionError) as error:
        assert_proved(skips_lane_3, **SMALL)
    message = str(error.value)
    assert message.startswith(f"{__file__}:skips_lane_3: COUNTEREXAMPLE")
    assert "   lane  vs2[i]" in message and "running max" in message  # the lane table
    assert "<- differs" in message and "Replay it:" in message


# The pytest plugin: a failed == between results shows the fields that differ ---------------


def _results():
    pre = make_state(128, 8, "m1", vl=4, regs={16: 0x80, 4: 0x01})
    insn = Insn(vd=8, vs2=16, vs1=4)
    return execute(pre, insn), execute(pre, insn, reduce=lambda ops, seed, elements, active: elements[0])


def test_the_plugin_shows_a_field_diff_of_two_results():
    spec, mine = _results()
    lines = pytest_assertrepr_compare(None, "==", spec, mine)
    assert lines[0] == "Result(...) == Result(...): 1 field differs (left != right)"
    assert lines[1:] == ["  state.v8[0]: #x01 (1, 1) != #x80 (128, -128)"]
    assert pytest_assertrepr_compare(None, "==", 1, 2) is None
    assert pytest_assertrepr_compare(None, "<", spec, mine) is None
    assert differences(spec, spec) == []


def test_the_plugin_is_active_under_pytest(tmp_path):
    test = tmp_path / "test_diff.py"
    test.write_text(
        textwrap.dedent("""
        from vredmax.api import Insn, execute
        from vredmax.spec.state import ArchState

        def test_differs():
            pre = ArchState(128, 64, tuple({16: 0x80, 4: 0x01}.get(r, 0) for r in range(32)), 0, 4, 0, 1)
            insn = Insn(vd=8, vs2=16, vs1=4)
            assert execute(pre, insn) == execute(pre, insn, reduce=lambda ops, seed, elements, active: elements[0])
    """)
    )
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(test)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert done.returncode == 1
    assert "state.v8[0]: #x01 (1, 1) != #x80 (128, -128)" in done.stdout
