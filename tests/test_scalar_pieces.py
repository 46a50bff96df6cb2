"""Conditions over vl in their normal form (proofs/python/scalarpieces.py): equal to the term
they come from for every value (checked by the solver on random terms), and every way of
writing the spec's `k < vl` the same term as the spec's, so that a whole step's inclusion
conditions need no solver (a while loop that breaks at vl at VLMAX 1024 timed out without)."""

import random
import re

import z3

from tests.buggy.generated_families import CUT
from vredmax.proofs.engine.verdict import Verdict
from vredmax.proofs.python.scalarpieces import Normaliser
from vredmax.spec import z3fast as fast
from vredmax.spec.relation import is_active


def _random_condition(rng, vl, atoms, depth):
    if depth == 0 or rng.random() < 0.3:
        if rng.random() < 0.25:
            return rng.choice(atoms)
        c = rng.choice([0, 1, 2, 5, 7, 1 << 63, (1 << 64) - 2, (1 << 64) - 1, rng.randrange(1 << 64)])
        x, k = (z3.ZeroExt(3, vl), z3.BitVecVal(c, 67)) if rng.random() < 0.2 else (vl, z3.BitVecVal(c, 64))
        relation = rng.choice(
            [z3.ULE, z3.ULT, z3.UGE, z3.UGT, lambda a, b: a <= b, lambda a, b: a > b, lambda a, b: a == b]
        )
        relation = rng.choice([relation, lambda a, b, r=relation: r(b, a)])
        atom = relation(x, k)
        return z3.Distinct(x, k) if rng.random() < 0.1 else atom
    parts = [_random_condition(rng, vl, atoms, depth - 1) for _ in range(rng.randrange(1, 4))]
    how = rng.choice(["and", "or", "not", "if", "iff"])
    if how == "and":
        return z3.And(*parts)
    if how == "or":
        return z3.Or(*parts)
    if how == "not":
        return z3.Not(parts[0])
    more = [_random_condition(rng, vl, atoms, depth - 1) for _ in range(2)]
    return z3.If(parts[0], more[0], more[1]) if how == "if" else parts[0] == more[0]


def test_the_normal_form_is_equal_to_the_term():
    """Everywhere, and where vl is at most a bound (only there, with the bound)."""
    rng = random.Random(7)
    vl = z3.BitVec("vl", 64)
    atoms = [z3.Bool("m"), z3.BitVec("vm", 1) == 1, z3.ULT(z3.BitVec("x", 64), vl)]
    for top in (None, 6, 1024):
        normaliser = Normaliser(vl, top)
        solver = z3.Solver()
        if top is not None:
            solver.add(z3.ULE(vl, top))
        for _ in range(60):
            term = _random_condition(rng, vl, atoms, 4)
            solver.push()
            solver.add(normaliser.normal(term) != term)
            assert solver.check() == z3.unsat, (top, term)
            solver.pop()


def test_every_writing_of_k_below_vl_is_the_spec_term():
    vl, vm, bit = z3.BitVec("vl", 64), z3.BitVec("vm", 1) == 1, z3.Bool("bit")
    normaliser = Normaliser(vl, 1024)  # vl <= VLMAX, as a whole step's proof assumes
    k = 5
    spec = is_active(fast.numeral(k, 64), vl, vm, bit)
    mask = z3.Or(bit, vm)

    def broke_at(j):  # the path of a while loop that breaks at vl in round j
        return z3.And(*[z3.Not(z3.ULE(vl, i)) for i in range(j)], z3.ULE(vl, j))

    writings = [
        z3.And(z3.Not(z3.ULE(vl, k)), mask),
        z3.And(z3.UGT(vl, k), z3.UGE(vl, k), mask),
        z3.And(z3.Not(z3.ULE(vl, k - 1)), z3.Not(z3.ULE(vl, k)), mask),
        z3.And(z3.ZeroExt(64, vl) > k, mask),
        z3.And(mask, z3.Not(vl <= k)),
        z3.Or(*[z3.And(broke_at(j), mask) for j in range(k + 1, 40)], z3.And(z3.UGE(vl, 40), mask)),
        z3.If(z3.ULE(vl, k), False, mask),
    ]
    want = normaliser.normal(spec)  # (its operands in an order of their own: by term id)
    for written in writings:
        assert normaliser.normal(written).eq(want), written
    # a bound off by one is another term
    assert not normaliser.normal(z3.And(z3.UGE(vl, k), mask)).eq(want)


def test_a_while_loop_breaking_at_vl_needs_no_solver_for_its_conditions():
    """All of the step's inclusion conditions match the spec's without a solver (without the
    normal form: none does, and at VLMAX 1024 the one query over them timed out). Its wrong
    twin, breaking past vl, is refuted in tests/test_generated_families.py."""
    from vredmax.proofs.python.check_impl import load
    from vredmax.proofs.python.cutstep import prove_step_at_scale
    from vredmax.proofs.python.running import run_instruction

    step = load("tests/buggy/generated_families.py:step_while_breaks_at_vl_bytes_registers")
    result = prove_step_at_scale(
        lambda m, pre, insn, cfg, tail: run_instruction(step, m, pre, insn, cfg, tail),
        CUT,
        "undisturbed",
        60_000,
    )
    assert result.verdict == Verdict.PROVED, result.detail
    found = re.search(r"(\d+) inclusion conditions against the spec's \((\d+) identical", result.detail)
    assert found and found.group(1) == found.group(2), result.detail


def test_a_condition_of_too_many_pieces_is_kept_as_it_is():
    vl = z3.BitVec("vl", 64)
    many = z3.Or(*[z3.And(vl == j, z3.Bool(f"m{j}")) for j in range(100)])
    normaliser = Normaliser(vl, 1024)
    assert normaliser.normal(many).eq(many)
    assert normaliser.normal(z3.And(many, z3.Bool("x"))).eq(z3.And(many, z3.Bool("x")))
