"""Generated: domain=signed, conv=ternary, neutral=invert, back=add, shape=reduce, inactive=neutral, pick=if, seed=init, mask=bools; bug: drop_last."""

import functools

def reduce(ops, seed, elements, active):
    W = ops.width
    MASK, TOP = (1 << W) - 1, 1 << (W - 1)
    def signed(x):
        return x - (1 << W) if x >> (W - 1) else x

    def bigger(a, b):
        return b if b > a else a
    NEUTRAL, LARGEST = ~((1 << (W - 1)) - 1), TOP - 1
    vals = [signed(elements[i]) if active[i] else NEUTRAL for i in range(len(elements) - 1)]
    best = functools.reduce(bigger, vals, signed(seed))
    return best + (1 << W) if best < 0 else best
