"""Speed of `vredmax ask`: prints figures (no asserts).

    .venv/bin/python bench/bench_ask.py [--all]

1. The issue's example claims at the default configurations (every SEW x LMUL at VLEN=128).
2. A claim about the result and one refuted claim at VLEN 1024, 8192 and 65536 (SEW=8, LMUL=m8:
   VLMAX = VLEN), each in a process of its own (wall clock, including start-up); and issue 22's
   `post.vd[0] == vs2[37]` at VLEN=65536.
3. The spec's reduction written as a fold, at SEW=16 with LMUL m2, m4, m8 (VLEN=128) and VLMAX 512.
4. With --all: one proved claim over every legal configuration for ELEN=64 (242).
"""

from __future__ import annotations

import subprocess
import sys
import time

PROVED = "implies(legal and pre.vl > 0, post.vd[0] >= seed)"
REFUTED = "implies(legal and pre.vl > 0, post.vd[0] == vs2[0])"
FOLD = (
    "implies(legal and pre.vl > 0, post.vd[0] == smax(seed, smax(vs2[i] for i in range(VLMAX) if active[i])))"
)
EXAMPLES = [
    "implies(legal and pre.vl == 0, post.vd == pre.vd)",
    "implies(pre.vl == 0, post.vd == pre.vd)",
    PROVED,
    REFUTED,
]


def timed(args) -> tuple[float, int, str]:
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "vredmax", "ask", *args], capture_output=True, text=True)
    last = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else done.stderr.strip()
    return time.perf_counter() - start, done.returncode, last


def main() -> None:
    print("default configurations (22, VLEN=128):")
    for claim in EXAMPLES:
        seconds, code, last = timed([claim])
        print(f"  {seconds:6.1f} s  exit {code}  {claim}\n           {last}")
    print("large VLMAX (SEW=8, LMUL=m8):")
    for vlen in (1024, 8192, 65536):
        for claim in (PROVED, REFUTED):
            seconds, code, _ = timed([claim, "--vlen", str(vlen), "--sew", "8", "--lmul", "m8"])
            print(f"  VLEN={vlen:<6} {seconds:6.1f} s  exit {code}  {claim}")
    seconds, code, _ = timed(["post.vd[0] == vs2[37]", "--vlen", "65536", "--sew", "8", "--lmul", "m8"])
    print(f"  VLEN=65536 {seconds:6.1f} s  exit {code}  post.vd[0] == vs2[37]")
    print("the reduction as a fold (SEW=16):")
    for vlen, lmul in ((128, "m2"), (128, "m4"), (128, "m8"), (1024, "m8")):
        seconds, code, _ = timed([FOLD, "--vlen", str(vlen), "--sew", "16", "--lmul", lmul])
        print(f"  VLEN={vlen:<6} {lmul}  {seconds:6.1f} s  exit {code}")
    if "--all" in sys.argv:
        seconds, code, last = timed([PROVED, "--all"])
        print(f"every configuration: {seconds:.1f} s  exit {code}  {last}")


if __name__ == "__main__":
    main()
