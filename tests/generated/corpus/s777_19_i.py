"""Generated: domain=signed, conv=struct, neutral=invert, back=modulo, shape=loop, inactive=mask, pick=branchless, order=stride, early=none, seed=init, regfile=bytearray, maskreg=shift, bound=cond, traps=loop, write=bytes, store=bytearray, signed_read=True."""

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
    NEUTRAL, LARGEST = ~((1 << (W - 1)) - 1), TOP - 1
    regs = [bytearray(r.to_bytes(VLENB, "little")) for r in pre.regs]
    v0 = pre.regs[0]
    seed = int.from_bytes(regs[insn.vs1][NB * 0:NB * 0 + NB], "little", signed=True)
    best = seed
    for i in [*range(0, VLMAX, 2), *range(1, VLMAX, 2)]:
        m_ = -int(bool(i < pre.vl and (insn.vm or (v0 >> i) & 1)))
        v = (int.from_bytes(regs[insn.vs2 + i // PER][NB * (i % PER):NB * (i % PER) + NB], "little", signed=True) & m_) | (NEUTRAL & ~m_)
        c = -int(v > best)
        best = (v & c) | (best & ~c)
    result = (best % (1 << W)) & MASK
    vd_bytes = bytearray(regs[insn.vd])
    vd_bytes[0:NB] = result.to_bytes(NB, "little")
    if tail == "ones" and (pre.vtype >> 6) & 1:
        vd_bytes[NB:] = b"\xff" * (VLENB - NB)
    regs[insn.vd] = vd_bytes
    post_regs = tuple(int.from_bytes(r, "little") for r in regs)
    return traps, pre.with_(regs=post_regs, vstart=0, vs=3)
