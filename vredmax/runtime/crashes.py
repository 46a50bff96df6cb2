"""An internal error (a bug of the tool, not a verdict): one line, exit 4, the traceback kept.

    line = report(error, debug=False)

writes the traceback of `error` to a file in the per-user cache folder (crashes/, see
cachedir.py; the temporary folder if that cannot be written) and returns the one line the user
sees, `vredmax: internal error: TYPE: message (traceback: PATH)`. With `debug` the whole
traceback is printed on stderr as well. A crash must never read as a verdict: exit 1 means a
counterexample was found, so the caller exits EXIT_ERROR (4).
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
import traceback
from pathlib import Path

from vredmax.runtime.cachedir import cache_root

MAX_MESSAGE = 200  # characters of the exception's message on the line (the file has it all)


def summary(error: BaseException) -> str:
    """`TYPE: message`, the message's first line shortened to MAX_MESSAGE characters."""
    try:
        message = str(error)
    except Exception:  # a message that cannot even be formatted (e.g. a huge integer)
        message = "(its message cannot be shown)"
    lines = message.strip().splitlines()
    message = lines[0] if lines else ""
    if len(lines) > 1 or len(message) > MAX_MESSAGE:
        message = message[:MAX_MESSAGE].rstrip() + " ..."
    name = type(error).__name__
    return f"{name}: {message}" if message else name


def _traceback_text(error: BaseException) -> str:
    return "".join(traceback.format_exception(type(error), error, error.__traceback__))


def keep(text: str) -> Path | None:
    """Write `text` to a new file in crashes/ of the cache folder (else of the temporary
    folder); its path, or None if neither can be written."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    for folder in (
        cache_root() / "crashes",
        Path(tempfile.gettempdir()) / f"vredmax-{os.getuid()}" / "crashes",
    ):
        try:
            folder.mkdir(parents=True, exist_ok=True)
            path = folder / f"crash-{stamp}-{os.getpid()}.txt"
            path.write_text(text, encoding="utf-8")
            return path
        except OSError:
            continue
    return None


def report(error: BaseException, debug: bool = False) -> str:
    """Keep the traceback (and print it with `debug`); the line to show."""
    text = _traceback_text(error)
    kept = keep(f"vredmax {' '.join(sys.argv[1:])[:2000]}\n\n{text}")
    if debug or kept is None:  # with no file to keep it in, the traceback is shown
        try:
            print(text, file=sys.stderr, end="", flush=True)
        except (OSError, ValueError):
            pass
    where = f" (traceback: {kept})" if kept is not None else ""
    return f"vredmax: internal error: {summary(error)}{where}"
