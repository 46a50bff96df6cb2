"""check-impl on code that uses Python's own operators: one program for ints and proofs.

Each implementation of tests/buggy/python_values.py gets the verdict it deserves at the
monolithic and the cut-point configurations, without random concrete states (`--random 0`:
the proof alone must be sound) and with them.
"""

import pytest
import z3

from vredmax.proofs.engine.verdict import Verdict
from vredmax.proofs.python import values as V
from vredmax.proofs.python.check_impl import INSTRUCTION, UNIT, InProcess, check_implementation
from vredmax.proofs.python.terms import Z3Terms
from tests.buggy import python_values

EXPECTED = {"proved": Verdict.PROVED, "counterexample": Verdict.COUNTEREXAMPLE, "error": Verdict.ERROR}
CASES = [(UNIT, f, cfg) for f in python_values.UNITS for cfg in f.where] + [
    (INSTRUCTION, f, cfg) for f in python_values.INSTRUCTIONS for cfg in f.where
]


@pytest.mark.parametrize(
    "level, function, cfg", CASES, ids=[f"{f.__name__}-VLMAX{cfg.vlmax}" for _, f, cfg in CASES]
)
def test_the_proof_alone_gives_the_verdict(level, function, cfg):
    if function.__name__ == "caught_numpy_fast_path":
        pytest.importorskip("numpy")
    report = check_implementation(InProcess(function, level, random_states=0, directed=False), level, [cfg])
    assert report.verdict == EXPECTED[function.expect], report.detail
    if report.verdict == Verdict.COUNTEREXAMPLE:
        assert report.counterexample.differing and "random" not in report.detail
    if report.verdict == Verdict.ERROR:  # the line of the refused use, or the function's result
        assert "python_values.py:" in report.detail or "returned a value that may be outside" in report.detail


def test_random_states_agree_with_the_proof():
    for function in (python_values.python_biased_compare, python_values.python_greater_than):
        report = check_implementation(InProcess(function, UNIT, random_states=30), UNIT, [python_values.CUT])
        assert report.verdict == EXPECTED[function.expect], report.detail


def test_a_caught_refusal_names_the_line_it_was_made_at():
    report = check_implementation(
        InProcess(python_values.caught_int_fast_path, UNIT, random_states=0, directed=False),
        UNIT,
        [python_values.MONOLITHIC],
    )
    assert "caught inside the implementation" in report.detail and "int()" in report.detail


# The values themselves -------------------------------------------------------------------


def _symbolic(cx, name, width, lo=0, hi=None):
    return V.SymInt(
        cx, Z3Terms(), z3.BitVec(name, width), width, False, lo, (1 << width) - 1 if hi is None else hi
    )


def _value(result, **values):
    if type(result) is int or type(result) is bool:
        return result
    term = z3.simplify(
        z3.substitute(
            result.t,
            *[
                (z3.BitVec(name, width), z3.BitVecVal(value, width))
                for name, (value, width) in values.items()
            ],
        )
    )
    if z3.is_bool(term):
        return z3.is_true(term)
    value = term.as_long()
    return value - (1 << result.w) if result.s and value >> (result.w - 1) & 1 else value


@pytest.mark.parametrize(
    "expression",
    [
        lambda x, y: x + y,
        lambda x, y: x - y,
        lambda x, y: y - x * 3,
        lambda x, y: ~x & y,
        lambda x, y: -x | y,
        lambda x, y: x ^ (y << 3),
        lambda x, y: (x - y) >> 2,
        lambda x, y: x // 7,
        lambda x, y: (x - 200) // 9,
        lambda x, y: (x - 100) % -7,
        lambda x, y: x > y,
        lambda x, y: x - y < 0,
        lambda x, y: (x >> 7) == -1,
        lambda x, y: abs(x - y),
        lambda x, y: (x - y).bit_length(),
        lambda x, y: x**2 - y,
    ],
)
def test_operators_mean_what_they_mean_on_ints(expression):
    """Every pair of 8-bit values: the symbolic result, evaluated, is the Python int's."""
    with V.Context() as cx:
        result = expression(_symbolic(cx, "x", 8), _symbolic(cx, "y", 8))
    for x in range(0, 256, 7):
        for y in range(0, 256, 11):
            assert _value(result, x=(x, 8), y=(y, 8)) == expression(x, y), (x, y)


def test_isinstance_and_the_bounds():
    with V.Context() as cx:
        x = _symbolic(cx, "x", 8)
        assert isinstance(x, int) and not isinstance(x, bool) and isinstance(x < 3, bool)
        assert ((x & 0x0F) < 16) is True and (x >> 8) == 0  # decided by the bounds
        with pytest.raises(V.Refusal, match="truth test"):
            bool(x > 3)
        assert cx.refusals


@pytest.mark.parametrize(
    "function",
    [
        python_values.caught_int_fast_path,
        python_values.all_equal_shortcut,
        python_values.caught_descriptor_fast_path,
        python_values.caught_numpy_fast_path,
    ],
    ids=lambda f: f.__name__,
)
def test_code_the_proof_refuses_still_gets_a_counterexample_when_wrong(function):
    """Concrete states run first: a wrong implementation whose symbolic run is refused gets
    a minimised counterexample (priority over the proof's error), at both methods' sizes."""
    if function.__name__ == "caught_numpy_fast_path":
        pytest.importorskip("numpy")
    for cfg in (python_values.MONOLITHIC, python_values.CUT):
        report = check_implementation(InProcess(function, UNIT, random_states=0), UNIT, [cfg])
        assert report.verdict == Verdict.COUNTEREXAMPLE, report.detail
        assert report.results[0].method == "concrete" and report.counterexample.differing
        assert report.counterexample.pre.vl <= 2
