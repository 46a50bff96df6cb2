"""Solver verdicts a user can trust: PROVED only from an unsat on satisfiable assumptions."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from enum import Enum

import z3


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


def prove(assumptions, goal, timeout_ms: int = 60_000) -> Answer:
    """Prove `assumptions => goal`, after checking that the assumptions can hold at all."""
    start = time.perf_counter()
    solver = z3.Solver()
    solver.set(timeout=timeout_ms)
    solver.add(*assumptions)
    vacuity = solver.check()
    if vacuity == z3.unsat:
        return Answer(Verdict.ERROR, time.perf_counter() - start,
                      "vacuous: the assumptions are unsatisfiable")
    if vacuity == z3.unknown:
        return Answer(Verdict.UNKNOWN, time.perf_counter() - start,
                      f"satisfiability of the assumptions: {solver.reason_unknown()}")
    solver.add(z3.Not(goal))
    result = solver.check()
    seconds = time.perf_counter() - start
    if result == z3.unsat:
        return Answer(Verdict.PROVED, seconds)
    if result == z3.sat:
        return Answer(Verdict.COUNTEREXAMPLE, seconds, model=solver.model())
    return Answer(Verdict.UNKNOWN, seconds, solver.reason_unknown())
