"""Generated: domain=signed, conv=ternary, neutral=shift, back=modulo, shape=reduce, inactive=filter, pick=ternary, seed=leaf, mask=bools; bug: seed_dropped."""

import functools

def reduce(ops, seed, elements, active):
    W = ops.width
    MASK, TOP = (1 << W) - 1, 1 << (W - 1)
    def signed(x):
        return x - (1 << W) if x >> (W - 1) else x

    def bigger(a, b):
        return b if b > a else a
    NEUTRAL, LARGEST = -(1 << (W - 1)), TOP - 1
    vals = [-(1 << (W - 1))] + [signed(elements[i]) for i in range(len(elements)) if active[i]]
    best = functools.reduce(bigger, vals)
    return best % (1 << W)
