"""Generated: domain=signed, conv=arith, neutral=converted, back=modulo, shape=network, inactive=neutral, pick=branchless, network=sorted_chunks, exchange=minmax, seed=leaf, regfile=bytes, maskreg=bools, bound=cond, traps=loop, write=bytes, store=bytes, signed_read=True."""

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

    def exchange(vals, p, q):
        """The smaller to p, the greater to q."""
        vals[p], vals[q] = min(vals[p], vals[q]), max(vals[p], vals[q])
    NEUTRAL, LARGEST = signed(TOP), TOP - 1
    regs = [r.to_bytes(VLENB, "little") for r in pre.regs]
    mask_bits = [(pre.regs[0] >> k) & 1 == 1 for k in range(VLMAX)]
    seed = int.from_bytes(regs[insn.vs1][NB * 0:NB * 0 + NB], "little", signed=True)
    vals = [seed] + [int.from_bytes(regs[insn.vs2 + i // PER][NB * (i % PER):NB * (i % PER) + NB], "little", signed=True) if i < pre.vl and (insn.vm or mask_bits[i]) else NEUTRAL for i in range(VLMAX)]
    tops = []
    for base in range(0, len(vals), 4):
        chunk = vals[base:base + 4]
        for rnd in range(len(chunk)):
            for p in range(rnd % 2, len(chunk) - 1, 2):
                exchange(chunk, p, p + 1)
        tops.append(chunk[-1])
    best = tops[0]
    for t in tops[1:]:
        c = -int(t > best)
        best = (t & c) | (best & ~c)
    result = (best % (1 << W)) & MASK
    vd_bytes = bytearray(regs[insn.vd])
    vd_bytes[0:NB] = result.to_bytes(NB, "little")
    if tail == "ones" and (pre.vtype >> 6) & 1:
        vd_bytes[NB:] = b"\xff" * (VLENB - NB)
    regs[insn.vd] = bytes(vd_bytes)
    post_regs = tuple(int.from_bytes(r, "little") for r in regs)
    return traps, pre.with_(regs=post_regs, vstart=0, vs=3)
