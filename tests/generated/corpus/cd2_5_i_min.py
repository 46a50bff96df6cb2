"""Generated: domain=biased, shape=heapq, inactive=mask, pick=branchless, heapq=nlargest, seed=leaf, regfile=bytearray, maskreg=bytes, bound=cond, traps=any, write=int; bug: min."""

import heapq
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
    NEUTRAL, LARGEST = 0, MASK
    regs = [bytearray(r.to_bytes(VLENB, "little")) for r in pre.regs]
    mask_bytes = pre.regs[0].to_bytes(VLENB, "little")
    vals = [(int.from_bytes(regs[insn.vs1][NB * 0:NB * 0 + NB], "little") ^ TOP)] + [((int.from_bytes(regs[insn.vs2 + i // PER][NB * (i % PER):NB * (i % PER) + NB], "little") ^ TOP) & -int(bool(i < pre.vl and (insn.vm or mask_bytes[i // 8] >> (i % 8) & 1)))) | (NEUTRAL & ~-int(bool(i < pre.vl and (insn.vm or mask_bytes[i // 8] >> (i % 8) & 1)))) for i in range(VLMAX)]
    best = heapq.nsmallest(1, vals)[0]
    result = (best ^ TOP) & MASK
    vd_bytes = bytearray(regs[insn.vd])
    vd_bytes[0:NB] = result.to_bytes(NB, "little")
    if tail == "ones" and (pre.vtype >> 6) & 1:
        vd_bytes[NB:] = b"\xff" * (VLENB - NB)
    regs[insn.vd] = vd_bytes
    post_regs = tuple(int.from_bytes(r, "little") for r in regs)
    return traps, pre.with_(regs=post_regs, vstart=0, vs=3)
