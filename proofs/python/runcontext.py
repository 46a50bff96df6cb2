"""The context of a run of the user's code on symbolic values (proofs/python/values.py): the
active context, where in the user's code a value is used, and a refusal naming that line.

`Context` answers only constants and refuses the rest; proofs/python/paths.py's contexts explore
both ways of a branch or merge it. `internal(path)` marks a checker file, whose frames are not
the user's (`where()` skips them).
"""

from __future__ import annotations

import linecache
import os
import sys

from vredmax.proofs.python import trace
from vredmax.proofs.python.trace import SymbolicUse

_Z3_DIR = os.path.dirname(os.path.abspath(sys.modules["z3"].__file__)) if "z3" in sys.modules else None
INTERNAL_FILES = trace.INTERNAL_FILES  # files whose frames are not the user's


def internal(path: str) -> None:
    INTERNAL_FILES.add(os.path.abspath(path))
    trace._INTERNAL_NAMES.clear()


internal(__file__)


# The context of a run --------------------------------------------------------------------


class Refusal(SymbolicUse):
    """The user's code used a symbolic value where its Python value is needed and the run
    cannot give it; the message names the user's file and line. `kind` is "branch" for a
    truth test."""

    location = ("<unknown>", 0)
    kind = "use"

    def verb(self) -> str:
        return "branches on a symbolic value at" if self.kind == "branch" else "uses a symbolic value at"


_ACTIVE: list = []


def active():
    return _ACTIVE[-1] if _ACTIVE else None


def where() -> tuple[str, int]:
    """(file, line) of the user's code: the innermost frame outside the checker and z3."""
    frame = sys._getframe(1)
    first = None
    while frame is not None:
        name = os.path.abspath(frame.f_code.co_filename)
        if name not in INTERNAL_FILES and not (_Z3_DIR and name.startswith(_Z3_DIR)):
            cx = active()
            if cx is None or not cx.user_files or name in cx.user_files:
                return frame.f_code.co_filename, frame.f_lineno
            first = first or (frame.f_code.co_filename, frame.f_lineno)
        frame = frame.f_back
    return first or ("<unknown>", 0)


def source_line(location) -> str:
    return linecache.getline(location[0], location[1]).strip()


class Context:
    """How a run answers the questions a term cannot (see paths.py for the exploring one).
    This one answers only constants and refuses the rest."""

    def __init__(self, user_files=()):
        self.user_files = {os.path.abspath(f) for f in user_files}
        self.refusals: list = []
        self.guards: list = []  # the conditions of the merged branches being run (paths.py)

    def __enter__(self):
        _ACTIVE.append(self)
        if len(_ACTIVE) == 1 and self.user_files:
            self._previous_trace = sys.gettrace()
            sys.settrace(self._watch)
        return self

    def __exit__(self, *exc):
        _ACTIVE.remove(self)
        if not _ACTIVE and self.user_files:
            sys.settrace(getattr(self, "_previous_trace", None))
        return False

    # A C function handed a symbolic value may refuse it with its own TypeError (an unbound
    # int method, `int.to_bytes(x, ...)`, a format): seen in the user's frames, it is recorded
    # as a refusal, so that code catching it cannot take another path than on ints.
    def _watch(self, frame, event, arg):
        if event == "call" and os.path.abspath(frame.f_code.co_filename) in self.user_files:
            frame.f_trace_lines = False
            return self._exception
        return None

    def _exception(self, frame, event, arg):
        if event == "exception":
            kind, error, _ = arg
            if (
                issubclass(kind, (TypeError, ValueError, AttributeError))
                and not isinstance(error, Refusal)
                and any(name in str(error) for name in PROXY_NAMES)
            ):
                refusal = Refusal(
                    f"{frame.f_code.co_filename}:{frame.f_lineno}: {kind.__name__}: {error} "
                    "(a Python int is needed here, the value is symbolic); "
                    + advice_for("use", (frame.f_code.co_filename, frame.f_lineno))
                )
                refusal.location = (frame.f_code.co_filename, frame.f_lineno)
                self.refusals.append(refusal)
        return self._exception

    def refuse(self, what: str, advice: str, location=None, kind: str = "use"):
        location = location or where()
        error = Refusal(f"{location[0]}:{location[1]}: {what}; {advice}")
        error.location, error.kind = location, kind
        self.refusals.append(error)
        raise error

    # merged branches (proofs/python/branches.py; paths.ProofContext explores and checks)
    def push_guard(self, cond, site):
        self.guards.append(cond)

    def pop_guard(self):
        self.guards.pop()

    def guard(self):
        from vredmax.proofs.python import values

        result = True
        for g in self.guards:
            result = g if result is True else values.both(self, result, g)
        return result

    def guard_site(self):
        return None

    def feasible_guards(self) -> bool:
        return True

    def possible(self, cond) -> bool:
        return True

    def is_split(self, site) -> bool:
        return False

    def count_round(self, site):
        pass

    def decide(self, cond, what: str) -> bool:
        self.refuse(
            f"{what} of a symbolic condition (its value depends on the inputs)",
            "Python cannot take both ways here: choose with ops.ite(cond, a, b) (m.ite in a "
            "whole instruction)",
            kind="branch",
        )

    def concretize(self, value, what: str) -> int:
        self.refuse(f"{what} of a symbolic value (it depends on the inputs)", advice_for(what, where()))

    trace_limit = None  # CutContext: traced values wider than this are cut (paths.py)

    def element_data(self, values, compute: bool) -> bool:
        return False

    def place(self, width: int, values):
        """(backend, values) for an operation on `values` giving a `width`-bit result, when
        they are not all of one backend (or, in a cut run, a traced result would be too wide)."""
        self.refuse(
            "a value of one proof backend meets one of another",
            "keep the values of one reduction apart from the machine's",
        )


PROXY_NAMES = (
    "'SymInt'",
    "'SymBool'",
    "'SymRegs'",
    " SymInt",
    " SymBool",
    " SymRegs",
    "'SymBytes'",
    " SymBytes",
)


def advice_for(what: str, location) -> str:
    """What to write instead, from the construct on the user's line."""
    line = source_line(location)
    if "numpy" in line or "np." in line:
        return (
            "numpy arrays hold machine integers, not symbolic values: keep elements in a Python "
            "list (or run numpy only on concrete ints); numpy is refused while proving"
        )
    if (
        "to_bytes" in line
        or "from_bytes" in line
        or "struct." in line
        or "bytes(" in line
        or "bytearray" in line
    ):
        return (
            "bytes hold symbolic values at concrete indexes only: index and slice them with concrete "
            "ints (a register file as a list of bytes per register), or take fields with >> and &"
        )
    if "hash" in what or "dict" in line or "set(" in line:
        return "a symbolic value cannot be a dict key or set member: keep values in a list"
    if "str" in what or "format" in what or "print" in line:
        return "its digits are not known while proving: print only concrete values"
    return (
        "its value is not known while proving: compute with it (operators, ops, m) instead of "
        "asking for a Python int"
    )
