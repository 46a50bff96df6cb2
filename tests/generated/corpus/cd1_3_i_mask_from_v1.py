"""Generated: domain=signed, conv=arith, neutral=converted, back=add, shape=reduce, inactive=filter, pick=max, seed=leaf, regfile=dict, maskreg=shift, bound=cond, traps=any, write=int; bug: mask_from_v1."""

import functools
from vredmax.spec.legality import trap_conditions

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
        return x - ((x >> (W - 1)) << W)

    def bigger(a, b):
        return max(a, b)
    NEUTRAL, LARGEST = signed(TOP), TOP - 1
    regs = {n: value for n, value in enumerate(pre.regs)}
    v0 = pre.regs[1]
    vals = [signed((regs[insn.vs1] >> (SEW * 0) & MASK))] + [signed((regs[insn.vs2 + i // PER] >> (SEW * (i % PER)) & MASK)) for i in range(VLMAX) if i < pre.vl and (insn.vm or (v0 >> i) & 1)]
    best = functools.reduce(bigger, vals)
    result = (best + (1 << W) if best < 0 else best) & MASK
    old = regs[insn.vd]
    new = (old & ~MASK) | result
    if tail == "ones" and (pre.vtype >> 6) & 1:
        new |= ((1 << VLEN) - 1) & ~MASK
    regs[insn.vd] = new
    post_regs = tuple(regs[n] for n in range(32))
    return traps, pre.with_(regs=post_regs, vstart=0, vs=3)
