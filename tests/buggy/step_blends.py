"""Whole-instruction steps that blend each element with the neutral element by arithmetic: the
active flag as an int `on` (0 or 1), `x * on + MIN * (1 - on)`, or as a mask `-on`,
`x & -on | MIN & (on - 1)`, or on the register before the lane is read
(tests/test_check_impl_blend.py). The `_wrong` ones are mutants
a concrete case refutes."""

from vredmax.spec.legality import trap_conditions


def _flag(pre, insn, i):
    return 1 if i < pre.vl and (insn.vm or (pre.regs[0] >> i) & 1) else 0


def _bits(pre, insn, i):  # the flag from the bits themselves: vm, v0's bit i, vl
    return int(i < pre.vl) * ((insn.vm | (pre.regs[0] >> i)) & 1)


def _bits_ignoring_vl(pre, insn, i):
    return (insn.vm | (pre.regs[0] >> i)) & 1


def _mul(x, on, neutral):
    return x * on + neutral * (1 - on)


def _and_mask(x, on, neutral):
    return (x & -on) | (neutral & (on - 1))


def _mul_neutral_zero(x, on, neutral):
    return x * on


def _mul_inverted(x, on, neutral):
    return x * (1 - on) + neutral * on


def _and_mask_wrong_neutral(x, on, neutral):
    return (x & -on) | (neutral & on)


def _reduce(m, pre, insn, cfg, tail, flag, blend):
    traps = trap_conditions(m, pre, insn, m.bit(pre.vtype, 63), cfg.lmul)
    if any(fired for _, fired in traps):
        return traps, pre
    if pre.vl == 0:
        return traps, pre
    sew, per = cfg.sew, cfg.vlen // cfg.sew
    mask, top = (1 << sew) - 1, 1 << (sew - 1)

    def signed(x):
        return x - ((x >> (sew - 1)) << sew)

    regs = list(pre.regs)
    best = -top
    for i in range(cfg.vlmax):
        x = signed((regs[insn.vs2 + i // per] >> (sew * (i % per))) & mask)
        v = blend(x, flag(pre, insn, i), -top)
        best = v if v > best else best
    seed = signed(regs[insn.vs1] & mask)
    best = seed if seed > best else best
    new = (regs[insn.vd] & ~mask) | (best & mask)
    if tail == "ones" and (pre.vtype >> 6) & 1:
        new |= ((1 << cfg.vlen) - 1) & ~mask
    regs[insn.vd] = new
    return traps, pre.with_(regs=tuple(regs), vstart=0, vs=3)


def step_mul(m, pre, insn, cfg, tail):
    return _reduce(m, pre, insn, cfg, tail, _flag, _mul)


def step_and_mask(m, pre, insn, cfg, tail):
    return _reduce(m, pre, insn, cfg, tail, _flag, _and_mask)


def step_mul_of_bits(m, pre, insn, cfg, tail):
    return _reduce(m, pre, insn, cfg, tail, _bits, _mul)


def step_mul_neutral_zero_wrong(m, pre, insn, cfg, tail):
    return _reduce(m, pre, insn, cfg, tail, _flag, _mul_neutral_zero)


def step_mul_inverted_wrong(m, pre, insn, cfg, tail):
    return _reduce(m, pre, insn, cfg, tail, _flag, _mul_inverted)


def step_and_mask_wrong_neutral_wrong(m, pre, insn, cfg, tail):
    return _reduce(m, pre, insn, cfg, tail, _flag, _and_mask_wrong_neutral)


def step_mul_of_bits_ignoring_vl_wrong(m, pre, insn, cfg, tail):
    return _reduce(m, pre, insn, cfg, tail, _bits_ignoring_vl, _mul)


def _lane_of_register(reg, shift, on, fill, mask):
    """The lane's bits kept by an and-mask over the whole register, its other bits `fill`: the
    blend done on the register by the machine ops, before the lane is taken out."""
    keep = (-on & mask) << shift
    return (((reg & keep) | ((fill << shift) & ~keep & (mask << shift))) >> shift) & mask


def _reduce_blended_registers(m, pre, insn, cfg, tail, fill):
    traps = trap_conditions(m, pre, insn, m.bit(pre.vtype, 63), cfg.lmul)
    if any(fired for _, fired in traps) or pre.vl == 0:
        return traps, pre
    sew, per = cfg.sew, cfg.vlen // cfg.sew
    mask, top = (1 << sew) - 1, 1 << (sew - 1)
    regs = list(pre.regs)
    best = regs[insn.vs1] & mask
    best -= (best >> (sew - 1)) << sew
    for i in range(cfg.vlmax):
        x = _lane_of_register(
            regs[insn.vs2 + i // per], sew * (i % per), _flag(pre, insn, i), fill(top), mask
        )
        x -= (x >> (sew - 1)) << sew
        best = x if x > best else best
    regs[insn.vd] = (regs[insn.vd] & ~mask) | (best & mask)
    if tail == "ones" and (pre.vtype >> 6) & 1:
        regs[insn.vd] |= ((1 << cfg.vlen) - 1) & ~mask
    return traps, pre.with_(regs=tuple(regs), vstart=0, vs=3)


def step_blended_in_the_register(m, pre, insn, cfg, tail):
    """Each inactive lane made the minimum's bits in the register, then read as an element."""
    return _reduce_blended_registers(m, pre, insn, cfg, tail, lambda top: top)


def step_blended_in_the_register_zero_wrong(m, pre, insn, cfg, tail):
    """The same with inactive lanes made 0."""
    return _reduce_blended_registers(m, pre, insn, cfg, tail, lambda top: 0)
