"""The regression corpus of generated implementations: programs drawn at frozen seeds
(tests/generated/python_programs.py), their files kept in tests/generated/corpus/ and the
verdict each got when it was recorded in tests/generated/corpus.json.

A correct program PROVED when recorded is expected PROVED from then on (a PROVED -> UNKNOWN
is a regression: tests/test_generated_programs.py fails); one not PROVED then is a known
gap (listed, not expected to stay UNKNOWN). A wrong program caught then is expected caught;
no wrong program may ever be PROVED. The `default` tier is cheap (VLMAX 16, VLEN 128: the
default tests), the `scale` tier is the bench's VLMAX 1024 (-m check_impl_scale).

    .venv/bin/python -m tests.generated.corpus --tier default --seed 1 --count 10 --vlmax 16 --max-vlen 128
    .venv/bin/python -m tests.generated.corpus --tier scale --seed 2 --count 20 --vlmax 1024

adds the programs of a seed (a correct one and one kept mutant each) with their verdicts now;

    .venv/bin/python -m tests.generated.corpus --tier default --refresh-gaps

checks the tier's known gaps again and keeps each that now gets a kept verdict (a correct one
refuted or a wrong one PROVED stops it: a bug to look at, not a verdict to record).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import tempfile

from vredmax.spec.config import Config

from tests.generated.python_programs import (
    Program,
    INSTRUCTION,
    UNIT,
    RandomChooser,
    check,
    checked_correct,
    draw_program,
    kept_mutants,
)

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS_DIR = os.path.join(HERE, "corpus")
CORPUS_FILE = os.path.join(HERE, "corpus.json")


def entries() -> list[dict]:
    if not os.path.exists(CORPUS_FILE):
        return []
    with open(CORPUS_FILE) as f:
        return json.load(f)["programs"]


def program_of(entry: dict) -> Program:
    """The corpus entry's program, at its kept file."""
    cfg = Config(entry["vlen"], entry["elen"], entry["sew"], entry["lmul"])
    program = Program(entry["kind"], os.path.splitext(entry["file"])[0], {}, cfg, entry["mutation"])
    program.path = os.path.join(CORPUS_DIR, entry["file"])
    return program


def expectation(correct: bool, verdict: str) -> str:
    """What a later run must give: PROVED and COUNTEREXAMPLE are kept; anything else is a gap
    (a correct program not proved, a wrong one not caught), which only must not get worse:
    a correct one never refuted, a wrong one never PROVED."""
    if correct:
        return "PROVED" if verdict == "PROVED" else "gap"
    return "COUNTEREXAMPLE" if verdict == "COUNTEREXAMPLE" else "gap"


def record(tier: str, seed: int, count: int, vlmax: int, max_vlen: int, timeout_s: float) -> list[dict]:
    found = entries()
    known = {e["file"] for e in found}
    os.makedirs(CORPUS_DIR, exist_ok=True)
    scratch = tempfile.mkdtemp(prefix="corpus_")
    added = []
    for index in range(count):
        kind = (UNIT, INSTRUCTION)[index % 2]
        rng = random.Random(f"{seed}/{index}")
        program = draw_program(
            RandomChooser(rng), kind, vlmax, f"c{tier[0]}{seed}_{index}_{kind[0]}", max_vlen
        )
        checked_correct(program, scratch)
        wrong = next(kept_mutants(program, scratch, rng), None)
        for p, correct in ((program, True), (wrong, False)):
            if p is None or os.path.basename(p.path) in known:
                continue
            kept = os.path.join(CORPUS_DIR, os.path.basename(p.path))
            shutil.copyfile(p.path, kept)
            p.path = kept
            result = check(p, timeout_s)
            entry = {
                "file": os.path.basename(kept),
                "function": p.function,
                "kind": p.kind,
                "vlen": p.cfg.vlen,
                "elen": p.cfg.elen,
                "sew": p.cfg.sew,
                "lmul": p.cfg.lmul,
                "tier": tier,
                "correct": correct,
                "mutation": p.mutation,
                "recorded": result.verdict,
                "seconds": round(result.seconds, 1),
                "expect": expectation(correct, result.verdict),
                "idioms": p.idioms(),
            }
            if not correct and result.verdict == "PROVED":
                raise AssertionError(f"a wrong program PROVED: {kept}")
            print(
                f"{entry['file']:28} {entry['recorded']:15} {entry['seconds']:6.1f} s -> {entry['expect']}",
                flush=True,
            )
            found.append(entry)
            added.append(entry)
            _write(found)
    shutil.rmtree(scratch, ignore_errors=True)
    return added


def refresh_gaps(tier: str, timeout_s: float) -> list[dict]:
    """The tier's gaps checked again; those that now get a kept verdict are kept from then on."""
    found = entries()
    promoted = []
    for entry in found:
        if entry["tier"] != tier or entry["expect"] != "gap":
            continue
        result = check(program_of(entry), timeout_s)
        wrong_verdict = "COUNTEREXAMPLE" if entry["correct"] else "PROVED"
        if result.verdict == wrong_verdict:
            raise AssertionError(
                f"{entry['file']}: {result.verdict} ({'correct' if entry['correct'] else 'wrong'})"
            )
        expect = expectation(entry["correct"], result.verdict)
        print(f"{entry['file']:28} {result.verdict:15} {result.seconds:6.1f} s -> {expect}", flush=True)
        if expect != "gap":
            entry.update(recorded=result.verdict, seconds=round(result.seconds, 1), expect=expect)
            promoted.append(entry)
            _write(found)
    return promoted


def _write(found: list[dict]) -> None:
    with open(CORPUS_FILE, "w") as f:
        json.dump({"schema": "vredmax/generated-corpus/1", "programs": found}, f, indent=1)
        f.write("\n")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--tier", choices=("default", "scale"), required=True)
    parser.add_argument("--seed", type=int)
    parser.add_argument("--refresh-gaps", action="store_true", help="check the tier's gaps again")
    parser.add_argument("--count", type=int, default=10)
    parser.add_argument("--vlmax", type=int, default=16)
    parser.add_argument("--max-vlen", type=int, default=65536)
    parser.add_argument("--timeout", type=float, default=60)
    args = parser.parse_args()
    if args.refresh_gaps:
        refresh_gaps(args.tier, args.timeout)
        return
    if args.seed is None:
        parser.error("--seed is required to record programs")
    record(args.tier, args.seed, args.count, args.vlmax, args.max_vlen, args.timeout)


if __name__ == "__main__":
    main()
