"""Where the time of check-c's symbolic method goes for a whole step, and the bound it reaches.

    .venv/bin/python bench/bench_check_c.py [FILE.c:FUNCTION] [--vlmax 4] [--sew 8,16,32,64]
                                            [--timeout 600]

For each configuration at VLEN=128 with VLMAX <= --vlmax (the default check-c bound is 4) and
each instruction word of proofs/c/check.STEP_WORDS, one `symbolic.prove_step` in one process
(one angr engine, as check-c runs them): its verdict, the paths angr finished and the steps it
took, and the seconds spent in angr (the engine's round trip: exploration, merging, the
outputs as SMT-LIB) against the solver's queries (coverage and one query per path). Then the
totals per configuration and per SEW. No concrete runs. Default target tests/c/steps.c:s_plain. A unit's target: its proof for every VLMAX per SEW
(the time split between angr and the solver is in each line).
It prints figures and asserts nothing; the machine is shared, so they vary from run to run.

    .venv/bin/python bench/bench_check_c.py --generated 60 --seed S

checks 60 generated C programs (correct ones and mutants) with `vredmax check-c` instead:
see bench/generated_c.py.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bench import generated_c  # noqa: E402
from vredmax.proofs.c import symbolic  # noqa: E402
from vredmax.proofs.c.build import build  # noqa: E402
from vredmax.proofs.c.check import STEP_VLEN, STEP_WORDS  # noqa: E402
from vredmax.spec.config import legal_configs  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def timed(module, name: str, spent: dict) -> None:
    """Wrap module.name so its calls add their seconds to spent[name]."""
    original = getattr(module, name)

    def wrapper(*args, **kwargs):
        start = time.perf_counter()
        try:
            return original(*args, **kwargs)
        finally:
            spent[name] = spent.get(name, 0.0) + time.perf_counter() - start

    setattr(module, name, wrapper)


def bench_unit(built, python: str, sews, timeout: float) -> None:
    """A unit: the proof for every VLMAX per SEW (proofs/c/unit_loop.py), angr against the solver."""
    from vredmax.proofs.c import unit_loop
    from vredmax.proofs.c.check import unit_vlmaxes

    for sew in sews:
        result = unit_loop.prove_unit_loop(
            python, built.plain, sew, unit_vlmaxes(sew, 1 << 20), timeout, "auto"
        )
        print(
            f"SEW={sew} every VLMAX: {result.verdict.value} in {result.seconds:.1f} s ({result.detail})",
            flush=True,
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("target", nargs="?", default=os.path.join(ROOT, "tests", "c", "steps.c") + ":s_plain")
    parser.add_argument("--vlmax", type=int, default=4)
    parser.add_argument("--sew", default="8,16,32,64")
    parser.add_argument("--timeout", type=float, default=600)
    generated_c.add_options(parser)
    args = parser.parse_args()
    if args.generated:
        generated_c.run(args)
        return
    path, function = args.target.rsplit(":", 1)
    sews = tuple(int(s) for s in args.sew.split(","))
    python = symbolic.engine_python()
    spent: dict = {}
    timed(symbolic, "run_engine", spent)
    timed(symbolic, "prove", spent)  # the coverage query and each path's
    configs = sorted(
        (c for c in legal_configs(64, [STEP_VLEN], sews) if c.vlmax <= args.vlmax),
        key=lambda c: (c.vlmax, -c.sew),
    )
    per_sew: dict = {}
    with tempfile.TemporaryDirectory() as work:
        built = build(path, function, (), work)
        if built.level == "unit":
            return bench_unit(built, python, sews, args.timeout)
        for cfg in configs:
            start, before = time.perf_counter(), dict(spent)
            for fields in STEP_WORDS:
                word_start, word_before = time.perf_counter(), dict(spent)
                result, _ = symbolic.prove_step(python, built.plain, cfg, args.timeout, "bitwuzla", fields)
                angr = spent.get("run_engine", 0) - word_before.get("run_engine", 0)
                print(
                    f"{cfg} vd=v{fields.vd} vs2=v{fields.vs2} vs1=v{fields.vs1} vm={fields.vm}: "
                    f"{result.verdict.value}, {result.paths} paths, {result.steps} steps; "
                    f"{time.perf_counter() - word_start:.1f} s (angr {angr:.1f} s)",
                    flush=True,
                )
            seconds = time.perf_counter() - start
            angr = spent.get("run_engine", 0) - before.get("run_engine", 0)
            print(f"== {cfg} (VLMAX {cfg.vlmax}): {seconds:.0f} s, of which angr {angr:.0f} s", flush=True)
            got = per_sew.setdefault(cfg.sew, [0, 0.0])
            got[0], got[1] = max(got[0], cfg.vlmax), got[1] + seconds
    for sew, (reached, seconds) in sorted(per_sew.items()):
        print(f"SEW={sew}: VLMAX up to {reached}, {seconds:.0f} s")
    print(
        f"total {sum(s for _, s in per_sew.values()):.0f} s: angr {spent.get('run_engine', 0):.0f} s, "
        f"solver {spent.get('prove', 0):.0f} s (the first word's angr time includes importing angr)"
    )


if __name__ == "__main__":
    main()
