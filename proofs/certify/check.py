"""The checker side of the certificate route: no SMT solver, no SAT solver, no bit-blaster.

A refutation is checked by dratify's DRAT checker (PyPI `dratify`), which shares no code
with the SAT solver that wrote the proof (CaDiCaL) nor with this project: its Rust engine when
one is registered (PyPI `cdclkit-native` provides it), else its pure-Python engine. A model
is checked here: every clause has a true literal. `vredmax certify-check DIR` runs only this
module and proofs/certify/store.py, so it imports no z3.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

ENGINES = ("auto", "native", "python")


class CheckerMissing(Exception):
    """dratify is not installed."""


@dataclass
class Checked:
    ok: bool
    reason: str = ""
    seconds: float = 0.0
    engine: str = ""


def dimacs(variables: int, clauses, comments=()) -> str:
    """A CNF as DIMACS text (comment lines first)."""
    head = "".join(f"c {line}\n" for line in comments)
    body = "".join(" ".join(map(str, clause)) + " 0\n" for clause in clauses)
    return f"{head}p cnf {variables} {len(clauses)}\n{body}"


def read_dimacs(text: str) -> tuple[int, list[list[int]], list[str]]:
    """(variables, clauses, comment lines) of DIMACS text; ValueError when malformed."""
    comments, header, clauses, current = [], None, [], []
    for number, line in enumerate(text.splitlines(), 1):
        if not line or line[0] == "c":
            comments.append(line[2:] if line.startswith("c ") else line[1:])
            continue
        if line.startswith("p "):
            fields = line.split()
            if header is not None or len(fields) != 4 or fields[1] != "cnf":
                raise ValueError(f"line {number}: bad header {line!r}")
            header = (int(fields[2]), int(fields[3]))
            continue
        if header is None:
            raise ValueError(f"line {number}: a clause before the 'p cnf' header")
        for token in line.split():
            literal = int(token)
            if literal == 0:
                clauses.append(current)
                current = []
            elif abs(literal) > header[0]:
                raise ValueError(f"line {number}: literal {literal} past the {header[0]} variables")
            else:
                current.append(literal)
    if header is None:
        raise ValueError("no 'p cnf' header")
    if current or len(clauses) != header[1]:
        raise ValueError(f"{len(clauses)} clauses read, the header says {header[1]}")
    return header[0], clauses, comments


def read_drat(lines) -> list[tuple[bool, list[int]]]:
    """(deleted?, literals) steps of a text DRAT proof; ValueError when malformed."""
    steps = []
    for number, line in enumerate(lines, 1):
        fields = line.split()
        if not fields or fields[0] == "c":
            continue
        deletion = fields[0] == "d"
        if deletion:
            fields = fields[1:]
        if not fields or fields[-1] != "0":
            raise ValueError(f"proof line {number}: not ended by 0: {line!r}")
        literals = [int(token) for token in fields[:-1]]
        if 0 in literals:
            raise ValueError(f"proof line {number}: two clauses on one line")
        steps.append((deletion, literals))
    return steps


def satisfies(clauses, model) -> str:
    """'' when every clause has a literal the model makes true; else what is wrong."""
    true = set(model)
    if any(-literal in true for literal in true):
        return "the model sets a variable both ways"
    for index, clause in enumerate(clauses):
        if not any(literal in true for literal in clause):
            return f"clause {index + 1} ({' '.join(map(str, clause))} 0) is false in the model"
    return ""


def check_refutation(variables: int, clauses, steps, engine: str = "auto") -> Checked:
    """Does the DRAT proof derive the empty clause from the CNF? (dratify decides)"""
    dratify = _dratify(engine)
    start = time.perf_counter()
    formula = dratify.CNF(variables)
    formula.clauses = [tuple(_internal(literal) for literal in clause) for clause in clauses]
    proof = [
        ("d" if deletion else "a", tuple(_internal(literal) for literal in literals))
        for deletion, literals in steps
    ]
    try:
        result = dratify.check_proof(formula, proof, engine=engine)
    except (ValueError, RuntimeError, TypeError) as error:
        return Checked(
            False, f"the checker refused the proof: {error}", time.perf_counter() - start, engine_name(engine)
        )
    reason = "" if result.ok else (result.reason or "not a refutation")
    if result.ok and not result.reached_empty:
        reason = "the proof never derives the empty clause"
    return Checked(not reason, reason, time.perf_counter() - start, engine_name(engine))


def _internal(literal: int) -> int:
    """dratify's literal encoding: 2 (v - 1) for v, 2 (v - 1) + 1 for -v."""
    return 2 * literal - 2 if literal > 0 else -2 * literal - 1


_NATIVE: list = []


def _dratify(engine: str):
    if engine not in ENGINES:
        raise ValueError(f"engine: must be one of {', '.join(ENGINES)}, got {engine!r}")
    try:
        import dratify
    except ImportError as error:
        raise CheckerMissing(
            "the DRAT checker dratify is not installed (pip install 'vredmax[certify]')"
        ) from error
    if not _NATIVE:  # dratify's Rust engine, shipped by cdclkit-native, when installed
        try:
            import cdclkit_native

            dratify.register_native(cdclkit_native)
            _NATIVE.append(True)
        except ImportError:
            _NATIVE.append(False)
    return dratify


def engine_name(engine: str = "auto") -> str:
    """The checker that `engine` selects, with its version."""
    _dratify(engine)
    native = _NATIVE[0] and engine != "python"
    name = f"dratify {_version('dratify')}"
    return (
        f"{name} (Rust engine from cdclkit-native {_version('cdclkit-native')})"
        if native
        else f"{name} (pure Python)"
    )


def _version(package: str) -> str:
    try:
        return version(package)
    except PackageNotFoundError:
        return "?"


# A certificate directory, again (`vredmax certify-check DIR`) -----------------------------------


@dataclass
class Rechecked:
    id: str
    status: str  # ACCEPTED, REJECTED, or the manifest's UNCERTIFIED / ERROR (nothing to check)
    message: str = ""
    seconds: float = 0.0


def recheck(directory, query: dict, engine: str = "auto") -> Rechecked:
    """Check one query's files again: their hashes, the model against the satisfiable CNF,
    the DRAT proof against the unsatisfiable one."""
    from vredmax.proofs.certify import store

    start = time.perf_counter()
    ident = query.get("id", "?")
    if query.get("verdict") != "CERTIFIED":
        return Rechecked(ident, query.get("verdict", "?"), query.get("detail", ""))
    notes = []
    try:
        for claim in ("satisfiable", "unsatisfiable"):
            part = query.get(claim)
            if part is None:
                continue
            texts = {}
            for name, entry in part["files"].items():
                text, digest = store.read_gz(Path(directory) / entry["path"])
                if digest != entry["sha256"]:
                    return Rechecked(
                        ident,
                        "REJECTED",
                        f"{entry['path']}: SHA-256 differs from the manifest's",
                        time.perf_counter() - start,
                    )
                texts[name] = text
            if claim == "satisfiable":
                variables, clauses, comments = read_dimacs(texts["sat.cnf.gz"])
                model = next(
                    (c[len(store.MODEL_PREFIX) :] for c in comments if c.startswith(store.MODEL_PREFIX)), None
                )
                if model is None:
                    return Rechecked(
                        ident,
                        "REJECTED",
                        "the satisfiable CNF has no model line",
                        time.perf_counter() - start,
                    )
                literals = [int(x) for x in model.split()]
                if literals[-1:] != [0]:
                    return Rechecked(
                        ident, "REJECTED", "the model line does not end with 0", time.perf_counter() - start
                    )
                wrong = satisfies(clauses, literals[:-1])
                if wrong:
                    return Rechecked(
                        ident,
                        "REJECTED",
                        f"the model does not satisfy its CNF: {wrong}",
                        time.perf_counter() - start,
                    )
                notes.append(f"model of {len(clauses)} clauses")
            else:
                variables, clauses, _ = read_dimacs(texts["cnf.gz"])
                checked = check_refutation(
                    variables, clauses, read_drat(texts["drat.gz"].splitlines()), engine
                )
                if not checked.ok:
                    return Rechecked(
                        ident,
                        "REJECTED",
                        f"the DRAT proof does not refute its CNF: {checked.reason}",
                        time.perf_counter() - start,
                    )
                notes.append(f"refutation of {len(clauses)} clauses")
    except (OSError, ValueError, KeyError, EOFError) as error:
        return Rechecked(ident, "REJECTED", f"{type(error).__name__}: {error}", time.perf_counter() - start)
    return Rechecked(ident, "ACCEPTED", ", ".join(notes), time.perf_counter() - start)
