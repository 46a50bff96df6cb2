"""check-impl on generated implementations: how many correct ones it proves, whether it catches
every wrong one, how long a program takes.

    .venv/bin/python bench/bench_generated.py [--count 200] [--seed S] [--jobs 1]
                                              [--kinds unit,instruction] [--vlmax 1024]
                                              [--random 0] [--timeout 60] [--out DIR]
                                              [--feedback DIR]

`--count` programs are drawn at `--seed` (tests/generated/python_programs.py: units and whole
steps in turn, written as emulator authors write them), each checked on concrete states first
(a generated correct program that differs from the spec is the generator's bug and stops the
run), and one mutant of each that a concrete state shows wrong. Each is written to a file and
checked as `vredmax check-impl FILE:FUNCTION` checks it, at a configuration with VLMAX
`--vlmax`: with `--random 0` (the default) by the proof alone, no concrete state first.

It prints a line per program, then per kind and in all: correct programs PROVED, wrong ones
caught (a counterexample), wrong ones PROVED (a soundness bug: must be 0), the median and the
worst time per program, and a table of the idioms of the correct programs not PROVED. With
`--feedback DIR` each correct program not PROVED and each wrong one PROVED is copied there
with a line in DIR/README. Exit 1 when a wrong program was PROVED. The machine is shared:
times vary from run to run.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import os
import random
import shutil
import statistics
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from tests.generated.python_programs import (  # noqa: E402
    INSTRUCTION,
    UNIT,
    RandomChooser,
    check,
    checked_correct,
    configs_at,
    draw_program,
    kept_mutants,
)

KIND_NAMES = {
    "unit": UNIT,
    "units": UNIT,
    "instruction": INSTRUCTION,
    "step": INSTRUCTION,
    "steps": INSTRUCTION,
}


def drawn(count: int, seed: int, kinds, vlmax: int, folder: str, concrete: int):
    """(program, its kept mutant or None) for each of `count` programs, kinds in turn."""
    for index in range(count):
        kind = kinds[index % len(kinds)]
        rng = random.Random(f"{seed}/{index}")
        program = draw_program(RandomChooser(rng), kind, vlmax, f"s{seed}_{index}_{kind[0]}")
        checked_correct(program, folder, concrete)
        yield program, next(kept_mutants(program, folder, rng, concrete), None)


def percent(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f}%" if whole else "-"


def summary(title: str, rows) -> list[str]:
    correct = [r for r in rows if r["correct"]]
    wrong = [r for r in rows if not r["correct"]]

    def tally(group):
        counts: dict = {}
        for r in group:
            counts[r["verdict"]] = counts.get(r["verdict"], 0) + 1
        return ", ".join(f"{n} {v}" for v, n in sorted(counts.items()))

    proved = sum(r["verdict"] == "PROVED" for r in correct)
    caught = sum(r["verdict"] == "COUNTEREXAMPLE" for r in wrong)
    wrong_proved = sum(r["verdict"] == "PROVED" for r in wrong)
    times = [r["seconds"] for r in rows]
    lines = [
        f"{title}:",
        f"  correct programs PROVED: {proved}/{len(correct)} ({percent(proved, len(correct))})   [{tally(correct)}]",
        f"  wrong programs caught:   {caught}/{len(wrong)} ({percent(caught, len(wrong))})   [{tally(wrong)}]",
        f"  wrong programs PROVED:   {wrong_proved}" + ("   <- SOUNDNESS BUG" if wrong_proved else ""),
    ]
    if times:
        worst = max(rows, key=lambda r: r["seconds"])
        lines.append(
            f"  time per program: median {statistics.median(times):.1f} s, worst {worst['seconds']:.1f} s "
            f"({worst['name']})"
        )
    return lines


def idiom_table(rows) -> list[str]:
    """For each idiom among the correct programs: how many had it, how many of those ended
    UNKNOWN or ERROR (the idioms the methods miss stand out)."""
    correct = [r for r in rows if r["correct"]]
    seen: dict = {}
    for r in correct:
        for idiom in r["idioms"]:
            entry = seen.setdefault(idiom, {"all": 0, "UNKNOWN": 0, "ERROR": 0, "COUNTEREXAMPLE": 0})
            entry["all"] += 1
            if r["verdict"] in entry:
                entry[r["verdict"]] += 1
    failing = [(k, v) for k, v in seen.items() if v["UNKNOWN"] or v["ERROR"] or v["COUNTEREXAMPLE"]]
    if not failing:
        return ["Correct programs not PROVED, by idiom: none"]
    lines = [
        "Correct programs not PROVED, by idiom (programs with the idiom: UNKNOWN, ERROR):",
        f"  {'idiom':32} {'programs':>8} {'UNKNOWN':>8} {'ERROR':>6} {'not proved':>10}",
    ]
    for idiom, v in sorted(failing, key=lambda kv: -(kv[1]["UNKNOWN"] + kv[1]["ERROR"]) / kv[1]["all"]):
        bad = v["UNKNOWN"] + v["ERROR"] + v["COUNTEREXAMPLE"]
        lines.append(
            f"  {idiom:32} {v['all']:8} {v['UNKNOWN']:8} {v['ERROR']:6} {percent(bad, v['all']):>10}"
        )
    return lines


def cause(detail: str) -> str:
    """A verdict's message with its configuration, file, line and numbers taken out, so that
    programs that fail for the same reason group together."""
    import re

    text = " ".join(detail.split())
    text = re.sub(r"^VLEN=\S+ ELEN=\S+ SEW=\S+ LMUL=\S+, tail \S+, ", "", text)
    text = re.sub(r"/\S+?\.py:\d+", "FILE:LINE", text)
    text = re.sub(r"\b(0x[0-9a-f]+|\d+)\b", "N", text)
    return text[:100]


def cause_table(rows) -> list[str]:
    bad = [r for r in rows if r["correct"] and r["verdict"] != "PROVED"]
    counts: dict = {}
    for r in bad:
        key = (r["verdict"], cause(r["detail"]))
        counts[key] = counts.get(key, 0) + 1
    lines = ["Correct programs not PROVED, by cause:"]
    for (verdict, text), n in sorted(counts.items(), key=lambda kv: -kv[1]):
        lines.append(f"  {n:3} {verdict:8} {text}")
    return lines if bad else []


def feed_back(folder: str, row, program, vlmax: int) -> None:
    """The program's file and a README line: file, function, configuration, verdict, message, idioms."""
    os.makedirs(folder, exist_ok=True)
    name = os.path.basename(program.path)
    shutil.copyfile(program.path, os.path.join(folder, name))
    cfg = program.cfg
    message = " ".join(row["detail"].split())[:300]
    what = "WRONG PROGRAM PROVED" if not row["correct"] else "correct, not proved"
    line = (
        f"{name} | {program.function} | --vlen {cfg.vlen} --sew {cfg.sew} --lmul {cfg.lmul} --random 0 "
        f"(VLMAX {vlmax}) | {row['verdict']} ({what}{'; bug: ' + program.mutation if program.mutation else ''}) "
        f"| {row['seconds']:.1f} s | {message} | {' '.join(row['idioms'])}\n"
    )
    with open(os.path.join(folder, "README"), "a") as f:
        f.write(line)


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--count", type=int, default=200, help="correct programs to draw (each with one mutant)"
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--jobs", type=int, default=1, help="programs checked at once (each in a child process)"
    )
    parser.add_argument("--kinds", default="unit,instruction", help="unit, instruction or both (comma list)")
    parser.add_argument("--vlmax", type=int, default=1024, help="the VLMAX of the configurations checked")
    parser.add_argument(
        "--random",
        type=int,
        default=0,
        help="random concrete states before the proof (0: the proof alone, no directed states)",
    )
    parser.add_argument("--timeout", type=float, default=60, help="seconds per solver query")
    parser.add_argument(
        "--concrete",
        type=int,
        default=200,
        help="random concrete states that vet each generated program and mutant",
    )
    parser.add_argument("--out", help="folder for the generated files (default: a temporary one)")
    parser.add_argument(
        "--feedback", help="folder to copy the correct programs not PROVED and wrong ones PROVED to"
    )
    args = parser.parse_args()
    try:
        kinds = [KIND_NAMES[k.strip()] for k in args.kinds.split(",") if k.strip()]
    except KeyError as error:
        parser.error(f"--kinds: unknown kind {error}")
    for kind in kinds:
        if not configs_at(kind, args.vlmax):
            parser.error(f"--vlmax: no legal configuration for {kind}s has VLMAX {args.vlmax}")
    folder = args.out or tempfile.mkdtemp(prefix="bench_generated_")
    print(
        f"bench_generated: {args.count} programs at seed {args.seed} ({', '.join(kinds)}), VLMAX {args.vlmax}, "
        f"--random {args.random}, timeout {args.timeout:g} s, {args.jobs} at once; files in {folder}",
        flush=True,
    )
    rows = []
    start = time.perf_counter()

    def one(item):
        program, is_correct = item
        checked = check(program, args.timeout, args.random, args.seed)
        return program, {
            "name": program.name,
            "kind": program.kind,
            "correct": is_correct,
            "verdict": checked.verdict,
            "seconds": checked.seconds,
            "detail": checked.detail,
            "idioms": program.idioms(),
            "mutation": program.mutation,
        }

    def items():
        for program, wrong in drawn(args.count, args.seed, kinds, args.vlmax, folder, args.concrete):
            yield program, True
            if wrong is not None:
                yield wrong, False

    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        pending = set()
        for item in items():
            pending.add(pool.submit(one, item))
            while len(pending) >= max(1, args.jobs):
                done, pending = concurrent.futures.wait(
                    pending, return_when=concurrent.futures.FIRST_COMPLETED
                )
                for future in done:
                    report(future.result(), rows, args)
        for future in concurrent.futures.as_completed(pending):
            report(future.result(), rows, args)
    print(f"\nwall time {time.perf_counter() - start:.0f} s", flush=True)
    for kind in kinds:
        print("\n".join(summary(f"{kind}s at VLMAX {args.vlmax}", [r for r in rows if r["kind"] == kind])))
    if len(kinds) > 1:
        print("\n".join(summary("all", rows)))
    print("\n".join(idiom_table(rows)))
    print("\n".join(cause_table(rows)))
    return 1 if any(r["verdict"] == "PROVED" and not r["correct"] for r in rows) else 0


def report(result, rows, args) -> None:
    program, row = result
    rows.append(row)
    bug = f" bug={program.mutation}" if program.mutation else ""
    message = " ".join(row["detail"].split())[:110]
    print(
        f"  {program.name:24} {str(program.cfg):32} {row['verdict']:14} {row['seconds']:6.1f} s{bug}"
        + (f"  {message}" if row["verdict"] not in ("PROVED", "COUNTEREXAMPLE") else ""),
        flush=True,
    )
    bad = (row["correct"] and row["verdict"] != "PROVED") or (
        not row["correct"] and row["verdict"] == "PROVED"
    )
    if args.feedback and bad:
        feed_back(args.feedback, row, program, args.vlmax)


if __name__ == "__main__":
    sys.exit(main())
