"""Generated: domain=signed, conv=arith, neutral=converted, back=add, shape=lanes, inactive=skip, pick=branchless, lanes=4, seed=last, regfile=class, maskreg=shift, bound=cond, traps=loop, write=bytes; bug: mask_from_v1."""

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
    def signed(x):
        return x - ((x >> (W - 1)) << W)
    NEUTRAL, LARGEST = signed(TOP), TOP - 1
    regs = VectorRegisters(pre.regs, SEW, VLEN)
    v0 = pre.regs[1]
    seed = signed(regs.element(insn.vs1, 0))
    LANES = 4
    accs = [NEUTRAL] * LANES
    for i in range(VLMAX):
        if not (i < pre.vl and (insn.vm or (v0 >> i) & 1)):
            continue
        v = signed(regs.element(insn.vs2, i))
        c = -int(v > accs[i % LANES])
        accs[i % LANES] = (v & c) | (accs[i % LANES] & ~c)
    best = NEUTRAL
    for acc in accs:
        c = -int(acc > best)
        best = (acc & c) | (best & ~c)
    c = -int(seed > best)
    best = (seed & c) | (best & ~c)
    result = (best + (1 << W) if best < 0 else best) & MASK
    old = regs.regs[insn.vd]
    new = (old & ~MASK) | result
    if tail == "ones" and (pre.vtype >> 6) & 1:
        new |= ((1 << VLEN) - 1) & ~MASK
    regs.regs[insn.vd] = new
    post_regs = tuple(regs.regs)
    return traps, pre.with_(regs=post_regs, vstart=0, vs=3)
