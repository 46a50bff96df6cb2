"""The cut-point method (proofs/python/cutpoint.py) and its tracing backend (proofs/python/trace.py).

Fast tests at moderate VLMAX; the VLMAX=65536 ones are marked `cutpoint_scale` (-m cutpoint_scale).
"""

import random

import pytest
import z3

from examples.my_reduction import reduce as my_reduce
from tests.buggy.scale_units import BUGGY_SCALE_UNITS
from tests.buggy.units import BUGGY_UNITS
from tests.buggy.unusual_correct import CORRECT_UNITS
from vredmax.impl import ALGORITHMS
from vredmax.impl.execute import execute
from vredmax.proofs.python.cutpoint import ScaleResult, prove_step_at_scale, prove_unit_at_scale
from vredmax.proofs.python.trace import SymbolicUse, TraceElements, Tracer
from vredmax.proofs.engine.verdict import Verdict
from vredmax.spec.bv import ConcreteElements, Z3Elements
from vredmax.spec.config import Config

TIMEOUT = 30_000
MID = Config(1024, 64, 8, "m2")  # VLMAX 256
WIDE = Config(1024, 64, 64, "m4")  # VLMAX 64 at SEW=64


# Units written the way RTL and emulators write max ------------------------------------------


def guarded_select(ops, seed, elements, active):
    acc = seed
    for x, a in zip(elements, active):
        acc = ops.ite(ops.and_(a, ops.sgt(x, acc)), x, acc)
    return acc


def nested_select_slt(ops, seed, elements, active):
    acc = seed
    for x, a in zip(elements, active):
        acc = ops.ite(a, ops.ite(ops.slt(acc, x), x, acc), acc)
    return acc


def non_strict_sge(ops, seed, elements, active):
    acc = seed
    for x, a in zip(elements, active):
        acc = ops.ite(a, ops.ite(ops.sge(x, acc), x, acc), acc)
    return acc


def sign_flip_ugt(ops, seed, elements, active):
    flip, acc = ops.const(1 << (ops.width - 1)), seed
    for x, a in zip(elements, active):
        acc = ops.ite(ops.and_(a, ops.ugt(ops.xor(x, flip), ops.xor(acc, flip))), x, acc)
    return acc


def select_tree(ops, seed, elements, active):
    level = [ops.ite(a, x, ops.smin()) for x, a in zip(elements, active)]
    while len(level) > 1:
        nxt = [
            ops.ite(ops.sle(level[i], level[i + 1]), level[i + 1], level[i])
            for i in range(0, len(level) - 1, 2)
        ]
        level = nxt + level[len(nxt) * 2 :]
    return ops.ite(ops.sgt(seed, level[0]), seed, level[0])


def flipped_accumulator(ops, seed, elements, active):
    """The accumulator kept with its sign bit flipped, maxed unsigned, flipped back at the end."""
    flip = ops.smin()
    acc = ops.xor(seed, flip)
    for x, a in zip(elements, active):
        acc = ops.ite(a, ops.umax(acc, ops.xor(x, flip)), acc)
    return ops.xor(acc, flip)


def flipped_tree(ops, seed, elements, active):
    """Hardware style: flip every leaf once, an unsigned tree padded with 0, flip the root."""
    flip = ops.smin()
    level = [ops.ite(a, ops.xor(x, flip), ops.const(0)) for x, a in zip(elements, active)]
    while len(level) > 1:
        nxt = [ops.umax(level[i], level[i + 1]) for i in range(0, len(level) - 1, 2)]
        level = nxt + level[len(nxt) * 2 :]
    return ops.smax(seed, ops.xor(level[0], flip))


CORRECT = [
    *ALGORITHMS.values(),
    my_reduce,
    guarded_select,
    nested_select_slt,
    non_strict_sge,
    sign_flip_ugt,
    select_tree,
    flipped_accumulator,
    flipped_tree,
]


# Bugs -------------------------------------------------------------------------------------


def keeps_min(ops, seed, elements, active):
    """Wrong strictness that matters: `acc >= x ? x : acc` is a min."""
    acc = seed
    for x, a in zip(elements, active):
        acc = ops.ite(a, ops.ite(ops.sge(acc, x), x, acc), acc)
    return acc


def unsigned_select(ops, seed, elements, active):
    acc = seed
    for x, a in zip(elements, active):
        acc = ops.ite(ops.and_(a, ops.ugt(x, acc)), x, acc)
    return acc


def zero_padded_select_tree(ops, seed, elements, active):
    level = [ops.ite(a, x, ops.const(0)) for x, a in zip(elements, active)]
    while len(level) > 1:
        nxt = [
            ops.ite(ops.sgt(level[i], level[i + 1]), level[i], level[i + 1])
            for i in range(0, len(level) - 1, 2)
        ]
        level = nxt + level[len(nxt) * 2 :]
    return ops.smax(seed, level[0])


def starts_from_smin(ops, seed, elements, active):
    """The accumulator starts from the signed minimum; the seed is never joined."""
    acc = ops.smin()
    for x, a in zip(elements, active):
        acc = ops.ite(ops.and_(a, ops.sgt(x, acc)), x, acc)
    return acc


def skips_past(limit):
    def skips(ops, seed, elements, active):
        acc = seed
        for i, (x, a) in enumerate(zip(elements, active)):
            if i >= limit:
                continue
            acc = ops.ite(ops.and_(a, ops.sgt(x, acc)), x, acc)
        return acc

    skips.__name__ = f"skips_past_{limit}"
    return skips


def unsigned_at_sew(sew):
    def unit(ops, seed, elements, active):
        acc = seed
        compare = ops.ugt if ops.width == sew else ops.sgt
        for x, a in zip(elements, active):
            acc = ops.ite(ops.and_(a, compare(x, acc)), x, acc)
        return acc

    return unit


def flipped_tree_padded_with_one(ops, seed, elements, active):
    """The flipped tree padded with 1 (the flipped signed minimum plus one), not 0."""
    flip = ops.smin()
    level = [ops.ite(a, ops.xor(x, flip), ops.const(1)) for x, a in zip(elements, active)]
    while len(level) > 1:
        nxt = [ops.umax(level[i], level[i + 1]) for i in range(0, len(level) - 1, 2)]
        level = nxt + level[len(nxt) * 2 :]
    return ops.smax(seed, ops.xor(level[0], flip))


def result_left_flipped(ops, seed, elements, active):
    """Forgets to flip the accumulator back."""
    flip = ops.smin()
    acc = ops.xor(seed, flip)
    for x, a in zip(elements, active):
        acc = ops.ite(a, ops.umax(acc, ops.xor(x, flip)), acc)
    return acc


BUGGY = [
    keeps_min,
    unsigned_select,
    zero_padded_select_tree,
    starts_from_smin,
    skips_past(200),
    flipped_tree_padded_with_one,
    result_left_flipped,
]


def replays(unit, case, cfg):
    """The case is a legal pre-state at cfg on which the unit and the executable spec differ."""
    pre, insn = case
    pre.check()
    assert (pre.vlen, pre.elen) == (cfg.vlen, cfg.elen)
    got, want = execute(pre, insn, reduce=unit), execute(pre, insn, "sequential")
    return got.state != want.state


# The element ops, both backends ------------------------------------------------------------

BINARY = (
    "xor",
    "band",
    "bor",
    "add",
    "sub",
    "smax",
    "umax",
    "sgt",
    "sge",
    "slt",
    "sle",
    "ugt",
    "ult",
    "ule",
    "uge",
    "eq",
    "ne",
)


@pytest.mark.parametrize("width", [8, 16, 64])
def test_element_ops_agree_between_backends(width):
    concrete, symbolic, rng = ConcreteElements(width), Z3Elements(width), random.Random(width)
    edges = [0, 1, (1 << width) - 1, 1 << (width - 1), (1 << (width - 1)) - 1]

    def z3_value(term):
        term = z3.simplify(term)
        return z3.is_true(term) if z3.is_bool(term) else term.as_long()

    def bv(v, w=width):
        return z3.BitVecVal(v, w)

    for _ in range(60):
        a, b = (rng.choice(edges) if rng.random() < 0.4 else rng.randrange(1 << width) for _ in range(2))
        for op in BINARY:
            assert getattr(concrete, op)(a, b) == z3_value(getattr(symbolic, op)(bv(a), bv(b))), (op, a, b)
        for op in ("bnot", "neg"):
            assert getattr(concrete, op)(a) == z3_value(getattr(symbolic, op)(bv(a))), (op, a)
        for op in ("shl", "lshr", "ashr"):
            for amount in (0, 1, width - 1, width, width + 5, rng.randrange(width)):
                assert getattr(concrete, op)(a, amount) == z3_value(getattr(symbolic, op)(bv(a), amount))
            assert getattr(concrete, op)(a, b) == z3_value(getattr(symbolic, op)(bv(a), bv(b))), (op, a, b)
        lo, hi = sorted(rng.sample(range(width), 2))
        assert concrete.extract(a, hi, lo) == z3_value(symbolic.extract(bv(a), hi, lo))
        narrow = width // 2
        part = concrete.extract(a, narrow - 1, 0)
        assert concrete.sext(part, narrow) == z3_value(symbolic.sext(bv(part, narrow), narrow))
        assert concrete.zext(part, narrow) == z3_value(symbolic.zext(bv(part, narrow), narrow))
        assert concrete.concat(part, part, narrow) == z3_value(
            symbolic.concat(bv(part, narrow), bv(part, narrow), narrow)
        )


# The tracing backend -----------------------------------------------------------------------


def trace(unit, count=4, sew=8):
    tracer = Tracer(sew, count)
    return unit(TraceElements(tracer), tracer.seed, list(tracer.elements), list(tracer.flags))


@pytest.mark.parametrize(
    "body",
    [
        "if active[0]: acc = ops.smax(acc, elements[0])",
        "if seed == ops.const(0): acc = elements[0]",
        "if all(a == ops.true for a in active): acc = elements[0]",
        "acc = elements[0] if ops.sgt(elements[0], seed) else seed",
        "acc = seed if (active[0] and active[1]) else acc",
        "acc = max(seed, elements[0])",
        "acc = seed + elements[0]",
    ],
)
def test_truth_tests_are_refused_with_the_users_line(body, tmp_path):
    source = tmp_path / "user_unit.py"
    source.write_text(
        "def unit(ops, seed, elements, active):\n    acc = seed\n    " + body + "\n    return acc\n"
    )
    namespace = {}
    exec(compile(source.read_text(), str(source), "exec"), namespace)
    with pytest.raises(SymbolicUse) as error:
        trace(namespace["unit"])
    assert f"{source}:3" in str(error.value)
    assert "ops." in str(error.value)


def test_a_truth_test_is_an_error_not_a_verdict():
    def branches(ops, seed, elements, active):
        acc = seed
        for x, a in zip(elements, active):
            if a:
                acc = ops.smax(acc, x)
        return acc

    result = prove_unit_at_scale(branches, MID, TIMEOUT)
    assert (
        result.verdict == Verdict.ERROR and "test_cutpoint.py" in result.detail and "ops.ite" in result.detail
    )


def test_trace_is_hash_consed_and_simplifies_identities():
    tracer = Tracer(8, 2)
    ops = TraceElements(tracer)
    x, y = tracer.elements
    assert ops.smax(x, y) is ops.smax(x, y)
    assert ops.smax(ops.smin(), x) is x and ops.smax(x, x) is x
    assert ops.ite(tracer.flags[0], x, x) is x and ops.ite(ops.true, x, y) is x
    assert ops.xor(ops.const(3), ops.const(5)) is ops.const(6)


def test_a_unit_returning_the_wrong_thing_is_an_error():
    assert prove_unit_at_scale(lambda ops, s, e, a: None, MID, TIMEOUT).verdict == Verdict.ERROR
    assert prove_unit_at_scale(lambda ops, s, e, a: a[0], MID, TIMEOUT).verdict == Verdict.ERROR
    assert (
        prove_unit_at_scale(lambda ops, s, e, a: ops.extract(s, 3, 0), MID, TIMEOUT).verdict == Verdict.ERROR
    )

    def raises(ops, seed, elements, active):
        raise ValueError("boom")

    result = prove_unit_at_scale(raises, MID, TIMEOUT)
    assert result.verdict == Verdict.ERROR and "boom" in result.detail


# Proved and refuted ------------------------------------------------------------------------


@pytest.mark.parametrize("cfg", [MID, WIDE], ids=str)
@pytest.mark.parametrize("unit", CORRECT, ids=lambda u: u.__name__)
def test_correct_units_are_proved(unit, cfg):
    result = prove_unit_at_scale(unit, cfg, TIMEOUT)
    assert isinstance(result, ScaleResult)
    assert result.verdict == Verdict.PROVED, result.detail
    assert result.case is None and result.method and result.solver


@pytest.mark.parametrize("unit", CORRECT_UNITS, ids=lambda u: u.__name__)
def test_unusual_correct_units_are_proved(unit):
    assert prove_unit_at_scale(unit, unit.where, TIMEOUT).verdict == Verdict.PROVED


@pytest.mark.parametrize("unit", BUGGY + list(BUGGY_UNITS), ids=lambda u: u.__name__)
def test_bugs_are_refuted_with_a_confirmed_minimal_case(unit):
    result = prove_unit_at_scale(unit, MID, TIMEOUT)
    assert result.verdict == Verdict.COUNTEREXAMPLE, result.detail
    assert replays(unit, result.case, MID)
    pre, _ = result.case
    limit = (
        201
        if unit.__name__ == "skips_past_200"
        else MID.vlmax
        if unit.__name__ == "odd_level_drops_last"
        else 1
    )
    assert pre.vl <= limit


def test_a_bug_past_an_index_gets_the_smallest_case_that_shows_it():
    result = prove_unit_at_scale(skips_past(200), MID, TIMEOUT)
    pre, insn = result.case
    assert pre.vl == 201 and insn.vm == 0 and pre.regs[0] == 1 << 200  # one active element
    assert prove_unit_at_scale(skips_past(200), Config(1024, 64, 8, "m1"), TIMEOUT).verdict == Verdict.PROVED


@pytest.mark.parametrize(
    "unit",
    [
        pytest.param(u, marks=[pytest.mark.cutpoint_scale] if u.where.vlmax > 1024 else [])
        for u in BUGGY_SCALE_UNITS
    ],
    ids=lambda u: u.__name__,
)
def test_bugs_that_live_at_one_configuration(unit):
    result = prove_unit_at_scale(unit, unit.where, TIMEOUT)
    assert result.verdict == Verdict.COUNTEREXAMPLE, result.detail
    assert replays(unit, result.case, unit.where)


def test_a_bug_at_one_sew_only():
    unit = unsigned_at_sew(16)
    assert prove_unit_at_scale(unit, Config(1024, 64, 8, "m1"), TIMEOUT).verdict == Verdict.PROVED
    result = prove_unit_at_scale(unit, Config(1024, 64, 16, "m1"), TIMEOUT)
    assert result.verdict == Verdict.COUNTEREXAMPLE and replays(unit, result.case, Config(1024, 64, 16, "m1"))


def test_a_correct_unit_beyond_the_method_is_unknown_not_proved():
    """Right (both chains compute the same max), but the root compares two results: no
    cut-point reading, and no counterexample exists."""
    sequential, tree = ALGORITHMS["sequential"], ALGORITHMS["tree"]

    def agreeing(ops, seed, elements, active):
        a, b = sequential(ops, seed, elements, active), tree(ops, seed, elements, active)
        return ops.ite(ops.eq(a, b), a, ops.const(0))

    result = prove_unit_at_scale(agreeing, Config(128, 64, 8, "m1"), TIMEOUT)
    assert result.verdict == Verdict.UNKNOWN and result.case is None, result.detail


def test_a_wrong_local_check_alone_never_proves():
    """A unit whose every node is a max except one that adds: never PROVED."""

    def adds_one(ops, seed, elements, active):
        acc = ops.add(seed, ops.const(1))
        for x, a in zip(elements, active):
            acc = ops.ite(a, ops.smax(acc, x), acc)
        return acc

    result = prove_unit_at_scale(adds_one, MID, TIMEOUT)
    assert result.verdict == Verdict.COUNTEREXAMPLE and replays(adds_one, result.case, MID)


# At the largest configuration --------------------------------------------------------------

BIGGEST = Config(65536, 64, 8, "m8")


@pytest.mark.cutpoint_scale
@pytest.mark.parametrize(
    "unit", [guarded_select, sign_flip_ugt, ALGORITHMS["sequential"]], ids=lambda u: u.__name__
)
def test_largest_configuration_proved(unit):
    result = prove_unit_at_scale(unit, BIGGEST, 120_000)
    assert result.verdict == Verdict.PROVED, result.detail


@pytest.mark.cutpoint_scale
@pytest.mark.parametrize(
    "unit", [skips_past(4096), keeps_min, zero_padded_select_tree, *BUGGY_UNITS], ids=lambda u: u.__name__
)
def test_largest_configuration_refuted(unit):
    result = prove_unit_at_scale(unit, BIGGEST, 120_000)
    assert result.verdict == Verdict.COUNTEREXAMPLE, result.detail
    assert replays(unit, result.case, BIGGEST)


# Whole instructions ------------------------------------------------------------------------

from examples.my_reduction import step as my_step  # noqa: E402
from tests.buggy.instructions import BUGGY_INSTRUCTIONS  # noqa: E402
from tests.buggy.unusual_correct import CORRECT_INSTRUCTIONS  # noqa: E402
from vredmax.proofs.python.cutstep import differs  # noqa: E402

STEP_CFG = Config(256, 64, 8, "m2")  # VLMAX 64, register groups


@pytest.mark.parametrize("tail", ["undisturbed", "ones"])
@pytest.mark.parametrize("step_fn", [my_step, *CORRECT_INSTRUCTIONS], ids=lambda f: f.__name__)
def test_correct_steps_are_proved(step_fn, tail):
    result = prove_step_at_scale(step_fn, STEP_CFG, tail, TIMEOUT)
    assert result.verdict == Verdict.PROVED, result.detail
    assert "cut out" in result.detail and "cut points" in result.detail


@pytest.mark.parametrize("step_fn", BUGGY_INSTRUCTIONS, ids=lambda f: f.__name__)
def test_buggy_steps_are_refuted_with_a_case_that_replays(step_fn):
    results = [prove_step_at_scale(step_fn, STEP_CFG, tail, TIMEOUT) for tail in ("undisturbed", "ones")]
    assert all(r.verdict != Verdict.PROVED or r.case is None for r in results)
    found = [
        (r, tail) for r, tail in zip(results, ("undisturbed", "ones")) if r.verdict == Verdict.COUNTEREXAMPLE
    ]
    assert found, [r.detail for r in results]
    for r, tail in found:
        pre, insn = r.case
        assert differs(step_fn, pre, insn, STEP_CFG, tail)


def test_a_step_without_the_structure_is_unknown():
    from vredmax.impl.execute import step
    from vredmax.impl.sequential import reduce_sequential

    def twice(m, pre, insn, cfg, tail):
        """Runs the reduction twice and writes the larger (right, but two cut values)."""

        def doubled(ops, seed, elements, active):
            a = reduce_sequential(ops, seed, elements, active)
            b = reduce_sequential(ops, seed, list(reversed(elements)), list(reversed(active)))
            return a if a is b else ops.smax(a, b)

        traps, post = step(m, pre, insn, cfg, doubled, tail)
        return traps, post

    assert prove_step_at_scale(twice, STEP_CFG, "undisturbed", TIMEOUT).verdict == Verdict.PROVED

    def two_values(m, pre, insn, cfg, tail):
        """Right, and a second element-ops value, no reduction, reaches a machine op: it is put
        back as its exact term (it was taken for a second reduction: UNKNOWN)."""
        traps, post = step(m, pre, insn, cfg, reduce_sequential, tail)
        ops = m.elements(cfg.sew)
        seed = m.extract(m.read(pre.regs, insn.vs1), cfg.sew - 1, 0)
        m.write(post.regs, 1, m.concat(m.const(0, cfg.vlen - cfg.sew), ops.add(seed, 1), cfg.sew))
        return traps, post

    result = prove_step_at_scale(two_values, STEP_CFG, "undisturbed", TIMEOUT)
    assert result.verdict == Verdict.PROVED, result.detail

    def writes_seed_plus_one_to_v1(m, pre, insn, cfg, tail):
        """The same value written to v1: wrong, and shown by the value put back."""
        traps, post = two_values(m, pre, insn, cfg, tail)
        ops = m.elements(cfg.sew)
        seed = m.extract(m.read(pre.regs, insn.vs1), cfg.sew - 1, 0)
        regs = m.write(post.regs, 1, m.concat(m.const(0, cfg.vlen - cfg.sew), ops.add(seed, 1), cfg.sew))
        return traps, post.with_(regs=m.ite(m.eq(pre.vl, 0), post.regs, regs))

    result = prove_step_at_scale(writes_seed_plus_one_to_v1, STEP_CFG, "undisturbed", TIMEOUT)
    assert result.verdict == Verdict.COUNTEREXAMPLE, result.detail

    def writes_seed_plus_one(m, pre, insn, cfg, tail):
        traps, post = step(m, pre, insn, cfg, reduce_sequential, tail)
        ops = m.elements(cfg.sew)
        seed = m.extract(m.read(pre.regs, insn.vs1), cfg.sew - 1, 0)
        regs = m.write(
            post.regs, insn.vd, m.concat(m.const(0, cfg.vlen - cfg.sew), ops.add(seed, 1), cfg.sew)
        )
        return traps, post.with_(regs=m.ite(m.eq(pre.vl, 0), post.regs, regs))

    result = prove_step_at_scale(writes_seed_plus_one, STEP_CFG, "undisturbed", TIMEOUT)
    assert result.verdict == Verdict.COUNTEREXAMPLE
    assert differs(writes_seed_plus_one, *result.case, STEP_CFG, "undisturbed")


def test_a_step_branching_on_an_instruction_field_is_never_proved():
    def branches(m, pre, insn, cfg, tail):
        from vredmax.impl.execute import step
        from vredmax.impl.sequential import reduce_sequential

        if insn.vm == 1:  # a z3 term: the guard of proofs/engine/truth_guard.py or z3 decides
            return step(m, pre, insn, cfg, reduce_sequential, tail)
        return step(m, pre, insn, cfg, reduce_sequential, tail)

    result = prove_step_at_scale(branches, STEP_CFG, "undisturbed", TIMEOUT)
    assert result.verdict in (Verdict.PROVED, Verdict.ERROR)


# Cross-check against a monolithic proof, on generated units ---------------------------------


def _idiom(kind, ops, acc, x, a):
    """acc joined with x when a holds, written one of the ways people write it."""
    flip = ops.smin()
    return {
        "smax": lambda: ops.ite(a, ops.smax(acc, x), acc),
        "guarded": lambda: ops.ite(ops.and_(a, ops.sgt(x, acc)), x, acc),
        "nested": lambda: ops.ite(a, ops.ite(ops.slt(acc, x), x, acc), acc),
        "flip": lambda: ops.ite(ops.and_(a, ops.ugt(ops.xor(x, flip), ops.xor(acc, flip))), x, acc),
        "sge": lambda: ops.ite(a, ops.ite(ops.sge(acc, x), acc, x), acc),
        # wrong ones
        "min": lambda: ops.ite(a, ops.ite(ops.sge(acc, x), x, acc), acc),
        "unsigned": lambda: ops.ite(ops.and_(a, ops.ugt(x, acc)), x, acc),
        "unmasked": lambda: ops.smax(acc, x),
        "dropped": lambda: acc,
        "inverted": lambda: ops.ite(ops.not_(a), ops.smax(acc, x), acc),
    }[kind]()


GOOD, BAD = (
    ("smax", "guarded", "nested", "flip", "sge"),
    ("min", "unsigned", "unmasked", "dropped", "inverted"),
)


def generated_unit(seed_number: int):
    """A random unit: lanes folding strided slices with random idioms, joined by a tree of
    random idioms; now and then one wrong idiom at a random place, or a wrong identity."""
    rng = random.Random(seed_number)
    lanes = rng.choice([1, 2, 3])
    buggy = rng.random() < 0.5
    bug_at = rng.randrange(8) if buggy else -1
    identity_bug = buggy and rng.random() < 0.3

    def unit(ops, seed, elements, active):
        pick = random.Random(seed_number + 1)
        identity = ops.const(0) if identity_bug else ops.smin()
        accs = [identity] * min(lanes, len(elements))
        for i, (x, a) in enumerate(zip(elements, active)):
            kind = pick.choice(BAD) if i == bug_at else pick.choice(GOOD)
            accs[i % lanes] = _idiom(kind, ops, accs[i % lanes], x, a)
        result = seed
        for acc in accs:
            result = _idiom(pick.choice(GOOD), ops, result, acc, ops.true)
        return result

    unit.__name__ = f"generated_{seed_number}"
    return unit


def monolithic_verdict(unit, sew: int, count: int) -> Verdict:
    """The unit on Z3 terms equals the max of the seed and the active elements, for all inputs."""
    ops = Z3Elements(sew)
    seed = z3.BitVec("seed", sew)
    elements = [z3.BitVec(f"e{i}", sew) for i in range(count)]
    active = [z3.Bool(f"a{i}") for i in range(count)]
    want = seed
    for x, a in zip(elements, active):
        want = z3.If(z3.And(a, x > want), x, want)
    solver = z3.Solver()
    solver.set(timeout=30_000)
    solver.add(unit(ops, seed, elements, active) != want)
    answer = solver.check()
    if answer == z3.unsat:
        return Verdict.PROVED
    return Verdict.COUNTEREXAMPLE if answer == z3.sat else Verdict.UNKNOWN


@pytest.mark.parametrize("number", range(30))
def test_generated_units_agree_with_a_monolithic_proof(number):
    cfg = Config(128, 64, 16, "m1")  # VLMAX 8: small enough for one query
    unit = generated_unit(number)
    expected = monolithic_verdict(unit, cfg.sew, cfg.vlmax)
    result = prove_unit_at_scale(unit, cfg, TIMEOUT)
    assert result.verdict != Verdict.ERROR, result.detail
    if result.verdict == Verdict.PROVED:
        assert expected == Verdict.PROVED
    if result.verdict == Verdict.COUNTEREXAMPLE:
        assert expected == Verdict.COUNTEREXAMPLE and replays(unit, result.case, cfg)
    if expected == Verdict.COUNTEREXAMPLE:
        assert result.verdict == Verdict.COUNTEREXAMPLE, result.detail
