"""Exit codes and the user-error type shared by every subcommand."""

EXIT_OK = 0
EXIT_FAILED = 1      # a counterexample or a disagreement was found
EXIT_USAGE = 2       # bad input: one line on stderr, no traceback
EXIT_UNKNOWN = 3     # some obligation is UNKNOWN (timeout, solver gave up), none failed
EXIT_ERROR = 4       # some obligation is ERROR (e.g. vacuous assumptions)


class UsageError(Exception):
    """Bad input from the user, reported as one line naming the field."""
