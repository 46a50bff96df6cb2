"""Which emulator runs the conformance harness, and how: QEMU user mode (qemu-riscv64, the
Linux harness) or Spike (machine mode, the HTIF harness, mstatus.VS visible).

`Emulator` is a plain description (picklable: worker processes and Dask workers start their
own emulators from it); `choose_emulator` finds the binary and checks the options.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from vredmax.platforms.conformance import qemu, spike

KINDS = ("qemu", "spike")
HARNESS_KINDS = {"qemu": "linux", "spike": "htif"}


@dataclass(frozen=True)
class Emulator:
    kind: str  # "qemu" or "spike"
    path: str  # the binary
    vlen: int
    elen: int = 64
    tail: str = "undisturbed"  # what the emulator does with agnostic tails

    @property
    def harness_kind(self) -> str:
        """The harness build it runs (build.py): "linux" or "htif"."""
        return HARNESS_KINDS[self.kind]

    @property
    def machine_mode(self) -> bool:
        """Whether the harness runs in machine mode (mstatus.VS is set and read)."""
        return self.kind == "spike"

    @property
    def machine(self) -> str:
        """What sets the machine: QEMU's -cpu value, or Spike's --isa value."""
        if self.kind == "spike":
            return spike.isa_option(self.vlen, self.elen)
        return qemu.cpu_option(self.vlen, self.tail, self.elen)

    @property
    def option(self) -> str:
        """The same, as on the emulator's command line."""
        return f"--isa={self.machine}" if self.kind == "spike" else f"-cpu {self.machine}"

    def command(self, program: Path) -> list[str]:
        if self.kind == "spike":
            return spike.spike_command(self.path, program, self.vlen, self.elen)
        return [self.path, "-cpu", self.machine, str(program)]

    def version(self) -> str:
        return spike.spike_version(self.path) if self.kind == "spike" else qemu.emulator_version(self.path)


def kind_of(name: str) -> str:
    """`spike`, or a path to a binary named spike*, is Spike; anything else is a qemu-riscv64."""
    return "spike" if Path(name).name.startswith("spike") else "qemu"


def choose_emulator(
    name: str, vlen: int, elen: int = 64, tail: str = "undisturbed", spike_path: str | None = None
) -> Emulator:
    """The emulator `name` (or Spike at `spike_path`) for this machine. Raises ValueError for
    an option the emulator does not have (naming the field), EmulatorError when it is missing."""
    kind = "spike" if spike_path is not None else kind_of(name)
    if kind == "spike":
        if tail not in spike.TAILS:
            raise ValueError(f"tail: Spike keeps agnostic tails (undisturbed only), got {tail!r}")
        spike.isa_option(vlen, elen)
        given = spike_path if spike_path is not None else (None if name == "spike" else name)
        return Emulator("spike", spike.find_spike(given), vlen, elen, tail)
    qemu.cpu_option(vlen, tail, elen)
    return Emulator("qemu", qemu.find_emulator(name), vlen, elen, tail)
