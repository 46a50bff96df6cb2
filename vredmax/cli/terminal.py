"""Terminal output for every command: progress bars, coloured verdicts, plain text when piped.

Built on rich. Colour and bars appear only on a terminal; when stdout is a pipe or a file the
text is plain (no escape codes, no wrapping). `NO_COLOR`, `FORCE_COLOR` and `TERM=dumb` are
honoured (rich reads them).

API (stable for the command modules):

    with progress(total, label, quiet=False) as bar:   # a bar with M/N, elapsed time and ETA
        for item in work:
            ...
            bar.log(line)          # a result line on stdout, printed above the bar
            bar.advance(text)      # one unit done; `text` names what comes next (without it the text stays)
        bar.describe(text)         # change the text without advancing

    The bar is drawn on stderr, only when stderr is a terminal and `quiet` is false; it is
    erased when the block ends (normally, by an exception or by Ctrl-C). `bar.log` always
    prints (commands decide what to say in quiet mode). Without a bar it is a plain print.

    console()                      # the rich Console on stdout (colour only on a terminal)
    err_console()                  # the same on stderr
    say(text, style=None)          # one line on stdout, plain text (no markup interpreted), fitted
    say(json_text, fitted=False)   # text a program reads: never wrapped
    print_verdict(verdict, text, width=14, indent="")   # "PROVED  text", the verdict coloured
    verdict_style(verdict)         # the style name of a verdict (PROVED green, ...)

Lines are printed without rich markup or highlighting, so text from proofs or users is printed
as it is. A line wider than the output is wrapped here, deliberately, at spaces, its continuation
indented under its text (`fit`), so that no line wraps on the terminal: the width is $COLUMNS
when it is set, else the terminal's width when stdout is one; piped output without $COLUMNS is
not wrapped (a long line stays one line in a file). A word longer than the width (a register's
hex value at a large VLEN) is not cut.
"""

from __future__ import annotations

import os
import sys
import textwrap
from contextlib import contextmanager

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Column
from rich.text import Text

VERDICT_STYLES = {
    "PROVED": "green",
    "CERTIFIED": "bold green",
    "OK": "green",
    "PASS": "green",
    "AGREE": "green",
    "REFUTED": "green",
    "COUNTEREXAMPLE": "bold red",
    "FAIL": "bold red",
    "MISMATCH": "bold red",
    "VIOLATION": "bold red",
    "UNKNOWN": "yellow",
    "ERROR": "bold magenta",
    "INTERRUPTED": "bold yellow",
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
        cached = (stream, _Console(file=stream, markup=False, highlight=False, emoji=False, soft_wrap=True))
        _CONSOLES[key] = cached
    return cached[1]


def console() -> Console:
    """The Console on the current sys.stdout."""
    return _console_for(sys.stdout)


def err_console() -> Console:
    """The Console on the current sys.stderr."""
    return _console_for(sys.stderr)


def width() -> int | None:
    """The width lines are fitted to: $COLUMNS, else the terminal's (stdout a terminal), else None."""
    try:
        columns = int(os.environ.get("COLUMNS", ""))
    except ValueError:
        columns = 0
    if columns > 0:
        return max(columns, 20)
    if _is_tty(sys.stdout):
        return max(console().width, 20)
    return None


def fit(text: str, hang: int = 4, columns: int | None = None, first_hang: int | None = None) -> str:
    """`text` with every line wider than `columns` (default: `width()`) wrapped at spaces; the
    continuation lines are indented `hang` columns more than the line's own indentation
    (`first_hang` for the first line's: e.g. under the text after a verdict word)."""
    columns = width() if columns is None else columns
    if columns is None:
        return text
    out = []
    for number, line in enumerate(text.split("\n")):
        if len(line) <= columns:
            out.append(line)
            continue
        extra = first_hang if number == 0 and first_hang is not None else hang
        indent = " " * min(len(line) - len(line.lstrip(" ")) + extra, columns // 2)
        out += textwrap.wrap(
            line, columns, subsequent_indent=indent, break_long_words=False, break_on_hyphens=False
        ) or [line]
    return "\n".join(out)


def verdict_style(verdict: str) -> str | None:
    return VERDICT_STYLES.get(verdict)


def say(text: str, style: str | None = None, fitted: bool = True) -> None:
    """One line (or several) on stdout as plain text; coloured with `style` on a terminal.
    `fitted=False` for text a program reads (JSON): printed as it is, never wrapped."""
    out = console()
    out.print(Text(fit(text) if fitted else text, style=style or ""), soft_wrap=True)
    out.file.flush()


def _verdict_line(verdict: str, text: str, width: int, indent: str) -> Text:
    """The verdict word coloured, the text after it; fitted, continuation lines under the text."""
    plain = fit(
        f"{indent}{verdict:<{width}}" + (f" {text}" if text else ""),
        first_hang=len(f"{verdict:<{width}} ") if width else 4,
    )
    head = len(indent) + len(verdict)
    line = Text(plain[: len(indent)])
    line.append(plain[len(indent) : head], style=verdict_style(verdict) or "")
    line.append(plain[head:])
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
        if self._live is not None and text:
            self._live.update(self._task, advance=n, description=self._describe(text))
        elif self._live is not None:  # the description stays: what was proved last, until the next
            self._live.update(self._task, advance=n)

    def describe(self, text: str) -> None:
        if self._live is not None:
            self._live.update(self._task, description=self._describe(text))

    def log(self, line: str, style: str | None = None) -> None:
        """Print a line on stdout. When the bar is drawn on the same terminal, the line goes
        above it; when stdout is a pipe it is written there as plain text."""
        if self._live is not None and _is_tty(sys.stdout):
            self._live.console.print(Text(fit(line), style=style or ""), soft_wrap=True)
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
    bar_console = _Console(file=sys.stderr, markup=False, highlight=False, emoji=False)
    columns = width() or bar_console.width
    # the counts and times keep their room; the description gives way (cut with an ellipsis)
    fixed = len(f"{total}/{total}") + len("0:00:00 ETA 0:00:00") + 12 + 5
    text = Column(no_wrap=True, overflow="ellipsis", max_width=max(columns - fixed, 8))
    live = Progress(
        TextColumn("{task.description}", markup=False, table_column=text),
        BarColumn(bar_width=12),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
        console=bar_console,
        transient=True,
        redirect_stdout=False,
        redirect_stderr=False,
    )
    live.start()
    try:
        yield Bar(total, label, live)
    finally:
        live.stop()
