"""`vredmax check-c FILE.c[:FUNCTION]`: check emulator code in C against the spec.

The file is compiled for this machine (proofs/c/build.py); the compiled code runs in child
processes (proofs/c/concrete.py) and is executed symbolically by angr in its own interpreter
(proofs/c/symbolic.py). proofs/c/check.py decides; this module prints.
"""

from __future__ import annotations

import json
import os
import tempfile

from vredmax.cli import configurations, options, terminal
from vredmax.presentation.counterexamples import counterexample_lines, replay_case, replay_lines
from vredmax.proofs.c.build import LEVELS, BuildError, build, parse_cflags
from vredmax.proofs.c.check import DEFAULT_STEP_VLMAX, DEFAULT_UNIT_VLMAX, STEP_VLEN, Options, check_c
from vredmax.proofs.engine.verdict import Verdict
from vredmax.runtime import limits
from vredmax.runtime.errors import EXIT_ERROR, EXIT_FAILED, EXIT_OK, EXIT_UNKNOWN, UsageError
from vredmax.runtime.outputs import check_writable_file, cut_short, write_json
from vredmax.schema import tagged
from vredmax.spec.config import ELENS, legal_configs

EXIT_CODES = {
    Verdict.PROVED: EXIT_OK,
    Verdict.COUNTEREXAMPLE: EXIT_FAILED,
    Verdict.UNKNOWN: EXIT_UNKNOWN,
    Verdict.ERROR: EXIT_ERROR,
}
LEVEL_TEXT = {
    "unit": "reduction unit uint64_t f(unsigned sew, uint64_t seed, const void *elements, "
    "const uint8_t *active, size_t n)",
    "step": "whole instruction int f(vredmax_state *s, uint32_t insn)",
}
VLENS = tuple(1 << k for k in range(7, 17))


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "check-c",
        help="check your emulator's C code (a reduction unit or a whole step) against the spec",
        description="Compile FILE.c (with vredmax_check.h, which this package ships) and check FUNCTION: a "
        "reduction unit (default name reduce) or a whole instruction step over struct vredmax_state "
        "(default name step); the level is told from its type. First concrete differential runs "
        "at every legal configuration with VLEN 128..65536 (the code called through ctypes, "
        "then again built with -fsanitize=address,undefined), then a symbolic proof with angr up "
        "to a VLMAX bound. Exit 0 only when PROVED; 1 counterexample, 3 unknown, 4 error.",
    )
    parser.add_argument("target", metavar="FILE.c[:FUNCTION]")
    parser.add_argument("--level", choices=LEVELS, help="the level (default: from FUNCTION's type)")
    parser.add_argument(
        "--cflags",
        default="",
        metavar="FLAGS",
        help="compiler flags, one string (default -O2; e.g. --cflags='-O3 -DFOO -Iinclude')",
    )
    configurations.add_options(parser, one_elen=False)
    parser.add_argument(
        "--symbolic-vlmax",
        metavar="N",
        help=f"the largest VLMAX the symbolic method tries (default {DEFAULT_UNIT_VLMAX} for a unit, "
        f"{DEFAULT_STEP_VLMAX} for a step at VLEN={STEP_VLEN}; 0: no proof, so at best UNKNOWN)",
    )
    options.add_check_options(
        parser,
        timeout_default="120",
        timeout_help="time limit of one symbolic execution, of each solver query and of each "
        "concrete call (at most 60 s) (default 120)",
        random_default="50",
        random_help="random cases per configuration, fewer at large VLMAX (default 50)",
    )
    parser.add_argument(
        "--memory-limit",
        default=str(limits.DEFAULT_MEMORY_MB),
        metavar="MB",
        help=limits.MEMORY_HELP.replace("your code", "your compiled code"),
    )
    parser.add_argument(
        "--engine-python",
        metavar="PATH",
        help="the Python that has angr (default: $VREDMAX_ANGR_PYTHON, this one, or .venv-angr "
        "next to this environment: `make angr`)",
    )
    parser.set_defaults(run=run)


def split_target(target: str) -> tuple[str, str | None]:
    path, sep, function = target.rpartition(":")
    if not sep or not path.endswith(".c") and os.path.isfile(target):
        return target, None
    if not function.isidentifier():
        raise UsageError(f"c: expected FILE.c[:FUNCTION] with FUNCTION a C identifier, got {target!r}")
    return path, function


def run(args) -> int:
    timeout = options.check_timeout(args.timeout)
    wanted = configurations.filters(args)
    elens = wanted.elens or ELENS  # both by default, as `prove`: a step's SEW > ELEN trap is checked
    configs = configurations.chosen(
        [c for elen in elens for c in legal_configs(elen, list(wanted.vlens) or list(VLENS))], wanted
    )
    configs.sort(key=lambda c: (c.vlmax, c.vlen, -c.sew, c.lmul))
    check_options = Options(
        random=options.natural(args.random, "--random"),
        seed=options.natural(args.seed, "--seed"),
        timeout_s=timeout,
        symbolic_vlmax=None
        if args.symbolic_vlmax is None
        else options.natural(args.symbolic_vlmax, "--symbolic-vlmax"),
        engine_python=args.engine_python,
        elens=tuple(elens),
        sews=wanted.sews,
        memory_mb=limits.memory_mb_value(args.memory_limit),
        limit_s=min(Options.limit_s, timeout),
    )  # a concrete call: at most --timeout too
    if args.case_out:
        check_writable_file(args.case_out, "--case-out")
    path, function = split_target(args.target)
    try:
        cflags = parse_cflags(args.cflags)
    except BuildError as error:
        raise UsageError(str(error)) from None
    with tempfile.TemporaryDirectory(prefix="vredmax-check-c-") as workdir:
        try:
            built = build(path, function, cflags, workdir, args.level)
        except BuildError as error:
            raise UsageError(str(error)) from None
        say = (lambda text: None) if args.json else terminal.say
        say(
            f"check-c {args.target}: {built.function} is a {LEVEL_TEXT[built.level]}; compiled with "
            f"{os.path.basename(built.compiler)} {' '.join(built.cflags)}; {len(configs)} configurations"
        )
        with cut_short():
            report = check_c(built, configs, check_options, say)
        if args.case_out and report.counterexample is not None:
            write_json(args.case_out, replay_case(report.counterexample), "--case-out")
        if args.json:
            print(json.dumps(tagged("check-c", report_json(args.target, built, report, configs)), indent=2))
        else:
            terminal.say("\n".join(report_lines(report, configs, args.case_out)))
    return EXIT_CODES[report.verdict]


def coverage(report, configs) -> str:
    vlens = sorted({c.vlen for c in configs})
    return (
        f"concrete: {report.cases('plain')} cases at {len(report.concrete)} of {len(configs)} configurations "
        f"(VLEN {vlens[0]}..{vlens[-1]}); sanitized: {report.cases('sanitized')} cases"
    )


def report_lines(report, configs, case_out: str | None = None) -> list[str]:
    lines = [""]
    cx = report.counterexample
    if cx is not None:
        lines += counterexample_lines(cx) + [""]
        lines += replay_lines(cx, case_out)
    verdict = report.verdict
    if verdict == Verdict.PROVED:
        lines.append(
            ("PROVED for every VLMAX:" if report.level == "unit" else "PROVED for every vl at VLEN=128:")
            if report.every_vlmax
            else "PROVED within these bounds (larger VLMAX: the concrete runs only):"
        )
    else:
        lines.append(f"{verdict.value}: {report.detail}")
        if report.symbolic:
            lines.append("symbolic:")
    if report.symbolic:
        lines += [f"  {b}" for b in report.bounds()]
    lines += [f"note: {n}" for n in report.notes]
    lines.append(f"Covered: {coverage(report, configs)}")
    counts = {v: sum(c.verdict == v for c in report.symbolic) for v in Verdict}
    lines.append(
        f"Summary: {counts[Verdict.PROVED]} proved, {counts[Verdict.COUNTEREXAMPLE]} counterexamples, "
        f"{counts[Verdict.UNKNOWN]} unknown, {counts[Verdict.ERROR]} errors (symbolic checks); "
        f"{report.seconds:.0f} s"
    )
    return lines


def report_json(target: str, built, report, configs) -> dict:
    cx = report.counterexample
    return {
        "target": target,
        "function": built.function,
        "level": report.level,
        "cflags": list(built.cflags),
        "verdict": report.verdict.value,
        "detail": report.detail,
        "bounds": report.bounds(),
        "notes": report.notes,  # why a method did not go through (an induction not proved...)
        "coverage": coverage(report, configs),
        "concrete": [{"config": str(r.cfg), "cases": r.cases, "error": r.error} for r in report.concrete],
        "sanitized_cases": report.cases("sanitized"),
        "symbolic": [
            {
                "what": c.what,
                "sew": c.sew,
                "vlmax": c.vlmax,
                "verdict": c.verdict.value,
                "detail": c.detail,
                "seconds": round(c.seconds, 3),
                "paths": c.paths,
                "solver": c.solver,
            }
            for c in report.symbolic
        ],
        "counterexample": cx.to_json() if cx is not None else None,
        "seconds": round(report.seconds, 3),
    }
