"""Generated: domain=biased, shape=reduce, inactive=mul, pick=branchless, seed=last, mask=bools; bug: min."""

import functools

def reduce(ops, seed, elements, active):
    W = ops.width
    MASK, TOP = (1 << W) - 1, 1 << (W - 1)
    def bigger(a, b):
        return (b & -int(a > b)) | (a & ~-int(a > b))
    NEUTRAL, LARGEST = 0, MASK
    vals = [(elements[i] ^ TOP) * (1 if active[i] else 0) + NEUTRAL * (0 if active[i] else 1) for i in range(len(elements))]
    best = functools.reduce(bigger, vals, NEUTRAL)
    c = -int(best > (seed ^ TOP))
    best = ((seed ^ TOP) & c) | (best & ~c)
    return best ^ TOP
