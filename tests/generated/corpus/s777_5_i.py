"""Generated: domain=raw, greater=hilo, shape=reduce, inactive=mask, pick=ternary, seed=init, regfile=list, maskreg=shift, bound=cond, traps=loop, write=bytes."""

import functools
from vredmax.spec.legality import trap_conditions

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
    HALF, LOW = W // 2, (1 << (W // 2)) - 1
    def half_signed(h):
        return h - (1 << HALF) if h >> (HALF - 1) & 1 else h

    def greater(a, b):
        """High halves as signed, then low halves as unsigned."""
        ah, bh = a >> HALF, b >> HALF
        if ah != bh:
            return half_signed(ah) > half_signed(bh)
        return a & LOW > b & LOW

    def bigger(a, b):
        return b if greater(b, a) else a
    NEUTRAL, LARGEST = TOP, TOP - 1
    regs = list(pre.regs)
    v0 = pre.regs[0]
    seed = (regs[insn.vs1] >> (SEW * 0) & MASK)
    vals = [((regs[insn.vs2 + i // PER] >> (SEW * (i % PER)) & MASK) & -int(bool(i < pre.vl and (insn.vm or (v0 >> i) & 1)))) | (NEUTRAL & ~-int(bool(i < pre.vl and (insn.vm or (v0 >> i) & 1)))) for i in range(VLMAX)]
    best = functools.reduce(bigger, vals, seed)
    result = (best) & MASK
    old = regs[insn.vd]
    new = (old & ~MASK) | result
    if tail == "ones" and (pre.vtype >> 6) & 1:
        new |= ((1 << VLEN) - 1) & ~MASK
    regs[insn.vd] = new
    post_regs = tuple(regs)
    return traps, pre.with_(regs=post_regs, vstart=0, vs=3)
