"""Generated: domain=signed, conv=xor, neutral=shift, back=modulo, shape=loop, inactive=mul, pick=max, order=backward, early=break, seed=last, mask=bits; bug: early_positive."""


def reduce(ops, seed, elements, active):
    W = ops.width
    MASK, TOP = (1 << W) - 1, 1 << (W - 1)
    def signed(x):
        return (x ^ TOP) - TOP
    NEUTRAL, LARGEST = -(1 << (W - 1)), 1
    bits = 0
    for k, a in enumerate(active):
        if a:
            bits |= 1 << k
    best = NEUTRAL
    for i in range(len(elements) - 1, -1, -1):
        if best == LARGEST:
            break
        a_ = 1 if bits >> i & 1 else 0
        v = signed(elements[i]) * a_ + NEUTRAL * (1 - a_)
        best = max(best, v)
    best = max(best, signed(seed))
    return best % (1 << W)
