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

This module drives the steps; `seq_unit` runs the unit (simulation), `seq_invariants` mines
and filters the invariants, `seq_search` looks for counterexamples (BMC, long reductions,
shortening a trace).
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass, field

import z3

from vredmax.proofs.rtl.combinational import MethodResult, lemma_check
from vredmax.proofs.rtl import pdr
from vredmax.proofs.rtl.abstraction import abstract_chunk_trees
from vredmax.proofs.rtl.ports import Interface
from vredmax.proofs.rtl.protocol import (
    Protocol,
    fresh_ghost,
    ghost_step,
    ghost_values,
    ghost_variables,
    violation,
)
from vredmax.proofs.rtl.seq_unit import (
    HORIZON,
    LONG_CYCLES,
    LONG_TRACES,
    SIM_CYCLES,
    SIM_TRACES,
    SeqUnit,
    counterexample,
    in_progress,
    register_name,
    signal_widths,
    simulate,
    state_name,
)
from vredmax.proofs.rtl.seq_invariants import Symbolic, as_bool, houdini, mine, prove_property
from vredmax.proofs.rtl.seq_search import bmc, bmc_trace, replay, search_chunk_counts, shrink
from vredmax.proofs.rtl.trace import RtlCounterexample
from vredmax.proofs.rtl.yosys import Design
from vredmax.proofs.engine.verdict import Verdict

MAX_BMC_DEPTH = 24
DEEP_BMC_TIMEOUT_MS = 20_000
BMC_TIMEOUT_MS = 20_000


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


def check_sequential(
    design: Design,
    iface: Interface,
    timeout_ms: int,
    latency: int | None = None,
    accumulator: str | None = None,
    depth: int | None = None,
    protocol: Protocol = Protocol(),
) -> SeqOutcome:
    protocol = dataclasses.replace(protocol, active=iface.active_mode)
    t0 = time.perf_counter()
    abstraction = abstract_chunk_trees(design, iface, timeout_ms)
    if abstraction is not None:
        design, protocol = abstraction.design, dataclasses.replace(protocol, tree=True)
    unit = SeqUnit(design, iface, protocol)
    out = SeqOutcome(
        Verdict.UNKNOWN,
        assumptions=protocol.assumptions()
        + [
            f"{role} is active low: high in these lines means port {iface.names[role]} = 0"
            for role in sorted(iface.inverted)
        ],
    )
    registers = sorted(register_name(r) for r in unit.registers)
    if accumulator is not None and accumulator not in registers:
        from vredmax.proofs.rtl.frontend import RtlInputError

        raise RtlInputError("accumulator", f"no register {accumulator!r} (registers: {', '.join(registers)})")
    if accumulator is not None and unit.registers[state_name(unit, accumulator)] < unit.sew:
        from vredmax.proofs.rtl.frontend import RtlInputError

        raise RtlInputError(
            "accumulator",
            f"{accumulator} is {unit.registers[state_name(unit, accumulator)]} "
            f"bits wide, narrower than SEW={unit.sew}",
        )
    start = time.perf_counter()
    sim = simulate(unit, latency)
    out.methods.append(
        MethodResult(
            "simulation",
            Verdict.COUNTEREXAMPLE if sim.failure else Verdict.PROVED,
            time.perf_counter() - start,
            f"{SIM_TRACES} traces of {SIM_CYCLES} cycles and {LONG_TRACES} of {LONG_CYCLES}, "
            f"{sim.reductions} reductions",
        )
    )
    if sim.failure:
        cycles, at, problem = sim.failure
        return _refuted(
            out, unit, cycles, at, problem, "found by simulation", latency if latency is not None else HORIZON
        )
    if abstraction is not None:
        out.methods.append(
            MethodResult("cut points", Verdict.PROVED, abstraction.seconds, abstraction.detail)
        )
    if latency is None:
        if not sim.latencies:
            out.verdict = Verdict.ERROR
            out.detail = (
                f"no reduction finished in simulation: does {iface.names['done']} ever rise? "
                + _protocol_hint(protocol)
            )
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
    data_bound = min(bound, latency + 2)  # reset, start, a last chunk, done
    out.depth = bound
    # The bounded check finds bugs near reset; the induction alone proves the property (its
    # base case is the state after reset), so a bounded check that gives up is not fatal.
    for data in (data_bound, 0):
        t0 = time.perf_counter()
        answer, steps, _ = bmc(unit, bound, latency, min(timeout_ms, BMC_TIMEOUT_MS), data)
        checked = f"the result up to cycle {data}" if data else "not the result (that query gave up)"
        out.methods.append(
            MethodResult(
                "bounded",
                answer.verdict,
                time.perf_counter() - t0,
                f"cycles 1..{bound} after reset, every input the protocol allows: done "
                f"and its latency in each, {checked}",
            )
        )
        if answer.verdict == Verdict.COUNTEREXAMPLE:
            return _from_bmc(out, unit, steps, answer.model, latency)
        if answer.verdict == Verdict.PROVED:
            out.bounded = f"a bounded check of cycles 1..{bound}" + (
                "" if data else " (done and its latency)"
            )
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
        out.methods.append(
            MethodResult(
                "induction",
                final.verdict,
                time.perf_counter() - t0,
                f"{len(candidates)} candidates mined, {len(invariants)} inductive "
                f"after {rounds} Houdini rounds",
            )
        )
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
    counts = (
        f"reductions of 2^k - 1, 2^k and 2^k + 1 chunks for k = 1..{reached}"
        if reached
        else f"{tried} long reductions"
    )
    if found is not None:
        out.methods.append(
            MethodResult(
                "chunk counts",
                Verdict.COUNTEREXAMPLE,
                time.perf_counter() - t0,
                f"a reduction of {len(reduction_chunks(found))} chunks",
            )
        )
        return _refuted(out, unit, *found, "found by simulating a long reduction", latency)
    out.methods.append(
        MethodResult(
            "chunk counts",
            Verdict.PROVED,
            time.perf_counter() - t0,
            f"{counts} (the maximum in the first or the last chunk): no violation",
        )
    )
    t0 = time.perf_counter()
    engine = pdr.prove_safety(transition_system(unit, latency, invariants, kept_whole), timeout_ms)
    if engine.verdict == Verdict.COUNTEREXAMPLE:  # real, but its trace is beyond the bounded checks
        engine.verdict = Verdict.UNKNOWN
        engine.detail += " (its trace is longer than the bounded checks reach)"
    out.methods.append(MethodResult("PDR", engine.verdict, time.perf_counter() - t0, engine.detail))
    if engine.verdict == Verdict.PROVED:
        out.verdict, out.method = Verdict.PROVED, "PDR (IC3, Z3's Spacer) over the unit and the ghost"
        if abstraction is not None:
            out.method = "cut points in the chunk's tree, then " + out.method
        return out
    deeper = min(MAX_BMC_DEPTH, max(bound * 2, 2**4 + 4))
    out.depth = max(bound, deeper)
    if deeper > bound:
        t0 = time.perf_counter()
        answer, steps, _ = bmc(unit, deeper, latency, min(timeout_ms, DEEP_BMC_TIMEOUT_MS))
        out.methods.append(
            MethodResult(
                "bounded",
                answer.verdict,
                time.perf_counter() - t0,
                f"looking for a counterexample: cycles 1..{deeper} after reset",
            )
        )
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
    bad = z3.Or(
        *violation(
            cur.ops, g, cur.inp, outputs[unit.names["result"]], done, limit, unit.full, unit.protocol
        ).values()
    )
    known = (
        z3.And(*[as_bool(c.holds(dict(d.state), g), unit.sew) for c in invariants])
        if invariants
        else z3.BoolVal(True)
    )
    return pdr.TransitionSystem(
        state, list(cur.inputs.values()), nxt + after_ghost, cur.inp["rst"], cur.env(g), bad, known
    )


def reduction_chunks(found) -> list:
    cycles, at, _ = found
    return in_progress(cycles, at)[1]


def unknown_detail(unit: SeqUnit, final, context, depth: int, reached: int, accumulator, engine) -> str:
    """Why it is UNKNOWN, what was searched, and what to try next (given the options used)."""
    if final is None:
        why = f"no inductive invariant set was found ({context})"
    else:
        why = f"the invariants found do not imply the property in every state ({final.verdict.value})"
    searched = (
        f"no counterexample within {depth} cycles after reset, nor in reductions of 2^k - 1, 2^k, "
        f"2^k + 1 chunks for k = 1..{reached}"
    )
    wide = sorted(register_name(r) for r, w in unit.registers.items() if w >= unit.sew)
    hints = []
    if accumulator is None and wide:
        hints.append(
            f"name the register that holds the running maximum with --accumulator NAME "
            f"(registers at least SEW bits wide: {', '.join(wide[:8])})"
        )
    elif accumulator is not None:
        hints.append(
            f"check that {accumulator} holds the running maximum (in its low SEW bits, or one "
            "SEW-bit slice per lane)"
        )
    hints.append("a longer --timeout")
    if unit.protocol.done == "pulse":
        hints.append("--done level if done stays high until the next start")
    return f"{why}; {searched}; PDR: {engine.detail}. Try: " + "; ".join(hints)


def _protocol_hint(protocol: Protocol) -> str:
    if protocol.start_with_chunk:
        return "(the first chunk is offered with start: --start-with-chunk)"
    return "If the unit takes the first chunk in the cycle of start, give --start-with-chunk"


def _from_bmc(out, unit, steps, model, latency):
    if model is None:
        out.verdict, out.detail = Verdict.UNKNOWN, "the bounded check failed but gave no model"
        return out
    inputs = bmc_trace(unit, steps, model)
    state0 = {
        n: model.eval(v_at0, model_completion=True).as_long()
        for n, v_at0 in (
            (n, z3.BitVec(f"{v.decl().name()}@0", v.size())) for n, v in unit.design.state.items()
        )
    }
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
