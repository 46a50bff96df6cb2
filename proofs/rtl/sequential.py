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

import dataclasses
import itertools
import random
import time
from dataclasses import dataclass, field

import z3

from vredmax.proofs.rtl.combinational import MethodResult, biased_value, lemma_check
from vredmax.proofs.rtl import pdr
from vredmax.proofs.rtl.abstraction import abstract_chunk_trees
from vredmax.proofs.rtl.evaluate import Program
from vredmax.proofs.rtl.ports import Interface
from vredmax.proofs.rtl.protocol import (SEED, Ghost, Protocol, environment, fresh_ghost, ghost_step, ghost_values,
                                         ghost_variables, group_name, group_value, idle_ghost, lane_groups, violation)
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
RESULT_OK_CHECKS = 24     # simulated results also checked with spec.relation.result_ok
HORIZON = 64                  # cycles to wait for `done` in simulation
MAX_BMC_DEPTH = 24
# bitwuzla: 2-4x faster than Z3 on these unrolled queries (measured at SEW=8, 4 lanes)
BMC_SOLVER = "bitwuzla"
DEEP_BMC_TIMEOUT_MS = 20_000
BMC_TIMEOUT_MS = 20_000
INPUT_ROLES = ("rst", "start", "seed", "in_valid", "elements", "active", "last")


# The unit, concretely ----------------------------------------------------------------------------------

class SeqUnit:
    def __init__(self, design: Design, iface: Interface, protocol: Protocol = Protocol()):
        self.design, self.iface, self.protocol = design, iface, protocol
        self.sew, self.lanes = iface.sew, iface.lanes
        self.names = iface.names
        self.input_roles = INPUT_ROLES + (("out_ready",) if protocol.out_ready else ())
        role_ports = {iface.names[r] for r in self.input_roles}
        self.extra = {name: var for name, var in design.inputs.items() if name not in role_ports}
        self.registers = {name: var.size() for name, var in design.state.items()}
        terms = {f"out:{iface.names['result']}": design.outputs[iface.names["result"]],
                 f"out:{iface.names['done']}": design.outputs[iface.names["done"]]}
        if protocol.in_ready:
            terms["out:in_ready"] = design.outputs[iface.names["in_ready"]]
        terms.update({f"next:{name}": t for name, t in design.next_state.items()})
        self.program = Program(terms)
        self.full = (frozenset(range(self.lanes)), True)

    def var_values(self, state: dict, inp: dict) -> dict:
        names = self._variable_names()
        values = {names[name]: value for name, value in state.items()}
        for role in self.input_roles:
            value = inp[role]
            if role == "elements":
                value = sum(v << (i * self.sew) for i, v in enumerate(value))
            elif role == "active":
                value = sum(1 << i for i, a in enumerate(value) if a)
            elif role in self.iface.inverted:
                value = self.iface.level(role, value)
            values[names[("role", role)]] = int(value)
        extra = inp.get("extra", {})
        for name in self.extra:
            values[names[("extra", name)]] = extra.get(name, 0)
        return values

    def _variable_names(self) -> dict:
        """The Z3 names of the registers, roles and other inputs (asked of Z3 once)."""
        if not hasattr(self, "_names"):
            d = self.design
            self._names = {name: var.decl().name() for name, var in d.state.items()}
            self._names.update({("role", role): d.inputs[self.names[role]].decl().name()
                                for role in self.input_roles})
            self._names.update({("extra", name): var.decl().name() for name, var in self.extra.items()})
        return self._names

    def step(self, state: dict, inp: dict):
        """(result, done, next state) for a cycle; with an in_ready output, its value is stored
        in `inp` (the environment and the ghost read it)."""
        got = self.program.run(self.var_values(state, inp))
        result, done = got[f"out:{self.names['result']}"], got[f"out:{self.names['done']}"]
        if self.protocol.in_ready:
            inp["in_ready"] = bool(got["out:in_ready"])
        return result, bool(done), {name: got[f"next:{name}"] for name in state}

    def fed(self, inp: dict) -> bool:
        return bool(inp["in_valid"]) and (not self.protocol.in_ready or bool(inp.get("in_ready")))

    def symbolic_outputs(self, inp: dict, outputs: dict) -> None:
        """Give the symbolic inputs of a cycle the unit's in_ready (a term of that cycle)."""
        if self.protocol.in_ready:
            inp["in_ready"] = outputs[self.names["in_ready"]] == 1


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
            if t > 0 and not environment(ops, g, inp, unit.protocol):      # in_ready said no to start
                inp.update(start=False, in_valid=False, last=False)
                result, done, nxt = unit.step(state, inp)
            cycles.append(cycle_record(unit, state, inp, result, done, g))
            if t > 0:
                for problem, bad in violation(ops, g, inp, result, done, check_limit, unit.full, unit.protocol).items():
                    if bad:
                        sim.failure = (cycles, t, problem)
                        return sim
                sim.samples.append(Sample(dict(state), g))
                if (g.busy or inp["start"]) and unit.fed(inp) and inp["last"] and not inp["rst"]:
                    last_at = t
                if done and not inp["rst"] and last_at is not None:
                    # spec.relation.result_ok itself, on the first reductions (a Z3 term each)
                    if sim.reductions < RESULT_OK_CHECKS and not reduction_of(cycles, t, unit).allows(result):
                        sim.failure = (cycles, t, "result differs from the spec's reduction")
                        return sim
                    sim.latencies.append(t - last_at)
                    sim.reductions += 1
                    last_at = None
                if inp["rst"]:
                    last_at = None
            g = ghost_step(ops, g, inp, done, check_limit, unit.protocol)
            state = nxt
    return sim


def random_inputs(rng: random.Random, unit: SeqUnit, g: Ghost, p_last: float, first: bool) -> dict:
    sew, lanes = unit.sew, unit.lanes
    inp = {"rst": first or rng.random() < 0.01, "start": False, "in_valid": False, "last": False,
           "seed": biased_value(rng, sew), "elements": [biased_value(rng, sew) for _ in range(lanes)],
           "active": [rng.random() < rng.choice([0.0, 0.5, 0.9, 1.0]) for _ in range(lanes)],
           "extra": {name: rng.getrandbits(var.size()) for name, var in unit.extra.items()}}
    protocol = unit.protocol
    if protocol.out_ready:
        inp["out_ready"] = rng.random() < 0.6
    if inp["rst"]:
        inp["start"], inp["in_valid"], inp["last"] = rng.random() < 0.3, rng.random() < 0.3, rng.random() < 0.3
    elif not g.busy and not g.waiting:
        inp["start"] = rng.random() < 0.5
        if inp["start"] and protocol.start_with_chunk:
            inp["in_valid"] = True
            inp["last"] = rng.random() < p_last
    elif g.busy:
        inp["in_valid"] = rng.random() < 0.75
        inp["last"] = inp["in_valid"] and rng.random() < p_last
    if protocol.active == "all":
        inp["active"] = [True] * lanes
    elif protocol.active == "below-vl":
        ended = g.ended and not inp["start"]
        below = 0 if ended else (lanes if rng.random() < 0.6 else rng.randrange(lanes + 1))
        inp["active"] = [i < below for i in range(lanes)]
    return inp


def cycle_record(unit: SeqUnit, state, inp, result, done, g) -> dict:
    names = unit.names
    record = {names[r]: unit.iface.level(r, inp[r]) for r in ("rst", "start", "in_valid", "last")}   # port levels
    if unit.protocol.out_ready:
        record[names["out_ready"]] = int(inp["out_ready"])
    if unit.protocol.in_ready:
        record[names["in_ready"]] = int(inp.get("in_ready", 0))
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
    widths.update({names[r]: 1 for r in ("in_ready", "out_ready") if getattr(unit.protocol, r)})
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
            if inp["in_valid"] and inp.get("in_ready", True):     # start_with_chunk: the first chunk with start
                chunks.append((list(inp["elements"]), list(inp["active"]), bool(inp["last"])))
        elif inp["in_valid"] and inp.get("in_ready", True) and seed is not None:
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
        found = {"rst": on("rst"), "start": on("start"), "in_valid": on("in_valid"),
                 "last": on("last"), "seed": port("seed"),
                 "elements": [z3.Extract(i * sew + sew - 1, i * sew, elements) for i in range(unit.lanes)],
                 "active": [z3.Extract(i, i, active) == 1 for i in range(unit.lanes)]}
        if unit.protocol.out_ready:
            found["out_ready"] = port("out_ready") == 1
        return found

    def env(self, g: Ghost):
        return environment(self.ops, g, self.inp, self.unit.protocol)


@dataclass
class Candidate:
    text: str
    holds: object        # (state dict, ghost) -> bool / Z3 Bool; the state maps register -> value


def _guards(limit: int, flags=()):
    """(text, guard(state, ghost), more general guards), most general first: the phases, the
    first cycles of waiting, and the phases busy/waiting with a flag's value (a 1-bit register
    or one bit of a small one: a pipeline's valid bit, say). A fact mined under a guard is not
    mined again under a more specific one (it would follow)."""
    phase = {"idle": lambda g: _and(_not(g.busy), _not(g.waiting)), "busy": lambda g: g.busy,
             "waiting": lambda g: g.waiting, "busy or waiting": lambda g: _or(g.busy, g.waiting),
             "finished": lambda g: g.finished}
    guards = [("always", lambda st, g: True, ()),
              ("busy or waiting", lambda st, g: phase["busy or waiting"](g), ("always",))]
    for name in ("busy", "waiting", "idle", "finished"):
        parents = ("always",) if name in ("idle", "finished") else ("always", "busy or waiting")
        guards.append((name, lambda st, g, p=phase[name]: p(g), parents))
    for k in range(min(limit, 8)):
        guards.append((f"waiting with {k} cycles waited", lambda st, g, k=k: _and(g.waiting, _eq(g.wait, k)),
                       ("always", "busy or waiting", "waiting")))
    for name in ("busy or waiting", "busy", "waiting"):
        for label, get in flags:
            for value in (1, 0):
                parents = ("always", "busy or waiting", name) + (
                    (f"busy or waiting and {label} = {value}",) if name != "busy or waiting" else ())
                guards.append((f"{name} and {label} = {value}",
                               lambda st, g, p=phase[name], get=get, value=value: _and(p(g), _eq(get(st), value)),
                               parents))
    # a cycle of waiting with a flag's value: which of several done paths is running, when
    # the latency depends on the data
    for k in range(min(limit, 8)):
        for label, get in flags:
            for value in (1, 0):
                parents = ("always", "busy or waiting", "waiting", f"waiting with {k} cycles waited",
                           f"busy or waiting and {label} = {value}", f"waiting and {label} = {value}")
                guards.append((f"waiting with {k} cycles waited and {label} = {value}",
                               lambda st, g, k=k, get=get, value=value:
                                   _and(_and(g.waiting, _eq(g.wait, k)), _eq(get(st), value)), parents))
    return guards


SMALL_REGISTER = 4      # the bits of registers this narrow are flags too (a shift register of valid bits)


def flags_of(registers: dict) -> list:
    """(label, value(state)) for the 1-bit registers and each bit of the small ones."""
    found = []
    for reg, width in sorted(registers.items()):
        if width == 1:
            found.append((_reg(reg), lambda st, reg=reg: st[reg]))
        elif width <= SMALL_REGISTER:
            found += [(f"{_reg(reg)}[{i}]", lambda st, reg=reg, i=i, w=width: _slice(st[reg], i, i, w))
                      for i in range(width)]
    return found


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
    flags = flags_of(regs)
    guards = _guards(limit, flags)
    singles = data_terms(unit, accumulator)
    groups = lane_groups(unit.lanes)
    if accumulator is not None and regs[_state_name(unit, accumulator)] == unit.sew:
        groups = [unit.full]
    ops = ConcreteElements(unit.sew)
    values = [{group: group_value(ops, s.ghost, group) for group in groups} for s in samples]
    mined: dict = {}     # guard -> the facts mined under it
    settled: set = set()     # data terms that always hold a running maximum (not pipeline stages)

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
            if gname.endswith((f" and {_reg(reg)} = 0", f" and {_reg(reg)} = 1")):
                continue     # the guard says it already
            if len(seen) == 1 and new((reg, min(seen)), gname, parents):
                c = seen.pop()
                found.append(Candidate(f"{gname}: {_reg(reg)} = {c:#x}",
                                       lambda st, g, guard=guard, reg=reg, c=c: _implies(guard(st, g), _eq(st[reg], c))))
        for label, get in flags:
            if "[" not in label or gname.endswith((f" and {label} = 0", f" and {label} = 1")):
                continue
            seen = {get(samples[k].state) for k in chosen}
            if len(seen) == 1 and new((label, min(seen)), gname, parents):
                c = seen.pop()
                found.append(Candidate(f"{gname}: {label} = {c}",
                                       lambda st, g, guard=guard, get=get, c=c: _implies(guard(st, g), _eq(get(st), c))))
        # a register, or the smax of two (a value and the one still in a pipeline stage),
        # holds the running max of a group of lanes
        low = [t for t in singles if t[2]][:MAX_PAIRED]
        terms = [((name,), term) for name, term, _ in singles]
        terms += [((a, b), lambda st, f=f, h=h: _smax(unit.sew, f(st), h(st)))
                  for i, (a, f, _) in enumerate(low) for b, h, _ in low[i + 1:]]
        for names, term in terms:
            for group in groups:
                if all(term(samples[k].state) == values[k][group] for k in chosen) and new((names, group), gname, parents):
                    if len(names) == 1 and gname in ("always", "busy or waiting"):
                        settled.add(names[0])
                    shown = names[0] if len(names) == 1 else f"smax({names[0]}, {names[1]})"
                    found.append(Candidate(
                        f"{gname}: {shown} = running max of {group_name(group)} fed since start",
                        lambda st, g, guard=guard, term=term, group=group:
                            _implies(guard(st, g), _eq(term(st), _group(g, group)))))
        if gname in ("always", "busy or waiting"):
            for reg, width in regs.items():
                if width <= unit.sew:
                    continue
                for kind in ("sign", "zero"):
                    fact = _extension(unit.sew, width, kind)
                    if all(fact(samples[k].state[reg]) for k in chosen) and new((reg, kind), gname, parents):
                        found.append(Candidate(f"{gname}: {_reg(reg)} is the {kind} extension of its low "
                                               f"{unit.sew} bits", lambda st, g, guard=guard, reg=reg, fact=fact:
                                                   _implies(guard(st, g), fact(st[reg]))))
        if gname != "always" and " = " not in gname:
            for label, get in flags:
                if all((get(s.state) == 1) == bool(guard(s.state, s.ghost)) for s in samples):
                    found.append(Candidate(f"{label} = 1 exactly when {gname}",
                                           lambda st, g, guard=guard, get=get: _eq(_bit(get(st)), guard(st, g))))
    found += in_flight(unit, samples, flags, [t for t in singles if t[0] not in settled])
    found.append(Candidate("not waiting: cycles waited = 0", lambda st, g: _implies(_not(g.waiting), _eq(g.wait, 0))))
    found.append(Candidate(f"waiting: cycles waited < {limit}",
                           lambda st, g: _implies(g.waiting, _ult(g.wait, limit))))
    found.append(Candidate("never busy and waiting at once", lambda st, g: _not(_and(g.busy, g.waiting))))
    return found


MAX_FLAGS_IN_KEY = 8     # pipelines: the valid bits that together say which stages hold data
MAX_SUBSET = 5           # and at most this many registers holding parts of the running maximum


def in_flight(unit: SeqUnit, samples: list, flags: list, singles: list) -> list:
    """Pipelines with valid bits: under each combination of the flags seen while a reduction
    runs, the smallest set of data registers whose smax is the running maximum of everything
    fed (the accumulator and the stages holding valid data). A 3-stage pipeline needs four.
    Registers that always hold a running maximum (per-lane accumulators) are left out: their
    own invariants say it, and a wide smax of them is an expensive query for nothing."""
    flags = flags[:MAX_FLAGS_IN_KEY]
    terms = [(name, term) for name, term, _ in singles][:12]
    if not flags or len(terms) < 2:
        return []
    ops = ConcreteElements(unit.sew)
    by_key: dict = {}
    for s in samples:
        if s.ghost.busy or s.ghost.waiting:
            key = tuple(get(s.state) for _, get in flags)
            by_key.setdefault(key, []).append((s, group_value(ops, s.ghost, unit.full)))
    found = []
    for key, cases in sorted(by_key.items()):
        values = [[term(s.state) for _, term in terms] for s, _ in cases]
        chosen = None
        for size in range(1, MAX_SUBSET + 1):
            for subset in itertools.combinations(range(len(terms)), size):
                if all(_smax_all(unit.sew, [v[i] for i in subset]) == want for v, (_, want) in zip(values, cases)):
                    chosen = subset
                    break
            if chosen:
                break
        if not chosen:
            continue
        label = ", ".join(f"{name} = {value}" for (name, _), value in zip(flags, key))
        shown = ", ".join(terms[i][0] for i in chosen)

        def holds(st, g, key=key, chosen=chosen):
            match = _and_all([_eq(get(st), value) for (_, get), value in zip(flags, key)])
            value = _smax_all(unit.sew, [terms[i][1](st) for i in chosen])
            return _implies(_and(_or(g.busy, g.waiting), match), _eq(value, _group(g, unit.full)))
        found.append(Candidate(f"busy or waiting and {label}: smax({shown}) = running max of "
                               f"{group_name(unit.full)} fed since start", holds))
    return found


def _smax_all(sew: int, values: list):
    value = values[0]
    for other in values[1:]:
        value = _smax(sew, value, other)
    return value


def _and_all(conditions: list):
    value = True
    for c in conditions:
        value = _and(value, c)
    return value


MAX_DATA_TERMS = 64      # SEW-bit slices of registers the miner relates to running maxima
MAX_PAIRED = 12          # of which the low slices taken two at a time (smax of a pipeline stage and an accumulator)


def data_terms(unit: SeqUnit, accumulator: str | None) -> list:
    """(name, value(state), low) for every SEW-bit slice of the registers at least SEW bits wide
    (an accumulator wider than SEW holds the running maximum in its low bits; per-lane
    accumulators packed into one register, one in each slice), or of the named accumulator."""
    sew, found = unit.sew, []
    for reg, width in sorted(unit.registers.items(), key=lambda item: (item[1] != sew, item[0])):
        if width < sew or (accumulator is not None and _reg(reg) != accumulator):
            continue
        for k in range(width // sew):
            lo, hi = k * sew, k * sew + sew - 1
            name = _reg(reg) if width == sew else f"{_reg(reg)}[{hi}:{lo}]"
            found.append((name, lambda st, reg=reg, hi=hi, lo=lo, width=width: _slice(st[reg], hi, lo, width), k == 0))
    return found[:MAX_DATA_TERMS]


def _slice(value, hi: int, lo: int, width: int):
    if isinstance(value, z3.ExprRef):
        return value if (hi, lo) == (width - 1, 0) else z3.Extract(hi, lo, value)
    return value >> lo & ((1 << (hi - lo + 1)) - 1)


def _extension(sew: int, width: int, kind: str):
    """value -> is it the sign (zero) extension of its low SEW bits?"""
    def holds(value):
        low = _slice(value, sew - 1, 0, width)
        if isinstance(value, z3.ExprRef):
            return value == (z3.SignExt if kind == "sign" else z3.ZeroExt)(width - sew, low)
        top = low >> (sew - 1) if kind == "sign" else 0
        return value >> sew == (((1 << (width - sew)) - 1) if top else 0)
    return holds


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
    """A register as the user named it (Yosys adds $ff, and $driver$ for a flip-flop driving a port)."""
    return name.removesuffix("$ff").removeprefix("$driver$")


def _as_bool(value, sew):
    return value if isinstance(value, z3.ExprRef) else z3.BoolVal(bool(value))


def houdini(unit: SeqUnit, candidates: list[Candidate], limit: int, timeout_ms: int, whole: bool = True):
    """The candidates that hold after reset and are preserved by every allowed step."""
    d, sew = unit.design, unit.sew
    cur = Symbolic(unit, limit, "t")
    g = fresh_ghost(sew, unit.lanes, "t", whole, unit.protocol)
    st = dict(d.state)
    sub_inputs = [(d.inputs[n], cur.inputs[d.inputs[n].decl().name()]) for n in d.inputs]
    outputs = {n: z3.substitute(t, *sub_inputs) for n, t in d.outputs.items()}
    nxt = {n: z3.substitute(t, *sub_inputs) for n, t in d.next_state.items()}
    done_now = outputs[unit.names["done"]] == 1
    unit.symbolic_outputs(cur.inp, outputs)
    g_next = ghost_step(cur.ops, g, cur.inp, done_now, limit, unit.protocol)
    # Base: right after the reset cycle, from any state.
    reset_ghost = Ghost(z3.BoolVal(False), z3.BoolVal(False), z3.BitVecVal(0, sew), g_next.atoms, g_next.acc,
                        z3.BoolVal(False), g_next.ended, z3.BoolVal(False))
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
    bad = violation(cur.ops, g, cur.inp, result, done, limit, unit.full, unit.protocol)
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
    ghost = fresh_ghost(sew, unit.lanes, "0", True, unit.protocol)
    steps, constraints, bad = [], [], []
    for t in range(depth + 1):
        sym = Symbolic(unit, limit, str(t))
        sub = [(d.state[n], state[n]) for n in d.state] + \
              [(d.inputs[n], sym.inputs[d.inputs[n].decl().name()]) for n in d.inputs]
        outputs = {n: z3.substitute(term, *sub) for n, term in d.outputs.items()}
        result, done = outputs[unit.names["result"]], outputs[unit.names["done"]] == 1
        inp = sym.inp
        unit.symbolic_outputs(inp, outputs)
        if t == 0:
            constraints.append(inp["rst"])
        else:
            constraints.append(sym.env(ghost))
            bad += [cond for name, cond in violation(sym.ops, ghost, inp, result, done, limit, unit.full, unit.protocol).items()
                    if t <= data_depth or not name.startswith("result")]
        steps.append(sym)
        ghost = ghost_step(sym.ops, ghost, inp, done, limit, unit.protocol)
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
        inp = {role: value(sym.inp[role]) for role in ("rst", "start", "in_valid", "last", "seed")
               + (("out_ready",) if unit.protocol.out_ready else ())}
        inp["elements"] = [value(e) for e in sym.inp["elements"]]
        inp["active"] = [value(a) for a in sym.inp["active"]]
        inp["extra"] = {name: value(sym.inputs[var.decl().name()]) for name, var in unit.extra.items()}
        trace.append(inp)
    return trace


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
        inp = dict(inp)
        result, done, nxt = unit.step(state, inp)       # first: the environment may read in_ready
        if t > 0 and not environment(ops, g, inp, unit.protocol):
            return None
        cycles.append(cycle_record(unit, state, inp, result, done, g))
        if t > 0:
            for problem, bad in violation(ops, g, inp, result, done, limit, unit.full, unit.protocol).items():
                if bad:
                    return cycles, t, problem
        g = ghost_step(ops, g, inp, done, limit, unit.protocol)
        state = nxt
    return None


def long_reduction(unit: SeqUnit, chunks: int, limit: int, rng: random.Random, peak: str = "first") -> list[dict]:
    """Inputs for one reduction of `chunks` chunks whose first (or last) chunk holds the maximum
    (every lane the signed maximum, the others below it): a counter that wraps, or a chunk that
    is lost or taken twice, after that many chunks changes the result or the timing of done."""
    sew, lanes = unit.sew, unit.lanes
    top, smin = (1 << (sew - 1)) - 1, 1 << (sew - 1)
    idle = {"rst": False, "start": False, "in_valid": False, "last": False, "seed": 0,
            "elements": [0] * lanes, "active": [False] * lanes, "extra": {name: 0 for name in unit.extra}}
    if unit.protocol.out_ready:
        idle["out_ready"] = True
    inputs = [dict(idle, rst=True)]
    if not unit.protocol.start_with_chunk:
        inputs.append(dict(idle, start=True, seed=smin))
    at = 0 if peak == "first" else chunks - 1
    for k in range(chunks):
        values = [top] * lanes if k == at else [rng.randrange(smin, smin + (1 << sew) - 1) & ((1 << sew) - 1)
                                                for _ in range(lanes)]
        chunk = dict(idle, in_valid=True, last=(k == chunks - 1), elements=values, active=[True] * lanes)
        if k == 0 and unit.protocol.start_with_chunk:
            chunk.update(start=True, seed=smin)
        inputs.append(chunk)
    return inputs + [dict(idle) for _ in range(limit + 1)]


MIN_COUNT_BITS = 8            # up to 257 chunks even without a counter register
MAX_COUNT_BITS = 16           # 2^16 + 1 chunks: about a minute of simulation for a small unit
CHUNK_COUNT_BUDGET_S = 40.0


def chunk_counts(unit: SeqUnit) -> tuple[int, list[int]]:
    """(K, the chunk counts 2^k - 1, 2^k, 2^k + 1 for k = 1..K): K is the widest register that
    can count chunks (narrower than 32 bits), at most MAX_COUNT_BITS."""
    widths = [w for w in unit.registers.values() if 1 < w < 32]
    top = min(max(widths + [MIN_COUNT_BITS]), MAX_COUNT_BITS)
    counts = []
    for k in range(1, top + 1):
        counts += [2 ** k - 1, 2 ** k, 2 ** k + 1]
    return top, sorted(set(c for c in counts if c >= 1))


HOLD_LIMIT = 64          # cycles a chunk is held while the unit's in_ready stays low


def fails_quickly(unit: SeqUnit, inputs: list[dict], limit: int) -> tuple[bool, list[dict]]:
    """Does the unit break the property on these inputs (from the all-zero state)? Without
    recording the cycles: the long reductions are replayed in full only when they fail. With
    in_ready, a chunk the unit does not take is offered again; (failed, the inputs driven)."""
    ops = ConcreteElements(unit.sew)
    g = idle_ghost(ops, unit.lanes)
    state = {name: 0 for name in unit.registers}
    driven, pending, held = [], list(inputs), 0
    while pending:
        original = pending.pop(0)
        inp = dict(original)
        t = len(driven)
        result, done, state_next = unit.step(state, inp)
        retry = unit.protocol.in_ready and inp["in_valid"] and not inp.get("in_ready")
        if t > 0 and not environment(ops, g, inp, unit.protocol):       # the unit refused the start
            inp.update(start=False, in_valid=False, last=False)
            result, done, state_next = unit.step(state, inp)
            retry = True
        driven.append(inp)
        if t > 0 and any(violation(ops, g, inp, result, done, limit, unit.full, unit.protocol).values()):
            return True, driven
        if retry and held < HOLD_LIMIT:
            pending.insert(0, original)      # offer it again
            held += 1
        else:
            held = 0
        g = ghost_step(ops, g, inp, done, limit, unit.protocol)
        state = state_next
    return False, driven


def search_chunk_counts(unit: SeqUnit, limit: int):
    """Reductions of 2^k - 1, 2^k and 2^k + 1 chunks, the maximum first or last; (found, K
    reached, counts tried): found is (cycles, at, problem) or None."""
    rng = random.Random(5)
    top, counts = chunk_counts(unit)
    deadline = time.perf_counter() + CHUNK_COUNT_BUDGET_S
    reached, tried = 0, 0
    for chunks in counts:
        if time.perf_counter() > deadline:
            break
        for peak in ("first", "last"):
            failed, inputs = fails_quickly(unit, long_reduction(unit, chunks, limit, rng, peak), limit)
            if failed:
                found = replay(unit, inputs, limit)
                if found is not None:
                    return found, reached, tried
        tried += 1
        if chunks > 2 and (chunks - 1) & (chunks - 2) == 0:      # 2^k + 1: the trio of k is done
            reached = (chunks - 1).bit_length() - 1
    return None, reached, tried


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
    method: str = ""
    bounded: str = ""


def check_sequential(design: Design, iface: Interface, timeout_ms: int, latency: int | None = None,
                     accumulator: str | None = None, depth: int | None = None,
                     protocol: Protocol = Protocol()) -> SeqOutcome:
    protocol = dataclasses.replace(protocol, active=iface.active_mode)
    t0 = time.perf_counter()
    abstraction = abstract_chunk_trees(design, iface, timeout_ms)
    if abstraction is not None:
        design, protocol = abstraction.design, dataclasses.replace(protocol, tree=True)
    unit = SeqUnit(design, iface, protocol)
    out = SeqOutcome(Verdict.UNKNOWN, assumptions=protocol.assumptions() + [
        f"{role} is active low: high in these lines means port {iface.names[role]} = 0"
        for role in sorted(iface.inverted)])
    registers = sorted(_reg(r) for r in unit.registers)
    if accumulator is not None and accumulator not in registers:
        from vredmax.proofs.rtl.frontend import RtlInputError
        raise RtlInputError("accumulator", f"no register {accumulator!r} (registers: {', '.join(registers)})")
    if accumulator is not None and unit.registers[_state_name(unit, accumulator)] < unit.sew:
        from vredmax.proofs.rtl.frontend import RtlInputError
        raise RtlInputError("accumulator", f"{accumulator} is {unit.registers[_state_name(unit, accumulator)]} "
                                           f"bits wide, narrower than SEW={unit.sew}")
    start = time.perf_counter()
    sim = simulate(unit, latency)
    out.methods.append(MethodResult("simulation", Verdict.COUNTEREXAMPLE if sim.failure else Verdict.PROVED,
                                    time.perf_counter() - start,
                                    f"{SIM_TRACES} traces of {SIM_CYCLES} cycles and {LONG_TRACES} of {LONG_CYCLES}, "
                                    f"{sim.reductions} reductions"))
    if sim.failure:
        cycles, at, problem = sim.failure
        return _refuted(out, unit, cycles, at, problem, "found by simulation", latency if latency is not None else HORIZON)
    if abstraction is not None:
        out.methods.append(MethodResult("cut points", Verdict.PROVED, abstraction.seconds, abstraction.detail))
    if latency is None:
        if not sim.latencies:
            out.verdict = Verdict.ERROR
            out.detail = (f"no reduction finished in simulation: does {iface.names['done']} ever rise? "
                          + _protocol_hint(protocol))
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
    # The bounded check finds bugs near reset; the induction alone proves the property (its
    # base case is the state after reset), so a bounded check that gives up is not fatal.
    for data in (data_bound, 0):
        t0 = time.perf_counter()
        answer, steps, _ = bmc(unit, bound, latency, min(timeout_ms, BMC_TIMEOUT_MS), data)
        checked = f"the result up to cycle {data}" if data else "not the result (that query gave up)"
        out.methods.append(MethodResult("bounded", answer.verdict, time.perf_counter() - t0,
                                        f"cycles 1..{bound} after reset, every input the protocol allows: done "
                                        f"and its latency in each, {checked}"))
        if answer.verdict == Verdict.COUNTEREXAMPLE:
            return _from_bmc(out, unit, steps, answer.model, latency)
        if answer.verdict == Verdict.PROVED:
            out.bounded = f"a bounded check of cycles 1..{bound}" + ("" if data else " (done and its latency)")
            break
    else:
        out.depth, out.bounded = 0, "no bounded check (its queries gave up)"
    # Induction.
    t0 = time.perf_counter()
    candidates = mine(unit, sim.samples, latency, accumulator)
    # First with a ghost of its own for the whole reduction (cheap when a register holds it);
    # then with the whole reduction as the smax of the seed and the lanes' running maxima
    # (what units with an accumulator per lane need).
    final, invariants, rounds, context, kept_whole = None, [], 0, "", True
    for whole in (True, False):
        found, rounds, context = houdini(unit, candidates, latency, timeout_ms, whole)
        if found is None:
            continue
        invariants, kept_whole = found, whole
        final = prove_property(unit, invariants, latency, context, timeout_ms)
        if final.verdict == Verdict.PROVED:
            break
    if final is None:
        out.methods.append(MethodResult("induction", Verdict.UNKNOWN, time.perf_counter() - t0, context))
    else:
        out.methods.append(MethodResult("induction", final.verdict, time.perf_counter() - t0,
                                        f"{len(candidates)} candidates mined, {len(invariants)} inductive "
                                        f"after {rounds} Houdini rounds"))
        out.invariants = [c.text for c in invariants]
        if final.verdict == Verdict.PROVED:
            out.verdict, out.method = Verdict.PROVED, "k-induction with mined invariants"
            if abstraction is not None:
                out.method = "cut points in the chunk's tree, then k-induction with mined invariants"
            return out
    # Not closed by induction: look for a real counterexample (chunk counts around powers of
    # two, beyond the bounded check's reach; a deeper bounded check), then a second engine.
    t0 = time.perf_counter()
    found, reached, tried = search_chunk_counts(unit, latency)
    counts = f"reductions of 2^k - 1, 2^k and 2^k + 1 chunks for k = 1..{reached}" if reached else \
        f"{tried} long reductions"
    if found is not None:
        out.methods.append(MethodResult("chunk counts", Verdict.COUNTEREXAMPLE, time.perf_counter() - t0,
                                        f"a reduction of {len(reduction_chunks(found))} chunks"))
        return _refuted(out, unit, *found, "found by simulating a long reduction", latency)
    out.methods.append(MethodResult("chunk counts", Verdict.PROVED, time.perf_counter() - t0,
                                    f"{counts} (the maximum in the first or the last chunk): no violation"))
    t0 = time.perf_counter()
    engine = pdr.prove_safety(transition_system(unit, latency, invariants, kept_whole), timeout_ms)
    if engine.verdict == Verdict.COUNTEREXAMPLE:     # real, but its trace is beyond the bounded checks
        engine.verdict = Verdict.UNKNOWN
        engine.detail += " (its trace is longer than the bounded checks reach)"
    out.methods.append(MethodResult("PDR", engine.verdict, time.perf_counter() - t0, engine.detail))
    if engine.verdict == Verdict.PROVED:
        out.verdict, out.method = Verdict.PROVED, "PDR (IC3, Z3's Spacer) over the unit and the ghost"
        if abstraction is not None:
            out.method = "cut points in the chunk's tree, then " + out.method
        return out
    deeper = min(MAX_BMC_DEPTH, max(bound * 2, 2 ** 4 + 4))
    out.depth = max(bound, deeper)
    if deeper > bound:
        t0 = time.perf_counter()
        answer, steps, _ = bmc(unit, deeper, latency, min(timeout_ms, DEEP_BMC_TIMEOUT_MS))
        out.methods.append(MethodResult("bounded", answer.verdict, time.perf_counter() - t0,
                                        f"looking for a counterexample: cycles 1..{deeper} after reset"))
        if answer.verdict == Verdict.COUNTEREXAMPLE:
            return _from_bmc(out, unit, steps, answer.model, latency)
        if answer.verdict != Verdict.PROVED:
            out.depth = bound
    out.verdict = Verdict.UNKNOWN
    out.detail = unknown_detail(unit, final, context, out.depth, reached, accumulator, engine)
    return out


def transition_system(unit: SeqUnit, limit: int, invariants, whole: bool) -> pdr.TransitionSystem:
    """The unit and the ghost as one transition system, for the PDR engine (the ghost with
    the same shape as the one the invariants were proved with)."""
    d = unit.design
    cur = Symbolic(unit, limit, "t")
    g = fresh_ghost(unit.sew, unit.lanes, "t", whole, unit.protocol)
    sub = [(d.inputs[n], cur.inputs[d.inputs[n].decl().name()]) for n in d.inputs]
    outputs = {n: z3.substitute(t, *sub) for n, t in d.outputs.items()}
    nxt = [z3.substitute(d.next_state[n], *sub) for n in d.state]
    done = outputs[unit.names["done"]] == 1
    unit.symbolic_outputs(cur.inp, outputs)
    g_next = ghost_step(cur.ops, g, cur.inp, done, limit, unit.protocol)
    state = list(d.state.values()) + ghost_variables(g)
    after_ghost = ghost_values(g, g_next)
    # after a reset cycle the phase is idle and the wait count 0 (ghost_step gives that)
    bad = z3.Or(*violation(cur.ops, g, cur.inp, outputs[unit.names["result"]], done, limit, unit.full,
                           unit.protocol).values())
    known = z3.And(*[_as_bool(c.holds(dict(d.state), g), unit.sew) for c in invariants]) if invariants \
        else z3.BoolVal(True)
    return pdr.TransitionSystem(state, list(cur.inputs.values()), nxt + after_ghost, cur.inp["rst"],
                                cur.env(g), bad, known)


def reduction_chunks(found) -> list:
    cycles, at, _ = found
    return _in_progress(cycles, at)[1]


def unknown_detail(unit: SeqUnit, final, context, depth: int, reached: int, accumulator, engine) -> str:
    """Why it is UNKNOWN, what was searched, and what to try next (given the options used)."""
    if final is None:
        why = f"no inductive invariant set was found ({context})"
    else:
        why = f"the invariants found do not imply the property in every state ({final.verdict.value})"
    searched = (f"no counterexample within {depth} cycles after reset, nor in reductions of 2^k - 1, 2^k, "
                f"2^k + 1 chunks for k = 1..{reached}")
    wide = sorted(_reg(r) for r, w in unit.registers.items() if w >= unit.sew)
    hints = []
    if accumulator is None and wide:
        hints.append(f"name the register that holds the running maximum with --accumulator NAME "
                     f"(registers at least SEW bits wide: {', '.join(wide[:8])})")
    elif accumulator is not None:
        hints.append(f"check that {accumulator} holds the running maximum (in its low SEW bits, or one "
                     "SEW-bit slice per lane)")
    hints.append("a longer --timeout")
    if unit.protocol.done == "pulse":
        hints.append("--done level if done stays high until the next start")
    return f"{why}; {searched}; PDR: {engine.detail}. Try: " + "; ".join(hints)


def _protocol_hint(protocol: Protocol) -> str:
    if protocol.start_with_chunk:
        return "(the first chunk is offered with start: --start-with-chunk)"
    return "If the unit takes the first chunk in the cycle of start, give --start-with-chunk"


def _state_name(unit: SeqUnit, register: str) -> str:
    return next(r for r in unit.registers if _reg(r) == register)


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
