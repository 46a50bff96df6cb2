"""Unusual but correct reduction units and one whole instruction: comparator idioms, odd lane
counts, reverse order, the seed as a tree leaf, a sign flip before an unsigned compare. Each
must be PROVED (tests/test_check_impl_quality.py); `.where` is where each is checked in the
fast tests (the slow ones check them across the configuration space).
"""

from vredmax.impl.execute import operands, written_vd
from vredmax.spec.config import VTYPE_VILL_BIT, VTYPE_VTA_BIT, XLEN
from vredmax.spec.legality import trap_conditions
from vredmax.spec.state import VS_DIRTY
from tests.buggy.scale_units import lives_at


@lives_at(128, 64, "m2")
def compare_select(ops, seed, elements, active):
    """`ite(sgt(x, acc), x, acc)` under the active flag, as RTL writes max."""
    acc = seed
    for x, a in zip(elements, active):
        acc = ops.ite(a, ops.ite(ops.sgt(x, acc), x, acc), acc)
    return acc


@lives_at(128, 64, "m2")
def guarded_compare_select(ops, seed, elements, active):
    """`ite(and_(a, sgt(x, acc)), x, acc)`: the flag folded into the select."""
    acc = seed
    for x, a in zip(elements, active):
        acc = ops.ite(ops.and_(a, ops.sgt(x, acc)), x, acc)
    return acc


@lives_at(128, 32, "m1")
def less_than_select(ops, seed, elements, active):
    """`ite(and_(a, slt(acc, x)), x, acc)`."""
    acc = seed
    for x, a in zip(elements, active):
        acc = ops.ite(ops.and_(a, ops.slt(acc, x)), x, acc)
    return acc


@lives_at(128, 32, "m1")
def non_strict_select(ops, seed, elements, active):
    """`ite(and_(a, sge(x, acc)), x, acc)`: ties take x, which equals acc then."""
    acc = seed
    for x, a in zip(elements, active):
        acc = ops.ite(ops.and_(a, ops.sge(x, acc)), x, acc)
    return acc


@lives_at(128, 32, "m1")
def reverse_order(ops, seed, elements, active):
    """From the last element to the first, keeping the accumulator when inactive (not_)."""
    acc = seed
    for x, a in reversed(list(zip(elements, active))):
        acc = ops.ite(ops.not_(a), acc, ops.smax(x, acc))
    return acc


@lives_at(128, 64, "m1")
def seed_as_tree_leaf(ops, seed, elements, active):
    """The seed is leaf 0 of the tree; an odd node out moves up a level unchanged."""
    level = [seed] + [ops.ite(a, x, ops.smin()) for x, a in zip(elements, active)]
    while len(level) > 1:
        paired = [ops.smax(level[i], level[i + 1]) for i in range(0, len(level) - 1, 2)]
        level = paired + level[len(paired) * 2 :]
    return level[0]


@lives_at(128, 16, "m1")
def three_lanes(ops, seed, elements, active):
    """Three lanes (an odd count that does not divide VLMAX), joined in a chain."""
    lanes = [ops.smin()] * min(3, len(elements))
    for i, (x, a) in enumerate(zip(elements, active)):
        lanes[i % 3] = ops.ite(a, ops.smax(lanes[i % 3], x), lanes[i % 3])
    result = seed
    for lane in lanes:
        result = ops.smax(lane, result)
    return result


@lives_at(128, 32, "m1")
def sign_flip_unsigned(ops, seed, elements, active):
    """Flip the sign bits (xor with the signed minimum) and compare unsigned."""
    acc, flip = seed, ops.smin()
    for x, a in zip(elements, active):
        acc = ops.ite(ops.and_(a, ops.ugt(ops.xor(x, flip), ops.xor(acc, flip))), x, acc)
    return acc


@lives_at(128, 64, "m1")
def pairs_then_fold(ops, seed, elements, active):
    """Masked pairs pre-reduced with a comparator, then a sequential fold of the pairs."""
    smin = ops.smin()
    acc = seed
    for i in range(0, len(elements), 2):
        x = ops.ite(active[i], elements[i], smin)
        if i + 1 < len(elements):
            y = ops.ite(active[i + 1], elements[i + 1], smin)
            x = ops.ite(ops.slt(x, y), y, x)
        acc = ops.smax(acc, x)
    return acc


@lives_at(128, 32, "m1")
def seed_last_five_lanes(ops, seed, elements, active):
    """Five lanes in reverse, the seed joined last with a non-strict compare."""
    lanes = [ops.smin() for _ in range(min(5, len(elements)))]
    for i in reversed(range(len(elements))):
        lanes[i % 5] = ops.ite(active[i], ops.smax(elements[i], lanes[i % 5]), lanes[i % 5])
    result = lanes[0] if lanes else ops.smin()
    for lane in lanes[1:]:
        result = ops.smax(result, lane)
    return ops.ite(ops.sge(seed, result), seed, result)


@lives_at(1024, 8, "m8")
def negated_accumulator(ops, seed, elements, active):
    """Keeps the complement of the maximum: the minimum of the complemented values (each
    intermediate is a maximum xor all ones; the cut points need that encoding)."""
    low = ops.bnot(seed)
    for x, a in zip(elements, active):
        flipped = ops.bnot(x)
        low = ops.ite(ops.and_(a, ops.slt(flipped, low)), flipped, low)
    return ops.bnot(low)


@lives_at(1024, 8, "m8")
def mask_as_value(ops, seed, elements, active):
    """The flag as a value 0 or -1, the element kept by `x & m | smin & ~m` (a cut at the
    mask or at `x & m` forgets that they are 0 or -1, x or 0: the cone is cut deeper)."""
    ones, zero, smin = ops.const(-1), ops.const(0), ops.smin()
    acc = seed
    for x, a in zip(elements, active):
        mask = ops.ite(a, ones, zero)
        acc = ops.smax(acc, ops.bor(ops.band(x, mask), ops.band(smin, ops.bnot(mask))))
    return acc


@lives_at(128, 8, "m2")
def step_unmasked_when_v0_is_a_source(m, pre, insn, cfg, tail):
    """Reports the reserved encodings, and reduces as if unmasked when v0 is also a source
    (reserved: anything is allowed), so its flags differ from the spec's only there."""
    traps = trap_conditions(m, pre, insn, m.bit(pre.vtype, VTYPE_VILL_BIT), cfg.lmul)
    nothing = m.any_(m.eq(pre.vl, 0), *(cond for _, cond in traps))
    seed, elements, _ = operands(m, pre, insn, cfg)
    v0_source = m.any_(m.eq(insn.vs1, 0), m.eq(insn.vs2, 0))
    mask = m.bits(m.read(pre.regs, 0), cfg.vlmax)
    active = [
        m.all_(m.ult(m.const(i, XLEN), pre.vl), m.any_(m.eq(insn.vm, 1), v0_source, mask[i]))
        for i in range(cfg.vlmax)
    ]
    ops = m.elements(cfg.sew)
    result = seed
    for x, a in zip(elements, active):
        result = ops.ite(a, ops.smax(result, x), result)
    vd = written_vd(m, m.read(pre.regs, insn.vd), result, m.bit(pre.vtype, VTYPE_VTA_BIT), cfg, tail)
    return traps, pre.with_(
        regs=m.ite(nothing, pre.regs, m.write(pre.regs, insn.vd, vd)),
        vstart=m.ite(nothing, pre.vstart, m.const(0, XLEN)),
        vs=m.ite(nothing, pre.vs, m.const(VS_DIRTY, 2)),
    )


@lives_at(128, 8, "m4")
def step_two_loops_by_vm(m, pre, insn, cfg, tail):
    """An emulator's two loops, one unmasked and one masked, the written vd chosen by vm (two
    reductions reach the machine ops: each is cut apart)."""
    traps = trap_conditions(m, pre, insn, m.bit(pre.vtype, VTYPE_VILL_BIT), cfg.lmul)
    nothing = m.any_(m.eq(pre.vl, 0), *(cond for _, cond in traps))
    seed, elements, _ = operands(m, pre, insn, cfg)
    ops = m.elements(cfg.sew)
    mask = m.bits(m.read(pre.regs, 0), cfg.vlmax)
    unmasked, masked = seed, seed
    for i, x in enumerate(elements):
        in_vl = m.ult(m.const(i, XLEN), pre.vl)
        unmasked = ops.ite(in_vl, ops.smax(unmasked, x), unmasked)
        masked = ops.ite(m.all_(in_vl, mask[i]), ops.smax(masked, x), masked)
    old, vta = m.read(pre.regs, insn.vd), m.bit(pre.vtype, VTYPE_VTA_BIT)
    vd = m.ite(
        m.eq(insn.vm, 1),
        written_vd(m, old, unmasked, vta, cfg, tail),
        written_vd(m, old, masked, vta, cfg, tail),
    )
    return traps, pre.with_(
        regs=m.ite(nothing, pre.regs, m.write(pre.regs, insn.vd, vd)),
        vstart=m.ite(nothing, pre.vstart, m.const(0, XLEN)),
        vs=m.ite(nothing, pre.vs, m.const(VS_DIRTY, 2)),
    )


@lives_at(128, 64, "m2")
def step_rebuilding_vd(m, pre, insn, cfg, tail):
    """A whole instruction that checks VS first and rebuilds vd element by element."""
    traps = trap_conditions(m, pre, insn, m.bit(pre.vtype, VTYPE_VILL_BIT), cfg.lmul)
    nothing = m.any_(m.eq(pre.vl, 0), *(cond for _, cond in traps))
    seed, elements, active = operands(m, pre, insn, cfg)
    ops = m.elements(cfg.sew)
    result = seed
    for x, a in zip(elements, active):
        result = ops.ite(ops.and_(a, ops.sgt(x, result)), x, result)
    vd = written_vd(m, m.read(pre.regs, insn.vd), result, m.bit(pre.vtype, VTYPE_VTA_BIT), cfg, tail)
    return traps, pre.with_(
        regs=m.ite(nothing, pre.regs, m.write(pre.regs, insn.vd, vd)),
        vstart=m.ite(nothing, pre.vstart, m.const(0, XLEN)),
        vs=m.ite(nothing, pre.vs, m.const(VS_DIRTY, 2)),
    )


CORRECT_UNITS = (
    compare_select,
    guarded_compare_select,
    less_than_select,
    non_strict_select,
    reverse_order,
    seed_as_tree_leaf,
    three_lanes,
    sign_flip_unsigned,
    pairs_then_fold,
    seed_last_five_lanes,
    negated_accumulator,
    mask_as_value,
)
CORRECT_INSTRUCTIONS = (step_rebuilding_vd, step_unmasked_when_v0_is_a_source, step_two_loops_by_vm)
