"""Generated: domain=signed, conv=bytes, neutral=shift, back=add, shape=chunks, inactive=neutral, pick=ternary, chunk=16, seed=last, regfile=class, maskreg=bytes, bound=cond, traps=any, write=bytes; bug: vl0_writes."""

from vredmax.spec.legality import trap_conditions

class VectorRegisters:
    """The register file of an emulator: VLEN-bit ints, read an element at a time."""

    def __init__(self, regs, sew, vlen):
        self.regs, self.sew, self.per = list(regs), sew, vlen // sew

    def element(self, group, i):
        return (self.regs[group + i // self.per] >> (self.sew * (i % self.per))) & ((1 << self.sew) - 1)


def step(m, pre, insn, cfg, tail):
    traps = trap_conditions(m, pre, insn, m.bit(pre.vtype, 63), cfg.lmul)
    if any(fired for _, fired in traps):
        return traps, pre
    SEW, VLEN, VLMAX = cfg.sew, cfg.vlen, cfg.vlmax
    PER, NB, VLENB = VLEN // SEW, SEW // 8, VLEN // 8
    W = cfg.sew
    MASK, TOP = (1 << W) - 1, 1 << (W - 1)
    def signed(x):
        return int.from_bytes(x.to_bytes(W // 8, "little"), "little", signed=True)
    NEUTRAL, LARGEST = -(1 << (W - 1)), TOP - 1
    regs = VectorRegisters(pre.regs, SEW, VLEN)
    mask_bytes = pre.regs[0].to_bytes(VLENB, "little")
    CHUNK = 16
    best = NEUTRAL
    for base in range(0, VLMAX, CHUNK):
        part = NEUTRAL
        for i in range(base, min(base + CHUNK, VLMAX)):
            v = signed(regs.element(insn.vs2, i)) if i < pre.vl and (insn.vm or mask_bytes[i // 8] >> (i % 8) & 1) else NEUTRAL
            part = v if v > part else part
        best = part if part > best else best
    best = signed(regs.element(insn.vs1, 0)) if signed(regs.element(insn.vs1, 0)) > best else best
    result = (best + (1 << W) if best < 0 else best) & MASK
    old = regs.regs[insn.vd]
    new = (old & ~MASK) | result
    if tail == "ones" and (pre.vtype >> 6) & 1:
        new |= ((1 << VLEN) - 1) & ~MASK
    regs.regs[insn.vd] = new
    post_regs = tuple(regs.regs)
    return traps, pre.with_(regs=post_regs, vstart=0, vs=3)
