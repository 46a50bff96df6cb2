"""The catalogue of proof obligations (`runner.py` runs one).

Each obligation has a stable name (its ID for a SEW is `vredmax.sew16.<name>`), one English
sentence, and two ways to be proved of a subject ("spec", or an algorithm with a tail
policy such as "tree/ones") for a configuration:

- `monolithic(setting, subject)`: one query over the whole instruction (every element's
  comparison in it): the independent cross-check, practical up to VLMAX of about 16;
- `compositional(setting, subject)`: the parts of proofs/engine/compositional.py, linear in VLMAX.

API (stable, for the refutations and the report):
    OBLIGATIONS, by_name(name), obligations(pattern=None)
    runner.run(obligation, cfg, subject, method="compositional", timeout_s=60) -> runner.Result
    Result.answer is a proofs.engine.verdict.Answer; Result.id, Result.bounds, Result.parts
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass
from typing import Callable

import z3

from vredmax.impl import ALGORITHMS
from vredmax.proofs.engine import compositional as comp
from vredmax.proofs.engine import lemmas
from vredmax.proofs.engine.compositional import Batch, Cases, Part, Query
from vredmax.proofs.engine.solvers import available
from vredmax.proofs.engine.setting import IMPLEMENTATIONS, SPEC, SUBJECTS, Run, Setting, split_subject
from vredmax.spec import relation as spec
from vredmax.spec import z3fast as fast
from vredmax.spec.bv import Symbolic
from vredmax.spec.config import (
    LMUL_CODE,
    LMUL_NAMES,
    LMUL_VALUE,
    SEWS,
    VTYPE_VMA_BIT,
    XLEN,
    Config,
    vill_rules,
)
from vredmax.spec.state import VS_DIRTY, VS_OFF

METHODS = ("compositional", "monolithic")
MONOLITHIC_LIMIT = 16  # VLMAX up to which `--method both` also runs the monolithic query


@dataclass(frozen=True)
class Obligation:
    name: str
    sentence: str
    kind: str  # instruction, result, relational, refinement, agreement, spec, lemma
    monolithic: Callable | None
    compositional: Callable
    subjects: tuple = SUBJECTS
    applies: Callable = lambda cfg: True

    def id(self, sew: int) -> str:
        return f"vredmax.sew{sew}.{self.name}"


OBLIGATIONS: list[Obligation] = []


def _add(obligation: Obligation) -> Obligation:
    OBLIGATIONS.append(obligation)
    return obligation


# Helpers shared by the obligations ---------------------------------------------------------


def _spec_query(s: Setting, extras, goal_of, result_pred=None) -> Query:
    run = s.free_run
    return Query(
        s.wf + extras + [s.relation(run, result_pred)], goal_of(run), comp.register_solver(s, "spec")
    )


def _spec_cases(s: Setting, extras, goal_of, result_pred) -> comp.Generalized:
    """`relation and extras => goal`, case by case of the relation (each case uses only what
    the relation requires in it: fewer hypotheses, the same conclusion); first with the
    agnostic tail generalized (comp.Generalized)."""
    run = s.free_run

    def cases(prepare) -> Cases:
        made = [
            (name, when, comp.assuming(extras + [when], prepare(z3.Implies(required, goal_of(run)))))
            for name, when, required in s.relation_cases(run, result_pred)
        ]
        made.append(("reserved", z3.And(z3.Not(s.illegal), s.reserved), goal_of(run)))
        return Cases(s.wf + extras, made, comp.register_solver(s, "spec"))

    return comp.generalized_first(cases, [s.free_tail])


def _impl_query(s: Setting, subject: str, extras, goal_of) -> Query:
    return Query(s.wf + extras, goal_of(s.implementation_run(subject)), comp.register_solver(s))


def _monolithic_unary(extras_of, goal_of):
    def monolithic(s: Setting, subject: str):
        extras = extras_of(s)
        if subject == SPEC:
            return _spec_query(s, extras, lambda run: goal_of(s, run))
        return _impl_query(s, subject, extras, lambda run: goal_of(s, run))

    return monolithic


def _lemma_parts(sew: int, names) -> list[Part]:
    return [comp.lemma_part(sew, name) for name in names]


# Instruction-level obligations: no element comparison involved -----------------------------


def instruction(name: str, sentence: str, extras_of, goal_of, applies=lambda cfg: True):
    """Proved of the spec with its result predicate uninterpreted. Of an algorithm it follows
    from that and piece 1 (step, the unit cut out, meets the spec with `vd[0] = r`, an
    instance of the uninterpreted predicate), which covers every algorithm at once."""

    def compositional(s: Setting, subject: str) -> list[Part]:
        def build():
            return _spec_cases(s, extras_of(s), lambda run: goal_of(s, run), s.uninterpreted_result)

        of_spec = Part((name, "spec", s.cfg), f"{name} of the spec (result predicate uninterpreted)", build)
        if subject == SPEC:
            return [of_spec]
        _, tail = split_subject(subject)
        return [comp.choice_part(s, tail), comp.instruction_part(s, tail), of_spec]

    return _add(
        Obligation(
            name,
            sentence,
            "instruction",
            _monolithic_unary(extras_of, goal_of),
            compositional,
            applies=applies,
        )
    )


def _unchanged(s, run):
    """Nothing changes but mstatus.VS, which may turn Dirty from Initial or Clean (RVV 1.0)."""
    return spec.unchanged_but_vs(s.pre, run.post)


def _traps_illegal(s, run):
    return z3.And(run.outcome.trapped, run.outcome.illegal, _unchanged(s, run))


def _vd(state, insn):
    return z3.Select(state.regs, insn.vd)


instruction(
    "vl0_preserves_vd",
    "With vl = 0 (and no trap) vd keeps its value: no element is written, not even agnostic tail elements.",
    lambda s: [s.legal, s.pre.vl == 0],
    lambda s, run: _vd(run.post, s.insn) == _vd(s.pre, s.insn),
)
instruction(
    "vl0_changes_nothing",
    "With vl = 0 (and no trap) the instruction retires and no register or CSR changes, except that "
    "mstatus.VS may turn Dirty from Initial or Clean.",
    lambda s: [s.legal, s.pre.vl == 0],
    lambda s, run: z3.And(z3.Not(run.outcome.trapped), _unchanged(s, run)),
)
instruction(
    "frame",
    "No vector register other than vd ever changes (wherever the architecture defines the outcome).",
    lambda s: [spec.defined(s.cfg, s.pre, s.insn)],
    lambda s, run: spec.others_unchanged(s.pre, run.post, s.insn),
)
instruction(
    "tail_undisturbed",
    "With vta = 0, vd's tail elements 1 .. VLEN/SEW-1 keep their values.",
    lambda s: [s.writes_vd, z3.Not(spec.vta(s.pre))],
    lambda s, run: _tail_same(s, run),
)
instruction(
    "tail_agnostic",
    "With vta = 1, each tail element of vd keeps its value or becomes all ones.",
    lambda s: [s.writes_vd, spec.vta(s.pre)],
    lambda s, run: spec.tail_ok(s.cfg, _vd(s.pre, s.insn), _vd(run.post, s.insn), z3.BoolVal(True)),
)
instruction(
    "vstart_nonzero_traps",
    "A nonzero vstart raises an illegal-instruction exception and changes nothing, whatever vl is.",
    lambda s: [s.pre.vstart != 0],
    _traps_illegal,
)
instruction(
    "vstart_nonzero_traps_at_vl0",
    "A nonzero vstart traps as illegal and changes nothing even when vl = 0.",
    lambda s: [s.pre.vstart != 0, s.pre.vl == 0],
    _traps_illegal,
)
instruction(
    "vill_traps",
    "vtype.vill = 1 raises an illegal-instruction exception and changes nothing.",
    lambda s: [spec.flag(s.pre.vtype, 63)],
    _traps_illegal,
)
instruction(
    "vs_off_traps",
    "mstatus.VS = Off raises an illegal-instruction exception and changes nothing.",
    lambda s: [s.pre.vs == VS_OFF],
    _traps_illegal,
)
instruction(
    "legal_retires",
    "A legal encoding (VS on, vill = 0, vstart = 0, aligned vs2, no v0 overlap under vm = 0) does not trap.",
    lambda s: [s.legal],
    lambda s, run: z3.Not(run.outcome.trapped),
)
instruction(
    "success_resets_vstart",
    "After a retired (legal) instruction vstart is 0.",
    lambda s: [s.legal],
    lambda s, run: run.post.vstart == 0,
)
instruction(
    "success_keeps_vl_vtype",
    "A retired (legal) instruction leaves vl and vtype unchanged.",
    lambda s: [s.legal],
    lambda s, run: z3.And(run.post.vtype == s.pre.vtype, run.post.vl == s.pre.vl),
)
instruction(
    "success_dirties_vs",
    "After a retired instruction with vl > 0, mstatus.VS is Dirty.",
    lambda s: [s.writes_vd],
    lambda s, run: run.post.vs == VS_DIRTY,
)
instruction(
    "vs_kept_or_dirty",
    "Where vd is not written (an illegal instruction, or vl = 0), mstatus.VS keeps its value or turns "
    "Dirty from Initial or Clean (allowed at any time); Off stays Off.",
    lambda s: [spec.defined(s.cfg, s.pre, s.insn), z3.Not(s.writes_vd)],
    lambda s, run: spec.vs_kept_or_dirty(s.pre.vs, run.post.vs),
)


def _tail_same(s, run):
    cfg = s.cfg
    if cfg.elements_per_register == 1:
        return z3.BoolVal(True)
    return z3.Extract(cfg.vlen - 1, cfg.sew, _vd(run.post, s.insn)) == z3.Extract(
        cfg.vlen - 1, cfg.sew, _vd(s.pre, s.insn)
    )


# Result-level obligations: about vd[0] -------------------------------------------------------


def result(
    name: str,
    sentence: str,
    extras_of,
    goal_of,
    spec_parts,
    applies=lambda cfg: True,
    witness_of=lambda s: [],
    known_of=lambda s: [],
    per_element_of=lambda L, s: [],
):
    """Proved of the spec from the result-field part and local lemmas (`spec_parts(s)`), and
    of each algorithm from its refinement of the spec plus the same. The assumptions are
    `extras_of(s)` and `per_element_of(L, s)` (one per element, written against a term
    builder L; for feasibility folded under the witness `witness_of(s)`, `known_of(s)` and
    checked in a model of the others, see proofs/compositional.feasible_part)."""

    def spec_side(s: Setting) -> list[Part]:
        return [
            comp.result_field_part(s),
            comp.feasible_part(
                s,
                name,
                lambda: extras_of(s),
                lambda: witness_of(s),
                lambda L: per_element_of(L, s),
                known=lambda: known_of(s),
            ),
        ] + spec_parts(s)

    def compositional(s: Setting, subject: str) -> list[Part]:
        if subject == SPEC:
            return spec_side(s)
        return comp.refinement_parts(s, subject) + spec_side(s)

    return _add(
        Obligation(
            name,
            sentence,
            "result",
            _monolithic_unary(lambda s: extras_of(s) + per_element_of(fast, s), goal_of),
            compositional,
            applies=applies,
        )
    )


def _r(s, run):
    return s.result_of(run)


result(
    "seed_included",
    "With vl > 0 the result vd[0] is at least the seed vs1[0] (signed), whatever the mask.",
    lambda s: [s.writes_vd],
    lambda s, run: s.seed <= _r(s, run),
    lambda s: _lemma_parts(s.cfg.sew, ["result_bounds_seed"]),
)
result(
    "bounds_active",
    "With vl > 0 the result is at least every active element of vs2 (signed).",
    lambda s: [s.writes_vd],
    lambda s, run: fast.and_(*[spec.bounds(_r(s, run), e, a) for e, a in zip(s.elements, s.activity)]),
    lambda s: _lemma_parts(s.cfg.sew, ["result_bounds_active_element"]),
)
result(
    "result_is_candidate",
    "The result is the seed or one of the active elements.",
    lambda s: [s.writes_vd],
    lambda s, run: z3.Or(
        _r(s, run) == s.seed, *[spec.witnesses(_r(s, run), e, a) for e, a in zip(s.elements, s.activity)]
    ),
    lambda s: _lemma_parts(s.cfg.sew, ["result_is_seed_or_witness"]),
)


def _all_masked(s):
    """vm = 0 and vd is written (with `_masked_below_vl`: every element masked off)."""
    return [s.writes_vd, s.insn.vm == 0]


def _masked_below_vl(L, s):
    """Mask bits 0 .. vl-1 all clear (built with L)."""
    vl = s.pre.vl
    return [
        _either(L, L.not_(L.ult(L.numeral(i, XLEN), vl)), lambda bit=bit: L.not_(bit))
        for i, bit in enumerate(s.mask_bits)
    ]


def _mask_clear(s):
    """A witness for the all-masked assumptions: v0 = 0, and v1 = 1 (so vd = v1 can differ from
    a seed read from another register). With vl = 1 (`_one_element`) only mask bit 0 is left
    to evaluate."""
    zero = z3.K(z3.BitVecSort(5), z3.BitVecVal(0, s.cfg.vlen))
    return [s.pre.regs == z3.Store(zero, z3.BitVecVal(1, 5), z3.BitVecVal(1, s.cfg.vlen))]


def _one_element(s):
    return [(s.pre.vl, 1)]


result(
    "all_masked_writes_seed",
    "With vl > 0 and every element masked off, vd[0] becomes the seed.",
    _all_masked,
    lambda s, run: _r(s, run) == s.seed,
    lambda s: _lemma_parts(
        s.cfg.sew,
        [
            "masked_off_is_inactive",
            "past_vl_is_inactive",
            "inactive_element_is_neutral",
            "only_seed_when_nothing_active",
        ],
    ),
    witness_of=_mask_clear,
    known_of=_one_element,
    per_element_of=_masked_below_vl,
)
result(
    "all_masked_differs_from_vl0",
    "With vl > 0 and every element masked off, vd changes whenever its element 0 was not the seed "
    "(unlike vl = 0, which leaves vd alone).",
    lambda s: _all_masked(s) + [z3.Extract(s.cfg.sew - 1, 0, _vd(s.pre, s.insn)) != s.seed],
    lambda s, run: _vd(run.post, s.insn) != _vd(s.pre, s.insn),
    lambda s: (
        _lemma_parts(
            s.cfg.sew,
            [
                "masked_off_is_inactive",
                "past_vl_is_inactive",
                "inactive_element_is_neutral",
                "only_seed_when_nothing_active",
            ],
        )
        + [_low_bits_differ_part(s)]
    ),
    witness_of=_mask_clear,
    known_of=_one_element,
    per_element_of=_masked_below_vl,
)


def _low_bits_differ_part(s: Setting) -> Part:
    """vd[0] = seed != old vd[0] makes the vd register differ."""

    def build():
        post_vd, old_vd = z3.BitVec("post_vd", s.cfg.vlen), z3.BitVec("old_vd", s.cfg.vlen)
        seed = z3.BitVec("seed_value", s.cfg.sew)
        low = lambda v: z3.Extract(s.cfg.sew - 1, 0, v)
        return Query([low(post_vd) == seed, low(old_vd) != seed], post_vd != old_vd, comp.register_solver(s))

    return Part(("low-bits-differ", s.cfg), "a register whose element 0 changed has changed", build)


result(
    "vs1_equals_vs2",
    "With vs1 = vs2 the seed is vs2[0] read from the same register: the result is at least vs2[0] "
    "even when element 0 is masked off.",
    lambda s: [s.writes_vd, s.insn.vs1 == s.insn.vs2],
    lambda s, run: s.elements[0] <= _r(s, run),
    lambda s: _lemma_parts(s.cfg.sew, ["result_bounds_seed"]) + [_same_register_part(s)],
)


def _same_register_part(s: Setting) -> Part:
    def build():
        return Query(
            s.wf + [s.insn.vs1 == s.insn.vs2],
            s.seed == spec.element(s.cfg, s.pre, s.insn, 0),
            comp.register_solver(s, "spec"),
        )

    return Part(("same-register", s.cfg), "with vs1 = vs2 the seed is the spec's vs2[0]", build)


def _overlap(name, sentence, condition):
    result(
        name,
        sentence,
        lambda s: [s.writes_vd, condition(s)],
        lambda s, run: s.result_pred()(_r(s, run)),
        lambda s: [],
    )


_overlap(
    "overlap_vd_vs2",
    "With vd inside the vs2 group, the result is computed from the old vs2 (sources are read before vd is written).",
    lambda s: fast.or_(*[s.insn.vd == s.insn.vs2 + k for k in range(s.cfg.group_registers)]),
)
_overlap(
    "overlap_vd_vs1",
    "With vd = vs1, the result is computed from the old seed.",
    lambda s: s.insn.vd == s.insn.vs1,
)
_overlap(
    "overlap_vd_v0",
    "With vm = 0 and vd = v0, the mask is the old v0.",
    lambda s: z3.And(s.insn.vd == 0, s.insn.vm == 0),
)
result(
    "group_reads_every_register",
    "With LMUL > 1 every register of the vs2 group is read: an active element stored in register vs2+g "
    "(its first, index g*VLEN/SEW) bounds the result, for every g < LMUL.",
    lambda s: [s.writes_vd],
    lambda s, run: fast.and_(
        *[
            spec.bounds(
                _r(s, run),
                s.elements[g * s.cfg.elements_per_register],
                s.activity[g * s.cfg.elements_per_register],
            )
            for g in range(s.cfg.group_registers)
        ]
    ),
    lambda s: _lemma_parts(s.cfg.sew, ["result_bounds_active_element"]),
    applies=lambda cfg: cfg.group_registers > 1,
)
result(
    "fractional_vlmax",
    "With fractional LMUL, vl can be VLMAX = LMUL*VLEN/SEW and then the last element VLMAX-1, "
    "in the single register vs2, bounds the result when active.",
    lambda s: [s.writes_vd, s.pre.vl == s.cfg.vlmax],
    lambda s, run: spec.bounds(_r(s, run), s.elements[-1], s.activity[-1]),
    lambda s: _lemma_parts(s.cfg.sew, ["result_bounds_active_element"]),
    applies=lambda cfg: cfg.vlmax < cfg.elements_per_register,
)


# Two-run obligations ----------------------------------------------------------------------


def relational(
    name: str,
    sentence: str,
    twin_of,
    constraints_of,
    goal_of,
    spec_lemmas,
    witness_of=lambda s: [],
    known_of=lambda s: [],
):
    """Two pre-states (the second a twin with fresh registers), constraints linking them
    (`constraints_of(L, s, t)`, written against a term builder L), and a goal on the two
    results. Feasibility: the constraints with the twin equal to the original are folded
    under the witness (the conditions `witness_of(s)`, the values `known_of(s)`: e.g. both
    swapped positions 0, and element 0 active), and what is left is evaluated in a model of
    the rest (see proofs/compositional.feasible_part)."""

    def monolithic(s: Setting, subject: str):
        t = twin_of(s)
        assumptions = s.wf + t.wf + [s.writes_vd] + constraints_of(fast, s, t)
        if subject == SPEC:
            first, second = s.free_run, t.free_run
            assumptions += [s.relation(first), t.relation(second)]
        else:
            first, second = s.implementation_run(subject), t.implementation_run(subject)
        return Query(assumptions, goal_of(s, t, first, second), comp.register_solver(s))

    def feasible(s: Setting) -> Part:
        return comp.feasible_part(
            s,
            name,
            [s.writes_vd],
            lambda: witness_of(s),
            lambda L: constraints_of(L, s, s),
            "the two-run assumptions can hold (the twin equal to the original)",
            known=lambda: known_of(s),
        )

    def compositional(s: Setting, subject: str) -> list[Part]:
        parts = [comp.result_field_part(s), feasible(s)] + _lemma_parts(s.cfg.sew, spec_lemmas)
        if subject == SPEC:
            return parts
        return comp.refinement_parts(s, subject) + parts

    return _add(Obligation(name, sentence, "relational", monolithic, compositional))


def _register_twin(s: Setting) -> Setting:
    regs = z3.Array(f"regs{s.tag}_b", z3.BitVecSort(5), z3.BitVecSort(s.cfg.vlen))
    return s.twin("_b", regs=regs)


def _same_seed_and_activity(L, s, t):
    return [L.eq(t.seed, s.seed)] + [L.eq(a, b) for a, b in zip(t.activity, s.activity)]


UNIQUE = ["witness_is_below_any_allowed_result", "signed_order_antisymmetric"]


def _either(L, first, rest):
    """L.or_(first, rest()); with a folding builder rest() is not built when first is
    decided true (as the twin equal to the original makes every `b == a`: 65536 times)."""
    return first if first is True else L.or_(first, rest())


def _masked_values_may_differ(L, s, t):
    """t's elements are s's, except that a masked-off element below vl may differ."""
    masked, vl = L.eq(s.insn.vm, L.numeral(0, 1)), s.pre.vl
    return [
        _either(
            L, L.eq(b, a), lambda i=i, bit=bit: L.and_(L.ult(L.numeral(i, XLEN), vl), masked, L.not_(bit))
        )
        for i, (a, b, bit) in enumerate(zip(s.elements, t.elements, s.mask_bits))
    ]


def _changed_past_vl(L, s, t):
    """t's elements are s's, except that an element at or past vl may differ."""
    vl = s.pre.vl
    return [
        _either(L, L.eq(b, a), lambda i=i: L.not_(L.ult(L.numeral(i, XLEN), vl)))
        for i, (a, b) in enumerate(zip(s.elements, t.elements))
    ]


relational(
    "masked_ignored",
    "Changing the values of masked-off elements does not change the result.",
    _register_twin,
    lambda L, s, t: _same_seed_and_activity(L, s, t) + _masked_values_may_differ(L, s, t),
    lambda s, t, one, two: s.result_of(one) == t.result_of(two),
    ["masked_off_is_inactive", "inactive_value_irrelevant"] + UNIQUE,
)
relational(
    "past_vl_ignored",
    "Changing the values of elements at or past vl does not change the result.",
    _register_twin,
    lambda L, s, t: _same_seed_and_activity(L, s, t) + _changed_past_vl(L, s, t),
    lambda s, t, one, two: s.result_of(one) == t.result_of(two),
    ["past_vl_is_inactive", "inactive_value_irrelevant"] + UNIQUE,
)


def _swap_indices(s):
    return z3.BitVec(f"p{s.tag}", XLEN), z3.BitVec(f"q{s.tag}", XLEN)


def _swapped(L, s, t):
    p, q = _swap_indices(s)
    n = s.cfg.vlmax
    ep, eq = L.pick(p, s.elements), L.pick(q, s.elements)
    index = [L.numeral(i, XLEN) for i in range(n)]
    bound = L.numeral(n, XLEN)
    return (
        [L.ult(p, bound), L.ult(q, bound), L.pick(p, s.activity), L.pick(q, s.activity)]
        + _same_seed_and_activity(L, s, t)
        + [
            L.eq(b, L.ite(L.eq(p, index[i]), eq, L.ite(L.eq(q, index[i]), ep, a)))
            for i, (a, b) in enumerate(zip(s.elements, t.elements))
        ]
    )


relational(
    "order_independent",
    "Exchanging the values of any two active elements does not change the result (so no permutation "
    "of the active elements does).",
    _register_twin,
    _swapped,
    lambda s, t, one, two: s.result_of(one) == t.result_of(two),
    ["swap_active_elements"] + UNIQUE,
    witness_of=lambda s: [s.activity[0]],
    known_of=lambda s: [(index, 0) for index in _swap_indices(s)],
)
relational(
    "monotone",
    "Raising the seed or any element (signed), with the same active elements, never lowers the result.",
    _register_twin,
    lambda L, s, t: (
        [L.sle(s.seed, t.seed)]
        + [L.eq(a, b) for a, b in zip(t.activity, s.activity)]
        + [L.sle(a, b) for a, b in zip(s.elements, t.elements)]
    ),
    lambda s, t, one, two: s.result_of(one) <= t.result_of(two),
    ["raising_operands_raises_result"],
)


# vma: the same run up to vtype bit 7 ---------------------------------------------------------


def _vma_twin(s: Setting) -> Setting:
    return s.twin("_vma", vtype=s.pre.vtype ^ z3.BitVecVal(1 << VTYPE_VMA_BIT, XLEN))


def _same_but_vtype(one: Run, two: Run):
    return z3.And(
        one.outcome.trapped == two.outcome.trapped,
        one.outcome.illegal == two.outcome.illegal,
        one.post.regs == two.post.regs,
        one.post.vl == two.post.vl,
        one.post.vstart == two.post.vstart,
        one.post.vs == two.post.vs,
    )


def _vma_monolithic(s: Setting, subject: str):
    t = _vma_twin(s)
    if subject == SPEC:
        return _vma_spec_query(s, t, None)
    return Query(
        s.wf,
        _same_but_vtype(s.implementation_run(subject), t.implementation_run(subject)),
        comp.register_solver(s),
    )


def _vma_spec_query(s: Setting, t: Setting, pred):
    run = s.free_run
    flipped = Run(run.outcome, run.post.with_(vtype=run.post.vtype ^ z3.BitVecVal(1 << VTYPE_VMA_BIT, XLEN)))
    pred_t = pred if pred is not None else t.result_pred()
    # two whole relations compared: Z3 gives up after seconds at VLEN=65536, bitwuzla takes 0.6 s
    return Query(
        s.wf, s.relation(run, pred) == t.relation(flipped, pred_t), comp.register_solver(s, "bitwuzla")
    )


def _vma_spec_generalized(s: Setting, t: Setting) -> comp.Generalized:
    """The two relations share the free run's agnostic tail (same registers, vta is bit 6)."""
    query = _vma_spec_query(s, t, s.uninterpreted_result)
    return comp.generalized_first(
        lambda prepare: Query(query.assumptions, prepare(query.goal), query.solver), [s.free_tail]
    )


def _vma_compositional(s: Setting, subject: str) -> list[Part]:
    t = _vma_twin(s)
    if subject == SPEC:
        same = Part(
            ("vma-operands", "spec", s.cfg),
            "the spec's operands do not read vtype",
            lambda: Batch(
                s.wf,
                [(t.seed, s.seed)] + list(zip(t.elements, s.elements)) + list(zip(t.activity, s.activity)),
            ),
        )
        rel = Part(
            ("vma", "spec", s.cfg),
            "vma changes nothing the spec allows (result predicate uninterpreted)",
            lambda: _vma_spec_generalized(s, t),
        )
        return [same, rel]
    _, tail = split_subject(subject)

    def operands():
        _, _, one = s.abstract_run(tail)
        _, _, two = t.abstract_run(tail)
        return Batch(
            s.wf,
            [(two.seed, one.seed)]
            + list(zip(two.elements, one.elements))
            + list(zip(two.active, one.active)),
        )

    def cases():
        _, r_one, _ = s.abstract_run(tail)
        _, r_two, _ = t.abstract_run(tail)
        work = []
        definitions = []
        for writes in (True, False):
            one, d1 = comp.case_run(s, tail, writes)
            two, d2 = comp.case_run(t, tail, writes)
            definitions += d1 + d2
            goal = z3.substitute(_same_but_vtype(one, two), (r_two, r_one))
            work.append(
                (
                    comp.WRITES if writes else comp.NO_WRITE,
                    s.writes_vd if writes else z3.Not(s.writes_vd),
                    z3.simplify(goal),
                )
            )
        return Cases(s.wf + definitions, work, comp.register_solver(s))

    return [
        comp.choice_part(s, tail),
        comp.choice_part(t, tail),
        Part(
            ("vma-operands", s.cfg, tail), "step hands the unit the same operands whatever vma is", operands
        ),
        Part(("vma", s.cfg, tail), "step's post-state does not depend on vma (same unit output)", cases),
    ]


_add(
    Obligation(
        "vma_irrelevant",
        "vma has no effect: flipping it changes no register, no other CSR and not the outcome.",
        "relational",
        _vma_monolithic,
        _vma_compositional,
    )
)


# Refinement, agreement and the spec's own sanity ----------------------------------------------


def _refines_monolithic(s: Setting, subject: str):
    return Query(s.wf, s.relation(s.implementation_run(subject)), comp.register_solver(s))


def _refines_compositional(s: Setting, subject: str) -> list[Part]:
    parts = comp.refinement_parts(s, subject)
    for part in parts:
        part.decisive = part.key[0] in ("instruction", "operands", "inclusion")
    return parts


_add(
    Obligation(
        "refines_spec",
        "The algorithm's outcome and post-state are ones the specification allows.",
        "refinement",
        _refines_monolithic,
        _refines_compositional,
        subjects=IMPLEMENTATIONS,
    )
)

AGREEMENT_SUBJECTS = tuple(
    f"sequential={name}/{tail}"
    for name in ALGORITHMS
    if name != "sequential"
    for tail in ("undisturbed", "ones")
)


def _pair(subject: str):
    pair, tail = subject.split("/")
    first, second = pair.split("=")
    return first, second, tail


def _agree_monolithic(s: Setting, subject: str):
    first, second, tail = _pair(subject)
    one, two = s.implementation_run(f"{first}/{tail}"), s.implementation_run(f"{second}/{tail}")
    goal = z3.And(
        one.outcome.trapped == two.outcome.trapped,
        one.outcome.illegal == two.outcome.illegal,
        spec.unchanged(one.post, two.post),
    )
    return Query(s.wf, goal, comp.register_solver(s))


def _agree_compositional(s: Setting, subject: str):
    first, second, tail = _pair(subject)
    part = comp.agreement_part(s.cfg, first, second, s.units)
    part.decisive = True  # signed max tells apart any two different inclusion conditions
    return [part]


_add(
    Obligation(
        "algorithms_agree",
        "The two algorithms give the same outcome and the same post-state on every pre-state.",
        "agreement",
        _agree_monolithic,
        _agree_compositional,
        subjects=AGREEMENT_SUBJECTS,
    )
)

_add(
    Obligation(
        "spec_total",
        "Every pre-state of the configuration has an outcome and post-state the specification allows "
        "(witness: the sequential algorithm's).",
        "spec",
        lambda s, subject: _refines_monolithic(s, "sequential/undisturbed"),
        lambda s, subject: comp.refinement_parts(s, "sequential/undisturbed"),
        subjects=(SPEC,),
    )
)


def _deterministic_goal(s: Setting, one: Run, two: Run):
    return z3.And(*_deterministic_goals(s, one, two))


def _deterministic_goals(s: Setting, one: Run, two: Run) -> list:
    cfg, insn = s.cfg, s.insn
    vd1, vd2 = _vd(one.post, insn), _vd(two.post, insn)
    zero = z3.BitVecVal(0, cfg.vlen)
    return [
        one.outcome.trapped == two.outcome.trapped,
        z3.Store(one.post.regs, insn.vd, zero) == z3.Store(two.post.regs, insn.vd, zero),
        z3.Extract(cfg.sew - 1, 0, vd1) == z3.Extract(cfg.sew - 1, 0, vd2),
        z3.Implies(z3.Not(spec.vta(s.pre)), vd1 == vd2),
        one.post.vtype == two.post.vtype,
        one.post.vl == two.post.vl,
        one.post.vstart == two.post.vstart,
        z3.Or(
            one.post.vs == two.post.vs,
            z3.And(
                spec.vs_kept_or_dirty(s.pre.vs, one.post.vs), spec.vs_kept_or_dirty(s.pre.vs, two.post.vs)
            ),
        ),
    ]


def _second_free_run(s: Setting) -> Run:
    return Run(spec.symbolic_outcome(f"{s.tag}_2"), spec.symbolic_state(s.cfg, f"{s.tag}_post2"))


def _deterministic_monolithic(s: Setting, subject: str):
    one, two = s.free_run, _second_free_run(s)
    defined = spec.defined(s.cfg, s.pre, s.insn)
    return Query(
        s.wf + [defined, s.relation(one), s.relation(two)],
        _deterministic_goal(s, one, two),
        comp.register_solver(s),
    )


def _deterministic_compositional(s: Setting, subject: str):
    def build():
        one, two = s.free_run, _second_free_run(s)
        pred = s.uninterpreted_result
        cases = []
        for (name, when, first), (_, _, second) in zip(
            s.relation_cases(one, pred), s.relation_cases(two, pred)
        ):
            if name != "writes":
                cases.append(
                    (
                        name,
                        when,
                        z3.simplify(z3.Implies(z3.And(first, second), _deterministic_goal(s, one, two))),
                    )
                )
                continue
            # When vd is written the frame requirement says the register file is pre's with vd
            # replaced: so it is Store(pre.regs, vd, x) for some x, and proving the goals for
            # every x proves them (arrays of 65536-bit registers defeat both solvers otherwise).
            # Each goal then follows from one requirement of both runs; the others (thousands
            # of tail elements at VLEN=65536) only slow the solver, so they are left out.
            one, two = (
                Run(
                    run.outcome,
                    run.post.with_(
                        regs=z3.Store(s.pre.regs, s.insn.vd, z3.BitVec(f"written_vd{s.tag}_{k}", s.cfg.vlen))
                    ),
                )
                for k, run in enumerate((one, two))
            )
            need = [spec.write_requirements(s.cfg, s.pre, s.insn, run.post, pred) for run in (one, two)]
            outcome = z3.And(z3.Not(one.outcome.trapped), z3.Not(two.outcome.trapped))
            same_result = s.result_of(one) == s.result_of(two)
            for k, (goal, uses) in enumerate(zip(_deterministic_goals(s, one, two), _DETERMINISTIC_USES)):
                hypotheses = [outcome, same_result] + [req[u] for req in need for u in uses]
                if uses == ("tail",):  # the goal is about vta = 0: decide vta in the hypotheses
                    undisturbed = spec.vta(s.pre)
                    hypotheses = [z3.substitute(h, (undisturbed, z3.BoolVal(False))) for h in hypotheses]
                    goal = z3.Implies(
                        z3.Not(undisturbed), z3.substitute(goal, (undisturbed, z3.BoolVal(False)))
                    )
                cases.append((f"writes, goal {k}", when, z3.simplify(z3.Implies(z3.And(*hypotheses), goal))))
        # vd's whole tail (goal 3): Z3 takes seconds from VLEN=512 on, bitwuzla milliseconds
        return Cases(s.wf, cases, comp.register_solver(s, "bitwuzla"))

    return [
        comp.result_field_part(s),
        Part(
            ("deterministic", s.cfg),
            "given equal results, two allowed post-states differ at most in agnostic tail elements",
            build,
        ),
    ] + _lemma_parts(s.cfg.sew, UNIQUE)


# which write requirements each of _deterministic_goals needs
_DETERMINISTIC_USES = [(), ("frame",), (), ("tail",), ("csrs",), ("csrs",), ("csrs",), ("csrs",)]


_add(
    Obligation(
        "spec_deterministic",
        "Two outcomes and post-states the specification allows for one pre-state (not reserved) agree "
        "everywhere except in agnostic tail elements and in mstatus.VS where vd is not written "
        "(each keeps it or turns it Dirty from Initial or Clean).",
        "spec",
        _deterministic_monolithic,
        _deterministic_compositional,
        subjects=(SPEC,),
    )
)


# The architecture's freedoms: post-states the spec must allow ----------------------------------


def freedom(name: str, sentence: str, extras_of, run_of, applies=lambda cfg: True):
    """The spec allows the run `run_of(s)` (an outcome and a post-state built from the
    pre-state; with the conditions it needs) whenever `extras_of(s)` hold: a freedom the
    relation must not take away. Proved of the spec, the result predicate uninterpreted."""

    def query(s: Setting) -> Query:
        run, needs = run_of(s)
        return Query(
            s.wf + extras_of(s) + needs,
            s.relation(run, s.uninterpreted_result),
            comp.register_solver(s, "spec"),
        )

    def compositional(s: Setting, subject: str) -> list[Part]:
        return [Part((name, "spec", s.cfg), f"{name}: the spec allows it", lambda: query(s), decisive=True)]

    return _add(
        Obligation(
            name,
            sentence,
            "spec",
            lambda s, subject: query(s),
            compositional,
            subjects=(SPEC,),
            applies=applies,
        )
    )


TAIL_MIX_LIMIT = 128  # elements a register up to which tail_agnostic_any_mix is proved


def _initial_or_clean(s: Setting):
    return z3.Or(s.pre.vs == 1, s.pre.vs == 2)


def _quiet_dirty(trapped: bool):
    def run_of(s: Setting):
        outcome = spec.Outcome(z3.BoolVal(trapped), z3.BoolVal(trapped))
        return Run(outcome, s.pre.with_(vs=z3.BitVecVal(VS_DIRTY, 2))), []

    return run_of


def _tail_mix(s: Setting):
    """vd[0] a result r the predicate accepts; tail element j all ones when choice bit j is set,
    else its old value: every mix, by the free choice bits."""
    cfg, insn = s.cfg, s.insn
    r = z3.BitVec(f"mix_result{s.tag}", cfg.sew)
    old = z3.Select(s.pre.regs, insn.vd)
    count = cfg.elements_per_register - 1
    choice = z3.BitVec(f"mix_choice{s.tag}", max(1, count))
    ones = z3.BitVecVal((1 << cfg.sew) - 1, cfg.sew)
    elements = [
        z3.If(z3.Extract(j, j, choice) == 1, ones, element)
        for j, element in enumerate(spec.tail_elements(cfg, old))
    ]
    vd = z3.Concat(*reversed(elements), r) if elements else r
    post = s.pre.with_(
        regs=z3.Store(s.pre.regs, insn.vd, vd), vstart=z3.BitVecVal(0, XLEN), vs=z3.BitVecVal(VS_DIRTY, 2)
    )
    return Run(spec.Outcome(z3.BoolVal(False), z3.BoolVal(False)), post), [s.uninterpreted_result(r)]


freedom(
    "vl0_may_dirty_vs",
    "With vl = 0 (and no trap) the spec allows mstatus.VS to turn Dirty from Initial or Clean, everything "
    "else unchanged (Spike and QEMU do).",
    lambda s: [s.legal, s.pre.vl == 0, _initial_or_clean(s)],
    _quiet_dirty(False),
)
freedom(
    "trap_may_dirty_vs",
    "At an illegal-instruction trap the spec allows mstatus.VS to turn Dirty from Initial or Clean, nothing "
    "else changing (RVV 1.0: at any time).",
    lambda s: [s.illegal, _initial_or_clean(s)],
    _quiet_dirty(True),
)
freedom(
    "tail_agnostic_any_mix",
    "With vta = 1 the spec allows every mix of agnostic tail elements kept and set to all ones (not only "
    "all kept or all ones); checked up to 128 elements a register (the mix is element by element: Z3 "
    "does not decide the 8191-element query in minutes).",
    lambda s: [s.writes_vd, spec.vta(s.pre)],
    _tail_mix,
    applies=lambda cfg: cfg.elements_per_register <= TAIL_MIX_LIMIT,
)


# The smallest machines (Zve32x, Zve64x) ---------------------------------------------------------
# These arise only at tiny VLMAX, where one query over the whole instruction is cheap: the
# compositional proof is that same query (the `applies` bound keeps it small).


def _small(name: str, sentence: str, kind: str, query_of, applies, subjects=SUBJECTS) -> Obligation:
    def compositional(s: Setting, subject: str) -> list[Part]:
        return [
            Part(
                (name, subject, s.cfg),
                f"{name}: one query (VLMAX={s.cfg.vlmax})",
                lambda: query_of(s, subject),
                decisive=True,
            )
        ]

    return _add(Obligation(name, sentence, kind, query_of, compositional, subjects=subjects, applies=applies))


def _vlmax_one_goal(s: Setting, run: Run):
    element, active = s.elements[0], s.activity[0]
    return s.result_of(run) == z3.If(active, z3.If(element > s.seed, element, s.seed), s.seed)


_small(
    "vlmax_one_result",
    "With VLMAX = 1 (e.g. SEW = ELEN = VLEN, LMUL = 1) and vl = 1, vd[0] is the signed maximum of the seed "
    "and vs2[0] when vs2[0] is active, else the seed.",
    "result",
    _monolithic_unary(lambda s: [s.writes_vd], _vlmax_one_goal),
    lambda cfg: cfg.vlmax == 1,
)


def _whole_vd_determined(s: Setting, subject: str) -> Query:
    # bitwuzla: the uniqueness of the maximum of VLMAX 64-bit elements (measured at VLEN=SEW=64,
    # LMUL=8: Z3 5.6 s, bitwuzla 0.9 s, cvc5 1.5 s of CPU; the default `prove`'s slowest query)
    one, two = s.free_run, _second_free_run(s)
    return Query(
        s.wf + [s.writes_vd, s.relation(one), s.relation(two)],
        _vd(one.post, s.insn) == _vd(two.post, s.insn),
        "bitwuzla" if available("bitwuzla") else "z3",
    )


_small(
    "no_tail_at_vlen_equal_sew",
    "When VLEN = SEW, vd holds the one element vd[0] and has no tail: even with vta = 1 every post-state "
    "the specification allows has the same vd.",
    "spec",
    _whole_vd_determined,
    lambda cfg: cfg.vlen == cfg.sew,
    subjects=(SPEC,),
)


def _vtype_query(elen: int, goal_of) -> Query:
    """A claim about every 64-bit vtype value (the vill rules of spec/config.py, symbolically)."""
    raw = z3.BitVec("vtype_raw", XLEN)
    vill = z3.Or(*[cond for _, cond in vill_rules(Symbolic, raw, elen)])
    return Query([], goal_of(raw, vill))


def _selects(raw, sew: int, lmul: str):
    return z3.And(z3.Extract(5, 3, raw) == SEWS.index(sew), z3.Extract(2, 0, raw) == LMUL_CODE[lmul])


def _one_per_machine(cfg: Config) -> bool:
    """Facts about vtype depend on (VLEN, ELEN) only: proved once per machine."""
    return cfg.sew == 8 and cfg.lmul == "m1"


_small(
    "sew64_illegal_at_elen32",
    "With ELEN = 32, every vtype selecting SEW = 64 is vill, so vredmax.vs is an illegal instruction "
    "whatever LMUL, VLEN and the other vtype bits are.",
    "vtype",
    lambda s, subject: _vtype_query(32, lambda raw, vill: z3.Implies(z3.Extract(5, 3, raw) == 3, vill)),
    lambda cfg: cfg.elen == 32 and _one_per_machine(cfg),
    subjects=(SPEC,),
)


def _vlmax_below_one_is_vill(s: Setting, subject: str) -> Query:
    vlen = s.cfg.vlen
    empty = [
        _selects_pair
        for _selects_pair in (
            (sew, lmul) for sew in SEWS for lmul in LMUL_NAMES if LMUL_VALUE[lmul] * vlen < sew
        )
    ]
    return _vtype_query(
        s.cfg.elen,
        lambda raw, vill: z3.Implies(
            z3.Or(*[_selects(raw, sew, lmul) for sew, lmul in empty]) if empty else z3.BoolVal(False), vill
        ),
    )


_small(
    "vlmax_below_one_is_vill",
    "Every vtype whose SEW and LMUL would give VLMAX = LMUL*VLEN/SEW below 1 (a fractional LMUL at a small "
    "VLEN) is vill: no legal configuration has an empty vs2 group.",
    "vtype",
    _vlmax_below_one_is_vill,
    _one_per_machine,
    subjects=(SPEC,),
)


# Lemmas as obligations of their own ------------------------------------------------------------


def _lemma_obligation(lemma: lemmas.Lemma) -> Obligation:
    def compositional(s: Setting, subject: str):
        return [comp.lemma_part(s.cfg.sew, lemma.name)]

    def monolithic(s: Setting, subject: str):
        assumptions, goal = lemma.build(s.cfg.sew)
        return Query(assumptions, goal)

    return Obligation(
        f"lemma.{lemma.name}", lemma.sentence, "lemma", monolithic, compositional, subjects=(lemma.family,)
    )


for _lemma in lemmas.LEMMAS:
    _add(_lemma_obligation(_lemma))


# Looking up -----------------------------------------------------------------------


def by_name(name: str) -> Obligation:
    for obligation in OBLIGATIONS:
        if obligation.name == name:
            return obligation
    raise KeyError(name)


def obligations(pattern: str | None = None, cfg: Config | None = None) -> list[Obligation]:
    """The obligations whose name or ID matches `pattern` (a substring or a glob)."""
    chosen = []
    for obligation in OBLIGATIONS:
        if cfg is not None and not obligation.applies(cfg):
            continue
        if pattern:
            names = [obligation.name] + ([obligation.id(cfg.sew)] if cfg else [])
            if not any(pattern in n or fnmatch.fnmatchcase(n, pattern) for n in names):
                continue
        chosen.append(obligation)
    return chosen
