"""Generated: domain=raw, greater=hilo, shape=max, inactive=neutral, pick=if, seed=leaf, regfile=struct, maskreg=shift, bound=cond, traps=any, write=bytes; bug: mask_from_v1."""

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
    HALF, LOW = W // 2, (1 << (W // 2)) - 1
    def half_signed(h):
        return h - (1 << HALF) if h >> (HALF - 1) & 1 else h

    def greater(a, b):
        """High halves as signed, then low halves as unsigned."""
        ah, bh = a >> HALF, b >> HALF
        if ah != bh:
            return half_signed(ah) > half_signed(bh)
        return a & LOW > b & LOW
    NEUTRAL, LARGEST = TOP, TOP - 1
    regs = [r.to_bytes(VLENB, "little") for r in pre.regs]
    v0 = pre.regs[1]
    vals = [struct.unpack_from("<" + FORMAT.upper(), regs[insn.vs1], NB * 0)[0]] + [struct.unpack_from("<" + FORMAT.upper(), regs[insn.vs2 + i // PER], NB * (i % PER))[0] if i < pre.vl and (insn.vm or (v0 >> i) & 1) else NEUTRAL for i in range(VLMAX)]
    best = max(vals, key=lambda v: v ^ TOP)
    result = (best) & MASK
    vd_bytes = bytearray(regs[insn.vd])
    vd_bytes[0:NB] = result.to_bytes(NB, "little")
    if tail == "ones" and (pre.vtype >> 6) & 1:
        vd_bytes[NB:] = b"\xff" * (VLENB - NB)
    regs[insn.vd] = vd_bytes
    post_regs = tuple(int.from_bytes(r, "little") for r in regs)
    return traps, pre.with_(regs=post_regs, vstart=0, vs=3)
