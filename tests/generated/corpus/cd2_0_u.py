"""Generated: domain=raw, greater=via_signed, shape=recursion, inactive=mul, pick=ternary, seed=leaf, mask=bools."""


def reduce(ops, seed, elements, active):
    W = ops.width
    MASK, TOP = (1 << W) - 1, 1 << (W - 1)
    def greater(a, b):
        def s(x):
            return x - (1 << W) if x >> (W - 1) & 1 else x
        return s(a) > s(b)

    def largest(vals, lo, hi):
        if hi - lo == 1:
            return vals[lo]
        mid = (lo + hi) // 2
        a, b = largest(vals, lo, mid), largest(vals, mid, hi)
        return b if greater(b, a) else a
    NEUTRAL, LARGEST = TOP, TOP - 1
    vals = [seed] + [elements[i] * (1 if active[i] else 0) + NEUTRAL * (0 if active[i] else 1) for i in range(len(elements))]
    best = largest(vals, 0, len(vals))
    return best
