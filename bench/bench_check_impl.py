"""How long the cut-point method (proofs/python/cutpoint.py) takes to prove a reduction unit.

    .venv/bin/python bench/bench_check_impl.py [--unit MODULE:FUNCTION] [--timeout 60]
                                                [--skip-largest] [--skip-default] [--all]

1. The largest configuration (VLEN=65536 SEW=8 LMUL=8, VLMAX 65536), in a fresh process as a
   user runs it (cold caches: the instruction pieces are proved too): a comparator-style unit
   `ite(active and x > acc, x, acc)` by default, and refuting a bug that lives past element 4096.
2. The default check-impl configuration list for a unit (proofs/check_impl.default_configs),
   every configuration through `prove_unit_at_scale`, in one process.
3. With --all, every legal configuration (proofs/check_impl.all_configs, 220 at ELEN=64).
4. With --step, `prove_step_at_scale` of a whole instruction (examples/my_reduction.py:step by
   default) at every configuration with VLEN=4096, both tail policies.
5. With --plain-step, the plain default run a user makes of a correct emulator step written in
   plain Python (`vredmax check-impl tests/buggy/emulators.py:step_plain`, no options: every
   default configuration, concrete states, proofs), in a fresh process: its output and wall
   time (stopped after --plain-limit seconds, which it then says).
It prints the figures (per configuration and totals); it asserts nothing. The machine is
shared (2 cores, other processes running): figures vary from run to run.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from vredmax.spec.config import Config  # noqa: E402

DEFAULT_UNIT = "bench.bench_check_impl:comparator"
LARGEST = Config(65536, 64, 8, "m8")


def comparator(ops, seed, elements, active):
    """The way RTL and emulators write max: compare and select, gated by the active flag."""
    acc = seed
    for x, a in zip(elements, active):
        acc = ops.ite(ops.and_(a, ops.sgt(x, acc)), x, acc)
    return acc


def comparator_ignoring_past_4096(ops, seed, elements, active):
    """A bug that lives only past element 4096."""
    acc = seed
    for i, (x, a) in enumerate(zip(elements, active)):
        if i < 4096:
            acc = ops.ite(ops.and_(a, ops.sgt(x, acc)), x, acc)
    return acc


def load(target: str):
    from vredmax.proofs.python.check_impl import load as load_function

    return load_function(target)


def one(target: str, cfg: Config, timeout_ms: int) -> str:
    """Prove one configuration in this process; one line of figures."""
    from vredmax.proofs.python.cutpoint import prove_unit_at_scale

    start = time.perf_counter()
    result = prove_unit_at_scale(load(target), cfg, timeout_ms)
    seconds = time.perf_counter() - start
    case = f" vl={result.case[0].vl}" if result.case else ""
    return f"{str(cfg):38} VLMAX={cfg.vlmax:<6} {result.verdict.value:15} {seconds:7.2f} s{case}"


def fresh_process(target: str, cfg: Config, timeout_ms: int) -> str:
    command = [
        sys.executable,
        os.path.abspath(__file__),
        "--one",
        target,
        "--config",
        f"{cfg.vlen},{cfg.elen},{cfg.sew},{cfg.lmul}",
        "--timeout",
        str(timeout_ms // 1000),
    ]
    start = time.perf_counter()
    done = subprocess.run(
        command,
        capture_output=True,
        text=True,
        cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
    )
    wall = time.perf_counter() - start
    line = done.stdout.strip() or done.stderr.strip().splitlines()[-1]
    return f"{line}   (process wall time {wall:.1f} s, Python start-up and imports included)"


def sweep(title: str, target: str, configs, timeout_ms: int) -> None:
    from vredmax.proofs.python.cutpoint import prove_unit_at_scale

    unit = load(target)
    print(f"\n{title}: {len(configs)} configurations, {target}", flush=True)
    counts: dict = {}
    by_vlen: dict = {}
    start = time.perf_counter()
    for cfg in configs:
        t = time.perf_counter()
        result = prove_unit_at_scale(unit, cfg, timeout_ms)
        seconds = time.perf_counter() - t
        counts[result.verdict] = counts.get(result.verdict, 0) + 1
        by_vlen[cfg.vlen] = by_vlen.get(cfg.vlen, 0.0) + seconds
        print(f"  {str(cfg):38} VLMAX={cfg.vlmax:<6} {result.verdict.value:15} {seconds:7.2f} s", flush=True)
    total = time.perf_counter() - start
    print("  per VLEN: " + ", ".join(f"{vlen}: {s:.1f} s" for vlen, s in sorted(by_vlen.items())))
    print(f"  total {total:.1f} s; " + ", ".join(f"{n} {v.value}" for v, n in counts.items()), flush=True)


def step_sweep(target: str, configs, timeout_ms: int) -> None:
    from vredmax.proofs.python.cutpoint import prove_step_at_scale

    step_fn = load(target)
    print(
        f"\nA whole instruction, cut at its reduction: {len(configs)} configurations x 2 tail policies, "
        f"{target}",
        flush=True,
    )
    counts: dict = {}
    start = time.perf_counter()
    for cfg in configs:
        for tail in ("undisturbed", "ones"):
            t = time.perf_counter()
            result = prove_step_at_scale(step_fn, cfg, tail, timeout_ms)
            counts[result.verdict] = counts.get(result.verdict, 0) + 1
            print(
                f"  {str(cfg):38} VLMAX={cfg.vlmax:<6} {tail:12} {result.verdict.value:15} "
                f"{time.perf_counter() - t:7.2f} s",
                flush=True,
            )
    print(
        f"  total {time.perf_counter() - start:.1f} s; "
        + ", ".join(f"{n} {v.value}" for v, n in counts.items()),
        flush=True,
    )


def plain_step(target: str, limit: int) -> None:
    import signal

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    command = [os.path.join(os.path.dirname(sys.executable), "vredmax"), "check-impl", target]
    print(f"\nA plain default run of a plain-Python step: vredmax check-impl {target}", flush=True)
    start = time.perf_counter()
    child = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=root, start_new_session=True
    )  # its workers stopped with it
    try:
        out, _ = child.communicate(timeout=limit)
    except subprocess.TimeoutExpired:
        os.killpg(child.pid, signal.SIGTERM)
        out, _ = child.communicate()
        for line in (out or "").splitlines():
            print("  " + line)
        print(f"  did not finish within {limit} s (stopped)", flush=True)
        return
    for line in out.splitlines():
        print("  " + line)
    print(f"  exit {child.returncode}; wall time {time.perf_counter() - start:.1f} s", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--unit", default=DEFAULT_UNIT, help="MODULE:FUNCTION of the unit to time")
    parser.add_argument("--timeout", type=int, default=60, help="seconds per solver query")
    parser.add_argument("--skip-largest", action="store_true")
    parser.add_argument("--skip-default", action="store_true")
    parser.add_argument("--all", action="store_true", help="also every legal configuration")
    parser.add_argument(
        "--step",
        nargs="?",
        const="examples/my_reduction.py:step",
        help="also time a whole instruction (MODULE:FUNCTION) at VLEN=4096",
    )
    parser.add_argument(
        "--plain-step",
        nargs="?",
        const="tests/buggy/emulators.py:step_plain",
        help="also time a plain default check-impl run of a plain-Python step",
    )
    parser.add_argument(
        "--plain-limit", type=int, default=1800, help="seconds before --plain-step is stopped"
    )
    parser.add_argument("--one", help=argparse.SUPPRESS)
    parser.add_argument("--config", help=argparse.SUPPRESS)
    args = parser.parse_args()
    timeout_ms = args.timeout * 1000
    if args.one:
        vlen, elen, sew, lmul = args.config.split(",")
        print(one(args.one, Config(int(vlen), int(elen), int(sew), lmul), timeout_ms))
        return
    from vredmax.proofs.python.check_impl import UNIT, all_configs, default_configs

    print(
        f"bench_check_impl: cut-point proofs of a reduction unit (timeout {args.timeout} s per query); "
        f"the machine is shared, figures vary",
        flush=True,
    )
    if not args.skip_largest:
        print("\nThe largest configuration, each in a fresh process:", flush=True)
        print("  " + fresh_process(args.unit, LARGEST, timeout_ms), flush=True)
        print(
            "  " + fresh_process("bench.bench_check_impl:comparator_ignoring_past_4096", LARGEST, timeout_ms),
            flush=True,
        )
    if not args.skip_default:
        sweep(
            "The default configuration list of check-impl for a unit",
            args.unit,
            default_configs(UNIT),
            timeout_ms,
        )
    if args.all:
        sweep("Every legal configuration (--all)", args.unit, all_configs(UNIT), timeout_ms)
    if args.step:
        step_sweep(args.step, [c for c in all_configs("instruction") if c.vlen == 4096], timeout_ms)
    if args.plain_step:
        plain_step(args.plain_step, args.plain_limit)


if __name__ == "__main__":
    main()
