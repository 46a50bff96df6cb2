"""Generated: domain=signed, conv=arith, neutral=converted, back=mask, shape=heapq, inactive=mul, pick=ternary, heapq=negated, seed=last, regfile=struct, maskreg=bytes, bound=cond, traps=any, write=int, signed_read=False."""

import heapq
import struct
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
    FORMAT = {8: 'b', 16: 'h', 32: 'i', 64: 'q'}[W]
    def signed(x):
        return x - ((x >> (W - 1)) << W)
    NEUTRAL, LARGEST = signed(TOP), TOP - 1
    regs = [r.to_bytes(VLENB, "little") for r in pre.regs]
    mask_bytes = pre.regs[0].to_bytes(VLENB, "little")
    vals = [signed(struct.unpack_from("<" + FORMAT.upper(), regs[insn.vs2 + i // PER], NB * (i % PER))[0]) * (1 if i < pre.vl and (insn.vm or mask_bytes[i // 8] >> (i % 8) & 1) else 0) + NEUTRAL * (0 if i < pre.vl and (insn.vm or mask_bytes[i // 8] >> (i % 8) & 1) else 1) for i in range(VLMAX)]
    best = -heapq.nsmallest(1, [-v for v in vals])[0]
    best = signed(struct.unpack_from("<" + FORMAT.upper(), regs[insn.vs1], NB * 0)[0]) if signed(struct.unpack_from("<" + FORMAT.upper(), regs[insn.vs1], NB * 0)[0]) > best else best
    result = (best & MASK) & MASK
    vd_bytes = bytearray(regs[insn.vd])
    struct.pack_into("<" + FORMAT.upper(), vd_bytes, 0, result)
    if tail == "ones" and (pre.vtype >> 6) & 1:
        vd_bytes[NB:] = b"\xff" * (VLENB - NB)
    regs[insn.vd] = vd_bytes
    post_regs = tuple(int.from_bytes(r, "little") for r in regs)
    return traps, pre.with_(regs=post_regs, vstart=0, vs=3)
