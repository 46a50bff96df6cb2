"""`vredmax`: one entry point, a subcommand per job. Bad input exits 2 with one line."""

from __future__ import annotations

import argparse
import os
import sys

from vredmax import cmd_asm, cmd_conform, cmd_exec
from vredmax import cmd_prove
from vredmax import cmd_check_impl, cmd_refute, cmd_report
from vredmax import cmd_judge
from vredmax.errors import EXIT_USAGE, UsageError

# Each command module has add_parser(subparsers), which sets `run` (args -> exit code).
COMMANDS = (cmd_exec, cmd_asm, cmd_conform, cmd_prove, cmd_refute, cmd_check_impl, cmd_report, cmd_judge)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="vredmax",
        description="Reference specification of RISC-V vredmax.vs: execute, prove, refute, check.")
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for module in COMMANDS:
        module.add_parser(subparsers)
    return parser


def entry() -> None:
    """The console script: `main`, then exit without tearing the heap down. After a big proof
    the process holds millions of Z3 terms, and freeing them one by one took 6 s."""
    code = main()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BrokenPipeError:
        pass
    os._exit(code)


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.run(args)
    except UsageError as error:
        print(f"vredmax: error: {error}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("vredmax: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
