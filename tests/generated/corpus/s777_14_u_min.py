"""Generated: domain=signed, conv=struct, neutral=invert, back=add, shape=while, inactive=neutral, pick=if, seed=init, mask=bools; bug: min."""

import struct

def reduce(ops, seed, elements, active):
    W = ops.width
    MASK, TOP = (1 << W) - 1, 1 << (W - 1)
    FORMAT = {8: 'b', 16: 'h', 32: 'i', 64: 'q'}[W]
    def signed(x):
        return struct.unpack("<" + FORMAT, struct.pack("<" + FORMAT.upper(), x))[0]
    NEUTRAL, LARGEST = ~((1 << (W - 1)) - 1), TOP - 1
    best = signed(seed)
    i = 0
    while i < len(elements):
        v = signed(elements[i]) if active[i] else NEUTRAL
        if best > v:
            best = v
        i += 1
    return best + (1 << W) if best < 0 else best
