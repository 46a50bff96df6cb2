"""The smallest counterexample: a model minimised with the solver, in this order: the
smallest vl, then the fewest active lanes, then the fewest values that differ; then, only
where they keep it a counterexample, tidiness preferences (conventional registers v8, v12,
v4; no overlaps; small values; zero where nothing is read) so that what is left is what
matters. Every value the instruction reads is fixed canonically, so the same query gives
the same counterexample in any process.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from typing import Any

import z3

from vredmax.proofs.engine.outcome import View
from vredmax.spec.config import VTYPE_VMA_BIT, VTYPE_VTA_BIT

STEP_TIMEOUT_MS = 10_000  # each minimisation query


class _Minimiser:
    """A solver that keeps a condition only when the query stays satisfiable with it."""

    def __init__(
        self, assumptions: Iterable[z3.BoolRef], step_ms: int, budget_s: float | None = None
    ) -> None:
        self.solver = z3.Solver()
        self.solver.set(timeout=step_ms)
        self.solver.add(*assumptions)
        self.exact = True  # False once a query gave no answer (or the budget ran out)
        self.model: z3.ModelRef | None = self.solver.model() if self.solver.check() == z3.sat else None
        self.deadline = None if budget_s is None else time.monotonic() + budget_s

    def prefer(self, condition: z3.BoolRef) -> bool:
        if self.model is not None and z3.is_true(self.model.eval(condition, model_completion=True)):
            self.solver.add(condition)  # the current model already meets it: no query needed
            return True
        if self.deadline is not None and time.monotonic() > self.deadline:
            self.exact = False  # out of time: the model so far is kept as it is
            return False
        result = self.solver.check(condition)
        if result == z3.sat:
            self.model = self.solver.model()
            self.solver.add(condition)
            return True
        if result == z3.unknown:
            self.exact = False
        return False

    def first(self, candidates: Iterable[z3.BoolRef]) -> None:
        """Keep the first satisfiable candidate (the candidates go from best to worst)."""
        for condition in candidates:
            if self.prefer(condition):
                return

    def fix(self, term: z3.BitVecRef) -> None:
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


def _count(conditions: Sequence[z3.BoolRef]) -> Any:  # a z3 integer term
    return z3.Sum([z3.If(c, 1, 0) for c in conditions]) if conditions else z3.IntVal(0)


def smallest_model(
    view: View,
    assumptions: Iterable[z3.BoolRef],
    negated_goal: z3.BoolRef,
    mismatches: Sequence[z3.BoolRef] = (),
    prefer: Iterable[z3.BoolRef] = (),
    step_ms: int = STEP_TIMEOUT_MS,
    budget_s: float | None = None,
) -> tuple[z3.ModelRef, list[str]]:
    """The model of `assumptions and negated_goal` that is smallest in the order of the
    module docstring (`prefer`: the caller's own preferences, before the tidiness ones), with every value the instruction reads fixed canonically (so the same
    query gives the same counterexample in any process), and notes when a query gave no
    answer (then it may not be the smallest). `budget_s`: past it, no more queries are asked
    (the model found so far is returned, with the note)."""
    search = _Minimiser(list(assumptions) + [negated_goal], step_ms, budget_s)
    if search.model is None:
        raise RuntimeError("smallest_model: the query has no model")
    cfg = view.cfg
    search.first(view.pre.vl == k for k in range(cfg.vlmax + 1))  # built lazily: VLMAX may be 65536
    counted = _count(view.active)  # view.active may list only the first elements
    search.first(counted == n for n in range(len(view.active) + 1))
    if mismatches:
        search.first([_count(mismatches) == n for n in range(1, len(mismatches) + 1)])
    for condition in list(prefer) + tidiness(view):
        search.prefer(condition)
    for term in canonical_terms(view):
        search.fix(term)
    notes = (
        []
        if search.exact
        else [
            "a minimisation query timed out (or its time ran out): this counterexample may not be the smallest"
        ]
    )
    return search.model, notes


def tidiness(view: View) -> list[z3.BoolRef]:
    """Soft preferences, in order, that make a counterexample easier to read."""
    pre, insn, cfg = view.pre, view.insn, view.cfg

    def flag(bit: int) -> z3.BoolRef:
        return z3.Extract(bit, bit, pre.vtype) == 0

    keep_tail = [new == old for new, old in zip(view.new_vd[1:], view.old_vd[1:])]
    return [
        z3.And(*keep_tail),  # the tail kept, as Sail and Spike do
        insn.vm == 1,
        flag(VTYPE_VTA_BIT),
        flag(VTYPE_VMA_BIT),
        pre.vs == 1,
        insn.vd == 8,
        insn.vs2 == 16,
        insn.vs1 == 4,  # as `vredmax.vs v8, v16, v4`
        z3.And(insn.vd != insn.vs1, *[insn.vd != insn.vs2 + k for k in range(cfg.group_registers)]),
    ]


def canonical_terms(view: View) -> list[z3.BitVecRef]:
    """Every value the instruction can read, and the spec's vd, in a fixed order."""
    pre, insn, cfg = view.pre, view.insn, view.cfg
    flags = [z3.Extract(bit, bit, pre.vtype) for bit in (VTYPE_VTA_BIT, VTYPE_VMA_BIT, 63)]
    registers = [insn.vs1] + [insn.vs2 + k for k in range(cfg.group_registers)] + [z3.BitVecVal(0, 5)]
    read = [x for r in registers for x in view.register_elements(pre, r)]
    terms: list[z3.BitVecRef] = (
        [insn.vd, insn.vs2, insn.vs1, insn.vm, pre.vstart, pre.vs] + flags + read + view.old_vd + view.new_vd
    )
    return terms
