"""Generated: domain=signed, conv=arith, neutral=shift, back=mask, shape=lanes, inactive=mul, pick=branchless, lanes=4, seed=init, regfile=memoryview, maskreg=bytes, bound=cond, traps=loop, write=bytes, signed_read=True."""

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
    def signed(x):
        return x - ((x >> (W - 1)) << W)
    NEUTRAL, LARGEST = -(1 << (W - 1)), TOP - 1
    regs = [r.to_bytes(VLENB, "little") for r in pre.regs]
    mask_bytes = pre.regs[0].to_bytes(VLENB, "little")
    LANES = 4
    accs = [NEUTRAL] * LANES
    for i in range(VLMAX):
        a_ = 1 if i < pre.vl and (insn.vm or mask_bytes[i // 8] >> (i % 8) & 1) else 0
        v = int.from_bytes(memoryview(regs[insn.vs2 + i // PER])[NB * (i % PER):NB * (i % PER) + NB], "little", signed=True) * a_ + NEUTRAL * (1 - a_)
        c = -int(v > accs[i % LANES])
        accs[i % LANES] = (v & c) | (accs[i % LANES] & ~c)
    best = int.from_bytes(memoryview(regs[insn.vs1])[NB * 0:NB * 0 + NB], "little", signed=True)
    for acc in accs:
        c = -int(acc > best)
        best = (acc & c) | (best & ~c)
    result = (best & MASK) & MASK
    vd_bytes = bytearray(regs[insn.vd])
    vd_bytes[0:NB] = result.to_bytes(NB, "little")
    if tail == "ones" and (pre.vtype >> 6) & 1:
        vd_bytes[NB:] = b"\xff" * (VLENB - NB)
    regs[insn.vd] = vd_bytes
    post_regs = tuple(int.from_bytes(r, "little") for r in regs)
    return traps, pre.with_(regs=post_regs, vstart=0, vs=3)
