"""The driver of `vredmax check-rtl`: elaborate the unit at each SEW asked and check it."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field

from vredmax.proofs.rtl import yosys
from vredmax.proofs.rtl.combinational import check_combinational
from vredmax.proofs.rtl.ports import LANES_PARAM, SEW_PARAM, interface
from vredmax.proofs.rtl.sequential import check_sequential
from vredmax.proofs.rtl.vcd import write_vcd
from vredmax.proofs.engine.verdict import Verdict

DEFAULT_SEWS = (8, 16, 32, 64)
RANK = {Verdict.PROVED: 0, Verdict.UNKNOWN: 1, Verdict.ERROR: 2, Verdict.COUNTEREXAMPLE: 3}


@dataclass
class SewResult:
    sew: int
    lanes: int
    kind: str                       # "combinational" or "multi-cycle"
    verdict: Verdict
    seconds: float
    outcome: object                 # CombOutcome or SeqOutcome

    @property
    def bounds(self) -> str:
        o = self.outcome
        if self.kind == "combinational":
            methods = ", ".join(m.method for m in o.methods if m.verdict == Verdict.PROVED
                                and m.method in ("cut points", "monolithic"))
            return (f"SEW={self.sew} LANES={self.lanes}: every seed, element value and active mask "
                    f"(2^{self.sew * (self.lanes + 1) + self.lanes} input combinations); {methods}")
        return (f"SEW={self.sew} LANES={self.lanes}: every number of chunks (any vl), every cycle after "
                f"reset, done within {o.latency} cycle(s) of the last chunk; induction, and a bounded "
                f"check of cycles 1..{o.depth}")


@dataclass
class RtlReport:
    files: list
    top: str
    verdict: Verdict
    kind: str = ""
    results: list[SewResult] = field(default_factory=list)
    detail: str = ""
    notes: list[str] = field(default_factory=list)

    @property
    def counterexample(self):
        for r in self.results:
            if r.outcome.counterexample is not None:
                return r.outcome.counterexample
        return None


def check_rtl(files, top: str, params: dict[str, int], mapping: dict[str, str], sews=None,
              timeout_ms: int = 60_000, latency: int | None = None, accumulator: str | None = None,
              vcd_path: str | None = None, explicit_roles=(), on_result=None, inverted=frozenset()) -> RtlReport:
    """Check the unit at each SEW (default: 8, 16, 32, 64 when it has a SEW parameter, else
    the width of its seed port); stop at the first SEW that is not proved."""
    available = yosys.module_parameters(files, top)
    for name in params:
        if name not in available:
            listed = ", ".join(available) if available else "none"
            raise yosys.RtlInputError("param", f"module {top} has no parameter {name!r} (parameters: {listed})")
    if params.get(LANES_PARAM, 1) < 1:
        raise yosys.RtlInputError("param", f"{LANES_PARAM} must be at least 1, got {params[LANES_PARAM]}")
    report = RtlReport(list(files), top, Verdict.PROVED)
    if SEW_PARAM in available and SEW_PARAM not in params:
        widths = list(sews or DEFAULT_SEWS)
    else:
        widths = [None]
    for sew in widths:
        setting = dict(params)
        if sew is not None:
            setting[SEW_PARAM] = sew
        design = yosys.elaborate(files, top, setting)
        iface = interface(design, mapping, explicit_roles, inverted)
        if sew is None and sews and iface.sew not in sews:
            raise yosys.RtlInputError("sew", f"the unit's SEW is fixed at {iface.sew} (no SEW parameter)")
        if LANES_PARAM not in available:
            report.notes.append(f"no LANES parameter: LANES={iface.lanes} from the width of "
                                f"{iface.names['active']}")
        extra = [n for n, (d, _) in design.ports.items() if d == "input" and n not in iface.names.values()]
        if extra:
            report.notes.append(f"inputs outside the conventions, left free (any value): {', '.join(extra)}")
        if design.undriven:
            report.notes.append(f"undriven nets and 'x' values, taken as inputs free in every cycle: "
                                f"{', '.join(design.undriven)}")
        start = time.perf_counter()
        if iface.sequential:
            report.kind = "multi-cycle"
            outcome = check_sequential(design, iface, timeout_ms, latency, accumulator)
        else:
            report.kind = "combinational"
            if accumulator is not None or latency is not None:
                raise yosys.RtlInputError("accumulator" if accumulator is not None else "latency",
                                          "only for multi-cycle units (this one has no registers)")
            outcome = check_combinational(design, iface, timeout_ms)
        result = SewResult(iface.sew, iface.lanes, report.kind, outcome.verdict, time.perf_counter() - start, outcome)
        report.results.append(result)
        if on_result:
            on_result(result)
        cx = outcome.counterexample
        if cx is not None and cx.cycles:
            path = vcd_path or default_vcd_path(top, iface.sew)
            write_vcd(path, cx.cycles, cx.widths, top)
            cx.vcd_path = path
        if outcome.verdict != Verdict.PROVED:
            report.verdict, report.detail = outcome.verdict, f"SEW={iface.sew}: {outcome.detail}"
            break
    report.notes = list(dict.fromkeys(report.notes))
    return report


def default_vcd_path(top: str, sew: int) -> str:
    return os.path.join(os.getcwd(), f"{top}.sew{sew}.counterexample.vcd")
