"""A whole step proved for every vl by induction over its loop over the elements.

The unit's induction (unit_loop.py) inside a step: angr (angr_step_loop.py, job `step_loop`)
runs one instruction word at one SEW over the configurations given (every LMUL at VLEN=128
whose VLMAX the bounded method does not reach), vtype, vl, vstart, VS and the register file
symbolic, and hands back the entry run to the loop head, and one trip from the head after k
trips with the loop's registers as templates over k and the ghosts A (some visited element is
active) and X (the maximum of the active visited ones). Element j is vs2's group's, its flag
vm or bit j of v0; the loop visits [0, s*k) of the vl elements (or [vl - s*k, vl)). Proved here,
for each configuration, under its domain:

- entry: the paths cover the domain; one that returns satisfies the spec relation (a trap,
  vl = 0); one at the head satisfies the invariant at k = 0;
- trip: its paths cover every state the invariant allows; one back at the head satisfies the
  invariant at k + 1 (A and X folded with the trip's elements) and left the register file and
  the CSR fields as they were at the head; one that returns has at most a trip's elements left,
  and its outcome and post-state satisfy the spec relation with vd[0] required to be the
  reduction: vs1[0] folded with X after the elements left (`A ? max(X, seed) : seed`).

The real run's state at the head after k trips is an instance of the template (A and X the
true fold of the visited elements, by induction on k), so a path leaving the loop writes the
true reduction, which is the value the relation's characterisation of vd[0] allows. Nothing
here is a counterexample: a query not proved leaves the configurations to the bounded method.
"""

from __future__ import annotations

import time

import z3

from vredmax.proofs.c.symbolic import (
    SymbolicResult,
    _all,
    _any,
    _step_goal,
    register_wise,
    step_domain,
)
from vredmax.proofs.c.unit_loop import (
    _bound,
    _kept_after_trip,
    _shapes,
    _terms,
    _trip_indices,
    induction,
)
from vredmax.proofs.engine.verdict import Verdict
from vredmax.spec import relation as spec
from vredmax.spec.config import Config, encode_vtype
from vredmax.spec.encoding import Insn, encode

MINE_VLMAX = 8  # mining runs vl = 6 (angr_loop.MINE_N): a configuration with VLMAX >= 8


class _Elements:
    """The step's elements, flags and vl as solver terms over the register names v0..v31."""

    def __init__(self, cfg: Config, fields: Insn, group: int):
        self.sew, self.vlen = cfg.sew, cfg.vlen
        self.regs = [z3.BitVec(f"v{r}", cfg.vlen) for r in range(32)]
        members = [self.regs[r] for r in range(fields.vs2, min(32, fields.vs2 + group))]
        self.group = z3.Concat(*reversed(members)) if len(members) > 1 else members[0]
        self.vm = fields.vm
        self.n = z3.BitVec("vl", 64)
        self.seed = z3.Extract(cfg.sew - 1, 0, self.regs[fields.vs1])

    def element(self, j):
        width = self.group.size()
        shift = z3.ZeroExt(width - 64, j) * self.sew
        return z3.Extract(self.sew - 1, 0, z3.LShR(self.group, shift))

    def active(self, j):
        if self.vm:
            return z3.BoolVal(True)
        return z3.Extract(0, 0, z3.LShR(self.regs[0], z3.ZeroExt(self.vlen - 64, j))) == 1

    def fold(self, a, x, indices):
        for j, guard in indices:
            on = z3.And(guard, self.active(j))
            e = self.element(j)
            x = z3.If(on, z3.If(a, z3.If(e > x, e, x), e), x)
            a = z3.Or(a, on)
        return a, x

    def spec(self, a, x):
        return z3.If(a, z3.If(x > self.seed, x, self.seed), self.seed)


def _state_outputs(terms: dict, prefix: str) -> dict:
    return {name[len(prefix) :]: term for name, term in terms.items() if name.startswith(prefix)}


def obligations(result: dict, configs: list[Config], fields: Insn, group: int):
    """(what, assumptions, goal) of the induction for each configuration."""
    terms, plan, counts = _terms(result), result["plan"], result["counts"]
    kept = {r: v for r, v in plan["locations"].items() if v[0] != "havoc"}
    init = {r: terms[f"init_{r}"] for r in kept}
    found = []
    for cfg in configs:
        unit = _Elements(cfg, fields, group)
        pre, _, insn, _ = step_domain(cfg)
        domain = _domain(cfg, fields)
        insn = spec.SymbolicInsn(
            *(
                z3.BitVecVal(getattr(fields, name), size)
                for name, size in (("vd", 5), ("vs2", 5), ("vs1", 5), ("vm", 1))
            )
        )
        array = z3.K(z3.BitVecSort(5), z3.BitVecVal(0, cfg.vlen))
        for r in range(32):
            array = z3.Store(array, r, unit.regs[r])
        pre = pre.with_(regs=array)
        sew = cfg.sew

        def goal(outputs, result_pred=None):
            return register_wise(_step_goal(cfg, pre, insn, outputs, result_pred))

        entry_paths = [terms["path_h0"]] + [terms[f"path_e{i}"] for i in range(counts["e"])]
        found.append((f"{cfg}: the entry's paths cover the domain", domain, _any(entry_paths)))
        for i in range(counts["e"]):
            found.append(
                (
                    f"{cfg}: the entry's return {i}",
                    domain,
                    z3.Implies(terms[f"path_e{i}"], goal(_state_outputs(terms, f"e{i}_"))),
                )
            )
        shapes = _shapes(kept, init, sew)
        found.append(
            (
                f"{cfg}: the invariant at the loop's first arrival",
                domain,
                z3.Implies(
                    terms["path_h0"], _all([_bound(plan, unit, z3.BitVecVal(0, 64))] + list(shapes.values()))
                ),
                {r: z3.Implies(terms["path_h0"], shape) for r, shape in shapes.items()},
            )
        )
        k, a, x = z3.BitVec("ghost_k", 64), z3.BitVec("ghost_a", 1) == 1, z3.BitVec("ghost_x", sew)
        at_head = domain + [terms["path_h0"], _bound(plan, unit, k)]
        trip_paths = [terms[f"path_t{i}"] for i in range(counts["t"])] + [
            terms[f"path_r{i}"] for i in range(counts["r"])
        ]
        found.append(
            (
                f"{cfg}: the trip's paths cover the invariant",
                at_head,
                _any(trip_paths) if trip_paths else z3.BoolVal(False),
            )
        )
        a1, x1 = unit.fold(a, x, _trip_indices(plan, unit, k, False))
        k1 = k + 1
        head_memory = _state_outputs(terms, "h_")
        for i in range(counts["t"]):
            parts = _kept_after_trip(kept, init, terms, i, sew, k1, a1, x1)
            goals = [_bound(plan, unit, k1), *parts.values()]
            after = _state_outputs(terms, f"t{i}_")
            goals += [after[name] == head_memory[name] for name in sorted(head_memory)]
            found.append(
                (
                    f"{cfg}: the invariant after a trip (path {i})",
                    at_head,
                    z3.Implies(terms[f"path_t{i}"], _all(goals)),
                    {r: z3.Implies(terms[f"path_t{i}"], part) for r, part in parts.items()},
                )
            )
        for i in range(counts["r"]):
            indices = _trip_indices(plan, unit, k, True)
            a2, x2 = unit.fold(a, x, indices)
            reduction = unit.spec(a2, x2)
            left = unit.n - k * plan["stride"]
            found.append(
                (
                    f"{cfg}: the loop's exit {i}",
                    at_head,
                    z3.Implies(
                        terms[f"path_r{i}"],
                        z3.And(
                            z3.ULE(left, plan["stride"]),
                            goal(_state_outputs(terms, f"r{i}_"), lambda r, want=reduction: r == want),
                        ),
                    ),
                )
            )
    return [o if len(o) == 4 else (*o, {}) for o in found]


def _domain(cfg: Config, fields: Insn) -> list:
    """The configuration's domain, the instruction word and ELEN (a symbolic input of the job)."""
    _, word, _, domain = step_domain(cfg)
    return domain + [word == encode(fields), z3.BitVec("elen", 32) == cfg.elen]


def reserved(cfg: Config, fields: Insn) -> bool:
    """The spec's reserved encodings, for one configuration and one instruction word."""
    insn = spec.SymbolicInsn(
        z3.BitVecVal(fields.vd, 5),
        z3.BitVecVal(fields.vs2, 5),
        z3.BitVecVal(fields.vs1, 5),
        z3.BitVecVal(fields.vm, 1),
    )
    return z3.is_true(z3.simplify(spec.reserved(cfg, None, insn)))


def step_loop_job(library: str, configs: list[Config], fields: Insn, timeout_s: float) -> dict:
    """The engine's job: one instruction word, the configurations' domains as one."""
    mine = max(configs, key=lambda c: c.vlmax)
    domains = []
    for cfg in configs:
        domains.append(_all(_domain(cfg, fields)))
    text = z3.Solver()
    text.add(_any(domains))
    return {
        "library": library,
        "level": "step_loop",
        "vlen": configs[0].vlen,
        "elen": None,  # symbolic: each configuration's domain says which
        "mine_elen": mine.elen,
        "sew": configs[0].sew,
        "insn": encode(fields),
        "vs2": fields.vs2,
        "vm": fields.vm,
        "group": max(c.group_registers for c in configs),
        "mine_vtype": encode_vtype(mine.sew, mine.lmul),
        "domain": text.to_smt2(),
        "timeout_s": timeout_s,
    }


def prove_step_loop(
    python: str, library: str, configs: list[Config], fields: Insn, timeout_s: float, solver: str
) -> SymbolicResult:
    """PROVED for every vl at each configuration of `configs` (one ELEN, one SEW, VLEN 128),
    or UNKNOWN with the reason (never a counterexample)."""
    start = time.perf_counter()
    mine = max(configs, key=lambda c: c.vlmax)
    if mine.vlmax < MINE_VLMAX:
        return SymbolicResult(
            Verdict.UNKNOWN, f"no configuration with VLMAX >= {MINE_VLMAX} to mine the loop at", 0.0
        )
    group = max(c.group_registers for c in configs)

    def where(plan):
        return f"the loop at {plan.get('where', hex(plan['head']))} ({plan['direction']}, {plan['stride']} element(s) a trip)"

    done = induction(
        python,
        step_loop_job(library, configs, fields, timeout_s),
        lambda result: obligations(result, configs, fields, group),
        where,
        timeout_s,
        solver,
        start,
    )
    if isinstance(done, SymbolicResult):
        return done
    result, engine_s, total = done
    return SymbolicResult(
        Verdict.PROVED,
        f"every vl by induction over {where(result['plan'])}; angr {engine_s:.1f} s, solver {total:.1f} s",
        time.perf_counter() - start,
        paths=sum(result["counts"].values()),
        steps=result["steps"],
        solver=solver,
    )
