"""QEMU user mode (qemu-riscv64): its -cpu option, where it is, its version."""

from __future__ import annotations

import shutil
import subprocess

from vredmax.platforms.conformance.pipe import EmulatorError

ELENS = (32, 64)  # QEMU's elen option: 32 models a Zve32x-like ELEN (SEW=64 is then vill)
TAILS = ("undisturbed", "ones")


def cpu_option(vlen: int, tail: str, elen: int = 64) -> str:
    """The -cpu value: RVV 1.0 at this VLEN and ELEN; the "ones" policy is QEMU's rvv_ta_all_1s."""
    if tail not in TAILS:
        raise ValueError(f"tail: must be one of {', '.join(TAILS)}, got {tail!r}")
    if elen not in ELENS:
        raise ValueError(f"elen: must be 32 or 64, got {elen!r}")
    option = f"rv64,v=true,vlen={vlen},elen={elen},vext_spec=v1.0"
    return option + ",rvv_ta_all_1s=true" if tail == "ones" else option


def find_emulator(emulator: str) -> str:
    path = shutil.which(emulator)
    if path is None:
        raise EmulatorError(f"emulator: {emulator} not found (install qemu-user, or give its path)")
    return path


def emulator_version(emulator: str) -> str:
    try:
        done = subprocess.run([emulator, "--version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as error:
        raise EmulatorError(f"emulator: cannot run {emulator}: {error}") from None
    return (done.stdout.strip().splitlines() or ["unknown version"])[0]
