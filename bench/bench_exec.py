"""Speed of the concrete semantics: prints figures next to the targets of issue 2 (no asserts).

    .venv/bin/python bench/bench_exec.py

1. One VLEN=65536, LMUL=8, SEW=8 reduction (65536 elements, masked, vl=VLMAX) per algorithm,
   through impl.execute.execute(); best of 3. Target: under 0.5 s each.
2. `vredmax exec --jsonl` on 1000 VLEN=1024 cases (random legal SEW/LMUL, vl, mask and all 32
   registers random), the real CLI as a subprocess, wall clock including start-up.
   Target: under 5 s.
"""

from __future__ import annotations

import json
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from vredmax.impl import ALGORITHMS
from vredmax.impl.execute import execute
from vredmax.spec.config import encode_vtype, legal_configs
from vredmax.spec.encoding import Insn
from vredmax.spec.state import ArchState
from vredmax.impl.case import case_json

REDUCTION_TARGET = 0.5
BATCH_TARGET = 5.0
BATCH_CASES = 1000


def largest_state(rng: random.Random) -> ArchState:
    return ArchState(
        vlen=65536,
        elen=64,
        regs=tuple(rng.getrandbits(65536) for _ in range(32)),
        vtype=encode_vtype(8, "m8"),
        vl=65536,
        vstart=0,
        vs=1,
    )


def time_reductions(rng: random.Random) -> list[tuple[str, float, float]]:
    state, insn = largest_state(rng), Insn(vd=1, vs2=8, vs1=2, vm=0)
    rows, results = [], set()
    for name in ALGORITHMS:
        times = []
        for _ in range(3):
            start = time.perf_counter()
            result = execute(state, insn, name)
            times.append(time.perf_counter() - start)
        results.add(result)
        rows.append((f"execute, VLEN=65536 LMUL=8 SEW=8, {name}", min(times), REDUCTION_TARGET))
    if len(results) != 1:
        sys.exit("bench: the algorithms disagree on the benchmark state")
    return rows


def batch_lines(rng: random.Random) -> list[str]:
    configs = legal_configs(64, [1024])
    lines = []
    for _ in range(BATCH_CASES):
        cfg = rng.choice(configs)
        vs2 = rng.randrange(0, 32, cfg.group_registers)
        vm = rng.choice((0, 1)) if vs2 else 1
        insn = Insn(vd=rng.randrange(32), vs2=vs2, vs1=rng.randrange(1, 32), vm=vm)
        state = ArchState(
            vlen=1024,
            elen=64,
            regs=tuple(rng.getrandbits(1024) for _ in range(32)),
            vtype=encode_vtype(cfg.sew, cfg.lmul, rng.random() < 0.5),
            vl=rng.randint(0, cfg.vlmax),
            vstart=0,
            vs=1,
        )
        lines.append(json.dumps(case_json(state, insn, rng.choice(("undisturbed", "ones")))))
    return lines


def vredmax_program() -> str:
    beside = Path(sys.executable).parent / "vredmax"
    found = str(beside) if beside.exists() else shutil.which("vredmax")
    if not found:
        sys.exit("bench: the vredmax command is not installed (make setup)")
    return found


def time_batch(rng: random.Random) -> tuple[str, float, float]:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "cases.jsonl"
        path.write_text("\n".join(batch_lines(rng)) + "\n")
        start = time.perf_counter()
        done = subprocess.run(
            [vredmax_program(), "exec", "--jsonl", str(path)], capture_output=True, text=True
        )
        elapsed = time.perf_counter() - start
    out = done.stdout.splitlines()
    if done.returncode != 0 or len(out) != BATCH_CASES or any('"error"' in line for line in out):
        sys.exit(f"bench: the batch run failed (exit {done.returncode}): {done.stderr.strip()}")
    return f"vredmax exec --jsonl, {BATCH_CASES} cases at VLEN=1024", elapsed, BATCH_TARGET


def main() -> int:
    rng = random.Random(2024)
    rows = time_reductions(rng) + [time_batch(rng)]
    width = max(len(name) for name, _, _ in rows)
    print(f"{'measurement':<{width}}  {'time':>8}  {'target':>8}  verdict")
    for name, seconds, target in rows:
        verdict = "ok" if seconds < target else "SLOWER THAN TARGET"
        print(f"{name:<{width}}  {seconds:>7.3f}s  {'< ' + format(target, 'g') + 's':>8}  {verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
