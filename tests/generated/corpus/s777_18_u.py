"""Generated: domain=biased, shape=lanes, inactive=mask, pick=branchless, lanes=2, seed=last, mask=ints."""


def reduce(ops, seed, elements, active):
    W = ops.width
    MASK, TOP = (1 << W) - 1, 1 << (W - 1)
    NEUTRAL, LARGEST = 0, MASK
    flags = [1 if a else 0 for a in active]
    LANES = 2
    accs = [NEUTRAL] * LANES
    for i in range(len(elements)):
        m_ = -int(bool(flags[i] == 1))
        v = ((elements[i] ^ TOP) & m_) | (NEUTRAL & ~m_)
        c = -int(v > accs[i % LANES])
        accs[i % LANES] = (v & c) | (accs[i % LANES] & ~c)
    best = NEUTRAL
    for acc in accs:
        c = -int(acc > best)
        best = (acc & c) | (best & ~c)
    c = -int((seed ^ TOP) > best)
    best = ((seed ^ TOP) & c) | (best & ~c)
    return best ^ TOP
