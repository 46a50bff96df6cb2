"""A crash is never a verdict: an unexpected exception in any command exits 4 with one line,
`vredmax: internal error: TYPE: message (traceback: FILE)`, the traceback kept in that file
and printed with --debug (vredmax/runtime/crashes.py, vredmax/runtime/outputs.py)."""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

import pytest

from vredmax.cli import helptext, main as cli_main
from vredmax.cli.main import build_parser, main

VREDMAX = Path(sys.executable).parent / "vredmax"
LINE = re.compile(r"^vredmax: internal error: RuntimeError: forced for (\S+) \(traceback: (\S+)\)$")


def _minimal_argv(name: str, command) -> list[str]:
    """The command with its required arguments given (any value: the run never starts)."""
    argv = [name]
    for action in command._actions:
        if not action.option_strings and action.nargs not in ("?", "*"):
            argv.append("128")
        elif action.option_strings and action.required:
            argv += [action.option_strings[0], "128"]
    return argv


@pytest.fixture
def crash_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("VREDMAX_CACHE", str(tmp_path))
    return tmp_path / "crashes"


def _every_run_raises(monkeypatch):
    """Every command's run function raises (set on the parser main builds)."""

    def build(commands=cli_main.COMMANDS):
        parser = build_parser(commands)
        for name, command in _subparsers(parser).items():

            def boom(args, name=name):
                raise RuntimeError(f"forced for {name}")

            command.set_defaults(run=boom)
        return parser

    monkeypatch.setattr(cli_main, "build_parser", build)


def _subparsers(parser) -> dict:
    return next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices


COMMANDS = _subparsers(build_parser())  # every command the parser has: a new one is covered


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_an_internal_error_in_every_command_is_exit_4_and_one_line(name, monkeypatch, capsys, crash_folder):
    _every_run_raises(monkeypatch)
    code = main(_minimal_argv(name, COMMANDS[name]))
    err = capsys.readouterr().err
    assert code == 4, err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    match = LINE.match(lines[0])
    assert match and match.group(1) == name, lines[0]
    assert Path(match.group(2)).parent == crash_folder
    kept = Path(match.group(2)).read_text()
    assert "Traceback (most recent call last)" in kept and f"RuntimeError: forced for {name}" in kept
    assert 4 in helptext.EXITS[name]  # its --help says so


@pytest.mark.parametrize("where", ["before", "after"])
def test_debug_prints_the_whole_traceback(where, monkeypatch, capsys, crash_folder):
    _every_run_raises(monkeypatch)
    argv = ["--debug", "asm", "x"] if where == "before" else ["asm", "x", "--debug"]
    assert main(argv) == 4
    err = capsys.readouterr().err
    assert "Traceback (most recent call last)" in err
    assert err.strip().splitlines()[-1].startswith("vredmax: internal error: RuntimeError: forced for asm")


def test_a_crash_inside_judge_is_not_a_violation(monkeypatch, capsys, crash_folder, tmp_path):
    from vredmax.cli import cmd_judge

    def broken(*args, **kwargs):
        raise KeyError("a bug")

    monkeypatch.setattr(cmd_judge, "allowed", broken)
    case = (
        '{"vlen": 128, "insn": "vredmax.vs v8, v12, v4", "vtype": {"sew": 8, "lmul": "m1"}, "vl": 1, '
        '"observed": {"outcome": "retired"}}\n'
    )
    (tmp_path / "cases.jsonl").write_text(case)
    assert main(["judge", str(tmp_path / "cases.jsonl")]) == 4
    assert capsys.readouterr().err.startswith("vredmax: internal error: KeyError: 'a bug' (traceback: ")


def test_a_long_message_stays_one_line(monkeypatch, capsys, crash_folder):
    from vredmax.cli import cmd_asm

    def broken(args):
        raise ValueError("first line " + "x" * 5000 + "\nsecond line")

    monkeypatch.setattr(cmd_asm, "run_asm", broken)
    assert main(["asm", "x"]) == 4
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and len(err) < 400 and "second line" not in err


def test_the_traceback_is_shown_when_no_folder_can_keep_it(monkeypatch, capsys, tmp_path):
    from vredmax.runtime import crashes

    monkeypatch.setattr(crashes, "keep", lambda text: None)
    _every_run_raises(monkeypatch)
    assert main(["asm", "x"]) == 4
    err = capsys.readouterr().err
    assert "Traceback (most recent call last)" in err
    assert err.strip().splitlines()[-1] == "vredmax: internal error: RuntimeError: forced for asm"


def test_the_console_script_exits_4_on_a_crash(tmp_path):
    """In a real process (entry(), os._exit): a command module that fails to load."""
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys, vredmax.cli.main as m; m.MODULE_OF['exec'] = 'cmd_missing'; "
            "sys.argv = ['vredmax', 'exec']; m.entry()",
        ],
        capture_output=True,
        text=True,
        timeout=60,
        env={"VREDMAX_CACHE": str(tmp_path), "PATH": "/usr/bin:/bin"},
    )
    assert done.returncode == 4, done.stderr
    assert re.match(
        r"^vredmax: internal error: ModuleNotFoundError: .*cmd_missing.* \(traceback: \S+\)$",
        done.stderr.strip(),
    ), done.stderr
