"""Ctrl-C that stops at once, even inside a solver query.

Python raises KeyboardInterrupt only between bytecodes, and the solvers swallow or delay it:
- Z3 catches SIGINT itself during a check or a simplification: it cancels that call and
  answers `unknown` (or a partly simplified term), and Python never hears of it (a sweep went
  on to print a complete Summary). `install()` turns Z3's handler off (`ctrl_c=false`) and
  starts a watcher thread woken by the signal wake-up pipe: it interrupts z3's main context
  and those registered with `z3_context()` (Z3 releases the GIL while it works), so the call
  returns at once and Python raises KeyboardInterrupt right after it. (It once scanned every
  object for contexts: the scan could drop the last reference to a term, whose finalizer then
  called Z3 from the watcher while the main thread was inside Z3, and the process crashed.)
- bitwuzla holds the GIL for the whole query: SIGINT would wait for its time limit. It calls
  a terminator often (a Python callable) and Python runs the SIGINT handler there. Inside
  `deferred()` the handler only records the interrupt (an exception raised inside bitwuzla's
  callback would be printed and ignored), `stop_requested()` then answers True, the query ends
  at once, and leaving `deferred()` raises KeyboardInterrupt.
- cvc5 has no way to stop a query from outside: Ctrl-C waits for its time limit.
- A KeyboardInterrupt raised where Python prints and drops exceptions (a finalizer such as
  z3's `Solver.__del__`, a callback from C) would be lost: the handler does not raise when
  such a frame is on the stack, and `sys.unraisablehook` catches one that got through
  anyway and raises it again in the main thread.

API:
    install()              # main thread of the tool's process: SIGINT records the interrupt and
                           # raises KeyboardInterrupt; the Z3 watcher
    installed() -> bool    # is install()'s handler the SIGINT handler now?
    interrupted() -> bool  # has SIGINT been received?
    note_interrupt()       # record one; check_interrupt(): raise KeyboardInterrupt if recorded
    z3_context(context)    # a Z3 context kept for the process: Ctrl-C cancels its work too
    with deferred():       # around a query of a solver that calls back (see above)
        solver.configure_terminator(stop_requested)   # only if installed()
    with cut_short():      # around a command's work: an exception raised once SIGINT has been
        ...                # received (Z3's "canceled" from a call the watcher cancelled) leaves
                           # as KeyboardInterrupt, so the command marks its result INTERRUPTED
    ignore_in_worker()     # initializer of worker processes: ignore SIGINT (the parent stops
                           # them), Z3 not to catch it either, die with the parent
"""

from __future__ import annotations

import _thread
import importlib.abc
import importlib.util
import os
import signal
import sys
import threading
import time
from contextlib import contextmanager
from typing import TypeVar

_STATE = {"interrupted": False, "raised": False, "deferred": False, "watcher": None, "unraisable_hook": None}
REARM_S = 0.05  # how often the watcher re-raises a SIGINT that Python code has not yet acted on


def interrupted() -> bool:
    return _STATE["interrupted"]


def stop_requested() -> bool:
    """A solver's terminator: true once SIGINT has been received."""
    return _STATE["interrupted"]


def note_interrupt() -> None:
    _STATE["interrupted"] = True


def check_interrupt() -> None:
    if _STATE["interrupted"]:
        _STATE["raised"] = True
        raise KeyboardInterrupt


# Python functions where an exception is printed and lost: called back from C, finalizers.
_CALLBACKS = ("z3_error_handler", "__del__", "_on_unraisable")


def _inside_callback(frame) -> bool:
    while frame is not None:
        if frame.f_code.co_name in _CALLBACKS:
            return True
        frame = frame.f_back
    return False


def _on_sigint(signum, frame):
    note_interrupt()
    if _STATE["deferred"] or _inside_callback(frame):
        return  # the watcher raises it again shortly (or leaving `deferred` does)
    _STATE["raised"] = True
    raise KeyboardInterrupt


def _on_unraisable(unraisable) -> None:
    """A KeyboardInterrupt dropped by a finalizer or a callback: raise it again, unprinted."""
    if isinstance(unraisable.exc_value, KeyboardInterrupt) and _STATE["interrupted"]:
        _STATE["raised"] = False
        signal.raise_signal(signal.SIGINT)  # wakes the watcher, which raises it in the main thread
        return
    _STATE["unraisable_hook"](unraisable)


@contextmanager
def cut_short():
    """See the module docstring."""
    try:
        yield
    except Exception:
        if not _STATE["interrupted"]:
            raise
        _STATE["raised"] = True
        raise KeyboardInterrupt from None


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
    _STATE["interrupted"] = _STATE["raised"] = False
    try:
        signal.signal(signal.SIGINT, _on_sigint)
    except ValueError:  # not the main thread
        return
    if _STATE["watcher"] is None:
        _STATE["unraisable_hook"] = sys.unraisablehook
        sys.unraisablehook = _on_unraisable
        _start_z3_watcher()


def _quiet_z3() -> None:
    z3 = sys.modules.get("z3")
    if z3 is not None:
        z3.set_param("ctrl_c", False)


class _QuietZ3WhenLoaded(importlib.abc.MetaPathFinder):
    """Z3 loaded after install() (a command imports it lazily; `certify-check` must not load it
    at all) would catch SIGINT itself, and Ctrl-C would read as an `unknown` answer: this finder
    lets the others find z3 and turns its handler off once the module has run."""

    def find_spec(self, name, path, target=None):
        if name != "z3":
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.loader is not None:
            run = spec.loader.exec_module

            def run_then_quiet(module):
                run(module)
                _quiet_z3()

            spec.loader.exec_module = run_then_quiet  # type: ignore[method-assign]
        return spec


def _start_z3_watcher() -> None:
    if "z3" in sys.modules:
        _quiet_z3()
    else:
        sys.meta_path.insert(0, _QuietZ3WhenLoaded())
    read_end, write_end = os.pipe()
    os.set_blocking(write_end, False)
    signal.set_wakeup_fd(write_end, warn_on_full_buffer=False)
    watcher = threading.Thread(target=_watch, args=(read_end,), name="vredmax-interrupt-watcher", daemon=True)
    watcher.start()
    _STATE["watcher"] = watcher


def _watch(read_end: int) -> None:
    """Woken by each signal: on SIGINT, cancel Z3's work, then raise SIGINT in the main thread
    again until Python code has raised KeyboardInterrupt (the handler, run inside a callback
    from C, must not raise there)."""
    while True:
        try:
            received = os.read(read_end, 64)
        except OSError:
            return
        if signal.SIGINT not in received or _STATE["raised"]:
            continue
        note_interrupt()
        _interrupt_z3()
        while not _STATE["raised"]:
            time.sleep(REARM_S)
            if not _STATE["raised"]:
                _thread.interrupt_main()


_Z3_CONTEXTS: list = []  # contexts that live as long as the process (never freed by the watcher)


_Context = TypeVar("_Context")  # a z3.Context (z3 is not imported here)


def z3_context(context: _Context) -> _Context:
    """Register a Z3 context kept for the whole process; return it."""
    _Z3_CONTEXTS.append(context)
    return context


def _interrupt_z3() -> None:
    """Cancel what z3's main context and the registered ones are doing (Z3_interrupt may be
    called from any thread). Only objects that outlive the process are touched here: dropping
    the last reference to any Z3 object in this thread would call Z3 concurrently."""
    z3 = sys.modules.get("z3")
    if z3 is None:
        return
    main = getattr(z3.z3, "_main_ctx", None)  # (not z3.main_ctx(): that would make one here)
    for context in ([main] if main is not None else []) + _Z3_CONTEXTS:
        try:
            context.interrupt()
        except Exception:  # a context being torn down
            pass


def ignore_in_worker() -> None:
    """Initializer of worker processes (see the module docstring)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        signal.set_wakeup_fd(-1)  # a forked worker shares the parent's wake-up pipe
    except ValueError:
        pass
    try:
        import z3

        z3.set_param("ctrl_c", False)  # Z3 would install its own SIGINT handler per call
    except Exception:  # z3 missing or refusing the parameter: the worker still ignores SIGINT
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
