"""A step's loop over the elements for every vl, by induction: the angr side (angr_run.py's job
`step_loop`; run by angr's interpreter, imports nothing of vredmax).

The unit's method (angr_loop.py) on a whole step, one instruction word and one SEW at a time,
the step's other inputs symbolic over the configurations of the job's domain (every LMUL whose
VLMAX the bounded method does not reach):

1. Mining: the step at one configuration (vtype concrete, vl = MINE_N) on the symbolic register
   file; the elements are vs2's group's, a flag is vm or v0's bit; angr_loop.mine classifies the
   registers and stack slots at each loop head.
2. The entry run, vtype, vl, vstart, VS and the registers symbolic, stopped at the loop head's
   first arrival; the paths that return before it (a trap, vl = 0) are outputs as a bounded
   step's are.
3. One trip from the head state of angr_loop.head_state (n = vl): the paths back at the head
   give the locations and the register file and CSR fields (the invariant says the loop leaves
   them as they were at the first arrival); the paths that return ran the rest of the step
   (vd written, the tail, VS) and give a step's outputs.
A store inside the trip outside the stack, the register file and the state fields, or at an
address that is not one value, stops it (the invariant does not describe such memory). The
checker (step_loop.py) proves the obligations; nothing here decides a verdict.
"""

from __future__ import annotations

import time

STACK_SPAN = 0x10000  # a store within this of the stack pointer at the head: the frame


def _recording_memory(DefaultMemory, claripy):
    class Recording(DefaultMemory):
        """Each path's stores in its globals (`stored`: addresses, or None for an address that is
        not one value); merged states get the union (angr_run.merged)."""

        def store(self, addr, data, size=None, **kwargs):
            values = (
                [addr] if isinstance(addr, int) or not addr.symbolic else self.state.solver.eval_upto(addr, 2)
            )
            if len(values) != 1:
                self.state.globals["stored"] = self.state.globals.get("stored", frozenset()) | {None}
            else:
                # a term the path allows one value of (`buf + size` with the size fixed by the
                # path: an inlined memcpy of min(left, 8) bytes) is that address
                start = values[0] if isinstance(values[0], int) else values[0].concrete_value
                if isinstance(size, int):
                    width = size
                elif size is not None and not size.symbolic:
                    width = size.concrete_value
                elif hasattr(data, "size"):
                    width = data.size() // 8
                else:
                    width = 8
                self.state.globals["stored"] = self.state.globals.get("stored", frozenset()) | set(
                    range(start, start + max(width, 1))
                )
            return super().store(addr, data, size=size, **kwargs)

    return Recording


def _explore(run, phase: str, *args):
    """run.explore, its incompleteness naming the phase."""
    try:
        return run.explore(*args)
    except run.Incomplete as why:
        raise run.Incomplete(f"{phase}: {why}") from None


def run_step_loop(job: dict, run) -> dict:
    """`run`: the angr_run module (its explore, merged, step state and outputs)."""
    import angr

    import angr_loop

    try:
        return _run(job, run)
    except angr_loop.LoopIncomplete as why:
        project = run._project(angr, job["library"])
        raise run.Incomplete(run._with_lines(project, str(why))) from None


def _elements(claripy, job: dict, count: int):
    """vs2's group's first `count` elements and their flags (8 bits, 0 or 1), over the register
    names of the step state."""
    vlen, sew, vs2 = job["vlen"], job["sew"], job["vs2"]
    registers = [
        claripy.BVS(f"v{r}", vlen, explicit_name=True) for r in range(vs2, min(32, vs2 + job["group"]))
    ]
    group = claripy.Concat(*reversed(registers)) if len(registers) > 1 else registers[0]
    v0 = claripy.BVS("v0", vlen, explicit_name=True)
    elements = [group[(j + 1) * sew - 1 : j * sew] for j in range(count)]
    flags = [claripy.BVV(1, 8) if job["vm"] else claripy.ZeroExt(7, v0[j:j]) for j in range(count)]
    return elements, flags


def _run(job: dict, run) -> dict:
    import angr
    import claripy

    import angr_loop

    run._one_byte_order(claripy)
    run._merges_recorded()
    start_time = time.monotonic()
    deadline = start_time + job["timeout_s"]
    project = run._project(angr, job["library"])
    add, remove = run._options(angr, False)  # branches pruned: the domain fixes the SEW
    sew, limit = job["sew"], job.get("limit_states", 64)

    # 1. mining at one configuration, vl = MINE_N
    n0 = angr_loop.MINE_N
    state = run._step_state(
        project,
        job,
        add,
        remove,
        {"vtype": job["mine_vtype"], "vl": n0, "vstart": 0, "vs": 3, "elen": job["mine_elen"]},
    )
    state.globals["entry_sp"] = state.solver.eval(state.regs.rsp)
    angr_loop.fill_frame(claripy, state)
    run._address_strategies(state)
    elements, flags = _elements(claripy, job, n0)
    seen = angr_loop.mining_runs(
        lambda *args: _explore(run, "mining", *args), project, state, deadline, limit
    )
    heads, unmerged = angr_loop.candidate_heads(project, seen["seen"], seen.get("backs", ()))
    failures: list = []
    why: list = []
    try:
        for plan in angr_loop.mine(claripy, heads, sew, elements, flags, why, deadline, job.get("havoc", ())):
            try:
                return _proof(job, run, project, add, remove, plan, start_time, deadline)
            except (angr_loop.LoopIncomplete, run.Incomplete) as failed:
                if str(failed).endswith("time limit"):
                    raise
                failures.append(f"{plan['head']:#x}: {failed}")
    except angr_loop.LoopIncomplete as failed:
        failures.append(str(failed))
    raise angr_loop.LoopIncomplete(angr_loop.tried(failures, why + unmerged))


def _proof(job, run, project, add, remove, plan, start_time, deadline) -> dict:
    import claripy
    import z3
    from angr.storage.memory_mixins import DefaultMemory

    import angr_loop

    sew, head, limit = job["sew"], plan["head"], job.get("limit_states", 64)
    # the paths after the loop's exit may run loops of their own (the tail, vd's bytes)
    max_back = angr_loop.MAX_BACK + 2 * job["vlen"] + 64

    # 2. the entry run, every input of the domain, to the head's first arrival
    state = run._step_state(project, job, add, remove)
    state.memory.__class__ = _recording_memory(DefaultMemory, claripy)
    for condition in run._claripy_of(job["domain"], claripy, z3):
        state.solver.add(condition)
    state.globals["entry_sp"] = state.solver.eval(state.regs.rsp)
    run._address_strategies(state)
    # about as many back edges as the mining run took to the first arrival, and a register's
    # bytes: a path running the loop past a head some trips skip (a block only an active
    # element runs) stops here, not after vl trips
    stop = angr_loop.stop_at(
        head, max_back=plan.get("arrival_backs", 0) + angr_loop.MAX_BACK + job["vlen"] // 8
    )
    entry_returns, steps = _explore(run, "the entry run", project, state, deadline, limit, stop)
    if not stop["stopped"]:
        raise angr_loop.LoopIncomplete(f"no path of the domain reaches the loop head {head:#x}")
    at_head = run.merged(stop["stopped"])
    at_head.globals["stored"] = frozenset()
    vl = claripy.BVS("vl", 64, explicit_name=True)

    # 3. one trip from the head after k trips
    def one_trip(havoc):
        trip, _, _, _ = angr_loop.head_state(claripy, at_head, plan, sew, vl, havoc)
        trip.globals["iterations"] = 0
        trip.globals["trips"] = ()
        trip.globals["stored"] = frozenset()
        back = angr_loop.stop_at(head, max_back=max_back)
        returns, more = _explore(run, "the trip", project, trip, deadline, limit, back)
        stack = trip.solver.eval(trip.regs.rsp)
        if any(f.regs.rsp.symbolic or f.solver.eval(f.regs.rsp) != stack for f in back["stopped"]):
            raise angr_loop.LoopIncomplete(f"a trip of the loop at {head:#x} moves the stack pointer")
        stored = set().union(*(f.globals.get("stored", frozenset()) for f in back["stopped"]))
        if None in stored:
            raise angr_loop.LoopIncomplete(
                f"the loop at {head:#x} stores at an address that is not one value (memory the invariant does not describe)"
            )
        described = range(run.STATE, run.STATE + 48), range(run.VREGS, run.VREGS + 32 * job["vlen"] // 8)
        outside = [
            a
            for a in stored
            if not stack - STACK_SPAN <= a < stack + STACK_SPAN and not any(a in r for r in described)
        ]
        if outside:
            raise angr_loop.LoopIncomplete(
                f"the loop stores at {min(outside):#x} (memory other than the stack and the "
                "register file: a buffer the invariant does not describe)"
            )
        written = {a for a in stored if stack - STACK_SPAN <= a < stack + STACK_SPAN}
        return (back["stopped"], returns, more), written - angr_loop.slot_bytes(trip, plan)

    back_at_head, trip_returns, more = angr_loop.settled(one_trip)
    steps += more

    outputs = angr_loop.Outputs(claripy, z3)

    def memory(prefix, final, with_return=False):
        """The state fields and registers a path leaves (and its return value)."""
        for name, value in run._outputs(job, final)[0 if with_return else 1 :]:
            outputs.out(f"{prefix}{name}", value)

    kept = angr_loop.kept(plan)
    outputs.locations(lambda reg: f"init_{reg}", at_head, kept)
    outputs.path("path_h0", at_head)
    memory("h_", at_head)
    for i, final in enumerate(entry_returns):
        memory(f"e{i}_", final, with_return=True)
        outputs.path(f"path_e{i}", final)
    outputs.trips("t", back_at_head, kept)
    for i, final in enumerate(back_at_head):
        memory(f"t{i}_", final)
    for i, final in enumerate(trip_returns):
        memory(f"r{i}_", final, with_return=True)
        outputs.path(f"path_r{i}", final)
    plan = dict(
        plan,
        locations={r: list(v) for r, v in plan["locations"].items()},
        where=run._source_line(project, head),
    )
    return {
        "smt2": outputs.smt2,
        "outputs": outputs.names,
        "plan": plan,
        "counts": {"e": len(entry_returns), "t": len(back_at_head), "r": len(trip_returns)},
        "steps": steps,
        "seconds": time.monotonic() - start_time,
    }
