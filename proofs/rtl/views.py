"""The unit as the checks see it: ports pinned to constants, roles on struct fields, element layouts.

Real units do not follow the port conventions of ports.py: an opcode input chooses the
operation, the element width is an input, elements are SEW bits sign-extended in 32-bit lanes
or packed 64/SEW to a SIMD word, and the start of a reduction is a field of a control struct.
A *view* rewrites the elaborated design (its Z3 terms) so that the checks see a unit in the
conventions, without changing what it computes:

- `--pin TARGET=VALUE`: the bits of TARGET are that constant (an integer or a member of the
  target's enum type; `{SEW}` in VALUE is replaced by the SEW being checked);
- a role on a field (`--port start=ctrl.first_cycle`): the field becomes an input of its own;
- `--lane-width W`: each element is SEW bits in a W-bit lane (seed and result too), its upper
  bits the sign or zero extension of the element, or free (any value, the default); the result
  is checked on its low SEW bits;
- `--simd W`: the seed and the result are W-bit words of W/SEW elements (slots) and the
  elements come as such words; slot j of the result is the reduction of slot j of the seed and
  of every word (one check per slot).

Every bit of a rewritten input port that no role or pin claims becomes a free input (any value
in every cycle): the unit is proved whatever those bits are.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field

import z3

from vredmax.proofs.rtl.frontend import Elaboration, RtlInputError
from vredmax.proofs.rtl.yosys import Design

SEW_PLACEHOLDER = "{SEW}"
NO_SEED = "none"  # --port seed=none: the unit reduces its lanes alone
EXTENSIONS = ("free", "sign", "zero")


@dataclass(frozen=True)
class Target:
    """A bit range of a port, named as the user wrote it."""

    text: str
    port: str
    offset: int
    width: int
    enum: tuple = ()  # (name, value) pairs of its enum type

    @property
    def whole(self) -> bool:
        return self.offset == 0 and self.text == self.port


_SLICE = re.compile(r"^(.*)\[(\d+)(?::(\d+))?\]$")


def target(elaboration: Elaboration, text: str, what: str) -> Target:
    """`port`, `port.field.sub`, `port[hi:lo]` or `port[i]` as a Target."""
    shown = text
    for original, renamed in elaboration.renames.items():  # an interface port's signal (frontend.py)
        if text == original or text.startswith((original + ".", original + "[")):
            text = renamed + text[len(original) :]
    base, hi, lo = text, None, None
    match = _SLICE.match(text)
    if match:
        base, hi = match.group(1), int(match.group(2))
        lo = int(match.group(3)) if match.group(3) is not None else hi
    found = elaboration.fields.get(base)
    if found is None:
        port = base.split(".", 1)[0]
        if port not in elaboration.ports:
            raise RtlInputError(
                what, f"module {elaboration.top} has no port {port!r} (ports: {', '.join(elaboration.ports)})"
            )
        fields = sorted(name.split(".", 1)[1] for name in elaboration.fields if name.startswith(port + "."))
        known = f" (fields: {', '.join(fields)})" if fields else " (it has no fields)"
        raise RtlInputError(what, f"port {port} has no field {base.split('.', 1)[1]!r}{known}")
    port = base.split(".", 1)[0]
    offset, width = found.offset, found.width
    if hi is not None:
        if not lo <= hi < width:
            raise RtlInputError(what, f"{text}: bits out of range (it is {width} bits wide)")
        offset, width = offset + lo, hi - lo + 1
    return Target(shown, port, offset, width, tuple(found.enum.items()) if hi is None else ())


def pin_value(t: Target, text: str, sew: int | None, what: str = "pin") -> int | None:
    """The constant for a pin at this SEW; None when the value names an enum member that does
    not exist at this SEW (e.g. VSEW_64 in a unit without SEW=64)."""
    if SEW_PLACEHOLDER in text:
        if sew is None:
            raise RtlInputError(what, f"{t.text}={text}: {{SEW}} needs the SEW being checked (--sew)")
        text = text.replace(SEW_PLACEHOLDER, str(sew))
        enum = dict(t.enum)
        if text in enum:
            return enum[text]
        if not re.fullmatch(r"[-+(0-9].*|'.*", text):
            return None
    enum = dict(t.enum)
    if text in enum:
        return enum[text]
    try:
        value = _number(text)
    except ValueError:
        members = f" (members of its enum: {', '.join(name for name, _ in t.enum)})" if t.enum else ""
        raise RtlInputError(
            what, f"{t.text}: {text!r} is not an integer or a member of the port's enum{members}"
        ) from None
    if not 0 <= value < (1 << t.width) and not -(1 << (t.width - 1)) <= value < 0:
        raise RtlInputError(what, f"{t.text}: {text} does not fit in {t.width} bits")
    return value & ((1 << t.width) - 1)


def _number(text: str) -> int:
    text = text.replace("_", "")
    match = re.fullmatch(r"(\d*)'[sS]?([bBoOdDhH])([0-9a-fA-F]+)", text)
    if match:
        return int(match.group(3), {"b": 2, "o": 8, "d": 10, "h": 16}[match.group(2).lower()])
    try:
        return int(text, 0)
    except ValueError:
        if not re.fullmatch(r"[0-9xXa-fA-F()+\-*<> ]+", text):
            raise
    try:
        return _arithmetic(ast.parse(text, mode="eval").body)
    except SyntaxError:
        raise ValueError(text) from None


_OPERATORS = {
    ast.Add: lambda a, b: a + b,
    ast.Sub: lambda a, b: a - b,
    ast.Mult: lambda a, b: a * b,
    ast.LShift: lambda a, b: a << b if 0 <= b <= 4096 else _too_big(),
}


def _too_big():
    raise ValueError("shift out of range")


def _arithmetic(node) -> int:
    """An integer expression of a pin (`-(1<<({SEW}-1))` once {SEW} is replaced): + - * << only."""
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        value = _arithmetic(node.operand)
        return -value if isinstance(node.op, ast.USub) else value
    if isinstance(node, ast.BinOp) and type(node.op) in _OPERATORS:
        return _OPERATORS[type(node.op)](_arithmetic(node.left), _arithmetic(node.right))
    raise ValueError("not an integer expression")


@dataclass(frozen=True)
class Layout:
    """How elements sit in the data ports: SEW-wide (default), in wider lanes, or SIMD words."""

    lane_width: int | None = None
    extend: str = "free"
    simd_width: int | None = None

    def slots(self, sew: int) -> int:
        return self.simd_width // sew if self.simd_width else 1

    def describe(self, sew: int) -> str:
        if self.lane_width and self.lane_width != sew:
            upper = {"free": "any upper bits", "sign": "sign-extended", "zero": "zero-extended"}[self.extend]
            return f"SEW-bit elements in {self.lane_width}-bit lanes ({upper}; the result's low SEW bits checked)"
        if self.simd_width:
            return f"SIMD words of {self.simd_width // sew} elements (each slot reduced on its own)"
        return ""


@dataclass
class View:
    """A design rewritten into the conventions, with what the rewriting did."""

    design: Design
    names: dict  # role -> the name of its input or output in `design`
    notes: list = field(default_factory=list)
    lanes: int = 0
    later_slot: bool = False  # a SIMD slot after the first (its notes would repeat)
    port_terms: dict = field(default_factory=dict)  # rewritten input port -> its term over the view's inputs


class _Builder:
    """Rewrites input ports as concatenations of parts (constants, new inputs, expressions)."""

    def __init__(self, design: Design):
        self.design = design
        self.parts: dict[str, list] = {}  # port -> [(offset, width, term, owner)]
        self.inputs: dict[str, z3.BitVecRef] = {}
        self.outputs: dict[str, z3.ExprRef] = {}
        self.ports: dict[str, tuple[str, int]] = {}
        self.port_terms: dict[str, z3.ExprRef] = {}

    def fresh(self, name: str, width: int) -> z3.BitVecRef:
        var = z3.BitVec(f"in_{name}", width)
        self.inputs[name] = var
        self.ports[name] = ("input", width)
        return var

    def set(self, port: str, offset: int, width: int, term, owner: str) -> None:
        if port not in self.design.ports or self.design.ports[port][0] != "input":
            raise RtlInputError("port", f"{owner}: {port} is not an input of {self.design.top}")
        for lo, w, _, other in self.parts.get(port, ()):
            if offset < lo + w and lo < offset + width:
                raise RtlInputError("port", f"{owner} overlaps {other} (both use bits of {port})")
        if offset + width > self.design.ports[port][1]:
            raise RtlInputError(
                "port",
                f"{owner}: bits {offset + width - 1}:{offset} are outside {port} "
                f"({self.design.ports[port][1]} bits)",
            )
        self.parts.setdefault(port, []).append((offset, width, term, owner))

    def build(self) -> Design:
        d = self.design
        substitutions, inputs, ports = [], dict(d.inputs), dict(d.ports)
        for port, parts in self.parts.items():
            width = d.ports[port][1]
            pieces, at = [], 0
            for lo, w, term, _ in sorted(parts, key=lambda p: p[0]):
                if lo > at:
                    pieces.append(self.fresh(f"{port}[{lo - 1}:{at}]", lo - at))
                pieces.append(term)
                at = lo + w
            if at < width:
                pieces.append(self.fresh(f"{port}[{width - 1}:{at}]", width - at))
            whole = pieces[0] if len(pieces) == 1 else z3.Concat(*reversed(pieces))
            self.port_terms[port] = whole
            if port in d.inputs:
                substitutions.append((d.inputs[port], whole))
            inputs.pop(port, None)
            ports.pop(port, None)
        inputs.update(self.inputs)
        ports.update(self.ports)

        def rewrite(term):
            return z3.simplify(z3.substitute(term, *substitutions)) if substitutions else term

        outputs = {name: rewrite(t) for name, t in d.outputs.items()}
        for name, term in self.outputs.items():
            outputs[name] = z3.simplify(rewrite(term))
            ports[name] = ("output", term.size())
        next_state = {name: rewrite(t) for name, t in d.next_state.items()}
        wires = {name: rewrite(t) for name, t in d.wires.items()}  # rewritten as the outputs: still `eq`
        # 'x values and undriven nets the pinned logic no longer reads go; ports stay (free)
        read = _variables(list(outputs.values()) + list(next_state.values()))
        inputs = {name: var for name, var in inputs.items() if name in ports or var.get_id() in read}
        return Design(d.top, d.params, ports, inputs, dict(d.state), outputs, next_state, wires)


def _variables(terms) -> set:
    """The ids of the uninterpreted constants the terms read."""
    found, seen, todo = set(), set(), list(terms)
    while todo:
        t = todo.pop()
        if t.get_id() in seen:
            continue
        seen.add(t.get_id())
        if z3.is_const(t) and t.decl().kind() == z3.Z3_OP_UNINTERPRETED:
            found.add(t.get_id())
        todo.extend(t.children())
    return found


DATA_ROLES = ("seed", "elements", "active", "result")


def build_view(
    design: Design,
    elaboration: Elaboration,
    sew: int | None,
    pins: list[tuple[Target, str]],
    roles: dict[str, Target],
    inverted: frozenset,
    layout: Layout,
    slot: int | None,
    active_all: bool,
) -> View:
    """The design rewritten for this SEW (and SIMD slot): pins, roles on fields, the layout.
    `roles` maps each role to its target (a whole port when not a field)."""
    b = _Builder(design)
    names = {role: t.text for role, t in roles.items()}
    notes = []
    for t, text in pins:
        value = pin_value(t, text, sew)
        if value is None:
            raise RtlInputError("pin", f"{t.text}={text}: no such member at SEW={sew}")
        b.set(t.port, t.offset, t.width, z3.BitVecVal(value, t.width), f"--pin {t.text}")
        notes.append(f"pinned {t.text} = {text.replace(SEW_PLACEHOLDER, str(sew))} ({value:#x})")
    rewritten = layout.lane_width is not None or layout.simd_width is not None
    data = set(DATA_ROLES) if rewritten else set()
    if "active" in inverted:
        data.add("active")
    for role, t in roles.items():
        if role in data or t.whole:
            continue
        if role in ("result", "done", "in_ready"):
            b.outputs[t.text] = _extract(design, t)
        else:
            b.set(t.port, t.offset, t.width, b.fresh(t.text, t.width), f"the {role} role ({t.text})")
    if rewritten:
        lanes = _layout(design, b, roles, names, sew, layout, slot, inverted, active_all, notes)
    else:
        elements = roles["elements"]
        lanes = elements.width // sew if sew and elements.width % sew == 0 else 0
        if "active" in inverted and not active_all:
            t = roles["active"]
            name = _free_name(design, "active", b)
            b.set(t.port, t.offset, t.width, ~b.fresh(name, t.width), f"the active role ({t.text})")
            names["active"] = name
            notes.append(f"active: the inverse of {t.text}")
    if roles["seed"].text == NO_SEED:
        _seedless(design, b, names, sew, notes)
    if active_all:
        t = roles.get("active")
        if t is not None and t.port in design.ports and design.ports[t.port][0] == "input":
            b.set(t.port, t.offset, t.width, z3.BitVecVal(-1, t.width), "--active all")
        if not lanes:
            raise RtlInputError(
                "port", f"elements ({roles['elements'].text}) is not a whole number of SEW={sew} elements"
            )
        name = _free_name(design, "active", b)
        b.fresh(name, lanes)
        names["active"] = name
    return View(b.build(), names, notes, lanes, bool(slot), b.port_terms)


def _seedless(design: Design, b: _Builder, names: dict, sew: int | None, notes: list) -> None:
    """A unit without a seed computes R = the signed maximum of its active lanes (the signed
    minimum when none is active). It is checked as smax(seed, R) for a new input seed: that is
    the spec's result for every seed exactly when R is right (seed = the signed minimum gives R
    itself; smax is associative), so a counterexample at any seed is one of R."""
    name = names["result"]
    unit = b.outputs[name] if name in b.outputs else design.outputs.get(name)
    if unit is None:
        raise RtlInputError("port", f"module {design.top} has no output {name!r} for result")
    if sew is not None and unit.size() != sew:
        raise RtlInputError("port", f"result ({name}) is {unit.size()} bits wide, expected SEW={sew}")
    seed_name = _free_name(design, "seed", b)
    seed = b.fresh(seed_name, unit.size())
    reduced = _free_name(design, "result", b)
    b.outputs[reduced] = z3.If(seed > unit, seed, unit)  # Z3's > on bit-vectors is signed
    names["seed"], names["result"] = seed_name, reduced
    notes.append(
        f"no seed (--port seed=none): {name} checked as smax(seed, {name}), i.e. {name} must be the signed "
        "maximum of the active elements, the signed minimum when none is active"
    )


def _extract(design: Design, t: Target):
    port = design.outputs.get(t.port)
    if port is None:
        raise RtlInputError("port", f"{t.text}: {t.port} is not an output of {design.top}")
    return z3.Extract(t.offset + t.width - 1, t.offset, port)


def _free_name(design: Design, role: str, b: _Builder) -> str:
    name = role
    while name in design.ports or name in b.ports:
        name += "'"
    return name


def _layout(design, b: _Builder, roles, names, sew, layout: Layout, slot, inverted, active_all, notes) -> int:
    """Rewrite seed, elements, active and result for a lane or SIMD layout; the LANES seen."""
    word = layout.lane_width or layout.simd_width
    if word % sew or word < sew:
        raise RtlInputError("layout", f"SEW={sew} does not divide the {word}-bit lane or word")
    seed_t, elements_t, result_t = roles["seed"], roles["elements"], roles["result"]
    seedless = seed_t.text == NO_SEED
    for role, t in (("seed", seed_t), ("result", result_t)):
        if t.width != word and not (role == "seed" and seedless):
            raise RtlInputError(
                "port",
                f"{role} ({t.text}) is {t.width} bits wide, expected the {word}-bit "
                f"{'lane' if layout.lane_width else 'word'}",
            )
    if elements_t.width % word:
        raise RtlInputError(
            "port",
            f"elements ({elements_t.text}) is {elements_t.width} bits wide, "
            f"not a multiple of the {word}-bit {'lane' if layout.lane_width else 'word'}",
        )
    count = elements_t.width // word  # lanes, or SIMD words
    slots = layout.slots(sew)
    lanes = count if layout.lane_width else count
    at = 0 if slot is None else slot * sew  # where the element sits in its lane or word
    seed_name, elements_name = _free_name(design, "seed", b), _free_name(design, "elements", b)
    elements = b.fresh(elements_name, sew * lanes)
    names["elements"] = elements_name

    def place(t: Target, base: int, value, owner: str):
        if layout.lane_width and layout.extend != "free" and word > sew:
            extend = z3.SignExt if layout.extend == "sign" else z3.ZeroExt
            b.set(t.port, t.offset + base, word, extend(word - sew, value), owner)
        else:
            b.set(t.port, t.offset + base + at, sew, value, owner)

    if not seedless:
        names["seed"] = seed_name
        place(seed_t, 0, b.fresh(seed_name, sew), "the seed role")
    for i in range(lanes):
        place(elements_t, i * word, z3.Extract(i * sew + sew - 1, i * sew, elements), "the elements role")
    result_name = _free_name(design, "result", b)
    b.outputs[result_name] = z3.Extract(
        result_t.offset + at + sew - 1, result_t.offset + at, design.outputs[result_t.port]
    )
    names["result"] = result_name
    if not active_all:
        t = roles["active"]
        if t.port not in design.ports:
            raise RtlInputError(
                "port",
                f"module {design.top} has no port {t.port!r} for active (map another with "
                "--port active=NAME, or --active all when the unit has no mask: every "
                "lane active)",
            )
        per_word = slots if layout.simd_width else 1
        if t.width != count * per_word:
            raise RtlInputError(
                "port",
                f"active ({t.text}) is {t.width} bits wide, expected one bit per "
                f"element ({count * per_word})",
            )
        name = _free_name(design, "active", b)
        active = b.fresh(name, lanes)
        flip = (lambda v: ~v) if "active" in inverted else (lambda v: v)
        for i in range(lanes):
            b.set(
                t.port,
                t.offset + i * per_word + (slot or 0),
                1,
                flip(z3.Extract(i, i, active)),
                "the active role",
            )
        names["active"] = name
    if slot is None:
        notes.append(layout.describe(sew))
    elif slot == 0:
        notes.append(
            f"{layout.describe(sew)}: slot j is bits j*SEW and up of each word; the other slots of "
            "the words are free while one is checked"
        )
    return lanes
