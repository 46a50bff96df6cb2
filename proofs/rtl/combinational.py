"""Prove a combinational reduction unit against the spec, or find a counterexample.

Three steps at each SEW:

1. Random and corner-case simulation (concrete, on the compiled design): most bugs show here,
   and a mismatch is a counterexample at once.
2. Cut points (the method that scales). Every SEW-bit net of the design gets a *denotation*
   found by probing: the set S of inputs (the seed and lanes) whose signed maximum it holds,
   inactive lanes counting as the signed minimum (the identity). A net is a cut point when
   random simulation agrees with its denotation. Then, for each cut point c, one small query:
   c's logic, with every cut point below it replaced by a fresh variable, equals the smax of
   those variables and of the inputs of S that they do not cover (inactive lanes as the
   identity). The variables being free, each query speaks of one node, not of the whole tree.
   Soundness: by induction over the nets in topological order, each cut point equals the
   maximum of its set (the queries, plus the per-SEW semilattice lemmas of proofs/engine/lemmas.py:
   smax is associative, commutative, idempotent, with the signed minimum as identity, so the
   smax of maxima of covering subsets is the maximum of the union). The result port must be a
   cut point whose set is the seed and every lane, so it equals the seed joined with every
   active element; that satisfies the spec's `result_ok` (upper bound that equals one of them:
   lemmas smax_is_upper_bound and smax_selects).
3. Otherwise (no usable structure, or a node query fails) the monolithic query: the result
   port satisfies `spec.relation.result_ok(result, seed, elements, active)` for all inputs.
   A counterexample comes from here (or from step 1); a timeout is UNKNOWN.

For small units the monolithic query also runs after a cut-point proof, as a cross-check.
"""

from __future__ import annotations

import random
import sys
import time
from dataclasses import dataclass, field

import z3

from vredmax.proofs.engine import lemmas
from vredmax.proofs.rtl.evaluate import Program
from vredmax.proofs.rtl.ports import Interface
from vredmax.proofs.rtl.trace import Reduction, RtlCounterexample
from vredmax.proofs.rtl.yosys import X_VALUE, Design
from vredmax.proofs.engine.verdict import Verdict, prove
from vredmax.spec import relation as spec
from vredmax.spec.bv import Z3Elements

CROSS_CHECK_BITS = 128  # monolithic cross-check when LANES*SEW is at most this (8 s at 256)
RANDOM_CASES = 300
SEED_LANE = -1  # the seed's place in a denotation


@dataclass
class MethodResult:
    method: str
    verdict: Verdict
    seconds: float
    detail: str = ""
    solver: str = "z3"


def biased_value(rng: random.Random, sew: int) -> int:
    """Values near the edges of the signed order, where wrong comparisons show."""
    top = 1 << sew
    pick = rng.random()
    if pick < 0.15:
        return rng.choice([0, 1, top - 1, top >> 1, (top >> 1) - 1, (top >> 1) + 1, top - 2])
    if pick < 0.3:
        return rng.randrange(top - 16, top) if rng.random() < 0.5 else rng.randrange(0, 16)
    return rng.getrandbits(sew)


class CombUnit:
    """The design seen as reduce(seed, elements, active) -> result."""

    def __init__(self, design: Design, iface: Interface):
        self.design, self.sew, self.lanes = design, iface.sew, iface.lanes
        self.result = design.outputs[iface.names["result"]]
        self.seed = iface.var(design, "seed")
        self.elements_var = iface.var(design, "elements")
        self.active_var = iface.var(design, "active")
        self.extra = {
            name: var
            for name, var in design.inputs.items()
            if name not in (iface.names["seed"], iface.names["elements"], iface.names["active"])
        }
        self.program = Program({"result": self.result})
        self.active_mode = iface.active_mode
        self.names = net_names(design)

    def allowed(self, active) -> bool:
        """Is this mask one the checks consider (--active)?"""
        if self.active_mode == "all":
            return all(active)
        if self.active_mode == "below-vl":
            return all(active[i] or not active[i + 1] for i in range(len(active) - 1))
        return True

    def assumption(self):
        """The same, on the active input (a Z3 Bool)."""
        flags = [self.active(i) for i in range(self.lanes)]
        if self.active_mode == "all":
            return z3.And(*flags)
        if self.active_mode == "below-vl":
            return z3.And(*[z3.Implies(flags[i + 1], flags[i]) for i in range(self.lanes - 1)])
        return z3.BoolVal(True)

    def conform(self, active) -> list:
        """A mask made allowed: all lanes (all), or the lanes below the first inactive one (below-vl)."""
        if self.active_mode == "all":
            return [True] * len(active)
        if self.active_mode == "below-vl":
            first_off = next((i for i, a in enumerate(active) if not a), len(active))
            return [i < first_off for i in range(len(active))]
        return list(active)

    def element(self, i: int):
        return z3.Extract(i * self.sew + self.sew - 1, i * self.sew, self.elements_var)

    def active(self, i: int):
        return z3.Extract(i, i, self.active_var) == 1

    def assignment(self, seed: int, elements, active, extra=None) -> dict:
        packed = sum(v << (i * self.sew) for i, v in enumerate(elements))
        flags = sum(1 << i for i, a in enumerate(active) if a)
        values = {
            self.seed.decl().name(): seed,
            self.elements_var.decl().name(): packed,
            self.active_var.decl().name(): flags,
        }
        values.update(extra or {})
        return values

    def run(self, seed: int, elements, active, extra=None) -> int:
        return self.program.run(self.assignment(seed, elements, active, extra))["result"]

    def random_case(self, rng: random.Random):
        elements = [biased_value(rng, self.sew) for _ in range(self.lanes)]
        density = rng.choice([0.0, 0.3, 0.5, 0.8, 1.0])
        active = [rng.random() < density for _ in range(self.lanes)]
        if self.active_mode == "below-vl" and rng.random() < 0.5:
            below = rng.randrange(self.lanes + 1)
            active = [i < below for i in range(self.lanes)]
        return biased_value(rng, self.sew), elements, self.conform(active)


# Step 1: simulation ------------------------------------------------------------------------


def random_search(unit: CombUnit, cases: int = RANDOM_CASES, seed: int = 1):
    """A failing (seed, elements, active) found by simulation, or None."""
    rng = random.Random(seed)
    sew, lanes = unit.sew, unit.lanes
    smin, smax = 1 << (sew - 1), (1 << (sew - 1)) - 1
    corner = [(smin, [smin] * lanes, [True] * lanes), ((1 << sew) - 2, [1] * lanes, [False] * lanes)]
    for i in range(lanes):  # one active lane above the seed; a larger inactive neighbour
        values = [(1 << sew) - 1] * lanes
        values[i] = 5
        corner.append(((1 << sew) - 2, values, [k == i for k in range(lanes)]))
        values = [0] * lanes
        values[i] = smax
        corner.append((smin, values, [k != i for k in range(lanes)]))
    corner = [(seed, elements, unit.conform(active)) for seed, elements, active in corner]
    for case in corner + [unit.random_case(rng) for _ in range(cases)]:
        reduction = Reduction(sew, case[0], case[1], case[2])
        if unit.run(*case) != reduction.spec_result():
            return case
    return None


def counterexample(unit: CombUnit, seed: int, elements, active, extra=None, notes=()) -> RtlCounterexample:
    """The case, minimised (fewest active lanes, inactive elements zero), as a counterexample;
    its ports include every other input (0 unless the case gave a value: the unit saw that)."""
    elements, active = list(elements), list(active)
    extra = {**{var.decl().name(): 0 for var in unit.extra.values()}, **(extra or {})}

    def fails(e, a):
        return unit.run(seed, e, a, extra) != Reduction(unit.sew, seed, e, a).spec_result()

    for i in reversed(range(unit.lanes)):  # from the top: a below-vl mask stays one
        if active[i]:
            trial = active[:i] + [False] + active[i + 1 :]
            if unit.allowed(trial) and fails(elements, trial):
                active = trial
    for i in range(unit.lanes):
        if not active[i] and elements[i]:
            trial = elements[:i] + [0] + elements[i + 1 :]
            if fails(trial, active):
                elements = trial
    reduction = Reduction(unit.sew, seed, elements, active)
    result = unit.run(seed, elements, active, extra)
    ports = {name: value for name, value in unit.assignment(seed, elements, active, extra).items()}
    ports = {name.removeprefix("in_"): value for name, value in ports.items()}
    # every input but the 'x values that are 0 (a unit with many 'x defaults has hundreds)
    ports = {name: value for name, value in ports.items() if value or not name.startswith(X_VALUE)}
    return RtlCounterexample(
        unit.sew,
        unit.lanes,
        reduction,
        result,
        "the result is not the signed maximum of the seed and the active elements",
        ports=ports,
        notes=list(notes),
    )


# Step 2: cut points --------------------------------------------------------------------------


def net_names(design: Design) -> dict:
    """{term id: name} of the design's named nets, the shortest name of each: a net of the
    logic is named only when its term is the wire's own (the same term, so the same value)."""
    names = {}
    for name, term in sorted(design.wires.items(), key=lambda item: (len(item[0]), item[0])):
        names.setdefault(term.get_id(), name)
    return names


def probed_net(unit, term, members, what: str = "net") -> str:
    """The subject of a cut-point message: the net by its name in the design when a named
    wire is it, else by what probing found it to hold."""
    name = unit.names.get(term.get_id())
    if name:
        return f"the {what} {name} (probing found it to hold the maximum of {describe_set(members)})"
    return f"the {what} that probing found to hold the maximum of {describe_set(members)}"


def sew_nets(term, sew: int) -> list:
    """Every distinct SEW-bit subterm of the design's logic that is not a numeral or an input."""
    found, seen, todo = [], set(), [term]
    while todo:
        t = todo.pop()
        if t.get_id() in seen:
            continue
        seen.add(t.get_id())
        if z3.is_bv(t) and t.size() == sew and t.children():
            found.append(t)
        todo.extend(t.children())
    return found


def denotation_value(sew: int, members, seed: int, elements, active) -> int:
    """The signed max of the members (SEED_LANE for the seed), inactive lanes the identity."""
    smin = 1 << (sew - 1)
    best = smin
    for lane in members:
        value = seed if lane == SEED_LANE else (elements[lane] if active[lane] else smin)
        if value ^ smin > best ^ smin:
            best = value
    return best


def flag_nets(term) -> list:
    """Every distinct 1-bit subterm (a Boolean, or a 1-bit vector) with children: the
    candidates for valid bits travelling with values."""
    found, seen, todo = [], set(), [term]
    while todo:
        t = todo.pop()
        if t.get_id() in seen:
            continue
        seen.add(t.get_id())
        if t.children() and (z3.is_bool(t) or (z3.is_bv(t) and t.size() == 1)):
            found.append(t)
        todo.extend(t.children())
    return found


def describe_set(members) -> str:
    """`the seed and lanes 0-3, 6` for a denotation."""
    lanes = sorted(m for m in members if m != SEED_LANE)
    runs, k = [], 0
    while k < len(lanes):
        j = k
        while j + 1 < len(lanes) and lanes[j + 1] == lanes[j] + 1:
            j += 1
        runs.append(str(lanes[k]) if j == k else f"{lanes[k]}-{lanes[j]}")
        k = j + 1
    parts = (["the seed"] if SEED_LANE in members else []) + (
        [f"lane{'s' * (len(lanes) > 1)} " + ", ".join(runs)] if lanes else []
    )
    return " and ".join(parts) or "nothing"


def as_bool(term):
    return term if z3.is_bool(term) else term == 1


@dataclass
class Denotations:
    """What the probing found: padded nets {id: set} (inactive lanes as the identity) and
    guarded nets {id: (set, flag net)} (the value counts only when its valid bit is set; the
    valid bit is whether any lane of the set is active)."""

    padded: dict
    guarded: dict


def denotations(unit: CombUnit, nets: list, flags=(), cases: int = 24) -> Denotations:
    """The sets of the nets, each confirmed by random simulation."""
    sew, lanes = unit.sew, unit.lanes
    smin, top = 1 << (sew - 1), (1 << (sew - 1)) - 1
    program = Program({str(n.get_id()): n for n in nets})
    flag_program = Program({str(f.get_id()): f for f in flags})

    def values(seed, elements, active):
        return program.run(unit.assignment(seed, elements, active))

    def flag_values(seed, elements, active):
        return {key: bool(v) for key, v in flag_program.run(unit.assignment(seed, elements, active)).items()}

    members = {key: set() for key in program.names}
    for lane in range(lanes):
        probe = [smin] * lanes
        probe[lane] = top
        for key, value in values(smin, probe, [True] * lanes).items():
            if value == top:
                members[key].add(lane)
    for key, value in values(top, [smin] * lanes, [True] * lanes).items():
        if value == top:
            members[key].add(SEED_LANE)
    flag_members = {key: set() for key in flag_program.names}
    for lane in range(lanes):
        for key, value in flag_values(0, [0] * lanes, [k == lane for k in range(lanes)]).items():
            if value:
                flag_members[key].add(lane)
    for key, value in flag_values(0, [0] * lanes, [False] * lanes).items():
        if value:
            flag_members[key].add(SEED_LANE)
    rng = random.Random(7)
    padded = {key for key, m in members.items() if m}
    flagged = {key for key, m in flag_members.items() if m and SEED_LANE not in m}
    samples = [unit.random_case(rng) for _ in range(cases)]
    for case in samples:
        got, got_flags = values(*case), flag_values(*case)
        padded = {key for key in padded if got[key] == denotation_value(sew, members[key], *case)}
        flagged = {key for key in flagged if got_flags[key] == any(case[2][i] for i in flag_members[key])}
    by_set = {}
    for key in sorted(flagged):
        by_set.setdefault(frozenset(flag_members[key]), key)
    guarded = {}
    for key, m in members.items():
        if key in padded or not m or SEED_LANE in m or frozenset(m) not in by_set:
            continue
        flag = by_set[frozenset(m)]
        if all(
            got[key] == denotation_value(sew, m, *case)
            for case in samples
            for got, ok in [(values(*case), flag_values(*case))]
            if ok[flag]
        ):
            guarded[int(key)] = (frozenset(m), int(flag))
    return Denotations({int(key): frozenset(members[key]) for key in padded}, guarded)


def _rebuild(term, cuts: dict, deps: set, memo: dict, top: bool):
    key = term.get_id()
    if not top and key in cuts:
        deps.add(key)
        return cuts[key]
    if key in memo:
        return memo[key]
    if not term.children():
        return term
    built = term.decl()(*[_rebuild(k, cuts, deps, memo, False) for k in term.children()])
    memo[key] = built
    return built


def join(ops, parts):
    """The guarded join of (valid, value) pairs: an invalid side is skipped; (valid, max)."""
    valid, value = parts[0]
    for other_valid, other in parts[1:]:
        if z3.is_true(valid) and z3.is_true(other_valid):
            value = ops.smax(value, other)
        else:
            value = z3.If(z3.And(valid, other_valid), ops.smax(value, other), z3.If(valid, value, other))
        valid = z3.simplify(z3.Or(valid, other_valid))
    return valid, value


def node_queries(unit: CombUnit, nets: list, flags: list, found: Denotations):
    """(id, goal) per cut point: its logic, over fresh variables for the cut points below it,
    is the (guarded) join of those and of the inputs of its set they do not cover.

    Soundness, by induction over the nets: each value cut equals the join of its set's active
    inputs (padded: with the identity when none is; guarded: when its valid bit is set), and
    each valid bit is whether a lane of its set is active; the guarded join of pairs is
    associative, commutative and idempotent like smax itself."""
    ops = Z3Elements(unit.sew)
    by_id = {n.get_id(): n for n in list(nets) + list(flags)}
    sets = {**found.padded, **{key: s for key, (s, _) in found.guarded.items()}}
    values = {key: z3.BitVec(f"cut{k}", unit.sew) for k, key in enumerate(sorted(sets))}
    # A valid bit below is replaced by what it was found to be (whether a lane of its set is
    # active; its own query proves it), not by a fresh variable: Yosys flattens OR trees, so
    # a node's valid bit may read the leaves' bits rather than its children's.
    valids = {flag: z3.Or(*[unit.active(i) for i in sorted(lanes)]) for lanes, flag in found.guarded.values()}
    cuts = {
        **values,
        **{
            flag: (var if z3.is_bool(by_id[flag]) else z3.If(var, z3.BitVecVal(1, 1), z3.BitVecVal(0, 1)))
            for flag, var in valids.items()
        },
    }
    queries = []
    for key in sorted(sets):
        deps: set = set()
        body = _rebuild(by_id[key], cuts, deps, {}, True)
        guarded = key in found.guarded
        if guarded:
            body_valid = as_bool(_rebuild(by_id[found.guarded[key][1]], cuts, deps, {}, True))
        value_deps = sorted(d for d in deps if d in values)
        covered = set().union(*[sets[d] for d in value_deps]) if value_deps else set()
        if not covered <= sets[key]:
            net = probed_net(unit, by_id[key], sets[key], f"{by_id[key].size()}-bit net")
            return None, f"{net} reads nets holding {describe_set(covered)}: the sets do not compose"
        parts = [
            (valids[found.guarded[d][1]] if d in found.guarded else z3.BoolVal(True), values[d])
            for d in value_deps
        ]
        for lane in sorted(sets[key] - covered):
            parts.append(
                (z3.BoolVal(True), unit.seed)
                if lane == SEED_LANE
                else (unit.active(lane), unit.element(lane))
            )
        valid, value = join(ops, parts)
        if guarded:
            goal = z3.And(body_valid == valid, z3.Implies(valid, body == value))
        else:
            goal = body == (value if z3.is_true(valid) else z3.If(valid, value, ops.smin()))
        queries.append((key, goal))
    return queries, ""


def lemma_check(sew: int, timeout_ms: int) -> MethodResult:
    """The semilattice lemmas the cut-point argument relies on, for this SEW."""
    start = time.perf_counter()
    names = [lemma.name for lemma in lemmas.LEMMAS if lemma.family == "algebra"]
    for name in names:
        assumptions, goal = lemmas.by_name(name).build(sew)
        answer = prove(assumptions, goal, timeout_ms)
        if answer.verdict != Verdict.PROVED:
            return MethodResult(
                "lemmas", answer.verdict, time.perf_counter() - start, f"lemma {name}: {answer.detail}"
            )
    return MethodResult(
        "lemmas", Verdict.PROVED, time.perf_counter() - start, f"{len(names)} semilattice lemmas"
    )


def cut_point_proof(unit: CombUnit, timeout_ms: int) -> MethodResult:
    start = time.perf_counter()
    nets, flags = sew_nets(unit.result, unit.sew), flag_nets(unit.result)
    found = denotations(unit, nets, flags)
    everything = frozenset(range(unit.lanes)) | {SEED_LANE}
    result_id = unit.result.get_id()
    if found.padded.get(result_id) != everything:
        held = found.padded.get(result_id) or (found.guarded.get(result_id) or (None,))[0]
        what = (
            f"it holds the maximum of {describe_set(held)} only"
            if held
            else "it is not the maximum of any set of them"
        )
        return MethodResult(
            "cut points",
            Verdict.UNKNOWN,
            time.perf_counter() - start,
            f"probed with one input at the signed maximum at a time, the result is not the maximum "
            f"of the seed and every lane ({what})",
        )
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 100_000))
    try:
        queries, why = node_queries(unit, nets, flags, found)
    finally:
        sys.setrecursionlimit(limit)
    if queries is None:
        return MethodResult("cut points", Verdict.UNKNOWN, time.perf_counter() - start, why)
    proved_shapes: set = set()
    by_id = {n.get_id(): n for n in nets}
    sets = {**found.padded, **{key: lanes for key, (lanes, _) in found.guarded.items()}}
    for key, goal in queries:
        shape = _shape(goal)
        if shape in proved_shapes:  # the same node up to renaming: proved once
            continue
        answer = prove([unit.assumption()], goal, timeout_ms)
        if answer.verdict != Verdict.PROVED:
            kind = "with its valid bit " if key in found.guarded else ""
            return MethodResult(
                "cut points",
                Verdict.UNKNOWN,
                time.perf_counter() - start,
                f"{probed_net(unit, by_id[key], sets[key])} {kind}is not proved to hold it for every "
                f"input ({answer.verdict.value}"
                f"{': ' + answer.detail if answer.detail else ''})",
            )
        proved_shapes.add(shape)
    return MethodResult(
        "cut points",
        Verdict.PROVED,
        time.perf_counter() - start,
        f"{len(found.padded) + len(found.guarded)} cut points ({len(found.guarded)} with a "
        f"valid bit), {len(proved_shapes)} distinct node queries",
    )


def _shape(goal) -> str:
    """The query's text with its variables renamed by order of first appearance (a walk of
    the term's structure): equal texts are the same formula up to renaming."""
    variables = _variables(goal)
    renamed = [(v, z3.Const(f"v{k}", v.sort())) for k, v in enumerate(variables)]
    return (z3.substitute(goal, *renamed) if renamed else goal).sexpr()


def _variables(term):
    found, seen, todo = [], set(), [term]
    while todo:
        t = todo.pop()
        if t.get_id() in seen:
            continue
        seen.add(t.get_id())
        if z3.is_const(t) and t.decl().kind() == z3.Z3_OP_UNINTERPRETED:
            found.append(t)
        todo.extend(t.children())
    return found


# Step 3: the monolithic query ------------------------------------------------------------------


def monolithic(unit: CombUnit, timeout_ms: int, solver: str):
    """result_ok(result, seed, elements, active) for every input: (MethodResult, model or None)."""
    elements = [unit.element(i) for i in range(unit.lanes)]
    actives = [unit.active(i) for i in range(unit.lanes)]
    goal = spec.result_ok(unit.result, unit.seed, elements, actives)
    answer = prove([unit.assumption()], goal, timeout_ms, solver)
    return MethodResult(
        "monolithic", answer.verdict, answer.seconds, answer.detail, answer.solver
    ), answer.model


def from_model(unit: CombUnit, model) -> RtlCounterexample:
    def value(var):
        return model.eval(var, model_completion=True).as_long()

    seed = value(unit.seed)
    packed, flags = value(unit.elements_var), value(unit.active_var)
    elements = [packed >> (i * unit.sew) & ((1 << unit.sew) - 1) for i in range(unit.lanes)]
    active = [bool(flags >> i & 1) for i in range(unit.lanes)]
    extra = {var.decl().name(): value(var) for var in unit.extra.values()}
    return counterexample(unit, seed, elements, active, extra)


@dataclass
class CombOutcome:
    verdict: Verdict
    methods: list[MethodResult] = field(default_factory=list)
    counterexample: RtlCounterexample | None = None
    detail: str = ""


def check_combinational(
    design: Design, iface: Interface, timeout_ms: int, solver: str = "auto", cross_check: bool | None = None
) -> CombOutcome:
    """Prove the unit at this elaboration (one SEW), or give a counterexample."""
    unit = CombUnit(design, iface)
    out = CombOutcome(Verdict.UNKNOWN)
    start = time.perf_counter()
    case = random_search(unit)
    out.methods.append(
        MethodResult(
            "simulation",
            Verdict.COUNTEREXAMPLE if case else Verdict.PROVED,
            time.perf_counter() - start,
            f"{RANDOM_CASES} random and corner cases",
        )
    )
    if case:
        return _refuted(out, unit, counterexample(unit, *case), "found by simulation")
    lemma = lemma_check(unit.sew, timeout_ms)
    out.methods.append(lemma)
    if lemma.verdict != Verdict.PROVED:
        out.verdict, out.detail = lemma.verdict, lemma.detail
        return out
    cut = cut_point_proof(unit, timeout_ms)
    out.methods.append(cut)
    small = iface.lanes * iface.sew <= CROSS_CHECK_BITS
    if cut.verdict == Verdict.PROVED and not (small if cross_check is None else cross_check):
        out.verdict = Verdict.PROVED
        return out
    mono, model = monolithic(unit, timeout_ms, solver)
    out.methods.append(mono)
    if mono.verdict == Verdict.COUNTEREXAMPLE and model is not None:
        return _refuted(out, unit, from_model(unit, model), "found by the monolithic query")
    if cut.verdict == Verdict.PROVED:
        if mono.verdict in (Verdict.PROVED, Verdict.UNKNOWN):
            out.verdict = Verdict.PROVED
            if mono.verdict == Verdict.UNKNOWN:
                out.detail = "the monolithic cross-check timed out"
            return out
        out.verdict, out.detail = (
            Verdict.ERROR,
            f"cut points proved it but the monolithic query says {mono.verdict.value}",
        )
        return out
    out.verdict = mono.verdict if mono.verdict != Verdict.COUNTEREXAMPLE else Verdict.ERROR
    out.detail = mono.detail or cut.detail
    if out.verdict == Verdict.UNKNOWN:
        out.detail = (
            f"cut points: {cut.detail}; the monolithic query: {mono.detail or 'no answer'}; no "
            f"counterexample in {RANDOM_CASES} random and corner cases. Try: a longer --timeout; a unit "
            "whose SEW-bit nets each hold the maximum of a set of lanes (a tree or a chain of signed "
            "max), so that the cut points apply; a smaller LANES to find a counterexample"
        )
    return out


def _refuted(out: CombOutcome, unit: CombUnit, cx: RtlCounterexample, how: str) -> CombOutcome:
    """Keep a counterexample only if it replays: the unit's result is one the spec forbids."""
    if cx.reduction.allows(cx.unit_result):
        out.verdict, out.detail = Verdict.ERROR, f"the counterexample {how} does not replay"
        return out
    cx.notes.append(
        how + "; replayed on the compiled design, and spec.relation.result_ok rejects the unit's result"
    )
    out.verdict, out.counterexample, out.detail = Verdict.COUNTEREXAMPLE, cx, how
    return out
