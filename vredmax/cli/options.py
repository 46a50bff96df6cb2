"""Parsing the command-line values that several commands share."""

from __future__ import annotations

import argparse

from vredmax.runtime.errors import UsageError


def comma_values(options) -> list[str]:
    """The values of a repeatable option that also takes comma lists (`--vlen 128,256 --vlen 512`)."""
    return [v.strip() for option in options or [] for v in option.split(",") if v.strip()]


def positive_int(text, field: str) -> int:
    """An integer >= 1, or a UsageError naming the option."""
    try:
        value = int(text)
    except (TypeError, ValueError):
        raise UsageError(f"{field}: expected a positive integer, got {text!r}") from None
    if value < 1:
        raise UsageError(f"{field}: expected a positive integer, got {text!r}")
    return value


def rows(text: str) -> int:
    """argparse type of `--max-rows` (exec and explain alike): an integer >= 0."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be an integer 0 or more, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be an integer 0 or more, got {text!r}")
    return value


def hidden_alias(parser, *names: str, dest: str, **kwargs) -> None:
    """An earlier spelling of an option, still accepted and not shown in --help
    (docs/reference/output.md#shared-options has the names in use)."""
    parser.add_argument(*names, dest=dest, help=argparse.SUPPRESS, **kwargs)


# check-impl and check-c: the options of a check of the user's code ---------------------------

MAX_TIMEOUT_S = 1_000_000  # solvers take milliseconds as a 32-bit number


def add_check_options(
    parser, *, timeout_default: str, timeout_help: str, random_default: str, random_help: str
) -> None:
    """--timeout, --random, --seed, --case-out and --json, as check-impl and check-c take them
    (read back with `check_timeout` and `natural`)."""
    parser.add_argument("--timeout", default=timeout_default, metavar="SECONDS", help=timeout_help)
    parser.add_argument("--random", default=random_default, metavar="N", help=random_help)
    parser.add_argument("--seed", default="0", metavar="N", help="seed of the random states (default 0)")
    parser.add_argument(
        "--case-out",
        metavar="FILE",
        help="write the counterexample's case (the `vredmax exec` format) to FILE",
    )
    parser.add_argument("--json", action="store_true", help="print the result as JSON")


def check_timeout(text: str) -> float:
    """The --timeout of a check: positive seconds, at most MAX_TIMEOUT_S (nan and inf refused)."""
    try:
        timeout = float(text)
    except ValueError:
        raise UsageError(f"--timeout: expected seconds, got {text!r}") from None
    if not 0 < timeout <= MAX_TIMEOUT_S:
        raise UsageError(f"--timeout: must be positive and at most {MAX_TIMEOUT_S} seconds, got {text}")
    return timeout


def natural(text, field: str, minimum: int = 0) -> int:
    """An integer >= minimum (0 by default), or a UsageError naming the option."""
    try:
        value = int(text)
    except (TypeError, ValueError):
        raise UsageError(f"{field}: expected an integer, got {text!r}") from None
    if value < minimum:
        raise UsageError(f"{field}: must be at least {minimum}, got {value}")
    return value
