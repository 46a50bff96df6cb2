"""Symbolic execution of the compiled library with angr: run by the angr interpreter, alone.

angr's claripy pins z3-solver 4.13 while vredmax needs 5.4, so angr lives in an environment
of its own (README, check-c) and this script imports nothing of vredmax: it reads a job as
JSON on stdin and writes the result as JSON on stdout. The outputs (the return value, and for
a step the post-state) and the path condition go back as SMT-LIB 2 text (z3's printer, with
let-sharing), which the checker reads with its own solvers.

Exploration merges states: the states are stepped in order of (loop iterations taken, address),
so the two sides of a branch inside a loop body (an inactive lane, a smaller element) meet at
their join point before either goes on, and are merged there into one state with if-then-else
values. A reduction over n elements is then n iterations of one state, not 2^n paths.
Every way a path can be lost (an error, a jump to an unknown address, the time limit, an
address angr had to pin to one value) is reported, and the checker also proves that the
surviving paths' conditions cover every input of the domain.
"""

from __future__ import annotations

import json
import logging
import sys
import time

UNIT_ELEMENTS, UNIT_ACTIVE = 0x10000000, 0x20000000
STATE, VREGS = 0x30000000, 0x40000000
NUM_VREGS = 32
ADDRESS_SOLUTIONS = 256
# back edges a path of a loop job takes before each further one asks the solver whether the path is feasible:
# angr's lazy solving does not, and a loop whose trip count was merged (`m` of a compacted
# buffer, an if-then-else of its values) ran on past them to the path limit
LAZY_BACKS = 8


class Incomplete(Exception):
    pass


class TooManyPaths(Incomplete):
    """More paths at once than the limit: they do not meet again."""


class _Condition:
    """A path condition in the form SimState.merge takes its merge_conditions."""

    def __init__(self, ast):
        self.ast = ast

    def to_claripy(self):
        return self.ast


def merged(states):
    """One state for several at the same point, each value an if-then-else over the states'
    own path conditions (angr's default invents a fresh merge flag, an existential the path
    condition would then need quantified)."""
    if len(states) == 1:
        return states[0]
    tables = [{c.hash(): c for c in s.solver.constraints} for s in states]
    common = set.intersection(*[set(t) for t in tables])
    conditions = [[_Condition(c) for h, c in t.items() if h not in common] for t in tables]
    if any(not c for c in conditions):
        raise Incomplete(
            f"the paths at {states[0].addr:#x} do not merge: one has no path condition of its own"
        )
    state = states[0].merge(*states[1:], merge_conditions=conditions)[0]
    stored = [s.globals["stored"] for s in states if "stored" in s.globals]
    if stored:  # the stores of every path merged (angr_step_loop.py; angr keeps the first's)
        state.globals["stored"] = frozenset().union(*stored)
    return state


def _calls(state) -> tuple:
    """The return addresses of the state's call stack: where it is, as well as its address."""
    return tuple(frame.ret_addr for frame in state.callstack)


def _key(state):
    return (state.globals.get("iterations", 0), state.addr)


def _inside(sources: dict, inner: int, outer: int) -> bool:
    """Whether the loop with head `inner` lies inside the one with head `outer` (`sources`: each
    head's farthest back-edge source seen): its code is within the outer loop's range. Two back
    edges of one loop (a `continue`) have ranges that overlap without nesting: one loop."""
    return outer < inner and sources[inner] <= sources[outer]


def _nested_key(sources: dict):
    """The order of a loop job (angr_loop.py): the trips of the outermost loops first, then
    those of the loops inside them, then the address. A trip of an outer loop resets the counts
    of the loops inside it (`_after_back_edge`), so the paths that ran an inner loop (an
    element's bytes read one at a time) and those that skipped it (an inactive element) meet
    at the outer loop's head after the same trip; one count of every back edge would keep them
    apart. The back edges of one loop count together (one level)."""

    def key(state):
        levels: dict = {}
        for head, count in state.globals.get("trips", ()):
            depth = sum(_inside(sources, head, other) for other in sources)
            levels[depth] = levels.get(depth, 0) + count
        return (tuple(levels.get(d, 0) for d in range(max(levels, default=-1) + 1)), state.addr)

    return key


def _after_back_edge(sources: dict, trips: tuple, head: int, source: int) -> tuple:
    """The loops' trip counts after a back edge from the block at `source` to `head`: that
    loop's count up, the counts of the loops inside it reset."""
    sources[head] = max(sources.get(head, source), source)
    counts = {h: c for h, c in trips if not _inside(sources, h, head)}
    counts[head] = counts.get(head, 0) + 1
    return tuple(sorted(counts.items()))


def explore(project, start, deadline: float, limit_states: int, loop: dict | None = None):
    """Step every path to the function's return, merging states at common (iterations,
    address) points; the finished states, and the number of steps taken. With `loop`
    (angr_loop.py): the states stepped are kept by (address, iterations) in loop["seen"], the
    targets of back edges in loop["backs"], and a path reaching loop["stop_at"] stops there
    (in loop["stopped"]). With loop["count_at"], a loop's head: its trips are the arrivals
    there, each resetting the counts of the back edges inside a trip (the paths of one trip
    that jumped back a different number of times, an inactive element skipping an inlined
    memcpy's blocks laid out before the head, meet there after the same trip)."""
    end = project.simos.return_deadend
    active, finished, steps = [start], [], 0
    sources: dict = {}  # each loop head seen: its farthest back-edge source
    count_at = loop.get("count_at") if loop is not None else None
    order = _key if loop is None else _nested_key(sources)
    if loop is not None and loop.get("per_head"):  # each loop's trips apart (angr_two_loops.py)

        def order(state):
            return (tuple(sorted(state.globals.get("trips", ()))), state.addr)

    if count_at is not None:
        nested = order

        def order(state):
            return (state.globals.get("visits", 0), *nested(state))

    while active:
        if time.monotonic() > deadline:
            raise Incomplete("time limit")
        if len(active) > limit_states:
            where = sorted({s.addr for s in active})
            raise TooManyPaths(
                f"more than {limit_states} paths at once: the code's paths do not meet again (they are "
                f"at {', '.join(f'{a:#x}' for a in where[:3])}{' ...' if len(where) > 3 else ''})"
            )
        active.sort(key=order)
        first, calls = order(active[0]), _calls(active[0])
        # states at one point met from different call sites (a helper, memcpy's procedure
        # called for an element inside the loop and for the seed after it) are not merged: their
        # return addresses and arguments differ
        same = [s for s in active if order(s) == first and _calls(s) == calls]
        active = [s for s in active if order(s) != first or _calls(s) != calls]
        state = same[0]
        if len(same) > 1:
            try:
                state = merged(same)
            except Exception:  # angr cannot merge these (different call stacks...): one at a time
                active += same[1:]
        if loop is not None and "seen" in loop:
            # by the trips taken (those of the loops inside this one reset at its head)
            trips = (
                state.globals.get("visits", 0)
                if count_at is not None
                else 0
                if loop.get("per_head")
                else sum(order(state)[0])
            )
            loop["seen"].setdefault(state.addr, {}).setdefault(trips, []).append(state)
        try:
            successors = state.step(extra_stop_points=loop.get("heads")) if loop else state.step()
        except Exception as error:
            # with lazy solving an infeasible path goes on until a symbolic address has no value
            # left: dropped (the coverage proof checks the paths kept cover the domain)
            if not state.satisfiable():
                continue
            raise Incomplete(
                f"{_source_line(project, state.addr)}: angr: {type(error).__name__}: {error}"
            ) from None
        steps += 1
        if successors.unconstrained_successors:
            raise Incomplete(
                f"a jump to an address that depends on the inputs at {_source_line(project, state.addr)}"
            )
        errored = getattr(successors, "errored", None)
        if errored:
            raise Incomplete(f"angr failed at {_source_line(project, state.addr)}: {errored[0].error}")
        for succ in successors.flat_successors:
            if succ.addr == end:
                finished.append(succ)
                continue
            back = succ.addr <= state.addr and succ.history.jumpkind == "Ijk_Boring"
            succ.globals["iterations"] = state.globals.get("iterations", 0) + int(back)
            if (
                loop is not None
                and back
                and succ.globals["iterations"] > LAZY_BACKS
                and not succ.satisfiable()
            ):
                continue  # lazy solving ran an infeasible path on round a loop (a count past its values)
            if loop is not None:
                if back:
                    loop.setdefault("backs", set()).add(succ.addr)
                    succ.globals["trips"] = _after_back_edge(
                        sources, state.globals.get("trips", ()), succ.addr, state.addr
                    )
                if succ.addr == count_at:
                    succ.globals["visits"] = state.globals.get("visits", 0) + 1
                    succ.globals["trips"] = ()
                if succ.globals["iterations"] > loop.get("max_back", 1 << 30):
                    raise loop["too_long"](
                        f"the path from {start.addr:#x} jumps back more than "
                        f"{loop['max_back']} times before it is at the loop head again (the loop at "
                        f"{succ.addr:#x} runs on: a second loop whose trips depend on n, which the "
                        "invariant of one loop does not describe)"
                    )
                if succ.addr == loop.get("stop_at"):
                    loop["stopped"].append(succ)
                    continue
                if succ.addr in loop.get("exits", ()):  # the head of a loop after this one
                    loop["exited"].append(succ)
                    continue
            active.append(succ)
    if loop is not None and "stop_at" in loop:
        return finished, steps
    if not finished:
        raise Incomplete("no path returns")
    return finished, steps


def _source_line(project, address: int) -> str:
    """`file.c:LINE (0x...)` from the library's debug information when it has it, else the address."""
    try:
        from elftools.dwarf.lineprogram import LineProgram  # noqa: F401  (pyelftools ships with angr)
        from elftools.elf.elffile import ELFFile

        with open(project.loader.main_object.binary, "rb") as handle:
            dwarf = ELFFile(handle).get_dwarf_info()
            offset = address - project.loader.main_object.mapped_base
            best = None
            for unit in dwarf.iter_CUs():
                program = dwarf.line_program_for_CU(unit)
                previous = None
                for entry in program.get_entries():
                    state = entry.state
                    if state is None:
                        continue
                    if previous is not None and previous.address <= offset < state.address:
                        # DWARF 5 numbers the files from 0, earlier versions from 1
                        index = previous.file - (program.header["version"] < 5)
                        best = (program["file_entry"][index].name.decode(), previous.line)
                    previous = None if state.end_sequence else state
            if best:
                return f"{best[0]}:{best[1]} ({address:#x})"
    except Exception:  # no debug information: the address alone
        pass
    return f"{address:#x}"


def _options(angr, lazy: bool):
    add = {
        angr.options.SYMBOLIC_WRITE_ADDRESSES,
        angr.options.SYMBOL_FILL_UNCONSTRAINED_MEMORY,
        angr.options.SYMBOL_FILL_UNCONSTRAINED_REGISTERS,
    }
    if lazy:
        add.add(angr.options.LAZY_SOLVES)
    # one claripy solver a state, not one per independent set of constraints: a step's branches
    # are asked under the domain's conditions, and the composite solver's many small Z3 solvers
    # (each made, translated and asserted again on every state copy) cost a quarter of its time
    # (register writes stay simplified: without it a merged pointer `If(c, p, p)` stayed symbolic
    # and a memcpy into the stack was a store at a symbolic address, u_branchless)
    return add, angr.options.unicorn | {angr.options.COMPOSITE_SOLVER}


_PROJECTS: dict = {}
MAX_COPY = 1 << 16  # the largest memcpy/memset size a path may have (bytes)


def _project(angr, library: str):
    """The library loaded once per engine process (one check runs many jobs on it)."""
    import os

    key = (library, os.stat(library).st_mtime_ns)
    if key not in _PROJECTS:
        project = angr.Project(
            library, auto_load_libs=False, load_options={"main_opts": {"base_addr": 0x400000}}
        )
        copy, fill = _byte_procedures(angr)
        for name in ("memcpy", "memmove", "__memcpy_chk", "__memmove_chk"):
            project.hook_symbol(name, copy(), replace=True)
        for name in ("memset", "__memset_chk"):
            project.hook_symbol(name, fill(), replace=True)
        _hook_rep_stores(project)
        _PROJECTS[key] = project
    return _PROJECTS[key]


WIDTHS = {"byte": 1, "word": 2, "dword": 4, "qword": 8}


def _hook_rep_stores(project) -> None:
    """Each `rep stos` of the library (an inlined memset: `uint64_t bits[1024] = {0}`) done at once
    when its count is concrete. VEX lifts it as one store a trip jumping back to itself: 1024 back
    edges, a loop that ran the loop jobs' paths past their budget of back edges."""
    import capstone
    import claripy

    def hook(width: int):
        def run(state):
            if state.regs.rcx.symbolic:
                raise Incomplete(f"a `rep stos` of a symbolic count at {state.addr:#x}")
            count = state.solver.eval(state.regs.rcx)
            if count * width > MAX_COPY:
                raise Incomplete(
                    f"a `rep stos` of {count * width} bytes at {state.addr:#x} (at most {MAX_COPY})"
                )
            if count:
                value = state.regs.rax[8 * width - 1 : 0]
                state.memory.store(state.regs.rdi, claripy.Concat(*[value] * count), endness="Iend_LE")
            state.regs.rdi = state.regs.rdi + count * width
            state.regs.rcx = 0

        return run

    main = project.loader.main_object
    disassembler = capstone.Cs(capstone.CS_ARCH_X86, capstone.CS_MODE_64)
    for section in main.sections:
        if not section.is_executable:
            continue
        code = project.loader.memory.load(section.vaddr, section.memsize)
        for insn in disassembler.disasm(code, section.vaddr):
            if insn.mnemonic.startswith("rep stos"):
                width = WIDTHS.get(insn.op_str.split(" ")[0])
                if width is None:
                    raise Incomplete(f"a `{insn.mnemonic} {insn.op_str}` at {insn.address:#x}")
                project.hook(insn.address, hook(width), length=insn.size)


def _byte_procedures(angr):
    """memcpy and memset for a size that may be symbolic (`memcpy(d, s, sew / 8)` with SEW read
    from vtype): byte k is written under the condition k < size, for every k up to the largest
    size the path allows. angr's own procedures fail there ("Not enough data for store") or pin
    the size to one value."""
    import claripy

    def largest(state, size) -> int:
        values = state.solver.eval_upto(size, 65)
        if max(values) > MAX_COPY or len(values) > 64:
            raise Incomplete(
                f"a memcpy or memset of up to {max(values)} bytes at {state.addr:#x} "
                f"(at most {MAX_COPY}, of at most 64 sizes)"
            )
        return max(values)

    def write(state, dst, data_of, size):
        top = largest(state, size)
        if top == 0:
            return
        if not state.solver.symbolic(size):
            state.memory.store(dst, claripy.Concat(*[data_of(k) for k in range(top)]))
            return
        for k in range(top):
            state.memory.store(dst + k, data_of(k), condition=claripy.UGT(size, k))

    class Copy(angr.SimProcedure):
        def run(self, dst, src, size, _limit=None):
            top = largest(self.state, size)
            loaded = [self.state.memory.load(src + k, 1) for k in range(top)]  # all read before any write
            write(self.state, dst, lambda k: loaded[k], size)
            return dst

    class Fill(angr.SimProcedure):
        def run(self, dst, value, size, _limit=None):
            byte = value[7:0]
            write(self.state, dst, lambda k: byte, size)
            return dst

    return Copy, Fill


def _one_byte_order(claripy) -> None:
    """Every memory object kept big-endian (a little-endian value stored as its byte reversal,
    the same bytes at the same addresses). angr's page merge (UltraPage.merge) joins the values
    of objects of the same base and length as they are, with the first one's byte order: a
    little-endian object merged with a big-endian one came out byte-reversed (`*sew = 64` read
    back as 0x40000000 after the paths of a legality check met). With one order there is nothing
    to get wrong."""
    from angr.storage import memory_object

    cls = memory_object.SimMemoryObject
    if getattr(cls, "_vredmax_one_order", False):
        return
    original = cls.__init__

    def __init__(self, obj, base, endness, length=None, byte_width=8):
        if endness is None:
            # the page merge stores a merged value as its bytes in memory order with no byte order
            # given (UltraPage.merge, "do not convert endianness again"), and bytes_at then read
            # such an object back reversed (it reverses whenever the order asked is not the
            # object's): a heap slot written at a symbolic index (`buf[m++] = x`) came out
            # byte-reversed after the paths met, and the solver's counterexample did not replay
            endness = "Iend_BE"
        if (
            endness == "Iend_LE"
            and isinstance(obj, claripy.ast.BV)
            and obj.symbolic
            and byte_width == 8
            and (length is None or length * 8 == obj.size())
        ):
            obj, endness = obj.reversed, "Iend_BE"
        original(self, obj, base, endness, length, byte_width)

    cls.__init__ = __init__
    cls._vredmax_one_order = True


def _merges_recorded() -> None:
    """A page merge's replaced objects recorded as written. angr finds the bytes two states may
    differ in from each page's history of writes since their common ancestor
    (HistoryTrackingMixin.changed_bytes), but a merge that replaces an object by its
    if-then-else (UltraPage._replace_memory_object) records nothing: a later merge of the
    merged state with a state of the same ancestry skipped those bytes and kept the first
    state's value (g6101_52_s: the accumulator of one path written to vd under the other's
    condition, a vd[0] no path computes, which did not replay)."""
    from angr.storage.memory_mixins.paged_memory.pages import ultra_page

    cls = ultra_page.UltraPage
    if getattr(cls, "_vredmax_merges_recorded", False):
        return
    original = cls.merge

    def merge(
        self,
        others,
        merge_conditions,
        common_ancestor=None,
        page_addr=None,
        memory=None,
        changed_offsets=None,
    ):
        offsets = original(
            self,
            others,
            merge_conditions,
            common_ancestor=common_ancestor,
            page_addr=page_addr,
            memory=memory,
            changed_offsets=changed_offsets,
        )
        changed = getattr(self, "_changed_offsets", None)
        if changed is not None and page_addr is not None:
            size = memory.page_size
            for b in offsets:
                mo = self._get_object(b, page_addr) if self.symbolic_bitmap[b] else None
                start, end = (
                    (b, b + 1) if mo is None else (mo.base - page_addr, mo.base + mo.length - page_addr)
                )
                start, end = max(start, 0), min(end, size)
                changed.occupy(start, end - start, "")
        return offsets

    cls.merge = merge
    cls._vredmax_merges_recorded = True


def run(job: dict) -> dict:
    logging.disable(logging.CRITICAL)
    if job["level"] == "unit_loop":
        return run_unit_loop(job)
    if job["level"] == "step_loop":
        import angr_step_loop

        return angr_step_loop.run_step_loop(job, sys.modules[__name__])
    import angr
    import claripy
    import z3

    _one_byte_order(claripy)
    _merges_recorded()

    start_time = time.monotonic()
    deadline = start_time + job["timeout_s"]
    project = _project(angr, job["library"])
    entry = project.loader.find_symbol("vredmax_entry").rebased_addr
    add, remove = _options(angr, job["level"] == "unit")
    domain = []
    if job["level"] == "unit":
        sew, n = job["sew"], job["n"]
        seed = claripy.BVS("seed", 64, explicit_name=True)
        state = project.factory.call_state(
            entry, sew, seed, UNIT_ELEMENTS, UNIT_ACTIVE, n, add_options=add, remove_options=remove
        )
        for i in range(n):
            element = claripy.BVS(f"e{i}", sew, explicit_name=True)
            flag = claripy.BVS(f"a{i}", 8, explicit_name=True)
            state.memory.store(UNIT_ELEMENTS + i * sew // 8, element, endness="Iend_LE")
            state.memory.store(UNIT_ACTIVE + i, flag)
            state.solver.add(claripy.ULE(flag, 1))
            domain.append(claripy.ULE(flag, 1))
    else:
        state = _step_state(project, job, add, remove)
        for condition in _claripy_of(job["domain"], claripy, z3):
            state.solver.add(condition)
            domain.append(condition)
    _address_strategies(state)
    finished, steps = explore(project, state, deadline, job.get("limit_states", 64))
    backend = claripy.backends.z3
    solver = z3.Solver()
    names = []
    # Each finished path separately (angr's merge of the finished states, whose memory holds
    # writes at symbolic addresses, was seen to pick one path's values under another's condition).
    for k, final in enumerate(finished):
        outputs = _outputs(job, final)
        for name, value in outputs:
            term = backend.convert(value)
            solver.add(z3.BitVec(f"{name}_p{k}", term.size()) == term)
            names.append(f"{name}_p{k}")
        path = claripy.And(*final.solver.constraints) if final.solver.constraints else claripy.true()
        solver.add(z3.Bool(f"path_p{k}") == backend.convert(path))
        names.append(f"path_p{k}")
    return {
        "smt2": solver.to_smt2(),
        "outputs": names,
        "paths": len(finished),
        "steps": steps,
        "seconds": time.monotonic() - start_time,
    }


def _step_state(project, job: dict, add, remove, fixed: dict | None = None):
    """The state at the step's entry: the register file v0..v31 and the CSRs symbolic (or the
    values `fixed` gives: vtype, vl, vstart, vs), VLEN and ELEN the job's."""
    import claripy

    fixed = fixed or {}
    vlen = job["vlen"]
    vlenb = vlen // 8
    entry = project.loader.find_symbol("vredmax_entry").rebased_addr
    insn = (
        claripy.BVV(job["insn"], 32)
        if job.get("insn") is not None
        else claripy.BVS("insn", 32, explicit_name=True)
    )
    state = project.factory.call_state(entry, STATE, insn, add_options=add, remove_options=remove)
    for r in range(NUM_VREGS):
        state.memory.store(
            VREGS + r * vlenb, claripy.BVS(f"v{r}", vlen, explicit_name=True), endness="Iend_LE"
        )
    state.memory.store(STATE, claripy.BVV(VREGS, 64), endness="Iend_LE")
    offset = 8
    for name in ("vtype", "vl", "vstart"):
        value = claripy.BVV(fixed[name], 64) if name in fixed else claripy.BVS(name, 64, explicit_name=True)
        state.memory.store(STATE + offset, value, endness="Iend_LE")
        offset += 8
    vs = claripy.BVV(fixed["vs"], 2) if "vs" in fixed else claripy.BVS("vs", 2, explicit_name=True)
    state.memory.store(STATE + 32, claripy.ZeroExt(30, vs), endness="Iend_LE")
    state.memory.store(STATE + 36, claripy.BVV(vlen, 32), endness="Iend_LE")
    # ELEN: the job's, or symbolic (the domain says which) when the job has none
    if "elen" in fixed or job["elen"] is not None:
        elen = claripy.BVV(fixed.get("elen", job["elen"]), 32)
    else:
        elen = claripy.BVS("elen", 32, explicit_name=True)
    state.memory.store(STATE + 40, elen, endness="Iend_LE")
    return state


def run_unit_loop(job: dict) -> dict:
    """A unit's loop for every n (angr_loop.py): the mined plan, and the terms of the entry run
    and of one trip, for unit_loop.prove_unit_loop to prove. What stopped it names the code's
    addresses by their source lines."""
    import angr

    try:
        return _run_unit_loop(job)
    except Incomplete as why:
        project = _project(angr, job["library"])
        raise Incomplete(_with_lines(project, str(why))) from None


def _with_lines(project, text: str) -> str:
    """Each code address (0x4...) in text as `file.c:LINE (0x...)`, when debug information has it."""
    import re

    low, high = project.loader.main_object.min_addr, project.loader.main_object.max_addr

    def line(match):
        address = int(match.group(0), 16)
        return _source_line(project, address) if low <= address <= high else match.group(0)

    return re.sub(r"(?<![:(])\b0x[0-9a-f]+\b(?!\))", line, text)


def _run_unit_loop(job: dict) -> dict:
    import angr
    import claripy

    import angr_loop

    _one_byte_order(claripy)
    _merges_recorded()
    start_time = time.monotonic()
    deadline = start_time + job["timeout_s"]
    project = _project(angr, job["library"])
    entry = project.loader.find_symbol("vredmax_entry").rebased_addr
    add, remove = _options(angr, True)
    sew = job["sew"]
    try:
        # 1. mining, at n = MINE_N
        n0 = angr_loop.MINE_N
        seed = claripy.BVS("seed", 64, explicit_name=True)
        state = project.factory.call_state(
            entry, sew, seed, UNIT_ELEMENTS, UNIT_ACTIVE, n0, add_options=add, remove_options=remove
        )
        elements = [claripy.BVS(f"m_e{i}", sew, explicit_name=True) for i in range(n0)]
        flags = [claripy.BVS(f"m_a{i}", 8, explicit_name=True) for i in range(n0)]
        state.globals["entry_sp"] = state.solver.eval(state.regs.rsp)
        for i in range(n0):
            state.memory.store(UNIT_ELEMENTS + i * sew // 8, elements[i], endness="Iend_LE")
            state.memory.store(UNIT_ACTIVE + i, flags[i])
            state.solver.add(claripy.ULE(flags[i], 1))
        angr_loop.fill_frame(claripy, state)
        _address_strategies(state)
        mining_start = state.copy()
        probe = state.copy()  # every other element active
        for i in range(n0):
            probe.memory.store(UNIT_ACTIVE + i, claripy.BVV(i % 2, 8))
        seen = angr_loop.mining_runs(
            explore, project, state, deadline, job.get("limit_states", 64), TooManyPaths, probe
        )
        heads, unmerged = angr_loop.candidate_heads(project, seen["seen"], seen.get("backs", ()))
    except angr_loop.LoopIncomplete as why:
        raise Incomplete(str(why)) from None
    failures: list = []
    why: list = []
    # two loops in sequence, the first counting the active elements into a buffer the second folds
    import angr_two_loops

    pair = False
    try:
        result = angr_two_loops.run_two_loops(
            job,
            sys.modules[__name__],
            project,
            entry,
            add,
            remove,
            (heads, seen.get("backs", ()), mining_start, seen["seen"]),
            seed,
            elements,
            flags,
            deadline,
            start_time,
        )
        result["seconds"] = time.monotonic() - start_time
        return result
    except (angr_loop.LoopIncomplete, Incomplete) as failed:
        if str(failed) == "time limit":
            raise
        if not str(failed).startswith(angr_two_loops.NOT_TWO):
            failures.append(f"two loops: {failed}")
        # a pair of loops whose first counts nothing: the bit array's method may fit
        pair = str(failed).startswith(angr_two_loops.NOT_TWO) and len(angr_loop.candidate_loops(heads)) > 1
    # two loops in sequence, the first packing the flags into a bit array the second reads
    import angr_packed

    try:
        if not pair:
            raise angr_loop.LoopIncomplete(angr_packed.NOT_PACKED)
        mined = (heads, seen.get("backs", ()), mining_start, seen["seen"])
        result = angr_packed.run_packed(
            job, sys.modules[__name__], project, (entry, add, remove, seed), mined, elements, flags, deadline
        )
        result["seconds"] = time.monotonic() - start_time
        return result
    except (angr_loop.LoopIncomplete, Incomplete) as failed:
        if str(failed) == "time limit":
            raise
        if not str(failed).startswith((angr_two_loops.NOT_TWO, angr_packed.NOT_PACKED)):
            failures.append(f"a bit array: {failed}")
    try:
        for plan in angr_loop.mine(claripy, heads, sew, elements, flags, why, deadline, job.get("havoc", ())):
            try:
                return _unit_loop_proof(job, project, entry, add, remove, plan, seed, start_time, deadline)
            except (angr_loop.LoopIncomplete, Incomplete) as failed:
                if str(failed) == "time limit":
                    raise
                failures.append(f"{plan['head']:#x}: {failed}")
    except angr_loop.LoopIncomplete as failed:
        failures.append(str(failed))
    raise Incomplete(angr_loop.tried(failures, why + unmerged))


def _unit_loop_proof(job, project, entry, add, remove, plan, seed, start_time, deadline) -> dict:
    import claripy
    import z3
    from angr.storage.memory_mixins import DefaultMemory

    import angr_loop

    sew = job["sew"]
    head = plan["head"]
    # 2. the entry run, n symbolic, to the head
    loads, stores = [], []
    memory_class = angr_loop._memory_class(DefaultMemory, claripy, loads, stores, Incomplete)
    n = claripy.BVS("n", 64, explicit_name=True)
    state = project.factory.call_state(
        entry, sew, seed, UNIT_ELEMENTS, UNIT_ACTIVE, n, add_options=add, remove_options=remove
    )
    state.memory.__class__ = memory_class
    state.globals["entry_sp"] = state.solver.eval(state.regs.rsp)
    state.solver.add(claripy.Or(*[n == v for v in job["vlmaxes"]]))
    _address_strategies(state)
    loop = angr_loop.stop_at(head)
    entry_returns, steps = explore(project, state, deadline, job.get("limit_states", 64), loop)
    if not loop["stopped"]:
        raise angr_loop.LoopIncomplete(f"no path of n symbolic reaches the loop head {head:#x}")
    at_head = merged(loop["stopped"])

    # 3. one trip from a state at the head after k trips
    def one_trip(havoc):
        stores.clear()
        trip, _, _, _ = angr_loop.head_state(claripy, at_head, plan, sew, n, havoc)
        trip.globals["iterations"] = 0
        trip.globals["trips"] = ()
        back = angr_loop.stop_at(head)
        returns, more = explore(project, trip, deadline, job.get("limit_states", 64), back)
        stack = trip.solver.eval(trip.regs.rsp)
        if any(
            final.regs.rsp.symbolic or final.solver.eval(final.regs.rsp) != stack for final in back["stopped"]
        ):
            raise angr_loop.LoopIncomplete(f"a trip of the loop at {head:#x} moves the stack pointer")
        outside = [addr for addr in stores if not stack - 0x10000 <= addr < stack + 0x10000]
        if outside:
            raise angr_loop.LoopIncomplete(
                f"the loop stores at {min(outside):#x} (memory other than the "
                "stack: a buffer the invariant does not describe)"
            )
        return (back["stopped"], returns, more), set(stores) - angr_loop.slot_bytes(trip, plan)

    back_at_head, trip_returns, more = angr_loop.settled(one_trip)
    steps += more

    outputs = angr_loop.Outputs(claripy, z3)
    kept = angr_loop.kept(plan)
    outputs.locations(lambda reg: f"init_{reg}", at_head, kept)
    outputs.path("path_h0", at_head)
    outputs.returns("e", entry_returns)
    outputs.trips("t", back_at_head, kept)
    outputs.returns("r", trip_returns)
    for name, _region, address in loads:
        outputs.out(f"addr_{name}", address)
    plan = dict(
        plan,
        locations={r: list(v) for r, v in plan["locations"].items()},
        where=_source_line(project, head),
    )
    return {
        "smt2": outputs.smt2,
        "outputs": outputs.names,
        "plan": plan,
        "loads": [[name, region] for name, region, _ in loads],
        "counts": {"e": len(entry_returns), "t": len(back_at_head), "r": len(trip_returns)},
        "steps": steps,
        "seconds": time.monotonic() - start_time,
    }


def _address_strategies(state) -> None:
    """A symbolic address becomes an if-then-else over every value it can take (at most
    ADDRESS_SOLUTIONS); angr's defaults would pin a write's address to its largest value and
    silently drop the other paths. Past the limit the access fails: the result is incomplete."""
    from angr.concretization_strategies import SimConcretizationStrategySolutions

    state.memory.read_strategies = [SimConcretizationStrategySolutions(ADDRESS_SOLUTIONS)]
    state.memory.write_strategies = [SimConcretizationStrategySolutions(ADDRESS_SOLUTIONS)]


def _outputs(job: dict, final) -> list:
    if job["level"] == "unit":
        return [("ret", final.regs.rax)]
    vlenb = job["vlen"] // 8
    memory = final.memory
    outputs = [
        ("ret", final.regs.rax[31:0]),
        ("post_vtype", memory.load(STATE + 8, 8, endness="Iend_LE")),
        ("post_vl", memory.load(STATE + 16, 8, endness="Iend_LE")),
        ("post_vstart", memory.load(STATE + 24, 8, endness="Iend_LE")),
        ("post_vs", memory.load(STATE + 32, 4, endness="Iend_LE")),
        ("post_vregs_pointer", memory.load(STATE, 8, endness="Iend_LE")),
    ]
    return outputs + [
        (f"post_v{r}", memory.load(VREGS + r * vlenb, vlenb, endness="Iend_LE")) for r in range(NUM_VREGS)
    ]


def _claripy_of(text: str, claripy, z3):
    """The domain's conditions, given as SMT-LIB assertions over the input names, in claripy."""
    return [claripy.backends.z3._abstract(term) for term in z3.parse_smt2_string(text)]


def main() -> None:
    """One job a line on stdin, one result a line on stdout, until stdin closes (symbolic.Engine)."""
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            result = run(json.loads(line))
        except Incomplete as error:
            result = {"incomplete": str(error)}
        except Exception as error:  # angr's own failures: said, never a verdict
            import traceback

            result = {
                "incomplete": f"angr: {type(error).__name__}: {error}",
                "traceback": traceback.format_exc()[-3000:],
            }
        sys.stdout.write(json.dumps(result) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
