"""Refute the wrong assumptions of proofs/claims/claims.py, with the smallest counterexamples.

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
from vredmax.proofs.claims.claims import CLAIMS, CLAIMS_BY_ID, Claim, View
from vredmax.proofs.engine.counterexample import (
    Counterexample,
    concrete_case,
    model_register,
    observed_values,
    tail_policy_for,
)
from vredmax.proofs.engine.minimise import smallest_model
from vredmax.proofs.engine.verdict import Verdict, prove
from vredmax.spec.config import Config, decode_vtype

REFUTED, NOT_REFUTED, UNKNOWN, ERROR = "refuted", "not refuted", "unknown", "error"
STATUSES = (REFUTED, NOT_REFUTED, UNKNOWN, ERROR)
DEFAULT_TIMEOUT_MS = 60_000


@dataclass
class Refutation:
    claim: Claim
    status: str
    verdict: Verdict  # the solver's raw verdict on the claim
    cfg: Config | None = None  # where it was refuted (or the last one tried)
    counterexample: Counterexample | None = None
    detail: str = ""
    seconds: float = 0.0
    bounds: list[str] = field(default_factory=list)
    asked: object = None  # a claim-language claim's counterexample (proofs/claims/ask.py)

    @property
    def ok(self) -> bool:
        return self.status == REFUTED


def bounds_text(cfg: Config) -> str:
    return (
        f"{cfg}, VLMAX={cfg.vlmax}: vl 0..{cfg.vlmax}, every vd/vs2/vs1/vm (overlaps too), "
        "every register value, vta, vma, vstart, VS"
    )


def claimed_values(claim: Claim | str, pre, insn, tail: str = "undisturbed") -> dict:
    """What a universal claim (or its id) says the outcome of a concrete case is: its model
    run, or for a claim-language claim the values its conclusion states."""
    if isinstance(claim, str):
        claim = CLAIMS_BY_ID[claim]
    if claim.text:
        from vredmax.proofs.claims import ask  # ask builds on this module's minimiser

        result = execute(pre, insn, "sequential", tail)
        return ask.claimed_on(claim.text, pre, insn, result.state, result.outcome != "retired")
    vt = decode_vtype(pre.vtype, pre.elen)
    cfg = Config(pre.vlen, pre.elen, vt.sew, vt.lmul)
    return dict(claim.claimed(View.concrete(cfg, pre, insn, tail)))


def refute(
    claim: Claim, timeout_ms: int = DEFAULT_TIMEOUT_MS, minimise: bool = True, configs=None
) -> Refutation:
    """Refute the claim at its configurations (or `configs`), stopping at the first
    counterexample (a universal claim) or at the first configuration where an existential
    claim is not refuted."""
    start = time.perf_counter()
    outcome = Refutation(claim, ERROR, Verdict.ERROR, detail="no configuration to check")
    for cfg in claim.configs if configs is None else configs:
        refute_at = _refute_text_at if claim.text else _refute_at
        outcome = refute_at(claim, cfg, timeout_ms, minimise, outcome.bounds)
        if outcome.status != REFUTED or claim.universal and outcome.counterexample is not None:
            break
    outcome.seconds = time.perf_counter() - start
    return outcome


def _refute_text_at(claim: Claim, cfg: Config, timeout_ms: int, minimise: bool, bounds: list) -> Refutation:
    """A claim in the claim language: decided by the engine of `vredmax ask`."""
    from vredmax.proofs.claims import ask  # ask builds on this module's minimiser

    decision = ask.decide(claim.text, cfg, None, timeout_ms, minimise)
    bounds = bounds + [bounds_text(cfg)]
    if decision.verdict == Verdict.COUNTEREXAMPLE:
        asked = decision.counterexample
        cx = asked.shown
        how = (
            "counterexample found and replayed on the executable model"
            if asked.replays
            else "counterexample found; it uses a freedom of the spec that the executable model does not "
            "take (" + "; ".join(asked.free) + ")"
        )
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
    goal = claim.holds(view)  # may add spec constraints to the view
    assumptions = view.constraints + claim.when(view)
    bounds = bounds + [bounds_text(cfg)]
    if claim.universal:
        answer = prove(assumptions, goal, timeout_ms)
        if answer.verdict == Verdict.COUNTEREXAMPLE:
            return _counterexample(claim, cfg, view, assumptions, goal, answer, minimise, bounds)
        if answer.verdict == Verdict.PROVED:
            return Refutation(
                claim,
                NOT_REFUTED,
                answer.verdict,
                cfg,
                bounds=bounds,
                detail="the solver proved the claim: it is not refuted here",
            )
    else:
        answer = prove(assumptions, z3.Not(goal), timeout_ms)
        if answer.verdict == Verdict.PROVED:
            return Refutation(
                claim,
                REFUTED,
                answer.verdict,
                cfg,
                bounds=bounds,
                detail="the solver proved that no state meets the claim",
            )
        if answer.verdict == Verdict.COUNTEREXAMPLE:
            pre, insn = concrete_case(answer.model, cfg, view.pre, view.insn)
            return Refutation(
                claim,
                NOT_REFUTED,
                answer.verdict,
                cfg,
                bounds=bounds,
                detail=f"the solver found a state that meets the claim: {pre}, {insn}",
            )
    status = UNKNOWN if answer.verdict == Verdict.UNKNOWN else ERROR
    return Refutation(claim, status, answer.verdict, cfg, detail=answer.detail, bounds=bounds)


def _counterexample(claim, cfg, view, assumptions, goal, answer, minimise, bounds) -> Refutation:
    model, notes = answer.model, []
    if minimise:
        model, notes = smallest_model(view, assumptions, z3.Not(goal), list(claim.mismatches(view).values()))
    pre, insn = concrete_case(model, cfg, view.pre, view.insn)
    names = list(claim.claimed(View.concrete(cfg, pre, insn)))
    solver_post = {name: _model_value(model, view.observed(name)) for name in names}
    tail = tail_policy_for(cfg, pre, insn, model_register(model, view.post, insn.vd)) or "undisturbed"
    replay = View.concrete(cfg, pre, insn, tail)
    result = execute(pre, insn, "sequential", tail)
    spec = observed_values(result, insn, cfg.sew, names)
    cx = Counterexample(
        cfg,
        pre,
        insn,
        tail,
        spec,
        claimed_values(claim, pre, insn, tail),
        "claim",
        result.reason if result.outcome != "retired" else "",
        notes,
    )
    problem = _replay_problem(claim, replay, cx, solver_post)
    if problem:
        return Refutation(claim, ERROR, answer.verdict, cfg, cx, detail=problem, bounds=bounds)
    return Refutation(
        claim,
        REFUTED,
        answer.verdict,
        cfg,
        cx,
        bounds=bounds,
        detail="counterexample found and replayed on the executable model",
    )


def _model_value(model, term):
    value = model.eval(term, model_completion=True)
    return z3.is_true(value) if z3.is_bool(value) else value.as_long()


def _replay_problem(claim, replay: View, cx: Counterexample, solver_post: dict) -> str:
    """Why the concrete replay does not confirm the counterexample ('' when it does)."""
    if not all(claim.when(replay)):
        return "replay: the concrete case is outside the claim's assumptions"
    if solver_post != cx.spec:
        return (
            f"replay: the executable model ({cx.spec}) and the spec relation's post-state "
            f"({solver_post}) disagree on this case"
        )
    if not cx.differing:
        return "replay: the claim's model agrees with the spec on the concrete case"
    return ""


def refute_all(claims=CLAIMS, timeout_ms: int = DEFAULT_TIMEOUT_MS, minimise: bool = True, configs=None):
    for claim in claims:
        yield refute(claim, timeout_ms, minimise, configs)


def summary_line(results: list[Refutation]) -> str:
    count = lambda status: sum(r.status == status for r in results)
    return (
        f"Summary: {count(REFUTED)} refuted as expected, {count(NOT_REFUTED)} not refuted, "
        f"{count(UNKNOWN)} unknown, {count(ERROR)} errors"
    )
