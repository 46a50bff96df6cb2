"""Generated: domain=signed, conv=arith, neutral=shift, back=mask, shape=heapq, inactive=filter, pick=max, heapq=nlargest, seed=leaf, mask=bools; bug: min."""

import heapq

def reduce(ops, seed, elements, active):
    W = ops.width
    MASK, TOP = (1 << W) - 1, 1 << (W - 1)
    def signed(x):
        return x - ((x >> (W - 1)) << W)
    NEUTRAL, LARGEST = -(1 << (W - 1)), TOP - 1
    vals = [signed(seed)] + [signed(elements[i]) for i in range(len(elements)) if active[i]]
    best = heapq.nsmallest(1, vals)[0]
    return best & MASK
