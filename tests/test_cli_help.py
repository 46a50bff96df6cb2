"""Every command's --help: examples that parse and name files that exist, the exit codes that
command uses and no others, text that fits 80 columns; argparse's mistakes as one line, exit 2."""

from __future__ import annotations

import argparse
import os
import re
import shlex
from pathlib import Path

import pytest

from vredmax.cli import helptext
from vredmax.cli.main import build_parser, main

ROOT = Path(__file__).resolve().parent.parent


def _commands() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    return next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices


COMMANDS = sorted(_commands())


@pytest.mark.parametrize("name", COMMANDS)
def test_help_has_examples_and_only_the_exit_codes_the_command_uses(name, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    text = _commands()[name].format_help()
    examples = text.split("\nexamples:\n")[1].split("\n\n")[0].splitlines()
    assert [line.strip() for line in examples] == helptext.EXAMPLES[name]
    table = text.split("\nexit codes:\n")[1]
    codes = [int(m) for m in re.findall(r"^  (\d+) ", table, re.M)]
    assert codes == sorted(helptext.EXITS[name]) and 0 in codes and 2 in codes
    wide = [line for line in text.splitlines() if len(line) > 80]
    assert wide == [], f"vredmax {name} --help at 80 columns: {wide}"


def test_asm_exits_only_0_or_2_or_4_and_report_names_stale_as_1():
    assert sorted(helptext.EXITS["asm"]) == [0, 2, 4]  # 4: an internal error, in every command
    assert "out of date" in helptext.EXITS["report"][1]


@pytest.mark.parametrize("name", COMMANDS)
def test_examples_parse_and_their_files_exist(name):
    parser = build_parser()
    for example in helptext.EXAMPLES[name]:
        words = shlex.split(example)
        if "<" in words:  # a redirection: the file read is the input
            words, source = words[: words.index("<")], words[words.index("<") + 1]
            assert (ROOT / source).is_file(), example
        assert words[0] == "vredmax" and words[1] == name
        args = parser.parse_args(words[1:])
        for word in words[2:]:
            path = word.split(":")[0]
            if path.startswith(("examples/", "tests/")):
                assert (ROOT / path).exists(), f"{example}: {path} does not exist"
        assert callable(args.run)


@pytest.mark.parametrize(
    "argv, line",
    [
        (
            ["exec", "--profile", "foo", "x.json"],
            "vredmax: error: --profile: invalid choice: 'foo' (choose from 'any', 'sail', 'spike', 'qemu')",
        ),
        (
            ["exec", "--max-rows", "-2", "x.json"],
            "vredmax: error: --max-rows: must be an integer 0 or more, got '-2'",
        ),
        (
            ["explain", "--max-rows", "-1", "x.json"],
            "vredmax: error: --max-rows: must be an integer 0 or more, got '-1'",
        ),
        (["check-rtl", "x.v"], "vredmax: error: --top: required (see vredmax check-rtl --help)"),
        (
            ["prove", "--bogus"],
            "vredmax: error: --bogus: not an option of vredmax prove (see vredmax prove --help)",
        ),
        (["prove", "--jobs"], "vredmax: error: --jobs: expected one argument"),
        (["frobnicate"], "vredmax: error: COMMAND: invalid choice: 'frobnicate' (choose from "),
        ([], "vredmax: error: COMMAND: required (see vredmax --help)"),
    ],
)
def test_argparse_mistakes_are_one_line(capsys, argv, line):
    code = main(argv)
    out, err = capsys.readouterr()
    assert (code, out) == (2, "")
    assert err.count("\n") == 1 and err.startswith(line), err
    assert "usage:" not in err


def test_report_takes_o_like_testgen():
    args = build_parser().parse_args(["report", "-o", "somewhere"])
    assert args.out_dir == "somewhere"
    assert build_parser().parse_args(["report", "--out-dir", "x"]).out_dir == "x"  # the old spelling


def test_top_level_help_lists_every_command(monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    text = build_parser().format_help()
    for name in COMMANDS:
        assert re.search(rf"^    {re.escape(name)}\b", text, re.M), name
    assert os.linesep.join(helptext.exit_table(helptext.ALL_EXITS).splitlines()) in text
