"""The driver of `vredmax check-rtl`: elaborate the unit at each SEW asked and check it."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field

from vredmax.proofs.rtl import cocotb_test, frontend, sva, yosys
from vredmax.proofs.rtl.combinational import check_combinational
from vredmax.proofs.rtl.frontend import RtlInputError
from vredmax.proofs.rtl.ports import LANES_PARAM, SEW_PARAM, interface
from vredmax.proofs.rtl.seq_unit import HORIZON
from vredmax.proofs.rtl.sequential import Protocol, check_sequential
from vredmax.proofs.rtl.vcd import write_vcd
from vredmax.proofs.rtl.views import NO_SEED, SEW_PLACEHOLDER, Layout, Target, build_view, pin_value, target
from vredmax.proofs.engine.verdict import Verdict

DEFAULT_SEWS = (8, 16, 32, 64)
RANK = {Verdict.PROVED: 0, Verdict.UNKNOWN: 1, Verdict.ERROR: 2, Verdict.COUNTEREXAMPLE: 3}
ACTIVE_BOUNDS = {
    "mask": "every active mask",
    "all": "every lane active (no mask: masking is left to the hardware around the unit)",
    "below-vl": "active = the elements below vl (masks of that "
    "form only: masking by v0 is left to the hardware around the unit)",
}


@dataclass
class SewResult:
    sew: int
    lanes: int
    kind: str  # "combinational" or "multi-cycle"
    verdict: Verdict
    seconds: float
    outcome: object  # CombOutcome or SeqOutcome
    slot: int | None = None  # SIMD: the slot checked
    layout: str = ""
    active_mode: str = "mask"

    @property
    def bounds(self) -> str:
        o = self.outcome
        where = f"SEW={self.sew} LANES={self.lanes}" + (f" slot {self.slot}" if self.slot is not None else "")
        layout = f"; {self.layout}" if self.layout else ""
        if self.kind == "combinational":
            methods = ", ".join(
                m.method
                for m in o.methods
                if m.verdict == Verdict.PROVED and m.method in ("cut points", "monolithic")
            )
            if self.active_mode == "mask":
                inputs = (
                    f"every seed, element value and active mask "
                    f"(2^{self.sew * (self.lanes + 1) + self.lanes} input combinations)"
                )
            else:
                inputs = f"every seed and element value, {ACTIVE_BOUNDS[self.active_mode]}"
            return f"{where}: {inputs}{layout}; {methods}"
        active = "" if self.active_mode == "mask" else f", {ACTIVE_BOUNDS[self.active_mode]}"
        return (
            f"{where}: every number of chunks (any vl){active}, every cycle after reset, done within "
            f"{o.latency} cycle(s) of the last chunk{layout}; {o.method}, and {o.bounded}"
        )


@dataclass
class RtlReport:
    files: list
    top: str
    verdict: Verdict
    kind: str = ""
    results: list[SewResult] = field(default_factory=list)
    detail: str = ""
    notes: list[str] = field(default_factory=list)
    emitted: list[str] = field(default_factory=list)  # the SymbiYosys projects written (--emit-sby)

    def bounds(self) -> list[str]:
        """What was proved, one line per SEW (the SIMD slots of a SEW in one line)."""
        lines, slots = [], {}
        for r in self.results:
            if r.verdict != Verdict.PROVED:
                continue
            if r.slot is None:
                lines.append(r.bounds)
                continue
            text = r.bounds.replace(f" slot {r.slot}:", " slot<SLOTS>:", 1)
            if text not in slots:
                slots[text] = []
                lines.append(text)
            slots[text].append(r.slot)
        return [
            line.replace("<SLOTS>", _ranges(slots[line]) + " (each)") if line in slots else line
            for line in lines
        ]

    @property
    def counterexample(self):
        for r in self.results:
            if r.outcome.counterexample is not None:
                return r.outcome.counterexample
        return None


@dataclass
class Options:
    """What the user said about the unit beyond its files (the command's options)."""

    mapping: dict = field(default_factory=dict)  # role -> port or field
    explicit_roles: tuple = ()
    inverted: frozenset = frozenset()
    pins: list = field(default_factory=list)  # [(target text, value text)]
    layout: Layout = Layout()
    active: str = "mask"
    protocol: Protocol = Protocol()
    latency: int | None = None
    accumulator: str | None = None
    units: str = "per-file"  # compilation units: frontend.UNITS
    emit_sby: str | None = None  # a folder for the SymbiYosys projects (sva.py)
    cocotb_out: str | None = None  # where to write a counterexample's cocotb test


def check_rtl(
    sources,
    top: str,
    params: dict[str, int],
    options: Options,
    sews=None,
    timeout_ms: int = 60_000,
    vcd_path: str | None = None,
    on_result=None,
    elen: int = 64,
) -> RtlReport:
    """Check the unit at each SEW (default: those it supports up to ELEN); stop at the first SEW
    that is not proved."""
    base = frontend.elaborate(list(sources), top, params, options.units)
    if params.get(LANES_PARAM, 1) < 1:
        raise RtlInputError("param", f"{LANES_PARAM} must be at least 1, got {params[LANES_PARAM]}")
    report = RtlReport(list(sources), top, Verdict.PROVED)
    pins = [(target(base, text, "pin"), value) for text, value in options.pins]
    layout = options.layout
    sew_param = SEW_PARAM in base.parameters and not base.parameters[SEW_PARAM].local
    runtime = not sew_param and (
        any(SEW_PLACEHOLDER in v for _, v in pins) or layout.lane_width or layout.simd_width
    )
    if sew_param or runtime:
        widths = _supported(sews, pins, layout, elen, report, explicit=sews is not None)
    else:
        widths = [None]
    designs = {}
    for sew in widths:
        elaboration = (
            frontend.elaborate(list(sources), top, {**params, SEW_PARAM: sew}, options.units)
            if sew_param
            else base
        )
        key = sew if sew_param else None
        if key not in designs:
            designs[key] = yosys.elaborate(elaboration)
        design = designs[key]
        if sew is None:
            sew = _fixed_sew(design, options, elaboration)
            if sews and sew not in sews:
                raise RtlInputError("sew", f"the unit's SEW is fixed at {sew} (no SEW parameter)")
        slots = range(layout.slots(sew)) if layout.simd_width else [None]
        for slot in slots:
            view, iface = _view(design, elaboration, sew, pins, options, slot)
            seen = view.design
            _notes(report, base, seen, iface, view, designs[key])
            start = time.perf_counter()
            if iface.sequential:
                if options.mapping.get("seed") == NO_SEED:
                    raise RtlInputError(
                        "port",
                        "seed=none is for combinational units (a multi-cycle unit takes its seed with start)",
                    )
                report.kind = "multi-cycle"
                outcome = check_sequential(
                    seen, iface, timeout_ms, options.latency, options.accumulator, protocol=options.protocol
                )
            else:
                report.kind = "combinational"
                if options.accumulator is not None or options.latency is not None:
                    raise RtlInputError(
                        "accumulator" if options.accumulator is not None else "latency",
                        "only for multi-cycle units (this one has no registers)",
                    )
                outcome = check_combinational(seen, iface, timeout_ms)
            result = SewResult(
                iface.sew,
                iface.lanes,
                report.kind,
                outcome.verdict,
                time.perf_counter() - start,
                outcome,
                slot,
                layout.describe(sew),
                options.active,
            )
            report.results.append(result)
            if on_result:
                on_result(result)
            if options.emit_sby and slot in (None, 0):  # one checker holds every SIMD slot
                report.emitted.append(_emit(elaboration, iface, pins, options, outcome))
            cx = outcome.counterexample
            if cx is not None and options.cocotb_out:
                _write_cocotb(options, elaboration, view, iface, cx, slot)
            if cx is not None and cx.cycles:
                path = vcd_path or default_vcd_path(top, iface.sew)
                write_vcd(path, cx.cycles, cx.widths, top)
                cx.vcd_path = path
            if outcome.verdict != Verdict.PROVED:
                where = f"SEW={iface.sew}" + (f" slot {slot}" if slot is not None else "")
                report.verdict, report.detail = outcome.verdict, f"{where}: {outcome.detail}"
                report.notes = list(dict.fromkeys(report.notes))
                return report
    report.notes = list(dict.fromkeys(report.notes))
    return report


def _view(design, elaboration, sew: int, pins, options: Options, slot):
    """The unit at this SEW (and SIMD slot) in the conventions, and its interface."""
    roles = {role: _role_target(elaboration, name) for role, name in options.mapping.items()}
    view = build_view(
        design, elaboration, sew, pins, roles, options.inverted, options.layout, slot, options.active == "all"
    )
    iface = interface(view.design, view.names, options.explicit_roles, options.inverted, options.active)
    if iface.sew != sew:
        raise RtlInputError(
            "port",
            f"seed ({view.names['seed']}) is {iface.sew} bits wide, expected "
            f"SEW={sew}; for SEW-bit elements in wider lanes give --lane-width",
        )
    return view, iface


def _emit(elaboration, iface, pins, options: Options, outcome) -> str:
    """The SymbiYosys project of this SEW's check (sva.py); its path."""
    roles = {role: _role_target(elaboration, name) for role, name in options.mapping.items()}
    latency = getattr(outcome, "latency", None)
    latency = latency if latency is not None else options.latency if options.latency is not None else HORIZON
    unit = sva.Unit(
        elaboration,
        iface.sew,
        roles,
        options.inverted,
        pins,
        options.layout,
        options.active,
        iface.sequential,
        options.protocol,
        latency,
    )
    return sva.write(unit, options.emit_sby)[1]


def _write_cocotb(options: Options, elaboration, view, iface, cx, slot) -> None:
    roles = {role: _role_target(elaboration, name) for role, name in options.mapping.items()}
    clock = roles["clk"].port if iface.sequential else None
    text = cocotb_test.render(
        elaboration.top, cx, view, elaboration.ports, roles, options.inverted, iface.sew, slot, clock
    )
    with open(options.cocotb_out, "w") as f:
        f.write(text)
    cx.notes.append(f"written as a cocotb test: {options.cocotb_out}")


def unit_view(sources, top: str, params: dict[str, int], options: Options, sew: int, slot=None):
    """(view, interface) of the unit at one SEW, as check_rtl sees it (for replaying counterexamples)."""
    base = frontend.elaborate(list(sources), top, params, options.units)
    sew_param = SEW_PARAM in base.parameters and not base.parameters[SEW_PARAM].local
    elaboration = (
        frontend.elaborate(list(sources), top, {**params, SEW_PARAM: sew}, options.units)
        if sew_param
        else base
    )
    pins = [(target(elaboration, text, "pin"), value) for text, value in options.pins]
    return _view(yosys.elaborate(elaboration), elaboration, sew, pins, options, slot)


def _supported(sews, pins, layout: Layout, elen: int, report: RtlReport, explicit: bool) -> list[int]:
    """The SEWs to check: those asked, or every SEW up to ELEN (and the lane or word width)
    whose {SEW} pins name a member that exists."""
    word = layout.lane_width or layout.simd_width
    wanted = list(sews or [s for s in DEFAULT_SEWS if s <= elen])
    found = []
    for sew in wanted:
        if word and sew > word:
            if explicit:
                raise RtlInputError("sew", f"SEW={sew} is wider than the {word}-bit lane or word")
            report.notes.append(f"SEW={sew} not checked: wider than the {word}-bit lane or word")
            continue
        missing = [f"{t.text}={v}" for t, v in pins if pin_value(t, v, sew) is None]
        if missing:
            if explicit:
                raise RtlInputError("pin", f"{missing[0]}: no such member at SEW={sew}")
            report.notes.append(
                f"SEW={sew} not checked: {missing[0].replace(SEW_PLACEHOLDER, str(sew))} "
                "names no member (the unit does not support it)"
            )
            continue
        found.append(sew)
    if not found:
        raise RtlInputError("sew", "no SEW left to check (see --sew, --lane-width, the {SEW} pins)")
    return found


def _role_target(elaboration, name: str) -> Target:
    if name == NO_SEED:
        return Target(name, name, 0, 0)
    base = name.split("[", 1)[0].split(".", 1)[0]
    if base in elaboration.ports or any(name.startswith(original) for original in elaboration.renames):
        return target(elaboration, name, "port")
    return Target(name, name, 0, 0)  # missing: interface() says so, naming the role


def _fixed_sew(design, options: Options, elaboration) -> int:
    name = options.mapping.get("seed", "seed")
    if name == NO_SEED:
        name = options.mapping.get("result", "result")
    t = _role_target(elaboration, name)
    if t.port not in design.ports:
        raise RtlInputError(
            "port",
            f"module {design.top} has no port {t.port!r} for seed"
            + (" (map another with --port seed=NAME)" if name == "seed" else ""),
        )
    return t.width


def _notes(report: RtlReport, base, design, iface, view, raw) -> None:
    report.notes += base.notes
    if LANES_PARAM not in base.parameters and iface.active_mode == "mask":
        report.notes.append(
            f"no LANES parameter: LANES={iface.lanes} from the width of {iface.names['active']}"
        )
    report.notes += [note for note in view.notes if note]
    extra = [n for n, (d, _) in design.ports.items() if d == "input" and n not in iface.names.values()]
    if extra and not view.later_slot:
        report.notes.append(f"inputs outside the conventions, left free (any value): {', '.join(extra)}")
    undriven = [n for n in design.inputs if n not in design.ports]
    if undriven and not view.later_slot:
        report.notes.append(
            f"undriven nets and 'x' values, taken as inputs free in every cycle: {_short(undriven)}"
        )


def _ranges(values: list[int]) -> str:
    values = sorted(values)
    if len(values) == 1:
        return f" {values[0]}"
    if values == list(range(values[0], values[-1] + 1)):
        return f"s {values[0]}-{values[-1]}"
    return "s " + ",".join(map(str, values))


def _short(names: list[str], most: int = 8) -> str:
    return ", ".join(names[:most]) + (f" and {len(names) - most} more" if len(names) > most else "")


def default_vcd_path(top: str, sew: int) -> str:
    return os.path.join(os.getcwd(), f"{top}.sew{sew}.counterexample.vcd")
