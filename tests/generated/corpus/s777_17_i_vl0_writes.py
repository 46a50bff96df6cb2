"""Generated: domain=raw, greater=signbits, shape=loop, inactive=neutral, pick=ternary, order=backward, early=break, seed=last, regfile=class, maskreg=bools, bound=cond, traps=loop, write=int; bug: vl0_writes."""

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
    SEW, VLEN, VLMAX = cfg.sew, cfg.vlen, cfg.vlmax
    PER, NB, VLENB = VLEN // SEW, SEW // 8, VLEN // 8
    W = cfg.sew
    MASK, TOP = (1 << W) - 1, 1 << (W - 1)
    def greater(a, b):
        sa, sb = a >> (W - 1) & 1, b >> (W - 1) & 1
        if sa != sb:
            return sb == 1
        return a > b
    NEUTRAL, LARGEST = TOP, TOP - 1
    regs = VectorRegisters(pre.regs, SEW, VLEN)
    mask_bits = [(pre.regs[0] >> k) & 1 == 1 for k in range(VLMAX)]
    seed = regs.element(insn.vs1, 0)
    best = NEUTRAL
    for i in range(VLMAX - 1, -1, -1):
        if best == LARGEST:
            break
        v = regs.element(insn.vs2, i) if i < pre.vl and (insn.vm or mask_bits[i]) else NEUTRAL
        best = v if greater(v, best) else best
    best = seed if greater(seed, best) else best
    result = (best) & MASK
    old = regs.regs[insn.vd]
    new = (old & ~MASK) | result
    if tail == "ones" and (pre.vtype >> 6) & 1:
        new |= ((1 << VLEN) - 1) & ~MASK
    regs.regs[insn.vd] = new
    post_regs = tuple(regs.regs)
    return traps, pre.with_(regs=post_regs, vstart=0, vs=3)
