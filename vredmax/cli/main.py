"""`vredmax`: one entry point, a subcommand per job. Bad input exits 2 with one line."""

from __future__ import annotations

import argparse
import importlib
import os
import sys

from vredmax import __version__
from vredmax.runtime.outputs import EXIT_INTERRUPTED, guarded

# Each command module has add_parser(subparsers), which sets `run` (args -> exit code).
EXIT_CODES = """exit codes:
  0    ok: proved, agreed, executed
  1    a counterexample, violation or mismatch was found
  2    bad input or an output error (one line naming the field or file)
  3    unknown: a solver gave up or timed out (nothing failed)
  4    error: e.g. vacuous assumptions, a checker fault
  130  interrupted (Ctrl-C): partial results are marked INTERRUPTED"""
# Imported when the parser is built (inside `entry`'s Ctrl-C handling: the solvers take a
# second or more to load).
COMMANDS = ("cmd_exec", "cmd_asm", "cmd_conform", "cmd_prove", "cmd_refute", "cmd_check_impl", "cmd_check_rtl",
            "cmd_report", "cmd_judge", "cmd_explain", "cmd_ask", "cmd_testgen")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="vredmax",
        description="Reference specification of RISC-V vredmax.vs: execute, prove, refute, check.",
        epilog=EXIT_CODES, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"vredmax {__version__}")
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in COMMANDS:
        importlib.import_module(f"vredmax.cli.{name}").add_parser(subparsers)
    for command in subparsers.choices.values():   # every --help ends with the exit codes
        command.epilog = f"{command.epilog}\n\n{EXIT_CODES}" if command.epilog else EXIT_CODES
        if command.formatter_class is argparse.HelpFormatter:
            command.formatter_class = argparse.RawDescriptionHelpFormatter
    return parser


def entry() -> None:
    """The console script: `main`, then exit without tearing the heap down. After a big proof
    the process holds millions of Z3 terms, and freeing them one by one took 6 s."""
    try:
        code = main()
    except KeyboardInterrupt:   # before the guard is in place (loading the commands)
        print("vredmax: interrupted", file=sys.stderr)
        code = EXIT_INTERRUPTED
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):   # already reported by the guard in main
        pass
    os._exit(code)


def main(argv=None) -> int:
    """Parse and run one command. Bad input, output errors (broken pipe, full disk, unwritable
    file) and Ctrl-C become one line on stderr and an exit code (vredmax/runtime/outputs.py)."""
    args = build_parser().parse_args(argv)
    return guarded(lambda: args.run(args))
