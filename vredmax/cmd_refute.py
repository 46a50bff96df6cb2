"""`vredmax refute`: refute the catalogue of wrong assumptions, with their counterexamples."""

from __future__ import annotations

import json
import os

from vredmax.proofs.claims import select
from vredmax.proofs.counterexample import emit_tests
from vredmax.proofs.refute import (DEFAULT_TIMEOUT_MS, ERROR, NOT_REFUTED, REFUTED, UNKNOWN, Refutation,
                           refute, summary_line)
from vredmax.errors import EXIT_ERROR, EXIT_FAILED, EXIT_OK, EXIT_UNKNOWN, UsageError

LABELS = {REFUTED: "REFUTED", NOT_REFUTED: "NOT REFUTED", UNKNOWN: "UNKNOWN", ERROR: "ERROR"}


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "refute", help="refute the catalogue of wrong assumptions, with minimal counterexamples",
        description="Ask the solver to refute each wrong assumption about vredmax.vs and show the "
                    "smallest counterexample. Exit 0 only when every claim is refuted.")
    parser.add_argument("-k", metavar="PATTERN", dest="pattern",
                        help="only the claims whose id contains PATTERN")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    parser.add_argument("--emit-test", metavar="FILE",
                        help="write the counterexamples as a pytest regression test file")
    parser.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT_MS / 1000, metavar="SECONDS",
                        help=f"solver time limit per claim (default: {DEFAULT_TIMEOUT_MS // 1000})")
    parser.add_argument("--list", action="store_true", help="list the claims and exit")
    parser.set_defaults(run=run)


def run(args) -> int:
    claims = select(args.pattern)
    if not claims:
        raise UsageError(f"k: no claim id contains {args.pattern!r}")
    if args.timeout <= 0:
        raise UsageError(f"timeout: must be positive, got {args.timeout:g}")
    if args.emit_test:
        folder = os.path.dirname(os.path.abspath(args.emit_test))
        if not os.path.isdir(folder):
            raise UsageError(f"emit-test: no such directory: {folder}")
    if args.list:
        for claim in claims:
            print(f"{claim.id}  {claim.sentence}")
        return EXIT_OK
    results = []
    for claim in claims:
        result = refute(claim, int(args.timeout * 1000))
        results.append(result)
        if not args.json:
            print("\n".join(result_lines(result, with_time=True)) + "\n", flush=True)
    if args.emit_test:
        write_tests(args.emit_test, results)
    if args.json:
        print(json.dumps({"claims": [result_json(r) for r in results],
                          "summary": summary_counts(results)}, indent=2))
    else:
        print(summary_line(results))
    return exit_code(results)


def exit_code(results: list[Refutation]) -> int:
    statuses = {r.status for r in results}
    if NOT_REFUTED in statuses:
        return EXIT_FAILED
    if ERROR in statuses:
        return EXIT_ERROR
    if UNKNOWN in statuses:
        return EXIT_UNKNOWN
    return EXIT_OK


def result_lines(result: Refutation, with_time: bool = False) -> list[str]:
    claim = result.claim
    how = {REFUTED: "as expected", NOT_REFUTED: "FAILURE: the solver could not refute this claim",
           UNKNOWN: "the solver gave no answer", ERROR: "the check itself failed"}[result.status]
    took = f", {result.seconds:.1f} s" if with_time else ""
    lines = [f"{LABELS[result.status]}  {claim.id}  ({how}{took})",
             f"  claim:   {claim.sentence}",
             f"  source:  {claim.source}",
             f"  formal:  {claim.statement}",
             f"  solver:  {result.verdict.value}: {result.detail}"]
    lines += [f"  bounds:  {b}" for b in result.bounds]
    if result.counterexample is not None:
        lines += ["  " + line if line else "" for line in result.counterexample.text()]
    return lines


def result_json(result: Refutation) -> dict:
    claim = result.claim
    return {
        "id": claim.id, "sentence": claim.sentence, "source": claim.source,
        "statement": claim.statement, "kind": "universal" if claim.universal else "existential",
        "status": result.status, "verdict": result.verdict.value, "detail": result.detail,
        "bounds": result.bounds,
        "counterexample": result.counterexample.to_json() if result.counterexample else None,
    }


def summary_counts(results: list[Refutation]) -> dict:
    return {status.replace(" ", "_"): sum(r.status == status for r in results)
            for status in (REFUTED, NOT_REFUTED, UNKNOWN, ERROR)}


def write_tests(path: str, results: list[Refutation]) -> None:
    items = [(r.claim.id, r.claim.sentence, r.counterexample) for r in results
             if r.status == REFUTED and r.counterexample is not None]
    if not items:
        raise UsageError("emit-test: no counterexample to write (existential claims have none)")
    try:
        with open(path, "w", encoding="utf-8") as stream:
            stream.write(emit_tests(items))
    except OSError as error:
        raise UsageError(f"emit-test: cannot write {path}: {error.strerror}") from None
