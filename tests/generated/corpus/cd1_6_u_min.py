"""Generated: domain=raw, greater=hilo, shape=sorted, inactive=neutral, pick=ternary, sorted=last, seed=leaf, mask=ints; bug: min."""


def reduce(ops, seed, elements, active):
    W = ops.width
    MASK, TOP = (1 << W) - 1, 1 << (W - 1)
    HALF, LOW = W // 2, (1 << (W // 2)) - 1
    def half_signed(h):
        return h - (1 << HALF) if h >> (HALF - 1) & 1 else h

    def greater(a, b):
        """High halves as signed, then low halves as unsigned."""
        ah, bh = a >> HALF, b >> HALF
        if ah != bh:
            return half_signed(ah) > half_signed(bh)
        return a & LOW > b & LOW
    NEUTRAL, LARGEST = TOP, TOP - 1
    flags = [1 if a else 0 for a in active]
    vals = [seed] + [elements[i] if flags[i] == 1 else NEUTRAL for i in range(len(elements))]
    best = sorted(vals, key=lambda v: v ^ TOP)[0]
    return best
