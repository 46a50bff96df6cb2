"""check-impl on small members of the families of generated programs the proof once stopped on
(tests/buggy/generated_families.py), each with the proof alone (`--random 0`): the correct ones
PROVED, their wrong twins a COUNTEREXAMPLE that replays (never PROVED)."""

import pytest

from tests.buggy import generated_families
from tests.proof_alone import case_id, cases, check_proof_alone

FILE = "tests/buggy/generated_families.py"
# about 50 s each on the 2-core machine (their siblings at the same VLMAX take seconds): in the
# check_impl_scale run, out of the default 10 minutes
SLOW = {"sorted_long_first-VLMAX512", "step_while_breaks_at_vl_bytes_registers-VLMAX1024"}
CASES = [
    pytest.param(*c, id=case_id(c), marks=[pytest.mark.check_impl_scale] if case_id(c) in SLOW else [])
    for c in cases(generated_families)
]


@pytest.mark.parametrize("level, function, cfg", CASES)
def test_the_proof_alone_gives_the_verdict(level, function, cfg):
    check_proof_alone(FILE, level, function, cfg)


def test_conditions_over_the_flags_through_ints_are_exact():
    """proofs/python/flagbits.py against the concrete ops: random flag-only values (packed
    masks, counts, shifts, a product) compared, on random flags."""
    import random

    import z3

    from vredmax.proofs.python.flagbits import FlagBits
    from vredmax.proofs.python.trace import TraceElements, Tracer, evaluate
    from vredmax.spec.bv import ConcreteElements

    rng = random.Random(5)
    count = 6
    tracer = Tracer(8, count)
    ops = TraceElements(tracer)
    wide = TraceElements(tracer, 8)
    one, zero = ops.const(1), ops.const(0)
    bits = [ops.ite(f, one, zero) for f in tracer.flags]
    values = list(bits)
    for _ in range(40):
        a, b = rng.choice(values), rng.choice(values)
        op = rng.choice(["bor", "band", "xor", "add", "sub", "shl", "lshr", "ite", "bnot", "mul"])
        if op in ("shl", "lshr"):
            values.append(getattr(wide, op)(a, rng.randrange(0, 9)))
        elif op == "ite":
            values.append(wide.ite(rng.choice(tracer.flags), a, b))
        elif op == "bnot":
            values.append(wide.bnot(a))
        elif op == "mul":
            values.append(tracer.make("mul", (a, b), None, 8))
        else:
            values.append(getattr(wide, op)(a, b))
    conditions = [
        getattr(ops, rng.choice(["eq", "ne", "ult", "sgt", "ule"]))(rng.choice(values), rng.choice(values))
        for _ in range(30)
    ] + [ops.eq(ops.zext(ops.extract(v, 3, 3), 1), one) for v in values[-10:]]
    flags = [z3.Bool(f"f{i}") for i in range(count)]
    blaster = FlagBits(flags)
    checked = 0
    for _ in range(20):
        given = [rng.random() < 0.5 for _ in range(count)]
        model = [(flags[i], z3.BoolVal(given[i])) for i in range(count)]
        for c in conditions:
            if not c.structural:
                continue
            want = evaluate(ConcreteElements(8), c, lambda n: given[n.param] if n.op == "flag" else None)
            got = z3.is_true(z3.simplify(z3.substitute(blaster.condition(c), *model)))
            assert got == bool(want), (c, given)
            checked += 1
    assert checked >= 20 * 30
