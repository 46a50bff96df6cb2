"""Looking for a real counterexample: bounded checks from reset, replays, reductions long enough to
wrap a chunk counter, and shortening a failing trace."""

from __future__ import annotations

import random
import time

import z3

from vredmax.proofs.rtl.protocol import environment, fresh_ghost, ghost_step, idle_ghost, violation
from vredmax.proofs.rtl.seq_unit import SeqUnit, cycle_record
from vredmax.proofs.rtl.seq_invariants import Symbolic
from vredmax.proofs.engine.verdict import prove
from vredmax.spec.bv import ConcreteElements

SHRINK_BUDGET_S = 8.0  # shortening a counterexample trace: best effort within this time
# bitwuzla: 2-4x faster than Z3 on these unrolled queries (measured at SEW=8, 4 lanes)
BMC_SOLVER = "bitwuzla"


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
        sub = [(d.state[n], state[n]) for n in d.state] + [
            (d.inputs[n], sym.inputs[d.inputs[n].decl().name()]) for n in d.inputs
        ]
        outputs = {n: z3.substitute(term, *sub) for n, term in d.outputs.items()}
        result, done = outputs[unit.names["result"]], outputs[unit.names["done"]] == 1
        inp = sym.inp
        unit.symbolic_outputs(inp, outputs)
        if t == 0:
            constraints.append(inp["rst"])
        else:
            constraints.append(sym.env(ghost))
            bad += [
                cond
                for name, cond in violation(
                    sym.ops, ghost, inp, result, done, limit, unit.full, unit.protocol
                ).items()
                if t <= data_depth or not name.startswith("result")
            ]
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

        inp = {
            role: value(sym.inp[role])
            for role in ("rst", "start", "in_valid", "last", "seed")
            + (("out_ready",) if unit.protocol.out_ready else ())
        }
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
        result, done, nxt = unit.step(state, inp)  # first: the environment may read in_ready
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


def long_reduction(
    unit: SeqUnit, chunks: int, limit: int, rng: random.Random, peak: str = "first"
) -> list[dict]:
    """Inputs for one reduction of `chunks` chunks whose first (or last) chunk holds the maximum
    (every lane the signed maximum, the others below it): a counter that wraps, or a chunk that
    is lost or taken twice, after that many chunks changes the result or the timing of done."""
    sew, lanes = unit.sew, unit.lanes
    top, smin = (1 << (sew - 1)) - 1, 1 << (sew - 1)
    idle = {
        "rst": False,
        "start": False,
        "in_valid": False,
        "last": False,
        "seed": 0,
        "elements": [0] * lanes,
        "active": [False] * lanes,
        "extra": {name: 0 for name in unit.extra},
    }
    if unit.protocol.out_ready:
        idle["out_ready"] = True
    inputs = [dict(idle, rst=True)]
    if not unit.protocol.start_with_chunk:
        inputs.append(dict(idle, start=True, seed=smin))
    at = 0 if peak == "first" else chunks - 1
    for k in range(chunks):
        values = (
            [top] * lanes
            if k == at
            else [rng.randrange(smin, smin + (1 << sew) - 1) & ((1 << sew) - 1) for _ in range(lanes)]
        )
        chunk = dict(idle, in_valid=True, last=(k == chunks - 1), elements=values, active=[True] * lanes)
        if k == 0 and unit.protocol.start_with_chunk:
            chunk.update(start=True, seed=smin)
        inputs.append(chunk)
    return inputs + [dict(idle) for _ in range(limit + 1)]


MIN_COUNT_BITS = 8  # up to 257 chunks even without a counter register
CHUNK_COUNT_BUDGET_S = 40.0  # the search stops at this time, not at a fixed count


def chunk_counts(unit: SeqUnit) -> tuple[int, list[int]]:
    """(K, the chunk counts 2^k - 1, 2^k, 2^k + 1 for k = 1..K): K is the widest register that
    can count chunks (narrower than SEW*LANES bits: not a data register)."""
    widths = [w for w in unit.registers.values() if 1 < w < max(32, unit.sew * unit.lanes)]
    top = max(widths + [MIN_COUNT_BITS])
    counts = []
    for k in range(1, top + 1):
        counts += [2**k - 1, 2**k, 2**k + 1]
    return top, sorted(set(c for c in counts if c >= 1))


HOLD_LIMIT = 64  # cycles a chunk is held while the unit's in_ready stays low


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
        if t > 0 and not environment(ops, g, inp, unit.protocol):  # the unit refused the start
            inp.update(start=False, in_valid=False, last=False)
            result, done, state_next = unit.step(state, inp)
            retry = True
        driven.append(inp)
        if t > 0 and any(violation(ops, g, inp, result, done, limit, unit.full, unit.protocol).values()):
            return True, driven
        if retry and held < HOLD_LIMIT:
            pending.insert(0, original)  # offer it again
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
    begun = time.perf_counter()
    deadline = begun + CHUNK_COUNT_BUDGET_S
    reached, tried, simulated = 0, 0, 0
    for chunks in counts:
        now = time.perf_counter()
        per_chunk = (now - begun) / simulated if simulated else 0.0
        if now > deadline or now + 2 * chunks * per_chunk > deadline:  # the next count would not finish
            break
        simulated += 2 * chunks
        for peak in ("first", "last"):
            failed, inputs = fails_quickly(unit, long_reduction(unit, chunks, limit, rng, peak), limit)
            if failed:
                found = replay(unit, inputs, limit)
                if found is not None:
                    return found, reached, tried
        tried += 1
        if chunks > 2 and (chunks - 1) & (chunks - 2) == 0:  # 2^k + 1: the trio of k is done
            reached = (chunks - 1).bit_length() - 1
    return None, reached, tried


def shrink(unit: SeqUnit, cycles: list, at: int, problem: str, limit: int):
    """A shorter, simpler trace with the same problem: cycles deleted while it still fails
    (and keeps to the protocol), then unused data zeroed and active lanes switched off."""
    state0 = cycles[0]["_state"]
    inputs = [dict(c["_inputs"]) for c in cycles[: at + 1]]
    best = (cycles, at, problem)

    def attempt(trial):
        nonlocal inputs, best
        found = replay(unit, trial, limit, state0)
        if found is not None and found[2] == problem:
            inputs, best = trial[: found[1] + 1], found
            return True
        return False

    deadline = time.perf_counter() + SHRINK_BUDGET_S
    for size in (64, 32, 16, 8, 4, 2, 1):
        i = 1
        while i < len(inputs) and time.perf_counter() < deadline:
            if not attempt(inputs[:i] + inputs[i + size :]):
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
        attempt(inputs[:t] + [plain] + inputs[t + 1 :])
        for lane in range(unit.lanes):
            if t >= len(inputs):  # an attempt may have ended the trace earlier
                break
            inp = inputs[t]
            if inp["in_valid"] and inp["active"][lane]:
                flags = list(inp["active"])
                flags[lane] = False
                attempt(inputs[:t] + [dict(inp, active=flags)] + inputs[t + 1 :])
            inp = inputs[t]
            if not inp["active"][lane] and inp["elements"][lane]:
                values = list(inp["elements"])
                values[lane] = 0
                attempt(inputs[:t] + [dict(inp, elements=values)] + inputs[t + 1 :])
    return best
