"""The sequential reduction, in the loop order of the Sail model and Spike."""

from collections.abc import Iterator

from vredmax.spec.bv import B, ElementOps, V


def running_max(ops: ElementOps[V, B], seed: V, elements: list[V], active: list[B]) -> Iterator[V]:
    """The accumulator after each element: start from the seed, fold in each active element."""
    acc = seed
    for value, is_active in zip(elements, active):
        acc = ops.ite(is_active, ops.smax(acc, value), acc)
        yield acc


def reduce_sequential(ops: ElementOps[V, B], seed: V, elements: list[V], active: list[B]) -> V:
    acc = seed
    for acc in running_max(ops, seed, elements, active):
        pass
    return acc
