"""Generated: domain=signed, conv=arith, neutral=converted, back=modulo, shape=loop, inactive=mul, pick=max, order=stride, early=none, seed=init, mask=bools."""


def reduce(ops, seed, elements, active):
    W = ops.width
    MASK, TOP = (1 << W) - 1, 1 << (W - 1)
    def signed(x):
        return x - ((x >> (W - 1)) << W)
    NEUTRAL, LARGEST = signed(TOP), TOP - 1
    best = signed(seed)
    for i in [*range(0, len(elements), 2), *range(1, len(elements), 2)]:
        a_ = 1 if active[i] else 0
        v = signed(elements[i]) * a_ + NEUTRAL * (1 - a_)
        best = max(best, v)
    return best % (1 << W)
