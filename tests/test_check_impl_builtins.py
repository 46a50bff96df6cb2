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
