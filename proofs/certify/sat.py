"""Run the SAT solver of the certificate route: CaDiCaL (through PyPI's python-sat), logging a
DRAT proof when the CNF is unsatisfiable.

PySAT's CaDiCaL cannot be interrupted and holds the GIL while it searches, so a CNF that is not
tiny is solved in a forked child process, which the parent ends at the time limit or on Ctrl-C;
a tiny one (at most IN_PROCESS clauses: a few milliseconds) is solved here.
"""

from __future__ import annotations

import os
import signal
import tempfile
import time
from dataclasses import dataclass, field

from vredmax.runtime import interrupts

SOLVER = "cadical195"
IN_PROCESS = 2_000
POLL_S = 0.02


class SolverMissing(Exception):
    """python-sat is not installed."""


@dataclass
class Solved:
    status: str  # "sat", "unsat" or "unknown"
    model: list = field(default_factory=list)
    proof: list = field(default_factory=list)  # DRAT lines, the last one the empty clause
    seconds: float = 0.0
    reason: str = ""


def solver_name() -> str:
    from importlib.metadata import version

    return f"CaDiCaL 1.9.5 (python-sat {version('python-sat')})"


def solve(clauses, proof: bool, seconds: float) -> Solved:
    """Is the CNF satisfiable? A model if so, the DRAT proof (with `proof`) if not."""
    _solver_class()
    start = time.perf_counter()
    if len(clauses) <= IN_PROCESS:
        solved = _decode(_run(clauses, proof))
    else:
        solved = _in_child(clauses, proof, seconds)
    solved.seconds = time.perf_counter() - start
    return solved


def _solver_class():
    try:
        from pysat.solvers import Solver
    except ImportError as error:
        raise SolverMissing(
            "the SAT solver python-sat is not installed (pip install 'vredmax[certify]')"
        ) from error
    return Solver


def _run(clauses, proof: bool) -> str:
    """The answer as text: 's' and the model, or 'u' and the proof's lines."""
    with _solver_class()(name=SOLVER, bootstrap_with=clauses, with_proof=proof) as engine:
        if engine.solve():
            return "s\n" + " ".join(map(str, engine.get_model() or []))
        lines = list(engine.get_proof() or []) if proof else []
    if proof and (not lines or lines[-1].split() != ["0"]):
        lines.append("0")  # the empty clause, when the solver found the conflict at once
    return "u\n" + "\n".join(lines)


def _decode(text: str) -> Solved:
    head, _, rest = text.partition("\n")
    if head == "s":
        return Solved("sat", model=[int(x) for x in rest.split()])
    return Solved("unsat", proof=rest.split("\n") if rest else [])


def _in_child(clauses, proof: bool, seconds: float) -> Solved:
    handle, path = tempfile.mkstemp(prefix="vredmax-sat-")
    os.close(handle)
    pid = None
    try:
        pid = os.fork()
        if pid == 0:  # the child: solve, write the answer, leave without the parent's cleanup
            code = 1
            try:
                interrupts.ignore_in_worker()  # SIGINT is the parent's; die with the parent
                text = _run(clauses, proof)
                with open(path, "w") as stream:
                    stream.write(text)
                code = 0
            finally:
                os._exit(code)
        deadline = time.monotonic() + seconds
        while True:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                pid = None
                break
            if interrupts.interrupted() or time.monotonic() > deadline:
                interrupts.check_interrupt()
                return Solved("unknown", reason=f"the SAT solver did not finish within {seconds:g} s")
            time.sleep(POLL_S)
        if os.waitstatus_to_exitcode(status) != 0:
            return Solved("unknown", reason="the SAT solver's process failed")
        with open(path) as stream:
            return _decode(stream.read())
    finally:
        if pid:  # still running: a time limit, Ctrl-C or an exception here
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        os.unlink(path)
