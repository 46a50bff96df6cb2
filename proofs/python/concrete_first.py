"""Concrete states before any proof: the directed and seeded random states of
proofs/python/concrete.py run through the user's code and the executable spec; a
disagreement is a counterexample (minimised) whatever a proof would say, a failure of the
code on a real state an ERROR naming the case."""

from __future__ import annotations

import time

from vredmax.proofs.engine.verdict import Verdict
from vredmax.proofs.python.concrete import DIRECTED, RANDOM, concrete_states, random_count
from vredmax.proofs.python.configurations import ANY_TAIL, CONCRETE
from vredmax.proofs.python.results import Check
from vredmax.proofs.python.running import ImplementationError, case_text, replay
from vredmax.proofs.python.shrink import minimise_concretely
from vredmax.spec.config import Config


def random_cross_check(
    function, cfg: Config, tails, count: int, seed: int, directed: bool = False, counts: dict | None = None
):
    """Run the concrete states (`count` seeded random ones, after the directed ones when asked)
    through the implementation and the executable spec per tail policy: (random states run,
    the first disagreement or None); `counts` gets the states run of each kind. An
    ImplementationError (the code failed on a real state) names the case."""
    counts = {} if counts is None else counts
    for kind, pre, insn, tail in concrete_states(cfg, list(tails), count, seed, directed):
        try:
            cx = replay(function, cfg, pre, insn, tail)
        except ImplementationError as error:
            raise ImplementationError(
                f"{error}\n    on the concrete case {case_text(pre, insn, tail)}"
            ) from None
        counts[kind] = counts.get(kind, 0) + 1
        if cx.differing:
            return counts.get(RANDOM, 0), cx
    return counts.get(RANDOM, 0), None


def concrete_first(instruction, cfg, tails, random_states, seed, directed, result) -> bool:
    """The concrete states; False (with the check recorded) when they decide the configuration:
    a disagreement (a counterexample, minimised) or a failure of the code on a real state."""
    start = time.perf_counter()
    counts: dict = {}
    try:
        done, cx = random_cross_check(
            instruction, cfg, list(tails), random_count(random_states, cfg), seed, directed, counts
        )
    except ImplementationError as error:
        result.random_states, result.directed_states = counts.get(RANDOM, 0), counts.get(DIRECTED, 0)
        result.method = CONCRETE
        result.checks.append(
            Check(
                cfg,
                ANY_TAIL,
                CONCRETE,
                Verdict.ERROR,
                time.perf_counter() - start,
                f"on a concrete state: {error}",
            )
        )
        return False
    result.random_states, result.directed_states = done, counts.get(DIRECTED, 0)
    if cx is None:
        return True
    try:
        pre, insn = minimise_concretely(instruction, cfg, cx.pre, cx.insn, cx.tail)
        cx = replay(instruction, cfg, pre, insn, cx.tail) if (pre, insn) != (cx.pre, cx.insn) else cx
    except ImplementationError:
        pass
    result.counterexample, result.method = cx, CONCRETE
    result.checks.append(
        Check(
            cfg,
            cx.tail,
            CONCRETE,
            Verdict.COUNTEREXAMPLE,
            time.perf_counter() - start,
            f"a concrete state shows the implementation and the executable spec disagreeing "
            f"on {', '.join(cx.differing)} (found before any proof)",
        )
    )
    return False
