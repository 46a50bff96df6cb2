"""Exit codes and the user-error type shared by every subcommand."""

EXIT_OK = 0
EXIT_FAILED = 1      # the check ran and found a disagreement or a counterexample
EXIT_USAGE = 2       # bad input: one line on stderr, no traceback


class UsageError(Exception):
    """Bad input from the user, reported as one line naming the field."""
