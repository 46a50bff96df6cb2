"""Generated: domain=signed, conv=struct, neutral=shift, back=modulo, shape=reduce, inactive=mul, pick=ternary, seed=leaf, regfile=dict, maskreg=bools, bound=cond, traps=loop, write=bytes; bug: tail_ignores_vta."""

import functools
import struct
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
    FORMAT = {8: 'b', 16: 'h', 32: 'i', 64: 'q'}[W]
    def signed(x):
        return struct.unpack("<" + FORMAT, struct.pack("<" + FORMAT.upper(), x))[0]

    def bigger(a, b):
        return b if b > a else a
    NEUTRAL, LARGEST = -(1 << (W - 1)), TOP - 1
    regs = {n: value for n, value in enumerate(pre.regs)}
    mask_bits = [(pre.regs[0] >> k) & 1 == 1 for k in range(VLMAX)]
    vals = [signed((regs[insn.vs1] >> (SEW * 0) & MASK))] + [signed((regs[insn.vs2 + i // PER] >> (SEW * (i % PER)) & MASK)) * (1 if i < pre.vl and (insn.vm or mask_bits[i]) else 0) + NEUTRAL * (0 if i < pre.vl and (insn.vm or mask_bits[i]) else 1) for i in range(VLMAX)]
    best = functools.reduce(bigger, vals)
    result = (best % (1 << W)) & MASK
    old = regs[insn.vd]
    new = (old & ~MASK) | result
    if tail == "ones":
        new |= ((1 << VLEN) - 1) & ~MASK
    regs[insn.vd] = new
    post_regs = tuple(regs[n] for n in range(32))
    return traps, pre.with_(regs=post_regs, vstart=0, vs=3)
