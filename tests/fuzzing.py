"""The rule every fuzzer of tests/test_fuzz_*.py checks, and running a command for it.

Rule (docs/reference/output.md): no traceback and no internal error in the output, an exit code
of the documented ones, bad input is exit 2 with one line naming the field, no run past its
--timeout by more than a few seconds, nothing written outside the output paths given.

Each fuzzer is a property given twice by `budgets`: a short run in the default tests and a
long one behind the `fuzz_long` marker (`pytest -m fuzz_long tests/test_fuzz_*.py
--hypothesis-show-statistics`: the inputs per kind).
"""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
import time
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from vredmax.cli.main import main

VREDMAX = Path(sys.executable).parent / "vredmax"
EXIT_CODES = {0, 1, 2, 3, 4, 130}
VERDICT_CODES = {0, 1, 2, 3}  # a command without user code: 4 is an internal error
# the field (a JSON key that is no plain name quoted after its parent), then the message
FIELD = r'[^\s:]\S*( "(?:[^"\\]|\\.)*")?: \S'
ERROR_LINE = re.compile("^vredmax: error: " + FIELD)
BATCH_ERROR = re.compile(r"^line \d+: " + FIELD)  # a bad line of exec --jsonl or judge
SLACK_S = 5.0  # how far past --timeout a run may go
CACHE = ".vredmax-cache"  # the per-user cache folder of a fuzzed run (nothing may appear)


def budgets(*strategies, short: int, long: int):
    """Two tests of one property: `short` examples (default run) and `long` (fuzz_long)."""

    def decorate(prop):
        if prop.__name__ == "<lambda>":  # pytest marks take no lambda for a test function
            prop.__name__ = "fuzz"
        common = dict(
            deadline=None,
            database=None,
            print_blob=True,
            suppress_health_check=[
                HealthCheck.too_slow,
                HealthCheck.data_too_large,
                HealthCheck.function_scoped_fixture,
                HealthCheck.filter_too_much,
                HealthCheck.large_base_example,
            ],
        )
        short_test = settings(max_examples=short, **common)(given(*strategies)(prop))
        long_test = pytest.mark.fuzz_long(settings(max_examples=long, **common)(given(*strategies)(prop)))
        return short_test, long_test

    return decorate


@dataclass
class Run:
    argv: list
    code: int
    out: str
    err: str
    seconds: float

    def __str__(self) -> str:
        return (
            f"vredmax {' '.join(map(str, self.argv))[:600]}\n-> exit {self.code} in {self.seconds:.1f}s\n"
            f"stdout: {self.out[-1500:]}\nstderr: {self.err[-1500:]}"
        )


def in_process(argv, cwd: Path) -> Run:
    """main(argv) here, stdout and stderr captured, in `cwd` (cheap; the same code path as the
    console script but for os._exit)."""
    out, err = io.StringIO(), io.StringIO()
    before, cache = os.getcwd(), os.environ.get("VREDMAX_CACHE")
    started = time.monotonic()
    os.chdir(cwd)
    os.environ["VREDMAX_CACHE"] = str(Path(cwd) / CACHE)  # a crash's traceback file lands here
    try:
        with redirect_stdout(out), redirect_stderr(err):
            code = main([str(a) for a in argv])
    finally:
        os.chdir(before)
        if cache is None:
            os.environ.pop("VREDMAX_CACHE", None)
        else:
            os.environ["VREDMAX_CACHE"] = cache
    return Run(list(argv), code, out.getvalue(), err.getvalue(), time.monotonic() - started)


def in_subprocess(argv, cwd: Path, timeout_s: float, env=None) -> Run:
    """The console script in a child process (isolation: user code, solvers, limits)."""
    started = time.monotonic()
    env = {**os.environ, **(env or {}), "VREDMAX_CACHE": str(Path(cwd) / CACHE)}
    try:
        done = subprocess.run(
            [str(VREDMAX), *map(str, argv)],
            cwd=cwd,
            capture_output=True,
            text=True,
            errors="replace",
            timeout=timeout_s,
            env=env,
        )
    except subprocess.TimeoutExpired as expired:
        raise AssertionError(
            f"vredmax {' '.join(map(str, argv))[:300]} ran past {timeout_s} s "
            f"(its --timeout plus slack)\n{expired.stderr!r}"
        ) from None
    return Run(list(argv), done.returncode, done.stdout, done.stderr, time.monotonic() - started)


def check_rule(run: Run, codes=VERDICT_CODES, timeout_s: float | None = None) -> None:
    """The rule of the module docstring, for one run."""
    text = run.out + run.err
    assert "Traceback (most recent call last)" not in text, str(run)
    assert "internal error" not in run.err, str(run)
    assert run.code in codes, str(run)
    if run.code == 2:
        lines = run.err.strip().splitlines()
        if lines:  # a batch's bad lines are error objects on stdout instead (checked by its fuzzer)
            assert len(lines) == 1 and ERROR_LINE.match(lines[0]), str(run)
    if timeout_s is not None:
        assert run.seconds <= timeout_s + SLACK_S, str(run)


def files_under(folder: Path) -> set[str]:
    return {str(p.relative_to(folder)) for p in folder.rglob("*")}


def check_nothing_else_written(folder: Path, before: set[str], allowed: set[str] = frozenset()) -> None:
    """Only the output paths given (and their temporary files, gone by now) appeared."""
    new = files_under(folder) - before - set(allowed)
    assert not new, f"written outside the output paths given: {sorted(new)}"
