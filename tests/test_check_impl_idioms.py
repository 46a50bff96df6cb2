"""check-impl on held-out idioms (tests/buggy/held_idioms.py, issue 33), each with the proof
alone (`--random 0`, no directed states): the correct ones PROVED by cut points, the wrong
twins a COUNTEREXAMPLE that replays (never PROVED).

Before the cut-point method knew the order of its cut points (proofs/python/cutpoint.py,
`order_facts`), a loop that stops once the running maximum is the type's largest value was
UNKNOWN at VLMAX 128 (the test `acc == MAX` made each cone no guarded max: 102 s) and PROVED
at VLMAX 16 only by the monolithic query (35 s). Before a selection (a minimum, the low output
of a compare-and-swap) was kept between two guarded maxima (`Denoter.selection`, the root then
compared both ways: `compare_bounds`), the top output of an odd-even transposition sort was
UNKNOWN at VLMAX 16 (the monolithic query gave up after 135 s); now PROVED in 0.5 s. A whole step keeping the registers in a dict inside a class was UNKNOWN at
VLEN=1024 SEW=8 m8 ("case writes: bitwuzla gave up", 107 s) before the case where vd is
written was split into its requirements and the frame per register (proofs/python/cutstep.py,
`split_writes`): now PROVED in 82 s (1.2 s at VLMAX 16, was 36 s). A SEW=64 step comparing an
element as its two 32-bit halves was UNKNOWN ("a 32-bit input is used ...") before the halves,
chosen by the same conditions, were put back together (proofs/python/cutstep.py, `_Fusion`):
PROVED at VLEN=256 in 7 s, at VLEN=2048 m8 in 53 s.

step_joins_a_minimum_of_any_lanes is a wrong step whose result lies between two guarded maxima,
the lower one the spec's: taken for the result it was PROVED. A step's root known only by
bounds is now checked by both (proofs/python/cutstep.py, `inclusion_pairs`):
step_joins_a_minimum_of_active_lanes, PROVED before by the monolithic fallback only (50-80 s),
is PROVED by the cut (12 s a tail), and step_bytes_as_halves_low_signed, UNKNOWN at VLMAX 32,
is a COUNTEREXAMPLE (the seed's condition in a bound is not the spec's). A step that
makes inactive lanes the signed minimum through an and-mask on the machine ops
(step_neutral_by_and_mask) left a cone of more than 48 operations: UNKNOWN at VLEN=1024,
PROVED at VLMAX 16 by the monolithic fallback only; each masked lane is now one leaf, proved
the element when active and the minimum otherwise (proofs/python/operands.py, a blend): PROVED
by the cut at VLMAX 16 (3 s) and at VLEN=1024 (42 s, both tails).
"""

import pytest

from vredmax.proofs.python.check_impl import UNIT
from tests.buggy import held_idioms
from tests.proof_alone import case_id, cases, check_proof_alone

FILE = "tests/buggy/held_idioms.py"
SLOW_VLMAX = 128  # units from this VLMAX on, steps past VLMAX 32: -m check_impl_scale
# still UNKNOWN (see the case's docstring): the verdict is not yet the expected one
NOT_YET: set = set()


# PROVED by the cut, but its step is explored path by path (17 paths, 6 s a tail): with the
# scale tests (it was PROVED by the monolithic fallback only, in 50 to 80 s)
SLOW = {("step_joins_a_minimum_of_active_lanes", 16)}


def _marks(level, function, cfg):
    marks = []
    limit = SLOW_VLMAX if level == UNIT else 33
    if cfg.vlmax >= limit or (function.__name__, cfg.vlmax) in SLOW:
        marks.append(pytest.mark.check_impl_scale)
    if (function.__name__, cfg.vlmax) in NOT_YET:
        marks.append(pytest.mark.xfail(reason="UNKNOWN on the current method", strict=True))
    return marks


CASES = [pytest.param(*c, id=case_id(c), marks=_marks(*c)) for c in cases(held_idioms)]


def test_each_correct_idiom_has_a_wrong_twin():
    functions = held_idioms.UNITS + held_idioms.STEPS
    right = [f for f in functions if f.expect == "proved"]
    wrong = [f for f in functions if f.expect == "counterexample"]
    assert len(wrong) >= len(right) - 2  # a twin each (two variants of one neutral element)
    assert len({f.__name__ for f in functions}) == len(functions)


@pytest.mark.parametrize("level, function, cfg", CASES)
def test_the_proof_alone_gives_the_verdict(level, function, cfg):
    check_proof_alone(FILE, level, function, cfg)
