"""Ctrl-C that stops at once, even inside a solver query.

Python raises KeyboardInterrupt only between bytecodes, and the solvers swallow or delay it:
- Z3 catches SIGINT during a check itself: it cancels the query and answers `unknown`
  ("interrupted from keyboard"), and Python never hears of it (a sweep went on to print a
  complete Summary). `install()` wraps `z3.Solver.check` and `z3.Optimize.check` so that
  this answer becomes KeyboardInterrupt.
- bitwuzla holds the GIL for the whole query: SIGINT waits for its time limit. It calls a
  terminator often (a Python callable); Python runs the SIGINT handler there. Inside
  `deferred()` the handler only records the interrupt (an exception raised inside bitwuzla's
  callback would be printed and ignored), `stop_requested()` then answers True, the query ends
  at once, and leaving `deferred()` raises KeyboardInterrupt.
- cvc5 has no way to stop a query from outside: Ctrl-C waits for its time limit.

API:
    install()              # main thread of the tool's process: SIGINT records the interrupt and
                           # raises KeyboardInterrupt; the z3 wrapper
    installed() -> bool    # is install()'s handler the SIGINT handler now?
    interrupted() -> bool  # has SIGINT been received?
    note_interrupt()       # record one; check_interrupt(): raise KeyboardInterrupt if recorded
    with deferred():       # around a query of a solver that calls back (see above)
        solver.configure_terminator(stop_requested)   # only if installed()
    ignore_in_worker()     # initializer of worker processes: ignore SIGINT (the parent stops
                           # them), z3 not to catch it either, die with the parent
"""

from __future__ import annotations

import functools
import signal
import sys
from contextlib import contextmanager

Z3_INTERRUPTED = "interrupted from keyboard"

_STATE = {"interrupted": False, "deferred": False}


def interrupted() -> bool:
    return _STATE["interrupted"]


def stop_requested() -> bool:
    """A solver's terminator: true once SIGINT has been received."""
    return _STATE["interrupted"]


def note_interrupt() -> None:
    _STATE["interrupted"] = True


def check_interrupt() -> None:
    if _STATE["interrupted"]:
        raise KeyboardInterrupt


def _on_sigint(signum, frame):
    note_interrupt()
    if not _STATE["deferred"]:
        raise KeyboardInterrupt


def installed() -> bool:
    return signal.getsignal(signal.SIGINT) is _on_sigint


@contextmanager
def deferred():
    """Inside, SIGINT only records the interrupt; on leaving normally, KeyboardInterrupt if one
    was recorded."""
    previous = _STATE["deferred"]
    _STATE["deferred"] = True
    try:
        yield
    finally:
        _STATE["deferred"] = previous
    if not previous:
        check_interrupt()


def install() -> None:
    """See the module docstring. Outside the main thread only the state is reset."""
    _STATE["interrupted"] = False
    try:
        signal.signal(signal.SIGINT, _on_sigint)
    except ValueError:   # not the main thread
        return
    _hook_z3()


def _hook_z3() -> None:
    import z3
    for cls in (z3.Solver, z3.Optimize):
        original = cls.check
        if getattr(original, "vredmax_hooked", False):
            continue

        @functools.wraps(original)
        def check(self, *args, _original=original, **kwargs):
            result = _original(self, *args, **kwargs)
            if result == z3.unknown and self.reason_unknown() == Z3_INTERRUPTED:
                note_interrupt()
                raise KeyboardInterrupt
            return result

        check.vredmax_hooked = True
        cls.check = check


def ignore_in_worker() -> None:
    """Initializer of worker processes (see the module docstring)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        import z3
        z3.set_param("ctrl_c", False)   # z3 would install its own SIGINT handler per check
    except Exception:   # z3 missing or refusing the parameter: the worker still ignores SIGINT
        pass
    _die_with_parent()


def _die_with_parent() -> None:
    """On Linux, ask the kernel to end this process when its parent dies (SIGKILL to the
    parent leaves no worker running)."""
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        pr_set_pdeathsig = 1
        libc.prctl(pr_set_pdeathsig, signal.SIGTERM)
    except (OSError, AttributeError):
        pass
