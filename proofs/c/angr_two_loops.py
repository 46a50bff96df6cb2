"""A unit with two loops in sequence, the first filling a buffer that the second folds
(`buf[m++] = x` of the active elements, then the maximum of buf[0..m)), for every n: the angr
side (angr_run.py's job `unit_loop` when one loop's templates do not fit; run by angr's
interpreter, imports nothing of vredmax).

The mining run (angr_loop.py) gives two loop heads. The first loop's plan has a count `m` of
the active elements visited (angr_loop.count_claim) besides the templates of one loop; the
buffer's contents are the solver's: an array B (address -> byte), every store at an address
that is not one value (`buf + 8 * m`) a conditional store into it, recorded with its path's
condition, and every load from a buffer's region fresh bytes recorded with their address. Runs:

1. the entry, n symbolic, to the first head (as for one loop);
2. one trip of the first loop from its head after k trips (ghost_m the count): back at its head,
   at the second loop's head (`exits`: the first loop done), or returning (no active element:
   the second loop skipped);
3. one trip of the second loop from its head after k2 trips, the state of (2)'s exit paths
   merged, each running value a fresh `ghost_acc_REG` in the low SEW bits (its bounds are the
   checker's), every other location of the second loop affine in k2 or fresh.
The checker (two_loops.py) states the invariant of the buffer (every entry below m at most X,
the one at a ghost index w equal to X when some element is active) and proves both inductions.
"""

from __future__ import annotations

import itertools

NOT_TWO = "no pair of loops"  # the code is not of this shape: the one loop's method is tried
MAX_REGION = 1 << 24  # bytes a buffer's region may span (n entries of 8 bytes, with margin)

_names = itertools.count()


def buffer_memory(base, claripy, buffers: dict, Incomplete):
    """`base`: angr_loop's InputArrays class. buffers: "regions" [lo, hi), "stores" (address,
    byte, condition) in program order, "loads" (name, address), "writable" (False in the second
    loop: it only reads), "setup" (True while this module sets or reads a head state's locations:
    a stack buffer's first entries lie among the frame's slots, plain memory the code's loads
    from the buffer never see)."""

    class BufferArrays(base):
        def _in_buffer(self, addr, width: int) -> bool:
            regions = buffers["regions"]
            if not regions or buffers["setup"]:
                return False
            if isinstance(addr, int) or not addr.symbolic:
                a = addr if isinstance(addr, int) else addr.concrete_value
                hits = [lo <= a and a + width <= hi for lo, hi in regions]
                if any(hits):
                    return True
                if any(lo < a + width and a < hi for lo, hi in regions):
                    raise Incomplete(f"an access at {self.state.addr:#x} across a buffer's bounds")
                return False
            solver = self.state.solver
            for lo, hi in regions:
                if not solver.satisfiable(
                    extra_constraints=[claripy.Or(claripy.ULT(addr, lo), claripy.UGT(addr, hi - width))]
                ):
                    return True
            if any(
                solver.satisfiable(extra_constraints=[claripy.UGE(addr, lo), claripy.ULT(addr, hi)])
                for lo, hi in regions
            ):
                raise Incomplete(
                    f"an access at {self.state.addr:#x} whose address may or may not be a buffer's"
                )
            return False

        def _discover(self, addr, width: int) -> None:
            """A new region: every address a symbolic `addr` may take (`buf + 8 * m`)."""
            solver = self.state.solver
            lo, hi = solver.min(addr), solver.max(addr) + width
            if hi - lo > MAX_REGION or lo < 0x1000:
                raise Incomplete(f"an access at {self.state.addr:#x} at an address spanning {hi - lo} bytes")
            buffers["regions"].append((lo, hi))
            buffers["width"] = width

        def load(self, addr, size=None, **kwargs):
            width = size if isinstance(size, int) else None
            if width is None and size is not None and not size.symbolic:
                width = size.concrete_value
            if (
                buffers.get("discover")  # a bit array read before this run stores into it (angr_packed.py)
                and width is not None
                and not isinstance(addr, int)
                and addr.symbolic
                and not buffers["setup"]
                and not self._in_buffer(addr, width)
                and self._region(addr) is None
            ):
                self._discover(addr, width)
            if width is None or not self._in_buffer(addr, width):
                return super().load(addr, size=size, **kwargs)
            if buffers["stores"]:
                raise Incomplete(f"a load at {self.state.addr:#x} from a buffer this run wrote")
            parts = []
            for b in range(width):
                name = f"bl{next(_names)}"
                buffers["loads"].append((name, addr + b))
                parts.append(claripy.BVS(name, 8, explicit_name=True))
            buffers["entries"].append(addr)
            value = claripy.Concat(*(reversed(parts) if kwargs.get("endness") == "Iend_LE" else parts))
            if kwargs.get("condition") is not None and kwargs.get("fallback") is not None:
                value = claripy.If(kwargs["condition"], value, kwargs["fallback"])
            return value

        def store(self, addr, data, size=None, **kwargs):
            symbolic = not isinstance(addr, int) and addr.symbolic
            width = data.size() // 8 if hasattr(data, "size") else None
            if isinstance(size, int):
                width = size
            elif size is not None and not size.symbolic:
                width = size.concrete_value
            if width is None or not (symbolic or self._in_buffer(addr, width)):
                return super().store(addr, data, size=size, **kwargs)
            if not buffers["writable"]:
                raise Incomplete(f"a store at {self.state.addr:#x} into a buffer the second loop reads")
            if symbolic and not self._in_buffer(addr, width):
                self._discover(addr, width)
            if data.size() != 8 * width:
                raise Incomplete(f"a store at {self.state.addr:#x} of a size its value does not have")
            constraints = list(self.state.solver.constraints)
            if kwargs.get("condition") is not None:
                constraints.append(kwargs["condition"])
            guard = claripy.And(*constraints) if constraints else claripy.true()
            for b in range(width):
                byte = (
                    data[8 * b + 7 : 8 * b]
                    if kwargs.get("endness") == "Iend_LE"
                    else data[8 * (width - b) - 1 : 8 * (width - b - 1)]
                )
                buffers["stores"].append((addr + b, byte, guard))
            return None

    return BufferArrays


def second_states(run, project, start, head: int, backs, deadline: float, limit: int) -> list:
    """The mining run's states at the second loop's head, one per trip of that loop. The run
    made for one loop counts every back edge together: the first loop's trips that stored an
    element jumped back where the others fell through, so its states at the second head mixed
    the two counts (a pointer into the buffer was no longer affine). Here each loop's trips are
    counted apart, and the states at the head after the same trips of the second loop merged."""
    found: dict = {"seen": {}, "heads": set(backs) | {head}, "per_head": True}
    run.explore(project, start.copy(), deadline, limit, found)
    groups: dict = {}
    for by_count in found["seen"].get(head, {}).values():
        for state in by_count:
            groups.setdefault(dict(state.globals.get("trips", ())).get(head, 0), []).append(state)
    return [run.merged(groups[j]) for j in sorted(groups)]


def second_plan(claripy, angr_loop, head, states, flags, sew: int, havoc: set) -> dict:
    """The second loop's plan from its mined head states: each location affine in its trips,
    the running value (a non-affine one that never falls below its first value: `bounded`, its
    representation `sext` or `low`), or fresh; `bound` "lt" when its first arrival implies
    m > 0 (a loop entered only with an entry to fold), else "le"."""
    if len(states) < 3:
        raise angr_loop.LoopIncomplete(f"the loop at {head:#x} was seen after {len(states)} trips")

    def running(states, values):
        init_low = values[0][sew - 1 : 0]
        if not all(
            angr_loop._valid(claripy, s, claripy.SGE(v[sew - 1 : 0], init_low))
            for s, v in zip(states, values)
        ):
            return ("havoc", None)
        if sew < 64 and all(
            angr_loop._valid(claripy, s, v == claripy.SignExt(64 - sew, v[sew - 1 : 0]))
            for s, v in zip(states, values)
        ):
            return ("bounded", "sext")
        return ("bounded", "low")

    found = angr_loop._classify(claripy, states, None, sew, running=running)
    locations = {r: ("havoc", None) if f"{head:#x}:{r}" in havoc else v for r, v in found.items()}
    if not any(kind == "bounded" for kind, _ in locations.values()):
        raise angr_loop.LoopIncomplete(f"no register of the second loop at {head:#x} holds a running maximum")
    active = sum(claripy.ZeroExt(56, claripy.If(f != 0, claripy.BVV(1, 8), claripy.BVV(0, 8))) for f in flags)
    lt = angr_loop._valid(claripy, states[0], active != 0)
    return {"head": head, "locations": locations, "bound": "lt" if lt else "le"}


def second_head_state(claripy, angr_loop, arrival, plan: dict, sew: int, count, largest: int, havoc_bytes):
    """The state at the second loop's head after k2 trips: affine locations over k2, the running
    value fresh in its low SEW bits (sign-extended or not), the others fresh; k2 bounded by the
    count of active elements (`count`)."""
    state = arrival.copy()
    k2 = claripy.BVS("ghost_k2", 64, explicit_name=True)
    for reg, (kind, extra) in plan["locations"].items():
        init = angr_loop.value_of(arrival, reg)
        if kind == "affine":
            value = init + k2 * extra
        elif kind == "bounded":
            low = claripy.BVS(f"ghost_acc_{reg}", sew, explicit_name=True)
            value = angr_loop._extend(
                claripy,
                extra,
                low,
                sew,
                claripy.BVS(f"high_{reg}", 64 - sew, explicit_name=True) if sew < 64 else None,
            )
        else:
            value = claripy.BVS(f"havoc2_{reg}", 64, explicit_name=True)
        angr_loop.set_value(state, reg, value)
    state.regs.cc_op = 0
    state.regs.cc_dep1 = claripy.BVS("havoc2_flags", 64, explicit_name=True)
    state.regs.cc_dep2 = 0
    state.regs.cc_ndep = 0
    for r in range(16):
        setattr(state.regs, f"ymm{r}", claripy.BVS(f"havoc2_ymm{r}", 256, explicit_name=True))
    # the written stack bytes the locations do not cover (a slot's value is its template's: the
    # trip's write there is checked against it, as the first loop's head state does)
    for address in sorted(set(havoc_bytes) - angr_loop.slot_bytes(state, plan)):
        state.memory.store(address, claripy.BVS(f"havoc2_m{address:x}", 8, explicit_name=True))
    state.solver.add(claripy.ULT(k2, count) if plan["bound"] == "lt" else claripy.ULE(k2, count))
    state.solver.add(claripy.ULE(count, largest))
    return state


def loop_pair(angr_loop, project, heads: dict, backs, seen: dict) -> tuple[int, int]:
    """The heads of the first loop and of a second one run after it, from the mining run."""
    order = angr_loop.candidate_loops(heads)
    if len(order) < 2:
        raise angr_loop.LoopIncomplete(f"{NOT_TWO}: fewer than two loop heads")
    # the first loop's head: the first block reached more than twice; the second's: the first one
    # reached only after the first loop's last trip
    first_head = order[0]
    after = [h for h in order[1:] if min(heads[h]) >= max(heads[first_head])]
    if not after:  # the trips counted at the first head: every later state at its last count
        last = max(heads[first_head])
        after = [
            h
            for h, by_count in seen.items()
            if h in backs
            and h != first_head
            and angr_loop.own_code(project, h)
            and min(by_count) >= last
            and sum(map(len, by_count.values())) > 2
        ]
    if not after:
        raise angr_loop.LoopIncomplete(f"{NOT_TWO}: no loop after the one at {first_head:#x}")
    return first_head, after[0]


def entry_run(job, run, project, call, memory_class, heads, deadline: float):
    """The entry, n symbolic (`n`), to the first of the two loops' `heads`: (n, the paths that
    return, angr's steps, the merged state at the head). `call`: (entry, add, remove, seed)."""
    import claripy

    import angr_loop

    entry, add, remove, seed = call
    first_head, second_head = heads
    n = claripy.BVS("n", 64, explicit_name=True)
    state = project.factory.call_state(
        entry, job["sew"], seed, run.UNIT_ELEMENTS, run.UNIT_ACTIVE, n, add_options=add, remove_options=remove
    )
    state.memory.__class__ = memory_class
    state.globals["entry_sp"] = state.solver.eval(state.regs.rsp)
    state.solver.add(claripy.Or(*[n == v for v in job["vlmaxes"]]))
    run._address_strategies(state)
    entering = angr_loop.stop_at(first_head, (second_head,))
    entry_returns, steps = run.explore(project, state, deadline, job.get("limit_states", 64), entering)
    # (with lazy solving a path of an n outside the domain, n = 1 past a peeled first trip, may
    # reach the second loop: dropped when unsatisfiable; the coverage proof checks the rest)
    if not entering["stopped"] or any(s.satisfiable() for s in entering["exited"]):
        raise angr_loop.LoopIncomplete(f"the entry does not reach the loop at {first_head:#x} alone")
    return n, entry_returns, steps, run.merged(entering["stopped"])


def first_trip(run, project, angr_loop, trip, heads, stores, buffers, what, deadline, limit):
    """The first loop's trip for angr_loop.settled (called with the bytes to havoc): from its
    head after k trips (`trip`: head_state's claripy, state, plan, sew and n) to its head again
    or to the second loop's, the buffer found again by the trip (the head state's stack slots
    and havocked bytes, a stack buffer's first entries among them, are the state's); a store
    outside the stack and `what` is not described."""
    claripy, at_head, plan, sew, n = trip
    first_head, second_head = heads

    def run_trip(havoc):
        stores.clear()
        for found in ("regions", "stores", "loads", "entries"):
            buffers[found].clear()
        buffers["setup"] = True
        state, _, _, _ = angr_loop.head_state(claripy, at_head, plan, sew, n, havoc)
        buffers["setup"] = False
        state.globals["iterations"], state.globals["trips"] = 0, ()
        back = angr_loop.stop_at(first_head, (second_head,))
        returns, more = run.explore(project, state, deadline, limit, back)
        stack = state.solver.eval(state.regs.rsp)
        if any(not stack - 0x10000 <= a < stack + 0x10000 for a in stores):
            raise angr_loop.LoopIncomplete(f"the loop at {first_head:#x} stores outside the stack and {what}")
        return (back, returns, more), set(stores) - angr_loop.slot_bytes(state, plan)

    return run_trip


def run_two_loops(job, run, project, entry, add, remove, mined, seed, elements, flags, deadline, start):
    """The terms of the three runs for two_loops.obligations, from the mining run's `heads`
    (address -> {trips: state}); LoopIncomplete (or run.Incomplete) when the code is no such pair
    of loops."""
    import claripy
    import z3
    from angr.storage.memory_mixins import DefaultMemory

    import angr_loop

    sew, limit, havoc = job["sew"], job.get("limit_states", 64), set(job.get("havoc", ()))
    heads, backs, mining_start, seen = mined
    first_head, second_head = loop_pair(angr_loop, project, heads, backs, seen)
    why: list = []
    plans = angr_loop.mine(
        claripy, {first_head: heads[first_head]}, sew, elements, flags, why, deadline, havoc, counts=True
    )
    plan = next(iter(plans), None)
    if plan is None:
        raise angr_loop.LoopIncomplete(f"{NOT_TWO}: {angr_loop.tried([], why)}")
    counted = [r for r, (kind, _) in plan["locations"].items() if kind == "count"]
    if not counted:
        raise angr_loop.LoopIncomplete(f"{NOT_TWO}: the loop at {first_head:#x} counts no active element")
    # one count is the invariant's m; another location that looked like one (a spill of m, stale
    # before the first active element) is havocked: each count location is set to the same ghost m,
    # and only m's update is proved. Other templates (a register that happened to hold 1 after an
    # active element at SEW=8 looks like a found flag) stay guesses the induction proves or weakens.
    plan = dict(
        plan, locations={r: ("havoc", None) if r in counted[1:] else v for r, v in plan["locations"].items()}
    )
    states2 = second_states(run, project, mining_start, second_head, backs, deadline, limit)
    plan2 = second_plan(claripy, angr_loop, second_head, states2, flags, sew, havoc)

    loads: list = []
    buffers: dict = {
        "regions": [],
        "stores": [],
        "loads": [],
        "entries": [],
        "writable": True,
        "setup": False,
    }
    stores: list = []
    inputs = angr_loop._memory_class(DefaultMemory, claripy, loads, stores, run.Incomplete)
    memory_class = buffer_memory(inputs, claripy, buffers, run.Incomplete)

    # 1. the entry, n symbolic, to the first head
    n, entry_returns, steps, at_head = entry_run(
        job, run, project, (entry, add, remove, seed), memory_class, (first_head, second_head), deadline
    )
    if buffers["stores"]:
        raise angr_loop.LoopIncomplete(f"the entry does not reach the loop at {first_head:#x} alone")

    # 2. one trip of the first loop
    trip = (claripy, at_head, plan, sew, n)
    first, trip_returns, more = angr_loop.settled(
        first_trip(
            run,
            project,
            angr_loop,
            trip,
            (first_head, second_head),
            stores,
            buffers,
            "its buffer",
            deadline,
            limit,
        )
    )
    steps += more
    if not first["exited"] or not buffers["regions"]:
        raise angr_loop.LoopIncomplete(
            f"the loop at {first_head:#x} fills no buffer the loop at {second_head:#x} reads"
        )
    buffer_stores = list(buffers["stores"])
    arrival = run.merged(first["exited"])
    # the count of active elements, equated by the checker with m and the last trip's (the
    # register that held m may hold something else at the second head: an end pointer)
    count = claripy.BVS("ghost_c", 64, explicit_name=True)

    # 3. one trip of the second loop, the buffer read only
    buffers["writable"], buffers["stores"] = False, []

    def second_trip(havoc):
        stores.clear()
        buffers["setup"] = True
        trip = second_head_state(claripy, angr_loop, arrival, plan2, sew, count, max(job["vlmaxes"]), havoc)
        buffers["setup"] = False
        trip.globals["iterations"], trip.globals["trips"] = 0, ()
        back = angr_loop.stop_at(second_head)
        returns, more = run.explore(project, trip, deadline, limit, back)
        stack = trip.solver.eval(trip.regs.rsp)
        if any(not stack - 0x10000 <= a < stack + 0x10000 for a in stores):
            raise angr_loop.LoopIncomplete(f"the loop at {second_head:#x} stores outside the stack")
        return (back["stopped"], returns, more), set(stores)

    second, second_returns, more = angr_loop.settled(second_trip, "the second trip")
    steps += more

    buffers["setup"] = True  # the outputs: the locations' values

    outputs = angr_loop.Outputs(claripy, z3)
    kept, kept2 = angr_loop.kept(plan), angr_loop.kept(plan2)
    outputs.locations(lambda reg: f"init_{reg}", at_head, kept)
    outputs.path("path_h0", at_head)
    outputs.returns("e", entry_returns)
    outputs.trips("t", first["stopped"], kept)
    outputs.returns("r", trip_returns)
    outputs.path("path_x", arrival)
    outputs.locations(lambda reg: f"init2_{reg}", arrival, kept2)
    outputs.trips("u", second, kept2)
    outputs.returns("v", second_returns)
    for name, _region, address in loads:
        outputs.out(f"addr_{name}", address)
    for i, (address, byte, guard) in enumerate(buffer_stores):
        outputs.out(f"store_addr{i}", address)
        outputs.out(f"store_byte{i}", byte)
        outputs.out(f"store_if{i}", guard)
    for name, address in buffers["loads"]:
        outputs.out(f"addr_{name}", address)
    for i, address in enumerate(buffers["entries"]):
        outputs.out(f"entry{i}", address)
    (lo, _hi), *more = buffers["regions"]
    if more:
        raise angr_loop.LoopIncomplete("more than one buffer")
    plan = dict(
        plan,
        locations={r: list(v) for r, v in plan["locations"].items()},
        where=run._source_line(project, first_head),
        second={
            "head": second_head,
            "where": run._source_line(project, second_head),
            "locations": {r: list(v) for r, v in plan2["locations"].items()},
            "bound": plan2["bound"],
            "base": lo,
            "width": buffers["width"],
        },
    )
    return {
        "smt2": outputs.smt2,
        "outputs": outputs.names,
        "plan": plan,
        "loads": [[name, region] for name, region, _ in loads],
        "buffer_loads": [name for name, _ in buffers["loads"]],
        "counts": {
            "e": len(entry_returns),
            "t": len(first["stopped"]),
            "r": len(trip_returns),
            "u": len(second),
            "v": len(second_returns),
            "s": len(buffer_stores),
            "entries": len(buffers["entries"]),
        },
        "steps": steps,
        "seconds": 0.0,
    }
