"""A multi-lane unit: each lane folds a strided slice, then a tree joins the lanes."""

from vredmax.impl.tree import fold_tree
from vredmax.spec.bv import B, ElementOps, ReductionUnit, V

DEFAULT_LANES = 4


def make_reduce_lanes(lanes: int = DEFAULT_LANES) -> ReductionUnit:
    if lanes < 1:
        raise ValueError(f"lanes: must be at least 1, got {lanes}")

    def reduce_lanes(ops: ElementOps[V, B], seed: V, elements: list[V], active: list[B]) -> V:
        """Lane j folds elements j, j+lanes, j+2*lanes, ... from the identity."""
        accumulators: list[V] = []
        for lane in range(min(lanes, len(elements))):
            acc = ops.smin()
            for i in range(lane, len(elements), lanes):
                acc = ops.ite(active[i], ops.smax(acc, elements[i]), acc)
            accumulators.append(acc)
        return ops.smax(seed, fold_tree(ops, accumulators)) if accumulators else seed

    reduce_lanes.__name__ = f"reduce_lanes_{lanes}"
    return reduce_lanes


reduce_lanes = make_reduce_lanes()
