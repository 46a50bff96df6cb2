"""Generated: domain=signed, conv=arith, neutral=shift, back=add, shape=network, inactive=mask, pick=ternary, network=tournament, exchange=minmax, seed=last, mask=bools."""


def reduce(ops, seed, elements, active):
    W = ops.width
    MASK, TOP = (1 << W) - 1, 1 << (W - 1)
    def signed(x):
        return x - ((x >> (W - 1)) << W)

    def exchange(vals, p, q):
        """The smaller to p, the greater to q."""
        vals[p], vals[q] = min(vals[p], vals[q]), max(vals[p], vals[q])
    NEUTRAL, LARGEST = -(1 << (W - 1)), TOP - 1
    vals = [(signed(elements[i]) & -int(bool(active[i]))) | (NEUTRAL & ~-int(bool(active[i]))) for i in range(len(elements))]
    size = 1
    while size < len(vals):
        size *= 2
    vals = vals + [NEUTRAL] * (size - len(vals))
    n, gap = len(vals), 1
    while gap < n:
        for p in range(gap - 1, n - gap, 2 * gap):
            exchange(vals, p, p + gap)
        gap *= 2
    best = vals[n - 1]
    best = signed(seed) if signed(seed) > best else best
    return best + (1 << W) if best < 0 else best
