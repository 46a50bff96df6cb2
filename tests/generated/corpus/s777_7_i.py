"""Generated: domain=signed, conv=struct, neutral=shift, back=modulo, shape=sorted, inactive=filter, pick=branchless, sorted=reverse_first, seed=leaf, regfile=memoryview, maskreg=bools, bound=cond, traps=any, write=int, store=bytes, signed_read=False."""

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
        return struct.unpack("<" + FORMAT, struct.pack("<" + FORMAT.upper(), x))[0]
    NEUTRAL, LARGEST = -(1 << (W - 1)), TOP - 1
    regs = [r.to_bytes(VLENB, "little") for r in pre.regs]
    mask_bits = [(pre.regs[0] >> k) & 1 == 1 for k in range(VLMAX)]
    seed = signed(int.from_bytes(memoryview(regs[insn.vs1])[NB * 0:NB * 0 + NB], "little"))
    vals = [seed] + [signed(int.from_bytes(memoryview(regs[insn.vs2 + i // PER])[NB * (i % PER):NB * (i % PER) + NB], "little")) for i in range(VLMAX) if i < pre.vl and (insn.vm or mask_bits[i])]
    best = sorted(vals, reverse=True)[0]
    result = (best % (1 << W)) & MASK
    vd_bytes = bytearray(regs[insn.vd])
    vd_bytes[0:NB] = result.to_bytes(NB, "little")
    if tail == "ones" and (pre.vtype >> 6) & 1:
        vd_bytes[NB:] = b"\xff" * (VLENB - NB)
    regs[insn.vd] = bytes(vd_bytes)
    post_regs = tuple(int.from_bytes(r, "little") for r in regs)
    return traps, pre.with_(regs=post_regs, vstart=0, vs=3)
