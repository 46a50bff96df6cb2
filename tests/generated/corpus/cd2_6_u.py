"""Generated: domain=biased, shape=chunks, inactive=mul, pick=if, chunk=64, seed=last, mask=bits."""


def reduce(ops, seed, elements, active):
    W = ops.width
    MASK, TOP = (1 << W) - 1, 1 << (W - 1)
    NEUTRAL, LARGEST = 0, MASK
    bits = 0
    for k, a in enumerate(active):
        if a:
            bits |= 1 << k
    CHUNK = 64
    best = NEUTRAL
    for base in range(0, len(elements), CHUNK):
        part = NEUTRAL
        for i in range(base, min(base + CHUNK, len(elements))):
            a_ = 1 if bits >> i & 1 else 0
            v = (elements[i] ^ TOP) * a_ + NEUTRAL * (1 - a_)
            if v > part:
                part = v
        if part > best:
            best = part
    if (seed ^ TOP) > best:
        best = (seed ^ TOP)
    return best ^ TOP
