"""A multi-lane unit: each lane folds a strided slice, then a tree joins the lanes."""

from vredmax.impl.tree import fold_tree

DEFAULT_LANES = 4


def make_reduce_lanes(lanes: int = DEFAULT_LANES):
    if lanes < 1:
        raise ValueError(f"lanes: must be at least 1, got {lanes}")

    def reduce_lanes(ops, seed, elements, active):
        """Lane j folds elements j, j+lanes, j+2*lanes, ... from the identity."""
        accumulators = []
        for lane in range(min(lanes, len(elements))):
            acc = ops.smin()
            for i in range(lane, len(elements), lanes):
                acc = ops.ite(active[i], ops.smax(acc, elements[i]), acc)
            accumulators.append(acc)
        return ops.smax(seed, fold_tree(ops, accumulators)) if accumulators else seed

    reduce_lanes.__name__ = f"reduce_lanes_{lanes}"
    return reduce_lanes


reduce_lanes = make_reduce_lanes()
