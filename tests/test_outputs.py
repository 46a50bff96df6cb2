"""Output that fails cleanly, Ctrl-C, --version, exit codes in --help, JSON Schemas of real
outputs, duplicate JSON keys (vredmax/runtime/outputs.py, vredmax/runtime/interrupts.py, vredmax/cli/main.py)."""

from __future__ import annotations

import re
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import jsonschema
import pytest

from vredmax import __version__
from vredmax.runtime import outputs
from vredmax.cli.main import build_parser, main
from vredmax.schema import load_schema

VREDMAX = Path(sys.executable).parent / "vredmax"
CASE = {
    "vlen": 128,
    "insn": "vredmax.vs v8, v12, v4",
    "vtype": {"sew": 8, "lmul": "m1"},
    "vl": 4,
    "vregs": {"v4": "0xfe", "v12": "0x03028001"},
}
SMALL_PROVE = ["prove", "--vlen", "128", "--sew", "8", "--lmul", "m1", "-k", "vl0"]


def vredmax(*argv, stdin=None, stdout=subprocess.PIPE, timeout=120):
    return subprocess.run(
        [str(VREDMAX), *map(str, argv)],
        input=stdin,
        stdout=stdout,
        stderr=subprocess.PIPE,
        text=True,
        timeout=timeout,
    )


# -- the front door -------------------------------------------------------------------------------


def test_version_and_python_dash_m():
    for command in ([str(VREDMAX)], [sys.executable, "-m", "vredmax"]):
        done = subprocess.run(command + ["--version"], capture_output=True, text=True, timeout=60)
        assert (done.returncode, done.stdout.strip()) == (0, f"vredmax {__version__}")
    done = subprocess.run(
        [sys.executable, "-m", "vredmax", "asm", "vredmax.vs v8, v12, v4"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert (done.returncode, done.stdout.strip()) == (0, "0x1ec22457")


def test_every_help_lists_the_exit_codes():
    parser = build_parser()
    helps = [parser.format_help()] + [
        command.format_help() for command in parser._subparsers._group_actions[0].choices.values()
    ]
    assert len(helps) > 8
    for text in helps:  # each command lists the codes it uses: bad input is one of them everywhere
        assert "exit codes:" in text and re.search(r"\n  2 +\S", text)
    long_running = [
        parser._subparsers._group_actions[0].choices[name].format_help() for name in ("prove", "report")
    ]
    assert all("130  interrupted (Ctrl-C)" in text for text in long_running)


# -- JSON in and out --------------------------------------------------------------------------------


def test_duplicate_keys_are_rejected_naming_the_key(tmp_path):
    case = tmp_path / "case.json"
    case.write_text(json.dumps(CASE).replace('"vl": 4', '"vl": 4, "vl": 5'))
    done = vredmax("exec", case)
    assert done.returncode == 2
    assert done.stderr.strip() == "vredmax: error: vl: given twice in one JSON object (duplicate key)"
    nested = json.dumps(CASE).replace('"v4": "0xfe"', '"v4": "0xfe", "v4": "0x01"')
    done = vredmax("exec", "-", stdin=nested)
    assert done.returncode == 2 and done.stderr.startswith("vredmax: error: v4: given twice")


def test_exec_outputs_validate_against_their_schemas(tmp_path):
    case = tmp_path / "case.json"
    case.write_text(json.dumps(CASE))
    result = json.loads(vredmax("exec", "--json", case).stdout)
    jsonschema.validate(result, load_schema("exec-result"))
    batch = tmp_path / "cases.jsonl"
    batch.write_text(json.dumps(CASE) + "\n" + '{"vlen": 3}\n')
    done = vredmax("exec", "--jsonl", batch)
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert done.returncode == 2 and [line["schema"] for line in lines] == [
        "vredmax/exec-result/1",
        "vredmax/exec-error/1",
    ]
    jsonschema.validate(lines[0], load_schema("exec-result"))
    jsonschema.validate(lines[1], load_schema("exec-error"))


def test_asm_and_disasm_json_validate():
    schema = load_schema("asm-result")
    assembled = json.loads(vredmax("asm", "vredmax.vs v8, v12, v4", "--json").stdout)
    disassembled = json.loads(vredmax("disasm", "0x1ec22457", "--json").stdout)
    assert assembled == disassembled and assembled["word"] == "0x1ec22457" and assembled["vd"] == 8
    jsonschema.validate(assembled, schema)
    jsonschema.validate(json.loads(vredmax("disasm", "0x1c862257", "--json").stdout), schema)


def test_prove_json_validates_and_a_wrong_document_does_not():
    done = vredmax(*SMALL_PROVE, "--json")
    assert done.returncode == 0, done.stderr
    document = json.loads(done.stdout)
    assert document["schema"] == "vredmax/prove-result/1" and document["interrupted"] is False
    schema = load_schema("prove-result")
    jsonschema.validate(document, schema)
    document["results"][0]["verdict"] = "PROVED-ISH"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(document, schema)


def test_report_files_validate(tmp_path, monkeypatch):
    """The semantics document and --timings, from a tiny report (one configuration, one claim)."""
    from vredmax.cli import cmd_report
    from vredmax.proofs.claims.claims import CLAIMS_BY_ID
    from vredmax.presentation.documents.report import collect
    from vredmax.spec.config import Config

    recorded = []
    tiny = collect(
        [Config(128, 64, 64, "m1")], claims=[CLAIMS_BY_ID["vredmax.wrong.unsigned_same"]], timings=recorded
    )

    def collect_tiny(*args, timings=None, **kwargs):
        if timings is not None:
            timings.extend(recorded)
        return tiny

    monkeypatch.setattr(cmd_report, "collect", collect_tiny)
    out = tmp_path / "docs"
    assert main(["report", "--out-dir", str(out), "--timings", str(tmp_path / "t.json")]) == 0
    jsonschema.validate(json.loads((out / "SEMANTICS.json").read_text()), load_schema("semantics"))
    written = json.loads((tmp_path / "t.json").read_text())
    jsonschema.validate(written, load_schema("report-timings"))
    assert written["timings"] and written["timings"][0]["verdict"] == "PROVED"


def test_every_shipped_schema_is_a_valid_draft_2020_12_schema():
    folder = Path(__file__).parent.parent / "vredmax" / "schemas"
    names = sorted(folder.glob("*.schema.json"))
    assert names
    for path in names:
        schema = json.loads(path.read_text())
        jsonschema.Draft202012Validator.check_schema(schema)
        kind = path.name[: -len(".schema.json")]
        assert schema["$id"].startswith(f"vredmax/{kind}/")


# -- output errors ----------------------------------------------------------------------------------


def test_broken_pipe_is_one_line_and_exit_2():
    process = subprocess.Popen(
        [str(VREDMAX), *SMALL_PROVE, "-v"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    process.stdout.close()  # the reader goes away before the first line
    error = process.stderr.read()
    assert process.wait(timeout=120) == 2
    assert error.strip() == "vredmax: error: stdout: broken pipe (the reader went away)"


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_full_disk_on_stdout_is_one_line_and_exit_2():
    with open("/dev/full", "w") as full:
        done = vredmax("asm", "vredmax.vs v8, v12, v4", stdout=full)
    assert done.returncode == 2
    assert done.stderr.strip() == "vredmax: error: stdout: No space left on device"


def test_an_unwritable_output_directory_is_refused_before_proving(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    start = time.monotonic()
    done = vredmax("prove", "--smt2-out", blocker / "sub")  # the default run would take a minute
    assert done.returncode == 2 and time.monotonic() - start < 30
    assert done.stderr.startswith(f"vredmax: error: --smt2-out: cannot write to {blocker / 'sub'}: ")
    assert len(done.stderr.strip().splitlines()) == 1


def test_atomic_writes_leave_the_old_file_or_the_new_one(tmp_path):
    target = tmp_path / "out.txt"
    outputs.write_text(target, "old\n", "--out")

    class Boom(Exception):
        pass

    with pytest.raises(Boom):
        with outputs.atomic_open(target, "--out") as stream:
            stream.write("half of the new")
            raise Boom
    assert target.read_text() == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["out.txt"]  # no temporary file left
    with pytest.raises(outputs.OutputError, match=r"^--out: cannot write "):
        outputs.write_text(tmp_path / "missing-dir" / "x.txt", "x", "--out")


def test_no_file_is_written_after_an_interrupt(tmp_path):
    outputs.note_interrupt()
    try:
        with pytest.raises(KeyboardInterrupt):
            outputs.write_text(tmp_path / "late.txt", "x", "--out")
    finally:
        outputs.install_interrupt_handler()  # resets the state (this test runs in the main thread)
        signal.signal(signal.SIGINT, signal.default_int_handler)
    assert not (tmp_path / "late.txt").exists()


# -- Ctrl-C ---------------------------------------------------------------------------------------------


def _children(pid: int) -> list[int]:
    done = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True)
    return [int(p) for p in done.stdout.split()]


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().split()[2] != "Z"
    except OSError:
        return False


def _descendants(pid: int) -> list[int]:
    found = _children(pid)
    for child in list(found):
        found += _descendants(child)
    return found


def _command_name(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/comm") as comm:
            return comm.read().strip()
    except OSError:
        return ""


def _cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _wait_until(condition, what: str, timeout_s: float = 180) -> None:
    """Readiness, not a fixed sleep: on a loaded machine start-up takes longer."""
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, f"not {what} after {timeout_s} s"
        time.sleep(0.1)


def _interrupt(argv, after_line: str, wait_s: float = 0.0):
    """Start vredmax, wait for a line containing `after_line` on stdout, send SIGINT."""
    process = subprocess.Popen(
        [str(VREDMAX), *argv], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    seen = []
    for line in process.stdout:
        seen.append(line)
        if after_line in line:
            break
    time.sleep(wait_s)
    workers = _children(process.pid)
    sent = time.monotonic()
    process.send_signal(signal.SIGINT)
    rest, error = process.communicate(timeout=60)
    return process.returncode, time.monotonic() - sent, "".join(seen) + rest, error, workers


@pytest.mark.xdist_group("interrupts")
@pytest.mark.parametrize("jobs", ["1", "2"])
def test_ctrl_c_stops_prove_at_once_marks_it_interrupted_and_ends_the_workers(jobs):
    # VLEN=65536 takes most of a minute at SEW 8 (seven LMULs, no kept answers): the run is
    # interrupted a second after its first configuration line, long before it could end
    argv = ["prove", "--vlen", "128,65536", "--sew", "8", "--jobs", jobs, "--no-cache"]
    code, seconds, out, error, workers = _interrupt(argv, "VLEN=", wait_s=1.0)
    assert code == 130, error
    assert seconds < 10
    assert "Summary:" not in out
    assert out.strip().splitlines()[-1].startswith("INTERRUPTED")
    assert error.strip().splitlines()[-1] == "vredmax: interrupted"
    assert "Traceback" not in error
    if jobs == "2":
        assert len(workers) == 2
    time.sleep(0.5)
    assert not [w for w in workers if _alive(w)]


@pytest.mark.xdist_group("interrupts")
def test_ctrl_c_during_report_writes_no_file(tmp_path):
    out = tmp_path / "docs"
    process = subprocess.Popen(
        [str(VREDMAX), "report", "--out-dir", str(out), "--timings", str(tmp_path / "t.json"), "--no-cache"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    _wait_until(lambda: _cpu_seconds(process.pid) > 4, "proving")  # past start-up (the report takes minutes)
    sent = time.monotonic()
    process.send_signal(signal.SIGINT)
    stdout, stderr = process.communicate(timeout=60)
    assert process.returncode == 130 and time.monotonic() - sent < 20, stderr
    assert stdout.strip().splitlines()[-1].startswith("INTERRUPTED") and "Summary:" not in stdout
    assert stderr.strip().splitlines()[-1] == "vredmax: interrupted" and "Traceback" not in stderr
    assert list(out.iterdir()) == [] and not (tmp_path / "t.json").exists()


@pytest.mark.skipif(
    not shutil.which("qemu-riscv64") or not shutil.which("riscv64-linux-gnu-gcc"),
    reason="needs qemu-riscv64 and the riscv64 cross compiler",
)
@pytest.mark.xdist_group("interrupts")
@pytest.mark.parametrize("jobs", ["1", "2"])
def test_ctrl_c_stops_conform(jobs):
    process = subprocess.Popen(
        [str(VREDMAX), "conform", "--cases", "1000000", "--seed", "1", "--jobs", jobs],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    _wait_until(lambda: "qemu-riscv64" in map(_command_name, _descendants(process.pid)), "running cases")
    time.sleep(1)  # a million cases take minutes
    workers = _children(process.pid)
    sent = time.monotonic()
    process.send_signal(signal.SIGINT)
    out, error = process.communicate(timeout=60)
    code, seconds = process.returncode, time.monotonic() - sent
    assert code == 130 and seconds < 10, error
    assert "Summary:" not in out and out.strip().splitlines()[-1].startswith("INTERRUPTED after")
    assert "Traceback" not in error, error
    time.sleep(0.5)
    assert not [w for w in workers if _alive(w)]


# A KeyboardInterrupt that Python would drop (raised inside a finalizer or a callback) -------------

DROPPED_INTERRUPT = """
import signal, sys, time, weakref
from vredmax.runtime import interrupts
interrupts.install()

def deep():
    signal.raise_signal(signal.SIGINT)   # arrives below {where}
    for _ in range(100000):
        pass

class Finalized:
    def __del__(self):
        deep()

class Referenced:
    pass

def {where}():
    if "{where}" == "finalizer":
        Finalized()                       # dropped at once: __del__ runs here
    else:
        target = Referenced()
        reference = weakref.ref(target, lambda _: deep())
        del target                        # the weakref callback runs here
        assert reference() is None

try:
    with interrupts.cut_short():
        {where}()
        for _ in range(300):
            time.sleep(0.01)
    print("lost")
except KeyboardInterrupt:
    print("raised")
"""


@pytest.mark.parametrize("where", ["finalizer", "weakref_callback"])
def test_an_interrupt_inside_a_finalizer_or_callback_is_not_lost(where):
    """z3's Solver.__del__ once took a Ctrl-C: the report went on for minutes."""
    done = subprocess.run(
        [sys.executable, "-c", DROPPED_INTERRUPT.format(where=where)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.stdout.strip() == "raised", done.stdout + done.stderr
    assert "Traceback" not in done.stderr and "Exception ignored" not in done.stderr, done.stderr


def test_an_exception_after_ctrl_c_is_the_interrupt():
    """A solver call cut short by Ctrl-C ends in its own exception (Z3's "canceled"): inside
    cut_short() it leaves as KeyboardInterrupt, so the command marks its result INTERRUPTED."""
    from vredmax.runtime import interrupts

    with pytest.raises(ValueError):
        with interrupts.cut_short():
            raise ValueError("not interrupted: an ordinary error")
    interrupts.note_interrupt()
    try:
        with pytest.raises(KeyboardInterrupt):
            with interrupts.cut_short():
                raise RuntimeError("canceled")
    finally:
        interrupts._STATE["interrupted"] = interrupts._STATE["raised"] = False


Z3_AFTER_THE_GUARD = """
import sys
from vredmax.runtime import interrupts
assert "z3" not in sys.modules
interrupts.install()
import z3  # as a command that loads it lazily, after the guard
print(z3.get_param("ctrl_c"))
"""


def test_z3_loaded_after_the_guard_does_not_catch_ctrl_c_itself():
    """With Z3's own SIGINT handler on, Ctrl-C cancelled the query in flight as `unknown` and the
    report went on to write its files (exit 3 or 0, not 130): the guard is installed before the
    parser, and so before z3 is loaded."""
    done = subprocess.run(
        [sys.executable, "-c", Z3_AFTER_THE_GUARD], capture_output=True, text=True, timeout=60
    )
    assert done.stdout.strip() == "false", done.stdout + done.stderr
