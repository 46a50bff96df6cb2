"""What the architecture allows vredmax.vs to do, as Z3 bit-vector constraints.

A relation between a symbolic pre-state and a post-state for one configuration
(VLEN, ELEN, SEW, LMUL), not an algorithm: it says which post-states are allowed, so the
free choices of the architecture (an agnostic tail, reserved encodings) stay free.

- illegal instruction (mstatus.VS off, vtype.vill, vstart != 0 whatever vl is): the
  instruction traps as illegal and changes nothing (but mstatus.VS, see below);
- reserved (misaligned vs2 group; vm=0 with v0 in the vs2 group or vs1 = v0) and not
  illegal: the architecture promises nothing, so every outcome and post-state is allowed;
- otherwise it retires. vl = 0: nothing changes (but mstatus.VS). vl > 0: vd[0] is at least
  the seed vs1[0] and every active element of vs2, and equals one of them; vd's tail elements
  keep their values (vta=0) or each keeps its value or becomes all ones (vta=1); every other
  register, vtype and vl are unchanged; vstart becomes 0 and mstatus.VS Dirty.

mstatus.VS: RVV 1.0 lets an implementation change it from Initial or Clean to Dirty at any
time, even when no vector state changes. So wherever vd is not written (an illegal
instruction, vl = 0) VS' is VS or, from Initial or Clean, Dirty (`vs_kept_or_dirty`); Off
stays Off; writing vd requires Dirty. "At any time" is unconditional and VS is a status
field, not vector state, so the freedom covers traps too (spec/profiles.py says why at length).

This module knows nothing of impl/: it is the yardstick the algorithms are measured by.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Callable, cast

import z3

from vredmax.spec import z3fast as fast
from vredmax.spec.config import VTYPE_VILL_BIT, VTYPE_VTA_BIT, XLEN, Config, encode_vtype
from vredmax.spec.bv import Symbolic
from vredmax.spec.state import VS_DIRTY, VS_OFF, ArchState, reachable_conditions

# Z3 takes numerals as decimal strings; a VLEN=65536 register needs 19729 digits.
# The condition a relation puts on vd[0] (`relation`'s `result_pred`).
ResultPred = Callable[[z3.BitVecRef], z3.BoolRef]

if sys.get_int_max_str_digits() and sys.get_int_max_str_digits() < 20000:
    sys.set_int_max_str_digits(20000)


@dataclass(frozen=True)
class SymbolicInsn:
    """The operand fields as Z3 terms: vd, vs2, vs1 are 5-bit, vm is 1-bit (1 = unmasked)."""

    vd: z3.BitVecRef
    vs2: z3.BitVecRef
    vs1: z3.BitVecRef
    vm: z3.BitVecRef


@dataclass(frozen=True)
class Outcome:
    """How an execution ended: `trapped`, and if so whether as an illegal instruction."""

    trapped: z3.BoolRef
    illegal: z3.BoolRef


def symbolic_state(cfg: Config, tag: str = "") -> ArchState:
    """A pre-state whose every field is a fresh Z3 variable (the register file is an array)."""
    return ArchState(
        cfg.vlen,
        cfg.elen,
        regs=z3.Array(f"regs{tag}", z3.BitVecSort(5), z3.BitVecSort(cfg.vlen)),
        vtype=z3.BitVec(f"vtype{tag}", XLEN),
        vl=z3.BitVec(f"vl{tag}", XLEN),
        vstart=z3.BitVec(f"vstart{tag}", XLEN),
        vs=z3.BitVec(f"vs{tag}", 2),
    )


def symbolic_insn(tag: str = "") -> SymbolicInsn:
    return SymbolicInsn(
        z3.BitVec(f"vd{tag}", 5),
        z3.BitVec(f"vs2{tag}", 5),
        z3.BitVec(f"vs1{tag}", 5),
        z3.BitVec(f"vm{tag}", 1),
    )


def symbolic_outcome(tag: str = "") -> Outcome:
    return Outcome(z3.Bool(f"trapped{tag}"), z3.Bool(f"illegal{tag}"))


def in_configuration(cfg: Config, state: ArchState) -> list[z3.BoolRef]:
    """The state is one of this configuration: vtype selects its SEW and LMUL (vill, vta
    and vma stay free), reserved vtype bits are 0; and it is reachable (spec/state.py
    `reachable_conditions`, the domain `vredmax exec` accepts): vl <= VLMAX, vl = 0 when
    vill, vstart < VLEN."""
    return [
        z3.Extract(5, 0, state.vtype) == encode_vtype(cfg.sew, cfg.lmul),
        z3.Extract(VTYPE_VILL_BIT - 1, 8, state.vtype) == 0,
    ] + [
        cond
        for _, cond in reachable_conditions(Symbolic, state, flag(state.vtype, VTYPE_VILL_BIT), cfg.vlmax)
    ]


def flag(value: z3.BitVecRef, bit: int) -> z3.BoolRef:
    return z3.Extract(bit, bit, value) == 1


def vta(state: ArchState) -> z3.BoolRef:
    return flag(state.vtype, VTYPE_VTA_BIT)


# When it traps ------------------------------------------------------------------------


def illegal(cfg: Config, pre: ArchState, insn: SymbolicInsn) -> z3.BoolRef:
    """Illegal instruction: VS off, vill, or vstart != 0 (a reduction needs vstart = 0)."""
    return z3.Or(pre.vs == VS_OFF, flag(pre.vtype, VTYPE_VILL_BIT), pre.vstart != 0)


def reserved(cfg: Config, pre: ArchState, insn: SymbolicInsn) -> z3.BoolRef:
    """Reserved: vs2 not a multiple of LMUL, or vm=0 while v0 is also SEW data."""
    group = cfg.group_registers
    misaligned = z3.URem(insn.vs2, group) != 0
    v0_in_vs2 = fast.or_(*[insn.vs2 + k == 0 for k in range(group)])
    masked = insn.vm == 0
    return z3.Or(misaligned, z3.And(masked, v0_in_vs2), z3.And(masked, insn.vs1 == 0))


# The operands ---------------------------------------------------------------------------


def seed(cfg: Config, pre: ArchState, insn: SymbolicInsn) -> z3.BitVecRef:
    """vs1[0]: the low SEW bits of register vs1, whatever LMUL is."""
    return z3.Extract(cfg.sew - 1, 0, z3.Select(pre.regs, insn.vs1))


def element(cfg: Config, pre: ArchState, insn: SymbolicInsn, i: int) -> z3.BitVecRef:
    """vs2[i]: element i of the group, in register vs2 + i // (VLEN/SEW)."""
    return elements(cfg, pre, insn, count=i + 1)[i]


def mask_bit(pre: ArchState, i: int) -> z3.BoolRef:
    """Mask bit i is bit i of v0 (EEW=1 layout)."""
    return fast.bit_set(z3.Select(pre.regs, 0), i)


def active(cfg: Config, pre: ArchState, insn: SymbolicInsn, i: int) -> z3.BoolRef:
    """Element i takes part: i < vl, and unmasked or its mask bit is set."""
    return activity(cfg, pre, insn, count=i + 1)[i]


def elements(cfg: Config, pre: ArchState, insn: SymbolicInsn, count: int | None = None) -> list[z3.BitVecRef]:
    """vs2[0 .. count-1] (default VLMAX), each as defined by `element`."""
    count = cfg.vlmax if count is None else count
    per_register, sew = cfg.elements_per_register, cfg.sew
    values: list[z3.BitVecRef] = []
    for k in range((count + per_register - 1) // per_register):
        values += fast.split(z3.Select(pre.regs, insn.vs2 + k), sew, min(per_register, count - len(values)))
    return values


def is_active(
    index: z3.BitVecRef, vl: z3.BitVecRef, unmasked: z3.BoolRef | bool, mask_set: z3.BoolRef | bool
) -> z3.BoolRef:
    """The activity rule for an element index (a 64-bit term, concrete or not)."""
    return fast.and_(fast.ult(index, vl), fast.or_(unmasked, mask_set))


def activity(cfg: Config, pre: ArchState, insn: SymbolicInsn, count: int | None = None) -> list[z3.BoolRef]:
    """Whether each of elements 0 .. count-1 is active, as defined by `active`."""
    count = cfg.vlmax if count is None else count
    v0, unmasked = z3.Select(pre.regs, 0), insn.vm == 1
    return [
        is_active(fast.numeral(i, XLEN), pre.vl, unmasked, bit) for i, bit in enumerate(fast.bits(v0, count))
    ]


# The result ------------------------------------------------------------------------------


def bounds(result: z3.BitVecRef, value: z3.BitVecRef, is_active: z3.BoolRef | bool) -> z3.BoolRef:
    """An active element is at most the result (signed)."""
    return z3.Implies(is_active, value <= result)


def witnesses(result: z3.BitVecRef, value: z3.BitVecRef, is_active: z3.BoolRef | bool) -> z3.BoolRef:
    """The result is this active element."""
    return z3.And(is_active, result == value)


def result_ok(
    result: z3.BitVecRef,
    seed_value: z3.BitVecRef,
    values: list[z3.BitVecRef],
    actives: list[z3.BoolRef],
    others_bounded: z3.BoolRef | bool = True,
    others_witness: z3.BoolRef | bool = False,
) -> z3.BoolRef:
    """The result is at least the seed and every active element, and equals one of them.

    `others_bounded` and `others_witness` stand for elements not listed (the conjunction of
    their `bounds` and the disjunction of their `witnesses`): the compositional lemmas use them
    to speak of one or two elements out of any number. Left at their defaults they add nothing.
    """
    return z3.And(
        seed_value <= result,
        *[bounds(result, v, a) for v, a in zip(values, actives)],
        others_bounded,
        z3.Or(
            result == seed_value, *[witnesses(result, v, a) for v, a in zip(values, actives)], others_witness
        ),
    )


def result_of(cfg: Config, post: ArchState, insn: SymbolicInsn) -> z3.BitVecRef:
    """vd[0] after the instruction."""
    return z3.Extract(cfg.sew - 1, 0, z3.Select(post.regs, insn.vd))


def result_characterised(cfg: Config, pre: ArchState, insn: SymbolicInsn) -> ResultPred:
    """The result predicate over the pre-state's operands (a function of the result)."""
    seed_value, values, actives = seed(cfg, pre, insn), elements(cfg, pre, insn), activity(cfg, pre, insn)
    return lambda result: result_ok(result, seed_value, values, actives)


# The post-state ----------------------------------------------------------------------------


def tail_elements(cfg: Config, register: z3.BitVecRef) -> list[z3.BitVecRef]:
    """Elements 1 .. VLEN/SEW-1 of one register: the tail of vd."""
    return fast.split(register, cfg.sew, cfg.elements_per_register)[1:]  # (kept: asked for often)


_TAILS: dict[tuple[Config, int, int], tuple[z3.BitVecRef, z3.BitVecRef, z3.BoolRef]] = {}


def tail_ok(cfg: Config, old_vd: z3.BitVecRef, new_vd: z3.BitVecRef, agnostic: z3.BoolRef) -> z3.BoolRef:
    """vta=0: the tail is unchanged; vta=1: each tail element is unchanged or all ones."""
    if cfg.elements_per_register == 1:
        return z3.BoolVal(True)
    undisturbed = z3.Extract(cfg.vlen - 1, cfg.sew, new_vd) == z3.Extract(cfg.vlen - 1, cfg.sew, old_vd)
    return z3.If(agnostic, each_tail_element_old_or_ones(cfg, old_vd, new_vd), undisturbed)


def each_tail_element_old_or_ones(cfg: Config, old_vd: z3.BitVecRef, new_vd: z3.BitVecRef) -> z3.BoolRef:
    """Each tail element of new_vd is the old one or all ones (the agnostic tail).

    Kept for the last few (old, new) terms: the proofs ask for the same one often and at
    VLEN=65536 it has 8191 elements. (The key holds the terms, so their ids stay valid.)
    """
    key = (cfg, old_vd.get_id(), new_vd.get_id())
    if key not in _TAILS:
        if len(_TAILS) > 64:
            _TAILS.clear()
        ones = z3.BitVecVal((1 << cfg.sew) - 1, cfg.sew)
        made = fast.and_(
            *[
                fast.or_(fast.eq(new, old), fast.eq(new, ones))
                for new, old in zip(tail_elements(cfg, new_vd), tail_elements(cfg, old_vd))
            ]
        )
        _TAILS[key] = (old_vd, new_vd, made)
    return _TAILS[key][-1]


def unchanged(pre: ArchState, post: ArchState) -> z3.BoolRef:
    """Nothing changes: every register and every CSR keeps its value."""
    return z3.And(
        post.regs == pre.regs,
        post.vtype == pre.vtype,
        post.vl == pre.vl,
        post.vstart == pre.vstart,
        post.vs == pre.vs,
    )


def vs_kept_or_dirty(pre_vs: z3.BitVecRef, post_vs: z3.BitVecRef) -> z3.BoolRef:
    """mstatus.VS is kept, or turns Dirty from Initial or Clean (allowed at any time); Off stays."""
    return z3.Or(post_vs == pre_vs, z3.And(post_vs == VS_DIRTY, pre_vs != VS_OFF))


def unchanged_but_vs(pre: ArchState, post: ArchState) -> z3.BoolRef:
    """Nothing changes, except that mstatus.VS may turn Dirty from Initial or Clean."""
    return z3.And(
        post.regs == pre.regs,
        post.vtype == pre.vtype,
        post.vl == pre.vl,
        post.vstart == pre.vstart,
        vs_kept_or_dirty(pre.vs, post.vs),
    )


def others_unchanged(pre: ArchState, post: ArchState, insn: SymbolicInsn) -> z3.BoolRef:
    """Every register other than vd keeps its value (the files agree once vd is put back)."""
    # (cast: ArchState's fields are Any, a term here)
    return cast(z3.BoolRef, post.regs == z3.Store(pre.regs, insn.vd, z3.Select(post.regs, insn.vd)))


def write_requirements(
    cfg: Config, pre: ArchState, insn: SymbolicInsn, post: ArchState, result_pred: ResultPred
) -> dict[str, z3.BoolRef]:
    """What a retired vl > 0 requires, by name: result, tail, frame, csrs."""
    old_vd, new_vd = z3.Select(pre.regs, insn.vd), z3.Select(post.regs, insn.vd)
    return {
        "result": result_pred(result_of(cfg, post, insn)),
        "tail": tail_ok(cfg, old_vd, new_vd, vta(pre)),
        "frame": others_unchanged(pre, post, insn),
        "csrs": z3.And(post.vtype == pre.vtype, post.vl == pre.vl, post.vstart == 0, post.vs == VS_DIRTY),
    }


def writes(
    cfg: Config, pre: ArchState, insn: SymbolicInsn, post: ArchState, result_pred: ResultPred
) -> z3.BoolRef:
    """A retired vl > 0: the result, the tail, the frame and the CSRs."""
    return z3.And(*write_requirements(cfg, pre, insn, post, result_pred).values())


def relation_cases(
    cfg: Config,
    pre: ArchState,
    insn: SymbolicInsn,
    outcome: Outcome,
    post: ArchState,
    result_pred: ResultPred | None = None,
) -> list[tuple[str, z3.BoolRef, z3.BoolRef]]:
    """The relation case by case: (name, when, what is required). The cases not listed
    (reserved and not illegal) require nothing; the listed ones are disjoint."""
    if result_pred is None:
        result_pred = result_characterised(cfg, pre, insn)
    is_illegal, is_reserved = illegal(cfg, pre, insn), reserved(cfg, pre, insn)
    legal = z3.And(z3.Not(is_illegal), z3.Not(is_reserved))
    return [
        ("illegal", is_illegal, z3.And(outcome.trapped, outcome.illegal, unchanged_but_vs(pre, post))),
        ("vl0", z3.And(legal, pre.vl == 0), z3.And(z3.Not(outcome.trapped), unchanged_but_vs(pre, post))),
        (
            "writes",
            z3.And(legal, pre.vl != 0),
            z3.And(z3.Not(outcome.trapped), writes(cfg, pre, insn, post, result_pred)),
        ),
    ]


def relation(
    cfg: Config,
    pre: ArchState,
    insn: SymbolicInsn,
    outcome: Outcome,
    post: ArchState,
    result_pred: ResultPred | None = None,
) -> z3.BoolRef:
    """The post-states (and outcomes) the architecture allows for this pre-state.

    `result_pred(result)` is the condition on vd[0]; by default the characterisation over the
    pre-state's operands. The proofs pass an uninterpreted predicate or `result == r` to
    reason about everything else at any VLEN (sound: the relation uses it only positively,
    applied to vd[0] of a retired vl > 0 post-state).
    """
    return fast.and_(
        *[
            z3.Implies(when, required)
            for _, when, required in relation_cases(cfg, pre, insn, outcome, post, result_pred)
        ]
    )


def retires_with_elements(cfg: Config, pre: ArchState, insn: SymbolicInsn) -> z3.BoolRef:
    """Neither illegal nor reserved, and vl > 0: the case where vd is written."""
    return z3.And(z3.Not(illegal(cfg, pre, insn)), z3.Not(reserved(cfg, pre, insn)), pre.vl != 0)


def defined(cfg: Config, pre: ArchState, insn: SymbolicInsn) -> z3.BoolRef:
    """Not reserved, or illegal anyway: the cases where the architecture says what happens."""
    return z3.Or(illegal(cfg, pre, insn), z3.Not(reserved(cfg, pre, insn)))
