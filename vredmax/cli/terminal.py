"""Terminal output for every command: progress bars, coloured verdicts, plain text when piped.

Built on rich. Colour and bars appear only on a terminal; when stdout is a pipe or a file the
text is plain (no escape codes, no wrapping). `NO_COLOR`, `FORCE_COLOR` and `TERM=dumb` are
honoured (rich reads them).

API (stable for the command modules):

    with progress(total, label, quiet=False) as bar:   # a bar with M/N, elapsed time and ETA
        for item in work:
            ...
            bar.log(line)          # a result line on stdout, printed above the bar
            bar.advance(text)      # one unit done; `text` names what comes next (optional)
        bar.describe(text)         # change the text without advancing

    The bar is drawn on stderr, only when stderr is a terminal and `quiet` is false; it is
    erased when the block ends (normally, by an exception or by Ctrl-C). `bar.log` always
    prints (commands decide what to say in quiet mode). Without a bar it is a plain print.

    console()                      # the rich Console on stdout (colour only on a terminal)
    err_console()                  # the same on stderr
    say(text, style=None)          # one line on stdout, plain text (no markup interpreted)
    print_verdict(verdict, text, width=14, indent="")   # "PROVED  text", the verdict coloured
    verdict_style(verdict)         # the style name of a verdict (PROVED green, ...)

Lines are printed with soft wrapping (a long line stays one line in a file) and without rich
markup or highlighting, so text from proofs or users is printed as it is.
"""

from __future__ import annotations

import sys
from contextlib import contextmanager

from rich.console import Console
from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn,
                           TimeRemainingColumn)
from rich.text import Text

VERDICT_STYLES = {
    "PROVED": "green", "CERTIFIED": "bold green", "OK": "green", "PASS": "green", "AGREE": "green", "REFUTED": "green",
    "COUNTEREXAMPLE": "bold red", "FAIL": "bold red", "MISMATCH": "bold red", "VIOLATION": "bold red",
    "UNKNOWN": "yellow", "ERROR": "bold magenta", "INTERRUPTED": "bold yellow",
}

_CONSOLES: dict = {}


class _Console(Console):
    """rich's Console, except that a broken pipe is raised as BrokenPipeError (rich would exit
    with 1): vredmax/runtime/outputs.py turns it into one line and exit 2, as for any output error."""

    def on_broken_pipe(self) -> None:
        raise BrokenPipeError(32, "Broken pipe")


def _console_for(stream) -> Console:
    """One Console per stream object (rich fixes the colour system when it is created; a new
    stream, e.g. one a test swapped in, gets its own)."""
    key = id(stream)
    cached = _CONSOLES.get(key)
    if cached is None or cached[0] is not stream:
        cached = (stream, _Console(file=stream, markup=False, highlight=False, emoji=False,
                                  soft_wrap=True))
        _CONSOLES[key] = cached
    return cached[1]


def console() -> Console:
    """The Console on the current sys.stdout."""
    return _console_for(sys.stdout)


def err_console() -> Console:
    """The Console on the current sys.stderr."""
    return _console_for(sys.stderr)


def verdict_style(verdict: str) -> str | None:
    return VERDICT_STYLES.get(verdict)


def say(text: str, style: str | None = None) -> None:
    """One line (or several) on stdout as plain text; coloured with `style` on a terminal."""
    out = console()
    out.print(Text(text, style=style or ""), soft_wrap=True)
    out.file.flush()


def _verdict_line(verdict: str, text: str, width: int, indent: str) -> Text:
    line = Text(indent)
    line.append(f"{verdict:<{width}}", style=verdict_style(verdict) or "")
    if text:
        line.append(f" {text}")
    return line


def print_verdict(verdict: str, text: str = "", width: int = 14, indent: str = "") -> None:
    """`indent`, the verdict word (padded to `width`), coloured on a terminal, then `text`."""
    line = _verdict_line(verdict, text, width, indent)
    out = console()
    out.print(line, soft_wrap=True)
    out.file.flush()


class Bar:
    """The handle `progress` yields. Without a terminal (or when quiet) it draws nothing."""

    def __init__(self, total: int, label: str, live: Progress | None):
        self.total, self.label, self.done = total, label, 0
        self._live = live
        self._task = live.add_task(label, total=total) if live is not None else None

    @property
    def drawing(self) -> bool:
        return self._live is not None

    def advance(self, text: str = "", n: int = 1) -> None:
        self.done += n
        if self._live is not None:
            self._live.update(self._task, advance=n, description=self._describe(text))

    def describe(self, text: str) -> None:
        if self._live is not None:
            self._live.update(self._task, description=self._describe(text))

    def log(self, line: str, style: str | None = None) -> None:
        """Print a line on stdout. When the bar is drawn on the same terminal, the line goes
        above it; when stdout is a pipe it is written there as plain text."""
        if self._live is not None and _is_tty(sys.stdout):
            self._live.console.print(Text(line, style=style or ""), soft_wrap=True)
        else:
            say(line, style)

    def log_verdict(self, verdict: str, text: str = "", width: int = 14, indent: str = "") -> None:
        if self._live is not None and _is_tty(sys.stdout):
            self._live.console.print(_verdict_line(verdict, text, width, indent), soft_wrap=True)
        else:
            print_verdict(verdict, text, width, indent)

    def _describe(self, text: str) -> str:
        return f"{self.label}: {text}" if text else self.label


def _is_tty(stream) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


@contextmanager
def progress(total: int, label: str, quiet: bool = False):
    """A progress bar on stderr for `total` units of work (see the module docstring)."""
    if quiet or not _is_tty(sys.stderr):
        yield Bar(total, label, None)
        return
    live = Progress(TextColumn("{task.description}", markup=False), BarColumn(), MofNCompleteColumn(),
                    TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn(),
                    console=_Console(file=sys.stderr, markup=False, highlight=False, emoji=False),
                    transient=True, redirect_stdout=False, redirect_stderr=False)
    live.start()
    try:
        yield Bar(total, label, live)
    finally:
        live.stop()
