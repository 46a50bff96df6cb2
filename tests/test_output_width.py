"""At COLUMNS=80 no line of `prove`, `check-impl`, `check-rtl` or `ask` is wider than 80 columns.

Each command runs twice on a small configuration: with its output piped, and on a simulated
terminal (a pseudo-terminal 80 columns wide, where the progress bar is drawn too: its frames are
cut at carriage returns and escape sequences are removed before measuring).
"""

from __future__ import annotations

import fcntl
import os
import pty
import re
import select
import shutil
import struct
import subprocess
import sys
import tempfile
import termios
import time
from pathlib import Path

import pytest

from vredmax.cli.terminal import fit

ROOT = Path(__file__).resolve().parent.parent
WIDTH = 80
ESCAPE = re.compile(
    r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[()][0-9A-Za-z]|\x1b[=>78]"
)

BRANCHY = """
def reduce(ops, seed, elements, active):
    acc = seed
    for e, a in zip(elements, active):
        if a:
            acc = ops.smax(acc, e)
    return acc
"""

COMMANDS = {
    "prove": ["prove", "--vlen", "128", "--sew", "8", "--lmul", "m1,m2"],
    "prove -v": ["prove", "--vlen", "128", "--sew", "16", "--lmul", "m1", "-v", "-k", "vl0"],
    "check-impl counterexample": [
        "check-impl",
        "tests/buggy/units.py:unsigned_compare",
        "--vlen",
        "128",
        "--sew",
        "8",
        "--lmul",
        "m1",
        "--random",
        "0",
    ],
    "check-impl cut points": [
        "check-impl",
        "tests/buggy/units.py:tree_zero_identity",
        "--vlen",
        "128",
        "--sew",
        "8",
        "--lmul",
        "m1",
        "--random",
        "0",
    ],
    "check-impl error": [
        "check-impl",
        "{tmp}/branchy.py:reduce",
        "--vlen",
        "128",
        "--sew",
        "8",
        "--lmul",
        "m1",
        "--random",
        "0",
    ],
    "check-rtl": [
        "check-rtl",
        "tests/rtl/sv/sv_bug_lane5.sv",
        "--top",
        "sv_bug_lane5",
        "--sew",
        "8",
        "--vcd",
        "{tmp}/cx.vcd",
    ],
    "ask proved": [
        "ask",
        "implies(legal and pre.vl == 0, post.vd == pre.vd)",
        "--vlen",
        "128",
        "--sew",
        "8",
        "--lmul",
        "m1",
    ],
    "ask refuted": [
        "ask",
        "implies(legal and pre.vl > 0, post.vd[0] == vs2[0])",
        "--vlen",
        "128",
        "--sew",
        "8",
        "--lmul",
        "m1",
    ],
}


def _argv(name: str, tmp_path: Path) -> list[str]:
    """The command, to run in `tmp_path` (short relative paths: a path is one word, never cut)."""
    (tmp_path / "branchy.py").write_text(BRANCHY)
    if not (tmp_path / "tests").exists():
        (tmp_path / "tests").symlink_to(ROOT / "tests", target_is_directory=True)
    return [sys.executable, "-m", "vredmax", *(a.replace("{tmp}/", "") for a in COMMANDS[name])]


def _environment(**extra) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES", "NO_COLOR", "TERM")}
    env.update(PYTHONPATH=str(ROOT), **extra)
    return env


def _too_wide(text: str) -> list[str]:
    frames = re.split(r"\r\n|\r|\n", ESCAPE.sub("", text))
    return [f"{len(line)}: {line}" for line in frames if len(line) > WIDTH]


@pytest.fixture
def tmp_path():
    """A short folder: the messages name the user's file by its absolute path, one word that no
    wrapping can cut (pytest's own tmp_path is too long for that)."""
    folder = Path(tempfile.mkdtemp(prefix="w", dir="/tmp"))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_piped_output_fits_80_columns(name, tmp_path):
    done = subprocess.run(
        _argv(name, tmp_path),
        cwd=tmp_path,
        env=_environment(COLUMNS=str(WIDTH)),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode in (0, 1, 4), done.stderr
    assert done.stdout.strip()
    assert _too_wide(done.stdout + done.stderr) == []


def _on_terminal(argv: list[str], env: dict, cwd: Path = ROOT, timeout_s: float = 300) -> tuple[int, str]:
    """Run `argv` with stdout and stderr on a pseudo-terminal 80 columns wide; its exit code and output."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, WIDTH, 0, 0))
    process = subprocess.Popen(
        argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=slave, stderr=slave, close_fds=True
    )
    os.close(slave)
    chunks, deadline = [], time.monotonic() + timeout_s
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 1.0)
            if not ready:
                if process.poll() is not None:
                    break
                continue
            try:
                data = os.read(master, 65536)
            except OSError:  # EIO: the child closed the terminal
                break
            if not data:
                break
            chunks.append(data)
    finally:
        os.close(master)
    return process.wait(timeout=60), b"".join(chunks).decode("utf-8", "replace")


@pytest.mark.parametrize(
    "name, columns_set",
    [
        ("prove", True),
        ("check-impl counterexample", True),
        ("check-impl error", True),
        ("check-rtl", True),
        ("ask refuted", True),
        ("prove", False),
        ("check-impl counterexample", False),
    ],
    ids=lambda x: {True: "COLUMNS=80", False: "terminal width"}.get(x, x) if isinstance(x, bool) else x,
)
def test_terminal_output_fits_80_columns(name, columns_set, tmp_path):
    env = _environment(TERM="xterm-256color", **({"COLUMNS": str(WIDTH)} if columns_set else {}))
    code, text = _on_terminal(_argv(name, tmp_path), env, cwd=tmp_path)
    assert code in (0, 1, 4), text
    assert "Traceback" not in text
    assert _too_wide(text) == []


def test_the_progress_bar_keeps_its_counts_at_80_columns(tmp_path):
    """The bar's description gives way (an ellipsis), not its M/N: `prove` counts configurations."""
    code, text = _on_terminal(
        [
            sys.executable,
            "-m",
            "vredmax",
            "prove",
            "--vlen",
            "128",
            "--sew",
            "8",
            "--lmul",
            "m1,m2,m4",
            "--no-cache",
        ],
        _environment(TERM="xterm-256color"),
    )
    assert code == 0, text
    frames = re.split(r"\r\n|\r|\n", ESCAPE.sub("", text))
    counts = {m.group(1) for f in frames if "ETA" in f for m in [re.search(r" (\d+/\d+) ", f)] if m}
    assert counts and all(c.endswith("/6") for c in counts), counts  # 3 LMULs x 2 ELENs
    assert "6 configurations" in text


def test_fit_wraps_at_spaces_under_the_text():
    line = "COUNTEREXAMPLE " + " ".join(f"word{i}" for i in range(30))
    fitted = fit(line, columns=40, first_hang=15).split("\n")
    assert all(len(x) <= 40 for x in fitted) and len(fitted) > 1
    assert all(x.startswith(" " * 15) and not x.startswith(" " * 16) for x in fitted[1:])
    assert " ".join(x.strip() for x in fitted) == line
    assert fit("  a " + "x" * 100, columns=40).split("\n") == [
        "  a",
        "      " + "x" * 100,
    ]  # a long word stays whole


def test_json_is_never_wrapped(tmp_path):
    """What a program reads is printed as it is, however narrow $COLUMNS."""
    import json

    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "vredmax",
            "prove",
            "--vlen",
            "128",
            "--sew",
            "8",
            "--lmul",
            "m1",
            "-k",
            "vl0",
            "--json",
        ],
        cwd=tmp_path,
        env=_environment(COLUMNS="30"),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["results"] and any(len(line) > 30 for line in done.stdout.splitlines())
