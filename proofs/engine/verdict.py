"""Solver verdicts a user can trust: PROVED only from an unsat on satisfiable assumptions.

A second opinion (`vredmax prove --certify`, proofs/certify) can be asked of every solver
question: while a judge is installed (`second_opinion`), each `prove` and `satisfiable` call
(a kept answer too) hands it the question and the answer; what the judge says (an `Opinion`)
goes to every `gathering()` list open at the time. `about(...)` labels the questions asked
inside it (the obligation, the part) for the judge's records.
"""

from __future__ import annotations

import re
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Callable, Iterable, Iterator, cast

import z3

from vredmax.proofs.engine import answers, solvers
from vredmax.runtime import interrupts
from vredmax.spec import z3fast as fast


class Verdict(str, Enum):
    PROVED = "PROVED"
    COUNTEREXAMPLE = "COUNTEREXAMPLE"
    UNKNOWN = "UNKNOWN"  # timeout or the solver gave up: never reported as proved
    ERROR = "ERROR"  # e.g. vacuous: the assumptions are unsatisfiable


@dataclass
class Answer:
    verdict: Verdict
    seconds: float
    detail: str = ""
    model: z3.ModelRef | None = field(default=None, repr=False)
    solver: str = "z3"
    opinions: list[Opinion] = field(default_factory=list, repr=False)  # second opinions on its questions
    judged: object = field(default=None, repr=False)  # the judge installed when it was decided


@dataclass
class Question:
    """One solver question as a judge sees it: `assumptions => goal`, or (goal None) can the
    assumptions hold; the solver's answer; the labels of `about` around it."""

    assumptions: list[z3.BoolRef]
    goal: object
    answer: Answer
    labels: dict[str, Any]
    model: object = None  # a model of the assumptions the solver found, if any (a hint)


@dataclass
class Opinion:
    """What a judge said about one question: CERTIFIED (decided the same way, independently),
    UNCERTIFIED (not decided that way: too large, outside its fragment) or ERROR (decided the
    other way: `detail` gives both answers). `record` is the judge's own account of it."""

    status: str
    detail: str = ""
    record: dict[str, Any] = field(default_factory=dict, repr=False)


Judge = Callable[[Question], Opinion]

_JUDGES: list[Judge] = []
_GATHERING: list[list[Opinion]] = []
_ABOUT: list[dict[str, Any]] = []


@contextmanager
def second_opinion(judge: Judge) -> Iterator[Judge]:
    """Within this, `judge(question) -> Opinion` is asked about every solver question."""
    _JUDGES.append(judge)
    try:
        yield judge
    finally:
        _JUDGES.remove(judge)


def judging() -> Judge | None:
    """The judge installed now (every question gets its opinion), or None."""
    return _JUDGES[-1] if _JUDGES else None


@contextmanager
def gathering() -> Iterator[list[Opinion]]:
    """A list that receives every Opinion given within this."""
    bucket: list[Opinion] = []
    _GATHERING.append(bucket)
    try:
        yield bucket
    finally:
        _GATHERING.remove(bucket)


@contextmanager
def about(**labels: Any) -> Iterator[None]:
    """Label the questions asked within this (e.g. obligation=..., part=...)."""
    _ABOUT.append(labels)
    try:
        yield
    finally:
        _ABOUT.pop()


def consult(
    assumptions: Iterable[z3.BoolRef], goal: z3.BoolRef | None, answer: Answer, model: object = None
) -> None:
    """Ask the installed judge, if any, about one question the solver answered."""
    if not _JUDGES:
        return
    labels: dict[str, Any] = {}
    for layer in _ABOUT:
        labels.update(layer)
    opinion = _JUDGES[-1](Question(list(assumptions), goal, answer, labels, model))
    for bucket in _GATHERING:
        bucket.append(opinion)


VACUOUS = "vacuous: the assumptions are unsatisfiable"


AUTO_Z3_MS = 2_000  # "auto": Z3 gets this long first, then bitwuzla the whole timeout


def prove(
    assumptions: Iterable[z3.BoolRef], goal: z3.BoolRef, timeout_ms: int = 60_000, solver: str = "z3"
) -> Answer:
    """Prove `assumptions => goal`, after checking that the assumptions can hold at all.

    `solver` is "z3" (in-process, with a model for a counterexample), "bitwuzla"/"cvc5"
    (through SMT-LIB2; a counterexample's model is then asked of Z3, within the timeout), or
    "auto": Z3 for up to AUTO_Z3_MS, then bitwuzla if Z3 had not decided (each is much
    faster than the other on some of the big-register queries).
    With a store of answers in use (proofs/engine/answers.py) an answer kept for exactly this
    query is reused, and a new one (not UNKNOWN) is kept. A judge, if installed, is consulted.
    """
    assumptions = list(assumptions)
    with _one_query():
        answer = _kept_or_proved(assumptions, goal, timeout_ms, solver)
    consult(assumptions, goal, answer)
    return answer


def _kept_or_proved(assumptions: list[z3.BoolRef], goal: z3.BoolRef, timeout_ms: int, solver: str) -> Answer:
    store = answers.current()
    if store is None:
        return _prove(assumptions, goal, timeout_ms, solver)
    assumptions = list(assumptions)
    text = _text(assumptions, goal)
    material = answers.query_material("prove", solver, text)
    kept = _reused(store, material, text, True, timeout_ms)
    if kept is not None:
        return kept
    if solver != "z3":
        answer = _prove(assumptions, goal, timeout_ms, solver)
    else:
        answer = _prove_known_vacuity(store, assumptions, goal, timeout_ms)
    store.put(material, _entry(answer), answer.seconds >= answers.DURABLE_S)
    return answer


def _prove_known_vacuity(
    store: answers.Store, assumptions: list[z3.BoolRef], goal: z3.BoolRef, timeout_ms: int
) -> Answer:
    """`_prove` with Z3, where the vacuity check is a question of its own: many queries share
    their assumptions (an obligation's cases, the parts of a configuration), and a kept
    answer to it spares the solver that half of the work."""
    if _shared_prefix(assumptions) is not None:  # asked of the solver that holds the shared part: cheap
        return _prove(assumptions, goal, timeout_ms, "z3")
    material = answers.query_material("vacuity", "z3", _text(assumptions, z3.BoolVal(True)))
    known = store.get(material)
    verdict = known.get("verdict") if known is not None else None
    if verdict == Verdict.PROVED.value:  # they can hold: only the goal is left to ask
        start = time.perf_counter()
        with _engine(assumptions, timeout_ms) as (engine, context):
            return _ask_goal(engine, context, goal, start)
    if verdict == Verdict.ERROR.value:
        return Answer(Verdict.ERROR, 0.0, VACUOUS)
    answer = _prove(assumptions, goal, timeout_ms, "z3")
    durable = answer.seconds >= answers.DURABLE_S
    if answer.verdict == Verdict.ERROR and answer.detail == VACUOUS:
        store.put(
            material,
            {"verdict": Verdict.ERROR.value, "detail": VACUOUS, "solver": "z3", "model": None},
            durable,
        )
    elif not (
        answer.verdict == Verdict.UNKNOWN and answer.detail.startswith("satisfiability of the assumptions")
    ):
        store.put(
            material, {"verdict": Verdict.PROVED.value, "detail": "", "solver": "z3", "model": None}, durable
        )
    return answer


def _ask_goal(engine: z3.Solver, context: z3.Context, goal: z3.BoolRef, start: float) -> Answer:
    """The goal's answer from a Z3 solver whose assumptions are satisfiable: PROVED when its
    negation has no model."""
    engine.add(z3.Not(goal).translate(context))
    result = engine.check()
    seconds = time.perf_counter() - start
    if result == z3.unsat:
        return Answer(Verdict.PROVED, seconds)
    if result == z3.sat:
        return Answer(Verdict.COUNTEREXAMPLE, seconds, model=engine.model().translate(z3.main_ctx()))
    return Answer(Verdict.UNKNOWN, seconds, engine.reason_unknown())


def _prove(assumptions: list[z3.BoolRef], goal: z3.BoolRef, timeout_ms: int, solver: str) -> Answer:
    if solver == "auto":
        first = _prove(assumptions, goal, min(timeout_ms, AUTO_Z3_MS), "z3")
        if first.verdict != Verdict.UNKNOWN or not solvers.available("bitwuzla"):
            return first
        second = _prove_elsewhere(assumptions, goal, timeout_ms, "bitwuzla")
        second.seconds += first.seconds
        return second
    if solver != "z3":
        return _prove_elsewhere(assumptions, goal, timeout_ms, solver)
    start = time.perf_counter()
    with _engine(assumptions, timeout_ms) as (engine, context):
        vacuity = engine.check()
        if vacuity != z3.sat:
            return _unsatisfiable(engine, vacuity, start)
        if z3.is_true(goal):  # nothing left to ask: not(true) has no model
            return Answer(Verdict.PROVED, time.perf_counter() - start)
        return _ask_goal(engine, context, goal, start)


def satisfiable(assumptions: Iterable[z3.BoolRef], timeout_ms: int = 60_000) -> Answer:
    """Can the assumptions hold? PROVED (with a model of them, in the main context) when they
    can, ERROR (vacuous) when they cannot, UNKNOWN when Z3 does not decide in time."""
    assumptions = list(assumptions)
    with _one_query():
        answer = _kept_or_satisfiable(assumptions, timeout_ms)
    consult(assumptions, None, answer, answer.model)
    return answer


def _kept_or_satisfiable(assumptions: list[z3.BoolRef], timeout_ms: int) -> Answer:
    store = answers.current()
    if store is None:
        return _satisfiable(assumptions, timeout_ms)
    assumptions = list(assumptions)
    text = _text(assumptions, z3.BoolVal(True))
    material = answers.query_material("satisfiable", "z3", text)
    kept = _reused(store, material, text, False, timeout_ms)
    if kept is not None:
        return kept
    answer = _satisfiable(assumptions, timeout_ms)
    store.put(material, _entry(answer), answer.seconds >= answers.DURABLE_S)
    return answer


def _satisfiable(assumptions: list[z3.BoolRef], timeout_ms: int) -> Answer:
    start = time.perf_counter()
    with _engine(assumptions, timeout_ms) as (engine, _):
        result = engine.check()
        if result != z3.sat:
            return _unsatisfiable(engine, result, start)
        return Answer(
            Verdict.PROVED, time.perf_counter() - start, model=engine.model().translate(z3.main_ctx())
        )


_SOLVING: list[z3.Context] = []  # the context the solvers work in, made on first use


@contextmanager
def _engine(assumptions: list[z3.BoolRef], timeout_ms: int) -> Iterator[tuple[z3.Solver, z3.Context]]:
    """A Z3 solver holding the assumptions, translated into a context of the solvers' own:
    Z3's solvers size some tables by the number of terms in their context, so in the main
    one (millions of live terms at VLEN=65536) even a trivial query took 0.5-1.5 s. In this
    one only the current query's terms are alive (a fresh context per query costs more than
    the small queries themselves). Inside `shared_assumptions(base)`, when the assumptions
    start with `base`, the solver is the one that holds `base`, with the rest pushed in a
    scope of its own and popped after: the same question, without asserting and
    preprocessing the shared part again (measured: a third of the time of the small case
    splits of `prove`)."""
    context = _context()
    rest = _shared_prefix(assumptions)
    if rest is None:
        engine = z3.Solver(ctx=context)
        engine.set(timeout=timeout_ms)
        engine.add(_translated(assumptions, context))
        yield engine, context
        return
    shared = _SHARED[-1]
    engine = shared[1]
    if engine is None:
        engine = shared[1] = z3.Solver(ctx=context)
        engine.add(_translated(shared[0], context))
    engine.push()
    try:
        if shared[3] != timeout_ms:  # (setting a parameter costs as much as a small check)
            engine.set(timeout=timeout_ms)
            shared[3] = timeout_ms
        if rest:
            engine.add(_translated(rest, context))
        yield engine, context
    finally:
        engine.pop()


_SHARED: list[
    list[Any]
] = []  # [base assumptions, their solver, their text, the solver's timeout] (None: not yet)


@contextmanager
def shared_assumptions(base: Iterable[z3.BoolRef]) -> Iterator[None]:
    """Within this, Z3 questions whose assumptions begin with the terms `base` (the same
    terms, in order) are asked of one solver holding `base` (see `_engine`). Answers,
    kept answers and second opinions are exactly as without it."""
    _SHARED.append([list(base), None, None, None])
    try:
        yield
    finally:
        _SHARED.pop()


def _shared_prefix(assumptions: list[z3.BoolRef]) -> list[z3.BoolRef] | None:
    """The assumptions after the shared base, if they begin with it (else None)."""
    if not _SHARED:
        return None
    base = _SHARED[-1][0]
    if len(assumptions) < len(base):
        return None
    for mine, shared in zip(assumptions, base):
        if mine is not shared and not mine.eq(shared):
            return None
    return list(assumptions[len(base) :])


def _context() -> z3.Context:
    if not _SOLVING:
        _SOLVING.append(interrupts.z3_context(z3.Context()))
    return _SOLVING[0]


def _unsatisfiable(engine: z3.Solver, result: z3.CheckSatResult, start: float) -> Answer:
    """The answer when the assumptions alone are not satisfiable (or not known to be)."""
    seconds = time.perf_counter() - start
    if result == z3.unsat:
        return Answer(Verdict.ERROR, seconds, VACUOUS)
    return Answer(Verdict.UNKNOWN, seconds, f"satisfiability of the assumptions: {engine.reason_unknown()}")


def _translated(terms: Iterable[z3.BoolRef], context: z3.Context) -> z3.BoolRef:
    """The conjunction of the terms, in `context` (one translation, so shared parts once).
    The last one is kept: a query's assumptions are translated for its key, its vacuity
    key and its solver, and Z3's translation of a big query is not cheap."""
    terms = list(terms)
    key = (id(context), tuple(t.ast.value for t in terms))
    if _LAST_TRANSLATION[0] == key:
        return cast(z3.BoolRef, _LAST_TRANSLATION[2])
    if not terms:
        made = z3.BoolVal(True, context)
    elif len(terms) == 1:
        made = terms[0].translate(context)
    elif all(t.ctx is _MAIN for t in terms):  # (the fast constructor: the same term as z3.And's)
        made = fast.and_(*terms).translate(context)
    else:
        made = z3.And(*terms).translate(context)
    _LAST_TRANSLATION[:] = [key, terms, made]  # (holding the terms: their pointers stay theirs)
    return made


_LAST_TRANSLATION: list[Any] = [None, None, None]  # [key, the terms, their translation]


_MAIN = z3.main_ctx()


def _prove_elsewhere(assumptions: list[z3.BoolRef], goal: z3.BoolRef, timeout_ms: int, solver: str) -> Answer:
    start = time.perf_counter()
    checked = solvers.check_text(solver, solvers.smt2_script(assumptions, goal), timeout_ms)
    seconds = time.perf_counter() - start
    if checked.assumptions == "unsat":
        return Answer(Verdict.ERROR, seconds, VACUOUS, solver=solver)
    if checked.assumptions != "sat":
        return Answer(
            Verdict.UNKNOWN, seconds, f"satisfiability of the assumptions: {checked.reason}", solver=solver
        )
    if checked.negated_goal == "unsat":
        return Answer(Verdict.PROVED, seconds, solver=solver)
    if checked.negated_goal == "sat":
        model = _z3_model(assumptions, goal, timeout_ms)
        return Answer(
            Verdict.COUNTEREXAMPLE,
            time.perf_counter() - start,
            "" if model is not None else f"found by {solver}; Z3 gave no model in time",
            model=model,
            solver=solver,
        )
    return Answer(Verdict.UNKNOWN, seconds, checked.reason, solver=solver)


def _z3_model(assumptions: list[z3.BoolRef], goal: z3.BoolRef, timeout_ms: int) -> z3.ModelRef | None:
    with _engine(list(assumptions) + [z3.Not(goal)], timeout_ms) as (engine, _):
        return engine.model().translate(z3.main_ctx()) if engine.check() == z3.sat else None


# Answers kept in a store (proofs/engine/answers.py) ------------------------------------------


def _text(assumptions: list[z3.BoolRef], goal: z3.BoolRef) -> str:
    """The query's text in the solvers' context (solvers.assertion_text: there only the current
    query's terms are alive, so the text depends on the query alone): the assumptions, then
    `vredmax_negated_goal = not goal` (a kept model is replayed on it), each printed on its
    own. The assumptions (the bulk) are printed first, with nothing of the goal alive, so that
    their text is the same for the query's key and its vacuity key, printed once. Inside
    `shared_assumptions`, a query that begins with the shared part is written as that part's
    text (printed once) followed by the rest: the texts determine the query as exactly, and
    the cases of a split need not print the shared part again each."""
    context = _context()
    rest = _shared_prefix(assumptions)
    if rest is None:
        head = _printed(_translated(assumptions, context))
    else:
        shared = _SHARED[-1]
        if shared[2] is None:
            shared[2] = _printed(_translated(shared[0], context)) + ";; and then\n"
        head = shared[2] + _printed(_translated(rest, context))
    goal = goal.translate(context)
    return head + ";; goal\n" + solvers.assertion_text(z3.Bool(solvers.GOAL_NAME, context) == z3.Not(goal))


def _printed(term: z3.BoolRef) -> str:
    """solvers.assertion_text of a term, the last one kept (see `_text`)."""
    if _LAST_PRINTED[0] is not term:
        _LAST_PRINTED[:] = [term, solvers.assertion_text(term)]
    return cast(str, _LAST_PRINTED[1])


_LAST_PRINTED: list[Any] = [None, None]


@contextmanager
def _one_query() -> Iterator[None]:
    """The kept translation and text serve one query: after it they are let go, so that
    nothing of it is alive in the solvers' context when the next one is printed."""
    try:
        yield
    finally:
        _LAST_TRANSLATION[:] = [None, None, None]
        _LAST_PRINTED[:] = [None, None]


def _entry(answer: Answer) -> dict[str, Any]:
    """What is kept of an answer: the verdict, and the model's values (SMT-LIB2 terms)."""
    model = None
    if answer.model is not None:
        decls = answer.model.decls()
        model = {
            "constants": [[_symbol(d), answer.model[d].sexpr()] for d in decls if d.arity() == 0],
            "functions": [
                [
                    _symbol(d),
                    [
                        [[a.sexpr() for a in point[:-1]], point[-1].sexpr()]
                        for point in answer.model[d].as_list()[:-1]
                    ],
                ]
                for d in decls
                if d.arity() > 0
            ],
        }
    return {"verdict": answer.verdict.value, "detail": answer.detail, "solver": answer.solver, "model": model}


def _symbol(decl: z3.FuncDeclRef) -> str:
    """The declaration's name as SMT-LIB2 writes it (quoted when it must be)."""
    name = decl.name()
    return (
        name if re.fullmatch(r"[A-Za-z~!@$%^&*_+=<>.?/-][0-9A-Za-z~!@$%^&*_+=<>.?/-]*", name) else f"|{name}|"
    )


def _reused(
    store: answers.Store, material: str, text: str, negated_goal: bool, timeout_ms: int
) -> Answer | None:
    """The kept answer for this query, or None. A model is not taken on trust: the query is
    solved again with every value the entry gives pinned (cheap), and that model is used; if
    there is none, the entry is ignored."""
    start = time.perf_counter()
    entry = store.get(material)
    if entry is None:
        return None
    try:
        verdict = Verdict(entry["verdict"])
        model = None
        if entry.get("model") is not None:
            model = _replayed(text, entry["model"], negated_goal, timeout_ms)
            if model is None:
                store.forget(material)
                return None
        return Answer(
            verdict,
            time.perf_counter() - start,
            str(entry.get("detail", "")),
            model,
            str(entry.get("solver", "z3")),
        )
    except (ValueError, KeyError, TypeError, AttributeError, z3.Z3Exception):
        store.forget(material)
        return None


def _replayed(text: str, values: dict[str, Any], negated_goal: bool, timeout_ms: int) -> z3.ModelRef | None:
    """A model of the query (and its negated goal when `negated_goal`) with the kept values,
    found by Z3; None if there is none."""
    declared = set(re.findall(r"^\(declare-fun (\|[^|]*\||\S+) ", text, re.MULTILINE))
    pins = [
        f"(assert (= {name} {value}))"
        for name, value in values["constants"]
        if name in declared and name != solvers.GOAL_NAME
    ]
    for name, points in values["functions"]:
        if name in declared:  # (not the model's own helpers, e.g. an array's k!0)
            pins += [f"(assert (= ({name} {' '.join(args)}) {value}))" for args, value in points]
    if negated_goal:
        pins.append(f"(assert {solvers.GOAL_NAME})")
    engine = z3.Solver(ctx=_context())  # (a fresh one: the script declares its own names)
    engine.set(timeout=timeout_ms)
    engine.from_string(solvers.without_checks(text) + "\n".join(pins) + "\n")
    if engine.check() != z3.sat:
        return None
    return engine.model().translate(z3.main_ctx())
