"""Speed and size of `vredmax testgen`: prints figures next to the target (no asserts).

    .venv/bin/python bench/bench_testgen.py [VLEN ...]

For each VLEN (default 128, 1024, 4096, 65536): the time to generate the directed suite
(cases, coverage, each case's allowed outcomes under profile any) - target under 10 s -, the
time to write its files, the sizes of cases.jsonl and cases.S, and, when the cross binutils
are installed, the time to build the three programs and their sizes. Best of 2 for the
generation.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
import time
from pathlib import Path

from vredmax.platforms.testgen.build import build
from vredmax.platforms.testgen.suite import make_suite, write_suite

TARGET = 10.0


def main(vlens: list[int]) -> None:
    can_build = shutil.which("riscv64-linux-gnu-as") and shutil.which("riscv64-linux-gnu-ld")
    print(f"directed suite generation, profile any (target: under {TARGET:.0f} s per VLEN)")
    for vlen in vlens:
        times = []
        for _ in range(2):
            start = time.perf_counter()
            suite = make_suite(vlen, 64, "any", random_count=0)
            times.append(time.perf_counter() - start)
        with tempfile.TemporaryDirectory() as work:
            out = Path(work)
            start = time.perf_counter()
            write_suite(suite, out)
            written = time.perf_counter() - start
            sizes = (
                f"cases.jsonl {(out / 'cases.jsonl').stat().st_size / 1e6:.1f} MB, "
                f"cases.S {(out / 'cases.S').stat().st_size / 1e6:.2f} MB"
            )
            built = ""
            if can_build:
                start = time.perf_counter()
                build(out)
                built = (
                    f"; build {time.perf_counter() - start:.2f} s, tests-linux.elf "
                    f"{(out / 'tests-linux.elf').stat().st_size / 1e6:.2f} MB"
                )
        verdict = "meets" if min(times) < TARGET else "MISSES"
        print(
            f"VLEN={vlen:>5}: {len(suite.entries)} cases, {len(suite.hits)} coverpoints, generated in "
            f"{min(times):.2f} s ({verdict} target); written in {written:.2f} s ({sizes}){built}"
        )


if __name__ == "__main__":
    main([int(arg) for arg in sys.argv[1:]] or [128, 1024, 4096, 65536])
