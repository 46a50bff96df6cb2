"""Reduction units whose Python takes another path on concrete ints than on symbolic values.

The proof sees the symbolic path only; what the unit does on a real state is its concrete
path. Each is wrong on concrete values and right on symbolic ones
(tests/test_check_impl.py: a counterexample, or an error naming the caught truth test).
"""


def isinstance_shortcut(ops, seed, elements, active):
    """A debugging shortcut left in: on Python ints the flags are not looked at."""
    acc = seed
    for x, a in zip(elements, active):
        if isinstance(x, int):
            acc = ops.smax(acc, x)
        else:
            acc = ops.ite(a, ops.smax(acc, x), acc)
    return acc


def caught_truth_test(ops, seed, elements, active):
    """A truth test of the value whose refusal is caught: the except path (right) is the one
    taken while proving, the other (flags ignored) on Python ints."""
    acc = seed
    for x, a in zip(elements, active):
        try:
            if x:
                pass
            acc = ops.smax(acc, x)
        except Exception:
            acc = ops.ite(a, ops.smax(acc, x), acc)
    return acc
