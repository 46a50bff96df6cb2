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
