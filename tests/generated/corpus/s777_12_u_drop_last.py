"""Generated: domain=signed, conv=arith, neutral=converted, back=modulo, shape=recursion, inactive=neutral, pick=branchless, seed=leaf, mask=ints; bug: drop_last."""


def reduce(ops, seed, elements, active):
    W = ops.width
    MASK, TOP = (1 << W) - 1, 1 << (W - 1)
    def signed(x):
        return x - ((x >> (W - 1)) << W)

    def largest(vals, lo, hi):
        if hi - lo == 1:
            return vals[lo]
        mid = (lo + hi) // 2
        a, b = largest(vals, lo, mid), largest(vals, mid, hi)
        return (b & -int(b > a)) | (a & ~-int(b > a))
    NEUTRAL, LARGEST = signed(TOP), TOP - 1
    flags = [1 if a else 0 for a in active]
    vals = [signed(seed)] + [signed(elements[i]) if flags[i] == 1 else NEUTRAL for i in range(len(elements) - 1)]
    best = largest(vals, 0, len(vals))
    return best % (1 << W)
