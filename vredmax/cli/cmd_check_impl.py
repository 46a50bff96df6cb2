"""`vredmax check-impl MODULE:FUNCTION`: prove a user's implementation against the spec.

The user's code runs in child processes (proofs/python/isolation.py): nothing it does (print, exit,
loop, crash) reaches this process's output or exit code except as a reported ERROR. The
configurations are spread by vredmax/cli/cluster.py (--jobs local processes, or --scheduler: a Dask
cluster); each one starts its own child wherever it runs.
"""

from __future__ import annotations

import json

from vredmax.cli import configurations, options as check_options
from vredmax.cli.cluster import add_arguments as add_worker_arguments, workers_from_args
from vredmax.presentation.check_impl import LEVEL_TEXT, report_json, report_lines, result_line
from vredmax.presentation.counterexamples import replay_case
from vredmax.runtime import limits
from vredmax.runtime.errors import EXIT_ERROR, EXIT_FAILED, EXIT_OK, EXIT_UNKNOWN, UsageError
from vredmax.proofs.python.check_impl import DEFAULT_RANDOM, DEFAULT_TIMEOUT_MS, LEVELS, UNIT, Report
from vredmax.proofs.python import session
from vredmax.proofs.engine.solvers import SOLVERS
from vredmax.proofs.engine.verdict import Verdict
from vredmax.schema import tagged
from vredmax.cli import terminal
from vredmax.runtime.outputs import check_writable_file, cut_short, write_json

EXIT_CODES = {
    Verdict.PROVED: EXIT_OK,
    Verdict.COUNTEREXAMPLE: EXIT_FAILED,
    Verdict.UNKNOWN: EXIT_UNKNOWN,
    Verdict.ERROR: EXIT_ERROR,
}


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "check-impl",
        help="prove your own implementation against the spec, or show a counterexample",
        description="Prove MODULE:FUNCTION against the spec relation. FUNCTION is a reduction unit "
        "reduce(ops, seed, elements, active) or a whole instruction "
        "step(m, pre, insn, cfg, tail) -> (traps, post); MODULE is a file path or a "
        "module name. Default: every SEW x LMUL at VLEN=128 and one configuration at each "
        "VLEN up to 65536 (a whole instruction: up to 4096). With --scheduler the configurations "
        "run on Dask workers, each in a child process there: a file MODULE must be at the "
        "same absolute path on every worker (a module name importable there), with the same "
        "vredmax installed. Exit 0 only when every configuration is PROVED; 1 counterexample, "
        "3 unknown, 4 error.",
    )
    parser.add_argument("target", metavar="MODULE:FUNCTION")
    parser.add_argument("--level", choices=LEVELS, help="the plug-in level (default: from the parameters)")
    parser.add_argument(
        "--all",
        action="store_true",
        help="every legal configuration (220 at ELEN=64; a whole instruction: VLEN <= 4096)",
    )
    configurations.add_options(parser)
    parser.add_argument(
        "--solver",
        choices=SOLVERS,
        help="solver for the whole-instruction queries (default: bitwuzla if installed, else z3)",
    )
    check_options.add_check_options(
        parser,
        timeout_default=str(DEFAULT_TIMEOUT_MS // 1000),
        timeout_help=f"time limit per solver query and per call of your code (default: {DEFAULT_TIMEOUT_MS // 1000}; a run on symbolic values beyond VLMAX 8192: VLMAX/8192 times it)",
        random_default=str(DEFAULT_RANDOM),
        random_help=f"random concrete states per configuration, run (with directed ones) before the proof "
        f"(default {DEFAULT_RANDOM})",
    )
    add_worker_arguments(
        parser,
        "configurations checked in parallel on this machine (default 1, as every command: "
        "--jobs 2 on two cores); "
        "each configuration runs your code in a fresh child process; with --scheduler, ignored",
    )
    parser.add_argument(
        "--memory-limit", default=str(limits.DEFAULT_MEMORY_MB), metavar="MB", help=limits.MEMORY_HELP
    )
    parser.set_defaults(run=run)


def configs_for(args, level: str) -> list:
    wanted = configurations.filters(args, one_elen=True)
    configs = session.select_configs(
        level, wanted.vlens, wanted.sews, wanted.lmuls, wanted.elen, args.all, prefix="--"
    )
    return configurations.chosen(configs, wanted)


def run(args) -> int:
    options = session.Options.parsed(
        args.timeout, args.solver, args.random, args.seed, prefix="--", memory_mb=args.memory_limit
    )
    workers = workers_from_args(args)
    target = session.Target.of(args.target)
    configs_for(args, args.level or UNIT)  # bad filters are reported before any loading
    if args.case_out:
        check_writable_file(args.case_out, "--case-out")
    detected, load_output = session.detect(
        target, memory_mb=options.memory_mb
    )  # before any worker: fail fast
    level = args.level or detected
    if level is None:
        raise UsageError(
            f"--level: cannot tell the plug-in level of {args.target} from its parameters; "
            "pass --level unit or --level instruction"
        )
    configs = configs_for(args, level)
    report = Report(level)
    report.output = load_output
    try:
        with cut_short(), workers as pool:  # connected before the first line: a bad --scheduler is one line
            if not args.json:
                terminal.say(
                    f"check-impl {args.target}: {LEVEL_TEXT[level]}; {len(configs)} configurations"
                    + ("" if workers.in_process else f" on {workers.where}")
                )
            with terminal.progress(len(configs), "check-impl", quiet=args.json) as bar:

                def on_result(result):
                    report.results.append(result)
                    if not args.json:
                        bar.log_verdict(result.verdict.value, result_line(result))
                    bar.advance()

                report = session.run(target, level, configs, options, pool, on_result, load_output)
    except KeyboardInterrupt:
        if not args.json:
            terminal.say(
                f"INTERRUPTED after {len(report.results)} configurations: no verdict "
                f"({report.count(Verdict.PROVED)} proved so far)"
            )
        raise
    if args.case_out and report.counterexample is not None:
        write_json(args.case_out, replay_case(report.counterexample), "--case-out")
    if args.json:
        print(json.dumps(tagged("check-impl", report_json(args.target, report)), indent=2))
    else:
        terminal.say("\n".join(report_lines(report, args.case_out)))
    return EXIT_CODES[report.verdict]
