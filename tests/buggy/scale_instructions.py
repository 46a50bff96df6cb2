"""More whole-instruction implementations with bugs: in the tail, behind an overlap, at a
fractional LMUL, in the trap kind, in the CSRs. Each carries `.where` (the configuration where
its bug shows) and must be a COUNTEREXAMPLE there (tests/test_check_impl_quality.py).
"""

from vredmax.impl.sequential import reduce_sequential
from vredmax.spec.config import VTYPE_VTA_BIT, XLEN
from vredmax.spec.legality import RESERVED, TrapRule
from vredmax.spec.state import VS_DIRTY
from tests.buggy.instructions import (
    active_flags,
    finish,
    group_elements,
    reduce_with,
    seed_of,
    traps_of,
    with_result,
)
from tests.buggy.scale_units import lives_at


@lives_at(128, 64, "m1")
def seed_read_after_partial_write(m, pre, insn, cfg, tail):
    """Writes the elements' maximum into vd first, then reads the seed: wrong when vd = vs1."""
    ops = m.elements(cfg.sew)
    partial = reduce_sequential(
        ops, ops.smin(), group_elements(m, pre.regs, insn, cfg), active_flags(m, pre, insn, cfg)
    )
    old_vd = m.read(pre.regs, insn.vd)
    regs = m.write(pre.regs, insn.vd, with_result(m, old_vd, partial, pre, cfg, "undisturbed"))
    result = ops.smax(seed_of(m, regs, insn, cfg), partial)
    return finish(
        m,
        pre,
        insn,
        traps_of(m, pre, insn, cfg),
        with_result(m, old_vd, result, pre, cfg, tail),
        m.eq(pre.vl, 0),
    )


@lives_at(128, 64, "m1")
def tail_ones_whatever_vta(m, pre, insn, cfg, tail):
    """Writes an all-ones tail under the "ones" policy even when vta = 0 (undisturbed)."""
    traps, post = reduce_with(
        m, pre, insn, cfg, tail, group_elements(m, pre.regs, insn, cfg), active_flags(m, pre, insn, cfg)
    )
    if tail != "ones":
        return traps, post
    ops = m.elements(cfg.sew)
    result = reduce_sequential(
        ops,
        seed_of(m, pre.regs, insn, cfg),
        group_elements(m, pre.regs, insn, cfg),
        active_flags(m, pre, insn, cfg),
    )
    vd = m.concat(m.const((1 << (cfg.vlen - cfg.sew)) - 1, cfg.vlen - cfg.sew), result, cfg.sew)
    return finish(m, pre, insn, traps, vd, m.eq(pre.vl, 0))


@lives_at(128, 64, "m1")
def agnostic_tail_zeroed(m, pre, insn, cfg, tail):
    """Clears an agnostic tail (vta = 1) to zeros: neither old values nor all ones."""
    ops = m.elements(cfg.sew)
    result = reduce_sequential(
        ops,
        seed_of(m, pre.regs, insn, cfg),
        group_elements(m, pre.regs, insn, cfg),
        active_flags(m, pre, insn, cfg),
    )
    old_vd = m.read(pre.regs, insn.vd)
    kept = with_result(m, old_vd, result, pre, cfg, "undisturbed")
    zeroed = m.concat(m.const(0, cfg.vlen - cfg.sew), result, cfg.sew)
    vd = m.ite(m.bit(pre.vtype, VTYPE_VTA_BIT), zeroed, kept)
    return finish(m, pre, insn, traps_of(m, pre, insn, cfg), vd, m.eq(pre.vl, 0))


@lives_at(128, 64, "m1")
def vs_left_clean(m, pre, insn, cfg, tail):
    """Writes vd but leaves mstatus.VS as it was (Initial or Clean must become Dirty)."""
    traps, post = reduce_with(
        m, pre, insn, cfg, tail, group_elements(m, pre.regs, insn, cfg), active_flags(m, pre, insn, cfg)
    )
    return traps, post.with_(vs=pre.vs)


@lives_at(128, 64, "m1")
def vl_set_to_active_count(m, pre, insn, cfg, tail):
    """Reports the number of active elements in vl, like a vcpop, after writing."""
    active = active_flags(m, pre, insn, cfg)
    traps, post = reduce_with(m, pre, insn, cfg, tail, group_elements(m, pre.regs, insn, cfg), active)
    count = m.const(0, XLEN)
    for a in active:
        count = m.ite(a, m.add(count, m.const(1, XLEN), XLEN), count)
    trapped = m.any_(*(cond for _, cond in traps))
    return traps, post.with_(vl=m.ite(m.any_(trapped, m.eq(pre.vl, 0)), pre.vl, count))


@lives_at(128, 64, "m1")
def vill_not_checked(m, pre, insn, cfg, tail):
    """Checks VS, vstart and the reserved encodings but not vill (with vl = 0 it retires)."""
    traps = [(rule, cond) for rule, cond in traps_of(m, pre, insn, cfg) if rule.id != "vill"]
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


@lives_at(128, 64, "m1")
def mask_bit_off_by_one(m, pre, insn, cfg, tail):
    """Reads the mask bit of element i from bit i + 1 of v0."""
    mask = m.bits(m.read(pre.regs, 0), cfg.vlmax + 1)
    active = [
        m.all_(m.ult(m.const(i, XLEN), pre.vl), m.any_(m.eq(insn.vm, 1), mask[i + 1]))
        for i in range(cfg.vlmax)
    ]
    return reduce_with(m, pre, insn, cfg, tail, group_elements(m, pre.regs, insn, cfg), active)


@lives_at(128, 64, "m2")
def last_group_register_skipped(m, pre, insn, cfg, tail):
    """Reads LMUL-1 registers of a group (the loop bound is off by one) and pads with vs2."""
    registers = max(1, cfg.group_registers - 1)
    elements = group_elements(m, pre.regs, insn, cfg, registers)
    elements += elements[: cfg.vlmax - len(elements)]
    return reduce_with(m, pre, insn, cfg, tail, elements, active_flags(m, pre, insn, cfg))


@lives_at(128, 8, "mf2")
def fractional_group_in_upper_half(m, pre, insn, cfg, tail):
    """At fractional LMUL takes the elements from the top of the register, not the bottom."""
    per_register = cfg.elements_per_register
    everything = m.split(m.read(pre.regs, insn.vs2), cfg.sew, per_register)
    elements = everything[per_register - cfg.vlmax :] if cfg.vlmax < per_register else everything[: cfg.vlmax]
    return reduce_with(m, pre, insn, cfg, tail, elements, active_flags(m, pre, insn, cfg))


@lives_at(128, 64, "m1")
def seed_from_element_one(m, pre, insn, cfg, tail):
    """Reads the seed from vs1[1] (a vector-vector habit), not vs1[0]."""
    ops = m.elements(cfg.sew)
    seed = m.extract(m.read(pre.regs, insn.vs1), 2 * cfg.sew - 1, cfg.sew)
    result = reduce_sequential(
        ops, seed, group_elements(m, pre.regs, insn, cfg), active_flags(m, pre, insn, cfg)
    )
    new_vd = with_result(m, m.read(pre.regs, insn.vd), result, pre, cfg, tail)
    return finish(m, pre, insn, traps_of(m, pre, insn, cfg), new_vd, m.eq(pre.vl, 0))


@lives_at(128, 64, "m1")
def writes_then_traps_on_vstart(m, pre, insn, cfg, tail):
    """Reports the vstart trap, but has already written vd (a trap must change nothing)."""
    traps = traps_of(m, pre, insn, cfg)
    others = [cond for rule, cond in traps if rule.id != "vstart_nonzero"]
    ops = m.elements(cfg.sew)
    result = reduce_sequential(
        ops,
        seed_of(m, pre.regs, insn, cfg),
        group_elements(m, pre.regs, insn, cfg),
        active_flags(m, pre, insn, cfg),
    )
    new_vd = with_result(m, m.read(pre.regs, insn.vd), result, pre, cfg, tail)
    keep = m.any_(m.eq(pre.vl, 0), *others)
    return traps, pre.with_(
        regs=m.ite(keep, pre.regs, m.write(pre.regs, insn.vd, new_vd)),
        vstart=m.ite(keep, pre.vstart, m.const(0, XLEN)),
        vs=m.ite(keep, pre.vs, m.const(VS_DIRTY, 2)),
    )


VS_OFF_AS_RESERVED = TrapRule("vs_off_reserved", RESERVED, "mstatus.VS is Off (reported as reserved)")


@lives_at(128, 64, "m1")
def vs_off_reported_reserved(m, pre, insn, cfg, tail):
    """Traps with VS off, but as a reserved encoding instead of an illegal instruction."""
    traps = [
        ((VS_OFF_AS_RESERVED if rule.id == "vs_off" else rule), cond)
        for rule, cond in traps_of(m, pre, insn, cfg)
    ]
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


@lives_at(128, 8, "m2")
def full_vl_ignores_last_mask_bit(m, pre, insn, cfg, tail):
    """With vl = VLMAX the last element's mask bit is not looked at (an epilogue's bug): only a
    full vl with that bit clear shows it, a case the small concrete searches do not make."""
    active = active_flags(m, pre, insn, cfg)
    full = m.eq(pre.vl, m.const(cfg.vlmax, XLEN))
    active[-1] = m.ite(full, m.true, active[-1])
    return reduce_with(m, pre, insn, cfg, tail, group_elements(m, pre.regs, insn, cfg), active)


@lives_at(128, 8, "m4")
def two_loops_masked_one_inverted(m, pre, insn, cfg, tail):
    """An emulator's unmasked and masked loops chosen by vm; the masked one takes the elements
    whose mask bit is clear."""
    ops = m.elements(cfg.sew)
    seed, elements = seed_of(m, pre.regs, insn, cfg), group_elements(m, pre.regs, insn, cfg)
    mask = m.bits(m.read(pre.regs, 0), cfg.vlmax)
    in_vl = [m.ult(m.const(i, XLEN), pre.vl) for i in range(cfg.vlmax)]
    unmasked = reduce_sequential(ops, seed, elements, in_vl)
    masked = reduce_sequential(ops, seed, elements, [m.all_(v, m.not_(b)) for v, b in zip(in_vl, mask)])
    old = m.read(pre.regs, insn.vd)
    vd = m.ite(
        m.eq(insn.vm, 1),
        with_result(m, old, unmasked, pre, cfg, tail),
        with_result(m, old, masked, pre, cfg, tail),
    )
    return finish(m, pre, insn, traps_of(m, pre, insn, cfg), vd, m.eq(pre.vl, 0))


BUGGY_SCALE_INSTRUCTIONS = (
    seed_read_after_partial_write,
    tail_ones_whatever_vta,
    agnostic_tail_zeroed,
    vs_left_clean,
    vl_set_to_active_count,
    vill_not_checked,
    mask_bit_off_by_one,
    last_group_register_skipped,
    fractional_group_in_upper_half,
    seed_from_element_one,
    writes_then_traps_on_vstart,
    vs_off_reported_reserved,
    full_vl_ignores_last_mask_bit,
    two_loops_masked_one_inverted,
)
