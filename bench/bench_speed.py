"""`vredmax prove` against the 5ade1c8 release and against its own cold run, in one run.

    .venv/bin/python bench/bench_speed.py [--no-sweep | --only-sweep] [--release-venv DIR]

Installs the release at commit 5ade1c8 (`git archive` of that commit) into a temporary
virtual environment (or uses DIR if given: made there once and kept), then times, each as a
process of its own the way a user runs it: the release, this code with an empty answer store
(cold: $VREDMAX_ANSWERS in a fresh temporary folder) and this code again with that store
(warm). For each figure it prints the wall and CPU seconds, the obligation lines, and the
ratios cold/release (per obligation line too: the release proves fewer) and warm/cold,
with the issue's targets. The machine's load average is printed before and after: on a
shared machine the figures vary with it. It prints figures; it asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

RELEASE = "5ade1c8"
ROOT = Path(__file__).resolve().parent.parent
# (label, prove options, target seconds cold, target seconds warm)
FIGURES = [
    (
        "largest configuration (VLEN=65536 SEW=8 m8)",
        ["--vlen", "65536", "--sew", "8", "--lmul", "m8"],
        8,
        None,
    ),
    ("default set (make prove)", [], 30, 5),
    ("prove --all --jobs 2", ["--all", "--jobs", "2"], 180, None),
]


def release_venv(folder: Path) -> Path:
    """A virtual environment with the release installed (made once in `folder`)."""
    vredmax = folder / "venv" / "bin" / "vredmax"
    if vredmax.exists():
        return vredmax
    source = folder / "src"
    source.mkdir(parents=True, exist_ok=True)
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", RELEASE], capture_output=True, check=True)
    subprocess.run(["tar", "-x", "-C", str(source)], input=archive.stdout, check=True)
    subprocess.run([sys.executable, "-m", "venv", str(folder / "venv")], check=True)
    # the same solver builds as this code's, so that only the code differs
    from importlib.metadata import version

    pins = [f"z3-solver=={version('z3-solver')}", f"bitwuzla=={version('bitwuzla')}"]
    subprocess.run(
        [str(folder / "venv" / "bin" / "python"), "-m", "pip", "install", "--quiet", str(source), *pins],
        check=True,
    )
    return vredmax


def timed(command: list[str], environment: dict) -> dict:
    """Run a command; its wall and CPU seconds, exit code and obligation lines."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, env=environment)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    summary = re.search(
        r"Summary: (\d+) proved, (\d+) counterexamples, (\d+) unknown, (\d+) errors", done.stdout
    )
    lines = sum(map(int, summary.groups())) if summary else 0
    return {
        "wall": wall,
        "cpu": cpu,
        "code": done.returncode,
        "lines": lines,
        "summary": summary.group(0) if summary else (done.stderr.strip().splitlines() or ["?"])[-1],
    }


def shown(run: dict) -> str:
    return f"{run['wall']:7.1f} s wall {run['cpu']:7.1f} s CPU  {run['lines']:5d} lines  exit {run['code']}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-sweep", action="store_true", help="skip prove --all --jobs 2")
    parser.add_argument("--only-sweep", action="store_true", help="only prove --all --jobs 2")
    parser.add_argument(
        "--release-venv",
        metavar="DIR",
        help="where to install the release (kept; default: a temporary folder)",
    )
    args = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="vredmax-bench-"))
    try:
        release = release_venv(Path(args.release_venv) if args.release_venv else scratch / "release")
        this = [sys.executable, "-m", "vredmax"]
        print(
            f"release {RELEASE} ({release}) against this code ({ROOT}); load average {os.getloadavg()[0]:.1f}\n"
        )
        for label, options, cold_target, warm_target in FIGURES:
            if (args.no_sweep and "--all" in options) or (args.only_sweep and "--all" not in options):
                continue
            store = scratch / f"answers-{len(options)}"
            environment = dict(os.environ, VREDMAX_ANSWERS=str(store))
            old = timed([str(release), "prove", *options], environment)
            cold = timed(this + ["prove", *options], environment)
            warm = timed(this + ["prove", *options], environment)
            shutil.rmtree(store, ignore_errors=True)
            per_line = (
                (cold["wall"] / max(cold["lines"], 1)) / (old["wall"] / max(old["lines"], 1))
                if old["wall"]
                else float("nan")
            )
            print(f"{label}: vredmax prove {' '.join(options)}")
            for name, run in ((f"release {RELEASE}", old), ("cold", cold), ("warm", warm)):
                print(f"  {name:<16} {shown(run)}   {run['summary']}")
            print(
                f"  cold / release {cold['wall'] / old['wall']:.2f} (wall), {cold['cpu'] / old['cpu']:.2f} (CPU), "
                f"{per_line:.2f} per obligation line; warm / cold {warm['wall'] / cold['wall']:.2f} (wall); "
                f"target: cold < {cold_target} s" + (f", warm < {warm_target} s" if warm_target else ""),
                flush=True,
            )
        print(f"\nload average at the end {os.getloadavg()[0]:.1f}")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
