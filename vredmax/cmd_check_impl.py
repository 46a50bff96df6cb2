"""`vredmax check-impl MODULE:FUNCTION`: prove a user's implementation against the spec."""

from __future__ import annotations

import json

from vredmax.proofs.check_impl import (DEFAULT_TIMEOUT_MS, INSTRUCTION, LARGE_CONFIGS, LEVELS, SMALL_CONFIGS,
                               UNIT, LoadError, candidate_configs, check_implementation, detect_level,
                               load, select_configs)
from vredmax.proofs.solvers import SOLVERS, available
from vredmax.proofs.verdict import Verdict
from vredmax.spec.config import LMUL_NAMES, SEWS, check_machine
from vredmax.errors import EXIT_ERROR, EXIT_FAILED, EXIT_OK, EXIT_UNKNOWN, UsageError

EXIT_CODES = {Verdict.PROVED: EXIT_OK, Verdict.COUNTEREXAMPLE: EXIT_FAILED,
              Verdict.UNKNOWN: EXIT_UNKNOWN, Verdict.ERROR: EXIT_ERROR}
LEVEL_TEXT = {UNIT: "reduction unit reduce(ops, seed, elements, active), run inside impl.execute.step",
              INSTRUCTION: "whole instruction step(m, pre, insn, cfg, tail) -> (traps, post)"}


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "check-impl", help="prove your own implementation against the spec, or show a counterexample",
        description="Prove MODULE:FUNCTION against the spec relation. FUNCTION is a reduction unit "
                    "reduce(ops, seed, elements, active) or a whole instruction "
                    "step(m, pre, insn, cfg, tail) -> (traps, post); MODULE is a file path or a "
                    "module name. Exit 0 when proved, 1 on a counterexample.")
    parser.add_argument("target", metavar="MODULE:FUNCTION")
    parser.add_argument("--level", choices=LEVELS, help="the plug-in level (default: from the parameters)")
    parser.add_argument("--vlen", type=int, help="only this VLEN")
    parser.add_argument("--sew", type=int, help="only this SEW")
    parser.add_argument("--lmul", help="only this LMUL (mf8 ... m8)")
    parser.add_argument("--solver", choices=SOLVERS,
                        help="solver for the whole-instruction queries (default: bitwuzla if installed, else z3)")
    parser.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT_MS / 1000, metavar="SECONDS",
                        help=f"time limit per query (default: {DEFAULT_TIMEOUT_MS // 1000})")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    parser.set_defaults(run=run)


def configs_for(args) -> list:
    if args.vlen is not None:
        try:
            check_machine(args.vlen, 64)
        except ValueError as error:
            raise UsageError(str(error)) from None
    if args.sew is not None and args.sew not in SEWS:
        raise UsageError(f"sew: must be one of {', '.join(map(str, SEWS))}, got {args.sew}")
    if args.lmul is not None and args.lmul not in LMUL_NAMES:
        raise UsageError(f"lmul: must be one of {' '.join(LMUL_NAMES)}, got {args.lmul!r}")
    if args.vlen is None and args.sew is None and args.lmul is None:
        return list(SMALL_CONFIGS + LARGE_CONFIGS)
    configs = select_configs(candidate_configs(args.vlen), args.vlen, args.sew, args.lmul)
    if not configs:
        raise UsageError("vlen: no legal configuration matches the --vlen/--sew/--lmul filters")
    return configs


def run(args) -> int:
    if args.timeout <= 0:
        raise UsageError(f"timeout: must be positive, got {args.timeout:g}")
    if args.solver and not available(args.solver):
        raise UsageError(f"solver: {args.solver} is not installed")
    configs = configs_for(args)
    try:
        function = load(args.target)
    except LoadError as error:
        raise UsageError(f"impl: {error}") from None
    level = args.level or detect_level(function)
    if level is None:
        raise UsageError(f"level: cannot tell the plug-in level of {args.target} from its parameters; "
                         "pass --level unit or --level instruction")
    if not args.json:
        print(f"check-impl {args.target}: {LEVEL_TEXT[level]}", flush=True)

    def progress(check):
        if not args.json:
            print(f"  {check.verdict.value:<14} {str(check.cfg):<37} tail {check.tail:<11} {check.method:<13} "
                  f"{check.seconds:6.1f} s  {check.solver}", flush=True)

    report = check_implementation(function, level, configs, int(args.timeout * 1000),
                                  solver=args.solver, on_check=progress)
    if args.json:
        print(json.dumps(report_json(args.target, report), indent=2))
    else:
        print("\n".join(report_lines(report)))
    return EXIT_CODES[report.verdict]


def report_lines(report) -> list[str]:
    lines = [""]
    if report.counterexample is not None:
        lines += report.counterexample.text() + [""]
    lines += [f"note: {note}" for note in report.notes]
    if report.verdict == Verdict.PROVED:
        lines.append("PROVED: the implementation refines the spec, within these bounds:")
    else:
        lines.append(f"{report.verdict.value}: {report.detail}")
        if report.bounds:
            lines.append("proved before that:")
    lines += [f"  {b}" for b in report.bounds]
    return lines


def report_json(target: str, report) -> dict:
    return {
        "target": target, "level": report.level, "verdict": report.verdict.value,
        "detail": report.detail, "bounds": report.bounds, "notes": report.notes,
        "checks": [{"config": str(c.cfg), "vlmax": c.cfg.vlmax, "tail": c.tail, "method": c.method,
                    "verdict": c.verdict.value, "solver": c.solver, "detail": c.detail,
                    "seconds": round(c.seconds, 3)} for c in report.checks],
        "counterexample": report.counterexample.to_json() if report.counterexample else None,
    }
