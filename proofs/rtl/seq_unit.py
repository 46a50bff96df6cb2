"""A multi-cycle unit run concretely: its ports by role, random simulation under the protocol, and
the cycles of a counterexample."""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from vredmax.proofs.rtl.combinational import biased_value
from vredmax.proofs.rtl.evaluate import Program
from vredmax.proofs.rtl.ports import Interface
from vredmax.proofs.rtl.protocol import (
    Ghost,
    Protocol,
    environment,
    ghost_step,
    group_value,
    idle_ghost,
    violation,
)
from vredmax.proofs.rtl.trace import Reduction, RtlCounterexample
from vredmax.proofs.rtl.yosys import Design
from vredmax.spec.bv import ConcreteElements

SIM_TRACES = 12
SIM_CYCLES = 160
# two long reductions (hundreds of chunks): counters that wrap show there
LONG_TRACES, LONG_CYCLES, LONG_P_LAST = 2, 640, 0.003
RESULT_OK_CHECKS = 24  # simulated results also checked with spec.relation.result_ok
HORIZON = 64  # cycles to wait for `done` in simulation
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
        terms = {
            f"out:{iface.names['result']}": design.outputs[iface.names["result"]],
            f"out:{iface.names['done']}": design.outputs[iface.names["done"]],
        }
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
            self._names.update(
                {("role", role): d.inputs[self.names[role]].decl().name() for role in self.input_roles}
            )
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
    failure: tuple | None = None  # (cycles, index of the failing cycle, problem)
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
            if t > 0 and not environment(ops, g, inp, unit.protocol):  # in_ready said no to start
                inp.update(start=False, in_valid=False, last=False)
                result, done, nxt = unit.step(state, inp)
            cycles.append(cycle_record(unit, state, inp, result, done, g))
            if t > 0:
                for problem, bad in violation(
                    ops, g, inp, result, done, check_limit, unit.full, unit.protocol
                ).items():
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
    inp = {
        "rst": first or rng.random() < 0.01,
        "start": False,
        "in_valid": False,
        "last": False,
        "seed": biased_value(rng, sew),
        "elements": [biased_value(rng, sew) for _ in range(lanes)],
        "active": [rng.random() < rng.choice([0.0, 0.5, 0.9, 1.0]) for _ in range(lanes)],
        "extra": {name: rng.getrandbits(var.size()) for name, var in unit.extra.items()},
    }
    protocol = unit.protocol
    if protocol.out_ready:
        inp["out_ready"] = rng.random() < 0.6
    if inp["rst"]:
        inp["start"], inp["in_valid"], inp["last"] = (
            rng.random() < 0.3,
            rng.random() < 0.3,
            rng.random() < 0.3,
        )
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
    record = {
        names[r]: unit.iface.level(r, inp[r]) for r in ("rst", "start", "in_valid", "last")
    }  # port levels
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
    seed, chunks = in_progress(cycles, at)
    if seed is None:
        return None
    return Reduction(unit.sew, seed, [v for c in chunks for v in c[0]], [a for c in chunks for a in c[1]])


def in_progress(cycles: list, at: int):
    seed, chunks = None, []
    for record in cycles[1 : at + 1]:
        inp = record["_inputs"]
        if inp["rst"]:
            seed, chunks = None, []
        elif inp["start"]:
            seed, chunks = inp["seed"], []
            if inp["in_valid"] and inp.get("in_ready", True):  # start_with_chunk: the first chunk with start
                chunks.append((list(inp["elements"]), list(inp["active"]), bool(inp["last"])))
        elif inp["in_valid"] and inp.get("in_ready", True) and seed is not None:
            chunks.append((list(inp["elements"]), list(inp["active"]), bool(inp["last"])))
    return seed, chunks


def counterexample(unit: SeqUnit, cycles: list, at: int, problem: str) -> RtlCounterexample:
    """The trace up to the failing cycle, with the reduction in progress mapped back."""
    seed, chunks = in_progress(cycles, at)
    reduction = None
    if seed is not None:
        reduction = Reduction(
            unit.sew, seed, [v for c in chunks for v in c[0]], [a for c in chunks for a in c[1]]
        )
    final = cycles[at]
    unit_result = final[unit.names["result"]] if "result" in problem else None
    shown = [{k: v for k, v in c.items() if not k.startswith("_")} for c in cycles[: at + 1]]
    return RtlCounterexample(
        unit.sew,
        unit.lanes,
        reduction,
        unit_result,
        f"cycle {at}: {problem}",
        chunks=chunks,
        cycles=shown,
        at_cycle=at,
        column_names=dict(unit.names),
    )


def register_name(name: str) -> str:
    """A register as the user named it (Yosys adds $ff, and $driver$ for a flip-flop driving a port)."""
    return name.removesuffix("$ff").removeprefix("$driver$")


def state_name(unit: SeqUnit, register: str) -> str:
    return next(r for r in unit.registers if register_name(r) == register)
