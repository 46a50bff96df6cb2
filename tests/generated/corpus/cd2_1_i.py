"""Generated: domain=raw, greater=via_signed, shape=chunks, inactive=mask, pick=ternary, chunk=4, seed=init, regfile=memoryview, maskreg=bytes, bound=cond, traps=any, write=bytes."""

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
    def greater(a, b):
        def s(x):
            return x - (1 << W) if x >> (W - 1) & 1 else x
        return s(a) > s(b)
    NEUTRAL, LARGEST = TOP, TOP - 1
    regs = [r.to_bytes(VLENB, "little") for r in pre.regs]
    mask_bytes = pre.regs[0].to_bytes(VLENB, "little")
    CHUNK = 4
    best = int.from_bytes(memoryview(regs[insn.vs1])[NB * 0:NB * 0 + NB], "little")
    for base in range(0, VLMAX, CHUNK):
        part = NEUTRAL
        for i in range(base, min(base + CHUNK, VLMAX)):
            m_ = -int(bool(i < pre.vl and (insn.vm or mask_bytes[i // 8] >> (i % 8) & 1)))
            v = (int.from_bytes(memoryview(regs[insn.vs2 + i // PER])[NB * (i % PER):NB * (i % PER) + NB], "little") & m_) | (NEUTRAL & ~m_)
            part = v if greater(v, part) else part
        best = part if greater(part, best) else best
    result = (best) & MASK
    vd_bytes = bytearray(regs[insn.vd])
    vd_bytes[0:NB] = result.to_bytes(NB, "little")
    if tail == "ones" and (pre.vtype >> 6) & 1:
        vd_bytes[NB:] = b"\xff" * (VLENB - NB)
    regs[insn.vd] = vd_bytes
    post_regs = tuple(int.from_bytes(r, "little") for r in regs)
    return traps, pre.with_(regs=post_regs, vstart=0, vs=3)
