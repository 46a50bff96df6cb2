"""Prove a user's own vredmax.vs implementation against the spec, or show a counterexample.

Two plug-in levels:

- a reduction unit `reduce(ops, seed, elements, active) -> result`, written against the
  element ops of spec/bv.py (ops.smax, ops.smin, ops.ite, ops.sgt, ...), exactly like
  impl/sequential.py, impl/tree.py and impl/lanes.py. It is plugged into the project's
  instruction step (impl.execute.step), which `vredmax prove` proves for any unit output;
- a whole instruction `step(m, pre, insn, cfg, tail) -> (traps, post)` with the contract of
  impl.execute.step: written against the machine ops `m` of spec/bv.py, `traps` a list of
  (spec.legality.TrapRule, condition) pairs, `post` an ArchState.

One configuration (VLEN, ELEN, SEW, LMUL) is checked by `check_config`, per tail policy:
- at small VLMAX (MONOLITHIC_MAX_VLMAX): one query over the whole instruction on a fully
  symbolic pre-state (the spec relation of spec/relation.py must allow the outcome and the
  post-state); a counterexample is minimised by the solver (smallest vl, fewest active lanes);
- beyond: the cut-point method of proofs/python/cutpoint.py (its cost is linear in VLMAX), whose
  counterexample is minimised here on concrete values.
A counterexample is always replayed: the user's code and the executable spec run on the
concrete case, compared by outcome kind and field by field, the architecture's freedoms
(agnostic tail, reserved encodings) allowed. After a PROVED, seeded random concrete states
go through both as a cross-check of the checker itself.

The user's code runs under proofs/engine/truth_guard.py (a Python truth test of a symbolic value is
an ERROR naming the user's line), and its errors are reported with the traceback trimmed to
the user's file. proofs/python/isolation.py runs `check_config` in a child process.

This module is the driver (`check_config`, `check_implementation`, `InProcess`) and the names
the CLI, vredmax.api, isolation.py, session.py and the tests import; the parts, each about one
idea: `loading` (MODULE:FUNCTION, the level), `configurations` (which, and by which method),
`running` (the user's code run and replayed), `concrete_first` (the concrete states before
any proof), `methods` (the monolithic query, the cut-point method), `shrink` (a concrete
counterexample made smaller), `results` (Check, ConfigResult, Report).
"""

from __future__ import annotations

import time

from vredmax.impl.execute import TAIL_POLICIES
from vredmax.proofs.engine.verdict import Verdict
from vredmax.proofs.python.concrete_first import concrete_first, random_cross_check
from vredmax.proofs.python.configurations import (
    ANY_TAIL,
    CONCRETE,
    FALLBACK_MAX_VLMAX,
    INSTRUCTION_MAX_VLEN,
    MONOLITHIC,
    MONOLITHIC_MAX_BITS,
    MONOLITHIC_MAX_VLEN,
    MONOLITHIC_MAX_VLMAX,
    SCALE,
    SCALE_PICKS,
    VLENS,
    all_configs,
    default_configs,
    default_solver,
    max_vlen,
    method_for,
    order,
    solver_text,
)
from vredmax.proofs.python.loading import (
    INSTRUCTION,
    INSTRUCTION_PARAMETERS,
    LEVELS,
    UNIT,
    UNIT_PARAMETERS,
    LoadError,
    detect_level,
    load,
)
from vredmax.proofs.python.methods import (
    METHOD_MISSING,
    check_at_scale,
    check_monolithic,
    model_case,
    outcome_of,
)
from vredmax.proofs.python.results import SEVERITY, Check, ConfigResult, Report, bounds_text, worst
from vredmax.proofs.python.running import (
    ImplementationError,
    as_instruction,
    call_user,
    case_text,
    checked_unit,
    impl_outcome_kind,
    replay,
    run_instruction,
)
from vredmax.proofs.python.shrink import MINIMISE_BUDGET_S, minimise_concretely
from vredmax.spec.config import Config, legal_configs

__all__ = [
    "ANY_TAIL",
    "CONCRETE",
    "DEFAULT_RANDOM",
    "DEFAULT_TIMEOUT_MS",
    "FALLBACK_MAX_VLMAX",
    "INSTRUCTION",
    "INSTRUCTION_MAX_VLEN",
    "INSTRUCTION_PARAMETERS",
    "LEVELS",
    "METHOD_MISSING",
    "MINIMISE_BUDGET_S",
    "MONOLITHIC",
    "MONOLITHIC_MAX_BITS",
    "MONOLITHIC_MAX_VLEN",
    "MONOLITHIC_MAX_VLMAX",
    "SCALE",
    "SCALE_PICKS",
    "SEVERITY",
    "UNIT",
    "UNIT_PARAMETERS",
    "VLENS",
    "Check",
    "ConfigResult",
    "ImplementationError",
    "InProcess",
    "LoadError",
    "Report",
    "all_configs",
    "as_instruction",
    "bounds_text",
    "call_user",
    "case_text",
    "check_at_scale",
    "check_config",
    "check_implementation",
    "check_monolithic",
    "checked_unit",
    "default_configs",
    "default_solver",
    "detect_level",
    "impl_outcome_kind",
    "load",
    "max_vlen",
    "method_for",
    "minimise_concretely",
    "model_case",
    "order",
    "outcome_of",
    "random_cross_check",
    "replay",
    "run_instruction",
    "smaller_configs",
    "solver_text",
    "worst",
]

DEFAULT_TIMEOUT_MS = 60_000
DEFAULT_RANDOM = 500

# One configuration ---------------------------------------------------------------------------


def check_config(
    function,
    level: str,
    cfg: Config,
    timeout_ms: int = DEFAULT_TIMEOUT_MS,
    tails=TAIL_POLICIES,
    solver: str | None = None,
    random_states: int = DEFAULT_RANDOM,
    seed: int = 0,
    directed: bool = True,
) -> ConfigResult:
    """Check the implementation at one configuration: first on concrete states (the directed
    ones and `random_states` random ones, proofs/python/concrete.py), whose disagreement is a
    counterexample whatever a proof would say; then by proof with each tail policy (a unit's
    cut-point proof covers both at once)."""
    start = time.perf_counter()
    method = method_for(level, cfg)
    result = ConfigResult(cfg, method or "none")
    if method is None:
        result.checks.append(
            Check(
                cfg,
                ANY_TAIL,
                "none",
                Verdict.ERROR,
                0.0,
                f"a whole instruction is checked up to VLEN={INSTRUCTION_MAX_VLEN}",
            )
        )
        return result
    instruction = as_instruction(function) if level == UNIT else function
    if not concrete_first(instruction, cfg, tails, random_states, seed, directed, result):
        result.seconds = time.perf_counter() - start
        return result
    solver = solver or default_solver()
    pending = list(tails if method == MONOLITHIC or level == INSTRUCTION else [ANY_TAIL])
    while pending:
        tail = pending.pop(0)
        if method == MONOLITHIC or tail == "fallback":
            tail = tail if tail != "fallback" else pending.pop(0)
            check, cx = check_monolithic(instruction, cfg, tail, timeout_ms, solver)
        else:
            check, cx = check_at_scale(function, level, cfg, tail, timeout_ms)
            if (
                check.verdict == Verdict.UNKNOWN
                and cfg.vlmax <= FALLBACK_MAX_VLMAX
                and cfg.vlen <= MONOLITHIC_MAX_VLEN
            ):
                # the code's structure did not allow the cut: the whole query may still go
                # through (a unit's cut covered both tail policies: each gets its own query)
                result.notes.append(f"cut points, tail {tail}: {check.detail}; the monolithic query instead")
                result.cut_witness = result.cut_witness or check.witness
                pending[:0] = [x for t in (tails if tail == ANY_TAIL else [tail]) for x in ("fallback", t)]
                continue
        result.checks.append(check)
        if check.verdict == Verdict.COUNTEREXAMPLE:
            result.counterexample = cx
            break
        if check.verdict == Verdict.ERROR and cx is not None:
            result.counterexample = cx  # a checker fault, with its case
    result.seconds = time.perf_counter() - start
    return result


# Every configuration: the orchestration ---------------------------------------------------------


class InProcess:
    """Runs each configuration's check in this process, one after the other (tests, and code
    the user trusts). proofs/isolation.Jobs has the same interface: a child process per
    configuration, on vredmax/cli/cluster.py's workers."""

    def __init__(self, function, level: str, **options):
        self.function, self.level, self.options = function, level, options
        self.queue: list[Config] = []

    def submit(self, cfg: Config) -> None:
        self.queue.append(cfg)

    def results(self):
        while self.queue:
            cfg = self.queue.pop(0)
            yield check_config(self.function, self.level, cfg, **self.options)

    def cancel_all(self) -> None:
        self.queue.clear()


def smaller_configs(cfg: Config, done) -> list[Config]:
    """The same SEW, LMUL and ELEN at every smaller legal VLEN not yet checked, smallest first."""
    return [
        c
        for c in legal_configs(cfg.elen, [v for v in VLENS if v < cfg.vlen], [cfg.sew], [cfg.lmul])
        if c not in done
    ]


def check_implementation(pool, level: str, configs, on_result=None) -> Report:
    """Check every configuration; stop at the first counterexample, then look for the same
    bug at the same SEW and LMUL with a smaller VLEN (the smallest configuration that shows
    it is the counterexample reported). `on_result(result)` after each configuration."""
    report = Report(level)
    configs = list(configs)
    for cfg in configs:
        pool.submit(cfg)
    failed = None
    for result in pool.results():
        report.results.append(result)
        if on_result:
            on_result(result)
        if result.verdict == Verdict.COUNTEREXAMPLE:
            failed = result
            pool.cancel_all()
            break
    done = {r.cfg for r in report.results}
    report.not_checked = [c for c in configs if c not in done]
    if failed is not None:
        report.counterexample = failed.counterexample
        for cfg in smaller_configs(failed.cfg, done):
            pool.submit(cfg)
            result = next(pool.results())
            report.results.append(result)
            if on_result:
                on_result(result)
            if result.verdict == Verdict.COUNTEREXAMPLE and result.counterexample is not None:
                report.counterexample = result.counterexample
                report.notes.append(
                    f"the first failure was at {failed.cfg}; the smallest VLEN with the "
                    f"same SEW and LMUL that fails is {result.cfg.vlen}"
                )
                break
    else:
        errors = [r for r in report.results if r.verdict == Verdict.ERROR and r.counterexample is not None]
        if errors:
            report.counterexample = errors[0].counterexample
    return report
