"""Generated: domain=biased, shape=loop, inactive=neutral, pick=max, order=stride, early=none, seed=init, mask=bits."""


def reduce(ops, seed, elements, active):
    W = ops.width
    MASK, TOP = (1 << W) - 1, 1 << (W - 1)
    NEUTRAL, LARGEST = 0, MASK
    bits = 0
    for k, a in enumerate(active):
        if a:
            bits |= 1 << k
    best = (seed ^ TOP)
    for i in [*range(0, len(elements), 2), *range(1, len(elements), 2)]:
        v = (elements[i] ^ TOP) if bits >> i & 1 else NEUTRAL
        best = max(best, v)
    return best ^ TOP
