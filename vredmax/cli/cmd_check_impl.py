"""`vredmax check-impl MODULE:FUNCTION`: prove a user's implementation against the spec.

The user's code runs in child processes (proofs/python/isolation.py): nothing it does (print, exit,
loop, crash) reaches this process's output or exit code except as a reported ERROR. The
configurations are spread by vredmax/cli/cluster.py (--jobs local processes, or --scheduler: a Dask
cluster); each one starts its own child wherever it runs.
"""

from __future__ import annotations

import json
import os
import re

from vredmax.cli import configurations
from vredmax.presentation.counterexamples import counterexample_lines
from vredmax.cli.cluster import add_arguments as add_worker_arguments, workers_from_args
from vredmax.runtime.errors import EXIT_ERROR, EXIT_FAILED, EXIT_OK, EXIT_UNKNOWN, UsageError
from vredmax.proofs.python.check_impl import (DEFAULT_RANDOM, DEFAULT_TIMEOUT_MS, INSTRUCTION, INSTRUCTION_MAX_VLEN,
                                       LEVELS, UNIT, all_configs, check_implementation,
                                       default_configs, order)
from vredmax.proofs.engine.solvers import SOLVERS, available, versions
from vredmax.proofs.engine.verdict import Verdict
from vredmax.schema import tagged
from vredmax.spec.config import legal_configs
from vredmax.cli import terminal
from vredmax.runtime.outputs import check_writable_file, cut_short, write_json

MAX_TIMEOUT_S = 1_000_000     # solvers take milliseconds as a 32-bit number
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
                    "module name. Default: every SEW x LMUL at VLEN=128 and one configuration at each "
                    "VLEN up to 65536 (a whole instruction: up to 4096). With --scheduler the configurations "
                    "run on Dask workers, each in a child process there: a file MODULE must be at the "
                    "same absolute path on every worker (a module name importable there), with the same "
                    "vredmax installed. Exit 0 only when every configuration is PROVED; 1 counterexample, "
                    "3 unknown, 4 error.")
    parser.add_argument("target", metavar="MODULE:FUNCTION")
    parser.add_argument("--level", choices=LEVELS, help="the plug-in level (default: from the parameters)")
    parser.add_argument("--all", action="store_true",
                        help="every legal configuration (220 at ELEN=64; a whole instruction: VLEN <= 4096)")
    configurations.add_options(parser)
    parser.add_argument("--solver", choices=SOLVERS,
                        help="solver for the whole-instruction queries (default: bitwuzla if installed, else z3)")
    parser.add_argument("--timeout", default=str(DEFAULT_TIMEOUT_MS // 1000), metavar="SECONDS",
                        help="time limit per solver query and per call of your code "
                             f"(default: {DEFAULT_TIMEOUT_MS // 1000})")
    parser.add_argument("--random", default=str(DEFAULT_RANDOM), metavar="N",
                        help=f"random concrete states per configuration, run (with directed ones) before the proof "
                             f"(default {DEFAULT_RANDOM})")
    parser.add_argument("--seed", default="0", metavar="N", help="seed of the random states (default 0)")
    add_worker_arguments(parser, "configurations checked in parallel on this machine (default 1, as every command: "
                                 "--jobs 2 on two cores); "
                                 "each configuration runs your code in a fresh child process; with --scheduler, ignored")
    parser.add_argument("--case-out", metavar="FILE",
                        help="write the counterexample's case (the `vredmax exec` format) to FILE")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    parser.set_defaults(run=run)


def _int(text: str, field: str, minimum: int = 0) -> int:
    try:
        value = int(text)
    except (TypeError, ValueError):
        raise UsageError(f"{field}: expected an integer, got {text!r}") from None
    if value < minimum:
        raise UsageError(f"{field}: must be at least {minimum}, got {value}")
    return value


def configs_for(args, level: str) -> list:
    wanted = configurations.filters(args, one_elen=True)
    for vlen in wanted.vlens:
        if level == INSTRUCTION and vlen > INSTRUCTION_MAX_VLEN:
            raise UsageError(f"--vlen: a whole instruction is checked up to VLEN={INSTRUCTION_MAX_VLEN}, got {vlen}")
    if wanted.vlens:
        configs = legal_configs(wanted.elen, wanted.vlens)
    else:
        configs = all_configs(level, wanted.elen) if args.all else default_configs(level, wanted.elen)
    return order(configurations.chosen(configs, wanted))


def run(args) -> int:
    from vredmax.proofs.python.isolation import Job, Jobs, LoadFailed, portable_target, probe
    try:
        timeout = float(args.timeout)
    except ValueError:
        raise UsageError(f"--timeout: expected seconds, got {args.timeout!r}") from None
    if not 0 < timeout <= MAX_TIMEOUT_S:     # also nan and inf
        raise UsageError(f"--timeout: must be positive and at most {MAX_TIMEOUT_S} seconds, got {args.timeout}")
    if args.solver and not available(args.solver):
        raise UsageError(f"--solver: {args.solver} is not installed")
    random_states = _int(args.random, "--random")
    seed = _int(args.seed, "--seed")
    workers = workers_from_args(args)
    if ":" not in args.target or args.target.startswith(":") or args.target.endswith(":"):
        raise UsageError(f"impl: expected MODULE:FUNCTION (a file path or a module name), got {args.target!r}")
    configs_for(args, args.level or UNIT)    # bad filters are reported before any loading
    if args.case_out:
        check_writable_file(args.case_out, "--case-out")
    options = (("timeout_ms", int(timeout * 1000)), ("solver", args.solver),
               ("random_states", random_states), ("seed", seed))
    target, cwd = portable_target(args.target), os.getcwd()
    try:
        detected, load_output = probe(target, cwd)     # here, before any worker: fail fast
    except LoadFailed as error:
        raise UsageError(f"impl: {error}") from None
    level = args.level or detected
    if level is None:
        raise UsageError(f"--level: cannot tell the plug-in level of {args.target} from its parameters; "
                         "pass --level unit or --level instruction")
    configs = configs_for(args, level)
    from vredmax.proofs.python.check_impl import Report
    report = Report(level)
    report.output = load_output
    try:
        with cut_short(), workers as pool:   # connected before the first line: a bad --scheduler is one line
            if not args.json:
                terminal.say(f"check-impl {args.target}: {LEVEL_TEXT[level]}; {len(configs)} configurations"
                             + ("" if workers.in_process else f" on {workers.where}"))
            with terminal.progress(len(configs), "check-impl", quiet=args.json) as bar:
                def on_result(result):
                    report.results.append(result)
                    if not args.json:
                        bar.log_verdict(result.verdict.value, result_line(result))
                    bar.advance()
                jobs = Jobs(pool, lambda cfg: Job(target, cwd, level, cfg, timeout, options))
                try:
                    final = check_implementation(jobs, level, configs, on_result=on_result)
                except LoadFailed as error:   # a worker could not load it (a Dask worker: no such file?)
                    raise UsageError(f"impl: {error}") from None
        final.output = load_output
        report = final
    except KeyboardInterrupt:
        if not args.json:
            terminal.say(f"INTERRUPTED after {len(report.results)} configurations: no verdict "
                         f"({report.count(Verdict.PROVED)} proved so far)")
        raise
    if args.case_out and report.counterexample is not None:
        write_json(args.case_out, cx_case(report.counterexample), "--case-out")
    if args.json:
        print(json.dumps(tagged("check-impl", report_json(args.target, report)), indent=2))
    else:
        terminal.say("\n".join(report_lines(report, args.case_out)))
    return EXIT_CODES[report.verdict]


def result_line(result) -> str:
    cfg = result.cfg
    # 80 columns: verdict 15, configuration 35, VLMAX 12, method 11, time (the random states are
    # counted in the Covered line)
    text = f"{str(cfg):<34} VLMAX={cfg.vlmax:<5} {result.method:<10} {result.seconds:5.1f}s"
    for note in result.notes:
        if result.counterexample is not None:   # one witness: the replayable one, shown below
            note = LOCAL_WITNESS.sub(r"\1", note)
        text += f"\n    note: {note}"
    for check in result.checks:
        if check.verdict != Verdict.PROVED:
            detail = check.detail if result.counterexample is None else LOCAL_WITNESS.sub(r"\1", check.detail)
            text += f"\n    {check.verdict.value} (tail {check.tail}, {check.method})" + (
                f": {detail}" if detail else "")
    return text


# The cut-point analysis's own witness (proofs/python/cutpoint.py: the values at one node) in a
# note, when the monolithic query then found the counterexample that is shown (minimised)
LOCAL_WITNESS = re.compile(r"(is not a signed max of its inputs): with .*?, which is no signed max of a choice of "
                           r"them(; no concrete counterexample was found, so the unit may still be right)?", re.S)


INLINE_CASE_LIMIT = 400   # characters of a case shown inline (VLEN=65536 registers are not)


def report_lines(report, case_out: str | None = None) -> list[str]:
    lines = [""]
    if report.counterexample is not None:
        cx = report.counterexample
        lines += counterexample_lines(cx) + [""]
        case = json.dumps(cx_case(cx))
        if case_out:
            lines += ["Replay it:", f"  vredmax exec {case_out}    # the case, written there", ""]
        elif len(case) <= INLINE_CASE_LIMIT:
            lines += ["Replay it: save the case below as case.json, then run vredmax exec case.json",
                      f"  {case}", ""]
        else:
            lines += [f"Replay it: the case has {len(case)} characters; write it with --case-out FILE "
                      "(or take counterexample.case from --json), then vredmax exec FILE", ""]
    outputs: dict[str, list[str]] = {}    # the same output at many configurations: shown once
    for where, text in [("while loading", report.output)] + [(f"at {r.cfg}", r.output) for r in report.results]:
        if text.strip():
            outputs.setdefault(text, []).append(where)
    for text, places in outputs.items():
        more = f" and {len(places) - 1} more" if len(places) > 1 else ""
        lines.append(f"output of the implementation ({places[0]}{more}):")
        lines += ["  | " + line for line in text.rstrip("\n").split("\n")]
    lines += [f"note: {note}" for note in report.notes]
    verdict = report.verdict
    if verdict == Verdict.PROVED:
        lines.append("PROVED: the implementation refines the spec at every configuration checked:")
    else:
        lines.append(f"{verdict.value}: {_once(report)}")
        if report.bounds:
            lines.append("proved:")
    lines += [f"  {b}" for b in report.bounds]
    if report.not_checked:
        lines.append(f"not checked (stopped at the counterexample): {len(report.not_checked)} configurations")
    lines.append(f"Covered: {report.coverage()}")
    lines.append(report.summary())
    return lines


def _once(report) -> str:
    """The verdict's detail, unless a configuration's line above printed it already: then where
    it was (each error is printed once)."""
    for result in report.results:
        for check in result.checks:
            if check.verdict != Verdict.PROVED and check.detail and report.detail.endswith(check.detail):
                where = report.detail[:-len(check.detail)].rstrip(": ")
                return f"{where} (the {check.verdict.value} under that configuration above)"
    return report.detail


def cx_case(cx) -> dict:
    from vredmax.impl.case import case_json
    return case_json(cx.pre, cx.insn, cx.tail)


def report_json(target: str, report) -> dict:
    cx = report.counterexample
    return {
        "target": target, "level": report.level, "verdict": report.verdict.value,
        "detail": report.detail, "bounds": report.bounds, "notes": report.notes,
        "coverage": report.coverage(),
        "summary": {v.value: report.count(v) for v in Verdict},
        "random_states": report.random_states,
        "not_checked": [str(c) for c in report.not_checked],
        "solvers": versions(),
        "configurations": [{
            "config": {"vlen": r.cfg.vlen, "elen": r.cfg.elen, "sew": r.cfg.sew, "lmul": r.cfg.lmul,
                       "vlmax": r.cfg.vlmax},
            "verdict": r.verdict.value, "method": r.method, "seconds": round(r.seconds, 3),
            "random_states": r.random_states, "output": r.output, "notes": r.notes,
            "checks": [{"tail": c.tail, "method": c.method, "verdict": c.verdict.value, "solver": c.solver,
                        "detail": c.detail, "seconds": round(c.seconds, 3)} for c in r.checks],
        } for r in report.results],
        "output": report.output,
        "counterexample": cx.to_json() if cx is not None else None,
    }
