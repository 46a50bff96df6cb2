"""The certificate route's bit-blaster (proofs/certify/blast.py) against Z3, operator by operator.

Random terms of every operator in the fragment, at widths from 1 to 64 bits, over random
inputs (biased to the edges: 0, 1, all ones, the signed minimum and maximum). Each term is
evaluated three ways: by Z3 (substitute the inputs, simplify), by the blaster with the inputs
fixed (everything folds to constants), and by the blaster with free inputs whose CNF a SAT
solver solves with the inputs given as unit clauses (the Tseitin clauses themselves).
"""

import pytest
import z3
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from vredmax.proofs.certify import blast
from vredmax.proofs.certify.blast import FALSE, TRUE, Blaster, NotBlastable, constant

pysat = pytest.importorskip("pysat.solvers")

WIDTHS = (1, 2, 3, 7, 8, 16, 33, 63, 64)
INDEX_BITS = 2  # arrays in the random terms: 4 elements


def _edge_values(width):
    top = (1 << width) - 1
    return st.one_of(
        st.sampled_from(sorted({0, 1 % (top + 1), top, 1 << (width - 1), top >> 1})), st.integers(0, top)
    )


class Terms:
    """Draws random terms; every variable it creates gets a random value."""

    def __init__(self, data):
        self.data = data
        self.values = {}  # variable name -> int (bit-vector), bool, or list (array)
        self.variables = {}

    def var(self, sort_key):
        name = f"v{len(self.variables)}"
        kind = sort_key[0]
        if kind == "bool":
            term, value = z3.Bool(name), self.data.draw(st.booleans())
        elif kind == "bv":
            term, value = z3.BitVec(name, sort_key[1]), self.data.draw(_edge_values(sort_key[1]))
        else:
            term = z3.Array(name, z3.BitVecSort(INDEX_BITS), z3.BitVecSort(sort_key[1]))
            value = [self.data.draw(_edge_values(sort_key[1])) for _ in range(1 << INDEX_BITS)]
        self.variables[name] = term
        self.values[name] = value
        return term

    def bool(self, depth):
        draw = self.data.draw
        if depth <= 0:
            return self.var(("bool",)) if draw(st.booleans()) else z3.BoolVal(draw(st.booleans()))
        w = draw(st.sampled_from(WIDTHS))
        choice = draw(
            st.sampled_from(
                [
                    "not",
                    "and",
                    "or",
                    "implies",
                    "xor",
                    "iff",
                    "eq",
                    "distinct",
                    "ite",
                    "ult",
                    "ule",
                    "ugt",
                    "uge",
                    "slt",
                    "sle",
                    "sgt",
                    "sge",
                    "array_eq",
                    "leaf",
                ]
            )
        )
        b = lambda: self.bool(depth - 1)
        v = lambda: self.bv(w, depth - 1)
        if choice == "not":
            return z3.Not(b())
        if choice in ("and", "or"):
            args = [b() for _ in range(draw(st.integers(2, 3)))]
            return z3.And(*args) if choice == "and" else z3.Or(*args)
        if choice == "implies":
            return z3.Implies(b(), b())
        if choice == "xor":
            return z3.Xor(b(), b())
        if choice == "iff":
            return b() == b()
        if choice == "eq":
            return v() == v()
        if choice == "distinct":
            return z3.Distinct(*[v() for _ in range(draw(st.integers(2, 3)))])
        if choice == "ite":
            return z3.If(b(), b(), b())
        if choice == "array_eq":
            return self.array(w, depth - 1) == self.array(w, depth - 1)
        if choice == "leaf":
            return self.bool(0)
        compare = {
            "ult": z3.ULT,
            "ule": z3.ULE,
            "ugt": z3.UGT,
            "uge": z3.UGE,
            "slt": lambda a, c: a < c,
            "sle": lambda a, c: a <= c,
            "sgt": lambda a, c: a > c,
            "sge": lambda a, c: a >= c,
        }[choice]
        return compare(v(), v())

    def bv(self, width, depth):
        draw = self.data.draw
        if depth <= 0:
            if draw(st.booleans()):
                return self.var(("bv", width))
            return z3.BitVecVal(draw(_edge_values(width)), width)
        choice = draw(
            st.sampled_from(
                [
                    "bnot",
                    "band",
                    "bor",
                    "bxor",
                    "add",
                    "sub",
                    "neg",
                    "urem",
                    "ite",
                    "extract",
                    "concat",
                    "zext",
                    "sext",
                    "select",
                    "leaf",
                ]
            )
        )
        v = lambda: self.bv(width, depth - 1)
        if choice == "bnot":
            return ~v()
        if choice in ("band", "bor", "bxor", "add", "sub"):
            a, c = v(), v()
            return {"band": a & c, "bor": a | c, "bxor": a ^ c, "add": a + c, "sub": a - c}[choice]
        if choice == "neg":
            return -v()
        if choice == "urem":
            return z3.URem(v(), v())
        if choice == "ite":
            return z3.If(self.bool(depth - 1), v(), v())
        if choice == "extract":
            wider = width + draw(st.integers(0, 64 - width))
            lo = draw(st.integers(0, wider - width))
            return z3.Extract(lo + width - 1, lo, self.bv(wider, depth - 1))
        if choice == "concat" and width >= 2:
            high = draw(st.integers(1, width - 1))
            return z3.Concat(self.bv(high, depth - 1), self.bv(width - high, depth - 1))
        if choice in ("zext", "sext") and width >= 2:
            narrow = draw(st.integers(1, width - 1))
            extend = z3.ZeroExt if choice == "zext" else z3.SignExt
            return extend(width - narrow, self.bv(narrow, depth - 1))
        if choice == "select":
            return z3.Select(self.array(width, depth - 1), self.bv(INDEX_BITS, depth - 1))
        return self.bv(width, 0)

    def array(self, width, depth):
        draw = self.data.draw
        choice = draw(st.sampled_from(["var", "store", "const", "ite"])) if depth > 0 else "var"
        if choice == "store":
            return z3.Store(
                self.array(width, depth - 1), self.bv(INDEX_BITS, depth - 1), self.bv(width, depth - 1)
            )
        if choice == "const":
            return z3.K(z3.BitVecSort(INDEX_BITS), self.bv(width, depth - 1))
        if choice == "ite":
            return z3.If(self.bool(depth - 1), self.array(width, depth - 1), self.array(width, depth - 1))
        return self.var(("array", width))


def _z3_values(outputs, terms: Terms):
    """Z3's value of each output term under the inputs (a model of `input = value`)."""
    solver = z3.Solver()  # simplify alone leaves array equalities open: Z3's model decides
    for name, var in terms.variables.items():
        value = terms.values[name]
        if z3.is_bool(var) or z3.is_bv(var):
            solver.add(var == (z3.BoolVal(value) if z3.is_bool(var) else z3.BitVecVal(value, var.size())))
        else:
            width = var.sort().range().size()
            solver.add(
                *[
                    z3.Select(var, z3.BitVecVal(k, INDEX_BITS)) == z3.BitVecVal(element, width)
                    for k, element in enumerate(value)
                ]
            )
    assert solver.check() == z3.sat
    model = solver.model()
    results = [model.eval(term, model_completion=True) for term in outputs]
    return [z3.is_true(r) if z3.is_bool(t) else r.as_long() for t, r in zip(outputs, results)]


def _bits_of(var, value):
    if z3.is_bool(var):
        return TRUE if value else FALSE
    if z3.is_bv(var):
        return constant(value, var.size())
    width = var.sort().range().size()
    return tuple(constant(element, width) for element in value)


def _as_int(bits, model=None):
    def bit(literal):
        if model is None:
            assert literal in (TRUE, FALSE), "did not fold to a constant"
            return literal == TRUE
        return (literal > 0) == (model[abs(literal) - 1] > 0)

    if isinstance(bits, int):
        return bit(bits)
    return sum(1 << i for i, b in enumerate(bits) if bit(b))


def _by_folding(outputs, terms: Terms):
    blaster = Blaster()
    for name, var in terms.variables.items():
        blaster.fix(var, _bits_of(var, terms.values[name]))
    return [_as_int(blaster.value(term)) for term in outputs]


def _by_clauses(outputs, terms: Terms, runs=None):
    """The inputs free, their values as unit clauses; the SAT solver's model gives the outputs.
    `runs`: several value assignments (dicts like terms.values) for one CNF (solved under
    assumptions); the outputs for each."""
    blaster = Blaster()
    values = [blaster.value(term) for term in outputs]
    inputs = {name: _flat(blaster.value(var)) for name, var in terms.variables.items()}
    clauses = blaster.circuit.cnf(
        [],
        reach=[bit for value in values for bit in _flat(value)]
        + [bit for bits in inputs.values() for bit in bits],
    )
    answers = []
    with pysat.Solver(name="cadical195", bootstrap_with=clauses) as solver:
        for given in runs or [terms.values]:
            units = []
            for name, var in terms.variables.items():
                for literal, value in zip(inputs[name], _flat(_bits_of(var, given[name]))):
                    if abs(literal) != TRUE:
                        units.append(literal if value == TRUE else -literal)
            assert solver.solve(assumptions=units)
            model = solver.get_model()
            model += [0] * (blaster.circuit.variables - len(model))
            model[0] = 1  # variable 1 is TRUE
            answers.append([_as_int(value, model) for value in values])
    return answers if runs else answers[0]


def _flat(value):
    if isinstance(value, int):
        return [value]
    return [bit for part in value for bit in _flat(part)] if not isinstance(value[0], int) else list(value)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_random_terms_mean_what_z3_says(data):
    terms = Terms(data)
    outputs = [
        terms.bool(data.draw(st.integers(1, 3))),
        terms.bv(data.draw(st.sampled_from(WIDTHS)), data.draw(st.integers(1, 3))),
    ]
    expected = _z3_values(outputs, terms)
    assert _by_folding(outputs, terms) == expected, [t.sexpr() for t in outputs]
    assert _by_clauses(outputs, terms) == expected, [t.sexpr() for t in outputs]


@pytest.mark.parametrize("width", [1, 8, 64])
def test_every_operator_at_the_edges(width):
    """Each operator once, on the edge values, both ways (a deterministic floor under the
    random test)."""
    top, sign = (1 << width) - 1, 1 << (width - 1)
    x, y = z3.BitVecs("x y", width)
    a = z3.Array("a", z3.BitVecSort(INDEX_BITS), z3.BitVecSort(width))
    i = z3.BitVec("i", INDEX_BITS)
    b = z3.Bool("b")
    operations = [
        ~x,
        x & y,
        x | y,
        x ^ y,
        x + y,
        x - y,
        -x,
        z3.URem(x, y),
        z3.If(b, x, y),
        z3.Select(z3.Store(a, i, x), i + 1),
        z3.Select(z3.K(z3.BitVecSort(INDEX_BITS), y), i),
        z3.ULT(x, y),
        z3.ULE(x, y),
        z3.UGT(x, y),
        z3.UGE(x, y),
        x < y,
        x <= y,
        x > y,
        x >= y,
        x == y,
        z3.Distinct(x, y, x + 1),
        z3.Extract(width - 1, width - 1, x),
        z3.ZeroExt(3, x),
        z3.SignExt(3, x),
        z3.Concat(x, y),
        z3.Xor(b, x == y),
        z3.Implies(b, x == 0),
        a == z3.Store(a, i, z3.Select(a, i)),
    ]
    terms = Terms(None)
    terms.variables = {"x": x, "y": y, "a": a, "i": i, "b": b}
    runs = [
        {"x": xv, "y": yv, "a": [xv, yv, top, 0], "i": 3, "b": bv}
        for xv in sorted({0, 1 % (top + 1), top, sign, top >> 1})
        for yv in sorted({0, 1 % (top + 1), top, sign})
        for bv in (False, True)
    ]
    by_clauses = _by_clauses(operations, terms, runs)
    for run, from_clauses in zip(runs, by_clauses):
        terms.values = run
        expected = _z3_values(operations, terms)
        assert _by_folding(operations, terms) == expected, run
        assert from_clauses == expected, run


def test_uninterpreted_functions_are_congruent_and_nothing_more():
    """f(a) = f(b) follows from a = b; without it, f(a) and f(b) may differ (Ackermann)."""
    from pysat.solvers import Solver

    f = z3.Function("f", z3.BitVecSort(8), z3.BitVecSort(8))
    a, c = z3.BitVecs("a c", 8)

    def satisfiable(*facts):
        blaster = Blaster()
        clauses = blaster.circuit.cnf(blaster.assert_all([(fact, True) for fact in facts]))
        with Solver(name="cadical195", bootstrap_with=clauses) as solver:
            return solver.solve()

    assert not satisfiable(a == c + 1, f(a) != f(c + 1))
    assert satisfiable(f(a) != f(c))
    assert not satisfiable(a == c, f(a) != f(c))


def test_outside_the_fragment_is_refused():
    x = z3.BitVec("x", 8)
    with pytest.raises(NotBlastable, match="bvmul"):
        Blaster().value(x * x == 4)
    with pytest.raises(NotBlastable, match="indexed by"):
        Blaster().value(
            z3.Select(z3.Array("big", z3.BitVecSort(16), z3.BitVecSort(8)), z3.BitVecVal(0, 16)) == 0
        )


def test_definitions_keep_the_answer():
    """`x = t` asserted defines x (no fresh bits); the CNF is equisatisfiable with the facts."""
    from pysat.solvers import Solver

    x, y = z3.BitVecs("x y", 8)
    r = z3.Array("r", z3.BitVecSort(5), z3.BitVecSort(64))
    s = z3.Array("s", z3.BitVecSort(5), z3.BitVecSort(64))
    k = z3.BitVec("k", 5)
    cases = [
        ([x == y + 1, x == y], False),
        ([x == y + 1, x != y], True),
        ([z3.Extract(3, 0, x) == z3.Extract(7, 4, y), z3.Extract(7, 4, x) == 0, x == 255], False),
        ([s == r, z3.Not(z3.Select(s, k) == z3.Select(r, k))], False),
        ([s == z3.Store(r, k, z3.Select(r, k)), s != r], False),
    ]
    for facts, expected in cases:
        blaster = Blaster()
        clauses = blaster.circuit.cnf(blaster.assert_all([(fact, True) for fact in facts]))
        with Solver(name="cadical195", bootstrap_with=clauses) as solver:
            assert solver.solve() == expected, facts
    assert blast.MAX_INDEX_BITS >= 5
