"""Speed of `vredmax judge`: prints figures next to the target of issue 11 (no asserts).

    .venv/bin/python bench/bench_judge.py [LINES] [--profile]

Writes LINES (default 100,000) judge lines at VLEN=1024: random legal SEW/LMUL, vl (a tenth
vl=0), masks, vta, some traps and reserved encodings, all 32 registers random in the case
and in the observation; the observation is the executable model's outcome, with one bit
flipped in one line of ten (so the violation path is timed too). Then runs the real CLI as
a subprocess on them, wall clock including start-up. Target: under 60 s for 100,000 lines.
`--profile` also profiles the in-process judge on 5,000 lines and prints the top functions.
"""

from __future__ import annotations

import cProfile
import io
import json
import pstats
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from vredmax.impl.execute import execute
from vredmax.spec.config import encode_vtype, legal_configs
from vredmax.spec.encoding import Insn
from vredmax.spec.state import ArchState
from vredmax.impl.case import case_json, result_json

TARGET_SECONDS = 60.0
VLEN = 1024


def make_line(rng: random.Random, configs) -> str:
    cfg = rng.choice(configs)
    vl = 0 if rng.random() < 0.1 else rng.randint(1, cfg.vlmax)
    vtype = encode_vtype(cfg.sew, cfg.lmul, rng.random() < 0.5, rng.random() < 0.5)
    regs = tuple(rng.getrandbits(VLEN) for _ in range(32))
    group = cfg.group_registers
    vs2 = rng.randrange(0, 32, group) if rng.random() < 0.95 else rng.randrange(32)
    insn = Insn(rng.randrange(32), vs2, rng.randrange(32), int(rng.random() < 0.7))
    pre = ArchState(VLEN, 64, regs, vtype, vl, 0 if rng.random() < 0.95 else 1, rng.choice((1, 2, 3)))
    tail = "ones" if rng.random() < 0.3 else "undisturbed"
    result = execute(pre, insn, tail=tail)
    observed = result_json(result)
    if result.outcome == "reserved":
        observed = {"outcome": "illegal-instruction"}
    elif rng.random() < 0.1:
        register = f"v{insn.vd}"
        observed["vregs"][register] = hex(int(observed["vregs"][register], 16) ^ 1 << rng.randrange(cfg.sew))
    return json.dumps({**case_json(pre, insn, tail), "observed": observed})


def write_lines(path: Path, count: int, seed: int = 11) -> None:
    rng = random.Random(seed)
    configs = legal_configs(64, [VLEN])
    with path.open("w") as out:
        for _ in range(count):
            out.write(make_line(rng, configs) + "\n")


def time_cli(path: Path) -> tuple[float, float, int, dict]:
    vredmax = shutil.which("vredmax") or str(Path(sys.executable).with_name("vredmax"))
    start, cpu = time.perf_counter(), resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run([vredmax, "judge", str(path)], capture_output=True, text=True)
    seconds = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu_seconds = after.ru_utime + after.ru_stime - cpu.ru_utime - cpu.ru_stime
    verdicts: dict = {}
    for line in done.stdout.splitlines():
        verdict = json.loads(line)["verdict"]
        verdicts[verdict] = verdicts.get(verdict, 0) + 1
    return seconds, cpu_seconds, done.returncode, verdicts


def profile_in_process(path: Path, lines: int = 5000) -> str:
    from vredmax.cli.cmd_exec import _load
    from vredmax.cli.cmd_judge import judge_object
    from vredmax.spec.profiles import PROFILES

    texts = path.read_text().splitlines()[:lines]
    profiler = cProfile.Profile()
    profiler.enable()
    for text in texts:
        judge_object(_load(text), PROFILES["any"])
    profiler.disable()
    report = io.StringIO()
    pstats.Stats(profiler, stream=report).sort_stats("cumulative").print_stats(18)
    return report.getvalue()


def main() -> None:
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    count = int(args[0]) if args else 100_000
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "judge.jsonl"
        start = time.perf_counter()
        write_lines(path, count)
        print(
            f"wrote {count} VLEN={VLEN} lines ({path.stat().st_size / 1e6:.0f} MB) "
            f"in {time.perf_counter() - start:.1f} s"
        )
        seconds, cpu_seconds, code, verdicts = time_cli(path)
        scaled = seconds * 100_000 / count
        print(
            f"vredmax judge: {count} lines in {seconds:.1f} s ({count / seconds:.0f} lines/s), "
            f"exit {code}, {verdicts}"
        )
        print(
            f"  CPU time of the judge process: {cpu_seconds:.1f} s (wall clock includes waiting for a core)"
        )
        print(
            f"  scaled to 100,000 lines: {scaled:.1f} s (target: under {TARGET_SECONDS:.0f} s) "
            f"{'OK' if scaled < TARGET_SECONDS else 'SLOW'}"
        )
        if "--profile" in sys.argv:
            print(profile_in_process(path))


if __name__ == "__main__":
    main()
