"""A unit's loop over the elements for every n, by induction: the angr side (angr_run.py's job
`unit_loop`; run by angr's interpreter, imports nothing of vredmax).

1. Mining (a guess, checked later): the unit run with n = MINE_N (6) on symbolic elements and flags,
   its states merged per (trips, address); the loop head is the one target of back edges, and
   each general register's value at the head after k trips is classified: affine in k (an
   index, a pointer, a count), or a running value over the elements visited so far
   (V_k = [0, s*k) forward or [n - s*k, n) backward, s elements a trip): with A_k "some visited
   element is active" and X_k "the maximum of the active visited ones",
   - "max": the low SEW bits are A ? smax(init, X) : init (the running maximum from a seed);
   - "first": A ? X : init (a maximum kept apart, with a found flag);
   - "flag": A ? 1 : init (the found flag);
   else it is havocked (a fresh value at the head: an over-approximation).
2. The entry run, n symbolic (every VLMAX the domain allows), to the first arrival at the head.
3. One trip: a state at the head whose registers are those templates over symbolic k, A and X
   (flags, vector registers and every stack byte the trip writes havocked), run until it is back
   at the head or returns.
Memory of the inputs is two arrays of the solver: every load whose address lies in the
elements' or the flags' region (a symbolic address included) is fresh bytes, each recorded with
its address; the checker (symbolic.py: prove_unit_loop) states them equal to the arrays and
proves entry, trip and exit. Nothing here decides a verdict.
"""

from __future__ import annotations

import itertools
import math

ELEMENTS, ACTIVE, END = 0x10000000, 0x20000000, 0x30000000
MINE_N = 6  # three trips of a loop taking two elements a trip
GPRS = ("rax", "rbx", "rcx", "rdx", "rsi", "rdi", "rbp", "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15")
# the back edges a path from the loop's entry or head may take before it is at the head again:
# a loop inside the trip (an element's bytes, up to 8 a trip, two elements a trip) and margin
MAX_BACK = 20
FRAME_SLOTS = 32  # the 8-byte stack slots above the stack pointer at the head that are locations too
FRAME_FILL = 0x10000  # the bytes below the entry's stack pointer the mining run's states share
STACK_FILL = 1 << 24  # the bytes below it whose first reads the mining run's states share too


def locations(state) -> list[str]:
    """The general registers, and the stack slots `sp0`, `sp8`, ... of the frame (a value the
    compiler keeps in memory, as at -O0 or under register pressure)."""
    frame = state.globals["entry_sp"] - state.solver.eval(state.regs.rsp)  # the return address and below
    return list(GPRS) + [f"sp{8 * k}" for k in range(min(frame // 8, FRAME_SLOTS))]


def fill_frame(claripy, state) -> None:
    """The stack below the entry's pointer (FRAME_FILL bytes) as named values every state of the
    mining run shares. angr fills memory read before it is written afresh in each state that
    reads it, so a slot the code writes only half of (an `int` flag of an inlined memcpy's size
    beside 4 bytes never written) differed at every trip, was havocked, and the trip lost the
    flag (g11203_3_s: the element's copy skipped, the running maximum refuted); with one value
    for all states such a slot is constant."""
    top = state.globals["entry_sp"]
    for address in range(top - FRAME_FILL, top, 8):
        name = f"m_stack{address:x}"
        state.memory.store(address, claripy.BVS(name, 64, explicit_name=True), endness="Iend_LE")

    # a frame deeper than that (a stack buffer of 65536 entries puts the slots below it:
    # g31031_7_u) is named on its first read, one name per address and size for every state:
    # the 4 bytes never written beside a spilled 32-bit `sew` were fresh at each trip, the slot
    # havocked, and the first loop's return (the seed folded with the minimum) lost `sew`.
    # Only the guess changes: the induction proves or havocks what it finds there.
    class SharedStack(type(state.memory)):
        def _default_value(self, addr, size, **kwargs):
            if isinstance(addr, int) and top - STACK_FILL <= addr < top:
                return claripy.BVS(f"m_stack{addr:x}_{size}", 8 * size, explicit_name=True)
            return super()._default_value(addr, size, **kwargs)

    state.memory.__class__ = SharedStack


def value_of(state, location: str):
    if location.startswith("sp"):
        return state.memory.load(state.regs.rsp + int(location[2:]), 8, endness="Iend_LE")
    return getattr(state.regs, location)


def set_value(state, location: str, value) -> None:
    if location.startswith("sp"):
        state.memory.store(state.regs.rsp + int(location[2:]), value, endness="Iend_LE")
    else:
        setattr(state.regs, location, value)


def slot_bytes(state, plan) -> set:
    """The addresses of the stack slots the plan sets (no havoc needed there)."""
    sp = state.solver.eval(state.regs.rsp)
    return {sp + int(loc[2:]) + b for loc in plan["locations"] if loc.startswith("sp") for b in range(8)}


_names = itertools.count()


class LoopIncomplete(Exception):
    pass


def stop_at(head: int, exits=(), max_back: int = MAX_BACK) -> dict:
    """The bookkeeping of an explore() that stops its paths at `head` (and at `exits`, kept apart)."""
    return {
        "stop_at": head,
        "stopped": [],
        "heads": {head, *exits},
        "exits": set(exits),
        "exited": [],
        "max_back": max_back,
        "too_long": LoopIncomplete,
    }


def settled(one_trip, what: str = "the trip"):
    """A trip run with every stack byte it writes havocked at its start: `one_trip(havoc)` runs it
    with those bytes havocked and returns (its result, the stack bytes it wrote that the plan's
    slots do not hold); run again once with what it wrote (the frame is the same each trip, so a
    second run writes nothing new unless the trip is not one)."""
    havoc: set = set()
    for _ in range(2):
        result, written = one_trip(havoc)
        if written <= havoc:
            return result
        havoc |= written
    raise LoopIncomplete(f"{what}'s stack writes did not settle")


class Outputs:
    """What a child hands the checker: named constants of z3, each equated to one of angr's
    values, as one SMT-LIB text (`smt2`) and the list of names (`names`)."""

    def __init__(self, claripy, z3):
        self._claripy, self._z3 = claripy, z3
        self._backend = claripy.backends.z3
        self._solver = z3.Solver()
        self.names: list[str] = []

    def out(self, name: str, value) -> None:
        z3 = self._z3
        term = self._backend.convert(value)
        constant = z3.Bool(name) if isinstance(term, z3.BoolRef) else z3.BitVec(name, term.size())
        self._solver.add(constant == term)
        self.names.append(name)

    def path(self, name: str, final) -> None:
        """The path condition of a state that finished (its constraints, all of them)."""
        constraints = final.solver.constraints
        self.out(name, self._claripy.And(*constraints) if constraints else self._claripy.true())

    def locations(self, name_of, final, kept) -> None:
        """Each kept location's value in `final`, named `name_of(location)`."""
        for location in kept:
            self.out(name_of(location), value_of(final, location))

    def returns(self, tag: str, states) -> None:
        """Each state's return value and path: `ret_{tag}{i}`, `path_{tag}{i}`."""
        for i, final in enumerate(states):
            self.out(f"ret_{tag}{i}", final.regs.rax)
            self.path(f"path_{tag}{i}", final)

    def trips(self, tag: str, states, kept) -> None:
        """Each state back at a head: its kept locations `{loc}_{tag}{i}` and path `path_{tag}{i}`."""
        for i, final in enumerate(states):
            self.locations(lambda location, i=i: f"{location}_{tag}{i}", final, kept)
            self.path(f"path_{tag}{i}", final)

    @property
    def smt2(self) -> str:
        return self._solver.to_smt2()


def kept(plan) -> list[str]:
    """The locations a plan describes (the rest are havocked)."""
    return [location for location, (kind, _) in plan["locations"].items() if kind != "havoc"]


def _memory_class(DefaultMemory, claripy, loads: list, stores: list, Incomplete):
    class InputArrays(DefaultMemory):
        """Loads from the input regions are fresh bytes with their addresses recorded; stores are
        recorded (the trip's havoc), and a store into the inputs or at a symbolic address stops."""

        def _region(self, addr):
            if not isinstance(addr, int) and not addr.symbolic:
                addr = addr.concrete_value
            if isinstance(addr, int):
                return "e" if ELEMENTS <= addr < ACTIVE else "a" if ACTIVE <= addr < END else None
            solver = self.state.solver
            outside = solver.satisfiable(
                extra_constraints=[claripy.Or(claripy.ULT(addr, ELEMENTS), claripy.UGE(addr, END))]
            )
            if not outside:
                inside_e = solver.satisfiable(extra_constraints=[claripy.ULT(addr, ACTIVE)])
                inside_a = solver.satisfiable(extra_constraints=[claripy.UGE(addr, ACTIVE)])
                if inside_e != inside_a:
                    return "e" if inside_e else "a"
            elif not solver.satisfiable(
                extra_constraints=[claripy.UGE(addr, ELEMENTS), claripy.ULT(addr, END)]
            ):
                return None
            raise Incomplete(
                f"a load at {self.state.addr:#x} whose address may or may not be an input's "
                f"(a symbolic address the loop invariant does not bound)"
            )

        def load(self, addr, size=None, **kwargs):
            region = self._region(addr)
            if region is None:
                return super().load(addr, size=size, **kwargs)
            if not isinstance(size, int):
                if size is None or size.symbolic:
                    raise Incomplete(f"a load of a symbolic size at {self.state.addr:#x}")
                size = size.concrete_value
            parts = []
            for b in range(size):
                name = f"ld{next(_names)}"
                loads.append((name, region, addr + b))
                parts.append(claripy.BVS(name, 8, explicit_name=True))
            value = claripy.Concat(*(reversed(parts) if kwargs.get("endness") == "Iend_LE" else parts))
            if kwargs.get("condition") is not None and kwargs.get("fallback") is not None:
                value = claripy.If(kwargs["condition"], value, kwargs["fallback"])
            return value

        def store(self, addr, data, size=None, **kwargs):
            if not isinstance(addr, int):
                if addr.symbolic:
                    raise Incomplete(f"a store at a symbolic address at {self.state.addr:#x} inside the loop")
                addr = addr.concrete_value
            if ELEMENTS <= addr < END:
                raise Incomplete(f"a store into the inputs at {self.state.addr:#x}")
            width = (
                size
                if isinstance(size, int)
                else (
                    size.concrete_value
                    if size is not None and not size.symbolic
                    else len(data) // 8
                    if hasattr(data, "__len__")
                    else 8
                )
            )
            stores.extend(range(addr, addr + width))
            return super().store(addr, data, size=size, **kwargs)

    return InputArrays


def _fold(claripy, any_before, best, pairs):
    """(A, X) after the (flag, element) pairs: A: some flag set; X: the signed maximum of the
    elements whose flag is set (meaningful when A)."""
    for flag, element in pairs:
        on = flag != 0
        best = claripy.If(
            on, claripy.If(any_before, claripy.If(claripy.SGT(element, best), element, best), element), best
        )
        any_before = claripy.Or(any_before, on)
    return any_before, best


def _template(claripy, kind, a, x, init_low, init):
    if kind == "max":
        return claripy.If(a, claripy.If(claripy.SGT(x, init_low), x, init_low), init_low)
    if kind == "first":
        return claripy.If(a, x, init_low)
    return claripy.If(a, claripy.BVV(1, 64), init)  # flag


def _extend(claripy, rep, low, sew, fresh_high=None):
    if sew == 64 or rep == "full":
        return low
    if rep == "sext":
        return claripy.SignExt(64 - sew, low)
    if rep == "zext":
        return claripy.ZeroExt(64 - sew, low)
    return claripy.Concat(fresh_high, low)


def mining_runs(explore, project, state, deadline: float, limit: int, too_many=(), probe=None) -> dict:
    """The mining run's states by address and trip (angr_run.explore's `loop`), from state.
    Once to find the back edges' targets, again with a block ending at each (VEX runs a block
    through a loop head reached by falling through: its first arrival is no state). When the
    paths of a trip do not meet at the first block of the library reached more than twice (the
    head of the first loop run: paths that jumped back a different number of times within a
    trip, an inactive element skipping an inlined memcpy's blocks laid out before the head,
    are counted apart), a third time with the trips counted at that head. When the first run
    has more paths than `limit` at once (`too_many`, explore's error: the back edges of a trip
    differ so much that its paths never meet, a block of the loop laid out after it jumping
    back in for an active element only), the back edges and that head are found by a run of
    `probe` (the state with concrete flags that alternate: every kind of trip, one path each;
    constraints would not do, angr's lazy solving keeps both sides of a branch) and the trips
    counted there at once."""
    found: dict = {"seen": {}}
    try:
        explore(project, state.copy(), deadline, limit, found)
    except too_many:
        if probe is None:
            raise
        return _counted_at_first_head(explore, project, probe, state, deadline, limit)
    backs = set(found.get("backs", ()))
    seen: dict = {"seen": {}, "heads": backs}
    explore(project, state.copy(), deadline, limit, seen)
    head = _first_head(project, seen)
    if head is not None and (
        any(len(states) > 1 for states in seen["seen"][head].values())
        or (probe is not None and _uneven_trips(explore, project, probe, backs, head, deadline, limit))
    ):
        seen = {"seen": {}, "heads": backs | {head}, "count_at": head}
        explore(project, state, deadline, limit, seen)
    return seen


def own_code(project, address: int) -> bool:
    """Whether the block at address is the library's own code: not another object's, nor a PLT
    stub (reached at each call of memcpy, from the elements' loop and after it)."""
    main = project.loader.main_object
    if not main.contains_addr(address):
        return False
    section = main.find_section_containing(address)
    return section is None or not section.name.startswith(".plt")


def _first_head(project, seen: dict):
    """The first block of the library the run reached more than twice (the first loop's head)."""
    for address, by_count in seen["seen"].items():
        if own_code(project, address) and sum(map(len, by_count.values())) > 2:
            return address
    return None


def _uneven_trips(explore, project, probe, backs, head, deadline: float, limit: int) -> bool:
    """Whether the probe's one path arrives at the head after back-edge counts that do not go up
    by one a trip: its kinds of trip jump back a different number of times (a block laid out
    after the loop jumping back in for an active element), and the paths of different trips
    would be merged by their counts."""
    seen: dict = {"seen": {}, "heads": backs}
    explore(project, probe.copy(), deadline, limit, seen)
    counts = sorted(seen["seen"].get(head, {}))
    return bool(counts) and counts != list(range(counts[0], counts[0] + len(counts)))


def _counted_at_first_head(explore, project, probe, state, deadline: float, limit: int) -> dict:
    found: dict = {"seen": {}}
    explore(project, probe.copy(), deadline, limit, found)
    backs = set(found.get("backs", ()))
    seen: dict = {"seen": {}, "heads": backs}
    explore(project, probe, deadline, limit, seen)
    head = _first_head(project, seen)
    if head is None:
        return seen
    seen = {"seen": {}, "heads": backs | {head}, "count_at": head}
    explore(project, state, deadline, limit, seen)
    return seen


def candidate_heads(project, seen: dict, backs) -> tuple[dict, list[str]]:
    """The blocks of the mining run a loop's invariant may be stated at, in the order the run
    first reached them (address -> {trips: state}), and why a back edge's target is not one.
    The first block of a loop reached is its natural head, before anything of a trip is done:
    the target of a back edge may lie inside a trip (a rotated loop entered at its test, the
    body's blocks laid out before the update, a helper's code after its call), where a value
    read for the element being processed lives in a register the templates do not describe.
    Only blocks of the library's own code with one (merged) state at each trip count."""
    heads, unmerged = {}, []
    for address, by_count in seen.items():
        if not own_code(project, address):
            continue  # a procedure's stub (memcpy): its states belong to several call sites
        if any(len(states) != 1 for states in by_count.values()):
            if address in backs:  # a loop inside another (its count starts again each trip)
                unmerged.append(
                    f"{sum(len(s) for s in by_count.values())} unmerged states at the loop head {address:#x}"
                )
            continue
        heads[address] = {count: states[0] for count, states in by_count.items()}
    return heads, unmerged


def mine(claripy, heads: dict, sew: int, elements, flags, why: list, deadline: float, havoc=(), counts=False):
    """The plans that fit, one per candidate loop head in the order given, from the merged
    head states of the mining run (`heads`: head address -> {trips: state}): the loop head and
    its locations' classes; made one at a time (each costs sampling). Why a candidate does
    not fit goes to `why`. `havoc`: "head:location" names the checker found the guess too
    strong at (havocked, as if no template fitted them)."""
    import time

    for head, seen in heads.items():
        if len(seen) <= 2:  # a block seen once or twice (before or after the loop) is no head
            continue
        if time.monotonic() > deadline:
            raise LoopIncomplete("time limit (mining the loop's invariant)")
        try:
            yield _mine_head(claripy, head, seen, sew, elements, flags, set(havoc), counts)
        except LoopIncomplete as failed:
            why.append(str(failed))


def candidate_loops(heads: dict) -> list:
    """The candidate heads reached more than twice (a block seen once or twice is no head)."""
    return [h for h, seen in heads.items() if len(seen) > 2]


def tried(failures: list, why: list) -> str:
    """Why no candidate head proved: the plans' failures first (at most three said)."""
    said = failures or why or ["no loop over the elements was seen"]
    more = f"; and {len(said) - 3} more" if len(said) > 3 else ""
    return "; ".join(said[:3]) + more


def head_states(head, seen) -> list:
    """The mining run's states at a loop head, one per trip 0, 1, 2, ... (at least three)."""
    by_trip = {t - min(seen): state for t, state in seen.items()}  # back edges before the loop count too
    step = math.gcd(*by_trip)
    if step > 1:  # each trip jumps back more than once (a block of the body laid out before the head)
        by_trip = {t // step: state for t, state in by_trip.items()}
    trips = sorted(by_trip)
    if trips != list(range(len(trips))) or len(trips) < 3:
        raise LoopIncomplete(f"the loop at {head:#x} was seen after trips {trips}")
    return [by_trip[k] for k in trips]


def _mine_head(claripy, head, seen, sew, elements, flags, havoc: set, counts=False) -> dict:
    """The plan of the loop at `head`. With `counts` (the first of two loops,
    angr_two_loops.py), a plan whose locations count the active elements visited (`m` of
    `buf[m++] = x`) fits too, and the running maximum may be left to the second loop."""
    states = head_states(head, seen)
    trips = list(range(len(states)))
    n = len(elements)
    for stride in (1, 2):
        for direction in ("forward", "backward"):
            if (len(trips) - 1) * stride > n:
                continue
            ghosts = []
            for k in trips:
                states[k].globals["visited"] = stride * k
                visited = range(stride * k) if direction == "forward" else range(n - stride * k, n)
                ghosts.append(
                    _fold(
                        claripy,
                        claripy.false(),
                        claripy.BVV(0, sew),
                        [(flags[j], elements[j]) for j in visited],
                    )
                )
            locations = {
                r: ("havoc", None) if f"{head:#x}:{r}" in havoc else found
                for r, found in _classify(claripy, states, ghosts, sew, counts).items()
            }
            wanted = ("max", "first", "count") if counts else ("max", "first")
            if any(kind in wanted for kind, _ in locations.values()):
                bound = "lt" if all(stride * k < n for k in trips) else "le"
                return {
                    "head": head,
                    "stride": stride,
                    "direction": direction,
                    "bound": bound,
                    "locations": locations,
                    # the back edges the run took to its first arrival (the entry run's budget)
                    "arrival_backs": states[0].globals.get("iterations", 0),
                }
    raise LoopIncomplete(
        f"no register of the loop at {head:#x} holds a running maximum the invariant templates describe"
    )


SAMPLES = 12  # the random inputs a mined guess is tried on
SAMPLE_ATTEMPTS = 8 * SAMPLES  # inputs drawn before the solver decides (one draw: milliseconds)


def _valid(claripy, state, claim) -> bool:
    """Whether `claim` looks valid at this mining state: it holds on SAMPLES random inputs the
    state's constraints allow. A guess only (the induction proves it or nothing is proved):
    the solver's validity query on a running maximum after k trips grew with k (two minutes
    at k = 3 for a branch-free select), one evaluation each input does not. When too few
    random inputs satisfy the constraints, the solver decides."""
    import random

    import z3

    backend = claripy.backends.z3
    term = backend.convert(claim)
    constraints = [backend.convert(c) for c in state.solver.constraints]
    leaves = {}
    for ast in [claim, *state.solver.constraints]:
        for leaf in ast.leaf_asts():
            if leaf.op == "BVS":
                leaves[leaf.args[0]] = leaf.size()
    rng = random.Random(len(leaves))
    satisfied = 0
    for attempt in range(SAMPLE_ATTEMPTS):
        pairs = []
        # the share of active flags drawn afresh each input: a mining state after j trips of a
        # loop over the active elements only (a compacted buffer) needs at least j of them, which
        # fair coins rarely give (and then the solver decided, a second or more each)
        active = rng.random() if attempt % 2 else 0.5
        for name, size in sorted(leaves.items()):
            if name.startswith("m_a"):  # a flag: 0 or 1 by the domain
                value = int(rng.random() < active)
            else:
                value = rng.choice((0, 1, (1 << size) - 1, 1 << (size - 1), rng.getrandbits(size)))
            pairs.append((z3.BitVec(name, size), z3.BitVecVal(value, size)))
        if not all(z3.is_true(z3.simplify(z3.substitute(c, *pairs))) for c in constraints):
            continue
        if not z3.is_true(z3.simplify(z3.substitute(term, *pairs))):
            return False
        satisfied += 1
        if satisfied == SAMPLES:
            return True
    return not state.solver.satisfiable(extra_constraints=[claripy.Not(claim)])


def _classify(claripy, states, ghosts, sew, counts=False, running=None):
    """Each location's class at the mined head states: affine in the trips, else `running`'s
    (by default a running value over the ghosts, or with `counts` a count of the active
    elements visited)."""
    found = {}
    for reg in locations(states[0]):
        values = [value_of(s, reg) for s in states]
        if all(not v.symbolic for v in values):
            step = (values[1].concrete_value - values[0].concrete_value) % (1 << 64)
            if all(
                (v.concrete_value - values[0].concrete_value) % (1 << 64) == k * step % (1 << 64)
                for k, v in enumerate(values)
            ):
                found[reg] = ("affine", step)
            continue
        if all(v is values[0] or _valid(claripy, s, v == values[0]) for s, v in zip(states, values)):
            found[reg] = ("affine", 0)
            continue
        if running is not None:
            found[reg] = running(states, values)
        else:
            found[reg] = _running(claripy, states, ghosts, values, sew)
            if counts and found[reg][0] == "havoc" and _counts(claripy, states, ghosts, values):
                found[reg] = ("count", None)
    return found


def count_claim(claripy, value, visited, a):
    """`value` counts the active elements among `visited` ones (bounded by it; 0 exactly when
    none is active): what `m` of `buf[m++] = x` is after the visited elements."""
    return claripy.And(claripy.ULE(value, visited), (value == 0) == claripy.Not(a))


def _counts(claripy, states, ghosts, values) -> bool:
    return all(
        _valid(claripy, s, count_claim(claripy, v, s.globals["visited"], a))
        for s, v, (a, _) in zip(states, values, ghosts)
    )


def _running(claripy, states, ghosts, values, sew):
    init = values[0]
    init_low = init[sew - 1 : 0]
    for kind in ("max", "first", "flag"):
        for rep in ("full",) if kind == "flag" else ("sext", "zext", "low"):

            def claim(state, value, a, x):
                if kind == "flag":
                    return value == _template(claripy, kind, a, x, init_low, init)
                want = _template(claripy, kind, a, x, init_low, init)
                if rep == "low" or sew == 64:
                    return value[sew - 1 : 0] == want
                return value == _extend(claripy, rep, want, sew)

            if all(_valid(claripy, s, claim(s, v, a, x)) for s, v, (a, x) in zip(states, values, ghosts)):
                return (kind, rep)
    return ("havoc", None)


def head_state(claripy, entry_state, plan: dict, sew: int, n, havoc_bytes, tag: str = ""):
    """The state at the head after k trips, for symbolic k, A and X: the plan's templates over
    the entry's values (`init`), everything else of the registers and the written stack fresh.
    `tag` marks the names of a second loop's (angr_packed.py): its ghosts and fresh values are
    not the first loop's."""
    state = entry_state.copy()
    k = claripy.BVS(f"ghost{tag}_k", 64, explicit_name=True)
    a = claripy.BVS(f"ghost{tag}_a", 1, explicit_name=True) == 1
    x = claripy.BVS(f"ghost{tag}_x", sew, explicit_name=True)
    for reg, (kind, extra) in plan["locations"].items():
        init = value_of(entry_state, reg)
        if kind == "affine":
            value = init + k * extra
        elif kind == "havoc":
            value = claripy.BVS(f"havoc{tag}_{reg}", 64, explicit_name=True)  # a fresh value each
        elif kind == "count":
            value = claripy.BVS(f"ghost{tag}_m", 64, explicit_name=True)
            state.solver.add(count_claim(claripy, value, k * plan["stride"], a))
        elif kind == "flag":
            value = _template(claripy, kind, a, x, init[sew - 1 : 0], init)
        else:
            value = _extend(
                claripy,
                extra,
                _template(claripy, kind, a, x, init[sew - 1 : 0], init),
                sew,
                claripy.BVS(f"high{tag}_{reg}", 64 - sew, explicit_name=True) if sew < 64 else None,
            )
        set_value(state, reg, value)
    state.regs.cc_op = 0  # flags: a copy of a fresh value (every combination)
    state.regs.cc_dep1 = claripy.BVS(f"havoc{tag}_flags", 64, explicit_name=True)
    state.regs.cc_dep2 = 0
    state.regs.cc_ndep = 0
    for r in range(16):
        setattr(state.regs, f"ymm{r}", claripy.BVS(f"havoc{tag}_ymm{r}", 256, explicit_name=True))
    for address in sorted(set(havoc_bytes) - slot_bytes(state, plan)):
        state.memory.store(address, claripy.BVS(f"havoc{tag}_m{address:x}", 8, explicit_name=True))
    state.solver.add(bound(claripy, plan, k, n))
    return state, k, a, x


def bound(claripy, plan, k, n):
    visited = k * plan["stride"]
    # no wrap: k is at most n (the domain bounds n by 2^16)
    small = claripy.ULE(k, n)
    return claripy.And(small, claripy.ULT(visited, n) if plan["bound"] == "lt" else claripy.ULE(visited, n))
