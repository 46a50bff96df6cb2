"""The sequential reduction, in the loop order of the Sail model and Spike."""


def running_max(ops, seed, elements, active):
    """The accumulator after each element: start from the seed, fold in each active element."""
    acc = seed
    for value, is_active in zip(elements, active):
        acc = ops.ite(is_active, ops.smax(acc, value), acc)
        yield acc


def reduce_sequential(ops, seed, elements, active):
    acc = seed
    for acc in running_max(ops, seed, elements, active):
        pass
    return acc
