"""The symbolic world of one configuration: pre-state, instruction, and each subject's post-state.

A subject is what an obligation is proved of: "spec" (any post-state the relation of
spec/relation.py allows), or an algorithm with a tail policy, "tree/ones", run through
impl.execute.step on Z3 terms: the code `vredmax exec` runs.

Everything is built lazily and kept, since many obligations share it.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any

import z3

from vredmax.impl import ALGORITHMS
from vredmax.impl.execute import TAIL_POLICIES, operands, step
from vredmax.proofs.engine.truth_guard import no_truth_tests
from vredmax.spec import relation as spec
from vredmax.spec import z3fast as fast
from vredmax.spec.bv import ReductionUnit
from vredmax.spec.config import Config
from vredmax.spec.legality import ILLEGAL, TrapRule
from vredmax.spec.state import ArchState
from vredmax.spec.z3fast import FastSymbolic

SPEC = "spec"
IMPLEMENTATIONS = tuple(f"{name}/{tail}" for name in ALGORITHMS for tail in TAIL_POLICIES)
SUBJECTS = (SPEC,) + IMPLEMENTATIONS


def split_subject(subject: str) -> tuple[str, str]:
    name, tail = subject.split("/")
    return name, tail


@dataclass(frozen=True)
class Run:
    """One execution: its outcome and post-state (for the spec: free variables)."""

    outcome: spec.Outcome
    post: ArchState


@dataclass
class Captured:
    """What step handed the reduction unit, and the fresh value it got back."""

    seed: object = None
    elements: list[z3.BitVecRef] | None = None
    active: list[z3.BoolRef] | None = None


def impl_outcome(traps: list[tuple[TrapRule, Any]]) -> spec.Outcome:
    """Trapped when any rule fires; illegal when one of the illegal-instruction rules does
    (they come first in priority, so they decide the trap's kind)."""
    trapped = z3.Or(*[cond for _, cond in traps])
    illegal = z3.Or(*[cond for rule, cond in traps if rule.outcome == ILLEGAL])
    return spec.Outcome(trapped, illegal)


class Setting:
    """Pre-state `pre`, instruction `insn` and the assumptions `wf` for one configuration."""

    def __init__(
        self,
        cfg: Config,
        tag: str = "",
        pre: ArchState | None = None,
        insn: spec.SymbolicInsn | None = None,
        units: dict[str, ReductionUnit] | None = None,
    ) -> None:
        self.cfg = cfg
        self.tag = tag
        self.units = dict(ALGORITHMS, **(units or {}))  # an algorithm name -> its reduction unit
        self.pre = pre if pre is not None else spec.symbolic_state(cfg, tag)
        self.insn = insn if insn is not None else spec.symbolic_insn(tag)
        self.wf = spec.in_configuration(cfg, self.pre)

    def twin(self, tag: str, **fields: Any) -> "Setting":
        """A second pre-state for two-run properties: the same instruction, and the fields
        given (the others shared with this one)."""
        cache: dict[str, Setting] = self.__dict__.setdefault("_twins", {})
        if tag not in cache:
            cache[tag] = Setting(self.cfg, self.tag + tag, self.pre.with_(**fields), self.insn, self.units)
        return cache[tag]

    # the spec's view of the operands
    @cached_property
    def seed(self) -> z3.BitVecRef:
        return spec.seed(self.cfg, self.pre, self.insn)

    @cached_property
    def elements(self) -> list[z3.BitVecRef]:
        return spec.elements(self.cfg, self.pre, self.insn)

    @cached_property
    def activity(self) -> list[z3.BoolRef]:
        return spec.activity(self.cfg, self.pre, self.insn)

    @cached_property
    def mask_bits(self) -> list[z3.BoolRef]:
        """Mask bit i set, for i < VLMAX (the spec's `mask_bit`)."""
        return fast.bits(z3.Select(self.pre.regs, 0), self.cfg.vlmax)

    def result_pred(self) -> spec.ResultPred:
        return lambda result: spec.result_ok(result, self.seed, self.elements, self.activity)

    # the conditions
    @cached_property
    def illegal(self) -> z3.BoolRef:
        return spec.illegal(self.cfg, self.pre, self.insn)

    @cached_property
    def reserved(self) -> z3.BoolRef:
        return spec.reserved(self.cfg, self.pre, self.insn)

    @cached_property
    def writes_vd(self) -> z3.BoolRef:
        """Neither illegal nor reserved, and vl > 0."""
        return spec.retires_with_elements(self.cfg, self.pre, self.insn)

    @cached_property
    def legal(self) -> z3.BoolRef:
        return z3.And(z3.Not(self.illegal), z3.Not(self.reserved))

    # runs
    @cached_property
    def free_run(self) -> Run:
        """A post-state and outcome about which nothing is known (the spec's subject)."""
        post = spec.symbolic_state(self.cfg, f"{self.tag}_post")
        return Run(spec.symbolic_outcome(self.tag), post)

    @cached_property
    def free_tail(self) -> z3.BoolRef:
        """The free run's "each tail element old or all ones" (the spec's agnostic tail)."""
        return spec.each_tail_element_old_or_ones(
            self.cfg, z3.Select(self.pre.regs, self.insn.vd), z3.Select(self.free_run.post.regs, self.insn.vd)
        )

    def relation_cases(
        self, run: Run, result_pred: spec.ResultPred | None
    ) -> list[tuple[str, z3.BoolRef, z3.BoolRef]]:
        """spec.relation_cases of this pre-state and `run`, kept per run and predicate (the
        instruction obligations all ask for the free run's with the uninterpreted predicate:
        the same terms, since Z3 terms are hash-consed, built once)."""
        cache: dict[tuple[int, int], tuple[Run, object, list[tuple[str, z3.BoolRef, z3.BoolRef]]]] = (
            self.__dict__.setdefault("_relation_cases", {})
        )
        key = (id(run), id(result_pred))
        if key not in cache:  # (the entry holds run and predicate: their ids stay theirs)
            cache[key] = (
                run,
                result_pred,
                spec.relation_cases(self.cfg, self.pre, self.insn, run.outcome, run.post, result_pred),
            )
        return cache[key][2]

    def relation(self, run: Run, result_pred: spec.ResultPred | None = None) -> z3.BoolRef:
        return spec.relation(
            self.cfg,
            self.pre,
            self.insn,
            run.outcome,
            run.post,
            result_pred if result_pred is not None else self.result_pred(),
        )

    @cached_property
    def uninterpreted_result(self) -> z3.FuncDeclRef:
        """An uninterpreted predicate on vd[0], standing for the spec's characterisation."""
        return z3.Function(f"result_ok{self.tag}", z3.BitVecSort(self.cfg.sew), z3.BoolSort())

    def implementation_run(self, subject: str, reduce: ReductionUnit | None = None) -> Run:
        """The algorithm's execution on the symbolic pre-state (the whole instruction)."""
        key = (subject, reduce)
        cache: dict[tuple[str, ReductionUnit | None], Run] = self.__dict__.setdefault("_runs", {})
        if key not in cache:
            name, tail = split_subject(subject)
            unit = reduce if reduce is not None else self.units[name]
            with no_truth_tests():  # an algorithm may not branch on a term (proofs/engine/truth_guard.py)
                traps, post = step(
                    FastSymbolic, self.pre, self.insn, self.cfg, unit, tail, sources=self.sources
                )
            cache[key] = Run(impl_outcome(traps), post)
        return cache[key]

    @cached_property
    def sources(self) -> tuple[z3.BitVecRef, list[z3.BitVecRef], list[z3.BoolRef]]:
        """The step's operands (seed, vs2 elements, active flags), read once for every run."""
        with no_truth_tests():
            return operands(FastSymbolic, self.pre, self.insn, self.cfg)

    def abstract_run(self, tail: str) -> tuple[Run, z3.BitVecRef, Captured]:
        """step with the reduction unit cut out: it records its inputs and returns a fresh r."""
        cache: dict[str, tuple[Run, z3.BitVecRef, Captured]] = self.__dict__.setdefault("_abstract", {})
        if tail not in cache:
            result = z3.BitVec(f"r{self.tag}_{tail}", self.cfg.sew)
            captured = Captured()

            def cut(ops: Any, seed: Any, elements: list[Any], active: list[Any]) -> Any:
                captured.seed, captured.elements, captured.active = seed, list(elements), list(active)
                return result

            with no_truth_tests():
                traps, post = step(
                    FastSymbolic, self.pre, self.insn, self.cfg, cut, tail, sources=self.sources
                )
            cache[tail] = (Run(impl_outcome(traps), post), result, captured)
        return cache[tail]

    def result_of(self, run: Run) -> z3.BitVecRef:
        return spec.result_of(self.cfg, run.post, self.insn)


def bounds_text(cfg: Config) -> str:
    """The bounds a PROVED names: the configuration and what is symbolic."""
    return (
        f"VLEN={cfg.vlen} ELEN={cfg.elen} SEW={cfg.sew} LMUL={cfg.lmul} VLMAX={cfg.vlmax}, "
        f"vl 0..{cfg.vlmax}; vd vs2 vs1 vm vta vma vill vstart VS and all 32 registers symbolic"
    )
