"""Refute the wrong assumptions of proofs/claims.py, with the smallest counterexamples.

A universal claim is refuted when the solver finds a legal pre-state and an allowed
post-state where it is false (COUNTEREXAMPLE: good); if the solver proves it (PROVED) the
claim could not be refuted, which is a failure of the catalogue and is shown as one. An
existential claim is refuted when the solver proves no state meets it.

Counterexamples are minimised with the solver, in this order: the smallest vl, then the
fewest active lanes, then the fewest values that differ; then, only where they keep it a
counterexample, tidiness preferences (conventional registers v8, v12, v4; no overlaps;
small values; zero where nothing is read) so that what is left is what matters.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import z3

from vredmax.impl.execute import execute
from vredmax.proofs.claims import CLAIMS, CLAIMS_BY_ID, Claim, View
from vredmax.proofs.counterexample import (Counterexample, concrete_case, model_register, observed_values,
                                   tail_policy_for)
from vredmax.proofs.verdict import Verdict, prove
from vredmax.spec.config import VTYPE_VMA_BIT, VTYPE_VTA_BIT, Config, decode_vtype

REFUTED, NOT_REFUTED, UNKNOWN, ERROR = "refuted", "not refuted", "unknown", "error"
STATUSES = (REFUTED, NOT_REFUTED, UNKNOWN, ERROR)
DEFAULT_TIMEOUT_MS = 60_000
STEP_TIMEOUT_MS = 10_000   # each minimisation query


@dataclass
class Refutation:
    claim: Claim
    status: str
    verdict: Verdict                 # the solver's raw verdict on the claim
    cfg: Config | None = None        # where it was refuted (or the last one tried)
    counterexample: Counterexample | None = None
    detail: str = ""
    seconds: float = 0.0
    bounds: list[str] = field(default_factory=list)
    asked: object = None             # a claim-language claim's counterexample (proofs/ask.py)

    @property
    def ok(self) -> bool:
        return self.status == REFUTED


def bounds_text(cfg: Config) -> str:
    return (f"{cfg}, VLMAX={cfg.vlmax}: vl 0..{cfg.vlmax}, every vd/vs2/vs1/vm (overlaps too), "
            "every register value, vta, vma, vstart, VS")


def claimed_values(claim: Claim | str, pre, insn, tail: str = "undisturbed") -> dict:
    """What a universal claim (or its id) says the outcome of a concrete case is: its model
    run, or for a claim-language claim the values its conclusion states."""
    if isinstance(claim, str):
        claim = CLAIMS_BY_ID[claim]
    if claim.text:
        from vredmax.proofs import ask   # ask builds on this module's minimiser
        result = execute(pre, insn, "sequential", tail)
        return ask.claimed_on(claim.text, pre, insn, result.state, result.outcome != "retired")
    vt = decode_vtype(pre.vtype, pre.elen)
    cfg = Config(pre.vlen, pre.elen, vt.sew, vt.lmul)
    return dict(claim.claimed(View.concrete(cfg, pre, insn, tail)))


def refute(claim: Claim, timeout_ms: int = DEFAULT_TIMEOUT_MS, minimise: bool = True,
           configs=None) -> Refutation:
    """Refute the claim at its configurations (or `configs`), stopping at the first
    counterexample (a universal claim) or at the first configuration where an existential
    claim is not refuted."""
    start = time.perf_counter()
    outcome = Refutation(claim, ERROR, Verdict.ERROR, detail="no configuration to check")
    for cfg in (claim.configs if configs is None else configs):
        refute_at = _refute_text_at if claim.text else _refute_at
        outcome = refute_at(claim, cfg, timeout_ms, minimise, outcome.bounds)
        if outcome.status != REFUTED or claim.universal and outcome.counterexample is not None:
            break
    outcome.seconds = time.perf_counter() - start
    return outcome


def _refute_text_at(claim: Claim, cfg: Config, timeout_ms: int, minimise: bool, bounds: list) -> Refutation:
    """A claim in the claim language: decided by the engine of `vredmax ask`."""
    from vredmax.proofs import ask   # ask builds on this module's minimiser
    decision = ask.decide(claim.text, cfg, None, timeout_ms, minimise)
    bounds = bounds + [bounds_text(cfg)]
    if decision.verdict == Verdict.COUNTEREXAMPLE:
        asked = decision.counterexample
        cx = asked.shown
        how = ("counterexample found and replayed on the executable model" if asked.replays else
               "counterexample found; it uses a freedom of the spec that the executable model does not "
               "take (" + "; ".join(asked.free) + ")")
        return Refutation(claim, REFUTED, decision.verdict, cfg, cx, how, bounds=bounds, asked=asked)
    if decision.verdict == Verdict.PROVED:
        detail = "the solver proved the claim: it is not refuted here"
        if decision.vacuous:
            detail = "the claim's hypothesis never holds here: it is not refuted here"
        return Refutation(claim, NOT_REFUTED, decision.verdict, cfg, bounds=bounds, detail=detail)
    status = UNKNOWN if decision.verdict == Verdict.UNKNOWN else ERROR
    return Refutation(claim, status, decision.verdict, cfg, detail=decision.detail, bounds=bounds)


def _refute_at(claim: Claim, cfg: Config, timeout_ms: int, minimise: bool, bounds: list) -> Refutation:
    view = View.symbolic(cfg)
    goal = claim.holds(view)            # may add spec constraints to the view
    assumptions = view.constraints + claim.when(view)
    bounds = bounds + [bounds_text(cfg)]
    if claim.universal:
        answer = prove(assumptions, goal, timeout_ms)
        if answer.verdict == Verdict.COUNTEREXAMPLE:
            return _counterexample(claim, cfg, view, assumptions, goal, answer, minimise, bounds)
        if answer.verdict == Verdict.PROVED:
            return Refutation(claim, NOT_REFUTED, answer.verdict, cfg, bounds=bounds,
                              detail="the solver proved the claim: it is not refuted here")
    else:
        answer = prove(assumptions, z3.Not(goal), timeout_ms)
        if answer.verdict == Verdict.PROVED:
            return Refutation(claim, REFUTED, answer.verdict, cfg, bounds=bounds,
                              detail="the solver proved that no state meets the claim")
        if answer.verdict == Verdict.COUNTEREXAMPLE:
            pre, insn = concrete_case(answer.model, cfg, view.pre, view.insn)
            return Refutation(claim, NOT_REFUTED, answer.verdict, cfg, bounds=bounds,
                              detail=f"the solver found a state that meets the claim: {pre}, {insn}")
    status = UNKNOWN if answer.verdict == Verdict.UNKNOWN else ERROR
    return Refutation(claim, status, answer.verdict, cfg, detail=answer.detail, bounds=bounds)


def _counterexample(claim, cfg, view, assumptions, goal, answer, minimise, bounds) -> Refutation:
    model, notes = answer.model, []
    if minimise:
        model, notes = smallest_model(view, assumptions, z3.Not(goal),
                                      list(claim.mismatches(view).values()))
    pre, insn = concrete_case(model, cfg, view.pre, view.insn)
    names = list(claim.claimed(View.concrete(cfg, pre, insn)))
    solver_post = {name: _model_value(model, view.observed(name)) for name in names}
    tail = tail_policy_for(cfg, pre, insn, model_register(model, view.post, insn.vd)) or "undisturbed"
    replay = View.concrete(cfg, pre, insn, tail)
    result = execute(pre, insn, "sequential", tail)
    spec = observed_values(result, insn, cfg.sew, names)
    cx = Counterexample(cfg, pre, insn, tail, spec, claimed_values(claim, pre, insn, tail),
                        "claim", result.reason if result.outcome != "retired" else "", notes)
    problem = _replay_problem(claim, replay, cx, solver_post)
    if problem:
        return Refutation(claim, ERROR, answer.verdict, cfg, cx, detail=problem, bounds=bounds)
    return Refutation(claim, REFUTED, answer.verdict, cfg, cx, bounds=bounds,
                      detail="counterexample found and replayed on the executable model")


def _model_value(model, term):
    value = model.eval(term, model_completion=True)
    return z3.is_true(value) if z3.is_bool(value) else value.as_long()


def _replay_problem(claim, replay: View, cx: Counterexample, solver_post: dict) -> str:
    """Why the concrete replay does not confirm the counterexample ('' when it does)."""
    if not all(claim.when(replay)):
        return "replay: the concrete case is outside the claim's assumptions"
    if solver_post != cx.spec:
        return (f"replay: the executable model ({cx.spec}) and the spec relation's post-state "
                f"({solver_post}) disagree on this case")
    if not cx.differing:
        return "replay: the claim's model agrees with the spec on the concrete case"
    return ""


# Minimising ------------------------------------------------------------------------------

class _Minimiser:
    """A solver that keeps a condition only when the query stays satisfiable with it."""

    def __init__(self, assumptions, step_ms: int):
        self.solver = z3.Solver()
        self.solver.set(timeout=step_ms)
        self.solver.add(*assumptions)
        self.exact = True   # False once a query gave no answer
        self.model = self.solver.model() if self.solver.check() == z3.sat else None

    def prefer(self, condition) -> bool:
        if self.model is not None and z3.is_true(self.model.eval(condition, model_completion=True)):
            self.solver.add(condition)   # the current model already meets it: no query needed
            return True
        result = self.solver.check(condition)
        if result == z3.sat:
            self.model = self.solver.model()
            self.solver.add(condition)
            return True
        if result == z3.unknown:
            self.exact = False
        return False

    def first(self, candidates) -> None:
        """Keep the first satisfiable candidate (the candidates go from best to worst)."""
        for condition in candidates:
            if self.prefer(condition):
                return

    def fix(self, term) -> None:
        """Fix a bit-vector term to its value nearest zero (0, -1, 1, -2, 2, ... in order):
        bit by bit on its zigzag code, so the result does not depend on the solver's whims."""
        if self.prefer(term == 0):
            return
        width = term.size()
        zigzag = (term << 1) ^ (term >> (width - 1)) if width > 1 else term
        for bit in reversed(range(width)):
            chosen = z3.Extract(bit, bit, zigzag)
            if not self.prefer(chosen == 0):
                if not self.exact:
                    return
                self.solver.add(chosen == 1)


def _count(conditions) -> z3.ArithRef:
    return z3.Sum([z3.If(c, 1, 0) for c in conditions]) if conditions else z3.IntVal(0)


def smallest_model(view: View, assumptions, negated_goal, mismatches=(), prefer=(),
                   step_ms: int = STEP_TIMEOUT_MS):
    """The model of `assumptions and negated_goal` that is smallest in the order of the
    module docstring (`prefer`: the caller's own preferences, before the tidiness ones), with every value the instruction reads fixed canonically (so the same
    query gives the same counterexample in any process), and notes when a query gave no
    answer (then it may not be the smallest)."""
    search = _Minimiser(list(assumptions) + [negated_goal], step_ms)
    if search.model is None:
        raise RuntimeError("smallest_model: the query has no model")
    cfg = view.cfg
    search.first([view.pre.vl == k for k in range(cfg.vlmax + 1)])
    search.first([_count(view.active) == n for n in range(cfg.vlmax + 1)])
    if mismatches:
        search.first([_count(mismatches) == n for n in range(1, len(mismatches) + 1)])
    for condition in list(prefer) + tidiness(view):
        search.prefer(condition)
    for term in canonical_terms(view):
        search.fix(term)
    notes = [] if search.exact else [
        "a minimisation query timed out: this counterexample may not be the smallest"]
    return search.model, notes


def tidiness(view: View) -> list:
    """Soft preferences, in order, that make a counterexample easier to read."""
    pre, insn, cfg = view.pre, view.insn, view.cfg
    flag = lambda bit: z3.Extract(bit, bit, pre.vtype) == 0
    keep_tail = [new == old for new, old in zip(view.new_vd[1:], view.old_vd[1:])]
    return [
        z3.And(*keep_tail),   # the tail kept, as Sail and Spike do
        insn.vm == 1, flag(VTYPE_VTA_BIT), flag(VTYPE_VMA_BIT), pre.vs == 1,
        insn.vd == 8, insn.vs2 == 16, insn.vs1 == 4,   # as `vredmax.vs v8, v16, v4`
        z3.And(insn.vd != insn.vs1, *[insn.vd != insn.vs2 + k for k in range(cfg.group_registers)]),
    ]


def canonical_terms(view: View) -> list:
    """Every value the instruction can read, and the spec's vd, in a fixed order."""
    pre, insn, cfg = view.pre, view.insn, view.cfg
    flags = [z3.Extract(bit, bit, pre.vtype) for bit in (VTYPE_VTA_BIT, VTYPE_VMA_BIT, 63)]
    registers = [insn.vs1] + [insn.vs2 + k for k in range(cfg.group_registers)] + [z3.BitVecVal(0, 5)]
    read = [x for r in registers for x in view.register_elements(pre, r)]
    return ([insn.vd, insn.vs2, insn.vs1, insn.vm, pre.vstart, pre.vs] + flags + read
            + view.old_vd + view.new_vd)


def refute_all(claims=CLAIMS, timeout_ms: int = DEFAULT_TIMEOUT_MS, minimise: bool = True, configs=None):
    for claim in claims:
        yield refute(claim, timeout_ms, minimise, configs)


def summary_line(results: list[Refutation]) -> str:
    count = lambda status: sum(r.status == status for r in results)
    return (f"Summary: {count(REFUTED)} refuted as expected, {count(NOT_REFUTED)} not refuted, "
            f"{count(UNKNOWN)} unknown, {count(ERROR)} errors")
