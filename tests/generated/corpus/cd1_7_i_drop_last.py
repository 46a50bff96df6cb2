"""Generated: domain=signed, conv=arith, neutral=shift, back=modulo, shape=loop, inactive=skip, pick=if, order=forward, early=none, seed=last, regfile=bytearray, maskreg=shift, bound=break, traps=any, write=bytes, signed_read=False; bug: drop_last."""

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
    NEUTRAL, LARGEST = -(1 << (W - 1)), TOP - 1
    regs = [bytearray(r.to_bytes(VLENB, "little")) for r in pre.regs]
    v0 = pre.regs[0]
    best = NEUTRAL
    for i in range(VLMAX - 1):
        if i >= pre.vl:
            break
        if not ((insn.vm or (v0 >> i) & 1)):
            continue
        v = signed(int.from_bytes(regs[insn.vs2 + i // PER][NB * (i % PER):NB * (i % PER) + NB], "little"))
        if v > best:
            best = v
    if signed(int.from_bytes(regs[insn.vs1][NB * 0:NB * 0 + NB], "little")) > best:
        best = signed(int.from_bytes(regs[insn.vs1][NB * 0:NB * 0 + NB], "little"))
    result = (best % (1 << W)) & MASK
    vd_bytes = bytearray(regs[insn.vd])
    vd_bytes[0:NB] = result.to_bytes(NB, "little")
    if tail == "ones" and (pre.vtype >> 6) & 1:
        vd_bytes[NB:] = b"\xff" * (VLENB - NB)
    regs[insn.vd] = vd_bytes
    post_regs = tuple(int.from_bytes(r, "little") for r in regs)
    return traps, pre.with_(regs=post_regs, vstart=0, vs=3)
