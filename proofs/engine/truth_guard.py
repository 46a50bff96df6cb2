"""No silent concretization: a Python truth test of a Z3 term is decided soundly or refused.

z3py answers `bool(term)` by the term's *structure*: `bool(a == b)` is "are a and b the same
term", so `if seed == ops.const(0):` or `if insn.vm == 1:` silently takes the "not equal"
branch while a proof runs, and the other branch is never checked (claripy calls this out in
its AST base class). Inside `no_truth_tests()` a truth test of a term is answered only when
the term simplifies to true or false (then every value of the variables gives that answer:
sound); otherwise it raises SymbolicBranch naming the file and line of the `if` (or `and`,
`or`, `not`, `all`, `max`, `sorted` ...) and saying to use ops.ite / m.ite instead.

Every refusal is also recorded on the active guard, so code that catches the exception
(`except Exception: pass`) cannot turn the refusal into a silent branch: the caller checks
`guard.refusals` after running code it did not write.

The guard swaps z3's `AstRef.__bool__` for the duration of the `with` block (nested blocks
share one swap): cheap, and outside the block z3 behaves as usual (dict and list lookups
keyed by terms rely on its structural answer).
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any

import z3

# The class whose truth test is patched, as Any: the z3 stubs leave __bool__ out, so that the
# type checker reports a truth test of a term (stubs/z3).
_AST_REF: Any = z3.AstRef
_ORIGINAL_BOOL = _AST_REF.__bool__
_Z3_DIR = os.path.dirname(os.path.abspath(z3.__file__))
_SKIPPED = (_Z3_DIR, os.path.abspath(__file__))
_LOCK = threading.Lock()
_ACTIVE: list["Guard"] = []

ADVICE = "a Python truth test (if/and/or/not/all/any/max/min/sorted/==) cannot decide a symbolic value"


class SymbolicBranch(Exception):
    """A truth test of a term that is not constant. `where` is "file:line" of the test."""

    def __init__(self, where: str, what: str, hint: str):
        self.where, self.what, self.hint = where, what, hint
        super().__init__(f"{where}: {ADVICE} ({what}); {hint}")


class Guard:
    """The refusals made while a `no_truth_tests` block was active."""

    def __init__(self, hint: str):
        self.hint = hint
        self.refusals: list[Exception] = []  # SymbolicBranch, or another backend's refusal


def caller_location(skip: tuple[str, ...] = _SKIPPED) -> tuple[str, int]:
    """(file, line) of the innermost frame outside z3 and this module."""
    frame: FrameType | None = sys._getframe(1)
    while frame is not None:
        filename = os.path.abspath(frame.f_code.co_filename)
        if not filename.startswith(skip):
            return frame.f_code.co_filename, frame.f_lineno
        frame = frame.f_back
    return "<unknown>", 0


def _describe(term: z3.ExprRef) -> str:
    text = term.sexpr() if hasattr(term, "sexpr") else str(term)
    text = " ".join(text.split())
    return text if len(text) <= 80 else text[:77] + "..."


def _guarded_bool(self: z3.ExprRef) -> bool:
    if z3.is_true(self):
        return True
    if z3.is_false(self):
        return False
    if z3.is_bool(self):
        simple = z3.simplify(self)
        if z3.is_true(simple):
            return True
        if z3.is_false(simple):
            return False
        what = f"the condition {_describe(self)} depends on the inputs"
    else:
        what = f"{_describe(self)} is a {self.sort()} value, not a condition"
    filename, line = caller_location()
    guard = _ACTIVE[-1] if _ACTIVE else None
    refusal = SymbolicBranch(
        f"{filename}:{line}",
        what,
        guard.hint if guard else "use ops.ite(cond, a, b) (m.ite in a whole instruction)",
    )
    for active in _ACTIVE:
        active.refusals.append(refusal)
    raise refusal


def record_refusal(refusal: Exception) -> None:
    """Record another backend's refusal (proofs/python/trace.py's SymbolicUse) on the active guards."""
    for active in _ACTIVE:
        active.refusals.append(refusal)


DEFAULT_HINT = (
    "use ops.ite(cond, a, b) to choose between values (m.ite in a whole instruction), "
    "ops.and_/or_/not_ for conditions"
)


@contextmanager
def no_truth_tests(hint: str = DEFAULT_HINT) -> Iterator[Guard]:
    """Within the block, truth tests of Z3 terms are decided soundly or refused (see the
    module docstring). Yields the Guard, whose `refusals` lists every refusal made."""
    guard = Guard(hint)
    with _LOCK:
        if not _ACTIVE:
            _AST_REF.__bool__ = _guarded_bool
            _AST_REF.__nonzero__ = _guarded_bool
        _ACTIVE.append(guard)
    try:
        yield guard
    finally:
        with _LOCK:
            _ACTIVE.remove(guard)
            if not _ACTIVE:
                _AST_REF.__bool__ = _ORIGINAL_BOOL
                _AST_REF.__nonzero__ = _ORIGINAL_BOOL
