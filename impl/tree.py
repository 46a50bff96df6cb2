"""A hardware-style reduction tree: log depth, identity padding, seed joined at the root."""

from collections.abc import Iterable

from vredmax.spec.bv import B, ElementOps, V


def fold_tree(ops: ElementOps[V, B], values: Iterable[V]) -> V:
    """Pairwise signed max, level by level; an odd element out moves up a level unchanged."""
    level = list(values)
    while len(level) > 1:
        paired = [ops.smax(level[i], level[i + 1]) for i in range(0, len(level) - 1, 2)]
        if len(level) % 2:
            paired.append(level[-1])
        level = paired
    return level[0]


def reduce_tree(ops: ElementOps[V, B], seed: V, elements: list[V], active: list[B]) -> V:
    """Inactive lanes become the signed minimum, the identity of signed max."""
    identity = ops.smin()
    leaves = [ops.ite(is_active, value, identity) for value, is_active in zip(elements, active)]
    return ops.smax(seed, fold_tree(ops, leaves)) if leaves else seed
