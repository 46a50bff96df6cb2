"""`vredmax check-rtl FILE.sv ... --top MODULE`: prove an RTL reduction unit against the spec."""

from __future__ import annotations

import json
import os

from vredmax.cli.options import hidden_alias
from vredmax.presentation.counterexamples import rtl_counterexample_lines
from vredmax.runtime.errors import EXIT_ERROR, EXIT_FAILED, EXIT_OK, EXIT_UNKNOWN, UsageError
from vredmax.proofs.rtl.check import Options, check_rtl
from vredmax.proofs.rtl.frontend import UNITS, RtlInputError
from vredmax.proofs.rtl.manifests import bender_arguments, fusesoc_arguments
from vredmax.proofs.rtl.ports import ACTIVE_MODES, parse_ports
from vredmax.proofs.rtl.protocol import DONE_MODES, Protocol
from vredmax.proofs.rtl.views import EXTENSIONS, Layout
from vredmax.proofs.engine.verdict import Verdict
from vredmax.schema import tagged
from vredmax.cli import terminal
from vredmax.spec.config import SEWS

EXIT_CODES = {
    Verdict.PROVED: EXIT_OK,
    Verdict.COUNTEREXAMPLE: EXIT_FAILED,
    Verdict.UNKNOWN: EXIT_UNKNOWN,
    Verdict.ERROR: EXIT_ERROR,
}
SCHEMA_KIND = "check-rtl"


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "check-rtl",
        help="prove a SystemVerilog reduction unit against the spec (slang and Yosys)",
        description="Prove a combinational or multi-cycle vredmax reduction unit written in SystemVerilog "
        "against the spec, or show a counterexample. Sources are given as to a simulator: "
        "files, -f FILES.f, +incdir+DIR, +define+NAME=VALUE. Needs the rtl extra "
        "(pip install 'vredmax[rtl]'). Exit 0 proved, 1 counterexample, 3 unknown, 4 error.",
    )
    parser.add_argument(
        "files",
        nargs="*",
        metavar="FILE.sv",
        help="source files (packages too, in any order), +incdir+DIR, +define+NAME=VALUE",
    )
    parser.add_argument(
        "-f",
        dest="command_files",
        action="append",
        default=[],
        metavar="FILES.f",
        help="a command file of sources and options, paths relative to the working folder",
    )
    parser.add_argument(
        "-F",
        dest="relative_command_files",
        action="append",
        default=[],
        metavar="FILES.f",
        help="a command file whose paths are relative to itself",
    )
    parser.add_argument(
        "-I",
        dest="include_dirs",
        action="append",
        default=[],
        metavar="DIR",
        help="an include folder (as +incdir+DIR)",
    )
    parser.add_argument(
        "-D",
        dest="defines",
        action="append",
        default=[],
        metavar="NAME[=VALUE]",
        help="a macro (as +define+NAME=VALUE)",
    )
    parser.add_argument(
        "--bender",
        metavar="DIR",
        help="read the sources from DIR/Bender.yml and its Bender.lock (the dependencies where "
        "bender checked them out; nothing is fetched)",
    )
    parser.add_argument(
        "--bender-target",
        action="append",
        default=[],
        metavar="TARGET",
        help="a Bender target that holds (repeatable), as bender's -t",
    )
    parser.add_argument(
        "--core",
        metavar="NAME",
        help="read the sources from a FuseSoC core (its VLNV or name), found in --fusesoc-lib",
    )
    parser.add_argument(
        "--fusesoc-lib",
        action="append",
        default=[],
        metavar="DIR",
        help="a folder of FuseSoC .core files (repeatable)",
    )
    parser.add_argument(
        "--core-target",
        default="default",
        metavar="TARGET",
        help="the target of the core whose filesets and defines are read (default: default)",
    )
    parser.add_argument(
        "--units",
        choices=UNITS,
        default="per-file",
        help="compilation units: per-file (default; a file-scope import stays in its file) or one "
        "across all files (as Verilator and most simulators compile a file list: a "
        "file-scope import reaches the files after it)",
    )
    parser.add_argument("--top", required=True, metavar="MODULE", help="the unit's module")
    parser.add_argument(
        "--param",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="set a parameter (repeatable); SEW is set by --sew",
    )
    parser.add_argument(
        "--port",
        action="append",
        default=[],
        metavar="ROLE=NAME",
        help="the port playing a role, when not named after it (repeatable): "
        "seed elements active result clk rst start in_valid last done, and the optional "
        "handshakes in_ready (an output: a chunk is taken with in_valid and in_ready) and "
        "out_ready (an input: done waits, held, until out_ready); NAME may be a "
        "field (ctrl.first_cycle) or bits (ctrl[3:0]); ROLE=!NAME for an active-low "
        "rst, start, in_valid, last or active",
    )
    parser.add_argument(
        "--pin",
        action="append",
        default=[],
        metavar="PORT=VALUE",
        help="fix an input (or a field of it) to a constant (repeatable): an integer or a member "
        "of its enum, e.g. op_i=VREDMAX; {SEW} in VALUE is the SEW checked (vew_i=EW{SEW})",
    )
    parser.add_argument(
        "--lane-width",
        type=int,
        metavar="W",
        help="SEW-bit elements in W-bit lanes (seed, elements, result); see --extend",
    )
    parser.add_argument(
        "--extend",
        choices=EXTENSIONS,
        default="free",
        help="the upper bits of a lane: the element's sign or zero extension, or free "
        "(any value; the default)",
    )
    parser.add_argument(
        "--simd",
        type=int,
        metavar="W",
        help="SIMD words of W/SEW elements: slot j of the result reduces slot j of the seed "
        "and of every word of elements (each slot checked)",
    )
    parser.add_argument(
        "--active",
        choices=ACTIVE_MODES,
        default="mask",
        help="mask: any active mask (default); all: every lane active (a unit without a mask); "
        "below-vl: the elements below vl only (masking left to other hardware)",
    )
    parser.add_argument(
        "--start-with-chunk",
        action="store_true",
        help="multi-cycle: the first chunk comes in the cycle of start (with in_valid)",
    )
    parser.add_argument(
        "--done",
        choices=DONE_MODES,
        default="pulse",
        help="multi-cycle: done is a one-cycle pulse (default) or a level held with the result "
        "until the next start",
    )
    parser.add_argument(
        "--sew",
        action="append",
        default=[],
        metavar="SEW",
        help="the SEW values to check (repeatable or comma-separated; default 8,16,32,64)",
    )
    parser.add_argument(
        "--elen",
        type=int,
        default=64,
        choices=(32, 64),
        help="ELEN: with 32, SEW=64 is not a legal element width (default 64)",
    )
    parser.add_argument(
        "--accumulator",
        metavar="NAME",
        help="multi-cycle: the register holding the running maximum (default: found by the tool)",
    )
    parser.add_argument(
        "--latency",
        type=int,
        metavar="N",
        help="multi-cycle: done must come at most N cycles after the last chunk "
        "(default: the latency measured by simulation)",
    )
    hidden_alias(parser, "--vcd", dest="vcd")
    parser.add_argument(
        "--vcd-out",
        dest="vcd",
        metavar="PATH",
        help="where to write a counterexample's waveform (default: TOP.sewN.counterexample.vcd)",
    )
    parser.add_argument(
        "--emit-sby",
        metavar="DIR",
        help="also write the property as a SystemVerilog checker bound to the unit and a "
        "SymbiYosys project per SEW (TOP.sewN.sv, TOP.sewN.sby; sby -f runs ABC's PDR)",
    )
    parser.add_argument(
        "--cocotb-out",
        metavar="FILE",
        help="write a counterexample as a cocotb test (FILE.py): the unit's inputs cycle by cycle "
        "and the spec's result, for Icarus or Verilator",
    )
    parser.add_argument("--timeout", type=float, default=60.0, metavar="SECONDS", help="time limit per query")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    parser.set_defaults(run=run)


def parse_params(items) -> dict[str, int]:
    params = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not name:
            raise UsageError(f"--param: expected NAME=VALUE, got {item!r}")
        try:
            params[name] = int(value.replace("_", ""), 0)
        except ValueError:
            raise UsageError(f"--param: {name}: expected an integer, got {value!r}") from None
        if name == "SEW":
            raise UsageError("--param: set SEW with --sew")
    return params


def parse_pins(items) -> list[tuple[str, str]]:
    pins = []
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not name or not value:
            raise UsageError(f"--pin: expected PORT=VALUE, got {item!r}")
        pins.append((name, value))
    return pins


def parse_sews(items) -> list[int] | None:
    if not items:
        return None
    found = []
    for item in items:
        for text in item.split(","):
            try:
                sew = int(text)
            except ValueError:
                raise UsageError(f"--sew: expected 8, 16, 32 or 64, got {text!r}") from None
            if sew not in SEWS:
                raise UsageError(f"--sew: must be one of {', '.join(map(str, SEWS))}, got {sew}")
            found.append(sew)
    return list(dict.fromkeys(found))


def manifest_sources(args) -> list[str]:
    """Simulator arguments from --bender or --core (manifests.py)."""
    if args.bender_target and not args.bender:
        raise UsageError("--bender-target: only with --bender DIR")
    if args.fusesoc_lib and not args.core:
        raise UsageError("--fusesoc-lib: only with --core NAME")
    if args.core and not args.fusesoc_lib:
        raise UsageError("--core: give the folder of its .core files with --fusesoc-lib DIR")
    try:
        found = []
        if args.bender:
            if not os.path.isdir(args.bender):
                raise UsageError(f"--bender: no such folder: {args.bender}")
            found += bender_arguments(args.bender, args.bender_target)
        if args.core:
            found += fusesoc_arguments(args.core, args.fusesoc_lib, args.core_target)
    except RtlInputError as error:
        raise UsageError(str(error)) from None
    return found


def run(args) -> int:
    if args.timeout <= 0:
        raise UsageError(f"--timeout: must be positive, got {args.timeout:g}")
    if args.latency is not None and args.latency < 0:
        raise UsageError(f"--latency: must be at least 0, got {args.latency}")
    params, sews = parse_params(args.param), parse_sews(args.sew)
    sources = manifest_sources(args) + list(args.files)
    for flag, items in (("-f", args.command_files), ("-F", args.relative_command_files)):
        for item in items:
            if not os.path.isfile(item):
                raise UsageError(f"file: no such command file: {item}")
            sources += [flag, item]
    sources += [f"+incdir+{d}" for d in args.include_dirs] + [f"+define+{d}" for d in args.defines]
    if not sources and not args.command_files and not args.relative_command_files:
        raise UsageError("file: no source files (give FILE.sv ..., -f FILES.f, --bender DIR or --core NAME)")
    for width, name in ((args.lane_width, "--lane-width"), (args.simd, "--simd")):
        if width is not None and (width < 8 or width % 8):
            raise UsageError(f"{name}: must be a multiple of 8, got {width}")
    if args.lane_width is not None and args.simd is not None:
        raise UsageError("--simd: give --lane-width or --simd, not both")
    if args.extend != "free" and args.lane_width is None:
        raise UsageError("--extend: only with --lane-width")
    if sews is not None and any(sew > args.elen for sew in sews):
        raise UsageError(f"--sew: {max(sews)} is wider than ELEN={args.elen}")
    explicit = [item.partition("=")[0] for item in args.port]

    def progress(result):
        if not args.json:
            slot = f" slot {result.slot}" if result.slot is not None else ""
            terminal.print_verdict(
                result.verdict.value,
                f"SEW={result.sew:<3} LANES={result.lanes:<3}{slot} "
                f"{result.kind:<13} {result.seconds:6.1f} s",
                indent="  ",
            )

    try:
        mapping, inverted = parse_ports(args.port)
        mapped = set(explicit)
        options = Options(
            mapping,
            tuple(explicit),
            inverted,
            parse_pins(args.pin),
            Layout(args.lane_width, args.extend, args.simd),
            args.active,
            Protocol(
                args.start_with_chunk,
                args.done,
                args.active,
                in_ready="in_ready" in mapped,
                out_ready="out_ready" in mapped,
            ),
            args.latency,
            args.accumulator,
            args.units,
            args.emit_sby,
            args.cocotb_out,
        )
        if not args.json:
            listed = (
                sources
                if not (args.bender or args.core)
                else [
                    f"--bender {args.bender}" if args.bender else f"--core {args.core}",
                    f"({sum(not s.startswith('+') for s in sources)} files)",
                ]
            )
            terminal.say(f"check-rtl {' '.join(listed)} --top {args.top}")
        report = check_rtl(
            sources, args.top, params, options, sews, int(args.timeout * 1000), args.vcd, progress, args.elen
        )
    except RtlInputError as error:
        raise UsageError(str(error)) from None
    if args.json:
        print(json.dumps(report_json(report), indent=2))
    else:
        terminal.say("\n".join(report_lines(report)))
    return EXIT_CODES[report.verdict]


def report_lines(report) -> list[str]:
    lines = [""]
    cx = report.counterexample
    if cx is not None:
        lines += rtl_counterexample_lines(cx) + [""]
    lines += [f"note: {note}" for note in report.notes]
    lines += [f"wrote {path} (sby -f {os.path.basename(path)}, in its folder)" for path in report.emitted]
    proved = [r for r in report.results if r.verdict == Verdict.PROVED]
    if report.verdict == Verdict.PROVED:
        lines.append(
            f"PROVED: the {report.kind} unit {report.top} computes vredmax.vs's reduction, within these bounds:"
        )
    else:
        lines.append(f"{report.verdict.value}: {report.detail}")
        if proved:
            lines.append("proved before that:")
    lines += [f"  {line}" for line in report.bounds()]
    last = report.results[-1] if report.results else None
    if last is not None:
        lines.append("methods:")
        for m in last.outcome.methods:
            lines.append(
                f"  SEW={last.sew} {m.method:<11} {m.verdict.value:<14} {m.seconds:6.2f} s  {m.detail}"
            )
        if last.kind == "multi-cycle" and last.verdict == Verdict.PROVED:
            lines.append("the induction assumed (environment):")
            lines += [f"  {a}" for a in last.outcome.assumptions]
            if "PDR" in last.outcome.method:
                lines.append(
                    "PDR proved the property; the induction before it had not closed. Invariants it "
                    "had found (each holds after reset and is kept by every step; given to PDR, not "
                    "enough alone):"
                    if last.outcome.invariants
                    else "PDR proved the property; the induction before it had found no inductive invariant."
                )
            else:
                lines.append(
                    "and proved these invariants (each holds after reset and is kept by every step):"
                )
            lines += [f"  {i}" for i in last.outcome.invariants]
    return lines


def report_json(report) -> dict:
    cx = report.counterexample
    return tagged(
        SCHEMA_KIND,
        {
            "files": report.files,
            "top": report.top,
            "kind": report.kind,
            "verdict": report.verdict.value,
            "detail": report.detail,
            "notes": report.notes,
            "bounds": report.bounds(),
            "results": [
                {
                    "sew": r.sew,
                    "lanes": r.lanes,
                    "slot": r.slot,
                    "verdict": r.verdict.value,
                    "seconds": round(r.seconds, 3),
                    "method": getattr(r.outcome, "method", "") or None,
                    "depth": getattr(r.outcome, "depth", None),
                    "methods": [
                        {
                            "method": m.method,
                            "verdict": m.verdict.value,
                            "seconds": round(m.seconds, 3),
                            "detail": m.detail,
                        }
                        for m in r.outcome.methods
                    ],
                    "latency": getattr(r.outcome, "latency", None),
                    "assumptions": getattr(r.outcome, "assumptions", []),
                    "invariants": getattr(r.outcome, "invariants", []),
                }
                for r in report.results
            ],
            "counterexample": cx.to_json() if cx is not None else None,
            "sby_projects": report.emitted,
        },
    )
