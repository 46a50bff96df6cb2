"""`vredmax conform`: exit codes, the summary, and a mismatch shown as a counterexample."""

from __future__ import annotations

import stat
import subprocess
import sys

import pytest

from vredmax.cli.main import main

# Under pytest-xdist (--dist loadgroup) the module runs on one worker: one set of QEMU harness processes.
pytestmark = pytest.mark.xdist_group("conformance")


def run_cli(*args):
    done = subprocess.run([sys.executable, "-m", "vredmax", "conform", *args], capture_output=True, text=True)
    return done.returncode, done.stdout, done.stderr


@pytest.mark.parametrize(
    "args,field",
    [
        (["--vlen", "100"], "--vlen"),
        (["--vlen", "64"], "--vlen"),
        (["--cases", "0"], "--cases"),
        (["--emulator", "no-such-qemu-riscv64"], "--emulator"),
    ],
)
def test_bad_input_exits_2_with_one_line(args, field, capsys):
    assert main(["conform", *args]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"vredmax: error: {field}: ")


def test_a_full_agreement_exits_0(harness_binary):
    code, out, err = run_cli("--vlen", "256", "--cases", "500", "--seed", "3")
    assert code == 0, out + err
    assert "Summary: 500 cases," in out and " 0 mismatches" in out
    assert "--seed 3" in out and "mstatus.VS" in out
    assert "Traceback" not in err


def test_a_disagreeing_emulator_exits_1_with_a_counterexample(harness_binary, tmp_path):
    """An 'emulator' that secretly writes ones into agnostic tails."""
    fake = tmp_path / "qemu-that-writes-ones"
    fake.write_text(
        '#!/bin/sh\nif [ "$1" = -cpu ]; then cpu="$2,rvv_ta_all_1s=true"; shift 2; '
        'exec qemu-riscv64 -cpu "$cpu" "$@"; fi\nexec qemu-riscv64 "$@"\n'
    )
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    code, out, err = run_cli(
        "--emulator", str(fake), "--vlen", "128", "--cases", "300", "--seed", "7", "--show", "1"
    )
    assert code == 1, out + err
    assert "--- mismatch 1 of" in out and "--- mismatch 2 of" not in out
    assert "lane  vs2[i]" in out  # the spec's lane table
    assert "emulator #xff" in out  # the emulator's tail elements, value_text
    assert '"tail": "undisturbed"' in out  # the case, ready for vredmax exec
    summary = out.strip().splitlines()[-1]
    assert summary.startswith("Summary: 300 cases,") and " 0 mismatches" not in summary


def test_an_emulator_that_refuses_the_cpu_is_one_line(harness_binary):
    """QEMU 7.2 stops at VLEN=1024; newer versions may go further, so only check the form."""
    code, out, err = run_cli("--vlen", "65536", "--cases", "5", "--seed", "1")
    if code == 0:
        pytest.skip("this emulator supports VLEN=65536")
    assert code == 2 and err.count("\n") == 1 and err.startswith("vredmax: error: --emulator: ")


def test_something_that_is_not_an_emulator_is_one_line(capsys):
    assert main(["conform", "--emulator", "false", "--harness", sys.executable, "--cases", "3"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("vredmax: error: --emulator: ") and "stopped early" in err


def test_an_emulator_that_dies_mid_run_fails(harness_binary, tmp_path):
    fake = tmp_path / "qemu-that-dies"
    fake.write_text('#!/bin/sh\nqemu-riscv64 "$@" | dd bs=1 count=50000 status=none\n')
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    code, out, err = run_cli("--emulator", str(fake), "--vlen", "256", "--cases", "2000", "--seed", "1")
    assert code == 1
    assert err.count("\n") == 1 and "stopped early" in err and "--seed 1" in err
