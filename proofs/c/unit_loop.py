"""A reduction unit proved for every n (every VLMAX at a SEW) by induction over its loop.

angr (angr_loop.py, through angr_run.py's job `unit_loop`) guesses the loop's invariant from a
run at a small n and hands back three sets of terms: the entry run with n symbolic (to the
loop head, or returning), and one trip from a state at the head after k trips (back to the
head, or returning), the registers there being templates over k and two ghost values of the
elements visited so far: A (some visited element is active) and X (the maximum of the active
visited ones). The elements and flags are two solver arrays; each load the code made is one of
their bytes. Proved here, under the domain (n one of the SEW's VLMAX values, flags 0/1):

- entry: the paths cover the domain; a path reaching the head satisfies the invariant at k = 0;
  a path that returns there returns the spec's value (the fold of the elements it left, at most
  a trip's worth);
- trip: the paths cover every state the invariant allows; one back at the head satisfies the
  invariant at k + 1 with A and X updated by the elements of trip k; one that returns returns
  the spec's value (A and X folded with the elements left, at most a trip's worth).

Then the unit is right for every n in the domain (the invariant holds at every arrival at the
head, by induction on k; the function returns only through those paths). Nothing here is a
counterexample: a query not proved means the guess was not an invariant, and the caller falls
back to the bounded method.
"""

from __future__ import annotations

import time

import z3

from vredmax.proofs.c.symbolic import SymbolicResult, _all, _any, run_engine
from vredmax.proofs.engine.verdict import Verdict, prove

ELEMENTS, ACTIVE = 0x10000000, 0x20000000


def _terms(result: dict) -> dict:
    terms = {}
    for assertion in z3.parse_smt2_string(result["smt2"]):
        name, term = assertion.arg(0), assertion.arg(1)
        if not z3.is_const(name) or str(name) not in result["outputs"]:
            name, term = term, name
        terms[str(name)] = term
    return terms


class _Unit:
    """The unit's inputs as solver terms: seed, n, and the two arrays."""

    def __init__(self, sew: int, vlmaxes):
        self.sew, self.width = sew, sew // 8
        self.seed, self.n = z3.BitVec("seed", 64), z3.BitVec("n", 64)
        self.bytes = z3.Array("elements", z3.BitVecSort(64), z3.BitVecSort(8))
        self.flags = z3.Array("active", z3.BitVecSort(64), z3.BitVecSort(8))
        self.domain = [z3.Or(*[self.n == v for v in vlmaxes])]

    def element(self, j):
        base = ELEMENTS + j * self.width
        parts = [z3.Select(self.bytes, base + b) for b in reversed(range(self.width))]
        return parts[0] if len(parts) == 1 else z3.Concat(*parts)

    def flag(self, j):
        return z3.Select(self.flags, ACTIVE + j)

    def flag_domain(self, indices):
        return [z3.Implies(z3.ULT(j, self.n), z3.ULE(self.flag(j), 1)) for j, _ in indices]

    def fold(self, a, x, indices):
        """A and X after the elements at `indices` (index, guard) in turn."""
        for j, guard in indices:
            on = z3.And(guard, self.flag(j) != 0)
            e = self.element(j)
            x = z3.If(on, z3.If(a, z3.If(e > x, e, x), e), x)
            a = z3.Or(a, on)
        return a, x

    def spec(self, a, x):
        seed = z3.Extract(self.sew - 1, 0, self.seed)
        return z3.If(a, z3.If(x > seed, x, seed), seed)


def _trip_indices(plan, unit, k, guarded: bool):
    """The elements of trip k (guarded: only those below n, for the elements left at the exit)."""
    stride, n = plan["stride"], unit.n
    left = n - k * stride
    out = []
    for t in range(stride):
        j = k * stride + t if plan["direction"] == "forward" else n - k * stride - 1 - t
        out.append((j, z3.ULT(t, left) if guarded else z3.BoolVal(True)))
    return out


def _bound(plan, unit, k):
    visited = k * plan["stride"]
    return z3.And(
        z3.ULE(k, unit.n), z3.ULT(visited, unit.n) if plan["bound"] == "lt" else z3.ULE(visited, unit.n)
    )


def _template(kind, rep, sew, a, x, init, value):
    """value (a register) is the template of kind over A, X and its value at the entry."""
    init_low = z3.Extract(sew - 1, 0, init)
    if kind == "flag":
        return value == z3.If(a, z3.BitVecVal(1, 64), init)
    want = z3.If(a, z3.If(x > init_low, x, init_low), init_low) if kind == "max" else z3.If(a, x, init_low)
    if rep == "low" or sew == 64:
        return z3.Extract(sew - 1, 0, value) == want
    return value == (z3.SignExt if rep == "sext" else z3.ZeroExt)(64 - sew, want)


def _shapes(kept: dict, init: dict, sew: int) -> dict:
    """Each running value kept sign- or zero-extended: its entry value has that shape."""
    return {
        r: init[r] == (z3.SignExt if rep == "sext" else z3.ZeroExt)(64 - sew, z3.Extract(sew - 1, 0, init[r]))
        for r, (kind, rep) in kept.items()
        if kind in ("max", "first") and rep in ("sext", "zext") and sew < 64
    }


def _kept_after_trip(
    kept: dict, init: dict, terms: dict, i: int, sew: int, k1, a1, x1, tag: str = "t"
) -> dict:
    """Each location's template after trip path i (its terms `{location}_{tag}{i}`), at k + 1 trips."""
    parts = {}
    for r, (kind, extra) in kept.items():
        value = terms[f"{r}_{tag}{i}"]
        parts[r] = (
            value == init[r] + k1 * extra
            if kind == "affine"
            else _template(kind, extra, sew, a1, x1, init[r], value)
        )
    return parts


HOUDINI_ROUNDS = 3  # runs of the engine, each with the locations refuted before havocked


def refuted_locations(obligation, timeout_ms: int, solver: str) -> list[str]:
    """The locations whose own part of a failed obligation is not proved: the guess of the
    invariant was too strong there (a value the mining run's inputs happened to give a
    template's shape: an index whose first value was small). Havocking them weakens the
    invariant (as Houdini does), never the property proved."""
    _, assumptions, _, parts = obligation
    return [
        r
        for r, part in parts.items()
        if prove(assumptions, part, timeout_ms, solver).verdict != Verdict.PROVED
    ]


def _exit_goal(plan, unit, k, a, x, ret):
    left = unit.n - k * plan["stride"]
    indices = _trip_indices(plan, unit, k, True)
    a, x = unit.fold(a, x, indices)
    return indices, z3.And(z3.ULE(left, plan["stride"]), z3.Extract(unit.sew - 1, 0, ret) == unit.spec(a, x))


def entry_return_goals(plan, unit, terms: dict, returns: int, given: list, sew: int) -> list:
    """A return before the loop's first trip (n = 0, no element visited) gives the seed."""
    goals = []
    for i in range(returns):
        indices, goal = _exit_goal(
            plan, unit, z3.BitVecVal(0, 64), z3.BoolVal(False), z3.BitVec("unused_x", sew), terms[f"ret_e{i}"]
        )
        goals.append(
            (
                f"the entry's return {i}",
                given + unit.flag_domain(indices),
                z3.Implies(terms[f"path_e{i}"], goal),
            )
        )
    return goals


def obligations(result: dict, sew: int, vlmaxes) -> list[tuple[str, list, object]]:
    """(what, assumptions, goal) of the induction, from the engine's terms."""
    terms, plan, unit = _terms(result), result["plan"], _Unit(sew, vlmaxes)
    facts = [
        z3.BitVec(name, 8) == z3.Select(unit.bytes if region == "e" else unit.flags, terms[f"addr_{name}"])
        for name, region in result["loads"]
    ]
    given = unit.domain + facts
    counts = result["counts"]
    kept = {r: v for r, v in plan["locations"].items() if v[0] != "havoc"}
    init = {r: terms[f"init_{r}"] for r in kept}
    entry_paths = [terms["path_h0"]] + [terms[f"path_e{i}"] for i in range(counts["e"])]
    found = [("the entry's paths cover every n", given, _any(entry_paths))]
    shapes = _shapes(kept, init, sew)
    found.append(
        (
            "the invariant at the loop's first arrival",
            given,
            z3.Implies(
                terms["path_h0"], _all([_bound(plan, unit, z3.BitVecVal(0, 64))] + list(shapes.values()))
            ),
            {r: z3.Implies(terms["path_h0"], shape) for r, shape in shapes.items()},
        )
    )
    found += entry_return_goals(plan, unit, terms, counts["e"], given, sew)
    k, a, x = z3.BitVec("ghost_k", 64), z3.BitVec("ghost_a", 1) == 1, z3.BitVec("ghost_x", sew)
    at_head = given + [terms["path_h0"], _bound(plan, unit, k)]
    trip_paths = [terms[f"path_t{i}"] for i in range(counts["t"])] + [
        terms[f"path_r{i}"] for i in range(counts["r"])
    ]
    found.append(
        (
            "the trip's paths cover the invariant",
            at_head,
            _any(trip_paths) if trip_paths else z3.BoolVal(False),
        )
    )
    visited = _trip_indices(plan, unit, k, False)
    a1, x1 = unit.fold(a, x, visited)
    k1 = k + 1
    for i in range(counts["t"]):
        parts = _kept_after_trip(kept, init, terms, i, sew, k1, a1, x1)
        found.append(
            (
                f"the invariant after a trip (path {i})",
                at_head + unit.flag_domain(visited),
                z3.Implies(terms[f"path_t{i}"], _all([_bound(plan, unit, k1)] + list(parts.values()))),
                {r: z3.Implies(terms[f"path_t{i}"], part) for r, part in parts.items()},
            )
        )
    for i in range(counts["r"]):
        indices, goal = _exit_goal(plan, unit, k, a, x, terms[f"ret_r{i}"])
        found.append(
            (
                f"the loop's return {i}",
                at_head + unit.flag_domain(indices),
                z3.Implies(terms[f"path_r{i}"], goal),
            )
        )
    return [o if len(o) == 4 else (*o, {}) for o in found]


def induction(python: str, job: dict, obligations_of, where, timeout_s: float, solver: str, start: float):
    """The engine's job and the induction's obligations, proved; where a location's part of
    the invariant is refuted, the job again with it havocked (HOUDINI_ROUNDS runs at most).
    (result, angr's seconds, the solver's) when every obligation is proved, else UNKNOWN."""
    havoc: list[str] = []
    for round_ in range(HOUDINI_ROUNDS):
        result = run_engine(python, dict(job, havoc=havoc))
        if "incomplete" in result:
            return SymbolicResult(Verdict.UNKNOWN, result["incomplete"], time.perf_counter() - start)
        engine_s, total = time.perf_counter() - start, 0.0
        for obligation in obligations_of(result):
            what, assumptions, goal, _ = obligation
            answer = prove(assumptions, goal, int(timeout_s * 1000), solver)
            total += answer.seconds
            if answer.verdict != Verdict.PROVED:
                break
        else:
            return result, engine_s, total
        weaker = refuted_locations(obligation, int(timeout_s * 1000), solver)
        if not weaker or round_ == HOUDINI_ROUNDS - 1:
            detail = answer.detail if answer.verdict != Verdict.COUNTEREXAMPLE else "refuted"
            return SymbolicResult(
                Verdict.UNKNOWN,
                f"induction over {where(result['plan'])}: {what}: not proved ({detail})",
                time.perf_counter() - start,
                steps=result["steps"],
                solver=solver,
            )
        # a location of a second loop (two_loops.py) is named with its head already
        havoc += [r if ":" in r else f"{result['plan']['head']:#x}:{r}" for r in weaker]
    raise AssertionError("unreachable: the last round returns")


def prove_unit_loop(
    python: str, library: str, sew: int, vlmaxes, timeout_s: float, solver: str
) -> SymbolicResult:
    """PROVED for every n in `vlmaxes`, or UNKNOWN with the reason (never a counterexample)."""
    start = time.perf_counter()
    job = {
        "library": library,
        "level": "unit_loop",
        "sew": sew,
        "vlmaxes": list(vlmaxes),
        "timeout_s": timeout_s,
    }

    def where(plan):
        kept = sum(kind != "havoc" for kind, _ in plan["locations"].values())
        return (
            f"the loop at {plan.get('where', hex(plan['head']))} ({plan['direction']}, {plan['stride']} element(s) a trip; "
            f"{kept} registers and stack slots in the invariant)"
        )

    def obligations_of(result):
        if "packed" in result["plan"]:  # flags packed into a bit array by one loop, read by a second
            from vredmax.proofs.c import packed

            return packed.obligations(result, sew, vlmaxes, timeout_s, solver)
        if "second" in result["plan"]:  # a buffer filled by one loop, folded by a second
            from vredmax.proofs.c import two_loops

            return two_loops.obligations(result, sew, vlmaxes)
        return obligations(result, sew, vlmaxes)

    done = induction(python, job, obligations_of, where, timeout_s, solver, start)
    if isinstance(done, SymbolicResult):
        return done
    result, engine_s, total = done
    return SymbolicResult(
        Verdict.PROVED,
        f"every n by induction over {where(result['plan'])}; angr {engine_s:.1f} s, solver {total:.1f} s",
        time.perf_counter() - start,
        paths=sum(result["counts"].values()),
        steps=result["steps"],
        solver=solver,
    )
