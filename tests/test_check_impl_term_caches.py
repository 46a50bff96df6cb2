"""The caches that keep a symbolic run of the user's code fast are identities on bit-vectors.

proofs/python/terms.py keeps each Z3 term's facts (width, operation, parameters, arguments)
and each extraction it made; symbytes.py keeps the terms it assembled from bytes,
conditionvalues.py each term's table of constants. On random terms: the facts are Z3's own
answers, an extraction (made or kept) is proved equal to Z3's Extract, bytes cut from random
terms (some constant, some merged by one condition) assemble to a term proved equal to their
concatenation, asked twice the same term. And a change that cannot be guarded inside nested
merged branches splits all of them at once (paths.ProofContext.guard_site).
"""

import random

import z3

from vredmax.proofs.python import conditionvalues, paths
from vredmax.proofs.python.symbytes import _assemble
from vredmax.proofs.python.terms import Z3Terms, facts
from vredmax.proofs.python.cutstep import StepTracer
from vredmax.proofs.python.trace import evaluate
from vredmax.spec.bv import Z3Elements

WIDTHS = (1, 3, 8, 16, 24, 32)


def _term(rng: random.Random, width: int, depth: int):
    """A random bit-vector term of `width` bits over a few variables."""
    if depth == 0 or rng.random() < 0.2:
        if rng.random() < 0.3:
            return z3.BitVecVal(rng.getrandbits(width), width)
        return z3.BitVec(f"v{rng.randrange(3)}_{width}", width)
    choice = rng.randrange(9)
    if choice == 0 and width > 1:  # a concatenation
        cut = rng.randrange(1, width)
        return z3.Concat(_term(rng, width - cut, depth - 1), _term(rng, cut, depth - 1))
    if choice == 1:  # an extraction of a wider term
        wider = width + rng.randrange(1, 9)
        lo = rng.randrange(wider - width + 1)
        return z3.Extract(lo + width - 1, lo, _term(rng, wider, depth - 1))
    if choice == 2 and width > 1:  # an extension
        inner = rng.randrange(1, width)
        extend = z3.ZeroExt if rng.random() < 0.5 else z3.SignExt
        return extend(width - inner, _term(rng, inner, depth - 1))
    if choice == 3:
        return z3.If(
            _term(rng, 1, depth - 1) == 1, _term(rng, width, depth - 1), _term(rng, width, depth - 1)
        )
    if choice == 4:
        return ~_term(rng, width, depth - 1)
    ops = [lambda a, b: a & b, lambda a, b: a | b, lambda a, b: a ^ b, lambda a, b: a + b,
           lambda a, b: a - b, lambda a, b: a * b, z3.LShR]  # fmt: skip
    return rng.choice(ops)(_term(rng, width, depth - 1), _term(rng, width, depth - 1))


def _proved_equal(a, b) -> bool:
    solver = z3.Solver()
    solver.add(a != b)
    return solver.check() == z3.unsat


def test_facts_are_z3s_own_answers():
    rng = random.Random(1)
    for _ in range(300):
        t = _term(rng, rng.choice(WIDTHS), 4)
        info = facts(t)
        assert facts(t) is info  # asked once
        assert info.width == t.size()
        assert info.op == (
            t.decl().kind() if z3.is_app(t) and not z3.is_bv_value(t) else -1
        ) or z3.is_bv_value(t)
        assert info.value == (t.as_long() if z3.is_bv_value(t) else None)
        if z3.is_app(t) and not z3.is_bv_value(t):
            assert [c.eq(d) for c, d in zip(info.children(), t.children())] == [True] * t.num_args()
            assert info.params == tuple(p for p in t.params() if isinstance(p, int))


def test_an_extraction_is_the_extract_made_or_kept():
    rng = random.Random(2)
    bk = Z3Terms()
    for _ in range(300):
        width = rng.choice(WIDTHS[1:])
        t = _term(rng, width, 4)
        lo = rng.randrange(width)
        hi = rng.randrange(lo, width)
        made = bk.extract(t, hi, lo)
        assert made.size() == hi - lo + 1
        assert bk.extract(t, hi, lo).eq(made)  # kept: the same term
        assert _proved_equal(made, z3.simplify(z3.Extract(hi, lo, t))), (t, hi, lo, made)


def test_bytes_assemble_to_their_concatenation():
    """Bytes cut from random terms (runs of one term's consecutive bytes, constants, bytes of
    two terms merged on one condition) assemble to a term equal to their concatenation."""
    rng = random.Random(3)
    bk = Z3Terms()
    for _ in range(200):
        n = rng.randrange(1, 7)
        sources = [_term(rng, 8 * n, 3) for _ in range(2)]
        cond = z3.Bool(f"c{rng.randrange(2)}")
        merged = rng.random() < 0.3
        items = []
        for i in range(n):
            pick = rng.random()
            if pick < 0.2:
                items.append(bk.bv(rng.getrandbits(8), 8))
            elif merged:
                a = bk.extract(sources[0], 8 * i + 7, 8 * i)
                items.append(bk.ite(cond, a, bk.extract(sources[1], 8 * i + 7, 8 * i)))
            else:
                source = sources[0] if pick < 0.8 else sources[1]
                items.append(bk.extract(source, 8 * i + 7, 8 * i))
        made = _assemble(bk, items)
        expected = items[0] if n == 1 else z3.Concat(*reversed(items))
        assert made.size() == 8 * n
        assert _assemble(bk, list(items)).eq(made)  # kept: the same term
        assert _proved_equal(made, expected), (items, made)


def test_a_registers_own_bytes_give_the_register_back():
    bk = Z3Terms()
    register = z3.BitVec("register", 128)
    items = [bk.extract(register, 8 * i + 7, 8 * i) for i in range(16)]
    assert _assemble(bk, items).eq(register)


def test_a_choice_between_constants_is_the_term():
    """conditionvalues' tables, kept across tracers: the traced choice equals the term."""
    rng = random.Random(4)
    conds = [z3.Bool(f"a{k}") for k in range(3)]
    ops = [lambda a, b: a * b + 3, lambda a, b: a - b, lambda a, b: a ^ (b << 2)]
    for _ in range(30):
        term = z3.BitVecVal(rng.getrandbits(16), 16)
        for c in conds[: rng.randrange(1, 4)]:
            term = rng.choice(ops)(term, z3.If(c, z3.BitVecVal(1, 16), z3.BitVecVal(0, 16)))
        term = z3.simplify(term) if rng.random() < 0.5 else term
        for tracer in (StepTracer(16), StepTracer(16)):  # the second from the kept table
            node = conditionvalues.as_choice(tracer, term)
            if z3.is_bv_value(term):
                assert node is None
                continue
            value = evaluate(
                Z3Elements(16), node, lambda n: tracer.conditions[n.param] if n.op == "flag" else None
            )
            assert _proved_equal(value, term), (term, node)


def test_a_change_inside_nested_branches_splits_them_all_at_once():
    cx = paths.ProofContext()
    for site in (("f.py", 1, 0), None, ("f.py", 2, 0), ("f.py", 3, 0)):
        cx.push_guard(z3.Bool("g"), site)
    assert cx.guard_site() == [("f.py", 3, 0), ("f.py", 2, 0), None]
    for _ in range(3):
        cx.pop_guard()
    assert cx.guard_site() == [("f.py", 1, 0)]
    cx.pop_guard()
    assert cx.guard_site() is None
