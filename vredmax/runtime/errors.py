"""Exit codes and the user-error type shared by every subcommand; user values in messages."""

import re
import sys

EXIT_OK = 0
EXIT_FAILED = 1  # a counterexample or a disagreement was found
EXIT_USAGE = 2  # bad input: one line on stderr, no traceback
EXIT_UNKNOWN = 3  # some obligation is UNKNOWN (timeout, solver gave up), none failed
EXIT_ERROR = 4  # some obligation is ERROR (e.g. vacuous assumptions)


# The widest value any input holds (a VLEN=65536 register): 19729 decimal digits. Python refuses
# int<->str conversions past 4300 digits by default; the tool's inputs must fit, and a wider
# number is refused by its bit count, never converted (shown_number).
MAX_INPUT_BITS = 65536
if sys.get_int_max_str_digits() and sys.get_int_max_str_digits() < 20000:
    sys.set_int_max_str_digits(20000)


class UsageError(Exception):
    """Bad input from the user, reported as one line naming the field."""


def shown_number(value) -> str:
    """A user's number (int or Fraction) for a one-line message: decimal when it is short, else
    its first and last hex digits and its width. str() of a huge integer is slow and, past
    Python's digit limit, an exception of its own (raised while formatting the refusal)."""
    numerator, denominator = getattr(value, "numerator", value), getattr(value, "denominator", 1)
    if denominator != 1:
        return f"{shown_number(numerator)}/{shown_number(denominator)}"
    value = int(numerator)
    if value.bit_length() <= 80:  # at most 25 decimal digits
        return str(value)
    digits = format(abs(value), "x")
    return f"{'-' if value < 0 else ''}0x{digits[:6]}...{digits[-4:]} ({value.bit_length()} bits)"


_LONG_RUN = re.compile(r"(0[xX])?[0-9a-fA-F_]{41,}")
MAX_LINE = 600


def one_line(message: str) -> str:
    """An error message as one readable line: line breaks joined, a long number shortened
    (`123456...7890 (19729 digits)`), the whole cut at MAX_LINE characters."""
    text = " ".join(str(message).split("\n"))
    text = _LONG_RUN.sub(
        lambda m: f"{m.group(0)[:8]}...{m.group(0)[-4:]} ({len(m.group(0))} characters)", text
    )
    return text if len(text) <= MAX_LINE else text[:MAX_LINE] + " ..."
