"""Prove a user's own vredmax.vs implementation against the spec, or show a counterexample.

Two plug-in levels:

- a reduction unit `reduce(ops, seed, elements, active) -> result`, written against the
  element ops of spec/bv.py (ops.smax, ops.smin, ops.ite, ops.const, ...), exactly like
  impl/sequential.py, impl/tree.py and impl/lanes.py. It is plugged into the project's
  instruction step (impl.execute.step), so it is proved at the instruction level;
- a whole instruction `step(m, pre, insn, cfg, tail) -> (traps, post)` with the contract of
  impl.execute.step: written against the machine ops `m` of spec/bv.py, `traps` a list of
  (spec.legality.TrapRule, condition) pairs, `post` an ArchState.

The proof (monolithic): on a fully symbolic pre-state of a small configuration, for each
tail policy, the implementation's outcome and post-state are ones the spec relation of
spec/relation.py allows. A reduction unit that only joins values (no comparisons) is also
proved at large configurations by the compositional method of proofs/compositional.py.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import os
import sys
import time
from dataclasses import dataclass, field

import z3

from vredmax.impl.execute import TAIL_POLICIES, execute, step
from vredmax.impl.sequential import reduce_sequential
from vredmax.proofs.claims import View
from vredmax.proofs.counterexample import Counterexample, concrete_case
from vredmax.proofs.refute import smallest_model
from vredmax.proofs.solvers import available, versions
from vredmax.proofs.verdict import Verdict, prove
from vredmax.spec import relation as spec
from vredmax.spec.bv import Concrete, Symbolic
from vredmax.spec.config import VTYPE_VTA_BIT, Config, legal_configs
from vredmax.spec.legality import ILLEGAL, RETIRED
from vredmax.spec.state import ArchState

UNIT, INSTRUCTION = "unit", "instruction"
LEVELS = (UNIT, INSTRUCTION)
UNIT_PARAMETERS = ("ops", "seed", "elements", "active")
INSTRUCTION_PARAMETERS = ("m", "pre", "insn", "cfg", "tail")
DEFAULT_TIMEOUT_MS = 60_000


def default_solver() -> str:
    """bitwuzla when installed: on these whole-instruction queries it is 3 to 20 times faster
    than Z3 (measured at VLEN=128: SEW=32 LMUL=m2 1.4-2.5 s against 5-15 s)."""
    return "bitwuzla" if available("bitwuzla") else "z3"


def solver_text(solver: str) -> str:
    found = versions()
    if solver == "auto":   # proofs/verdict.py: Z3 briefly, then bitwuzla
        return f"auto: z3 {found['z3']}, then bitwuzla {found.get('bitwuzla', '(absent)')}"
    return f"{solver} {found.get(solver, '(absent)')}"


def _small(sew: int, lmul: str) -> Config:
    return Config(128, 64, sew, lmul)


# Every SEW at VLEN=128, with register groups and a fractional LMUL; VLMAX 2 to 16 (16 only
# at SEW=8: wider elements make the monolithic query too slow), smallest first so that the
# first counterexample found is a small one.
SMALL_CONFIGS = tuple(sorted(
    [_small(64, "m1"), _small(64, "m2"), _small(32, "m1"), _small(64, "m4"), _small(32, "m2"),
     _small(16, "m1"), _small(8, "mf2"), _small(8, "m1")],
    key=lambda c: (c.vlmax, -c.sew)))
# Where the compositional method takes a reduction unit further (the seed's configuration,
# and a long group).
LARGE_CONFIGS = (Config(4096, 64, 16, "m1"), Config(1024, 64, 8, "m8"))


class LoadError(ValueError):
    """MODULE:FUNCTION cannot be loaded; the message says why."""


def load(target: str):
    """The function named by `MODULE:FUNCTION`; MODULE is a file path or a module name."""
    module_name, sep, function_name = target.rpartition(":")
    if not sep or not module_name or not function_name:
        raise LoadError(f"expected MODULE:FUNCTION (a file path or a module name), got {target!r}")
    try:
        if module_name.endswith(".py") or os.sep in module_name:
            if not os.path.isfile(module_name):
                raise LoadError(f"no such file: {module_name}")
            name = "vredmax_user_" + os.path.splitext(os.path.basename(module_name))[0]
            loader_spec = importlib.util.spec_from_file_location(name, module_name)
            module = importlib.util.module_from_spec(loader_spec)
            sys.modules[name] = module
            loader_spec.loader.exec_module(module)
        else:
            module = importlib.import_module(module_name)
    except LoadError:
        raise
    except Exception as error:  # the user's module may raise anything while importing
        raise LoadError(f"cannot load {module_name}: {type(error).__name__}: {error}") from None
    function = getattr(module, function_name, None)
    if not callable(function):
        raise LoadError(f"{module_name} has no function {function_name!r}")
    return function


def detect_level(function) -> str | None:
    """UNIT or INSTRUCTION from the function's parameters (names, else their number)."""
    try:
        names = tuple(inspect.signature(function).parameters)
    except (TypeError, ValueError):
        return None
    if names == UNIT_PARAMETERS or len(names) == len(UNIT_PARAMETERS):
        return UNIT
    if names == INSTRUCTION_PARAMETERS or len(names) == len(INSTRUCTION_PARAMETERS):
        return INSTRUCTION
    return None


def as_instruction(unit):
    """A reduction unit plugged into the project's instruction step."""
    def instruction(m, pre, insn, cfg, tail):
        return step(m, pre, insn, cfg, unit, tail)
    return instruction


@dataclass
class Check:
    """One (configuration, tail policy) proof."""

    cfg: Config
    tail: str
    method: str                    # "monolithic" or "compositional"
    verdict: Verdict
    seconds: float
    detail: str = ""
    solver: str = ""


@dataclass
class Report:
    level: str
    verdict: Verdict
    checks: list[Check] = field(default_factory=list)
    counterexample: Counterexample | None = None
    detail: str = ""
    notes: list[str] = field(default_factory=list)

    @property
    def bounds(self) -> list[str]:
        """What was PROVED: configuration, vl range, tail policies, method and solver."""
        proved = {}
        for c in self.checks:
            if c.verdict == Verdict.PROVED:
                proved.setdefault((c.cfg, c.method, c.solver), []).append(c.tail)
        return [f"{cfg}, VLMAX={cfg.vlmax}: vl 0..{cfg.vlmax}, every register and overlap symbolic, "
                f"tail {' and '.join(tails)}; {method} ({solver})"
                for (cfg, method, solver), tails in proved.items()]


class ImplementationError(Exception):
    """The implementation failed to run or broke its contract."""


def _run(function, m, pre, insn, cfg, tail):
    try:
        result = function(m, pre, insn, cfg, tail)
    except Exception as error:
        backend = "Z3 terms" if m is Symbolic else "a concrete case"
        raise ImplementationError(f"it raised {type(error).__name__} on {backend}: {error}") from None
    if not (isinstance(result, tuple) and len(result) == 2 and isinstance(result[1], ArchState)):
        raise ImplementationError("it must return (traps, post-state), as impl.execute.step does")
    traps, post = result
    try:
        traps = [(rule, cond) for rule, cond in traps]
        for rule, _ in traps:
            rule.outcome
    except (TypeError, ValueError, AttributeError):
        raise ImplementationError("traps must be a list of (spec.legality.TrapRule, condition) pairs") from None
    return traps, post


def outcome_of(traps) -> spec.Outcome:
    return spec.Outcome(z3.Or(*[c for _, c in traps]),
                        z3.Or(*[c for rule, c in traps if rule.outcome == ILLEGAL]))


def _prove(assumptions, goal, timeout_ms: int, solver: str):
    if solver != "z3":
        # Z3 prints a one-argument or/and as `(or x)`, which bitwuzla's parser rejects;
        # simplifying first removes them (an equivalent formula).
        assumptions, goal = [z3.simplify(a) for a in assumptions], z3.simplify(goal)
    return prove(assumptions, goal, timeout_ms, solver)


def check_monolithic(function, cfg: Config, tail: str, timeout_ms: int, solver: str = "z3"):
    """Prove one configuration and tail policy; (Check, Counterexample or None)."""
    start = time.perf_counter()
    pre, insn = spec.symbolic_state(cfg, "_impl"), spec.symbolic_insn("_impl")
    wf = spec.in_configuration(cfg, pre)
    try:
        traps, post = _run(function, Symbolic, pre, insn, cfg, tail)
        outcome = outcome_of(traps)
        goal = spec.relation(cfg, pre, insn, outcome, post)
    except ImplementationError as error:
        return Check(cfg, tail, "monolithic", Verdict.ERROR, time.perf_counter() - start, str(error)), None
    except Exception as error:  # e.g. a post-state whose fields are not Z3 terms of the right sorts
        return Check(cfg, tail, "monolithic", Verdict.ERROR, time.perf_counter() - start,
                     f"its post-state does not fit the spec: {type(error).__name__}: {error}"), None
    answer = _prove(wf, goal, timeout_ms, solver)
    check = Check(cfg, tail, "monolithic", answer.verdict, answer.seconds, answer.detail,
                  solver_text(solver))
    if answer.verdict != Verdict.COUNTEREXAMPLE:
        return check, None
    view = View(Symbolic, cfg, pre, insn, post, outcome.trapped, wf)
    # Prefer a case where vd itself differs from the executable spec's (the telling kind).
    _, reference = step(Symbolic, pre, insn, cfg, reduce_sequential, tail)
    vd_differs = z3.Select(post.regs, insn.vd) != z3.Select(reference.regs, insn.vd)
    model, notes = smallest_model(view, wf, z3.Not(goal), prefer=[vd_differs])
    concrete_pre, concrete_insn = concrete_case(model, cfg, pre, insn)
    try:
        cx = replay(function, cfg, concrete_pre, concrete_insn, tail, notes)
    except ImplementationError as error:
        check.verdict, check.detail = Verdict.ERROR, f"replaying the counterexample: {error}"
        return check, None
    check.seconds = time.perf_counter() - start
    if not cx.differing:
        check.verdict = Verdict.ERROR
        check.detail = ("the solver's counterexample does not replay: the implementation behaves "
                        "differently on concrete values than on Z3 terms")
    return check, cx


def replay(function, cfg, pre, insn, tail, notes=()) -> Counterexample:
    """Run the implementation and the executable spec on the case; keep what the spec forbids."""
    traps, post = _run(function, Concrete, pre, insn, cfg, tail)
    result = execute(pre, insn, "sequential", tail)
    impl_trapped = any(bool(c) for _, c in traps)
    spec_values, impl_values, widths = {}, {}, {}
    notes = list(notes)

    def compare(name, spec_value, impl_value, width=None):
        if name == "vd[0]" or spec_value != impl_value:
            spec_values[name], impl_values[name] = spec_value, impl_value
            if width:
                widths[name] = width

    compare("traps", result.outcome != RETIRED, impl_trapped)
    sew, agnostic = cfg.sew, bool(pre.vtype >> VTYPE_VTA_BIT & 1)
    ones = (1 << sew) - 1
    for register in range(32):
        expected, got = result.state.regs[register], post.regs[register]
        for k in range(cfg.elements_per_register):
            want = Concrete.extract(expected, k * sew + sew - 1, k * sew)
            have = Concrete.extract(got, k * sew + sew - 1, k * sew)
            name = f"vd[{k}]" if register == insn.vd else f"v{register}[{k}]"
            old = Concrete.extract(pre.regs[register], k * sew + sew - 1, k * sew)
            if (register == insn.vd and k > 0 and agnostic and have in (old, ones)
                    and result.outcome == RETIRED and pre.vl and have != want):
                notes.append(f"{name}: {have:#x} differs from this tail policy's, but an agnostic "
                             "tail element may be old or all ones")
                continue
            compare(name, want, have)
    for name, width in (("vstart", 64), ("vl", 64), ("vtype", 64), ("vs", 2)):
        compare(name, getattr(result.state, name), getattr(post, name), width)
    reason = result.reason if result.outcome != RETIRED else ""
    return Counterexample(cfg, pre, insn, tail, spec_values, impl_values, "implementation",
                          reason, notes, widths)


def check_compositional(unit, cfg: Config, tail: str, timeout_ms: int) -> Check:
    """A reduction unit at a large configuration, by the compositional method."""
    from vredmax.proofs.compositional import check, refinement_parts
    from vredmax.proofs.setting import Setting
    start = time.perf_counter()
    solvers = set()
    try:
        parts = refinement_parts(Setting(cfg, "_user"), f"user/{tail}", unit)
        for part in parts:
            answer = check(part.build(), timeout_ms)
            solvers.add(answer.solver)
            if answer.verdict != Verdict.PROVED:
                return Check(cfg, tail, "compositional", answer.verdict, time.perf_counter() - start,
                             f"{part.text}: {answer.detail}", ", ".join(map(solver_text, sorted(solvers))))
    except Exception as error:  # the method is another module's; report, do not crash
        return Check(cfg, tail, "compositional", Verdict.ERROR, time.perf_counter() - start,
                     f"the compositional method failed: {type(error).__name__}: {error}")
    return Check(cfg, tail, "compositional", Verdict.PROVED, time.perf_counter() - start,
                 f"{len(parts)} parts", ", ".join(map(solver_text, sorted(solvers))))


MONOLITHIC_MAX_VLMAX = 16


def check_implementation(function, level: str, configs=SMALL_CONFIGS + LARGE_CONFIGS,
                         timeout_ms: int = DEFAULT_TIMEOUT_MS, tails=TAIL_POLICIES,
                         solver: str | None = None, on_check=None) -> Report:
    """Prove the implementation at every configuration, stopping at the first failure.

    Configurations with VLMAX <= 16 get the monolithic proof (with a counterexample when it
    fails); larger ones, for a reduction unit, the compositional method. `on_check(check)`
    is called after each proof (for progress output).
    """
    instruction = as_instruction(function) if level == UNIT else function
    solver = solver or default_solver()
    report = Report(level, Verdict.PROVED)
    for cfg in configs:
        if cfg.vlmax > MONOLITHIC_MAX_VLMAX and level != UNIT:
            report.notes.append(f"{cfg}: skipped, a whole instruction is proved only up to "
                                f"VLMAX={MONOLITHIC_MAX_VLMAX}")
            continue
        for tail in tails:
            if cfg.vlmax <= MONOLITHIC_MAX_VLMAX:
                check, cx = check_monolithic(instruction, cfg, tail, timeout_ms, solver)
            else:
                check, cx = check_compositional(function, cfg, tail, timeout_ms), None
            report.checks.append(check)
            if on_check:
                on_check(check)
            if check.verdict == Verdict.PROVED:
                continue
            if check.method == "compositional" and "not expressible" in check.detail:
                report.notes.append(f"{cfg}: not proved, the compositional method needs a unit "
                                    f"that only joins values ({check.detail})")
                break
            report.verdict, report.counterexample = check.verdict, cx
            report.detail = f"{cfg}, tail {tail}, {check.method}" + (f": {check.detail}" if check.detail else "")
            return report
    if not any(c.verdict == Verdict.PROVED for c in report.checks):
        report.verdict = Verdict.ERROR
        report.detail = "nothing was proved: no configuration could be checked"
    return report


def select_configs(configs, vlen=None, sew=None, lmul=None) -> list[Config]:
    return [c for c in configs if (vlen is None or c.vlen == vlen) and (sew is None or c.sew == sew)
            and (lmul is None or c.lmul == lmul)]


def candidate_configs(vlen: int | None) -> list[Config]:
    """What the --sew/--lmul filters choose from: at VLEN=128 (the default) every legal
    configuration with VLMAX <= 16 plus LARGE_CONFIGS; at another VLEN every legal one."""
    if vlen is None or vlen == 128:
        small = [c for c in legal_configs(64, [128]) if c.vlmax <= MONOLITHIC_MAX_VLMAX]
        found = small + ([c for c in LARGE_CONFIGS] if vlen is None else [])
    else:
        found = legal_configs(64, [vlen])
    return sorted(found, key=lambda c: (c.vlmax, -c.sew))
