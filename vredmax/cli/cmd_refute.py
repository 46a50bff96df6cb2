"""`vredmax refute`: refute the catalogue of wrong assumptions, with their counterexamples."""

from __future__ import annotations

import json

from vredmax.cli.options import hidden_alias
from vredmax.cli import configurations
from vredmax.presentation.counterexamples import counterexample_lines
from vredmax.proofs.claims.claims import select
from vredmax.proofs.claims.refute import (
    DEFAULT_TIMEOUT_MS,
    ERROR,
    NOT_REFUTED,
    REFUTED,
    UNKNOWN,
    Refutation,
    refute,
    summary_line,
)
from vredmax.runtime.errors import EXIT_ERROR, EXIT_FAILED, EXIT_OK, EXIT_UNKNOWN, UsageError
from vredmax.runtime.outputs import check_writable_file, cut_short
from vredmax.schema import tagged
from vredmax.cli.terminal import print_verdict, progress, say

LABELS = {REFUTED: "REFUTED", NOT_REFUTED: "NOT REFUTED", UNKNOWN: "UNKNOWN", ERROR: "ERROR"}


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "refute",
        help="refute the catalogue of wrong assumptions, with minimal counterexamples",
        description="Ask the solver to refute each wrong assumption about vredmax.vs and show the "
        "smallest counterexample. Exit 0 only when every claim is refuted. By default each claim "
        "is checked at its own small configuration; --vlen/--sew/--lmul/--all search the "
        "configurations given, in order of VLMAX, until one refutes it.",
    )
    parser.add_argument(
        "-k", metavar="PATTERN", dest="pattern", help="only the claims whose id contains PATTERN"
    )
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    hidden_alias(parser, "--emit-test", dest="emit_test")
    parser.add_argument(
        "--test-out",
        dest="emit_test",
        metavar="FILE",
        help="write the counterexamples as a pytest regression test file",
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=DEFAULT_TIMEOUT_MS / 1000,
        metavar="SECONDS",
        help=f"solver time limit per claim (default: {DEFAULT_TIMEOUT_MS // 1000})",
    )
    parser.add_argument("--list", action="store_true", help="list the claims and exit")
    parser.add_argument("--all", action="store_true", help="search every legal configuration for the ELEN")
    configurations.add_options(parser)
    parser.set_defaults(run=run)


def chosen_configs(args):
    """None (each claim's own configurations) unless a configuration option is given."""
    from vredmax.cli.cmd_ask import select_configs

    if not (args.all or args.vlen or args.sew or args.lmul or args.elen != "64"):
        return None
    return select_configs(args)


def run(args) -> int:
    claims = select(args.pattern)
    if not claims:
        raise UsageError(f"-k: no claim id contains {args.pattern!r}")
    if args.timeout <= 0:
        raise UsageError(f"--timeout: must be positive, got {args.timeout:g}")
    if args.emit_test:
        check_writable_file(args.emit_test, "--test-out")
    configs = chosen_configs(args)
    if args.list:
        for claim in claims:
            print(f"{claim.id}  {claim.sentence}")
        return EXIT_OK
    results = []
    try:
        with cut_short(), progress(len(claims), "refute", quiet=args.json) as bar:
            for claim in claims:
                bar.describe(claim.id)
                result = refute(claim, int(args.timeout * 1000), configs=configs)
                results.append(result)
                if not args.json:
                    bar.log("\n".join(result_lines(result, with_time=True)) + "\n")
                bar.advance()
    except KeyboardInterrupt:  # what was refuted so far, marked INTERRUPTED; no file, no Summary
        if args.json:
            say(
                json.dumps(
                    tagged(
                        "refute-result",
                        {
                            "interrupted": True,
                            "claims": [result_json(r) for r in results],
                            "summary": summary_counts(results),
                        },
                    ),
                    indent=2,
                ),
                fitted=False,
            )
        else:
            print_verdict(
                "INTERRUPTED",
                f"after {len(results)} of {len(claims)} claims; the run is not complete",
                width=0,
            )
        raise
    if args.emit_test:
        write_tests(args.emit_test, results)
    if args.json:
        print(
            json.dumps(
                tagged(
                    "refute-result",
                    {
                        "interrupted": False,
                        "claims": [result_json(r) for r in results],
                        "summary": summary_counts(results),
                    },
                ),
                indent=2,
            )
        )
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
    how = {
        REFUTED: "as expected",
        NOT_REFUTED: "FAILURE: the solver could not refute this claim",
        UNKNOWN: "the solver gave no answer",
        ERROR: "the check itself failed",
    }[result.status]
    took = f", {result.seconds:.1f} s" if with_time else ""
    lines = [
        f"{LABELS[result.status]}  {claim.id}  ({how}{took})",
        f"  claim:   {claim.sentence}",
        f"  source:  {claim.source}",
        f"  formal:  {claim.statement}",
    ]
    if claim.text:
        lines.append(f"  claim language:  {claim.text}")
    lines.append(f"  solver:  {result.verdict.value}: {result.detail}")
    lines += [f"  bounds:  {b}" for b in result.bounds]
    if result.asked is not None:
        from vredmax.presentation.counterexamples import ask_counterexample_lines

        lines += ["  " + line if line else "" for line in ask_counterexample_lines(result.asked)]
    elif result.counterexample is not None:
        lines += ["  " + line if line else "" for line in counterexample_lines(result.counterexample)]
    return lines


def result_json(result: Refutation) -> dict:
    claim = result.claim
    return {
        "id": claim.id,
        "sentence": claim.sentence,
        "source": claim.source,
        "statement": claim.statement,
        "text": claim.text,
        "kind": "universal" if claim.universal else "existential",
        "status": result.status,
        "verdict": result.verdict.value,
        "detail": result.detail,
        "bounds": result.bounds,
        "counterexample": result.counterexample.to_json() if result.counterexample else None,
    }


def summary_counts(results: list[Refutation]) -> dict:
    return {
        status.replace(" ", "_"): sum(r.status == status for r in results)
        for status in (REFUTED, NOT_REFUTED, UNKNOWN, ERROR)
    }


def write_tests(path: str, results: list[Refutation]) -> None:
    from vredmax.runtime.outputs import write_text
    from vredmax.proofs.claims.emit_test import refute_file

    items = [
        (r.claim, r.counterexample, r.asked)
        for r in results
        if r.status == REFUTED and r.counterexample is not None
    ]
    if not items:
        raise UsageError("--test-out: no counterexample to write (existential claims have none)")
    write_text(path, refute_file(items), "--test-out")
