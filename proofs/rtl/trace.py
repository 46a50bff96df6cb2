"""Counterexamples of RTL units, in the project's form.

The unit's inputs are mapped back to what the spec speaks of: the seed, the elements and
their active flags (for a multi-cycle unit, every element fed since `start`, chunk by chunk),
shown as the lane table of the seed's animation; then the spec's result and the unit's, every
value as `#xfe (254, -2)`. A multi-cycle counterexample also keeps its cycle-by-cycle trace
(written as a VCD waveform by `vcd.py`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import z3

from vredmax.impl.sequential import reduce_sequential
from vredmax.proofs.engine.counterexample import json_value
from vredmax.spec import relation as spec
from vredmax.spec.bv import ConcreteElements


@dataclass
class Reduction:
    """One reduction as the spec sees it: the seed, the elements and their active flags."""

    sew: int
    seed: int
    elements: list[int]
    active: list[bool]

    def spec_result(self) -> int:
        """The result the spec allows (unique): the executable model's sequential reduction."""
        return reduce_sequential(ConcreteElements(self.sew), self.seed, self.elements, self.active)

    def allows(self, result: int) -> bool:
        """Does the spec's characterisation (spec.relation.result_ok) accept this result?"""
        value = lambda v: z3.BitVecVal(v, self.sew)
        verdict = z3.simplify(
            spec.result_ok(
                value(result),
                value(self.seed),
                [value(e) for e in self.elements],
                [z3.BoolVal(bool(a)) for a in self.active],
            )
        )
        return z3.is_true(verdict)


@dataclass
class RtlCounterexample:
    """A concrete case where the unit breaks the spec (or the protocol, for `done`)."""

    sew: int
    lanes: int
    reduction: Reduction | None
    unit_result: int | None
    problem: str  # what went wrong, one sentence
    chunks: list[tuple[list[int], list[bool], bool]] = field(default_factory=list)  # (elements, active, last)
    cycles: list[dict] = field(default_factory=list)  # multi-cycle: signal -> value, per cycle
    ports: dict = field(default_factory=dict)  # combinational: port -> value
    at_cycle: int | None = None
    vcd_path: str | None = None
    notes: list[str] = field(default_factory=list)
    widths: dict = field(default_factory=dict)  # multi-cycle: signal -> bits (for the VCD)
    column_names: dict = field(default_factory=dict)  # multi-cycle: role -> port name

    CYCLE_COLUMNS = ("rst", "start", "in_valid", "last", "done", "result")
    MAX_CYCLE_ROWS = 40
    MAX_CHUNK_ROWS = 16

    @property
    def spec_result(self) -> int | None:
        return self.reduction.spec_result() if self.reduction else None

    def to_json(self) -> dict:
        r, sew = self.reduction, self.sew
        return {
            "sew": sew,
            "lanes": self.lanes,
            "problem": self.problem,
            "seed": json_value(r.seed, sew) if r else None,
            "elements": [json_value(v, sew) for v in r.elements] if r else [],
            "active": [bool(a) for a in r.active] if r else [],
            "spec": {"result": json_value(r.spec_result(), sew)} if r else None,
            "unit": {"result": json_value(self.unit_result, sew) if self.unit_result is not None else None},
            "ports": {name: hex(value) for name, value in self.ports.items()},
            "chunks": [
                {"elements": [hex(v) for v in values], "active": [bool(a) for a in flags], "last": last}
                for values, flags, last in self.chunks
            ],
            "cycles": [
                {
                    name: (hex(v) if isinstance(v, int) and not isinstance(v, bool) else v)
                    for name, v in cycle.items()
                }
                for cycle in self.cycles
            ],
            "at_cycle": self.at_cycle,
            "vcd": self.vcd_path,
            "notes": self.notes,
        }
