"""The symbolic builtins of proofs/python/pybuiltins.py give the builtin's exact result: run on
concrete values with the merged steps forced (every value taken as symbolic, the conditions
Python bools), heapq.nlargest/nsmallest's n passes of compare-and-swap keep heapq's own order
among equal keys, for every n."""

import heapq
import random

from vredmax.proofs.python import pybuiltins


def test_nlargest_and_nsmallest_keep_heapqs_order_among_equal_keys(monkeypatch):
    monkeypatch.setattr(pybuiltins, "_symbolic", lambda x: True)
    rng = random.Random(2)
    key = lambda item: item[0]
    for _ in range(2000):
        items = [(rng.randint(-2, 2), i) for i in range(rng.randint(0, 9))]
        n = rng.randint(-1, 10)
        assert pybuiltins.symbolic_nlargest(n, list(items), key=key) == heapq.nlargest(n, items, key=key), (
            n,
            items,
        )
        assert pybuiltins.symbolic_nsmallest(n, list(items), key=key) == heapq.nsmallest(n, items, key=key), (
            n,
            items,
        )
        values = [v for v, _ in items]
        assert pybuiltins.symbolic_nlargest(n, list(values)) == heapq.nlargest(n, values)
        assert pybuiltins.symbolic_nsmallest(n, list(values)) == heapq.nsmallest(n, values)


def test_reduce_of_a_filtered_list_starts_from_an_item_there_whatever_the_filter(monkeypatch):
    """`functools.reduce(f, [seed] + [x for x ... if active])`: the seed is the initial value
    (exactly reduce's result); a filtered list whose first item may be absent is still refused."""
    import functools

    import pytest

    from vredmax.proofs.python.branches import Filtered

    monkeypatch.setattr(pybuiltins, "_pick", lambda cond, a, b: a if cond else b)
    monkeypatch.setattr(pybuiltins, "_call", lambda f, *args: f(*args))
    rng = random.Random(3)
    for _ in range(500):
        seed = rng.randint(-5, 5)
        items = [(rng.random() < 0.5, rng.randint(-5, 5)) for _ in range(rng.randint(0, 6))]
        kept = [seed] + [x for keep, x in items if keep]
        assert pybuiltins.symbolic_reduce(max, Filtered([(True, seed)] + items)) == functools.reduce(
            max, kept
        )
        assert pybuiltins.symbolic_reduce(lambda a, b: a - b, Filtered([(True, seed)] + items)) == (
            functools.reduce(lambda a, b: a - b, kept)
        )

    class Refused(Exception):
        pass

    class Context:
        def refuse(self, what, advice):
            raise Refused(what)

    monkeypatch.setattr(pybuiltins, "_cx", lambda: Context())
    with pytest.raises(Refused):
        pybuiltins.symbolic_reduce(max, Filtered([(False, 1), (True, 2)]))


def test_a_step_reducing_the_seed_and_its_filtered_elements_is_proved(tmp_path):
    """The generator's `vals = [seed] + [... if active]; functools.reduce(bigger, vals)` (a
    step of bench seed 9417 was an ERROR: "functools.reduce of a filtered list without an
    initial value"), and its wrong twins caught."""
    from tests.generated.python_programs import Program, write_source
    from vredmax.proofs.engine.verdict import Verdict
    from vredmax.proofs.python.check_impl import INSTRUCTION, check_at_scale, load
    from vredmax.spec.config import Config

    recipe = {
        "kind": INSTRUCTION,
        "domain": "signed",
        "conv": "ternary",
        "neutral": "invert",
        "back": "add",
        "shape": "reduce",
        "inactive": "filter",
        "pick": "if",
        "seed": "leaf",
        "regfile": "dict",
        "maskreg": "bytes",
        "bound": "cond",
        "traps": "loop",
        "write": "bytes",
    }
    cfg = Config(128, 64, 8, "m1")
    for mutation, want in (
        (None, Verdict.PROVED),
        ("unsigned", Verdict.COUNTEREXAMPLE),
        ("seed_dropped", Verdict.COUNTEREXAMPLE),
    ):
        program = Program(
            INSTRUCTION, mutation or "right", recipe, cfg, mutation, write_source(recipe, cfg, mutation)
        )
        program.write(str(tmp_path))
        check, _ = check_at_scale(load(program.target), INSTRUCTION, cfg, "ones", 60_000)
        assert check.verdict == want, (mutation, check.detail)
