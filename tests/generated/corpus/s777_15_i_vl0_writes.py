"""Generated: domain=signed, conv=struct, neutral=power, back=modulo, shape=network, inactive=neutral, pick=max, network=sorted_chunks, exchange=minmax, seed=last, regfile=list, maskreg=bools, bound=cond, traps=any, write=int; bug: vl0_writes."""

import struct
from vredmax.spec.legality import trap_conditions

def step(m, pre, insn, cfg, tail):
    traps = trap_conditions(m, pre, insn, m.bit(pre.vtype, 63), cfg.lmul)
    if any(fired for _, fired in traps):
        return traps, pre
    SEW, VLEN, VLMAX = cfg.sew, cfg.vlen, cfg.vlmax
    PER, NB, VLENB = VLEN // SEW, SEW // 8, VLEN // 8
    W = cfg.sew
    MASK, TOP = (1 << W) - 1, 1 << (W - 1)
    FORMAT = {8: 'b', 16: 'h', 32: 'i', 64: 'q'}[W]
    def signed(x):
        return struct.unpack("<" + FORMAT, struct.pack("<" + FORMAT.upper(), x))[0]

    def exchange(vals, p, q):
        """The smaller to p, the greater to q."""
        vals[p], vals[q] = min(vals[p], vals[q]), max(vals[p], vals[q])
    NEUTRAL, LARGEST = -2 ** (W - 1), TOP - 1
    regs = list(pre.regs)
    mask_bits = [(pre.regs[0] >> k) & 1 == 1 for k in range(VLMAX)]
    seed = signed((regs[insn.vs1] >> (SEW * 0) & MASK))
    vals = [signed((regs[insn.vs2 + i // PER] >> (SEW * (i % PER)) & MASK)) if i < pre.vl and (insn.vm or mask_bits[i]) else NEUTRAL for i in range(VLMAX)]
    tops = []
    for base in range(0, len(vals), 4):
        chunk = vals[base:base + 4]
        for rnd in range(len(chunk)):
            for p in range(rnd % 2, len(chunk) - 1, 2):
                exchange(chunk, p, p + 1)
        tops.append(chunk[-1])
    best = tops[0]
    for t in tops[1:]:
        best = max(best, t)
    best = max(best, seed)
    result = (best % (1 << W)) & MASK
    old = regs[insn.vd]
    new = (old & ~MASK) | result
    if tail == "ones" and (pre.vtype >> 6) & 1:
        new |= ((1 << VLEN) - 1) & ~MASK
    regs[insn.vd] = new
    post_regs = tuple(regs)
    return traps, pre.with_(regs=post_regs, vstart=0, vs=3)
