"""Output that fails cleanly: atomic files, writable directories checked up front, and the
one wrapper that turns interrupts and output errors into exit codes.

Files (every file a command writes goes through these):

    check_writable(directory, field)      # before any proving: create it if missing and
                                          # prove it writable (a probe file); else UsageError
                                          # "FIELD: cannot write to DIR: reason" (exit 2)
    check_writable_file(path, field)      # the same for the (existing) folder of a file
    write_text(path, text, field)         # atomic: a temporary file in the same directory,
    write_bytes(path, data, field)        # flushed, then renamed over `path`; a reader never
    write_json(path, obj, field)          # sees half a file; on failure the temporary file is
    with atomic_open(path, field) as f:   # removed and OutputError "FIELD: cannot write
        f.write(...)                      # PATH: reason" is raised (exit 2)
    append_line(path, line, field)        # a whole line appended (manifests, logs)

    After an interrupt (see below) every one of them raises KeyboardInterrupt instead of
    writing: no file is written after Ctrl-C.

Interrupts and output errors (used by vredmax/cli/main.py around every command):

    guarded(function) -> exit code        # run function() -> int and map:
        UsageError / OutputError          -> "vredmax: error: FIELD: message", exit 2
        BrokenPipeError on stdout         -> "vredmax: error: stdout: broken pipe ...", exit 2
        OSError (full disk, ...) escaping -> "vredmax: error: stdout: No space left ...", exit 2
        KeyboardInterrupt (Ctrl-C)        -> "vredmax: interrupted", exit 130
        any other exception (a bug)       -> "vredmax: internal error: TYPE: message
                                             (traceback: FILE)", exit 4 (crashes.py; with
                                             debug=True the traceback on stderr too)
    stdout is flushed inside the guard, so an error at the final flush is caught too.

    interrupted() -> bool                 # has SIGINT been received in this process?
    note_interrupt()                      # record one (a solver that swallowed SIGINT)
    check_interrupt()                     # raise KeyboardInterrupt if one was received
    with cut_short(): ...                 # an exception after Ctrl-C leaves as KeyboardInterrupt
    ignore_interrupts_in_worker()         # initializer for worker processes: the parent
                                          # alone handles Ctrl-C and terminates its workers
    (these come from vredmax/runtime/interrupts.py, which also makes Ctrl-C stop a solver query)

A command that has a partial result catches KeyboardInterrupt, prints what it has marked
INTERRUPTED (never a complete-looking Summary) and re-raises; the guard gives exit 130.
"""

from __future__ import annotations

import errno
import json
import os
import signal
import sys
import tempfile
from contextlib import contextmanager

from vredmax.runtime import crashes, interrupts
from vredmax.runtime.errors import EXIT_ERROR, EXIT_USAGE, UsageError, one_line

EXIT_INTERRUPTED = 130


class OutputError(UsageError):
    """A file or stream could not be written: one line naming it, exit 2."""


# Interrupts (vredmax/runtime/interrupts.py; re-exported here) ------------------------------------------

install_interrupt_handler = interrupts.install
ignore_interrupts_in_worker = interrupts.ignore_in_worker
interrupted, note_interrupt, check_interrupt = (
    interrupts.interrupted,
    interrupts.note_interrupt,
    interrupts.check_interrupt,
)
cut_short = interrupts.cut_short


# The wrapper -----------------------------------------------------------------------------------


def _stderr_line(text: str) -> None:
    try:
        print(text, file=sys.stderr, flush=True)
    except (OSError, ValueError):
        pass


def _silence_stdout() -> None:
    """After stdout failed, point it at /dev/null so that the interpreter's final flush does
    not print a second error."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):
        pass


def _reason(error: OSError) -> str:
    if error.errno == errno.EPIPE or isinstance(error, BrokenPipeError):
        return "broken pipe (the reader went away)"
    return error.strerror or str(error)


def guarded(function, debug: bool = False) -> int:
    """Run `function()` (returning an exit code) under the rules of the module docstring.
    The SIGINT handler in place before is put back afterwards."""
    previous = signal.getsignal(signal.SIGINT)
    install_interrupt_handler()
    try:
        return _guarded(function, debug)
    finally:
        try:
            signal.signal(signal.SIGINT, previous)
        except (ValueError, TypeError):  # not the main thread, or a handler set outside Python
            pass


def _guarded(function, debug: bool = False) -> int:
    try:
        code = function()
        sys.stdout.flush()
        return code
    except UsageError as error:
        _stderr_line(f"vredmax: error: {one_line(error)}")
        return EXIT_USAGE
    except KeyboardInterrupt:
        note_interrupt()
        _stderr_line("vredmax: interrupted")
        return EXIT_INTERRUPTED
    except OSError as error:
        # Files are written through this module (OutputError names them); what escapes here
        # is stdout itself, or a file named by the error.
        where = error.filename or "stdout"
        if where == "stdout":
            _silence_stdout()
        _stderr_line(f"vredmax: error: {where}: {_reason(error)}")
        return EXIT_USAGE
    except Exception as error:
        if interrupted():  # a call cut short by Ctrl-C (e.g. Z3's "canceled") is the interrupt
            _stderr_line("vredmax: interrupted")
            return EXIT_INTERRUPTED
        # A crash is never a verdict: exit 1 would read as "a counterexample was found".
        _stderr_line(crashes.report(error, debug))
        return EXIT_ERROR


# Files -----------------------------------------------------------------------------------------


def check_writable(directory, field: str, create: bool = True) -> str:
    """Create `directory` if needed (unless `create` is false) and prove that a file can be
    written in it (a probe file, removed at once). Call it before any long work. Returns the
    directory."""
    directory = os.fspath(directory)
    try:
        if os.path.exists(directory) and not os.path.isdir(directory):
            raise NotADirectoryError(errno.ENOTDIR, "not a directory", directory)
        if create:
            os.makedirs(directory, exist_ok=True)
        if not os.path.exists(directory):
            raise FileNotFoundError(errno.ENOENT, "no such directory", directory)
        descriptor, probe = tempfile.mkstemp(prefix=".vredmax-probe-", dir=directory)
        os.close(descriptor)
        os.unlink(probe)
    except OSError as error:
        raise OutputError(f"{field}: cannot write to {directory}: {error.strerror or error}") from None
    return directory


def check_writable_file(path, field: str) -> str:
    """The existing directory that will hold `path` is writable (and `path` is not a
    directory)."""
    path = os.fspath(path)
    if os.path.isdir(path):
        raise OutputError(f"{field}: {path} is a directory")
    check_writable(os.path.dirname(os.path.abspath(path)), field, create=False)
    return path


@contextmanager
def atomic_open(path, field: str, mode: str = "w"):
    """A file object for `path` that appears under that name only when the block ends well."""
    check_interrupt()
    path = os.fspath(path)
    directory = os.path.dirname(os.path.abspath(path))
    temporary = None
    try:
        descriptor, temporary = tempfile.mkstemp(
            prefix=f".{os.path.basename(path)}.", suffix=".tmp", dir=directory
        )
        binary = "b" in mode
        with os.fdopen(
            descriptor, "wb" if binary else "w", **({} if binary else {"encoding": "utf-8"})
        ) as stream:
            yield stream
            stream.flush()
            os.fsync(stream.fileno())
        check_interrupt()
        os.chmod(temporary, 0o644 & ~_umask())
        os.replace(temporary, path)
        temporary = None
    except OSError as error:
        raise OutputError(f"{field}: cannot write {path}: {error.strerror or error}") from None
    finally:
        if temporary is not None:
            try:
                os.unlink(temporary)
            except OSError:
                pass


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def write_text(path, text: str, field: str) -> None:
    with atomic_open(path, field) as stream:
        stream.write(text)


def write_bytes(path, data: bytes, field: str) -> None:
    with atomic_open(path, field, "wb") as stream:
        stream.write(data)


def write_json(path, obj, field: str) -> None:
    write_text(path, json.dumps(obj, indent=2) + "\n", field)


def append_line(path, line: str, field: str) -> None:
    """Append one whole line (a single write, so a reader sees whole lines only)."""
    check_interrupt()
    try:
        with open(path, "a", encoding="utf-8") as stream:
            stream.write(line if line.endswith("\n") else line + "\n")
    except OSError as error:
        raise OutputError(f"{field}: cannot write {os.fspath(path)}: {error.strerror or error}") from None
