"""Generated: domain=raw, greater=signbits, shape=max, inactive=neutral, pick=if, seed=leaf, mask=bools."""


def reduce(ops, seed, elements, active):
    W = ops.width
    MASK, TOP = (1 << W) - 1, 1 << (W - 1)
    def greater(a, b):
        sa, sb = a >> (W - 1) & 1, b >> (W - 1) & 1
        if sa != sb:
            return sb == 1
        return a > b
    NEUTRAL, LARGEST = TOP, TOP - 1
    vals = [seed] + [elements[i] if active[i] else NEUTRAL for i in range(len(elements))]
    best = max(vals, key=lambda v: v ^ TOP)
    return best
