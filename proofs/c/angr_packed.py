"""A unit that first packs the active flags into a bit array (`bits[i >> 6] |= (active[i] & 1) <<
(i & 63)`, in a buffer zeroed first) and then folds the elements whose bit is set, for every n:
the angr side (angr_run.py's job `unit_loop` when the two-loop method of a compacting buffer
does not fit; run by angr's interpreter, imports nothing of vredmax).

The mining run (angr_loop.py) gives two loop heads. The first loop's plan has only affine
locations (an index, a pointer) and fresh ones; the second loop's is one loop's (angr_loop's
templates over its own ghosts). The bit array is the solver's: the first trip's load at a
symbolic address (`bits + 8 * (k >> 6)`) makes its region (every address that load may take),
and from then on every access in the region is the array's: the first loop's loads fresh bytes
with their addresses, its stores conditional stores (angr_two_loops.buffer_memory). Runs:

1. the entry, n symbolic, to the first head; the region's bytes there are handed back
   (`zero_region`: the checker proves them all zero);
2. one trip of the first loop from its head after k trips: back at its head, or at the second
   loop's head (the array packed);
3. one trip of the second loop from its head after k2 trips (the state of (2)'s exits merged,
   its own templates over k2 and its ghosts, named apart), its loads from the region fresh
   bytes with their addresses (the checker states them the fully packed flags).
The checker (packed.py) states the array's invariant (byte q holds the flags packed so far, zero
above them) and proves both inductions.
"""

from __future__ import annotations

NOT_PACKED = "no bit array"


def first_plan(claripy, angr_loop, head: int, seen: dict, sew: int, n0: int, havoc: set) -> dict:
    """The packing loop's plan: each location affine in the trips or fresh (nothing of the
    elements is carried); its stride from the trips the mining run (n = n0) took."""
    states = angr_loop.head_states(head, seen)
    found = angr_loop._classify(claripy, states, None, sew, running=lambda states, values: ("havoc", None))
    locations = {r: ("havoc", None) if f"{head:#x}:{r}" in havoc else v for r, v in found.items()}
    if not any(kind == "affine" and step for kind, step in locations.values()):
        raise angr_loop.LoopIncomplete(f"{NOT_PACKED}: no index in the loop at {head:#x}")
    # a head at the body's start is reached n0 / stride times, one at the test once more, one
    # entered after a first trip peeled off once less (the checker finds how many flags the
    # entry packed)
    strides = [s for s in (1, 2) if len(states) in (n0 // s - 1, n0 // s, n0 // s + 1)]
    if not strides:
        raise angr_loop.LoopIncomplete(f"{NOT_PACKED}: the loop at {head:#x} ran {len(states)} trips")
    stride = strides[0]
    return {
        "head": head,
        "stride": stride,
        "direction": "forward",
        "bound": "le",  # the head state's (the checker states the invariant's own, tighter)
        "locations": locations,
    }


def run_packed(job, run, project, call, mined, elements, flags, deadline) -> dict:
    """The terms of the three runs for packed.obligations; LoopIncomplete (or run.Incomplete)
    when the code is no such pair of loops. `call`: (entry, add, remove, seed)."""
    import claripy
    import z3
    from angr.storage.memory_mixins import DefaultMemory

    import angr_loop
    import angr_two_loops

    sew, limit, havoc = job["sew"], job.get("limit_states", 64), set(job.get("havoc", ()))
    heads, backs, mining_start, seen = mined
    first_head, second_head = angr_two_loops.loop_pair(angr_loop, project, heads, backs, seen)
    plan = first_plan(claripy, angr_loop, first_head, heads[first_head], sew, len(elements), havoc)
    states2 = angr_two_loops.second_states(run, project, mining_start, second_head, backs, deadline, limit)
    plan2 = angr_loop._mine_head(claripy, second_head, dict(enumerate(states2)), sew, elements, flags, havoc)

    loads: list = []
    stores: list = []
    buffers: dict = {
        "regions": [],
        "stores": [],
        "loads": [],
        "entries": [],
        "writable": True,
        "setup": False,
        "discover": True,
    }
    inputs = angr_loop._memory_class(DefaultMemory, claripy, loads, stores, run.Incomplete)
    memory_class = angr_two_loops.buffer_memory(inputs, claripy, buffers, run.Incomplete)

    # 1. the entry, n symbolic, to the first head
    n, entry_returns, steps, at_head = angr_two_loops.entry_run(
        job, run, project, call, memory_class, (first_head, second_head), deadline
    )

    # 2. one trip of the first loop
    trip = (claripy, at_head, plan, sew, n)
    first, trip_returns, more = angr_loop.settled(
        angr_two_loops.first_trip(
            run,
            project,
            angr_loop,
            trip,
            (first_head, second_head),
            stores,
            buffers,
            "its bit array",
            deadline,
            limit,
        )
    )
    steps += more
    if len(buffers["regions"]) != 1 or not buffers["stores"] or not first["exited"]:
        raise angr_loop.LoopIncomplete(
            f"{NOT_PACKED}: the loop at {first_head:#x} fills no one array the loop at {second_head:#x} reads"
        )
    if trip_returns:
        raise angr_loop.LoopIncomplete(
            f"the loop at {first_head:#x} returns before the loop at {second_head:#x}"
        )
    (lo, hi), first_stores, first_loads = (
        buffers["regions"][0],
        list(buffers["stores"]),
        list(buffers["loads"]),
    )
    arrival = run.merged(first["exited"])

    # 3. one trip of the second loop, the array read only
    buffers.update(writable=False, discover=False, stores=[])

    def second_trip(havoc_bytes):
        stores.clear()
        buffers["loads"].clear()
        buffers["setup"] = True
        trip, _, _, _ = angr_loop.head_state(claripy, arrival, plan2, sew, n, havoc_bytes, tag="2")
        buffers["setup"] = False
        trip.globals["iterations"], trip.globals["trips"] = 0, ()
        back = angr_loop.stop_at(second_head)
        returns, more = run.explore(project, trip, deadline, limit, back)
        stack = trip.solver.eval(trip.regs.rsp)
        if any(not stack - 0x10000 <= a < stack + 0x10000 for a in stores):
            raise angr_loop.LoopIncomplete(f"the loop at {second_head:#x} stores outside the stack")
        return (back["stopped"], returns, more), set(stores) - angr_loop.slot_bytes(trip, plan2)

    second, second_returns, more = angr_loop.settled(second_trip, "the second trip")
    steps += more

    buffers["setup"] = True  # the outputs: the locations' values, the region as the entry left it
    outputs = angr_loop.Outputs(claripy, z3)
    kept, kept2 = angr_loop.kept(plan), angr_loop.kept(plan2)
    outputs.locations(lambda reg: f"init_{reg}", at_head, kept)
    outputs.path("path_h0", at_head)
    outputs.returns("e", entry_returns)
    outputs.out("zero_region", at_head.memory.load(lo, hi - lo))
    outputs.trips("t", first["stopped"], kept)
    outputs.path("path_x", arrival)
    outputs.locations(lambda reg: f"init2_{reg}", arrival, kept2)
    outputs.trips("u", second, kept2)
    outputs.returns("v", second_returns)
    for name, _region, address in loads:
        outputs.out(f"addr_{name}", address)
    for i, (address, byte, guard) in enumerate(first_stores):
        outputs.out(f"store_addr{i}", address)
        outputs.out(f"store_byte{i}", byte)
        outputs.out(f"store_if{i}", guard)
    for name, address in first_loads + buffers["loads"]:
        outputs.out(f"addr_{name}", address)

    def described(p, head):
        return dict(
            p,
            locations={r: list(v) for r, v in p["locations"].items()},
            where=run._source_line(project, head),
        )

    return {
        "smt2": outputs.smt2,
        "outputs": outputs.names,
        "plan": dict(
            described(plan, first_head),
            packed={"lo": lo, "hi": hi},
            second={k: v for k, v in described(plan2, second_head).items() if k != "arrival_backs"},
        ),
        "loads": [[name, region] for name, region, _ in loads],
        "pre_loads": [name for name, _ in first_loads],
        "full_loads": [name for name, _ in buffers["loads"]],
        "counts": {
            "e": len(entry_returns),
            "t": len(first["stopped"]),
            "u": len(second),
            "v": len(second_returns),
            "s": len(first_stores),
        },
        "steps": steps,
        "seconds": 0.0,
    }
