"""Choosing configurations from the command line, once for every command that proves or
checks over configurations (prove, ask, refute, check-impl).

The options are the same everywhere: `--vlen`, `--sew`, `--lmul` (repeatable, or comma
lists) and `--elen`, and so are their error messages (`--vlen: ...`). Each command supplies
its own base set (its defaults, or `--all`); the filters narrow it, and an empty result is
bad input.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from vredmax.cli.options import comma_values
from vredmax.runtime.errors import UsageError
from vredmax.spec.config import ELENS, LMUL_NAMES, MAX_VLEN, MIN_VLEN, SEWS, Config


def add_options(parser, one_elen: bool = True) -> None:
    """`--vlen`, `--sew`, `--lmul` and `--elen` (the command adds its own `--all`)."""
    parser.add_argument(
        "--vlen", action="append", metavar="N", help="only this VLEN (repeatable, or comma list)"
    )
    parser.add_argument("--sew", action="append", metavar="N", help="only this SEW: 8 16 32 64")
    parser.add_argument(
        "--lmul", action="append", metavar="L", help="only this LMUL: mf8 mf4 mf2 m1 m2 m4 m8"
    )
    if one_elen:
        parser.add_argument("--elen", default="64", metavar="N", help="ELEN: 32 or 64 (default 64)")
    else:
        parser.add_argument("--elen", action="append", metavar="N", help="only this ELEN: 32 or 64")


# ASCII digits, a few: str.isdigit() takes '²' (int() does not) and int() of 20,000 digits fails
_DIGITS = re.compile(r"[0-9]{1,20}")


def _choice(text: str, field: str, allowed) -> int:
    if not _DIGITS.fullmatch(text) or int(text) not in allowed:
        raise UsageError(f"{field}: must be one of {', '.join(map(str, allowed))}, got {text!r}")
    return int(text)


def _vlen(text: str) -> int:
    value = int(text) if _DIGITS.fullmatch(text) else None
    if value is None or value & (value - 1) or not MIN_VLEN <= value <= MAX_VLEN:
        raise UsageError(f"--vlen: must be a power of two from {MIN_VLEN} to {MAX_VLEN}, got {text!r}")
    return value


@dataclass(frozen=True)
class Filters:
    """What `--vlen`, `--elen`, `--sew` and `--lmul` ask for (empty: no filter)."""

    vlens: tuple[int, ...]
    elens: tuple[int, ...]
    sews: tuple[int, ...]
    lmuls: tuple[str, ...]

    def keep(self, configs) -> list[Config]:
        return [
            c
            for c in configs
            if (not self.vlens or c.vlen in self.vlens)
            and (not self.elens or c.elen in self.elens)
            and (not self.sews or c.sew in self.sews)
            and (not self.lmuls or c.lmul in self.lmuls)
        ]

    @property
    def elen(self) -> int:
        """The one ELEN of a command that takes a single `--elen` (default 64)."""
        return self.elens[0] if self.elens else 64


def filters(args, one_elen: bool = False) -> Filters:
    """The filters of the parsed options; `one_elen`: `--elen` takes a single value."""
    elens = tuple(_choice(v, "--elen", ELENS) for v in comma_values(_listed(args.elen)))
    if one_elen and len(elens) > 1:
        raise UsageError(f"--elen: give one ELEN (32 or 64), got {', '.join(map(str, elens))}")
    lmuls = tuple(comma_values(args.lmul))
    for lmul in lmuls:
        if lmul not in LMUL_NAMES:
            raise UsageError(f"--lmul: must be one of {', '.join(LMUL_NAMES)}, got {lmul!r}")
    return Filters(
        tuple(_vlen(v) for v in comma_values(args.vlen)),
        elens,
        tuple(_choice(v, "--sew", SEWS) for v in comma_values(args.sew)),
        lmuls,
    )


def _listed(value):
    return [value] if isinstance(value, str) else value


def chosen(configs, wanted: Filters) -> list[Config]:
    """The base configurations the filters keep; none is bad input."""
    kept = wanted.keep(configs)
    if not kept:
        raise UsageError(
            "--lmul: no legal configuration matches the filters "
            "(VLEN >= ELEN, SEW <= ELEN and SEW <= LMUL*ELEN)"
        )
    return kept
