"""Generated: domain=signed, conv=struct, neutral=power, back=mask, shape=loop, inactive=mul, pick=ternary, order=stride, early=none, seed=init, mask=ints; bug: lane_width."""

import struct

def reduce(ops, seed, elements, active):
    W = ops.width
    MASK, TOP = (1 << W) - 1, 1 << (W - 1)
    FORMAT = {8: 'b', 16: 'h', 32: 'i', 64: 'q'}[W]
    def signed(x):
        return struct.unpack("<" + FORMAT, struct.pack("<" + FORMAT.upper(), x & ((MASK >> 1))))[0]
    NEUTRAL, LARGEST = -2 ** (W - 1), TOP - 1
    flags = [1 if a else 0 for a in active]
    best = signed(seed)
    for i in [*range(0, len(elements), 2), *range(1, len(elements), 2)]:
        a_ = 1 if flags[i] == 1 else 0
        v = signed(elements[i]) * a_ + NEUTRAL * (1 - a_)
        best = v if v > best else best
    return best & MASK
