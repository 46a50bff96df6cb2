"""Generated: domain=signed, conv=xor, neutral=power, back=add, shape=tree, inactive=mask, pick=if, tree=pad, seed=last, mask=ints."""


def reduce(ops, seed, elements, active):
    W = ops.width
    MASK, TOP = (1 << W) - 1, 1 << (W - 1)
    def signed(x):
        return (x ^ TOP) - TOP
    NEUTRAL, LARGEST = -2 ** (W - 1), TOP - 1
    flags = [1 if a else 0 for a in active]
    vals = [(signed(elements[i]) & -int(bool(flags[i] == 1))) | (NEUTRAL & ~-int(bool(flags[i] == 1))) for i in range(len(elements))]
    size = 1
    while size < len(vals):
        size *= 2
    vals = vals + [NEUTRAL] * (size - len(vals))
    while len(vals) > 1:
        nxt = [vals[j + 1] if vals[j + 1] > vals[j] else vals[j] for j in range(0, len(vals) - 1, 2)]
        vals = nxt
    best = vals[0]
    if signed(seed) > best:
        best = signed(seed)
    return best + (1 << W) if best < 0 else best
