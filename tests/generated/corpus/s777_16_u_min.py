"""Generated: domain=signed, conv=arith, neutral=converted, back=modulo, shape=while, inactive=neutral, pick=ternary, seed=init, mask=ints; bug: min."""


def reduce(ops, seed, elements, active):
    W = ops.width
    MASK, TOP = (1 << W) - 1, 1 << (W - 1)
    def signed(x):
        return x - ((x >> (W - 1)) << W)
    NEUTRAL, LARGEST = signed(TOP), TOP - 1
    flags = [1 if a else 0 for a in active]
    best = signed(seed)
    i = 0
    while i < len(elements):
        v = signed(elements[i]) if flags[i] == 1 else NEUTRAL
        best = v if best > v else best
        i += 1
    return best % (1 << W)
