"""The two proof methods of one configuration and tail policy: the monolithic query over the
whole instruction (its counterexample minimised by the solver), and the cut-point method of
proofs/python/cutpoint.py and cutstep.py (its counterexample minimised on concrete values,
proofs/python/shrink.py); each counterexample replayed on the user's code and the spec."""

from __future__ import annotations

import time

import z3

from vredmax.impl.execute import step
from vredmax.impl.sequential import reduce_sequential
from vredmax.proofs.engine.minimise import smallest_model
from vredmax.proofs.engine.outcome import View
from vredmax.proofs.engine.truth_guard import no_truth_tests
from vredmax.proofs.engine.verdict import Verdict, prove
from vredmax.proofs.python.configurations import ANY_TAIL, MONOLITHIC, SCALE, solver_text
from vredmax.proofs.python.loading import UNIT
from vredmax.proofs.python.results import Check
from vredmax.proofs.python.running import (
    ImplementationError,
    as_instruction,
    case_text,
    checked_unit,
    replay,
    run_instruction,
)
from vredmax.proofs.python.shrink import minimise_concretely
from vredmax.spec import relation as spec
from vredmax.spec.bv import Symbolic
from vredmax.spec.config import Config
from vredmax.spec.encoding import Insn
from vredmax.spec.legality import ILLEGAL
from vredmax.spec.state import NUM_VREGS, ArchState


# The monolithic proof ------------------------------------------------------------------------------


def outcome_of(traps) -> spec.Outcome:
    return spec.Outcome(
        z3.Or(*[_bool_term(c) for _, c in traps]),
        z3.Or(*[_bool_term(c) for rule, c in traps if rule.outcome == ILLEGAL]),
    )


def _bool_term(cond):
    return z3.BoolVal(cond) if isinstance(cond, bool) else cond


def _prove(assumptions, goal, timeout_ms: int, solver: str):
    if solver != "z3":
        # Z3 prints a one-argument or/and as `(or x)`, which bitwuzla's parser rejects;
        # simplifying first removes them (an equivalent formula).
        assumptions, goal = [z3.simplify(a) for a in assumptions], z3.simplify(goal)
    return prove(assumptions, goal, timeout_ms, solver)


def check_monolithic(function, cfg: Config, tail: str, timeout_ms: int, solver: str = "z3"):
    """Prove one configuration and tail policy with one query; (Check, Counterexample or None)."""
    start = time.perf_counter()
    pre, insn = spec.symbolic_state(cfg, "_impl"), spec.symbolic_insn("_impl")
    wf = spec.in_configuration(cfg, pre)
    try:
        traps, post = run_instruction(function, Symbolic, pre, insn, cfg, tail)
        outcome = outcome_of(traps)
        with no_truth_tests():
            goal = spec.relation(cfg, pre, insn, outcome, post)
    except ImplementationError as error:
        return Check(cfg, tail, MONOLITHIC, Verdict.ERROR, time.perf_counter() - start, str(error)), None
    except Exception as error:  # e.g. a post-state whose terms do not fit the spec's
        return Check(
            cfg,
            tail,
            MONOLITHIC,
            Verdict.ERROR,
            time.perf_counter() - start,
            f"its post-state does not fit the spec: {type(error).__name__}: {error}",
        ), None
    answer = _prove(wf, goal, timeout_ms, solver)
    check = Check(cfg, tail, MONOLITHIC, answer.verdict, answer.seconds, answer.detail, solver_text(solver))
    if answer.verdict != Verdict.COUNTEREXAMPLE:
        return check, None
    if answer.model is None:
        check.verdict = Verdict.UNKNOWN
        check.detail = f"the solver found a counterexample but gave no model: {answer.detail}"
        return check, None
    view = View(Symbolic, cfg, pre, insn, post, outcome.trapped, wf)
    # Prefer a case where vd itself differs from the executable spec's (the telling kind).
    _, reference = step(Symbolic, pre, insn, cfg, reduce_sequential, tail)
    vd_differs = z3.Select(post.regs, insn.vd) != z3.Select(reference.regs, insn.vd)
    model, notes = smallest_model(view, wf, z3.Not(goal), prefer=[vd_differs])
    concrete_pre, concrete_insn = model_case(model, cfg, pre, insn)
    return _confirmed(check, function, cfg, concrete_pre, concrete_insn, tail, notes, start)


def _confirmed(check, function, cfg, pre, insn, tail, notes, start):
    """The counterexample replayed; an ERROR when it does not replay."""
    try:
        cx = replay(function, cfg, pre, insn, tail, notes)
    except ImplementationError as error:
        check.verdict, check.detail = Verdict.ERROR, f"replaying the counterexample: {error}"
        return check, None
    check.seconds = time.perf_counter() - start
    if not cx.differing:
        check.verdict = Verdict.ERROR
        check.detail = (
            "checker fault: the solver's counterexample does not replay (on the concrete "
            f"case the implementation does what the spec allows): {case_text(pre, insn, tail)}"
        )
        return check, cx
    return check, cx


def model_case(model: z3.ModelRef, cfg: Config, pre: ArchState, insn) -> tuple[ArchState, Insn]:
    """The concrete pre-state and instruction of a model, every register as the model has it
    (an implementation may read registers the spec does not)."""
    value = lambda term: model.eval(term, model_completion=True).as_long()
    fields = Insn(vd=value(insn.vd), vs2=value(insn.vs2), vs1=value(insn.vs1), vm=value(insn.vm))
    regs = tuple(value(z3.Select(pre.regs, r)) for r in range(NUM_VREGS))
    state = ArchState(
        cfg.vlen, cfg.elen, regs, value(pre.vtype), value(pre.vl), value(pre.vstart), value(pre.vs)
    )
    state.check()  # the proof's domain is the concrete one (spec/state.py): a model is a valid case
    return state, fields


# The cut-point method (proofs/python/cutpoint.py) ---------------------------------------------------

METHOD_MISSING = (
    "method not available: the cut-point method (proofs/python/cutpoint.py) for configurations "
    "past the monolithic limit is not installed"
)


def _cutpoint():
    try:
        from vredmax.proofs.python import cutpoint
    except ImportError:
        return None
    return cutpoint


def check_at_scale(function, level: str, cfg: Config, tail: str, timeout_ms: int):
    """One configuration by the cut-point method; (Check, Counterexample or None)."""
    start = time.perf_counter()
    cutpoint = _cutpoint()
    entry = getattr(cutpoint, "prove_unit_at_scale" if level == UNIT else "prove_step_at_scale", None)
    if entry is None:
        what = "a reduction unit" if level == UNIT else "a whole instruction"
        return Check(cfg, tail, SCALE, Verdict.ERROR, 0.0, f"{METHOD_MISSING} for {what}"), None
    raised: list[ImplementationError] = []  # the user's code failed inside the method

    def recorded(run):
        def call(*args):
            try:
                return run(*args)
            except ImplementationError as error:
                raised.append(error)
                raise

        call.__name__ = getattr(function, "__name__", "reduce")
        return call

    try:
        if level == UNIT:
            result = entry(recorded(checked_unit(function)), cfg, timeout_ms)
        else:
            result = entry(
                recorded(
                    lambda m, pre, insn, cfg_, tail_: run_instruction(function, m, pre, insn, cfg_, tail_)
                ),
                cfg,
                tail,
                timeout_ms,
            )
    except ImplementationError as error:
        return Check(cfg, tail, SCALE, Verdict.ERROR, time.perf_counter() - start, str(error)), None
    except Exception as error:  # another module's method: report it, do not crash
        return Check(
            cfg,
            tail,
            SCALE,
            Verdict.ERROR,
            time.perf_counter() - start,
            f"the cut-point method failed: {type(error).__name__}: {error}",
        ), None
    if raised and result.verdict != Verdict.COUNTEREXAMPLE:
        # the method may read a failure of the user's code as "cannot tell": it is an ERROR
        return Check(cfg, tail, SCALE, Verdict.ERROR, time.perf_counter() - start, str(raised[0])), None
    method = getattr(result, "method", "") or SCALE
    check = Check(
        cfg,
        tail,
        method,
        result.verdict,
        time.perf_counter() - start,
        result.detail or "",
        result.solver or "",
        getattr(result, "witness", ""),
    )
    if result.verdict != Verdict.COUNTEREXAMPLE:
        return check, None
    if result.case is None:
        check.verdict = Verdict.ERROR
        check.detail = f"the cut-point method refuted it but gave no concrete case: {result.detail}"
        return check, None
    pre, insn = result.case
    instruction = as_instruction(function) if level == UNIT else function
    replay_tail = "undisturbed" if tail == ANY_TAIL else tail
    try:
        pre, insn = minimise_concretely(instruction, cfg, pre, insn, replay_tail)
    except ImplementationError as error:
        check.verdict, check.detail = Verdict.ERROR, f"replaying the counterexample: {error}"
        return check, None
    return _confirmed(check, instruction, cfg, pre, insn, replay_tail, [], start)
