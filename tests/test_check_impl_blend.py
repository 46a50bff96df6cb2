"""An inactive element replaced by an arithmetic blend with the neutral element, in a whole
instruction cut at its reduction (proofs/python/conditionvalues.py): the active flag as an int
(`on` in {0, 1}) reached the trace as one opaque leaf, so `x * on + MIN * (1 - on)` was no
guarded max (before: UNKNOWN "a value the reduction joins (...) is not shown to equal the
spec's seed or one of its elements"). Now the flag is a choice between constants on its
conditions and the blend is proved `If(active, x, MIN)` by the cut-point method's solver
query per cone shape; wrong blends stay COUNTEREXAMPLE.

A blend done on the machine ops (step_blended_in_the_register: the lane and-masked in its
register, the minimum's bits or-ed in, then read as a signed Python int, all before any traced
op) reached the trace as one wide leaf per lane: UNKNOWN ("a 16-bit input is used ..."). Now
such a leaf is its low bits extended (proved an identity of bit-vectors), and those bits a
blend of element i, proved `If(active_i, vs2[i], MIN)` per leaf (proofs/python/operands.py).
"""

import pytest
import z3

from vredmax.proofs.engine.verdict import Verdict
from vredmax.proofs.python.check_impl import INSTRUCTION, MONOLITHIC, InProcess, check_implementation, load
from vredmax.proofs.python.conditionvalues import as_choice
from vredmax.proofs.python.cutstep import StepTracer
from vredmax.proofs.python.trace import evaluate
from vredmax.spec.bv import Z3Elements
from vredmax.spec.config import Config

BLENDS = "tests/buggy/step_blends.py"
VLMAX_16 = Config(128, 64, 8, "m1")  # past the monolithic limit: the cut at the reduction


def _check(function):
    report = check_implementation(
        InProcess(load(f"{BLENDS}:{function}"), INSTRUCTION, random_states=0, directed=False),
        INSTRUCTION,
        [VLMAX_16],
    )
    return report, report.results[0].checks


@pytest.mark.parametrize(
    "function", ["step_mul", "step_and_mask", "step_mul_of_bits", "step_blended_in_the_register"]
)
def test_an_arithmetic_blend_with_the_neutral_element_is_proved(function):
    report, checks = _check(function)
    assert report.verdict == Verdict.PROVED, report.detail
    assert all(c.method != MONOLITHIC for c in checks)


@pytest.mark.parametrize(
    "function",
    [
        "step_mul_neutral_zero_wrong",
        "step_mul_inverted_wrong",
        "step_and_mask_wrong_neutral_wrong",
        "step_mul_of_bits_ignoring_vl_wrong",
        "step_blended_in_the_register_zero_wrong",
    ],
)
def test_a_wrong_blend_is_refuted(function):
    report, _ = _check(function)
    assert report.verdict == Verdict.COUNTEREXAMPLE, report.detail


def test_a_value_of_conditions_becomes_an_exact_choice_between_constants():
    c, vm, x = z3.Bool("c"), z3.BitVec("vm", 1), z3.BitVec("x", 8)
    on = z3.ZeroExt(7, z3.If(c, z3.BitVecVal(1, 1), z3.BitVecVal(0, 1)) | vm)
    blend = on * 3 - (1 - on) * 128
    tracer = StepTracer(8)
    node = as_choice(tracer, blend)
    assert node is not None and node.op == "ite"
    value = evaluate(Z3Elements(8), node, lambda n: tracer.conditions[n.param] if n.op == "flag" else None)
    solver = z3.Solver()
    solver.add(value != blend)
    assert solver.check() == z3.unsat
    # a term that reads data beyond its conditions stays a leaf
    assert as_choice(tracer, x * on) is None
