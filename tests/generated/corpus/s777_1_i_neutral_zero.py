"""Generated: domain=signed, conv=ternary, neutral=invert, back=modulo, shape=tree, inactive=neutral, pick=ternary, tree=carry_odd, seed=last, regfile=class, maskreg=bools, bound=cond, traps=any, write=bytes; bug: neutral_zero."""

from vredmax.spec.legality import trap_conditions

class VectorRegisters:
    """The register file of an emulator: VLEN-bit ints, read an element at a time."""

    def __init__(self, regs, sew, vlen):
        self.regs, self.sew, self.per = list(regs), sew, vlen // sew

    def element(self, group, i):
        return (self.regs[group + i // self.per] >> (self.sew * (i % self.per))) & ((1 << self.sew) - 1)


def step(m, pre, insn, cfg, tail):
    traps = trap_conditions(m, pre, insn, m.bit(pre.vtype, 63), cfg.lmul)
    if any(fired for _, fired in traps):
        return traps, pre
    if pre.vl == 0:
        return traps, pre
    SEW, VLEN, VLMAX = cfg.sew, cfg.vlen, cfg.vlmax
    PER, NB, VLENB = VLEN // SEW, SEW // 8, VLEN // 8
    W = cfg.sew
    MASK, TOP = (1 << W) - 1, 1 << (W - 1)
    def signed(x):
        return x - (1 << W) if x >> (W - 1) else x
    NEUTRAL, LARGEST = 0, TOP - 1
    regs = VectorRegisters(pre.regs, SEW, VLEN)
    mask_bits = [(pre.regs[0] >> k) & 1 == 1 for k in range(VLMAX)]
    seed = signed(regs.element(insn.vs1, 0))
    vals = [signed(regs.element(insn.vs2, i)) if i < pre.vl and (insn.vm or mask_bits[i]) else NEUTRAL for i in range(VLMAX)]
    while len(vals) > 1:
        nxt = [vals[j + 1] if vals[j + 1] > vals[j] else vals[j] for j in range(0, len(vals) - 1, 2)]
        if len(vals) % 2:
            nxt.append(vals[-1])
        vals = nxt
    best = vals[0]
    best = seed if seed > best else best
    result = (best % (1 << W)) & MASK
    old = regs.regs[insn.vd]
    new = (old & ~MASK) | result
    if tail == "ones" and (pre.vtype >> 6) & 1:
        new |= ((1 << VLEN) - 1) & ~MASK
    regs.regs[insn.vd] = new
    post_regs = tuple(regs.regs)
    return traps, pre.with_(regs=post_regs, vstart=0, vs=3)
