"""Prove a multi-cycle reduction unit for every number of chunks, by induction.

The protocol, as an environment (what the proof assumes of the unit's inputs), from cycle 0
where `rst` is high: `rst` may rise in any cycle (it aborts the reduction); otherwise
`start` comes only when no reduction is running and not with a chunk; `in_valid` only during a
reduction (after `start`, until the chunk with `last`); `last` only with `in_valid`. After
the last chunk the environment offers nothing until `done`. Every other input is free.

A ghost (the spec's side, updated in step with the unit) tracks the phase (idle, busy,
waiting for `done`), the seed taken at `start`, for each lane position the running maximum of
its active elements fed since `start` (from the signed minimum), and the cycles waited since
`last`. The running maximum of a group of lanes, with or without the seed, is the smax of
those atoms; for the whole group with the seed it is the spec's reduction of everything fed.
Keeping atoms, not one running maximum per group, makes the groups agree by construction.
It is written once against the element ops of spec/bv.py and runs both concretely (simulation)
and on Z3 terms (the proofs).

The property, in each cycle without `rst`: `done` only when a reduction has had its last
chunk (in this cycle or before) and not yet a `done`; when `done` is high, `result` is the
spec's reduction of the seed and every active element fed since `start`; and `done` comes at
most L cycles after the last chunk (L measured by simulation, or given).

The proof: (1) random simulation (a violation is a counterexample at once; it also measures
L); (2) a bounded check of the first cycles from reset (BMC); (3) candidate invariants mined
from the simulated states (a register, or the smax of two, equals the running maximum of
some lanes, with or without the seed, under a guard: a phase, the first cycles of waiting,
or a phase or one of those cycles with a 1-bit register's value; a register is constant under a guard; a 1-bit
register is 1 exactly in a phase) are filtered Houdini-style: kept only if they hold right
after reset and are preserved by every step the environment allows; (4) the invariants
imply the property in every state (one query): then it holds in every cycle, whatever the
number of chunks. When they do not, before saying UNKNOWN: reductions of 2^k + 1 chunks (a
counter of k bits wrapping) and a deeper bounded check look for a real counterexample. Results are taken
from the running maximum, which satisfies the spec's `result_ok` by the semilattice lemmas;
the simulation checks every result at `done` with `result_ok` itself.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field

import z3

from vredmax.proofs.rtl.combinational import MethodResult, biased_value, lemma_check
from vredmax.proofs.rtl.evaluate import Program
from vredmax.proofs.rtl.ports import Interface
from vredmax.proofs.rtl.trace import Reduction, RtlCounterexample
from vredmax.proofs.rtl.yosys import Design
from vredmax.proofs.engine import solvers
from vredmax.proofs.engine.verdict import Verdict, prove
from vredmax.spec import relation as spec
from vredmax.spec.bv import ConcreteElements, Z3Elements

SIM_TRACES = 12
SIM_CYCLES = 160
# two long reductions (hundreds of chunks): counters that wrap show there
LONG_TRACES, LONG_CYCLES, LONG_P_LAST = 2, 640, 0.003
SHRINK_BUDGET_S = 8.0    # shortening a counterexample trace: best effort within this time
HORIZON = 64                  # cycles to wait for `done` in simulation
MAX_BMC_DEPTH = 24
# bitwuzla: 2-4x faster than Z3 on these unrolled queries (measured at SEW=8, 4 lanes)
BMC_SOLVER = "bitwuzla"
DEEP_BMC_TIMEOUT_MS = 20_000
INPUT_ROLES = ("rst", "start", "seed", "in_valid", "elements", "active", "last")


# The ghost: written once, run concretely and symbolically ------------------------------------------

def lane_groups(lanes: int) -> list[tuple[frozenset, bool]]:
    """The groups of lanes the invariant may speak of (with or without the seed): every
    lane, each single lane, aligned power-of-two blocks, and the seed alone."""
    groups = []
    size = 1
    while size < lanes:
        for lo in range(0, lanes, size):
            groups.append(frozenset(range(lo, min(lo + size, lanes))))
        size *= 2
    groups.append(frozenset(range(lanes)))
    found = []
    for g in dict.fromkeys(groups):
        found += [(g, True), (g, False)]
    found.append((frozenset(), True))
    return found


SEED = "seed"


def group_name(group) -> str:
    lanes, with_seed = group
    if not lanes:
        return "seed"
    body = "lanes " + ",".join(map(str, sorted(lanes)))
    return ("seed+" if with_seed else "") + body


@dataclass
class Ghost:
    busy: object
    waiting: object
    wait: object                    # cycles waited since `last` (SEW bits, saturating)
    atoms: dict                     # SEED -> the seed taken; lane j -> running max of lane j
    acc: object                     # running max of the seed and every active element fed


def fold_chunk(ops, acc, lanes, elements, active):
    for lane in sorted(lanes):
        acc = ops.ite(active[lane], ops.smax(acc, elements[lane]), acc)
    return acc


def ghost_step(ops, g: Ghost, inp: dict, done, limit: int) -> Ghost:
    """The ghost after one cycle. `inp` holds rst, start, seed, in_valid, last (booleans or
    values) and the chunk as lists `elements`, `active`; `done` is the unit's output."""
    rst, start, fed, last = inp["rst"], inp["start"], inp["in_valid"], inp["last"]
    and_, or_, not_ = ops.and_, ops.or_, ops.not_
    run = and_(not_(rst), not_(start))
    finishing = and_(fed, last)
    busy = and_(not_(rst), or_(start, and_(g.busy, not_(finishing))))
    waiting = and_(run, or_(and_(and_(g.busy, finishing), not_(done)), and_(g.waiting, not_(done))))
    grow = ops.ite(ops.ult(g.wait, ops.const(limit + 1)), g.wait + ops.const(1), g.wait)
    wait = ops.ite(and_(run, and_(g.waiting, not_(done))), grow, ops.const(0))
    atoms = {SEED: ops.ite(and_(not_(rst), start), inp["seed"], g.atoms[SEED])}
    for lane in range(len(inp["active"])):
        value = g.atoms[lane]
        grown = ops.ite(and_(fed, inp["active"][lane]), ops.smax(value, inp["elements"][lane]), value)
        atoms[lane] = ops.ite(rst, value, ops.ite(start, ops.smin(), grown))
    lanes = range(len(inp["active"]))
    acc = None
    if g.acc is not None:
        fed_acc = ops.ite(fed, fold_chunk(ops, g.acc, lanes, inp["elements"], inp["active"]), g.acc)
        acc = ops.ite(rst, g.acc, ops.ite(start, inp["seed"], fed_acc))
    return Ghost(busy, waiting, wait, atoms, acc)


def group_value(ops, g: Ghost, group):
    """The running max of a group of lanes (and the seed if it has it): smax of its atoms."""
    lanes, with_seed = group
    if with_seed and len(lanes) == len(g.atoms) - 1 and g.acc is not None:
        return g.acc     # the whole reduction: its own ghost (same value; cheaper queries)
    parts = ([g.atoms[SEED]] if with_seed else []) + [g.atoms[lane] for lane in sorted(lanes)]
    if not parts:
        return ops.smin()
    value = parts[0]
    for part in parts[1:]:
        value = ops.smax(value, part)
    return value


def violation(ops, g: Ghost, inp: dict, result, done, limit: int, full) -> dict:
    """The property's three failure conditions in a cycle without rst (name -> condition)."""
    and_, or_, not_ = ops.and_, ops.or_, ops.not_
    live = not_(inp["rst"])
    chunk_now = and_(and_(g.busy, inp["in_valid"]), inp["last"])
    allowed = or_(g.waiting, chunk_now)
    expected = expected_result(ops, g, inp, full)
    late_at = ops.const(limit)
    next_wait = g.wait + ops.const(1)
    late = and_(g.waiting, or_(ops.ugt(next_wait, late_at), and_(ops.eq(next_wait, late_at), not_(done))))
    return {
        "done without a finished reduction": and_(live, and_(done, not_(allowed))),
        "result differs from the spec's reduction": and_(live, and_(and_(done, allowed), not_(ops.eq(result, expected)))),
        f"done did not come within {limit} cycles of the last chunk": and_(live, late),
    }


def expected_result(ops, g: Ghost, inp: dict, full):
    so_far = group_value(ops, g, full)
    everything = fold_chunk(ops, so_far, full[0], inp["elements"], inp["active"])
    return ops.ite(g.waiting, so_far, everything)


# The unit, concretely ----------------------------------------------------------------------------------

class SeqUnit:
    def __init__(self, design: Design, iface: Interface):
        self.design, self.iface = design, iface
        self.sew, self.lanes = iface.sew, iface.lanes
        self.names = iface.names
        role_ports = {iface.names[r] for r in INPUT_ROLES}
        self.extra = {name: var for name, var in design.inputs.items() if name not in role_ports}
        self.registers = {name: var.size() for name, var in design.state.items()}
        terms = {f"out:{iface.names['result']}": design.outputs[iface.names["result"]],
                 f"out:{iface.names['done']}": design.outputs[iface.names["done"]]}
        terms.update({f"next:{name}": t for name, t in design.next_state.items()})
        self.program = Program(terms)
        self.full = (frozenset(range(self.lanes)), True)

    def var_values(self, state: dict, inp: dict) -> dict:
        values = {self.design.state[name].decl().name(): value for name, value in state.items()}
        for role in INPUT_ROLES:
            value = inp[role]
            if role == "elements":
                value = sum(v << (i * self.sew) for i, v in enumerate(value))
            elif role == "active":
                value = sum(1 << i for i, a in enumerate(value) if a)
            elif role in self.iface.inverted:
                value = self.iface.level(role, value)
            values[self.design.inputs[self.names[role]].decl().name()] = int(value)
        for name, var in self.extra.items():
            values[var.decl().name()] = inp.get("extra", {}).get(name, 0)
        return values

    def step(self, state: dict, inp: dict):
        got = self.program.run(self.var_values(state, inp))
        result, done = got[f"out:{self.names['result']}"], got[f"out:{self.names['done']}"]
        return result, bool(done), {name: got[f"next:{name}"] for name in state}


# Simulation --------------------------------------------------------------------------------------------

@dataclass
class Sample:
    state: dict
    ghost: Ghost


@dataclass
class Simulation:
    samples: list = field(default_factory=list)
    latencies: list = field(default_factory=list)
    failure: tuple | None = None          # (cycles, index of the failing cycle, problem)
    reductions: int = 0


def idle_ghost(ops, lanes: int):
    return Ghost(False, False, 0, {SEED: ops.smin(), **{lane: ops.smin() for lane in range(lanes)}}, ops.smin())


def simulate(unit: SeqUnit, limit: int | None, seed: int = 1) -> Simulation:
    """Random protocol-abiding traces from reset; stops at the first violation."""
    rng = random.Random(seed)
    ops = ConcreteElements(unit.sew)
    sim = Simulation()
    check_limit = limit if limit is not None else HORIZON
    for trace in range(SIM_TRACES + LONG_TRACES):
        long = trace >= SIM_TRACES
        p_last = LONG_P_LAST if long else [0.5, 0.25, 0.1, 0.03][trace % 4]
        state = {name: rng.getrandbits(width) for name, width in unit.registers.items()}
        g = idle_ghost(ops, unit.lanes)
        cycles, last_at = [], None
        for t in range(LONG_CYCLES if long else SIM_CYCLES):
            inp = random_inputs(rng, unit, g, p_last, first=(t == 0))
            result, done, nxt = unit.step(state, inp)
            cycles.append(cycle_record(unit, state, inp, result, done, g))
            if t > 0:
                for problem, bad in violation(ops, g, inp, result, done, check_limit, unit.full).items():
                    if bad:
                        sim.failure = (cycles, t, problem)
                        return sim
                sim.samples.append(Sample(dict(state), g))
                if g.busy and inp["in_valid"] and inp["last"] and not inp["rst"]:
                    last_at = t
                if done and not inp["rst"] and last_at is not None:
                    if not reduction_of(cycles, t, unit).allows(result):   # spec.relation.result_ok itself
                        sim.failure = (cycles, t, "result differs from the spec's reduction")
                        return sim
                    sim.latencies.append(t - last_at)
                    sim.reductions += 1
                    last_at = None
                if inp["rst"]:
                    last_at = None
            g = ghost_step(ops, g, inp, done, check_limit)
            state = nxt
    return sim


def random_inputs(rng: random.Random, unit: SeqUnit, g: Ghost, p_last: float, first: bool) -> dict:
    sew, lanes = unit.sew, unit.lanes
    inp = {"rst": first or rng.random() < 0.01, "start": False, "in_valid": False, "last": False,
           "seed": biased_value(rng, sew), "elements": [biased_value(rng, sew) for _ in range(lanes)],
           "active": [rng.random() < rng.choice([0.0, 0.5, 0.9, 1.0]) for _ in range(lanes)],
           "extra": {name: rng.getrandbits(var.size()) for name, var in unit.extra.items()}}
    if inp["rst"]:
        inp["start"], inp["in_valid"], inp["last"] = rng.random() < 0.3, rng.random() < 0.3, rng.random() < 0.3
    elif not g.busy and not g.waiting:
        inp["start"] = rng.random() < 0.5
    elif g.busy:
        inp["in_valid"] = rng.random() < 0.75
        inp["last"] = inp["in_valid"] and rng.random() < p_last
    return inp


def cycle_record(unit: SeqUnit, state, inp, result, done, g) -> dict:
    names = unit.names
    record = {names[r]: unit.iface.level(r, inp[r]) for r in ("rst", "start", "in_valid", "last")}   # port levels
    record[names["seed"]] = inp["seed"]
    record[names["elements"]] = sum(v << (i * unit.sew) for i, v in enumerate(inp["elements"]))
    record[names["active"]] = sum(1 << i for i, a in enumerate(inp["active"]) if a)
    record.update(inp.get("extra", {}))
    record[names["result"]], record[names["done"]] = result, int(done)
    record.update({f"reg.{name.removesuffix('$ff')}": value for name, value in state.items()})
    record["spec.running_max"] = group_value(ConcreteElements(unit.sew), g, unit.full)
    record["spec.busy"], record["spec.waiting"] = int(g.busy), int(g.waiting)
    record["_inputs"], record["_state"] = inp, dict(state)
    return record


def signal_widths(unit: SeqUnit) -> dict:
    names, sew, lanes = unit.names, unit.sew, unit.lanes
    widths = {names[r]: 1 for r in ("rst", "start", "in_valid", "last")}
    widths.update({names["seed"]: sew, names["elements"]: sew * lanes, names["active"]: lanes})
    widths.update({name: var.size() for name, var in unit.extra.items()})
    widths.update({names["result"]: sew, names["done"]: 1})
    widths.update({f"reg.{name.removesuffix('$ff')}": w for name, w in unit.registers.items()})
    widths.update({"spec.running_max": sew, "spec.busy": 1, "spec.waiting": 1})
    return widths


def reduction_of(cycles: list, at: int, unit: SeqUnit) -> Reduction | None:
    """The reduction in progress at cycle `at` (everything fed since the last start)."""
    seed, chunks = _in_progress(cycles, at)
    if seed is None:
        return None
    return Reduction(unit.sew, seed, [v for c in chunks for v in c[0]], [a for c in chunks for a in c[1]])


def _in_progress(cycles: list, at: int):
    seed, chunks = None, []
    for record in cycles[1:at + 1]:
        inp = record["_inputs"]
        if inp["rst"]:
            seed, chunks = None, []
        elif inp["start"]:
            seed, chunks = inp["seed"], []
        elif inp["in_valid"] and seed is not None:
            chunks.append((list(inp["elements"]), list(inp["active"]), bool(inp["last"])))
    return seed, chunks


def counterexample(unit: SeqUnit, cycles: list, at: int, problem: str) -> RtlCounterexample:
    """The trace up to the failing cycle, with the reduction in progress mapped back."""
    seed, chunks = _in_progress(cycles, at)
    reduction = None
    if seed is not None:
        reduction = Reduction(unit.sew, seed, [v for c in chunks for v in c[0]], [a for c in chunks for a in c[1]])
    final = cycles[at]
    unit_result = final[unit.names["result"]] if "result" in problem else None
    shown = [{k: v for k, v in c.items() if not k.startswith("_")} for c in cycles[:at + 1]]
    return RtlCounterexample(unit.sew, unit.lanes, reduction, unit_result,
                             f"cycle {at}: {problem}", chunks=chunks, cycles=shown, at_cycle=at,
                             column_names=dict(unit.names))


# Symbolic: the step, the environment, the candidates -----------------------------------------------------

class Symbolic:
    """Z3 views of the unit and the ghost at one cycle."""

    def __init__(self, unit: SeqUnit, limit: int, tag: str):
        d, names, sew = unit.design, unit.names, unit.sew
        self.unit, self.limit = unit, limit
        self.ops = Z3Elements(sew)
        self.inputs = {var.decl().name(): z3.Const(f"{var.decl().name()}@{tag}", var.sort())
                       for var in d.inputs.values()}
        self.inp = self._roles(lambda role: self.inputs[d.inputs[names[role]].decl().name()])

    def _roles(self, port):
        unit, sew = self.unit, self.unit.sew
        elements, active = port("elements"), port("active")
        def on(role):
            return port(role) == unit.iface.level(role, True)
        return {"rst": on("rst"), "start": on("start"), "in_valid": on("in_valid"),
                "last": on("last"), "seed": port("seed"),
                "elements": [z3.Extract(i * sew + sew - 1, i * sew, elements) for i in range(unit.lanes)],
                "active": [z3.Extract(i, i, active) == 1 for i in range(unit.lanes)]}

    def env(self, g: Ghost):
        inp = self.inp
        idle = z3.And(z3.Not(g.busy), z3.Not(g.waiting))
        return z3.Or(inp["rst"], z3.And(z3.Implies(inp["start"], z3.And(idle, z3.Not(inp["in_valid"]))),
                                        z3.Implies(inp["in_valid"], g.busy),
                                        z3.Implies(inp["last"], inp["in_valid"])))


def fresh_ghost(sew: int, lanes: int, tag: str, whole: bool = True) -> Ghost:
    atoms = {SEED: z3.BitVec(f"ghost_seed@{tag}", sew)}
    atoms.update({lane: z3.BitVec(f"ghost_lane{lane}@{tag}", sew) for lane in range(lanes)})
    return Ghost(z3.Bool(f"ghost_busy@{tag}"), z3.Bool(f"ghost_waiting@{tag}"), z3.BitVec(f"ghost_wait@{tag}", sew),
                 atoms, z3.BitVec(f"ghost_acc@{tag}", sew) if whole else None)


@dataclass
class Candidate:
    text: str
    holds: object        # (state dict, ghost) -> bool / Z3 Bool; the state maps register -> value


def _guards(limit: int, bits=()):
    """(text, guard(state, ghost), more general guards), most general first: the phases, the
    first cycles of waiting, and the phases busy/waiting with a 1-bit register's value (a
    pipeline's valid bit, say). A fact mined under a guard is not mined again under a more
    specific one (it would follow)."""
    phase = {"idle": lambda g: _and(_not(g.busy), _not(g.waiting)), "busy": lambda g: g.busy,
             "waiting": lambda g: g.waiting, "busy or waiting": lambda g: _or(g.busy, g.waiting)}
    guards = [("always", lambda st, g: True, ()),
              ("busy or waiting", lambda st, g: phase["busy or waiting"](g), ("always",))]
    for name in ("busy", "waiting", "idle"):
        parents = ("always",) if name == "idle" else ("always", "busy or waiting")
        guards.append((name, lambda st, g, p=phase[name]: p(g), parents))
    for k in range(min(limit, 8)):
        guards.append((f"waiting with {k} cycles waited", lambda st, g, k=k: _and(g.waiting, _eq(g.wait, k)),
                       ("always", "busy or waiting", "waiting")))
    for name in ("busy or waiting", "busy", "waiting"):
        for bit in bits:
            for value in (1, 0):
                parents = ("always", "busy or waiting", name) + (
                    (f"busy or waiting and {_reg(bit)} = {value}",) if name != "busy or waiting" else ())
                guards.append((f"{name} and {_reg(bit)} = {value}",
                               lambda st, g, p=phase[name], bit=bit, value=value: _and(p(g), _eq(st[bit], value)),
                               parents))
    # a cycle of waiting with a 1-bit register's value: which of several done paths is
    # running, when the latency depends on the data
    for k in range(min(limit, 8)):
        for bit in bits:
            for value in (1, 0):
                parents = ("always", "busy or waiting", "waiting", f"waiting with {k} cycles waited",
                           f"busy or waiting and {_reg(bit)} = {value}", f"waiting and {_reg(bit)} = {value}")
                guards.append((f"waiting with {k} cycles waited and {_reg(bit)} = {value}",
                               lambda st, g, k=k, bit=bit, value=value:
                                   _and(_and(g.waiting, _eq(g.wait, k)), _eq(st[bit], value)), parents))
    return guards


def _and(a, b):
    return z3.And(a, b) if isinstance(a, z3.ExprRef) or isinstance(b, z3.ExprRef) else (a and b)


def _or(a, b):
    return z3.Or(a, b) if isinstance(a, z3.ExprRef) or isinstance(b, z3.ExprRef) else (a or b)


def _not(a):
    return z3.Not(a) if isinstance(a, z3.ExprRef) else (not a)


def _eq(a, b):
    return a == b if isinstance(a, z3.ExprRef) or isinstance(b, z3.ExprRef) else a == b


def _implies(a, b):
    return z3.Implies(a, b) if isinstance(a, z3.ExprRef) or isinstance(b, z3.ExprRef) else ((not a) or b)


def mine(unit: SeqUnit, samples: list, limit: int, accumulator: str | None) -> list[Candidate]:
    """Candidate invariants that hold in every simulated state (non-vacuously)."""
    found = []
    regs = unit.registers
    guards = _guards(limit, [r for r, w in regs.items() if w == 1])
    data_regs = [r for r, w in regs.items() if w == unit.sew]
    if accumulator is not None:
        data_regs = [r for r in data_regs if _reg(r) == accumulator]
    groups = lane_groups(unit.lanes)
    if accumulator is not None:
        groups = [unit.full]
    ops = ConcreteElements(unit.sew)
    values = [{group: group_value(ops, s.ghost, group) for group in groups} for s in samples]
    mined: dict = {}     # guard -> the facts mined under it

    def new(fact, gname, parents):
        if any(fact in mined.get(p, ()) for p in parents):
            return False
        mined.setdefault(gname, set()).add(fact)
        return True

    for gname, guard, parents in guards:
        chosen = [k for k, s in enumerate(samples) if guard(s.state, s.ghost)]
        if not chosen:
            continue
        for reg in regs:
            seen = {samples[k].state[reg] for k in chosen}
            if len(seen) == 1 and new((reg, min(seen)), gname, parents):
                c = seen.pop()
                found.append(Candidate(f"{gname}: {_reg(reg)} = {c:#x}",
                                       lambda st, g, guard=guard, reg=reg, c=c: _implies(guard(st, g), _eq(st[reg], c))))
        # a register, or the smax of two (a value and the one still in a pipeline stage),
        # holds the running max of a group of lanes
        terms = [((reg,), lambda st, reg=reg: st[reg]) for reg in data_regs]
        terms += [((a, b), lambda st, a=a, b=b: _smax(unit.sew, st[a], st[b]))
                  for i, a in enumerate(data_regs) for b in data_regs[i + 1:]]
        for names, term in terms:
            for group in groups:
                if all(term(samples[k].state) == values[k][group] for k in chosen) and new((names, group), gname, parents):
                    shown = _reg(names[0]) if len(names) == 1 else f"smax({_reg(names[0])}, {_reg(names[1])})"
                    found.append(Candidate(
                        f"{gname}: {shown} = running max of {group_name(group)} fed since start",
                        lambda st, g, guard=guard, term=term, group=group:
                            _implies(guard(st, g), _eq(term(st), _group(g, group)))))
        if gname != "always" and " = " not in gname:
            for reg, width in regs.items():
                if width == 1 and all((s.state[reg] == 1) == bool(guard(s.state, s.ghost)) for s in samples):
                    found.append(Candidate(f"{_reg(reg)} = 1 exactly when {gname}",
                                           lambda st, g, guard=guard, reg=reg: _eq(_bit(st[reg]), guard(st, g))))
    found.append(Candidate("not waiting: cycles waited = 0", lambda st, g: _implies(_not(g.waiting), _eq(g.wait, 0))))
    found.append(Candidate(f"waiting: cycles waited < {limit}",
                           lambda st, g: _implies(g.waiting, _ult(g.wait, limit))))
    found.append(Candidate("never busy and waiting at once", lambda st, g: _not(_and(g.busy, g.waiting))))
    return found


def _smax(sew: int, a, b):
    if isinstance(a, z3.ExprRef) or isinstance(b, z3.ExprRef):
        return Z3Elements(sew).smax(a, b)
    return ConcreteElements(sew).smax(a, b)


def _group(g: Ghost, group):
    """A group's running max from the (symbolic) ghost's atoms."""
    return group_value(Z3Elements(g.atoms[SEED].size()), g, group)


def _bit(value):
    return value == 1 if isinstance(value, z3.ExprRef) else value == 1


def _ult(a, b):
    return z3.ULT(a, b) if isinstance(a, z3.ExprRef) else a < b


def _reg(name: str) -> str:
    return name.removesuffix("$ff")


def _as_bool(value, sew):
    return value if isinstance(value, z3.ExprRef) else z3.BoolVal(bool(value))


def houdini(unit: SeqUnit, candidates: list[Candidate], limit: int, timeout_ms: int, whole: bool = True):
    """The candidates that hold after reset and are preserved by every allowed step."""
    d, sew = unit.design, unit.sew
    cur = Symbolic(unit, limit, "t")
    g = fresh_ghost(sew, unit.lanes, "t", whole)
    st = dict(d.state)
    sub_inputs = [(d.inputs[n], cur.inputs[d.inputs[n].decl().name()]) for n in d.inputs]
    outputs = {n: z3.substitute(t, *sub_inputs) for n, t in d.outputs.items()}
    nxt = {n: z3.substitute(t, *sub_inputs) for n, t in d.next_state.items()}
    done_now = outputs[unit.names["done"]] == 1
    g_next = ghost_step(cur.ops, g, cur.inp, done_now, limit)
    # Base: right after the reset cycle, from any state.
    reset_ghost = Ghost(z3.BoolVal(False), z3.BoolVal(False), z3.BitVecVal(0, sew), g_next.atoms, g_next.acc)
    alive = []
    for c in candidates:
        base = prove([cur.inp["rst"]], c.holds(nxt, reset_ghost), timeout_ms)
        if base.verdict == Verdict.PROVED:
            alive.append(c)
    # Step: drop what some allowed step from a state satisfying all of them breaks.
    rounds = 0
    while True:
        rounds += 1
        before = [cur.env(g)] + [_as_bool(c.holds(st, g), sew) for c in alive]
        after = [_as_bool(c.holds(nxt, g_next), sew) for c in alive]
        # bitwuzla first for the "all kept" answer (measured: 4-8x faster than Z3 on the
        # per-lane unit's step at SEW=64); Z3 for a model that says what to drop
        if not after:
            return alive, rounds, (cur, g, st, outputs)
        quick = solvers.check_text("bitwuzla", solvers.smt2_script(before, z3.And(*after)), timeout_ms)
        if quick.assumptions == "unsat":
            return None, rounds, "vacuous: the environment and the candidates cannot hold together"
        if quick.negated_goal == "unsat":
            return alive, rounds, (cur, g, st, outputs)
        solver = z3.Solver()
        solver.set(timeout=timeout_ms)
        solver.add(*before)
        solver.add(z3.Or(*[z3.Not(a) for a in after]))
        answer = solver.check()
        if answer == z3.unsat:
            return alive, rounds, (cur, g, st, outputs)
        if answer != z3.sat:
            return None, rounds, "a Houdini step query: " + solver.reason_unknown()
        model = solver.model()
        keep = [c for c, a in zip(alive, after) if z3.is_true(model.eval(a, model_completion=True))]
        if len(keep) == len(alive):
            return None, rounds, "Houdini made no progress"
        alive = keep


def prove_property(unit: SeqUnit, invariants, limit: int, context, timeout_ms: int):
    cur, g, st, outputs = context
    result = outputs[unit.names["result"]]
    done = outputs[unit.names["done"]] == 1
    bad = violation(cur.ops, g, cur.inp, result, done, limit, unit.full)
    assumptions = [cur.env(g)] + [_as_bool(c.holds(st, g), unit.sew) for c in invariants]
    return prove(assumptions, z3.Not(z3.Or(*bad.values())), timeout_ms)


# Bounded check from reset ----------------------------------------------------------------------------

def bmc(unit: SeqUnit, depth: int, limit: int, timeout_ms: int, data_depth: int | None = None):
    """Cycles 1..depth after a reset in cycle 0 (from any state): the property holds; the
    result is compared only up to cycle `data_depth` (default: all). Comparing results is a
    monolithic miter over every element fed, which grows fast with the cycles (measured at
    SEW=64, 4 lanes: 2 s for 3 cycles, over 30 s for 6), so the deep check is of the control
    (done, latency); the induction covers the results in every cycle."""
    data_depth = depth if data_depth is None else data_depth
    d, sew = unit.design, unit.sew
    state = {n: z3.BitVec(f"{v.decl().name()}@0", v.size()) for n, v in d.state.items()}
    ghost = fresh_ghost(sew, unit.lanes, "0")
    steps, constraints, bad = [], [], []
    for t in range(depth + 1):
        sym = Symbolic(unit, limit, str(t))
        sub = [(d.state[n], state[n]) for n in d.state] + \
              [(d.inputs[n], sym.inputs[d.inputs[n].decl().name()]) for n in d.inputs]
        outputs = {n: z3.substitute(term, *sub) for n, term in d.outputs.items()}
        result, done = outputs[unit.names["result"]], outputs[unit.names["done"]] == 1
        inp = sym.inp
        if t == 0:
            constraints.append(inp["rst"])
        else:
            constraints.append(sym.env(ghost))
            bad += [cond for name, cond in violation(sym.ops, ghost, inp, result, done, limit, unit.full).items()
                    if t <= data_depth or not name.startswith("result")]
        steps.append(sym)
        ghost = ghost_step(sym.ops, ghost, inp, done, limit)
        state = {n: z3.substitute(term, *sub) for n, term in d.next_state.items()}
    answer = prove(constraints, z3.Not(z3.Or(*bad)) if bad else z3.BoolVal(True), timeout_ms, BMC_SOLVER)
    return answer, steps, constraints


def bmc_trace(unit: SeqUnit, steps, model) -> list[dict]:
    """The inputs of a BMC model, cycle by cycle, in the simulator's form."""
    trace = []
    for sym in steps:
        def value(term):
            v = model.eval(term, model_completion=True)
            return z3.is_true(v) if z3.is_bool(v) else v.as_long()
        inp = {role: value(sym.inp[role]) for role in ("rst", "start", "in_valid", "last", "seed")}
        inp["elements"] = [value(e) for e in sym.inp["elements"]]
        inp["active"] = [value(a) for a in sym.inp["active"]]
        inp["extra"] = {name: value(sym.inputs[var.decl().name()]) for name, var in unit.extra.items()}
        trace.append(inp)
    return trace


def env_ok(g: Ghost, inp: dict) -> bool:
    """Do these inputs keep to the protocol (the environment the proof assumes)?"""
    if inp["rst"]:
        return True
    idle = not g.busy and not g.waiting
    return not ((inp["start"] and (not idle or inp["in_valid"])) or (inp["in_valid"] and not g.busy)
                or (inp["last"] and not inp["in_valid"]))


def replay(unit: SeqUnit, inputs: list[dict], limit: int, state=None):
    """Run the inputs from a state (default zeros); (cycles, failing index, problem), or None
    when nothing fails or the inputs leave the protocol (cycle 0 must reset)."""
    ops = ConcreteElements(unit.sew)
    g = idle_ghost(ops, unit.lanes)
    state = dict(state or {name: 0 for name in unit.registers})
    cycles = []
    if not inputs or not inputs[0]["rst"]:
        return None
    for t, inp in enumerate(inputs):
        if t > 0 and not env_ok(g, inp):
            return None
        result, done, nxt = unit.step(state, inp)
        cycles.append(cycle_record(unit, state, inp, result, done, g))
        if t > 0:
            for problem, bad in violation(ops, g, inp, result, done, limit, unit.full).items():
                if bad:
                    return cycles, t, problem
        g = ghost_step(ops, g, inp, done, limit)
        state = nxt
    return None


def long_reduction(unit: SeqUnit, chunks: int, limit: int, rng: random.Random) -> list[dict]:
    """Inputs for one reduction of `chunks` chunks whose first chunk holds the maximum (every
    lane the signed maximum, the others below it): a counter that wraps, or a chunk that is
    lost, after that many chunks changes the result."""
    sew, lanes = unit.sew, unit.lanes
    top, smin = (1 << (sew - 1)) - 1, 1 << (sew - 1)
    idle = {"rst": False, "start": False, "in_valid": False, "last": False, "seed": 0,
            "elements": [0] * lanes, "active": [False] * lanes, "extra": {name: 0 for name in unit.extra}}
    inputs = [dict(idle, rst=True), dict(idle, start=True, seed=smin)]
    for k in range(chunks):
        values = [top] * lanes if k == 0 else [rng.randrange(smin, smin + (1 << sew) - 1) & ((1 << sew) - 1)
                                               for _ in range(lanes)]
        inputs.append(dict(idle, in_valid=True, last=(k == chunks - 1), elements=values, active=[True] * lanes))
    return inputs + [dict(idle) for _ in range(limit + 1)]


LONG_REDUCTIONS = tuple(2 ** k + 1 for k in range(8, 13))   # counters of 8 to 12 bits wrapping


def shrink(unit: SeqUnit, cycles: list, at: int, problem: str, limit: int):
    """A shorter, simpler trace with the same problem: cycles deleted while it still fails
    (and keeps to the protocol), then unused data zeroed and active lanes switched off."""
    state0 = cycles[0]["_state"]
    inputs = [dict(c["_inputs"]) for c in cycles[:at + 1]]
    best = (cycles, at, problem)

    def attempt(trial):
        nonlocal inputs, best
        found = replay(unit, trial, limit, state0)
        if found is not None and found[2] == problem:
            inputs, best = trial[:found[1] + 1], found
            return True
        return False

    deadline = time.perf_counter() + SHRINK_BUDGET_S
    for size in (64, 32, 16, 8, 4, 2, 1):
        i = 1
        while i < len(inputs) and time.perf_counter() < deadline:
            if not attempt(inputs[:i] + inputs[i + size:]):
                i += size
    for t in range(len(inputs)):
        if time.perf_counter() > deadline or t >= len(inputs):
            break
        inp = inputs[t]
        plain = dict(inp, extra={name: 0 for name in inp.get("extra", {})})
        if not inp["start"]:
            plain["seed"] = 0
        if not inp["in_valid"]:
            plain["elements"], plain["active"] = [0] * unit.lanes, [False] * unit.lanes
        attempt(inputs[:t] + [plain] + inputs[t + 1:])
        for lane in range(unit.lanes):
            if t >= len(inputs):     # an attempt may have ended the trace earlier
                break
            inp = inputs[t]
            if inp["in_valid"] and inp["active"][lane]:
                flags = list(inp["active"])
                flags[lane] = False
                attempt(inputs[:t] + [dict(inp, active=flags)] + inputs[t + 1:])
            inp = inputs[t]
            if not inp["active"][lane] and inp["elements"][lane]:
                values = list(inp["elements"])
                values[lane] = 0
                attempt(inputs[:t] + [dict(inp, elements=values)] + inputs[t + 1:])
    return best


# The driver ----------------------------------------------------------------------------------------------

@dataclass
class SeqOutcome:
    verdict: Verdict
    methods: list[MethodResult] = field(default_factory=list)
    counterexample: RtlCounterexample | None = None
    detail: str = ""
    latency: int | None = None
    invariants: list[str] = field(default_factory=list)
    assumptions: list[str] = field(default_factory=list)
    depth: int = 0


ENVIRONMENT = [
    "cycle 0 has rst high (the state before it is arbitrary); rst may rise in any later cycle",
    "start only when no reduction is running (after reset or after done), never with in_valid",
    "in_valid only between start and the chunk with last; last only with in_valid",
    "after the last chunk nothing is offered until done; data inputs are free when not valid",
]


def check_sequential(design: Design, iface: Interface, timeout_ms: int, latency: int | None = None,
                     accumulator: str | None = None, depth: int | None = None) -> SeqOutcome:
    unit = SeqUnit(design, iface)
    out = SeqOutcome(Verdict.UNKNOWN, assumptions=list(ENVIRONMENT) + [
        f"{role} is active low: high in these lines means port {iface.names[role]} = 0"
        for role in sorted(iface.inverted)])
    if accumulator is not None and accumulator not in {_reg(r) for r in unit.registers}:
        from vredmax.proofs.rtl.yosys import RtlInputError
        raise RtlInputError("accumulator", f"no register {accumulator!r} (registers: "
                                           f"{', '.join(sorted(_reg(r) for r in unit.registers))})")
    start = time.perf_counter()
    sim = simulate(unit, latency)
    out.methods.append(MethodResult("simulation", Verdict.COUNTEREXAMPLE if sim.failure else Verdict.PROVED,
                                    time.perf_counter() - start,
                                    f"{SIM_TRACES} traces of {SIM_CYCLES} cycles and {LONG_TRACES} of {LONG_CYCLES}, "
                                    f"{sim.reductions} reductions"))
    if sim.failure:
        cycles, at, problem = sim.failure
        return _refuted(out, unit, cycles, at, problem, "found by simulation", latency if latency is not None else HORIZON)
    if latency is None:
        if not sim.latencies:
            out.verdict, out.detail = Verdict.ERROR, "no reduction finished in simulation: does done ever rise?"
            return out
        latency = max(sim.latencies)
    out.latency = latency
    lemma = lemma_check(unit.sew, timeout_ms)
    out.methods.append(lemma)
    if lemma.verdict != Verdict.PROVED:
        out.verdict, out.detail = lemma.verdict, lemma.detail
        return out
    # Bounded check of the first cycles (covers the latency after a first reduction).
    bound = depth if depth is not None else max(8, latency + 5)
    data_bound = min(bound, latency + 2)    # reset, start, a last chunk, done
    out.depth = bound
    t0 = time.perf_counter()
    answer, steps, _ = bmc(unit, bound, latency, timeout_ms, data_bound)
    out.methods.append(MethodResult("bounded", answer.verdict, time.perf_counter() - t0,
                                    f"cycles 1..{bound} after reset, every input the protocol allows: done "
                                    f"and its latency in each, the result up to cycle {data_bound}"))
    if answer.verdict == Verdict.COUNTEREXAMPLE:
        return _from_bmc(out, unit, steps, answer.model, latency)
    if answer.verdict != Verdict.PROVED:
        out.verdict, out.detail = answer.verdict, f"bounded check: {answer.detail}"
        return out
    # Induction.
    t0 = time.perf_counter()
    candidates = mine(unit, sim.samples, latency, accumulator)
    # First with a ghost of its own for the whole reduction (cheap when a register holds it);
    # then with the whole reduction as the smax of the seed and the lanes' running maxima
    # (what units with an accumulator per lane need).
    for whole in (True, False):
        invariants, rounds, context = houdini(unit, candidates, latency, timeout_ms, whole)
        if invariants is None:
            final = None
            continue
        final = prove_property(unit, invariants, latency, context, timeout_ms)
        if final.verdict == Verdict.PROVED:
            break
    attempt = candidates
    if final is None:
        out.methods.append(MethodResult("induction", Verdict.UNKNOWN, time.perf_counter() - t0, context))
        out.verdict, out.detail = Verdict.UNKNOWN, context
        return out
    out.methods.append(MethodResult("induction", final.verdict, time.perf_counter() - t0,
                                    f"{len(attempt)} candidates mined, {len(invariants)} inductive "
                                    f"after {rounds} Houdini rounds"))
    out.invariants = [c.text for c in invariants]
    if final.verdict == Verdict.PROVED:
        out.verdict = Verdict.PROVED
        return out
    # Not inductive: look for a real counterexample before saying UNKNOWN: long reductions
    # (beyond the bounded check's reach), then a deeper bounded check.
    t0 = time.perf_counter()
    rng = random.Random(5)
    for chunks in LONG_REDUCTIONS:
        found = replay(unit, long_reduction(unit, chunks, latency, rng), latency)
        if found is not None:
            out.methods.append(MethodResult("simulation", Verdict.COUNTEREXAMPLE, time.perf_counter() - t0,
                                            f"a reduction of {chunks} chunks"))
            return _refuted(out, unit, *found, "found by simulating a long reduction", latency)
    out.methods.append(MethodResult("simulation", Verdict.PROVED, time.perf_counter() - t0,
                                    f"reductions of {', '.join(map(str, LONG_REDUCTIONS))} chunks"))
    deeper = min(MAX_BMC_DEPTH, max(bound * 2, 2 ** 4 + 4))
    if deeper > bound:
        t0 = time.perf_counter()
        answer, steps, _ = bmc(unit, deeper, latency, min(timeout_ms, DEEP_BMC_TIMEOUT_MS))
        out.methods.append(MethodResult("bounded", answer.verdict, time.perf_counter() - t0,
                                        f"looking for a counterexample: cycles 1..{deeper} after reset"))
        if answer.verdict == Verdict.COUNTEREXAMPLE:
            return _from_bmc(out, unit, steps, answer.model, latency)
    out.verdict = Verdict.UNKNOWN
    out.detail = ("the invariants found do not imply the property in every state "
                  f"({final.verdict.value}); no counterexample within {max(deeper, bound)} cycles "
                  "(try --accumulator NAME)")
    return out


def _from_bmc(out, unit, steps, model, latency):
    if model is None:
        out.verdict, out.detail = Verdict.UNKNOWN, "the bounded check failed but gave no model"
        return out
    inputs = bmc_trace(unit, steps, model)
    state0 = {n: model.eval(v_at0, model_completion=True).as_long()
              for n, v_at0 in ((n, z3.BitVec(f"{v.decl().name()}@0", v.size())) for n, v in unit.design.state.items())}
    replayed = replay(unit, inputs, latency, state0)
    if replayed is None:
        out.verdict = Verdict.ERROR
        out.detail = "the bounded check's counterexample does not replay on the compiled design"
        return out
    cycles, at, problem = replayed
    return _refuted(out, unit, cycles, at, problem, "found by the bounded check", latency)


def _refuted(out, unit, cycles, at, problem, how, limit):
    cycles, at, problem = shrink(unit, cycles, at, problem, limit)
    cx = counterexample(unit, cycles, at, problem)
    if cx.reduction is not None and cx.unit_result is not None and cx.reduction.allows(cx.unit_result):
        out.verdict, out.detail = Verdict.ERROR, "the counterexample's result is one the spec allows"
        return out
    cx.notes.append(how + "; replayed cycle by cycle on the compiled design")
    cx.widths = signal_widths(unit)
    out.verdict, out.counterexample, out.detail = Verdict.COUNTEREXAMPLE, cx, problem
    return out
