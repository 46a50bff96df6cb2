"""check-rtl's property for the user's own formal tool: a SystemVerilog checker bound to the unit,
and a SymbiYosys project that proves it (ABC's PDR) or gives the trace.

The checker reads every port of the unit (`bind TOP checker (.*)`), assumes what check-rtl
assumed (the pins, the lane extension, the masks allowed, the protocol of a multi-cycle unit)
and asserts the spec's reduction: for a combinational unit, the result is the signed maximum of
the seed and the active elements; for a multi-cycle unit, a reference model follows the
reduction as protocol.py's ghost does (the seed taken at start, every active element of every
chunk folded in by signed max, so every chunk count), and the result is checked when done comes,
within the latency check-rtl measured. One checker and one project per SEW.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from vredmax.proofs.rtl import frontend
from vredmax.proofs.rtl.frontend import Elaboration, RtlInputError
from vredmax.proofs.rtl.protocol import Protocol
from vredmax.proofs.rtl.views import NO_SEED, SEW_PLACEHOLDER, Layout, Target, pin_value

CHECKER_PREFIX = "vredmax_check_"


@dataclass
class Unit:
    """What the checker needs to know of the unit at one SEW."""

    elaboration: Elaboration
    sew: int
    roles: dict  # role -> Target (a whole port, a field, bits); seed NO_SEED when none
    inverted: frozenset
    pins: list  # [(Target, value text)]
    layout: Layout
    active: str  # ports.ACTIVE_MODES
    sequential: bool
    protocol: Protocol = Protocol()
    latency: int = 0


def _bits(t: Target) -> str:
    return t.port if t.whole else f"{t.port}[{t.offset + t.width - 1}:{t.offset}]"


def _slice(t: Target, lo: int, width: int) -> str:
    return f"{t.port}[{t.offset + lo + width - 1}:{t.offset + lo}]"


def _flag(unit: Unit, role: str) -> str:
    """A 1-bit role, active high."""
    text = _bits(unit.roles[role])
    return f"!({text})" if role in unit.inverted else f"({text})"


def unsupported(unit: Unit) -> str | None:
    """Why this unit's check cannot be written as the checker, or None."""
    if unit.sequential and unit.layout.simd_width:
        return "a multi-cycle unit in SIMD words"
    if unit.sequential and (unit.protocol.in_ready or unit.protocol.out_ready):
        return "valid/ready handshakes (in_ready, out_ready)"
    return None


def checker(unit: Unit) -> str:
    """The checker module and its bind directive (SystemVerilog)."""
    e, sew, lay = unit.elaboration, unit.sew, unit.layout
    name = CHECKER_PREFIX + e.top
    word = lay.lane_width or lay.simd_width or sew
    slots = lay.slots(sew) if lay.simd_width else 1
    elements = unit.roles["elements"]
    lanes = elements.width // word
    ports = ",\n".join(f"  input logic [{w - 1}:0] {p}" for p, (_, w) in e.ports.items())
    lines = [
        f"// check-rtl's property of {e.top} at SEW={sew}, for a formal tool: bound to the unit,",
        "// it assumes what check-rtl assumed and asserts the spec's reduction (vredmax.vs).",
        f"module {name} (\n{ports}\n);",
        f"  localparam int SEW = {sew};",
        f"  localparam int LANES = {lanes};",
        "  localparam logic [SEW-1:0] SMIN = {1'b1, {(SEW-1){1'b0}}};",
        "",
    ]
    assumes = []
    for t, text in unit.pins:
        value = pin_value(t, text, sew)
        assumes.append(
            f"{_bits(t)} == {t.width}'h{value:x}   // --pin {t.text}={text.replace(SEW_PLACEHOLDER, str(sew))}"
        )
    seedless = unit.roles["seed"].text == NO_SEED

    def element(t: Target, lane: int, slot: int) -> str:
        return _slice(t, lane * word + slot * sew, sew)

    if lay.lane_width and lay.extend != "free" and word > sew:
        for t, count in (((unit.roles["seed"], 1),) if not seedless else ()) + ((elements, lanes),):
            for i in range(count):
                upper = _slice(t, i * word + sew, word - sew)
                fill = (
                    f"{{{word - sew}{{{_slice(t, i * word + sew - 1, 1)}}}}}"
                    if lay.extend == "sign"
                    else f"{word - sew}'d0"
                )
                assumes.append(f"{upper} == {fill}   // --extend {lay.extend}")
    # the active bit of element `lane` of slot `slot`, active high; every lane when --active all
    active_t = unit.roles.get("active")
    has_active = active_t is not None and active_t.port in e.ports

    def active(lane: int, slot: int) -> str:
        if unit.active == "all" or not has_active:
            return "1'b1"
        bit = _slice(active_t, lane * slots + slot, 1)
        return f"!{bit}" if "active" in unit.inverted else bit

    if unit.active == "all" and has_active:
        assumes.append(f"{_bits(active_t)} == '1   // --active all")
    lines += [
        f"  always_comb assume ({a.split('   //')[0]});"
        + ("   //" + a.split("   //")[1] if "   //" in a else "")
        for a in assumes
    ]
    for slot in range(slots):
        lines += [f"  logic [SEW-1:0] vr_elem{slot} [LANES];", f"  logic vr_act{slot} [LANES];"]
        for i in range(lanes):
            lines += [
                f"  assign vr_elem{slot}[{i}] = {element(elements, i, slot)};",
                f"  assign vr_act{slot}[{i}] = {active(i, slot)};",
            ]
        seed = "SMIN" if seedless else element(unit.roles["seed"], 0, slot)
        result = _slice(unit.roles["result"], slot * sew, sew)
        lines += [
            f"  wire [SEW-1:0] vr_seed{slot} = {seed};",
            f"  wire [SEW-1:0] vr_result{slot} = {result};",
        ]
    if unit.active == "below-vl" and not unit.sequential:
        for slot in range(slots):
            for i in range(lanes - 1):
                lines.append(
                    f"  always_comb assume (!vr_act{slot}[{i + 1}] || vr_act{slot}[{i}]);   // --active below-vl"
                )
    lines += [
        "",
        "  // the fold of a chunk into a running maximum (signed)",
        "  function automatic logic [SEW-1:0] vr_fold(logic [SEW-1:0] acc, logic [SEW-1:0] e [LANES], "
        "logic a [LANES]);",
        "    for (int i = 0; i < LANES; i++)",
        "      if (a[i] && $signed(e[i]) > $signed(acc)) acc = e[i];",
        "    return acc;",
        "  endfunction",
        "",
    ]
    lines += (
        _sequential(unit, slots)
        if unit.sequential
        else [
            f"  always_comb assert (vr_result{j} == vr_fold(vr_seed{j}, vr_elem{j}, vr_act{j}));"
            for j in range(slots)
        ]
        + ["  always_comb cover (1'b1);   // some input meets the assumptions (they are not contradictory)"]
    )
    connections = ", ".join(f".{p}({p})" for p in e.ports)  # named: an enum port meets a logic one
    lines += ["endmodule", "", f"bind {e.top} {name} {name} ({connections});", ""]
    return "\n".join(lines)


def _sequential(unit: Unit, slots: int) -> list[str]:
    """The reference model of a multi-cycle reduction (protocol.py's ghost), its environment and
    the property, on one clock."""
    p, limit = unit.protocol, unit.latency
    clk = _bits(unit.roles["clk"])
    rst, start, valid, last, done = (_flag(unit, r) for r in ("rst", "start", "in_valid", "last", "done"))
    with_chunk = "vr_fed" if p.start_with_chunk else "!vr_in_valid"
    lines = [
        f"  wire vr_rst = {rst}, vr_start = {start}, vr_in_valid = {valid};",
        f"  wire vr_last = {last}, vr_done = {done};",
        "  wire vr_live = !vr_rst, vr_fed = vr_in_valid;",
        "  logic vr_busy, vr_waiting, vr_finished, vr_ended;",
        "  logic [31:0] vr_waited;",
        "  logic [SEW-1:0] vr_acc;",
        "  logic vr_initial_cycle = 1'b1;   // cycle 0 has rst high; the state before it is any",
        f"  always_ff @(posedge {clk}) vr_initial_cycle <= 1'b0;",
        "  always_comb if (vr_initial_cycle) assume (vr_rst);",
        "  wire vr_idle = !vr_busy && !vr_waiting;",
        "  // the environment: what check-rtl assumed of the inputs",
        f"  always_comb if (vr_live) assume (!vr_start || (vr_idle && {with_chunk}));",
        "  always_comb if (vr_live) assume (!vr_in_valid || vr_busy || vr_start);",
        "  always_comb if (vr_live) assume (!vr_last || vr_in_valid);",
    ]
    if unit.active == "all":
        pass  # the active port is pinned to all ones above
    elif unit.active == "below-vl":
        lines += [
            "  always_comb if (vr_live && vr_fed) begin",
            "    for (int i = 0; i + 1 < LANES; i++) assume (!vr_act0[i + 1] || vr_act0[i]);",
            "    assume (!(!vr_start && vr_ended) || !vr_act0[0]);",
            "  end",
        ]
    lines += [
        "  // the reference model: the seed at start, every active element of every chunk folded in",
        "  wire vr_finishing = vr_live && vr_fed && vr_last;",
        "  wire [SEW-1:0] vr_base = "
        + ("vr_start ? vr_seed0 : vr_acc;" if p.start_with_chunk else "vr_acc;"),
        "  wire [SEW-1:0] vr_so_far = vr_acc;",
        "  wire [SEW-1:0] vr_everything = vr_fold(vr_start ? vr_seed0 : vr_so_far, vr_elem0, vr_act0);",
        "  wire [SEW-1:0] vr_expected = (vr_waiting || vr_finished) ? vr_so_far : vr_everything;",
        f"  always_ff @(posedge {clk}) begin",
        "    vr_busy <= vr_live && (vr_start || vr_busy) && !(vr_fed && vr_last);",
        "    vr_waiting <= vr_live && !vr_done && (vr_finishing || (vr_waiting && !vr_start));",
        "    vr_waited <= (vr_live && !vr_start && vr_waiting && !vr_done)",
        f"                 ? (vr_waited < {limit + 1} ? vr_waited + 1 : vr_waited) : 0;",
        "    vr_finished <= "
        + (
            "vr_live && !vr_start && (vr_finished || (vr_done && (vr_waiting || vr_finishing)));"
            if p.level
            else "1'b0;"
        ),
        "    vr_ended <= vr_rst ? vr_ended : ((!vr_start && vr_ended) || (vr_fed && !vr_act0[LANES-1]));",
    ]
    if p.start_with_chunk:
        lines.append("    if (!vr_rst) vr_acc <= vr_fed ? vr_fold(vr_base, vr_elem0, vr_act0) : vr_base;")
    else:
        lines.append(
            "    if (!vr_rst) vr_acc <= vr_start ? vr_seed0 "
            ": (vr_fed ? vr_fold(vr_acc, vr_elem0, vr_act0) : vr_acc);"
        )
    lines += [
        "  end",
        "  // the property (check-rtl's violations, none may happen in a cycle without rst)",
        "  wire vr_chunk_now = (vr_busy || vr_start) && vr_fed && vr_last;",
        "  wire vr_allowed = vr_waiting || vr_chunk_now" + (" || vr_finished;" if p.level else ";"),
        "  wire vr_checked = vr_waiting || vr_chunk_now"
        + (" || (vr_finished && !vr_start);" if p.level else ";"),
        f"  wire vr_late = vr_waiting && (vr_waited + 1 > {limit} || (vr_waited + 1 == {limit} && !vr_done));",
        "  always_comb if (vr_live) begin",
        "    assert (!(vr_done && !vr_allowed));            // done without a finished reduction",
        "    assert (!(vr_done && vr_checked && vr_result0 != vr_expected));   // the spec's reduction",
        f"    assert (!vr_late);                           // done within {limit} cycle(s) of the last chunk",
    ]
    if p.level:
        lines.append(
            "    assert (!(vr_finished && !vr_start && !vr_done));   // done (a level) held until the next start"
        )
    lines += [
        "    cover (vr_done && vr_checked);   // a reduction finishes (the assumptions leave one: not vacuous)",
        "  end",
    ]
    return lines


def project(unit: Unit, checker_file: str, timeout_s: int) -> str:
    """The SymbiYosys project (.sby): the unit's sources as the check read them (the same
    compilation units, include folders, defines and parameters), the checker, ABC's PDR."""
    e = unit.elaboration
    read = frontend.read_command(e) + f" {os.path.basename(checker_file)}"
    files = [f"{frontend.mirrored(path)} {path}" for path in e.loaded]
    return "\n".join(
        [
            f"# check-rtl's property of {e.top} at SEW={unit.sew} for SymbiYosys: "
            f"`sby -f {os.path.basename(checker_file)[:-3]}.sby prove`",
            "# (PASS: proved; FAIL: a trace in the work folder's engine_0/); the task cover shows a reduction",
            "# that finishes under the assumptions (they are not contradictory).",
            "[tasks]",
            "prove",
            "cover",
            "",
            "[options]",
            "prove: mode prove",
            "cover: mode cover",
            "cover: depth 12",
            f"timeout {timeout_s}",
            "# the SMT solver that replays a trace (z3 comes with vredmax)",
            "prove: aigsmt z3",
            "",
            "[engines]",
            "prove: abc pdr",
            "cover: smtbmc z3",
            "",
            "[script]",
            read,
            f"prep -top {e.top}",
            "",
            "[files]",
            *files,
            os.path.basename(checker_file),
            "",
        ]
    )


def write(unit: Unit, folder: str, timeout_s: int = 600) -> tuple[str, str]:
    """Write the checker and the project for this SEW into `folder`; their paths."""
    why = unsupported(unit)
    if why is not None:
        raise RtlInputError("emit-sby", f"not written for {why}: check-rtl's verdict stands alone")
    os.makedirs(folder, exist_ok=True)
    stem = f"{unit.elaboration.top}.sew{unit.sew}"
    sv, sby = os.path.join(folder, stem + ".sv"), os.path.join(folder, stem + ".sby")
    with open(sv, "w") as f:
        f.write(checker(unit))
    with open(sby, "w") as f:
        f.write(project(unit, sv, timeout_s))
    return sv, sby
