"""A counterexample of check-rtl as a cocotb test, for the user's own simulator (Icarus, Verilator).

The test drives the unit's own ports (the values check-rtl's view gave them: pins, fields, lane
layouts and active-low ports mapped back to the port's bits) cycle by cycle, and asserts what
the spec demands where the unit broke it: the result of the reduction (the signed maximum of the
seed and the active elements) when done comes, no done without a finished reduction, done
within the latency. It fails on the unit that gave the counterexample and passes on a fixed one.
"""

from __future__ import annotations

import z3

from vredmax.proofs.rtl.seq_unit import HORIZON
from vredmax.proofs.rtl.trace import Reduction
from vredmax.proofs.rtl.views import NO_SEED


def port_values(view, ports: dict, values: dict) -> dict[str, int]:
    """The unit's input ports (`ports`: name -> (direction, width)), given the view's inputs by
    Z3 name (missing ones are 0)."""
    design = view.design
    named = {var.decl().name(): var for var in design.inputs.values()}
    values = {design.inputs[n].decl().name() if n in design.inputs else n: v for n, v in values.items()}
    found = {}
    for port, (direction, width) in ports.items():
        if direction != "input":
            continue
        term = view.port_terms.get(port, design.inputs.get(port))
        if term is None:
            found[port] = 0
            continue
        pairs = [(named[n], z3.BitVecVal(v, named[n].size())) for n, v in values.items() if n in named]
        pairs += [
            (var, z3.BitVecVal(0, var.size())) for var in _variables(term) if var.decl().name() not in values
        ]
        found[port] = (
            z3.simplify(z3.substitute(term, *pairs)).as_long() if pairs else z3.simplify(term).as_long()
        )
    return found


def _variables(term) -> list:
    found, seen, todo = {}, set(), [term]
    while todo:
        t = todo.pop()
        if t.get_id() in seen:
            continue
        seen.add(t.get_id())
        if z3.is_const(t) and t.decl().kind() == z3.Z3_OP_UNINTERPRETED:
            found[t.decl().name()] = t
        todo.extend(t.children())
    return list(found.values())


def render(top: str, cx, view, ports: dict, roles: dict, inverted, sew: int, slot, clock: str | None) -> str:
    """The text of the cocotb test module."""
    result_t = roles["result"]
    at = result_t.offset + (slot or 0) * sew
    r = cx.reduction
    expected = None
    if r is not None:
        seed = (1 << (sew - 1)) if roles["seed"].text == NO_SEED else r.seed
        expected = Reduction(sew, seed, r.elements, r.active).spec_result()
    design = view.design
    if not cx.cycles:
        values = dict(cx.ports)
        cycles, check_at = [port_values(view, ports, values)], 0
    else:
        cycles = []
        for record in cx.cycles:
            values = {
                name: value
                for name, value in record.items()
                if name in design.inputs and isinstance(value, int)
            }
            cycles.append(port_values(view, ports, values))
        check_at = cx.at_cycle if cx.at_cycle is not None else len(cycles) - 1
    done_t = roles.get("done")
    done = None
    if cx.cycles and done_t is not None:
        done = (done_t.port, done_t.offset, "done" in inverted)
    problem = cx.problem
    idle = dict(cycles[-1]) if cycles else {}
    if cx.cycles:  # after the trace: no start, chunk or reset (each role at its inactive level)
        for role in ("rst", "start", "in_valid", "last"):
            t = roles[role]
            if t.port in idle:
                level = int(role in inverted)
                idle[t.port] = idle[t.port] & ~(1 << t.offset) | (level << t.offset)
    lines = [
        f'"""check-rtl\'s counterexample of {top} at SEW={sew} as a cocotb test: {problem}.',
        "",
        "Drives the unit's ports cycle by cycle and asserts what vredmax.vs's spec demands; it fails on the",
        'unit that gave the counterexample and passes on a fixed one."""',
        "",
        "import cocotb",
        "from cocotb.triggers import Timer",
        "",
        f"SEW = {sew}",
        f"RESULT = ({result_t.port!r}, {at})            # the result's port and the bit its SEW bits start at",
        f"DONE = {done!r}                     # (port, bit, active low) of done",
        f"EXPECTED = {hex(expected) if expected is not None else None}   # the spec's result",
        f"PROBLEM = {problem!r}",
        f"CLOCK = {clock!r}",
        f"CHECK_AT = {check_at}                # the cycle where the unit breaks the spec",
        "# the unit's input ports in each cycle",
        "CYCLES = [",
        *[f"    {{{', '.join(f'{p!r}: {hex(v)}' for p, v in c.items() if p != clock)}}}," for c in cycles],
        "]",
        f"IDLE = {{{', '.join(f'{p!r}: {hex(v)}' for p, v in idle.items() if p != clock)}}}   # after them",
        f"WAIT = {HORIZON}                    # cycles to wait for done after the last chunk",
        "",
        "",
        "def bits(handle, lo, width):",
        "    return (int(handle.value) >> lo) & ((1 << width) - 1)",
        "",
        "",
        "@cocotb.test()",
        f"async def vredmax_counterexample_{top}(dut):",
        "    waiting = DONE is not None and not PROBLEM.startswith(('done without', 'done did not', 'done (a level)'))",
        "    for t in range(len(CYCLES) + (WAIT if waiting else 0)):",
        "        inputs = CYCLES[t] if t < len(CYCLES) else IDLE",
        "        if CLOCK:",
        "            getattr(dut, CLOCK).value = 0",
        "        for port, value in inputs.items():",
        "            getattr(dut, port).value = value",
        '        await Timer(5, unit="ns")',
        "        if waiting and t >= CHECK_AT:    # the spec's result when done comes",
        "            if bits(getattr(dut, DONE[0]), DONE[1], 1) ^ DONE[2]:",
        "                result = bits(getattr(dut, RESULT[0]), RESULT[1], SEW)",
        '                assert result == EXPECTED, f"result {result:#x}, the spec\'s {EXPECTED:#x}"',
        "                return",
        "        elif t == CHECK_AT:",
        "            result = bits(getattr(dut, RESULT[0]), RESULT[1], SEW)",
        "            if DONE is None:",
        '                assert result == EXPECTED, f"result {result:#x}, the spec\'s {EXPECTED:#x}"',
        "            else:",
        "                done = bits(getattr(dut, DONE[0]), DONE[1], 1) ^ DONE[2]",
        "                if PROBLEM.startswith('done without'):",
        "                    assert not done, 'done without a finished reduction'",
        "                elif PROBLEM.startswith('done did not come') or 'fell' in PROBLEM:",
        "                    assert done, PROBLEM",
        "        if CLOCK:",
        "            getattr(dut, CLOCK).value = 1",
        '            await Timer(5, unit="ns")',
        "    assert not waiting, f'done did not come within {WAIT} cycles of the last chunk'",
        "",
    ]
    return "\n".join(lines)
