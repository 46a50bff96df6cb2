"""Whole-instruction implementations of vredmax.vs with the bugs people write.

Each is `step(m, pre, insn, cfg, tail) -> (traps, post)`, the instruction plug-in level of
`vredmax check-impl`, written as a user would: against the machine ops `m` of spec/bv.py,
reusing the project's trap rules and the sequential fold, with the bug in the part the user
wrote. Every one must be caught (tests/test_check_impl_quality.py).
"""

from vredmax.impl.sequential import reduce_sequential
from vredmax.spec.config import VTYPE_VILL_BIT, VTYPE_VTA_BIT, XLEN
from vredmax.spec.legality import trap_conditions
from vredmax.spec.state import VS_DIRTY


# The user's helpers ---------------------------------------------------------------------


def traps_of(m, pre, insn, cfg):
    return trap_conditions(m, pre, insn, m.bit(pre.vtype, VTYPE_VILL_BIT), cfg.lmul)


def group_elements(m, regs, insn, cfg, registers=None):
    """The vs2 group's elements, register by register."""
    elements, count = [], cfg.vlmax
    for k in range(registers or cfg.group_registers):
        register = m.read(regs, m.add(insn.vs2, k, 5))
        elements += m.split(register, cfg.sew, min(cfg.elements_per_register, count - len(elements)))
    return elements


def active_flags(m, pre, insn, cfg, count=None):
    mask = m.bits(m.read(pre.regs, 0), cfg.vlmax)
    return [
        m.all_(m.ult(m.const(i, XLEN), pre.vl), m.any_(m.eq(insn.vm, 1), mask[i]))
        for i in range(count or cfg.vlmax)
    ]


def seed_of(m, regs, insn, cfg):
    return m.extract(m.read(regs, insn.vs1), cfg.sew - 1, 0)


def with_result(m, old_vd, result, pre, cfg, tail):
    """vd with element 0 replaced; the tail kept, or all ones when agnostic and asked to."""
    if cfg.vlen == cfg.sew:
        return result
    kept = m.concat(m.extract(old_vd, cfg.vlen - 1, cfg.sew), result, cfg.sew)
    if tail != "ones":
        return kept
    ones = m.concat(m.const((1 << (cfg.vlen - cfg.sew)) - 1, cfg.vlen - cfg.sew), result, cfg.sew)
    return m.ite(m.bit(pre.vtype, VTYPE_VTA_BIT), ones, kept)


def finish(m, pre, insn, traps, new_vd, skip):
    """Write vd unless a trap fired or `skip` holds; vstart=0 and VS dirty after a write."""
    trapped = m.any_(*(cond for _, cond in traps))
    keep = m.any_(trapped, skip)
    written = m.write(pre.regs, insn.vd, new_vd)
    post = pre.with_(
        regs=m.ite(keep, pre.regs, written),
        vstart=m.ite(keep, pre.vstart, m.const(0, XLEN)),
        vs=m.ite(keep, pre.vs, m.const(VS_DIRTY, 2)),
    )
    return traps, post


def reduce_with(m, pre, insn, cfg, tail, elements, active, traps=None):
    ops = m.elements(cfg.sew)
    result = reduce_sequential(ops, seed_of(m, pre.regs, insn, cfg), elements, active)
    new_vd = with_result(m, m.read(pre.regs, insn.vd), result, pre, cfg, tail)
    return finish(
        m, pre, insn, traps if traps is not None else traps_of(m, pre, insn, cfg), new_vd, m.eq(pre.vl, 0)
    )


# The buggy instructions -------------------------------------------------------------------


def vl_inclusive(m, pre, insn, cfg, tail):
    """Loops `for i in range(VLMAX) if i <= vl`: one element too many."""
    mask = m.bits(m.read(pre.regs, 0), cfg.vlmax)
    active = [
        m.all_(m.not_(m.ult(pre.vl, m.const(i, XLEN))), m.any_(m.eq(insn.vm, 1), mask[i]))
        for i in range(cfg.vlmax)
    ]
    return reduce_with(m, pre, insn, cfg, tail, group_elements(m, pre.regs, insn, cfg), active)


def mask_inverted(m, pre, insn, cfg, tail):
    """Takes the elements whose mask bit is clear."""
    mask = m.bits(m.read(pre.regs, 0), cfg.vlmax)
    active = [
        m.all_(m.ult(m.const(i, XLEN), pre.vl), m.any_(m.eq(insn.vm, 1), m.not_(mask[i])))
        for i in range(cfg.vlmax)
    ]
    return reduce_with(m, pre, insn, cfg, tail, group_elements(m, pre.regs, insn, cfg), active)


def vd_written_before_vs2_read(m, pre, insn, cfg, tail):
    """Keeps the accumulator in vd[0]: writes the seed there first, then reads vs2."""
    old_vd = m.read(pre.regs, insn.vd)
    seed = seed_of(m, pre.regs, insn, cfg)
    regs = m.write(pre.regs, insn.vd, with_result(m, old_vd, seed, pre, cfg, "undisturbed"))
    active = active_flags(m, pre, insn, cfg)
    result = reduce_sequential(m.elements(cfg.sew), seed, group_elements(m, regs, insn, cfg), active)
    new_vd = with_result(m, old_vd, result, pre, cfg, tail)
    return finish(m, pre, insn, traps_of(m, pre, insn, cfg), new_vd, m.eq(pre.vl, 0))


def result_broadcast(m, pre, insn, cfg, tail):
    """Writes the result to every element of vd, as an element-wise instruction would."""
    ops = m.elements(cfg.sew)
    result = reduce_sequential(
        ops,
        seed_of(m, pre.regs, insn, cfg),
        group_elements(m, pre.regs, insn, cfg),
        active_flags(m, pre, insn, cfg),
    )
    new_vd = result
    for _ in range(cfg.elements_per_register - 1):
        new_vd = m.concat(new_vd, result, cfg.sew)
    return finish(m, pre, insn, traps_of(m, pre, insn, cfg), new_vd, m.eq(pre.vl, 0))


def vl0_writes_seed(m, pre, insn, cfg, tail):
    """With vl = 0 the loop runs no iteration and the seed is written (QEMU 9.0's bug)."""
    ops = m.elements(cfg.sew)
    result = reduce_sequential(
        ops,
        seed_of(m, pre.regs, insn, cfg),
        group_elements(m, pre.regs, insn, cfg),
        active_flags(m, pre, insn, cfg),
    )
    new_vd = with_result(m, m.read(pre.regs, insn.vd), result, pre, cfg, tail)
    return finish(m, pre, insn, traps_of(m, pre, insn, cfg), new_vd, m.false)


def vstart_ignored(m, pre, insn, cfg, tail):
    """Checks VS, vill and the reserved encodings, but not vstart."""
    traps = [(rule, cond) for rule, cond in traps_of(m, pre, insn, cfg) if rule.id != "vstart_nonzero"]
    return reduce_with(
        m,
        pre,
        insn,
        cfg,
        tail,
        group_elements(m, pre.regs, insn, cfg),
        active_flags(m, pre, insn, cfg),
        traps,
    )


def lmul_first_register_only(m, pre, insn, cfg, tail):
    """Reads only register vs2 of the group, as if LMUL were 1."""
    per_register = min(cfg.vlmax, cfg.elements_per_register)
    elements = m.split(m.read(pre.regs, insn.vs2), cfg.sew, per_register)
    return reduce_with(m, pre, insn, cfg, tail, elements, active_flags(m, pre, insn, cfg, per_register))


def agnostic_tail_at_vl0(m, pre, insn, cfg, tail):
    """Sets an agnostic tail to all ones even when vl = 0 (QEMU after its 2025 fix)."""
    traps, post = reduce_with(
        m, pre, insn, cfg, tail, group_elements(m, pre.regs, insn, cfg), active_flags(m, pre, insn, cfg)
    )
    if tail != "ones" or cfg.vlen == cfg.sew:
        return traps, post
    old_vd = m.read(pre.regs, insn.vd)
    ones = m.concat(
        m.const((1 << (cfg.vlen - cfg.sew)) - 1, cfg.vlen - cfg.sew),
        m.extract(old_vd, cfg.sew - 1, 0),
        cfg.sew,
    )
    trapped = m.any_(*(cond for _, cond in traps))
    at_vl0 = m.all_(m.not_(trapped), m.eq(pre.vl, 0), m.bit(pre.vtype, VTYPE_VTA_BIT))
    return traps, post.with_(regs=m.ite(at_vl0, m.write(pre.regs, insn.vd, ones), post.regs))


BUGGY_INSTRUCTIONS = (
    vl_inclusive,
    mask_inverted,
    vd_written_before_vs2_read,
    result_broadcast,
    vl0_writes_seed,
    vstart_ignored,
    lmul_first_register_only,
    agnostic_tail_at_vl0,
)
