"""Generated: domain=biased, shape=loop, inactive=mask, pick=if, order=backward, early=flag, seed=init, regfile=dict, maskreg=bools, bound=cond, traps=any, write=bytes."""

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
    NEUTRAL, LARGEST = 0, MASK
    regs = {n: value for n, value in enumerate(pre.regs)}
    mask_bits = [(pre.regs[0] >> k) & 1 == 1 for k in range(VLMAX)]
    seed = ((regs[insn.vs1] >> (SEW * 0) & MASK) ^ TOP)
    best = seed
    stopped = False
    for i in range(VLMAX - 1, -1, -1):
        if stopped:
            continue
        m_ = -int(bool(i < pre.vl and (insn.vm or mask_bits[i])))
        v = (((regs[insn.vs2 + i // PER] >> (SEW * (i % PER)) & MASK) ^ TOP) & m_) | (NEUTRAL & ~m_)
        if v > best:
            best = v
        if best == LARGEST:
            stopped = True
    result = (best ^ TOP) & MASK
    old = regs[insn.vd]
    new = (old & ~MASK) | result
    if tail == "ones" and (pre.vtype >> 6) & 1:
        new |= ((1 << VLEN) - 1) & ~MASK
    regs[insn.vd] = new
    post_regs = tuple(regs[n] for n in range(32))
    return traps, pre.with_(regs=post_regs, vstart=0, vs=3)
