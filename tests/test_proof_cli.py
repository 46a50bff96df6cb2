"""`vredmax prove` from the command line: filters, output, exit codes, SMT-LIB2 export."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from vredmax.cli.main import main
from vredmax.runtime.errors import EXIT_OK, EXIT_USAGE

SMALL = ["--vlen", "128", "--sew", "32", "--lmul", "m1"]


def prove(capsys, *argv):
    code = main(["prove", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_one_configuration_proves_with_a_line_per_obligation(capsys):
    code, out, err = prove(capsys, *SMALL, "-v")
    assert code == EXIT_OK, out
    lines = [
        line for line in out.splitlines() if line.startswith(("PROVED", "COUNTEREXAMPLE", "UNKNOWN", "ERROR"))
    ]
    assert len(lines) > 40 and all(line.startswith("PROVED") for line in lines)
    assert any(
        "vredmax.sew32.vl0_preserves_vd" in line and "VLEN=128 ELEN=64 SEW=32 LMUL=m1 VLMAX=4" in line
        for line in lines
    )
    assert out.splitlines()[-1] == f"Summary: {len(lines)} proved, 0 counterexamples, 0 unknown, 0 errors"
    assert err == ""  # no progress display when stderr is not a terminal


def test_default_output_is_a_line_per_configuration_and_quiet_only_the_summary(capsys):
    code, out, err = prove(capsys, *SMALL)
    assert code == EXIT_OK and err == ""
    lines = out.splitlines()
    assert lines[0].startswith("PROVED    VLEN=128 ELEN=64 SEW=32 LMUL=m1 VLMAX=4")
    assert lines[1].startswith("PROVED    VLEN=128 ELEN=32 SEW=32 LMUL=m1 VLMAX=4")
    assert re.search(r" (\d+)/\1 proved ", lines[0]) and lines[1].endswith(
        ", reused"
    )  # the ELEN twin's answers
    assert lines[2].startswith("2 configurations, ") and lines[3].startswith("solvers: z3 ")
    assert lines[4].startswith("reused: ") and len(lines) == 6 and lines[-1].startswith("Summary: ")
    code, out, err = prove(capsys, *SMALL, "-q")
    assert code == EXIT_OK and out.splitlines() == [lines[-1]] and err == ""


def test_progress_on_a_terminal_names_the_configuration_and_the_obligation():
    """On a terminal, stderr shows what is being proved, obligation by obligation."""
    import os
    import pty

    primary, secondary = pty.openpty()
    done = subprocess.run(
        [sys.executable, "-m", "vredmax", "prove", *SMALL, "-k", "tail_", "--no-cache"],  # (proving)
        stdout=subprocess.PIPE,
        stderr=secondary,
        text=True,
        env={**os.environ, "COLUMNS": "200"},
    )
    os.close(secondary)
    shown = b""
    while True:
        try:
            chunk = os.read(primary, 4096)
        except OSError:  # the terminal is closed once everything was read
            break
        if not chunk:
            break
        shown += chunk
    os.close(primary)
    assert done.returncode == EXIT_OK and "0 counterexamples, 0 unknown, 0 errors" in done.stdout
    text = shown.decode()
    # a rich progress bar naming the configuration and the obligation (as last drawn) and an ETA
    assert re.search(r"prove: tail_\w+ at VLEN=128 ELEN=(64|32) SEW=32 LMUL=m1", text) and "ETA" in text


def test_pattern_and_json(capsys):
    code, out, _ = prove(capsys, *SMALL, "-k", "tail_", "--json")
    assert code == EXIT_OK
    data = json.loads(out)
    assert {r["name"] for r in data["results"]} >= {"tail_undisturbed", "tail_agnostic"}
    assert all(r["name"].startswith("tail_") for r in data["results"])
    assert data["summary"]["PROVED"] == len(data["results"]) and "z3" in data["solvers"]
    subjects = data["results"][0]["subjects"]
    assert {s["subject"] for s in subjects} >= {"spec", "tree/ones", "lanes/undisturbed"}
    assert all(s["verdict"] == "PROVED" and s["parts"] for s in subjects)


def test_both_methods_and_jobs(capsys):
    code, out, _ = prove(
        capsys,
        "--vlen",
        "128",
        "--sew",
        "64",
        "--lmul",
        "m1",
        "--lmul",
        "m2",
        "-k",
        "vl0_*",
        "--method",
        "both",
        "--jobs",
        "2",
        "-v",
    )
    assert code == EXIT_OK
    proved = [line for line in out.splitlines() if line.startswith("PROVED")]
    assert len(proved) >= 8 and out.count("(monolithic)") * 2 == len(proved)  # each both ways
    assert f"Summary: {len(proved)} proved" in out


def test_smt2_out_writes_scripts_and_a_manifest(capsys, tmp_path):
    code, out, _ = prove(capsys, *SMALL, "-k", "frame", "--smt2-out", str(tmp_path))
    assert code == EXIT_OK
    scripts = list(tmp_path.rglob("*.smt2"))
    assert scripts
    text = scripts[0].read_text()
    assert "(check-sat)" in text and "(check-sat-assuming (vredmax_negated_goal))" in text
    manifest = [json.loads(line) for line in (tmp_path / "manifest.jsonl").read_text().splitlines()]
    assert {m["id"] for m in manifest} == {"vredmax.sew32.frame"} and all(m["files"] for m in manifest)


@pytest.mark.parametrize(
    "argv,field",
    [
        (["--sew", "12"], "--sew"),
        (["--lmul", "m3"], "--lmul"),
        (["--vlen", "100"], "--vlen"),
        (["--vlen", "x"], "--vlen"),
        (["--jobs", "0"], "--jobs"),
        (["--timeout", "-1"], "--timeout"),
        (["--timeout", "soon"], "--timeout"),
        (["-k", "no_such_obligation"], "-k"),
        (["--sew", "64", "--lmul", "mf8"], "--lmul"),
        (["--monolithic-max", "0"], "--monolithic-max"),
    ],
)
def test_bad_filters_exit_2_with_one_line(capsys, argv, field):
    code, out, err = prove(capsys, *argv)
    assert code == EXIT_USAGE
    assert err.count("\n") == 1 and err.startswith(f"vredmax: error: {field}:")


def test_list_names_every_obligation(capsys):
    code, out, _ = prove(capsys, "--list")
    assert code == EXIT_OK and "vl0_preserves_vd" in out and "lemma.smax_associative" in out


def test_console_script_exit_code_on_a_counterexample(tmp_path):
    """Exit 1 when something is refuted: a unit that forgets the seed, swapped in by a plugin."""
    script = tmp_path / "run.py"
    script.write_text(
        "import sys\n"
        "import vredmax.impl\n"
        "def forgets(ops, seed, elements, active):\n"
        "    acc = ops.smin()\n"
        "    for v, a in zip(elements, active):\n"
        "        acc = ops.ite(a, ops.smax(acc, v), acc)\n"
        "    return acc\n"
        "vredmax.impl.ALGORITHMS['lanes'] = forgets\n"
        "from vredmax.cli.main import main\n"
        "sys.exit(main(['prove', '--vlen', '128', '--sew', '64', '--lmul', 'm1', '-k', 'refines_spec']))\n"
    )
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, cwd=str(tmp_path.parent)
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert "COUNTEREXAMPLE" in done.stdout and "Summary: 0 proved, 1 counterexamples" in done.stdout
    lines = done.stdout.splitlines()  # the configuration's line, then the failure in full
    assert lines[0].startswith("COUNTEREXAMPLE VLEN=128 ELEN=64 SEW=64 LMUL=m1") and "0/1 proved" in lines[0]
    assert lines[1].startswith("  COUNTEREXAMPLE vredmax.sew64.refines_spec")
    assert any(line.startswith("      COUNTEREXAMPLE of lanes/") for line in lines)
