"""Build the static riscv64 harness with the cross compiler, once per source version: for a
user-mode emulator (Linux, qemu-riscv64) or for machine mode on Spike (HTIF, freestanding).

The binary is cached under $VREDMAX_CACHE, else $XDG_CACHE_HOME/vredmax, else ~/.cache/vredmax
(a temporary directory when none is writable), in a folder named by a hash of the sources
and the compiler command, so an edited harness is rebuilt and concurrent builds are safe.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
from importlib import resources
from pathlib import Path

from vredmax.runtime.cachedir import cache_root

COMPILER = "riscv64-linux-gnu-gcc"
COMMON = ("harness.h", "harness.c", "harness.S")
# The C part is built without V so that the compiler never touches vector state.
FLAGS = ("-static", "-O2", "-march=rv64gc", "-mabi=lp64d", "-Wall", "-Wextra")
KINDS = {  # kind -> (its sources, its flags)
    "linux": (COMMON + ("harness_linux.c",), FLAGS),
    # Spike's RAM starts at 0x80000000: medany code, linked there, no C library.
    "htif": (
        COMMON + ("harness_htif.c", "harness_htif.S"),
        FLAGS
        + (
            "-DHARNESS_MACHINE",
            "-ffreestanding",
            "-nostdlib",
            "-mcmodel=medany",
            "-Wl,-Ttext-segment=0x80000000",
            "-Wl,--no-relax",
        ),
    ),
}


class BuildError(Exception):
    """The harness cannot be built here; the message says what is missing."""


def source_texts(kind: str = "linux") -> dict[str, bytes]:
    package = resources.files(__package__)
    return {name: (package / name).read_bytes() for name in KINDS[kind][0]}


def build_harness(kind: str = "linux", compiler: str = COMPILER) -> Path:
    """Return the path of the harness binary of this kind ("linux" or "htif"), building it if
    needed."""
    path = shutil.which(compiler)
    if path is None:
        raise BuildError(
            f"harness: {compiler} not found (install gcc-riscv64-linux-gnu "
            "and libc6-dev-riscv64-cross, or give --harness)"
        )
    sources, flags = source_texts(kind), KINDS[kind][1]
    digest = hashlib.sha256(repr((sorted(sources.items()), flags, compiler)).encode()).hexdigest()[:16]
    for root in (cache_root(), Path(tempfile.gettempdir()) / f"vredmax-{os.getuid()}"):
        target = root / f"harness-{digest}" / "harness"
        if target.is_file():
            return target
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
        except OSError:
            continue
        _compile(path, sources, flags, target)
        return target
    raise BuildError("harness: no writable cache directory (set VREDMAX_CACHE)")


def _compile(compiler: str, sources: dict[str, bytes], flags: tuple, target: Path) -> None:
    with tempfile.TemporaryDirectory(dir=target.parent) as work:
        files = []
        for name, text in sources.items():
            (Path(work) / name).write_bytes(text)
            if not name.endswith(".h"):
                files.append(str(Path(work) / name))
        output = Path(work) / "harness"
        done = subprocess.run([compiler, *flags, "-o", str(output), *files], capture_output=True, text=True)
        if done.returncode != 0:
            first = (done.stderr.strip().splitlines() or ["no message"])[-1]
            raise BuildError(f"harness: {compiler} failed: {first}")
        os.replace(output, target)  # atomic: a concurrent build sees all or nothing
