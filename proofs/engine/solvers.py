"""Run one query on Z3, bitwuzla or cvc5, through SMT-LIB2 for the last two.

A query is `assumptions => goal`. Its SMT-LIB2 script (what `--smt2-out` writes) asserts
the assumptions and names the negated goal, then asks two questions:

    (check-sat)                                   ; sat: the assumptions can hold (not vacuous)
    (check-sat-assuming (vredmax_negated_goal))   ; unsat: the goal follows (proved)

Why a second engine inside the proofs: Z3 is slow on terms over whole VLEN-bit registers
when VLEN is large (measured: 20 s for the agnostic-tail query at VLEN=65536, where
bitwuzla takes 0.2 s), so the big register-level queries go to bitwuzla. The terms are
built with Z3's API either way.
"""

from __future__ import annotations

import re
import time
from importlib.metadata import PackageNotFoundError, version
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import z3

from vredmax.runtime import interrupts

GOAL_NAME = "vredmax_negated_goal"
SOLVERS = ("z3", "bitwuzla", "cvc5")


@dataclass
class Checked:
    """The two answers of a query: are the assumptions satisfiable, and is the negated goal."""

    assumptions: str  # "sat", "unsat" or "unknown"
    negated_goal: str  # "sat" (counterexample), "unsat" (proved), "unknown"; "" if not asked
    reason: str = ""
    seconds: float = 0.0


def smt2_script(assumptions: Iterable[z3.BoolRef], goal: z3.BoolRef, comments: Iterable[str] = ()) -> str:
    """A standalone SMT-LIB2 script for the query (see the module docstring)."""
    solver = z3.Solver()
    solver.add(*assumptions)
    solver.add(z3.Bool(GOAL_NAME) == z3.Not(goal))
    body = _standard_division(_quote_names(solver.to_smt2()))
    body = body[: body.rindex("(check-sat)")]
    header = "".join(f"; {line}\n" for line in comments)
    return (
        f"{header}(set-option :produce-models true)\n(set-logic ALL)\n{body}"
        f"(check-sat)\n(check-sat-assuming ({GOAL_NAME}))\n"
    )


_SIMPLE_SYMBOL = re.compile(r"[A-Za-z~!@$%^&*_+=<>.?/-][0-9A-Za-z~!@$%^&*_+=<>.?/-]*")


_INTERNAL_DIVISION = re.compile(r"(?<=[\s(])(bv[su]div|bv[su]rem|bvsmod)_i(?=[\s)])")


def _standard_division(text: str) -> str:
    """Z3's simplifier writes division and remainder as its own `bvsmod_i`, `bvudiv_i`, ...
    (equal to SMT-LIB's `bvsmod`, `bvudiv`, ... for every input, division by zero included),
    names other solvers do not know: they are written as the standard ones."""
    return _INTERNAL_DIVISION.sub(lambda match: match.group(1), text)


def _quote_names(text: str) -> str:
    """Z3 prints a declared name such as `in_elements'` (a port name with a prime) bare, though
    SMT-LIB's simple symbols have no `'`: other solvers refuse the script. Such names are
    written as quoted symbols `|...|`, which stand for the same name."""
    odd = [
        name
        for name in re.findall(r"\(declare-fun (\S+) ", text)
        if not name.startswith("|") and not _SIMPLE_SYMBOL.fullmatch(name)
    ]
    for name in odd:
        text = re.sub(rf"(?<=[\s(]){re.escape(name)}(?=[\s)])", lambda _: f"|{name}|", text)
    return text


def assertion_text(assumption: z3.BoolRef) -> str:
    """One term as SMT-LIB2 declarations and an assertion. Printed by Z3 without building a
    solver (that took most of the time of a small query's script), with its `let` names
    renamed in order of appearance (Z3 names them by term ids, which depend on what the
    process made before). Which subterms get a `let` depends on what else holds them: in a
    context where only this query lives (proofs/engine/verdict.py's) the text depends on the
    term alone. A part of the key of a query's answer (proofs/engine/answers.py)."""
    none = (z3.z3types.Ast * 0)()
    return _renamed(
        z3.z3core.Z3_benchmark_to_smtlib_string(
            assumption.ctx.ref(), "", "", "unknown", "", 0, none, assumption.as_ast()
        )
    )


def _renamed(text: str) -> str:
    """The text with its `let` names renamed in order of appearance."""
    binders = set(re.findall(r"\(let \(\(([$?]x\d+) ", text))
    names: dict[str, str] = {}
    return re.sub(
        r"(?<![\w|$?.!@%^&*_+=<>/~-])[$?]x\d+(?![\w|$?.!@%^&*_+=<>/~-])",
        lambda m: (
            names.setdefault(m.group(0), f"{m.group(0)[0]}x{len(names)}")
            if m.group(0) in binders
            else m.group(0)
        ),
        text,
    )


def versions() -> dict[str, str]:
    found = {"z3": z3.get_version_string()}
    for name in ("bitwuzla", "cvc5"):
        try:
            found[name] = version(name)
        except PackageNotFoundError:
            pass
    return found


def available(name: str) -> bool:
    if name == "z3":
        return True
    try:
        __import__(name)
        return True
    except ImportError:
        return False


def check_text(name: str, script: str, timeout_ms: int) -> Checked:
    """Answer both questions of an SMT-LIB2 script with bitwuzla or cvc5."""
    start = time.perf_counter()
    if name == "bitwuzla":
        checked = _bitwuzla(script, timeout_ms)
    elif name == "cvc5":
        checked = _cvc5(script, timeout_ms)
    elif name == "z3":
        checked = _z3_text(script, timeout_ms)
    else:
        raise ValueError(f"solver: must be one of {', '.join(SOLVERS)}, got {name!r}")
    checked.seconds = time.perf_counter() - start
    return checked


def _bitwuzla(script: str, timeout_ms: int) -> Checked:
    import bitwuzla as bw

    tm = bw.TermManager()
    options = bw.Options()
    options.set(bw.Option.TIME_LIMIT_PER, timeout_ms)
    parser = bw.Parser(tm, options)
    parser.parse(without_checks(script), True, False)
    solver = parser.bitwuzla()
    if interrupts.installed():  # Ctrl-C ends the query at once (vredmax/runtime/interrupts.py)
        solver.configure_terminator(interrupts.stop_requested)
    goal = next(t for t in parser.get_declared_funs() if t.symbol() == GOAL_NAME)
    names = {bw.Result.SAT: "sat", bw.Result.UNSAT: "unsat", bw.Result.UNKNOWN: "unknown"}
    with interrupts.deferred():
        first = names[solver.check_sat()]
    if first != "sat":
        return Checked(first, "", "bitwuzla gave up" if first == "unknown" else "")
    with interrupts.deferred():
        second = names[solver.check_sat(goal)]
    return Checked(first, second, "bitwuzla gave up (time limit)" if second == "unknown" else "")


def bitwuzla_values(script: str, timeout_ms: int) -> dict[str, int] | None:
    """Bitwuzla's model of a refuted query (the script of `smt2_script`): every declared
    bit-vector constant's value, by name; None unless the negated goal is satisfiable. For
    when Z3 cannot rebuild the model of a query bitwuzla refuted."""
    import bitwuzla as bw

    tm = bw.TermManager()
    options = bw.Options()
    options.set(bw.Option.TIME_LIMIT_PER, timeout_ms)
    options.set(bw.Option.PRODUCE_MODELS, True)
    parser = bw.Parser(tm, options)
    parser.parse(without_checks(script), True, False)
    solver = parser.bitwuzla()
    declared = parser.get_declared_funs()
    goal = next(t for t in declared if t.symbol() == GOAL_NAME)
    with interrupts.deferred():
        if solver.check_sat(goal) != bw.Result.SAT:
            return None
    return {t.symbol().strip("|"): int(solver.get_value(t).value(10)) for t in declared if t.sort().is_bv()}


def _cvc5(script: str, timeout_ms: int) -> Checked:
    import cvc5

    tm = cvc5.TermManager()
    solver = cvc5.Solver(tm)
    solver.setOption("incremental", "true")
    solver.setOption("tlimit-per", str(timeout_ms))
    solver.setOption("produce-models", "true")
    symbols = cvc5.SymbolManager(tm)
    parser = cvc5.InputParser(solver, symbols)
    parser.setStringInput(cvc5.InputLanguage.SMT_LIB_2_6, without_checks(script), "vredmax")
    while True:
        command = parser.nextCommand()
        if command.isNull():
            break
        command.invoke(solver, symbols)
    goal = next(t for t in symbols.getDeclaredTerms() if str(t) == GOAL_NAME)

    def name(result: Any) -> str:
        return "sat" if result.isSat() else "unsat" if result.isUnsat() else "unknown"

    first = name(solver.checkSat())
    if first != "sat":
        return Checked(first, "", "cvc5 gave up" if first == "unknown" else "")
    second = name(solver.checkSatAssuming(goal))
    return Checked(first, second, "cvc5 gave up (time limit)" if second == "unknown" else "")


def _z3_text(script: str, timeout_ms: int) -> Checked:
    solver = z3.Solver()
    solver.set(timeout=timeout_ms)
    solver.from_string(without_checks(script))
    goal = z3.Bool(GOAL_NAME)
    first = str(solver.check())
    if first != "sat":
        return Checked(first, "", solver.reason_unknown() if first == "unknown" else "")
    second = str(solver.check(goal))
    return Checked(first, second, solver.reason_unknown() if second == "unknown" else "")


def without_checks(script: str) -> str:
    """The declarations and assertions only: the caller asks the two questions itself. (A
    declaration repeated word for word, as in a case split's key text, is kept once.)"""
    declared: set[str] = set()
    kept = []
    for line in script.splitlines():
        if line.startswith(("(check-sat", "(set-option :produce-models")):
            continue
        if line.startswith("(declare-"):
            if line in declared:
                continue
            declared.add(line)
        kept.append(line)
    return "\n".join(kept) + "\n"
