"""Assemble and link a written suite with the GNU cross binutils (no C compiler needed)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

ASSEMBLER = "riscv64-linux-gnu-as"
LINKER = "riscv64-linux-gnu-ld"
AS_FLAGS = ("-march=rv64gcv", "-mabi=lp64d")
# The environments never set gp: no linker relaxation into gp-relative addressing.
LD_FLAGS = ("-static", "--no-relax")
PROGRAMS = {  # output -> (environment source, linker script or None)
    "tests-linux.elf": ("linux.S", None),
    "tests-baremetal.elf": ("virt.S", "baremetal.ld"),
    "tests-htif.elf": ("htif.S", "baremetal.ld"),
}


class BuildError(Exception):
    """A tool is missing or failed; the message is one line."""


def _tool(name: str, prefix: str) -> str:
    tool = prefix + name.split("-")[-1] if prefix else name
    path = shutil.which(tool)
    if path is None:
        raise BuildError(f"build: {tool} not found (install binutils-riscv64-linux-gnu)")
    return path


def _run(command: list[str]) -> None:
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        lines = [line for line in done.stderr.strip().splitlines() if "Assembler messages" not in line]
        raise BuildError(f"build: {Path(command[0]).name} failed: {(lines or ['no message'])[0]}")


def build_script() -> str:
    """The same build as a shell script, for a platform team without this tool (PREFIX may
    name another cross toolchain)."""
    lines = [
        "#!/bin/sh",
        "# Builds the programs of this suite, as `vredmax testgen --build` does.",
        "set -e",
        'cd "$(dirname "$0")"',
        'PREFIX="${PREFIX:-riscv64-linux-gnu-}"',
    ]
    sources = ("cases.S", "runner.S", *(env for env, _ in PROGRAMS.values()))
    lines += [f'"${{PREFIX}}as" {" ".join(AS_FLAGS)} -o {Path(source).stem}.o {source}' for source in sources]
    for output, (env, script) in PROGRAMS.items():
        linker_script = f" -T {script}" if script else ""
        lines.append(
            f'"${{PREFIX}}ld" {" ".join(LD_FLAGS)} -o {output}{linker_script} '
            f"{Path(env).stem}.o runner.o cases.o"
        )
    return "\n".join(lines) + "\n"


def build(directory: Path, prefix: str = "riscv64-linux-gnu-") -> list[Path]:
    """Build every program of PROGRAMS from the sources in `directory`; return their paths."""
    assembler, linker = _tool(ASSEMBLER, prefix), _tool(LINKER, prefix)
    objects = {}
    for source in ("cases.S", "runner.S", *(env for env, _ in PROGRAMS.values())):
        obj = directory / (Path(source).stem + ".o")
        _run([assembler, *AS_FLAGS, "-o", str(obj), str(directory / source)])
        objects[source] = obj
    built = []
    for output, (env, script) in PROGRAMS.items():
        command = [linker, *LD_FLAGS, "-o", str(directory / output)]
        if script:
            command += ["-T", str(directory / script)]
        command += [str(objects[env]), str(objects["runner.S"]), str(objects["cases.S"])]
        _run(command)
        built.append(directory / output)
    return built
