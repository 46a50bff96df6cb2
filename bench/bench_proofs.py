"""Monolithic versus compositional proof time as VLMAX grows, and the whole sweep's time.

    .venv/bin/python bench/bench_proofs.py [--timeout 60] [--no-sweep] [--jobs 2]

For SEW 8 and 64 and VLMAX 4, 8, ..., 65536 (the smallest VLEN that has it), it times
`refines_spec` of the tree algorithm (the spec against the code `vredmax exec` runs), once as
one monolithic query (with a per-query timeout, shown as 'timeout'; larger VLMAX are then
skipped) and once compositionally from cold caches; and every obligation of the configuration
compositionally. Then, each as its own process the way a user runs it, `vredmax prove` of
the largest configuration (VLEN=65536 SEW=8 LMUL=8) and `vredmax prove --all --jobs N` over
all 422 configurations (ELEN 32 and 64). It prints figures; it asserts nothing.
"""

from __future__ import annotations

import argparse
import gc
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from vredmax.proofs.obligations import catalogue
from vredmax.proofs.obligations import runner
from vredmax.proofs.engine.verdict import Verdict  # noqa: E402
from vredmax.spec.config import legal_configs  # noqa: E402

SUBJECT = "tree/undisturbed"


def config_with(vlmax: int, sew: int):
    fitting = [c for c in legal_configs(64) if c.sew == sew and c.vlmax == vlmax]
    return min(fitting, key=lambda c: c.vlen) if fitting else None


def timed(obligation, cfg, method, timeout):
    runner.clear_caches()
    start = time.perf_counter()
    result = runner.run(obligation, cfg, SUBJECT, method, timeout)
    seconds = time.perf_counter() - start
    if result.answer.verdict == Verdict.UNKNOWN:
        return "timeout", False
    if result.answer.verdict != Verdict.PROVED:
        return result.answer.verdict.value, False
    return f"{seconds:.2f}s", True


def all_obligations(cfg, timeout) -> str:
    runner.clear_caches()
    start = time.perf_counter()
    with runner.collector_paused():  # as `vredmax prove` runs a configuration
        verdicts = [
            runner.run(o, cfg, s, "compositional", timeout).answer.verdict
            for o in catalogue.obligations(cfg=cfg)
            for s in o.subjects
        ]
    proved = sum(v == Verdict.PROVED for v in verdicts)
    return f"{time.perf_counter() - start:.1f}s ({proved}/{len(verdicts)} proved)"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--timeout", type=float, default=60, help="seconds per monolithic query (default 60)")
    parser.add_argument("--jobs", type=int, default=2, help="worker processes for the sweep (default 2)")
    parser.add_argument("--no-sweep", action="store_true", help="skip the 422-configuration sweep")
    args = parser.parse_args()
    refines = catalogue.by_name("refines_spec")
    print(f"refines_spec of {SUBJECT}; monolithic timeout {args.timeout:g} s per query\n")
    print(
        f"{'SEW':>3} {'VLMAX':>6}  {'configuration':<34} {'monolithic':>10} {'compositional':>13}  "
        f"all obligations (compositional)"
    )
    for sew in (8, 64):
        monolithic_alive = True
        for k in range(2, 17):
            cfg = config_with(1 << k, sew)
            if cfg is None:
                continue
            mono = "skipped"
            if monolithic_alive:
                mono, monolithic_alive = timed(refines, cfg, "monolithic", args.timeout)
            comp, _ = timed(refines, cfg, "compositional", args.timeout)
            print(
                f"{sew:>3} {cfg.vlmax:>6}  {str(cfg):<34} {mono:>10} {comp:>13}  {all_obligations(cfg, args.timeout)}",
                flush=True,
            )
    runner.clear_caches()  # give the memory back before the timed processes run
    gc.collect()
    print()
    command("largest configuration (target 30 s)", ["--vlen", "65536", "--sew", "8", "--lmul", "m8"])
    if not args.no_sweep:
        command("whole sweep (target 300 s)", ["--all", "--jobs", str(args.jobs)])
    return 0


def command(label: str, options: list[str]) -> None:
    """Time `vredmax prove OPTIONS` as a user runs it: a process of its own, cold caches."""
    shown = " ".join(["vredmax", "prove"] + options)
    print(f"{label}: {shown} ...", flush=True)
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "vredmax", "prove"] + options, capture_output=True, text=True
    )
    seconds = time.perf_counter() - start
    summary = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else done.stderr.strip()
    print(f"{label}: {seconds:.1f} s, exit {done.returncode}; {summary}", flush=True)


if __name__ == "__main__":
    sys.exit(main())
