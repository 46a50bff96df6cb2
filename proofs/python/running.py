"""The user's code run by the checker: each call under the truth-test guard (and, while
proving, in the symbolic run's context, once per path: proofs/python/paths.py), its failures
as ImplementationErrors naming the user's file and line; a unit plugged into the project's
instruction step, a whole step's contract checked; `replay`, the truth on one concrete case
(judged by the spec, proofs/engine/judging.py)."""

from __future__ import annotations

import os
import traceback

import z3

from vredmax.impl.execute import step
from vredmax.proofs.engine.counterexample import Counterexample
from vredmax.proofs.engine.judging import judge_step
from vredmax.proofs.engine.truth_guard import SymbolicBranch, no_truth_tests
from vredmax.proofs.python import plugin
from vredmax.proofs.python.branches import Escalate, InternalError
from vredmax.proofs.python.paths import explore
from vredmax.proofs.python.values import Refusal
from vredmax.spec.bv import Concrete, Z3Elements
from vredmax.spec.config import XLEN, Config
from vredmax.spec.encoding import Insn
from vredmax.spec.legality import ILLEGAL, RESERVED, RETIRED
from vredmax.spec.state import NUM_VREGS, ArchState


class ImplementationError(Exception):
    """The implementation failed to run or broke its contract; the message says how."""


# Called with (True, symbolic) before and (False, symbolic) after each call into the user's code
# (symbolic: the call runs on symbolic values): proofs/python/isolation.py sets it to tell the
# parent process, which enforces a wall-clock limit on the user's code.
USER_CALL_HOOK = None
# error -> words to add to its message when a fence of the child caused it (the memory limit,
# no new processes: vredmax/runtime/limits.py); set by isolation.py
LIMIT_NOTE = None


def _user_file(function) -> str | None:
    code = getattr(function, "__code__", None)
    return os.path.abspath(code.co_filename) if code else None


def _user_frames(error: BaseException, user_file: str | None) -> str:
    """The traceback of `error`, only the frames in the user's file (else the last frame)."""
    frames = traceback.extract_tb(error.__traceback__)
    mine = [f for f in frames if user_file and os.path.abspath(f.filename) == user_file]
    shown = mine or frames[-1:]
    return (
        "".join("\n    " + line.rstrip().replace("\n", "\n    ") for line in traceback.format_list(shown))
        if shown
        else ""
    )


def call_user(function, args, backend: str, name: str | None = None, cx=None):
    """Run the user's function on `args` under the truth-test guard (and in the symbolic run's
    context `cx`, proofs/python/values.py); any exception (also SystemExit and
    KeyboardInterrupt, which the user's code may raise) is an ImplementationError whose message
    names the user's file and line. A refusal of a symbolic value is an error even when the
    user's code caught it."""
    name = name or getattr(function, "__name__", "the implementation")
    if USER_CALL_HOOK:
        USER_CALL_HOOK(True, cx is not None)
    try:
        with no_truth_tests() as guard, cx if cx is not None else _NO_CONTEXT:
            result = function(*args)
    except SymbolicBranch as error:
        raise ImplementationError(f"{name} branches on a symbolic value at {error}") from None
    except BaseException as error:
        if isinstance(error, (ImplementationError, Escalate)):
            raise
        if isinstance(error, Refusal):
            raise ImplementationError(f"{name} {error.verb()} {error}") from None
        if type(error).__name__ == "SymbolicUse":  # the cut-point tracer's refusal (proofs/python/trace.py)
            raise ImplementationError(f"{name} branches on a symbolic value at {error}") from None
        if isinstance(error, InternalError):  # the checker's fault, not the user's code's
            raise ImplementationError(f"{error} (while running {name} on {backend})") from None
        if isinstance(error, TypeError) and len(traceback.extract_tb(error.__traceback__)) == 1:
            # the call itself failed: the function does not take these parameters
            raise ImplementationError(
                f"{name} cannot be called with the {len(args)} arguments of its plug-in level: {error}"
            ) from None
        raise ImplementationError(
            f"{name} raised {type(error).__name__} on {backend}: {error}"
            + (LIMIT_NOTE(error) if LIMIT_NOTE else "")
            + _user_frames(error, _user_file(function))
        ) from None
    finally:
        if USER_CALL_HOOK:
            USER_CALL_HOOK(False, cx is not None)
    if cx is not None and cx.refusals:
        raise ImplementationError(
            f"{name} {cx.refusals[0].verb()} {cx.refusals[0]} (the error was caught "
            "inside the implementation)"
        )
    if guard.refusals:
        raise ImplementationError(
            f"{name} branches on a symbolic value at {guard.refusals[0]} "
            "(the error was caught inside the implementation)"
        )
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
        backend = (
            "a concrete case"
            if cx is None
            else "Z3 terms"
            if isinstance(ops, Z3Elements)
            else "symbolic values (cut points)"
        )
        if cx is None:
            result = call_user(
                unit, plugin.unit_arguments(ops, seed, elements, active, cx), backend, name, cx
            )
            return _contract(name, lambda: plugin.unit_result(result, ops, cx))
        paths = explore(
            cx,
            lambda: call_user(
                unit, plugin.unit_arguments(ops, seed, elements, active, cx), backend, name, cx
            ),
        )
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
    if isinstance(error, InternalError):
        return ImplementationError(f"{error} (while running {name} on {backend})")
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
        result = function(m, pre, insn, cfg, tail)  # the unit inside is guarded itself
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
                results.append(
                    (condition, _contract(name, lambda: plugin.instruction_result(value, cfg, cx)))
                )
            traps, post = _contract(name, lambda: plugin.merge_steps(cx, results, cfg))
    _check_post(name, post, cfg, m.symbolic, traps)
    return traps, post


def _check_post(name, post: ArchState, cfg: Config, symbolic: bool, traps) -> None:
    widths = {"vtype": XLEN, "vl": XLEN, "vstart": XLEN, "vs": 2}
    if symbolic:
        for rule, cond in traps:
            if not (isinstance(cond, z3.BoolRef) or isinstance(cond, bool)):
                raise ImplementationError(
                    f"{name}: the condition of trap rule {rule.id} is {type(cond).__name__}, not a condition"
                )
        regs_sort = z3.ArraySort(z3.BitVecSort(5), z3.BitVecSort(cfg.vlen))
        if not (isinstance(post.regs, z3.ArrayRef) and post.regs.sort() == regs_sort):
            raise ImplementationError(
                f"{name}: post.regs must be the register file as a Z3 array from "
                f"5-bit numbers to {cfg.vlen}-bit registers (as pre.regs is)"
            )
        for field_name, width in widths.items():
            value = getattr(post, field_name)
            if not (isinstance(value, z3.BitVecRef) and value.size() == width):
                raise ImplementationError(
                    f"{name}: post.{field_name} must be a {width}-bit value, got {_describe_value(value)}"
                )
        return
    if not (
        isinstance(post.regs, (tuple, list))
        and len(post.regs) == NUM_VREGS
        and all(isinstance(r, int) and 0 <= r < 1 << cfg.vlen for r in post.regs)
    ):
        raise ImplementationError(
            f"{name}: post.regs must be {NUM_VREGS} registers of {cfg.vlen} bits on a concrete case"
        )
    for field_name, width in widths.items():
        value = getattr(post, field_name)
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 1 << width:
            raise ImplementationError(
                f"{name}: post.{field_name} must be a {width}-bit value on a concrete case, got {value!r}"
            )


def _describe_value(value) -> str:
    if isinstance(value, z3.BoolRef):
        return "a condition"
    if isinstance(value, z3.BitVecRef):
        return f"a {value.size()}-bit value"
    return type(value).__name__


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
