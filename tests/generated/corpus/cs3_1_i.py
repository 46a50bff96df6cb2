"""Generated: domain=raw, greater=signbits, shape=loop, inactive=skip, pick=ternary, order=stride, early=break, seed=last, regfile=list, maskreg=shift, bound=cond, traps=any, write=int."""

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
        sa, sb = a >> (W - 1) & 1, b >> (W - 1) & 1
        if sa != sb:
            return sb == 1
        return a > b
    NEUTRAL, LARGEST = TOP, TOP - 1
    regs = list(pre.regs)
    v0 = pre.regs[0]
    best = NEUTRAL
    for i in [*range(0, VLMAX, 2), *range(1, VLMAX, 2)]:
        if best == LARGEST:
            break
        if not (i < pre.vl and (insn.vm or (v0 >> i) & 1)):
            continue
        v = (regs[insn.vs2 + i // PER] >> (SEW * (i % PER)) & MASK)
        best = v if greater(v, best) else best
    best = (regs[insn.vs1] >> (SEW * 0) & MASK) if greater((regs[insn.vs1] >> (SEW * 0) & MASK), best) else best
    result = (best) & MASK
    old = regs[insn.vd]
    new = (old & ~MASK) | result
    if tail == "ones" and (pre.vtype >> 6) & 1:
        new |= ((1 << VLEN) - 1) & ~MASK
    regs[insn.vd] = new
    post_regs = tuple(regs)
    return traps, pre.with_(regs=post_regs, vstart=0, vs=3)
