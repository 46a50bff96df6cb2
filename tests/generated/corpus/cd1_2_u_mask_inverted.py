"""Generated: domain=raw, greater=via_signed, shape=chunks, inactive=mul, pick=if, chunk=64, seed=last, mask=bools; bug: mask_inverted."""


def reduce(ops, seed, elements, active):
    W = ops.width
    MASK, TOP = (1 << W) - 1, 1 << (W - 1)
    def greater(a, b):
        def s(x):
            return x - (1 << W) if x >> (W - 1) & 1 else x
        return s(a) > s(b)
    NEUTRAL, LARGEST = TOP, TOP - 1
    CHUNK = 64
    best = NEUTRAL
    for base in range(0, len(elements), CHUNK):
        part = NEUTRAL
        for i in range(base, min(base + CHUNK, len(elements))):
            a_ = 1 if not active[i] else 0
            v = elements[i] * a_ + NEUTRAL * (1 - a_)
            if greater(v, part):
                part = v
        if greater(part, best):
            best = part
    if greater(seed, best):
        best = seed
    return best
