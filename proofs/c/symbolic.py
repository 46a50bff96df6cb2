"""The symbolic method of check-c: angr executes the compiled library, the solver decides.

proofs/c/angr_run.py runs in angr's own interpreter (see `engine_python`) and hands back the
outputs as terms over the inputs. Here they meet the spec:

- a unit over n elements at SEW: `vd[0] = smax(seed, active elements)` over a symbolic seed,
  n symbolic elements and n symbolic 0/1 flags (every input the unit can be given at that
  VLMAX), the spec's fold written as a chain of if-then-else;
- a whole step at a configuration: the spec relation of spec/relation.py (the same one
  `vredmax prove` and check-impl use) between the symbolic pre-state (every register, vtype
  in the configuration with vill/vta/vma free, vl, vstart, mstatus.VS, the instruction's
  vd/vs2/vs1/vm fields) and the step's outcome and post-state.

Two queries each: that the paths angr finished cover the whole domain (a path lost to a
concretised address or an error would otherwise hide inputs: then UNKNOWN), and the property.
A counterexample is a model, turned into a case that the caller replays on the compiled code.
"""

from __future__ import annotations

import atexit
import importlib.util
import json
import os
import select
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass

import z3
from z3 import z3util

from vredmax.proofs.engine import solvers
from vredmax.proofs.engine.verdict import Verdict, prove
from vredmax.spec import relation as spec
from vredmax.spec.config import Config
from vredmax.spec.encoding import Insn, encode
from vredmax.spec.state import ArchState
from vredmax.runtime import limits

ENGINE_VARIABLE = "VREDMAX_ANGR_PYTHON"
ENGINE_SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "angr_run.py")
ENGINE_MARGIN_S = 30
VREGS_ADDRESS = 0x40000000  # where angr_run.py puts the register file
FIELD_BITS = (31 << 7) | (31 << 15) | (31 << 20) | (1 << 25)


@dataclass
class SymbolicResult:
    verdict: Verdict
    detail: str
    seconds: float
    paths: int = 0
    steps: int = 0
    case: tuple[ArchState, Insn] | None = None
    solver: str = ""
    model_from: str = ""  # whose model a counterexample's case is: "z3", or "bitwuzla" (Z3 gave none)


class EngineMissing(Exception):
    """No Python with angr was found; the message says where it was looked for."""


def engine_python(explicit: str | None = None) -> str:
    """The interpreter that has angr: --engine-python, $VREDMAX_ANGR_PYTHON, this one, or the
    `.venv-angr` next to this interpreter's environment (what `make angr` makes)."""
    for candidate in (explicit, os.environ.get(ENGINE_VARIABLE)):
        if candidate:
            if not os.path.isfile(candidate):
                raise EngineMissing(f"{candidate}: no such interpreter")
            return candidate
    if importlib.util.find_spec("angr") is not None:
        return sys.executable
    sibling = os.path.join(os.path.dirname(sys.prefix), ".venv-angr", "bin", "python")
    if os.path.isfile(sibling):
        return sibling
    raise EngineMissing(
        f"angr is not installed: make angr (a .venv-angr next to {sys.prefix}), or set "
        f"{ENGINE_VARIABLE} to a Python that has it"
    )


class Engine:
    """One angr interpreter kept running for a whole check: importing angr and loading the
    library take longer than most symbolic runs, so jobs go to it one JSON line at a time and
    come back one line each (angr_run.py's loop). A job past its time limit kills the process;
    the next job starts a new one."""

    def __init__(self, python: str):
        self.python = python
        self.process = None
        self.errors = None

    def _start(self) -> None:
        self.errors = tempfile.TemporaryFile(mode="w+")
        # angr runs the compiled code's instructions: fenced in as the concrete runs are
        self.process = subprocess.Popen(
            [self.python, ENGINE_SCRIPT],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.errors,
            text=True,
            bufsize=1,
            preexec_fn=limits.before_exec(limits.DEFAULT_MEMORY_MB),
        )

    def stop(self) -> None:
        if self.process is not None:
            self.process.kill()
            self.process.wait()
            self.process = None

    def _failed(self) -> str:
        self.errors.seek(0)
        tail = (self.errors.read().strip().splitlines() or ["no output"])[-1]
        self.stop()
        return tail

    def run(self, job: dict) -> dict:
        if self.process is None or self.process.poll() is not None:
            self._start()
        limit = job["timeout_s"] + ENGINE_MARGIN_S
        try:
            self.process.stdin.write(json.dumps(job) + "\n")
            self.process.stdin.flush()
        except BrokenPipeError:
            return {"incomplete": f"angr failed: {self._failed()}"}
        ready, _, _ = select.select([self.process.stdout], [], [], limit)
        if not ready:
            self.stop()
            return {"incomplete": f"angr ran past its time limit ({job['timeout_s']:g} s)"}
        line = self.process.stdout.readline()
        if not line.strip():
            return {"incomplete": f"angr failed: {self._failed()}"}
        return json.loads(line)


_ENGINES: dict[str, Engine] = {}


def run_engine(python: str, job: dict) -> dict:
    """The job's result from this interpreter's engine (started on first use, kept until exit)."""
    if python not in _ENGINES:
        _ENGINES[python] = Engine(python)
        atexit.register(_ENGINES[python].stop)
    return _ENGINES[python].run(job)


def _paths(result: dict) -> list[tuple[dict, z3.BoolRef]]:
    """Each finished path's outputs and condition, from the engine's SMT-LIB text."""
    terms = {}
    for assertion in z3.parse_smt2_string(result["smt2"]):
        name, term = assertion.arg(0), assertion.arg(1)
        if not z3.is_const(name) or str(name) not in result["outputs"]:
            name, term = term, name  # the printer may put the constant second
        terms[str(name)] = term
    paths = []
    for k in range(result["paths"]):
        suffix = f"_p{k}"
        outputs = {name[: -len(suffix)]: term for name, term in terms.items() if name.endswith(suffix)}
        paths.append((outputs, outputs.pop("path")))
    return paths


def _all(terms):
    """And of the terms (Z3 prints a one-argument `(and x)`, which bitwuzla's parser rejects)."""
    terms = list(terms)
    return terms[0] if len(terms) == 1 else z3.And(*terms)


def _any(terms):
    terms = list(terms)
    return terms[0] if len(terms) == 1 else z3.Or(*terms)


def _per_path(domain, goals, timeout_ms: int, solver: str):
    """Each path's goal under its own condition (one query per path is much faster than their
    conjunction); the first answer that is not PROVED, else the last, its time the total; and
    the query that answered (the one a counterexample's model is of)."""
    total, answer, query = 0.0, None, None
    for path, goal in goals:
        # path => goal under the domain: one query per path (with the path as an assumption, the
        # solver would first be asked whether some input takes it, a query as hard as the goal)
        query = z3.Implies(path, goal)
        answer = prove(domain, query, timeout_ms, solver)
        total += answer.seconds
        if answer.verdict != Verdict.PROVED:
            break
    answer.seconds = total
    return answer, query


def _valuation(answer, domain, query, timeout_ms: int):
    """The counterexample's input values as a function of a term over the inputs (an input the
    model leaves free is 0), and which solver's model it is; None when there is no model: Z3's
    if it rebuilt one, else bitwuzla's own when bitwuzla refuted the query."""
    if answer.model is not None:
        return (lambda term: answer.model.eval(term, model_completion=True).as_long()), "z3"
    if answer.solver != "bitwuzla":
        return None
    values = solvers.bitwuzla_values(solvers.smt2_script(domain, query), timeout_ms)
    if values is None:
        return None

    def value(term):
        free = z3util.get_vars(term)
        pairs = [(v, z3.BitVecVal(values.get(str(v), 0), v.size())) for v in free if z3.is_bv(v)]
        return z3.simplify(z3.substitute(term, *pairs) if pairs else term).as_long()

    return value, "bitwuzla"


def _coverage(domain, path, timeout_ms: int) -> str | None:
    """None when the finished paths cover the domain, else why not."""
    answer = prove(domain, path, timeout_ms, "z3")
    if answer.verdict == Verdict.PROVED:
        return None
    if answer.verdict == Verdict.COUNTEREXAMPLE:
        return "angr lost some paths (their inputs are in the domain but no finished path covers them)"
    return f"the paths' coverage was not decided: {answer.detail}"


# A reduction unit -----------------------------------------------------------------------------


def spec_fold(sew: int, seed, elements, flags):
    acc = z3.Extract(sew - 1, 0, seed)
    for element, flag in zip(elements, flags):
        acc = z3.If(z3.And(flag != 0, element > acc), element, acc)
    return acc


def is_spec_fold(sew: int, seed, elements, flags, result):
    """`result == spec_fold(...)`, said the way solvers find easy: the signed maximum of the seed
    and the active elements is the one value among them that none of them exceeds (whatever the
    order a unit walks them in). Measured on tests/c/units.c:u_reverse at SEW=64, VLMAX 8: 77 s
    with bitwuzla and 117 s with Z3 this way; 98 s and over 300 s against the fold's chain."""
    seed = z3.Extract(sew - 1, 0, seed)
    active = [(flag != 0, element) for element, flag in zip(elements, flags)]
    bound = z3.And(result >= seed, *[z3.Implies(on, result >= element) for on, element in active])
    member = z3.Or(result == seed, *[z3.And(on, result == element) for on, element in active])
    return z3.And(bound, member)


def prove_unit(
    python: str, library: str, sew: int, n: int, timeout_s: float, solver: str
) -> tuple[SymbolicResult, dict | None]:
    """The unit over n elements at SEW; with a counterexample, its inputs (seed, elements, flags)."""
    start = time.perf_counter()
    result = run_engine(
        python, {"library": library, "level": "unit", "sew": sew, "n": n, "timeout_s": timeout_s}
    )
    if "incomplete" in result:
        return SymbolicResult(Verdict.UNKNOWN, result["incomplete"], time.perf_counter() - start), None
    paths = _paths(result)
    seed = z3.BitVec("seed", 64)
    elements = [z3.BitVec(f"e{i}", sew) for i in range(n)]
    flags = [z3.BitVec(f"a{i}", 8) for i in range(n)]
    domain = [z3.ULE(f, 1) for f in flags]
    timeout_ms = int(timeout_s * 1000)
    base = dict(paths=result["paths"], steps=result["steps"])
    lost = _coverage(domain, _any(p for _, p in paths), timeout_ms)
    if lost:
        return SymbolicResult(Verdict.UNKNOWN, lost, time.perf_counter() - start, **base), None
    answer, query = _per_path(
        domain,
        [(p, is_spec_fold(sew, seed, elements, flags, z3.Extract(sew - 1, 0, o["ret"]))) for o, p in paths],
        timeout_ms,
        solver,
    )
    found = SymbolicResult(answer.verdict, answer.detail, time.perf_counter() - start, solver=solver, **base)
    if answer.verdict != Verdict.COUNTEREXAMPLE:
        return found, None
    valuation = _valuation(answer, domain, query, timeout_ms)
    if valuation is None:
        found.verdict, found.detail = (
            Verdict.UNKNOWN,
            f"the solver refuted it but gave no model ({answer.detail})",
        )
        return found, None
    value, found.model_from = valuation
    return found, {
        "seed": value(seed) & ((1 << sew) - 1),
        "elements": [value(e) for e in elements],
        "flags": [value(f) for f in flags],
    }


# A whole instruction step ----------------------------------------------------------------------


def step_domain(cfg: Config):
    """The symbolic pre-state and instruction word, and the domain's conditions."""
    pre = spec.symbolic_state(cfg)
    word = z3.BitVec("insn", 32)
    insn = spec.SymbolicInsn(
        z3.Extract(11, 7, word), z3.Extract(24, 20, word), z3.Extract(19, 15, word), z3.Extract(25, 25, word)
    )
    fixed = encode(Insn(0, 0, 0, 0))
    domain = spec.in_configuration(cfg, pre) + [word & ~FIELD_BITS & 0xFFFFFFFF == fixed]
    return pre, word, insn, domain


def _smt2(conditions) -> str:
    solver = z3.Solver()
    solver.add(*conditions)
    return solver.to_smt2()


def prove_step(
    python: str, library: str, cfg: Config, timeout_s: float, solver: str, fields: Insn | None = None
):
    """The step at one configuration (`fields`: one instruction word, else every vd, vs2, vs1
    and vm); with a counterexample, its concrete (pre, insn)."""
    start = time.perf_counter()
    pre, word, insn, domain = step_domain(cfg)
    if fields is not None:
        domain.append(word == encode(fields))
        # the fields as numbers: the spec's Select(regs, vd) is then the register itself
        insn = spec.SymbolicInsn(
            *(
                z3.BitVecVal(getattr(fields, name), size)
                for name, size in (("vd", 5), ("vs2", 5), ("vs1", 5), ("vm", 1))
            )
        )
    # angr sees the register file as v0..v31 and the CSRs by name; the spec's array is made of
    # them (a Select at a known index is then the register itself, no array reasoning)
    regs = [z3.BitVec(f"v{r}", cfg.vlen) for r in range(32)]
    array = z3.K(z3.BitVecSort(5), z3.BitVecVal(0, cfg.vlen))
    for r in range(32):
        array = z3.Store(array, r, regs[r])
    pre = pre.with_(regs=array)
    job = {
        "library": library,
        "level": "step",
        "vlen": cfg.vlen,
        "elen": cfg.elen,
        "timeout_s": timeout_s,
        "insn": None if fields is None else encode(fields),
        "domain": _smt2(domain),
    }
    result = run_engine(python, job)
    if "incomplete" in result:
        return SymbolicResult(Verdict.UNKNOWN, result["incomplete"], time.perf_counter() - start), None
    paths = _paths(result)
    timeout_ms = int(timeout_s * 1000)
    base = dict(paths=result["paths"], steps=result["steps"])
    lost = _coverage(domain, _any(p for _, p in paths), timeout_ms)
    if lost:
        return SymbolicResult(Verdict.UNKNOWN, lost, time.perf_counter() - start, **base), None
    answer, query = _per_path(
        domain,
        [(path, register_wise(_step_goal(cfg, pre, insn, outputs))) for outputs, path in paths],
        timeout_ms,
        solver,
    )
    found = SymbolicResult(answer.verdict, answer.detail, time.perf_counter() - start, solver=solver, **base)
    if answer.verdict != Verdict.COUNTEREXAMPLE:
        return found, None
    valuation = _valuation(answer, domain, query, timeout_ms)
    if valuation is None:
        found.verdict, found.detail = (
            Verdict.UNKNOWN,
            f"the solver refuted it but gave no model ({answer.detail})",
        )
        return found, None
    value, found.model_from = valuation
    fields = Insn(vd=value(insn.vd), vs2=value(insn.vs2), vs1=value(insn.vs1), vm=value(insn.vm))
    state = ArchState(
        cfg.vlen,
        cfg.elen,
        tuple(value(regs[r]) for r in range(32)),
        value(pre.vtype),
        value(pre.vl),
        value(pre.vstart),
        value(pre.vs),
    )
    return found, (state, fields)


def register_wise(term):
    """The term with each equality of two register files (arrays over the 32 register numbers)
    written as the 32 equalities of their registers, simplified: the same meaning, and the
    solvers no longer reason about arrays. The spec's frame (`post.regs == Store(pre.regs, vd,
    ...)`) took bitwuzla 1-2 s a path this way round; register by register, 0.01 s."""
    done: dict = {}
    stack = [term]  # iterative: a path through a long loop is a term too deep for recursion
    while stack:
        t = stack[-1]
        if t.get_id() in done:
            stack.pop()
            continue
        children = t.children() if z3.is_app(t) else []
        pending = [c for c in children if c.get_id() not in done]
        if pending:
            stack += pending
            continue
        stack.pop()
        kids = [done[c.get_id()] for c in children]
        if z3.is_eq(t) and z3.is_array(t.arg(0)) and t.arg(0).domain().size() == 5:
            done[t.get_id()] = _all(z3.Select(kids[0], r) == z3.Select(kids[1], r) for r in range(32))
        elif kids:
            done[t.get_id()] = t.decl()(*kids)
        else:
            done[t.get_id()] = t
    return z3.simplify(done[term.get_id()])


def _step_goal(cfg: Config, pre, insn, outputs: dict, result_pred=None):
    """One path's outcome and post-state are what the spec relation allows (`result_pred`: the
    condition on vd[0], by default the spec's characterisation over the pre-state)."""
    post_regs = pre.regs
    for r in range(32):
        post_regs = z3.Store(post_regs, r, outputs[f"post_v{r}"])
    vs32 = outputs["post_vs"]
    post = ArchState(
        cfg.vlen,
        cfg.elen,
        post_regs,
        outputs["post_vtype"],
        outputs["post_vl"],
        outputs["post_vstart"],
        z3.Extract(1, 0, vs32),
    )
    ret = outputs["ret"]
    outcome = spec.Outcome(ret != 0, ret == 1)
    return z3.And(
        z3.ULE(ret, 2),
        z3.ULT(vs32, 4),
        outputs["post_vregs_pointer"] == VREGS_ADDRESS,
        spec.relation(cfg, pre, insn, outcome, post, result_pred),
    )
