"""Generated: domain=signed, conv=ternary, neutral=converted, back=modulo, shape=tree, inactive=neutral, pick=max, tree=carry_odd, seed=last, regfile=bytearray, maskreg=bytes, bound=cond, traps=loop, write=int, signed_read=False; bug: lane_width."""

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
        return x - (1 << W) if x >> (W - 2) & 1 else x
    NEUTRAL, LARGEST = signed(TOP), TOP - 1
    regs = [bytearray(r.to_bytes(VLENB, "little")) for r in pre.regs]
    mask_bytes = pre.regs[0].to_bytes(VLENB, "little")
    vals = [signed(int.from_bytes(regs[insn.vs2 + i // PER][NB * (i % PER):NB * (i % PER) + NB], "little")) if i < pre.vl and (insn.vm or mask_bytes[i // 8] >> (i % 8) & 1) else NEUTRAL for i in range(VLMAX)]
    while len(vals) > 1:
        nxt = [max(vals[j], vals[j + 1]) for j in range(0, len(vals) - 1, 2)]
        if len(vals) % 2:
            nxt.append(vals[-1])
        vals = nxt
    best = vals[0]
    best = max(best, signed(int.from_bytes(regs[insn.vs1][NB * 0:NB * 0 + NB], "little")))
    result = (best % (1 << W)) & MASK
    vd_bytes = bytearray(regs[insn.vd])
    vd_bytes[0:NB] = result.to_bytes(NB, "little")
    if tail == "ones" and (pre.vtype >> 6) & 1:
        vd_bytes[NB:] = b"\xff" * (VLENB - NB)
    regs[insn.vd] = vd_bytes
    post_regs = tuple(int.from_bytes(r, "little") for r in regs)
    return traps, pre.with_(regs=post_regs, vstart=0, vs=3)
