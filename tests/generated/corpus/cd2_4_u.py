"""Generated: domain=biased, shape=max, inactive=mask, pick=ternary, seed=leaf, mask=ints."""


def reduce(ops, seed, elements, active):
    W = ops.width
    MASK, TOP = (1 << W) - 1, 1 << (W - 1)
    NEUTRAL, LARGEST = 0, MASK
    flags = [1 if a else 0 for a in active]
    vals = [(seed ^ TOP)] + [((elements[i] ^ TOP) & -int(bool(flags[i] == 1))) | (NEUTRAL & ~-int(bool(flags[i] == 1))) for i in range(len(elements))]
    best = max(vals)
    return best ^ TOP
