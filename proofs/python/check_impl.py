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
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import os
import sys
import time
import traceback
from dataclasses import dataclass, field

import z3

from vredmax.impl.execute import TAIL_POLICIES, execute, operands, step
from vredmax.impl.sequential import reduce_sequential
from vredmax.proofs.engine.outcome import View
from vredmax.proofs.engine.counterexample import Counterexample
from vredmax.proofs.engine.judging import judge_step
from vredmax.proofs.engine.minimise import smallest_model
from vredmax.proofs.engine.solvers import available, versions
from vredmax.proofs.engine.truth_guard import SymbolicBranch, no_truth_tests
from vredmax.proofs.python import plugin, rewrite
from vredmax.proofs.python.paths import explore
from vredmax.proofs.python.branches import Escalate
from vredmax.proofs.python.concrete import DIRECTED, RANDOM, concrete_states, random_count
from vredmax.proofs.python.values import INTERNAL_FILES, Refusal
from vredmax.proofs.engine.verdict import Verdict, prove
from vredmax.spec import relation as spec
from vredmax.spec.bv import Concrete, Symbolic, Z3Elements
from vredmax.spec.config import XLEN, Config, legal_configs
from vredmax.spec.encoding import Insn
from vredmax.spec.legality import ILLEGAL, RESERVED, RETIRED
from vredmax.spec.state import NUM_VREGS, ArchState

UNIT, INSTRUCTION = "unit", "instruction"
LEVELS = (UNIT, INSTRUCTION)
UNIT_PARAMETERS = ("ops", "seed", "elements", "active")
INSTRUCTION_PARAMETERS = ("m", "pre", "insn", "cfg", "tail")
DEFAULT_TIMEOUT_MS = 60_000
DEFAULT_RANDOM = 500
# The monolithic query grows fast (measured with bitwuzla on this machine, two at a time:
# VLMAX x SEW = 128 bits 6-26 s, 256 bits 12-35 s or a 60 s timeout, 512 bits 9 s to a
# timeout); the cut-point method proves a unit at VLMAX 8..128 in 1-3 s. So a unit gets the
# monolithic query (an independent cross-check, with the solver's smallest counterexample)
# only at VLMAX <= 4; a whole instruction, until a cut-point method for it is there, up to
# VLMAX 8 and 256 bits (every register group at VLEN=128 needs 256).
MONOLITHIC_MAX_VLMAX = {"unit": 4, "instruction": 8}
MONOLITHIC_MAX_BITS = {"unit": 256, "instruction": 256}
FALLBACK_MAX_VLMAX = 16          # code the cut cannot take apart gets the whole query up to here
MONOLITHIC_MAX_VLEN = 1024       # whole-register terms wider than this: the cut-point method
INSTRUCTION_MAX_VLEN = 4096      # a whole instruction is checked up to here
MONOLITHIC, SCALE = "monolithic", "cut points"
ANY_TAIL = "any"                 # a unit's cut-point proof does not depend on the tail policy
VLENS = tuple(1 << k for k in range(7, 17))


def default_solver() -> str:
    """bitwuzla when installed: on these whole-instruction queries it is 3 to 20 times faster
    than Z3 (measured at VLEN=128: SEW=32 LMUL=m2 1.4-2.5 s against 5-15 s)."""
    return "bitwuzla" if available("bitwuzla") else "z3"


def solver_text(solver: str) -> str:
    found = versions()
    if solver == "auto":   # proofs/engine/verdict.py: Z3 briefly, then bitwuzla
        return f"auto: z3 {found['z3']}, then bitwuzla {found.get('bitwuzla', '(absent)')}"
    return f"{solver} {found.get(solver, '(absent)')}"


# Which configurations ------------------------------------------------------------------

# One configuration per VLEN beyond 128, chosen so that every SEW and LMUL shows up at scale
# (the seed's VLEN=4096 SEW=16 m1 among them) and the last is the largest VLMAX there is.
SCALE_PICKS = {256: (16, "m2"), 512: (32, "m4"), 1024: (8, "m8"), 2048: (64, "m8"),
               4096: (16, "m1"), 8192: (32, "m2"), 16384: (8, "mf2"), 32768: (64, "m1"),
               65536: (8, "m8")}


def max_vlen(level: str) -> int:
    return VLENS[-1] if level == UNIT else INSTRUCTION_MAX_VLEN


def default_configs(level: str, elen: int = 64) -> list[Config]:
    """Every SEW x LMUL at VLEN=128 and one configuration at each larger VLEN (up to 65536
    for a unit, 4096 for a whole instruction)."""
    configs = legal_configs(elen, [128])
    for vlen, (sew, lmul) in SCALE_PICKS.items():
        if vlen <= max_vlen(level):
            legal = legal_configs(elen, [vlen], [sew], [lmul])
            configs += legal or legal_configs(elen, [vlen], [min(sew, elen)], ["m1"])
    return order(configs)


def all_configs(level: str, elen: int = 64) -> list[Config]:
    """Every legal configuration (for a whole instruction: with VLEN <= 4096)."""
    return order(legal_configs(elen, [v for v in VLENS if v <= max_vlen(level)]))


def order(configs) -> list[Config]:
    """Smallest first (so a first counterexample is a small one), without duplicates."""
    return sorted(set(configs), key=lambda c: (c.vlmax, c.vlen, -c.sew, c.lmul))


def method_for(level: str, cfg: Config) -> str | None:
    """The method that checks a configuration, or None when the level does not go there."""
    if cfg.vlen > max_vlen(level):
        return None
    if (cfg.vlmax <= MONOLITHIC_MAX_VLMAX[level] and cfg.vlmax * cfg.sew <= MONOLITHIC_MAX_BITS[level]
            and cfg.vlen <= MONOLITHIC_MAX_VLEN):
        return MONOLITHIC
    return SCALE


# Loading the user's code ------------------------------------------------------------------

class LoadError(ValueError):
    """MODULE:FUNCTION cannot be loaded; the message says why."""


def load(target: str):
    """The function named by `MODULE:FUNCTION`; MODULE is a file path or a module name.

    A file is loaded from exactly that path under a name of its own (`vredmax_user_<name>`),
    so a user file called impl.py or spec.py is never confused with the project's packages;
    its directory goes first on sys.path, so its own `import helper` finds its neighbours, and
    the working directory last (its packages, as `python` would find them)."""
    module_name, sep, function_name = target.rpartition(":")
    if not sep or not module_name or not function_name:
        raise LoadError(f"expected MODULE:FUNCTION (a file path or a module name), got {target!r}")
    if ":" in module_name and not os.path.isfile(module_name):
        raise LoadError(f"expected MODULE:FUNCTION with one ':' (a file path or a module name, then the "
                        f"function's name), got {target!r}")
    try:
        if module_name.endswith(".py") or os.sep in module_name:
            if not os.path.isfile(module_name):
                raise LoadError(f"no such file: {module_name}")
            path = os.path.abspath(module_name)
            name = "vredmax_user_" + "".join(c if c.isalnum() else "_" for c in
                                             os.path.splitext(os.path.basename(path))[0])
            # rewritten so that its branches on symbolic values can be merged or explored
            # (proofs/python/rewrite.py), its neighbours too when it imports them
            loader_spec, module = rewrite.module_from_file(name, path)
            folder = os.path.dirname(path)
            rewrite.user_folder(folder)
            if folder not in sys.path:
                sys.path.insert(0, folder)
            if os.getcwd() not in sys.path:     # as `python` does: packages of the working directory
                sys.path.append(os.getcwd())
            sys.modules[name] = module
            loader_spec.loader.exec_module(module)
        else:
            module = importlib.import_module(module_name)
    except LoadError:
        raise
    except BaseException as error:  # the user's module may raise anything while importing
        # the innermost frame outside importlib's machinery (a SyntaxError names its own place)
        frames = [f for f in traceback.extract_tb(error.__traceback__)
                  if not f.filename.startswith("<frozen") and "importlib" not in f.filename
                  and os.path.abspath(f.filename) != os.path.abspath(__file__)
                  and os.path.abspath(f.filename) not in INTERNAL_FILES]
        where = (f" (at {frames[-1].filename}:{frames[-1].lineno})"
                 if frames and not isinstance(error, SyntaxError) else "")
        raise LoadError(f"cannot load {module_name}: {type(error).__name__}: {error}{where}") from None
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


# Running the user's code ---------------------------------------------------------------------

class ImplementationError(Exception):
    """The implementation failed to run or broke its contract; the message says how."""


# Called with True before and False after each call into the user's code: proofs/python/isolation.py
# sets it to tell the parent process, which enforces a wall-clock limit on the user's code.
USER_CALL_HOOK = None


def _user_file(function) -> str | None:
    code = getattr(function, "__code__", None)
    return os.path.abspath(code.co_filename) if code else None


def _user_frames(error: BaseException, user_file: str | None) -> str:
    """The traceback of `error`, only the frames in the user's file (else the last frame)."""
    frames = traceback.extract_tb(error.__traceback__)
    mine = [f for f in frames if user_file and os.path.abspath(f.filename) == user_file]
    shown = mine or frames[-1:]
    return "".join("\n    " + line.rstrip().replace("\n", "\n    ")
                   for line in traceback.format_list(shown)) if shown else ""


def call_user(function, args, backend: str, name: str | None = None, cx=None):
    """Run the user's function on `args` under the truth-test guard (and in the symbolic run's
    context `cx`, proofs/python/values.py); any exception (also SystemExit and
    KeyboardInterrupt, which the user's code may raise) is an ImplementationError whose message
    names the user's file and line. A refusal of a symbolic value is an error even when the
    user's code caught it."""
    name = name or getattr(function, "__name__", "the implementation")
    if USER_CALL_HOOK:
        USER_CALL_HOOK(True)
    try:
        with no_truth_tests() as guard, (cx if cx is not None else _NO_CONTEXT):
            result = function(*args)
    except SymbolicBranch as error:
        raise ImplementationError(f"{name} branches on a symbolic value at {error}") from None
    except BaseException as error:
        if isinstance(error, (ImplementationError, Escalate)):
            raise
        if isinstance(error, Refusal):
            raise ImplementationError(f"{name} {error.verb()} {error}") from None
        if type(error).__name__ == "SymbolicUse":   # the cut-point tracer's refusal (proofs/python/trace.py)
            raise ImplementationError(f"{name} branches on a symbolic value at {error}") from None
        if isinstance(error, TypeError) and len(traceback.extract_tb(error.__traceback__)) == 1:
            # the call itself failed: the function does not take these parameters
            raise ImplementationError(f"{name} cannot be called with the {len(args)} arguments of its "
                                      f"plug-in level: {error}") from None
        raise ImplementationError(f"{name} raised {type(error).__name__} on {backend}: {error}"
                                  + _user_frames(error, _user_file(function))) from None
    finally:
        if USER_CALL_HOOK:
            USER_CALL_HOOK(False)
    if cx is not None and cx.refusals:
        raise ImplementationError(f"{name} {cx.refusals[0].verb()} {cx.refusals[0]} (the error was caught "
                                  "inside the implementation)")
    if guard.refusals:
        raise ImplementationError(f"{name} branches on a symbolic value at {guard.refusals[0]} "
                                  "(the error was caught inside the implementation)")
    return result


class _NoContext:
    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return False


_NO_CONTEXT = _NoContext()


def _user_files(function) -> list:
    found = _user_file(function)
    return [found] if found else []


def checked_unit(unit):
    """The unit as step calls it: handed the proxies of its backend (proofs/python/plugin.py),
    run through `call_user` (while proving, once per path: proofs/python/paths.py), its result
    checked to be one SEW-bit element value and returned as the backend's term."""
    name = getattr(unit, "__name__", "reduce")

    def run(ops, seed, elements, active):
        cx = plugin.unit_context(ops, _user_files(unit))
        backend = ("a concrete case" if cx is None else "Z3 terms" if isinstance(ops, Z3Elements)
                   else "symbolic values (cut points)")
        if cx is None:
            result = call_user(unit, plugin.unit_arguments(ops, seed, elements, active, cx), backend, name, cx)
            return _contract(name, lambda: plugin.unit_result(result, ops, cx))
        paths = explore(cx, lambda: call_user(unit, plugin.unit_arguments(ops, seed, elements, active, cx),
                                               backend, name, cx))
        results = []
        for condition, (kind, value) in paths:
            if kind == "error":
                raise _path_error(name, value, backend)
            with cx:
                results.append((condition, _contract(name, lambda: plugin.unit_result(value, ops, cx))))
        return plugin.merge_terms(cx, results)
    run.__name__ = name
    return run


def _contract(name, make):
    try:
        return make()
    except plugin.ContractError as error:
        raise ImplementationError(f"{name} {error}") from None
    except Refusal as error:
        raise ImplementationError(f"{name} {error.verb()} {error}") from None


def _path_error(name, error, backend):
    """An ImplementationError for a path of the symbolic run that failed."""
    if isinstance(error, ImplementationError):
        return error
    if isinstance(error, Refusal):
        return ImplementationError(f"{name} {error.verb()} {error}")
    return ImplementationError(f"{name} raised {type(error).__name__} on {backend}: {error}")


def as_instruction(unit):
    """A reduction unit plugged into the project's instruction step."""
    checked = checked_unit(unit)

    def instruction(m, pre, insn, cfg, tail):
        return step(m, pre, insn, cfg, checked, tail)
    instruction.__name__ = getattr(unit, "__name__", "reduce")
    instruction.project_step = True
    return instruction


def run_instruction(function, m, pre, insn, cfg, tail):
    """(traps, post) of a whole-instruction function, its contract checked; while proving,
    the user's function gets proxies (proofs/python/plugin.py), is run once per path
    (proofs/python/paths.py) and its result comes back as Z3 terms."""
    name = getattr(function, "__name__", "step")
    backend = "Z3 terms" if m.symbolic else "a concrete case"
    if getattr(function, "project_step", False):
        result = function(m, pre, insn, cfg, tail)    # the unit inside is guarded itself
        traps, post = _contract(name, lambda: plugin.instruction_result(result, cfg, None))
    else:
        cx = plugin.instruction_context(m, pre, cfg, _user_files(function))

        def once():
            machine, user_pre, user_insn = plugin.instruction_arguments(m, pre, insn, cfg, cx)
            return call_user(function, (machine, user_pre, user_insn, cfg, tail), backend, name, cx)
        if cx is None:
            result = once()
            traps, post = _contract(name, lambda: plugin.instruction_result(result, cfg, cx))
        else:
            results = []
            for condition, (kind, value) in explore(cx, once):
                if kind == "error":
                    raise _path_error(name, value, backend)
                results.append((condition, _contract(name, lambda: plugin.instruction_result(value, cfg, cx))))
            traps, post = _contract(name, lambda: plugin.merge_steps(cx, results, cfg))
    _check_post(name, post, cfg, m.symbolic, traps)
    return traps, post


def _check_post(name, post: ArchState, cfg: Config, symbolic: bool, traps) -> None:
    widths = {"vtype": XLEN, "vl": XLEN, "vstart": XLEN, "vs": 2}
    if symbolic:
        for rule, cond in traps:
            if not (isinstance(cond, z3.BoolRef) or isinstance(cond, bool)):
                raise ImplementationError(f"{name}: the condition of trap rule {rule.id} is "
                                          f"{type(cond).__name__}, not a condition")
        regs_sort = z3.ArraySort(z3.BitVecSort(5), z3.BitVecSort(cfg.vlen))
        if not (isinstance(post.regs, z3.ArrayRef) and post.regs.sort() == regs_sort):
            raise ImplementationError(f"{name}: post.regs must be the register file as a Z3 array from "
                                      f"5-bit numbers to {cfg.vlen}-bit registers (as pre.regs is)")
        for field_name, width in widths.items():
            value = getattr(post, field_name)
            if not (isinstance(value, z3.BitVecRef) and value.size() == width):
                raise ImplementationError(f"{name}: post.{field_name} must be a {width}-bit value, got "
                                          f"{_describe_value(value)}")
        return
    if not (isinstance(post.regs, (tuple, list)) and len(post.regs) == NUM_VREGS
            and all(isinstance(r, int) and 0 <= r < 1 << cfg.vlen for r in post.regs)):
        raise ImplementationError(f"{name}: post.regs must be {NUM_VREGS} registers of {cfg.vlen} bits "
                                  "on a concrete case")
    for field_name, width in widths.items():
        value = getattr(post, field_name)
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 1 << width:
            raise ImplementationError(f"{name}: post.{field_name} must be a {width}-bit value on a "
                                      f"concrete case, got {value!r}")


def _describe_value(value) -> str:
    if isinstance(value, z3.BoolRef):
        return "a condition"
    if isinstance(value, z3.BitVecRef):
        return f"a {value.size()}-bit value"
    return type(value).__name__


# Results ---------------------------------------------------------------------------------------

@dataclass
class Check:
    """One (configuration, tail policy) proof."""

    cfg: Config
    tail: str
    method: str
    verdict: Verdict
    seconds: float
    detail: str = ""
    solver: str = ""
    witness: str = ""     # the cut-point method's local case (cutpoint.ScaleResult.witness)


@dataclass
class ConfigResult:
    """Everything checked at one configuration."""

    cfg: Config
    method: str
    checks: list[Check] = field(default_factory=list)
    counterexample: Counterexample | None = None
    random_states: int = 0          # random concrete states run, before the proofs
    directed_states: int = 0        # directed concrete states run (proofs/python/concrete.py)
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0
    output: str = ""                # what the user's code printed (proofs/python/isolation.py)
    # the local case of the cut-point attempt the monolithic query replaced (see Check.witness)
    cut_witness: str = ""

    @property
    def verdict(self) -> Verdict:
        return worst([c.verdict for c in self.checks]) if self.checks else Verdict.ERROR

    @property
    def detail(self) -> str:
        bad = [c for c in self.checks if c.verdict != Verdict.PROVED]
        if not bad:
            return ""
        c = bad[0]
        return f"{c.cfg}, tail {c.tail}, {c.method}" + (f": {c.detail}" if c.detail else "")


SEVERITY = (Verdict.COUNTEREXAMPLE, Verdict.ERROR, Verdict.UNKNOWN, Verdict.PROVED)


def worst(verdicts) -> Verdict:
    return min(verdicts, key=SEVERITY.index, default=Verdict.PROVED)


# The monolithic proof ------------------------------------------------------------------------------

def outcome_of(traps) -> spec.Outcome:
    return spec.Outcome(z3.Or(*[_bool_term(c) for _, c in traps]),
                        z3.Or(*[_bool_term(c) for rule, c in traps if rule.outcome == ILLEGAL]))


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
        return Check(cfg, tail, MONOLITHIC, Verdict.ERROR, time.perf_counter() - start,
                     f"its post-state does not fit the spec: {type(error).__name__}: {error}"), None
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
        check.detail = ("checker fault: the solver's counterexample does not replay (on the concrete "
                        f"case the implementation does what the spec allows): {case_text(pre, insn, tail)}")
        return check, cx
    return check, cx


def model_case(model: z3.ModelRef, cfg: Config, pre: ArchState, insn) -> tuple[ArchState, Insn]:
    """The concrete pre-state and instruction of a model, every register as the model has it
    (an implementation may read registers the spec does not)."""
    value = lambda term: model.eval(term, model_completion=True).as_long()
    fields = Insn(vd=value(insn.vd), vs2=value(insn.vs2), vs1=value(insn.vs1), vm=value(insn.vm))
    regs = tuple(value(z3.Select(pre.regs, r)) for r in range(NUM_VREGS))
    state = ArchState(cfg.vlen, cfg.elen, regs, value(pre.vtype), value(pre.vl), value(pre.vstart),
                      value(pre.vs))
    state.check()   # the proof's domain is the concrete one (spec/state.py): a model is a valid case
    return state, fields


def case_text(pre: ArchState, insn: Insn, tail: str) -> str:
    import json
    from vredmax.impl.case import case_json
    return json.dumps(case_json(pre, insn, tail))


# Replay: the truth on one concrete case -------------------------------------------------------

def impl_outcome_kind(traps) -> str:
    """illegal-instruction when an illegal rule fired, reserved when only a reserved one did."""
    fired = [rule.outcome for rule, cond in traps if cond]
    if ILLEGAL in fired:
        return ILLEGAL
    return RESERVED if fired else RETIRED


def replay(function, cfg: Config, pre: ArchState, insn: Insn, tail: str, notes=()) -> Counterexample:
    """Run the implementation on the case and judge its outcome and post-state with the
    spec's decision procedure (spec/profiles.py, profile "any": exactly what the architecture
    allows: the outcome by kind, the agnostic tail, a reserved encoding's anything, VS turning
    Dirty). When it is not allowed, the counterexample shows the values that differ from the
    executable spec's (run with the same tail policy) and the judge's reasons as notes; when it
    is allowed, nothing differs."""
    traps, post = run_instruction(function, Concrete, pre, insn, cfg, tail)
    return judge_step(cfg, pre, insn, tail, impl_outcome_kind(traps), post, notes)


# The cut-point method (proofs/python/cutpoint.py) ---------------------------------------------------

METHOD_MISSING = ("method not available: the cut-point method (proofs/python/cutpoint.py) for configurations "
                  "past the monolithic limit is not installed")


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
    raised: list[ImplementationError] = []   # the user's code failed inside the method

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
            result = entry(recorded(lambda m, pre, insn, cfg_, tail_: run_instruction(
                function, m, pre, insn, cfg_, tail_)), cfg, tail, timeout_ms)
    except ImplementationError as error:
        return Check(cfg, tail, SCALE, Verdict.ERROR, time.perf_counter() - start, str(error)), None
    except Exception as error:   # another module's method: report it, do not crash
        return Check(cfg, tail, SCALE, Verdict.ERROR, time.perf_counter() - start,
                     f"the cut-point method failed: {type(error).__name__}: {error}"), None
    if raised and result.verdict != Verdict.COUNTEREXAMPLE:
        # the method may read a failure of the user's code as "cannot tell": it is an ERROR
        return Check(cfg, tail, SCALE, Verdict.ERROR, time.perf_counter() - start, str(raised[0])), None
    method = getattr(result, "method", "") or SCALE
    check = Check(cfg, tail, method, result.verdict, time.perf_counter() - start, result.detail or "",
                  result.solver or "", getattr(result, "witness", ""))
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


# Minimising a concrete counterexample -----------------------------------------------------------

MINIMISE_BUDGET_S = 30.0


def minimise_concretely(function, cfg, pre, insn, tail, budget_s: float = MINIMISE_BUDGET_S):
    """A smaller failing case from a failing one, by replaying: the smallest vl found by
    bisection (checked), then as few active lanes as a mask can leave (delta debugging over
    the mask bits). Each candidate is kept only if it still fails; within a time budget."""
    deadline = time.perf_counter() + budget_s
    fails = lambda p, i: bool(replay(function, cfg, p, i, tail).differing)
    if not fails(pre, insn):
        return pre, insn
    pre = _smallest_vl(pre, insn, fails, deadline)
    moved = _decisive_element_lower(cfg, pre, insn, tail, fails, deadline)
    if moved is not None:
        pre = _smallest_vl(moved, insn, fails, deadline)
    # active lanes: mask off as many of the first vl lanes as still fails
    masked = _masked_version(cfg, pre, insn)
    if masked is not None and pre.vl > 1:
        candidate_pre, candidate_insn = masked
        if fails(candidate_pre, candidate_insn):
            pre, insn = candidate_pre, candidate_insn
    if insn.vm == 0 and insn.vd != 0 and pre.vl > 1:
        on = [i for i in range(pre.vl) if pre.regs[0] >> i & 1]
        chunk = max(1, len(on) // 2)
        while chunk >= 1 and time.perf_counter() < deadline:
            i = 0
            while i < len(on) and time.perf_counter() < deadline:
                removed = on[i:i + chunk]
                mask = pre.regs[0]
                for lane in removed:
                    mask &= ~(1 << lane)
                candidate = pre.with_(regs=(mask,) + tuple(pre.regs[1:]))
                if fails(candidate, insn):
                    pre, on = candidate, on[:i] + on[i + chunk:]
                else:
                    i += chunk
            if chunk == 1:
                break
            chunk //= 2
    return _fewer_bits(cfg, pre, insn, fails, deadline), insn


def _smallest_vl(pre, insn, fails, deadline):
    """Bisection for the smallest failing vl (not necessarily monotone: each step checked)."""
    if pre.vl > 1 and not _is_vill(pre):
        low, high = 1, pre.vl
        while low < high and time.perf_counter() < deadline:
            middle = (low + high) // 2
            if fails(pre.with_(vl=middle), insn):
                high = middle
            else:
                low = middle + 1
        if high < pre.vl and fails(pre.with_(vl=high), insn):
            pre = pre.with_(vl=high)
    return pre


def _decisive_element_lower(cfg, pre, insn, tail, fails, deadline):
    """The case with the element that decides the spec's result (the last active one equal to
    it) swapped into the lowest lane where the case still fails (bisection, each step
    checked), so that vl can shrink: a bug past element 4096 shows at lane 4096, not at the
    last lane where a search put the largest value. None when that is not lower."""
    if _is_vill(pre) or pre.vl < 2 or insn.vm == 0:
        return None
    want = execute(pre, insn, "sequential", tail).state.regs[insn.vd] & ((1 << cfg.sew) - 1)
    _, elements, active = operands(Concrete, pre, insn, cfg)
    lanes = [i for i, (x, a) in enumerate(zip(elements, active)) if a and x == want]
    if not lanes or insn.vd in {(insn.vs2 + k) % NUM_VREGS for k in range(cfg.group_registers)}:
        return None
    j = lanes[-1]

    def swapped(k):
        values = list(elements)
        values[j], values[k] = values[k], values[j]
        regs = list(pre.regs)
        per, nbytes = cfg.elements_per_register, cfg.sew // 8
        for g in range(cfg.group_registers):
            register = (insn.vs2 + g) % NUM_VREGS
            chunk = values[g * per:(g + 1) * per]
            if chunk and register not in (insn.vs1,):
                data = int.from_bytes(b"".join(v.to_bytes(nbytes, "little") for v in chunk), "little")
                regs[register] = regs[register] >> (len(chunk) * cfg.sew) << (len(chunk) * cfg.sew) | data
        return pre.with_(regs=tuple(regs))

    low, high, found = 0, j, None
    while low < high and time.perf_counter() < deadline:
        middle = (low + high) // 2
        candidate = swapped(middle)
        if fails(candidate, insn):
            high, found = middle, candidate
        else:
            low = middle + 1
    return found


def _fewer_bits(cfg, pre, insn, fails, deadline):
    """The case with what does not matter cleared: every register the instruction does not
    read at once, then vd's old value, then the bits of the operands past what they hold
    (vs1 above its element 0, v0 above VLMAX, the vs2 group past vl); each kept if it still
    fails."""
    group = {(insn.vs2 + k) % NUM_VREGS for k in range(cfg.group_registers)}
    operands_ = group | {insn.vs1} | ({0} if insn.vm == 0 else set())
    used = (1 << (pre.vl * cfg.sew)) - 1 if not _is_vill(pre) else 0

    def regs_with(changes):
        return tuple(changes.get(r, value) for r, value in enumerate(pre.regs))

    steps = [{r: 0 for r in range(NUM_VREGS) if r not in operands_ and pre.regs[r]},
             {insn.vd: 0} if insn.vd not in operands_ else {},
             {insn.vs1: pre.regs[insn.vs1] & ((1 << cfg.sew) - 1)} if insn.vs1 not in group else {},
             {0: pre.regs[0] & ((1 << cfg.vlmax) - 1)} if 0 not in group and insn.vs1 != 0 else {}]
    per = cfg.elements_per_register
    for k in range(cfg.group_registers):
        register = (insn.vs2 + k) % NUM_VREGS
        keep = (used >> (k * per * cfg.sew)) & ((1 << cfg.vlen) - 1)
        if register != insn.vs1 and register != 0:
            steps.append({register: pre.regs[register] & keep})
    for changes in steps:
        if time.perf_counter() > deadline:
            break
        changes = {r: v for r, v in changes.items() if pre.regs[r] != v}
        if changes:
            candidate = pre.with_(regs=regs_with(changes))
            if fails(candidate, insn):
                pre = candidate
    return pre


def _is_vill(pre: ArchState) -> bool:
    return bool(pre.vtype >> 63 & 1)


def _masked_version(cfg, pre, insn):
    """The same case masked by v0 with every one of the first vl lanes on, when masking is
    legal here (v0 neither vs1 nor in the vs2 group, nor vd) and the case is unmasked."""
    group = {(insn.vs2 + k) % 32 for k in range(cfg.group_registers)}
    if insn.vm == 0 or insn.vs1 == 0 or 0 in group or insn.vd == 0:
        return None
    mask = (1 << pre.vl) - 1
    regs = (mask | pre.regs[0] & ~((1 << cfg.vlmax) - 1),) + tuple(pre.regs[1:])
    return pre.with_(regs=regs), Insn(insn.vd, insn.vs2, insn.vs1, 0)


# Concrete states, before any proof (proofs/python/concrete.py) ----------------------------------

def random_cross_check(function, cfg: Config, tails, count: int, seed: int, directed: bool = False,
                       counts: dict | None = None):
    """Run the concrete states (`count` seeded random ones, after the directed ones when asked)
    through the implementation and the executable spec per tail policy: (random states run,
    the first disagreement or None); `counts` gets the states run of each kind. An
    ImplementationError (the code failed on a real state) names the case."""
    counts = {} if counts is None else counts
    for kind, pre, insn, tail in concrete_states(cfg, list(tails), count, seed, directed):
        try:
            cx = replay(function, cfg, pre, insn, tail)
        except ImplementationError as error:
            raise ImplementationError(f"{error}\n    on the concrete case {case_text(pre, insn, tail)}") from None
        counts[kind] = counts.get(kind, 0) + 1
        if cx.differing:
            return counts.get(RANDOM, 0), cx
    return counts.get(RANDOM, 0), None


# One configuration ---------------------------------------------------------------------------

def check_config(function, level: str, cfg: Config, timeout_ms: int = DEFAULT_TIMEOUT_MS,
                 tails=TAIL_POLICIES, solver: str | None = None, random_states: int = DEFAULT_RANDOM,
                 seed: int = 0, directed: bool = True) -> ConfigResult:
    """Check the implementation at one configuration: first on concrete states (the directed
    ones and `random_states` random ones, proofs/python/concrete.py), whose disagreement is a
    counterexample whatever a proof would say; then by proof with each tail policy (a unit's
    cut-point proof covers both at once)."""
    start = time.perf_counter()
    method = method_for(level, cfg)
    result = ConfigResult(cfg, method or "none")
    if method is None:
        result.checks.append(Check(cfg, ANY_TAIL, "none", Verdict.ERROR, 0.0,
                                   f"a whole instruction is checked up to VLEN={INSTRUCTION_MAX_VLEN}"))
        return result
    instruction = as_instruction(function) if level == UNIT else function
    if not _concrete_first(instruction, cfg, tails, random_states, seed, directed, result):
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
            if (check.verdict == Verdict.UNKNOWN and cfg.vlmax <= FALLBACK_MAX_VLMAX
                    and cfg.vlen <= MONOLITHIC_MAX_VLEN):
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
            result.counterexample = cx    # a checker fault, with its case
    result.seconds = time.perf_counter() - start
    return result


CONCRETE = "concrete"


def _concrete_first(instruction, cfg, tails, random_states, seed, directed, result) -> bool:
    """The concrete states; False (with the check recorded) when they decide the configuration:
    a disagreement (a counterexample, minimised) or a failure of the code on a real state."""
    start = time.perf_counter()
    counts: dict = {}
    try:
        done, cx = random_cross_check(instruction, cfg, list(tails), random_count(random_states, cfg), seed,
                                      directed, counts)
    except ImplementationError as error:
        result.random_states, result.directed_states = counts.get(RANDOM, 0), counts.get(DIRECTED, 0)
        result.method = CONCRETE
        result.checks.append(Check(cfg, ANY_TAIL, CONCRETE, Verdict.ERROR, time.perf_counter() - start,
                                   f"on a concrete state: {error}"))
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
    result.checks.append(Check(cfg, cx.tail, CONCRETE, Verdict.COUNTEREXAMPLE, time.perf_counter() - start,
                               f"a concrete state shows the implementation and the executable spec disagreeing "
                               f"on {', '.join(cx.differing)} (found before any proof)"))
    return False


def bounds_text(result: ConfigResult) -> str:
    cfg = result.cfg
    tails = sorted({c.tail for c in result.checks if c.method != CONCRETE})
    tail_text = "tail undisturbed and ones" if ANY_TAIL in tails or len(tails) == 2 else f"tail {tails[0]}"
    methods = sorted({c.method for c in result.checks if c.method != CONCRETE})
    solvers = sorted({c.solver for c in result.checks if c.solver})
    return (f"{cfg}, VLMAX={cfg.vlmax}: vl 0..{cfg.vlmax}, every register and overlap symbolic, "
            f"{tail_text}; {', '.join(methods)}" + (f" ({', '.join(solvers)})" if solvers else "")
            + f"; {result.directed_states} directed and {result.random_states} random concrete states agree")


# Every configuration: the orchestration ---------------------------------------------------------

@dataclass
class Report:
    """The whole run: each configuration's result, and the counterexample to show."""

    level: str
    results: list[ConfigResult] = field(default_factory=list)
    not_checked: list[Config] = field(default_factory=list)
    counterexample: Counterexample | None = None
    notes: list[str] = field(default_factory=list)
    output: str = ""    # what the user's code printed while loading

    @property
    def verdict(self) -> Verdict:
        if not self.results:
            return Verdict.ERROR
        return worst([r.verdict for r in self.results])

    @property
    def detail(self) -> str:
        shown = [r for r in self.results if self.counterexample is not None and r.counterexample is self.counterexample]
        bad = shown or [r for r in self.results if r.verdict == self.verdict and r.verdict != Verdict.PROVED]
        return bad[0].detail if bad else ""

    def count(self, verdict: Verdict) -> int:
        return sum(r.verdict == verdict for r in self.results)

    @property
    def bounds(self) -> list[str]:
        return [bounds_text(r) for r in self.results if r.verdict == Verdict.PROVED]

    @property
    def random_states(self) -> int:
        return sum(r.random_states for r in self.results)

    def coverage(self) -> str:
        """What was checked, in one sentence."""
        checked = [r.cfg for r in self.results]
        if not checked:
            return "nothing was checked"
        vlens = sorted({c.vlen for c in checked})
        methods = {}
        for r in self.results:
            methods[r.method] = methods.get(r.method, 0) + 1
        text = (f"{len(checked)} configurations (VLEN {vlens[0]}..{vlens[-1]}: {len(vlens)} VLENs; "
                f"SEW {', '.join(map(str, sorted({c.sew for c in checked})))}; "
                f"{len({(c.sew, c.lmul) for c in checked})} SEW x LMUL pairs; ELEN="
                f"{', '.join(map(str, sorted({c.elen for c in checked})))}); "
                + ", ".join(f"{n} {m}" for m, n in sorted(methods.items()))
                + f"; {sum(r.directed_states for r in self.results)} directed and {self.random_states} random "
                "concrete states")
        if self.level == INSTRUCTION:
            text += f"; a whole instruction is checked up to VLEN={INSTRUCTION_MAX_VLEN}"
        return text

    def summary(self) -> str:
        return (f"Summary: {self.count(Verdict.PROVED)} proved, {self.count(Verdict.COUNTEREXAMPLE)} "
                f"counterexamples, {self.count(Verdict.UNKNOWN)} unknown, {self.count(Verdict.ERROR)} errors"
                + (f", {len(self.not_checked)} not checked" if self.not_checked else ""))


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
    return [c for c in legal_configs(cfg.elen, [v for v in VLENS if v < cfg.vlen], [cfg.sew], [cfg.lmul])
            if c not in done]


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
                report.notes.append(f"the first failure was at {failed.cfg}; the smallest VLEN with the "
                                    f"same SEW and LMUL that fails is {result.cfg.vlen}")
                break
    else:
        errors = [r for r in report.results if r.verdict == Verdict.ERROR and r.counterexample is not None]
        if errors:
            report.counterexample = errors[0].counterexample
    return report
