"""check-impl on emulator code as people write it (tests/buggy/emulators.py): plain Python with
`if`, `continue`, `break`, early returns, max()/min()/sorted()/heapq/functools.reduce, numpy and
bytes, loaded from its file as the CLI loads it (rewritten: proofs/python/rewrite.py).

Each gets its verdict from the proof alone (`--random 0`, no directed states: a wrong
implementation is never PROVED by the symbolic run, a refused one is an ERROR naming its file
and line) and, in a default run, concrete states first (a wrong one the proof refuses still
gets a minimised counterexample). The slower proofs: -m check_impl_scale.
"""

import pytest

from vredmax.proofs.engine.verdict import Verdict
from vredmax.proofs.python.check_impl import INSTRUCTION, UNIT, InProcess, check_implementation, load
from tests.buggy import emulators

FILE = "tests/buggy/emulators.py"
VERDICTS = {"proved": Verdict.PROVED, "counterexample": Verdict.COUNTEREXAMPLE, "error": Verdict.ERROR}
CASES = [(UNIT, f, cfg) for f in emulators.UNITS for cfg in f.where] + [
    (INSTRUCTION, f, cfg) for f in emulators.STEPS for cfg in f.where
]
SLOW = {emulators.SLOW_CUT}


def _params():
    for level, function, cfg in CASES:
        marks = [pytest.mark.check_impl_scale] if cfg in SLOW else []
        yield pytest.param(level, function, cfg, marks=marks, id=f"{function.__name__}-VLMAX{cfg.vlmax}")


def test_there_are_enough_implementations():
    functions = emulators.UNITS + emulators.STEPS
    wrong = [f for f in functions if f.expect == "counterexample"]
    right = [f for f in functions if f.expect == "proved"]
    assert len(wrong) >= 20 and len(right) >= 12
    assert len({f.__name__ for f in functions}) == len(functions)


@pytest.mark.parametrize("level, function, cfg", list(_params()))
def test_the_proof_alone_gives_the_verdict(level, function, cfg):
    if "numpy" in function.__name__:
        pytest.importorskip("numpy")
    report = check_implementation(
        InProcess(load(f"{FILE}:{function.__name__}"), level, random_states=0, directed=False), level, [cfg]
    )
    assert report.verdict == VERDICTS[function.proof], report.detail
    if report.verdict == Verdict.COUNTEREXAMPLE:
        assert report.counterexample.differing
    if report.verdict == Verdict.ERROR:  # one line naming the user's file and line
        assert "emulators.py:" in report.detail and "\n" not in report.detail.split(": ", 1)[1].split("\n")[0]


WRONG_REFUSED = [(level, f, cfg) for level, f, cfg in CASES if f.proof != f.expect]


@pytest.mark.parametrize(
    "level, function, cfg",
    WRONG_REFUSED,
    ids=[f"{f.__name__}-VLMAX{cfg.vlmax}" for _, f, cfg in WRONG_REFUSED],
)
def test_concrete_states_first_find_what_the_proof_refuses(level, function, cfg):
    if "numpy" in function.__name__:
        pytest.importorskip("numpy")
    report = check_implementation(
        InProcess(load(f"{FILE}:{function.__name__}"), level, random_states=0), level, [cfg]
    )
    assert report.verdict == VERDICTS[function.expect], report.detail
    assert report.results[0].method == "concrete" and report.counterexample.differing


def test_numpy_is_refused_by_name():
    pytest.importorskip("numpy")
    report = check_implementation(
        InProcess(load(f"{FILE}:numpy_signed"), UNIT, random_states=0, directed=False), UNIT, [emulators.CUT]
    )
    assert report.verdict == Verdict.ERROR and "numpy" in report.detail and "emulators.py:" in report.detail


def test_a_filtered_list_used_by_position_is_refused_by_name(tmp_path):
    """list.insert on a list whose filter is symbolic: one line naming the method and what to
    write (before: "raised AttributeError: 'Filtered' object has no attribute 'insert'")."""
    path = tmp_path / "inserting.py"
    path.write_text(
        "def reduce(ops, seed, elements, active):\n"
        "    values = [x for x, a in zip(elements, active) if a]\n"
        "    values.insert(0, seed)\n"
        "    return max(values)\n"
    )
    report = check_implementation(
        InProcess(load(f"{path}:reduce"), UNIT, random_states=0, directed=False), UNIT, [emulators.CUT]
    )
    assert report.verdict == Verdict.ERROR
    assert "list.insert on a list filtered by a symbolic condition" in report.detail, report.detail
    assert "inserting.py:3" in report.detail, report.detail
