"""Generated: domain=raw, greater=via_signed, shape=reduce, inactive=neutral, pick=ternary, seed=leaf, regfile=class, maskreg=bytes, bound=cond, traps=loop, write=bytes; bug: mask_inverted."""

import functools
from vredmax.spec.legality import trap_conditions

class VectorRegisters:
    """The register file of an emulator: VLEN-bit ints, read an element at a time."""

    def __init__(self, regs, sew, vlen):
        self.regs, self.sew, self.per = list(regs), sew, vlen // sew

    def element(self, group, i):
        return (self.regs[group + i // self.per] >> (self.sew * (i % self.per))) & ((1 << self.sew) - 1)


def step(m, pre, insn, cfg, tail):
    traps = trap_conditions(m, pre, insn, m.bit(pre.vtype, 63), cfg.lmul)
    for _rule, fired in traps:
        if fired:
            return traps, pre
    if pre.vl == 0:
        return traps, pre
    SEW, VLEN, VLMAX = cfg.sew, cfg.vlen, cfg.vlmax
    PER, NB, VLENB = VLEN // SEW, SEW // 8, VLEN // 8
    W = cfg.sew
    MASK, TOP = (1 << W) - 1, 1 << (W - 1)
    def greater(a, b):
        def s(x):
            return x - (1 << W) if x >> (W - 1) & 1 else x
        return s(a) > s(b)

    def bigger(a, b):
        return b if greater(b, a) else a
    NEUTRAL, LARGEST = TOP, TOP - 1
    regs = VectorRegisters(pre.regs, SEW, VLEN)
    mask_bytes = pre.regs[0].to_bytes(VLENB, "little")
    seed = regs.element(insn.vs1, 0)
    vals = [seed] + [regs.element(insn.vs2, i) if i < pre.vl and (insn.vm or not mask_bytes[i // 8] >> (i % 8) & 1) else NEUTRAL for i in range(VLMAX)]
    best = functools.reduce(bigger, vals)
    result = (best) & MASK
    old = regs.regs[insn.vd]
    new = (old & ~MASK) | result
    if tail == "ones" and (pre.vtype >> 6) & 1:
        new |= ((1 << VLEN) - 1) & ~MASK
    regs.regs[insn.vd] = new
    post_regs = tuple(regs.regs)
    return traps, pre.with_(regs=post_regs, vstart=0, vs=3)
