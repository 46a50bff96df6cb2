"""Solver verdicts a user can trust: PROVED only from an unsat on satisfiable assumptions."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from enum import Enum

import z3

from proofs import solvers


class Verdict(str, Enum):
    PROVED = "PROVED"
    COUNTEREXAMPLE = "COUNTEREXAMPLE"
    UNKNOWN = "UNKNOWN"  # timeout or the solver gave up: never reported as proved
    ERROR = "ERROR"      # e.g. vacuous: the assumptions are unsatisfiable


@dataclass
class Answer:
    verdict: Verdict
    seconds: float
    detail: str = ""
    model: z3.ModelRef | None = field(default=None, repr=False)
    solver: str = "z3"


VACUOUS = "vacuous: the assumptions are unsatisfiable"


AUTO_Z3_MS = 2_000   # "auto": Z3 gets this long first, then bitwuzla the whole timeout


def prove(assumptions, goal, timeout_ms: int = 60_000, solver: str = "z3") -> Answer:
    """Prove `assumptions => goal`, after checking that the assumptions can hold at all.

    `solver` is "z3" (in-process, with a model for a counterexample), "bitwuzla"/"cvc5"
    (through SMT-LIB2; a counterexample's model is then asked of Z3, within the timeout), or
    "auto": Z3 for up to AUTO_Z3_MS, then bitwuzla if Z3 had not decided (each is much
    faster than the other on some of the big-register queries).
    """
    if solver == "auto":
        first = prove(assumptions, goal, min(timeout_ms, AUTO_Z3_MS), "z3")
        if first.verdict != Verdict.UNKNOWN or not solvers.available("bitwuzla"):
            return first
        second = _prove_elsewhere(assumptions, goal, timeout_ms, "bitwuzla")
        second.seconds += first.seconds
        return second
    if solver != "z3":
        return _prove_elsewhere(assumptions, goal, timeout_ms, solver)
    start = time.perf_counter()
    engine = z3.Solver()
    engine.set(timeout=timeout_ms)
    engine.add(*assumptions)
    vacuity = engine.check()
    if vacuity == z3.unsat:
        return Answer(Verdict.ERROR, time.perf_counter() - start, VACUOUS)
    if vacuity == z3.unknown:
        return Answer(Verdict.UNKNOWN, time.perf_counter() - start,
                      f"satisfiability of the assumptions: {engine.reason_unknown()}")
    engine.add(z3.Not(goal))
    result = engine.check()
    seconds = time.perf_counter() - start
    if result == z3.unsat:
        return Answer(Verdict.PROVED, seconds)
    if result == z3.sat:
        return Answer(Verdict.COUNTEREXAMPLE, seconds, model=engine.model())
    return Answer(Verdict.UNKNOWN, seconds, engine.reason_unknown())


def _prove_elsewhere(assumptions, goal, timeout_ms: int, solver: str) -> Answer:
    start = time.perf_counter()
    checked = solvers.check_text(solver, solvers.smt2_script(assumptions, goal), timeout_ms)
    seconds = time.perf_counter() - start
    if checked.assumptions == "unsat":
        return Answer(Verdict.ERROR, seconds, VACUOUS, solver=solver)
    if checked.assumptions != "sat":
        return Answer(Verdict.UNKNOWN, seconds, f"satisfiability of the assumptions: {checked.reason}",
                      solver=solver)
    if checked.negated_goal == "unsat":
        return Answer(Verdict.PROVED, seconds, solver=solver)
    if checked.negated_goal == "sat":
        model = _z3_model(assumptions, goal, timeout_ms)
        return Answer(Verdict.COUNTEREXAMPLE, time.perf_counter() - start,
                      "" if model is not None else f"found by {solver}; Z3 gave no model in time",
                      model=model, solver=solver)
    return Answer(Verdict.UNKNOWN, seconds, checked.reason, solver=solver)


def _z3_model(assumptions, goal, timeout_ms: int):
    engine = z3.Solver()
    engine.set(timeout=timeout_ms)
    engine.add(*assumptions, z3.Not(goal))
    return engine.model() if engine.check() == z3.sat else None
