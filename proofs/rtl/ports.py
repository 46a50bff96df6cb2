"""The port conventions of a reduction unit, and the `--port ROLE=NAME` mapping.

Combinational unit: inputs `seed` [SEW-1:0], `elements` [LANES*SEW-1:0] (element i in bits
i*SEW and up), `active` [LANES-1:0]; output `result` [SEW-1:0].
Multi-cycle unit: the same data ports (one chunk of LANES elements per cycle) plus inputs
`clk`, `rst` (synchronous, active high), `start` (a new reduction; `seed` is taken in that
cycle), `in_valid` (a chunk is offered), `last` (this chunk is the final one) and output `done`.
"""

from __future__ import annotations

from dataclasses import dataclass

from vredmax.proofs.rtl.yosys import Design, RtlInputError

DATA_ROLES = ("seed", "elements", "active", "result")
CONTROL_ROLES = ("clk", "rst", "start", "in_valid", "last", "done")
HANDSHAKE_ROLES = ("in_ready", "out_ready")  # optional: only when mapped with --port
ROLES = DATA_ROLES + CONTROL_ROLES + HANDSHAKE_ROLES
OUTPUT_ROLES = ("result", "done", "in_ready")
SEW_PARAM, LANES_PARAM = "SEW", "LANES"
INVERTIBLE_ROLES = ("rst", "start", "in_valid", "last", "active")
ACTIVE_MODES = ("mask", "all", "below-vl")
ACTIVE_LOW = ("!", "~")


def parse_ports(items) -> tuple[dict[str, str], frozenset]:
    """({role: port name}, the roles mapped active low) from `ROLE=NAME` and `ROLE=!NAME`
    strings; each role defaults to its own name, active high; a later item for a role wins."""
    mapping = {role: role for role in ROLES}
    inverted = set()
    for item in items or ():
        role, sep, name = item.partition("=")
        if not sep or not name:
            raise RtlInputError("port", f"expected ROLE=NAME, got {item!r}")
        if role not in ROLES:
            raise RtlInputError("port", f"unknown role {role!r} (roles: {', '.join(ROLES)})")
        inverted.discard(role)
        if name.startswith(ACTIVE_LOW):
            if role not in INVERTIBLE_ROLES:
                raise RtlInputError(
                    "port",
                    f"{role}: only {', '.join(INVERTIBLE_ROLES)} may be active low (!NAME), got {item!r}",
                )
            name = name[1:]
            if not name:
                raise RtlInputError("port", f"expected ROLE=NAME, got {item!r}")
            inverted.add(role)
        mapping[role] = name
    return mapping, frozenset(inverted)


def parse_mapping(items) -> dict[str, str]:
    """{role: port name} alone (parse_ports)."""
    return parse_ports(items)[0]


@dataclass(frozen=True)
class Interface:
    """Where each role is in the design, and the unit's SEW and LANES."""

    names: dict
    sew: int
    lanes: int
    sequential: bool
    inverted: frozenset = frozenset()  # roles whose port is active low
    active_mode: str = "mask"  # mask: any; all: every lane; below-vl: lanes below vl

    def level(self, role: str, asserted) -> int:
        """The port's value when the role is (not) asserted."""
        return int(asserted) ^ (role in self.inverted)

    def var(self, design: Design, role: str):
        return design.inputs[self.names[role]]


def interface(
    design: Design, mapping: dict[str, str], explicit=(), inverted=frozenset(), active_mode: str = "mask"
) -> Interface:
    """Check the ports of the design against the conventions (existence, direction, width)."""
    sequential = design.sequential
    controls = ("rst", "start", "in_valid", "last", "done")
    if sequential and not any(mapping[role] in design.ports for role in controls):
        named = sorted(name.removesuffix("$ff") for name in design.state if not name.startswith("$"))
        held = f" ({', '.join(named)})" if named else ""
        raise RtlInputError(
            "port",
            f"module {design.top} holds state{held} but has none of the multi-cycle "
            f"ports ({', '.join(controls)}): a latch from an always @* that does not "
            "assign on every path?",
        )
    needed = DATA_ROLES + (controls if sequential else ())
    for role in needed:
        if role == "active" and mapping[role] not in design.ports:
            raise RtlInputError(
                "port",
                f"module {design.top} has no port {mapping[role]!r} for active "
                "(map another with --port active=NAME, or --active all when the "
                "unit has no mask: every lane active)",
            )
        _require(design, role, mapping[role])
    sew, lanes = design.width(mapping["seed"]), design.width(mapping["active"])
    expected = {
        "seed": sew,
        "elements": lanes * sew,
        "active": lanes,
        "result": sew,
        "rst": 1,
        "start": 1,
        "in_valid": 1,
        "last": 1,
        "done": 1,
    }
    what = {"elements": f"LANES*SEW = {lanes}*{sew}", "result": f"SEW = {sew} (the width of seed)"}
    for role in needed:
        width = design.width(mapping[role])
        if width != expected[role]:
            raise RtlInputError(
                "port",
                f"{_named(role, mapping)} is {width} bits wide, expected {what.get(role, expected[role])}",
            )
    for param, value in ((SEW_PARAM, sew), (LANES_PARAM, lanes)):
        if param in design.params and design.params[param] != value:
            raise RtlInputError(
                "port", f"the ports give {param}={value} but the parameter {param} is {design.params[param]}"
            )
    for role in explicit:
        if role not in needed:
            _require(design, role, mapping[role])
            if role in HANDSHAKE_ROLES and design.width(mapping[role]) != 1:
                raise RtlInputError(
                    "port", f"{_named(role, mapping)} is {design.width(mapping[role])} bits wide, expected 1"
                )
    # an active-low active port is rewritten by the view (views.py): the checks see it active high
    levels = frozenset(r for r in inverted if r != "active")
    return Interface(dict(mapping), sew, lanes, sequential, levels, active_mode)


def _named(role: str, mapping) -> str:
    return role if mapping[role] == role else f"{role} (port {mapping[role]})"


def _require(design: Design, role: str, name: str) -> None:
    direction = "output" if role in OUTPUT_ROLES else "input"
    if name not in design.ports:
        hint = "" if name != role else f" (map another with --port {role}=NAME)"
        raise RtlInputError("port", f"module {design.top} has no port {name!r} for {role}{hint}")
    if design.ports[name][0] != direction:
        raise RtlInputError(
            "port", f"{name} must be an {direction} ({role}), it is an {design.ports[name][0]}"
        )
