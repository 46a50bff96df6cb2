"""`vredmax`: one entry point, a subcommand per job. Bad input exits 2 with one line."""

from __future__ import annotations

import argparse
import importlib
import os
import sys

from vredmax import __version__
from vredmax.cli import helptext
from vredmax.runtime.errors import EXIT_USAGE, UsageError
from vredmax.runtime.outputs import EXIT_INTERRUPTED, guarded

# Each command module has add_parser(subparsers), which sets `run` (args -> exit code).
# Imported when the parser is built (inside `entry`'s Ctrl-C handling: the solvers take a
# second or more to load).
COMMANDS = (
    "cmd_exec",
    "cmd_asm",
    "cmd_conform",
    "cmd_prove",
    "cmd_refute",
    "cmd_check_impl",
    "cmd_check_rtl",
    "cmd_check_c",
    "cmd_report",
    "cmd_judge",
    "cmd_explain",
    "cmd_ask",
    "cmd_testgen",
    "cmd_certify_check",
)
# A named command is parsed with its own module alone: loading every command's module costs
# half a second of each start, and `certify-check` must run without any SMT solver loaded.
MODULE_OF = {**{module[len("cmd_") :].replace("_", "-"): module for module in COMMANDS}, "disasm": "cmd_asm"}
# The commands that ask solvers keep their answers (proofs/engine/answers.py) unless --no-cache.
CACHED = ("prove", "report", "check-impl", "check-rtl", "ask", "refute")
DEBUG_HELP = (
    "on an internal error (exit 4), print its whole traceback too (it is always kept "
    "in a file named on the error's line)"
)


def build_parser(commands=COMMANDS) -> argparse.ArgumentParser:
    parser = helptext.Parser(
        prog="vredmax",
        description="Reference specification of RISC-V vredmax.vs: execute, prove, refute, check. "
        "`vredmax COMMAND --help` shows a command's options, examples and exit codes.",
        epilog=helptext.exit_table(helptext.ALL_EXITS),
        formatter_class=helptext.Formatter,
    )
    parser.add_argument("--version", action="version", version=f"vredmax {__version__}")
    parser.add_argument("--debug", action="store_true", help=DEBUG_HELP)
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in commands:
        importlib.import_module(f"vredmax.cli.{name}").add_parser(subparsers)
    for name in (n for n in CACHED if n in subparsers.choices):
        subparsers.choices[name].add_argument(
            "--no-cache",
            action="store_true",
            help="neither reuse nor keep solver answers (default: kept in the per-user cache folder, "
            "$XDG_CACHE_HOME/vredmax/answers or ~/.cache/vredmax/answers)",
        )
    for name, command in subparsers.choices.items():  # every --help: examples, then its exit codes
        # SUPPRESS: a subcommand's default must not reset `vredmax --debug COMMAND`'s True
        command.add_argument("--debug", action="store_true", default=argparse.SUPPRESS, help=DEBUG_HELP)
        command.epilog = helptext.epilog(name, command.epilog)
        command.formatter_class = helptext.Formatter
    return parser


def entry() -> None:
    """The console script: `main`, then exit without tearing the heap down. After a big proof
    the process holds millions of Z3 terms, and freeing them one by one took 6 s."""
    try:
        code = main()
    except KeyboardInterrupt:  # before the guard is in place (loading the commands)
        print("vredmax: interrupted", file=sys.stderr)
        code = EXIT_INTERRUPTED
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):  # already reported by the guard in main
        pass
    os._exit(code)


def main(argv=None) -> int:
    """Parse and run one command. Bad input, output errors (broken pipe, full disk, unwritable
    file), Ctrl-C and internal errors (exit 4) become one line on stderr and an exit code
    (vredmax/runtime/outputs.py); building the parser is inside that guard too."""
    argv = sys.argv[1:] if argv is None else list(argv)
    debug = "--debug" in argv[: argv.index("--")] if "--" in argv else "--debug" in argv
    return guarded(lambda: _parse_and_run(argv), debug)


def _parse_and_run(argv: list[str]) -> int:
    command = next((word for word in argv if word != "--debug"), None)
    alone = MODULE_OF.get(command)
    parser = build_parser((alone,) if alone else COMMANDS)
    try:
        args = parser.parse_args(argv)
    except UsageError as error:  # argparse's own mistakes, as one line
        print(f"vredmax: error: {error}", file=sys.stderr)
        return EXIT_USAGE
    options = set() if args.command in CASE_COMMANDS else _options_of(parser, args.command)
    return _run(args, options)


# their errors name a case's fields (`elen: ...` is the case's ELEN), never renamed as options
CASE_COMMANDS = {"exec", "explain", "judge", "asm", "disasm"}


def _options_of(parser, command: str) -> set[str]:
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return {name for action in sub.choices[command]._actions for name in action.option_strings}


def _run(args, options: set[str] = frozenset()) -> int:
    try:
        if not hasattr(args, "no_cache"):
            return args.run(args)
        from vredmax.proofs.engine import answers

        with answers.using(None if args.no_cache else answers.default_folder()):
            return args.run(args)
    except UsageError as error:
        raise _named_as_option(error, options) from None


def _named_as_option(error: UsageError, options: set[str]) -> UsageError:
    """Error fields in one style: an option is named as it is typed (`--seed: ...`), whichever
    layer found the mistake (`seed: ...`); a file or an argument keeps its name (`case: ...`)."""
    field, colon, rest = str(error).partition(": ")
    if colon and not field.startswith("-") and f"--{field}" in options:
        return UsageError(f"--{field}: {rest}")
    return error
