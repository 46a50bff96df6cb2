"""`bench/bench_check_c.py --generated N --seed S`: check-c measured on generated C programs.

The programs come from tests/generated/c_programs.py (a seed reproduces them). Each candidate
is first run concretely by `c_programs.screen`: a correct one that fails there is a bug of the
generator (printed, not counted); a mutant no concrete run shows wrong is dropped (nothing
says it is wrong). The first N kept are each written to a file and checked as a user would,
`vredmax check-c FILE.c:FUNCTION --json` with the options printed, one at a time. Then:
correct programs PROVED and over which bound ("every vl" or "VLMAX <= N"), wrong ones caught,
wrong ones PROVED (must be 0), median and worst time, units against steps, and the
UNKNOWN/ERROR verdicts (and proofs only to a VLMAX bound) by idiom. Every correct program not
PROVED for every vl and every wrong one PROVED is copied, with one line of README, into
--feedback (default /work/scratch/c-unknown when it exists).
"""

from __future__ import annotations

import json
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from tests.generated import c_programs  # noqa: E402

VREDMAX = (sys.executable, "-c", "from vredmax.cli.main import entry; entry()")
# What a program is checked with: enough to reach every legal VLEN at the concrete runs' smallest
# and a large one, and the symbolic method to a bound the shared machine can afford for 60 programs.
UNIT_ARGS = "--vlen 128,1024 --symbolic-vlmax 4 --sew 8,64 --random 10"
STEP_ARGS = "--vlen 128,1024 --symbolic-vlmax 2 --sew 32 --random 10"
DEFAULT_FEEDBACK = "/work/scratch/c-unknown"


def add_options(parser) -> None:
    parser.add_argument(
        "--generated", type=int, metavar="N", help="check N generated programs (see bench/generated_c.py)"
    )
    parser.add_argument("--seed", type=int, default=0, help="the generator's seed (with --generated)")
    parser.add_argument(
        "--unit-args", default=UNIT_ARGS, help=f"check-c options for a unit (default {UNIT_ARGS!r})"
    )
    parser.add_argument(
        "--step-args", default=STEP_ARGS, help=f"check-c options for a step (default {STEP_ARGS!r})"
    )
    parser.add_argument(
        "--step-share", type=float, default=0.4, help="the share of whole steps (default 0.4)"
    )
    parser.add_argument("--wrong-share", type=float, default=0.5, help="the share of mutants (default 0.5)")
    parser.add_argument(
        "--feedback",
        default=DEFAULT_FEEDBACK if os.path.isdir(DEFAULT_FEEDBACK) else "",
        help="a folder for the programs whose verdict is to be looked at ('' for none)",
    )
    parser.add_argument(
        "--keep", default="", help="a folder to keep every program in (default: a temporary one)"
    )


def check(path: str, function: str, extra: str, timeout: float = 3600) -> dict:
    start = time.perf_counter()
    try:
        done = subprocess.run(
            [*VREDMAX, "check-c", f"{path}:{function}", *shlex.split(extra), "--json"],
            capture_output=True,
            text=True,
            cwd=ROOT,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        return {
            "verdict": "ERROR",
            "detail": f"check-c ran past {timeout:.0f} s",
            "bounds": [],
            "symbolic": [],
            "seconds": time.perf_counter() - start,
        }
    try:
        report = json.loads(done.stdout)
    except json.JSONDecodeError:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        report = {
            "verdict": "ERROR",
            "detail": f"exit {done.returncode}: {last}",
            "bounds": [],
            "symbolic": [],
        }
    report["seconds"] = time.perf_counter() - start
    return report


def bound_of(report: dict) -> str:
    """'every vl' when each SEW's proof covers every vl, else 'VLMAX <= N' (N the smallest
    largest VLMAX proved over the SEWs checked)."""
    bounds = report.get("bounds") or []
    if bounds and all("every vl" in line or "every VLMAX" in line for line in bounds):
        return "every vl"
    proved = {}
    for c in report.get("symbolic", []):
        if c["verdict"] == "PROVED":
            proved[c["sew"]] = max(proved.get(c["sew"], 0), c["vlmax"])
    return f"VLMAX <= {min(proved.values())}" if proved else "nothing"


def feedback(folder: str, program, path: str, extra: str, report: dict) -> None:
    os.makedirs(folder, exist_ok=True)
    target = os.path.join(folder, os.path.basename(path))
    with open(path) as source, open(target, "w") as copy:
        copy.write(source.read())
    # a correct program PROVED only to a bound says why in its notes (the induction not proved)
    said = report.get("detail") or "; ".join(report.get("notes") or [])
    detail = " ".join(str(said).split())[:600]
    line = (
        f"{os.path.basename(path)} | {program.name} | {program.level} | check-c {extra} | "
        f"{'correct' if program.correct else 'WRONG (' + program.mutation + ')'} | {report['verdict']}"
        f"{' (' + bound_of(report) + ')' if report['verdict'] == 'PROVED' else ''} | "
        f"{detail} | {program.idiom_text()}\n"
    )
    with open(os.path.join(folder, "README"), "a") as readme:
        readme.write(line)


def run(args) -> None:
    folder = args.keep or tempfile.mkdtemp(prefix="vredmax-generated-c-")
    os.makedirs(folder, exist_ok=True)
    print(f"generated C programs: seed {args.seed}, {args.generated} programs, in {folder}")
    print(f"check-c options: unit {args.unit_args!r}; step {args.step_args!r}", flush=True)
    kept, generator_bugs, dropped, screen_s = [], [], 0, 0.0
    stream = c_programs.candidates(args.seed, args.step_share, args.wrong_share)
    while len(kept) < args.generated:
        program = next(stream)
        start = time.perf_counter()
        why = c_programs.screen(program, folder)
        screen_s += time.perf_counter() - start
        if program.correct and why is not None:
            generator_bugs.append((program, why))
            print(
                f"GENERATOR BUG: {program.name} is meant correct but a concrete run differs: {why}",
                flush=True,
            )
        elif not program.correct and why is None:
            dropped += 1
        else:
            kept.append(program)
    print(
        f"screened: {len(kept)} kept, {dropped} mutants no concrete run shows wrong dropped, "
        f"{len(generator_bugs)} generator bugs; {screen_s:.0f} s",
        flush=True,
    )
    rows = []
    for program in kept:
        path = c_programs.write(program, folder)
        extra = args.unit_args if program.level == "unit" else args.step_args
        report = check(path, program.name, extra)
        row = {
            "program": program,
            "verdict": report["verdict"],
            "seconds": report["seconds"],
            "bound": bound_of(report) if report["verdict"] == "PROVED" else "",
            "detail": str(report.get("detail", "")),
        }
        rows.append(row)
        print(
            f"{program.name:40} {program.level} {'correct' if program.correct else 'wrong  '} "
            f"{row['verdict']:14} {row['seconds']:6.1f} s  {row['bound']}",
            flush=True,
        )
        bad = (program.correct and row["bound"] != "every vl") or (
            not program.correct and row["verdict"] == "PROVED"
        )
        if bad and args.feedback:
            feedback(args.feedback, program, path, extra, report)
    summary(rows, generator_bugs)


def summary(rows, generator_bugs) -> None:
    correct = [r for r in rows if r["program"].correct]
    wrong = [r for r in rows if not r["program"].correct]
    proved = [r for r in correct if r["verdict"] == "PROVED"]
    bounds = Counter(r["bound"] for r in proved)
    caught = [r for r in wrong if r["verdict"] == "COUNTEREXAMPLE"]
    wrong_proved = [r for r in wrong if r["verdict"] == "PROVED"]
    pct = lambda part, whole: f"{100 * len(part) / len(whole):.0f}%" if whole else "n/a"
    every = [r for r in proved if r["bound"] == "every vl"]
    print()
    print(
        f"correct PROVED: {len(proved)}/{len(correct)} ({pct(proved, correct)}); every vl: {len(every)}/{len(correct)} "
        f"({pct(every, correct)}); bounds: " + ", ".join(f"{b}: {k}" for b, k in sorted(bounds.items()))
    )
    print(
        f"wrong caught (COUNTEREXAMPLE): {len(caught)}/{len(wrong)} ({pct(caught, wrong)}); "
        f"wrong PROVED: {len(wrong_proved)} (must be 0)"
    )
    if wrong_proved:
        print("  WRONG PROVED: " + ", ".join(r["program"].name for r in wrong_proved))
    missed = [r for r in wrong if r["verdict"] not in ("COUNTEREXAMPLE", "PROVED")]
    if missed:
        print("  wrong not caught: " + ", ".join(f"{r['program'].name} {r['verdict']}" for r in missed))
    if generator_bugs:
        print(f"generator bugs (correct programs a concrete run shows wrong): {len(generator_bugs)}")
    times = [r["seconds"] for r in rows]
    if times:
        print(
            f"time: median {statistics.median(times):.1f} s, worst {max(times):.1f} s, total {sum(times):.0f} s"
        )
    for level in ("unit", "step"):
        mine = [r for r in rows if r["program"].level == level]
        if not mine:
            continue
        mc = [r for r in mine if r["program"].correct]
        mp = [r for r in mc if r["verdict"] == "PROVED"]
        mw = [r for r in mine if not r["program"].correct]
        mcaught = [r for r in mw if r["verdict"] == "COUNTEREXAMPLE"]
        t = [r["seconds"] for r in mine]
        tc = [r["seconds"] for r in mc] or [0]
        me = [r for r in mp if r["bound"] == "every vl"]
        print(
            f"  {level}s: {len(mine)} programs; correct PROVED {len(mp)}/{len(mc)} (every vl {len(me)}), wrong caught "
            f"{len(mcaught)}/{len(mw)}; time median {statistics.median(t):.1f} s, worst {max(t):.1f} s "
            f"(correct ones: median {statistics.median(tc):.1f} s, worst {max(tc):.1f} s)"
        )
    open_rows = [r for r in rows if r["verdict"] in ("UNKNOWN", "ERROR")]
    bounded = [r for r in proved if r["bound"] != "every vl"]
    print(
        f"UNKNOWN/ERROR by idiom ({len(open_rows)} programs; an idiom counted once per program; BOUNDED: "
        f"correct ones PROVED only to a VLMAX bound, {len(bounded)}):"
    )
    if not open_rows and not bounded:
        print("  none")
        return
    totals = Counter(i for r in rows for i in r["program"].idioms)
    counts = Counter(
        (i, r["verdict"] if r["verdict"] != "PROVED" else "BOUNDED")
        for r in open_rows + bounded
        for i in r["program"].idioms
    )
    idioms = sorted(
        {i for i, _ in counts},
        key=lambda i: (-(counts[(i, "UNKNOWN")] + counts[(i, "ERROR")]), -counts[(i, "BOUNDED")], i),
    )
    print(f"  {'idiom':40} {'UNKNOWN':>8} {'ERROR':>6} {'BOUNDED':>8} {'of':>4}")
    for idiom in idioms:
        print(
            f"  {idiom[0] + '=' + str(idiom[1]):40} {counts[(idiom, 'UNKNOWN')]:8} {counts[(idiom, 'ERROR')]:6} "
            f"{counts[(idiom, 'BOUNDED')]:8} {totals[idiom]:4}"
        )
    for r in open_rows:
        print(f"  {r['program'].name}: {r['verdict']}: {' '.join(r['detail'].split())[:200]}")
