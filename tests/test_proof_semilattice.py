"""The free-semilattice backend: inclusion conditions, and that they predict concrete runs."""

from __future__ import annotations

import pytest
import z3
from hypothesis import given, settings
from hypothesis import strategies as st

from vredmax.impl import ALGORITHMS
from vredmax.impl.lanes import make_reduce_lanes
from vredmax.proofs.engine.semilattice import NotExpressible, SemilatticeElements, atom, inclusion
from vredmax.spec.bv import ConcreteElements

UNITS = dict(ALGORITHMS, lanes3=make_reduce_lanes(3), lanes1=make_reduce_lanes(1))


def conditions(unit, count, sew=8):
    flags = [z3.Bool(f"a{i}") for i in range(count)]
    conds = inclusion(unit(SemilatticeElements(sew), atom("seed"), [atom(i) for i in range(count)], flags))
    return conds, flags


@pytest.mark.parametrize("name", sorted(UNITS))
@pytest.mark.parametrize("count", [0, 1, 2, 3, 5, 8, 13, 100])
def test_each_unit_includes_exactly_the_active_elements(name, count):
    conds, flags = conditions(UNITS[name], count)
    assert set(conds) == {"seed"} | set(range(count))
    assert z3.is_true(z3.simplify(conds["seed"]))
    for i, flag in enumerate(flags):
        solver = z3.Solver()
        solver.add(conds[i] != flag)
        assert solver.check() == z3.unsat


def test_a_tree_padding_with_zero_lets_the_constant_in():
    def tree_zero(ops, seed, elements, active):
        leaves = [ops.ite(a, v, ops.const(0)) for v, a in zip(elements, active)]
        return ops.smax(seed, ALGORITHMS["tree"].__globals__["fold_tree"](ops, leaves))

    conds, _ = conditions(tree_zero, 4)
    assert ("const", 0) in conds
    solver = z3.Solver()
    solver.add(conds[("const", 0)])
    assert solver.check() == z3.sat  # some activity pattern joins the 0 in


@pytest.mark.parametrize("op", ["sgt", "sge", "slt", "ugt", "ult", "eq", "umax"])
def test_value_comparisons_are_not_expressible(op):
    ops = SemilatticeElements(8)
    with pytest.raises(NotExpressible):
        getattr(ops, op)(atom(1), atom(2))


def test_smin_is_the_empty_join_and_other_constants_are_atoms():
    ops = SemilatticeElements(16)
    assert ops.const(0x8000) is ops.smin()
    assert ops.const(5) is ops.const(5) and ops.const(5) is not ops.smin()


@settings(max_examples=60, deadline=None)
@given(
    st.sampled_from(sorted(UNITS)),
    st.integers(0, 12).flatmap(
        lambda n: st.tuples(
            st.integers(0, 255),
            st.lists(st.integers(0, 255), min_size=n, max_size=n),
            st.lists(st.booleans(), min_size=n, max_size=n),
        )
    ),
)
def test_conditions_predict_the_concrete_result(name, case):
    """Soundness in miniature: the concrete result is the signed max of the atoms whose
    condition holds under the concrete flags."""
    seed, values, active = case
    conds, flags = conditions(UNITS[name], len(values))
    concrete = ConcreteElements(8)
    expected = UNITS[name](concrete, seed, values, active)
    assignment = [(flag, z3.BoolVal(bit)) for flag, bit in zip(flags, active)]
    joined = concrete.smin()
    for label, cond in conds.items():
        if z3.is_true(z3.simplify(z3.substitute(cond, *assignment) if assignment else cond)):
            joined = concrete.smax(joined, seed if label == "seed" else values[label])
    assert joined == expected
