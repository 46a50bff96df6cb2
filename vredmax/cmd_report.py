"""`vredmax report`: write docs/SEMANTICS.md, its JSON twin docs/SEMANTICS.json, and the manual page
docs/vredmax.vs.md and docs/vredmax.vs.html (proofs/manual)."""

from __future__ import annotations

import json
import os
import sys

from vredmax.proofs import manual
from vredmax.proofs.report import collect, markdown, report_configs
from vredmax.errors import EXIT_ERROR, EXIT_FAILED, EXIT_OK, EXIT_UNKNOWN, UsageError

MARKDOWN, JSON = "SEMANTICS.md", "SEMANTICS.json"


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "report", help="generate docs/SEMANTICS.md (and .json) and the manual page docs/vredmax.vs.md/.html",
        description="Run every proof obligation and every refutation and write the semantics "
                    "document. The output is deterministic (no timings), so it can be committed "
                    "and checked.")
    parser.add_argument("--out-dir", default="docs", metavar="DIR", help="where to write (default: docs)")
    parser.add_argument("--check", action="store_true",
                        help="write nothing; exit 1 if regenerating would change the files")
    parser.add_argument("--all", action="store_true",
                        help="every legal configuration (220), not the representative set")
    parser.add_argument("--timeout", type=float, default=60, metavar="SECONDS",
                        help="time limit per query (default: 60)")
    parser.add_argument("--timings", metavar="FILE",
                        help="also write each proof's time and deciding solver to FILE (JSON; not "
                             "deterministic, so kept out of the documents)")
    parser.set_defaults(run=run)


def render_files(doc: dict) -> dict[str, str]:
    """Every generated file by name; `--check` compares each of them."""
    return {JSON: json.dumps(doc, indent=1, ensure_ascii=False) + "\n", MARKDOWN: markdown(doc),
            **manual.render(doc)}


def run(args) -> int:
    if args.timeout <= 0:
        raise UsageError(f"timeout: must be positive, got {args.timeout:g}")
    if not args.check and os.path.exists(args.out_dir) and not os.path.isdir(args.out_dir):
        raise UsageError(f"out-dir: {args.out_dir} is not a directory")
    progress = _progress if sys.stderr.isatty() else None
    timings = [] if args.timings else None
    doc = collect(report_configs(args.all), args.timeout, progress, timings=timings)
    if args.timings:
        try:
            with open(args.timings, "w", encoding="utf-8") as stream:
                json.dump(timings, stream, indent=1)
        except OSError as error:
            raise UsageError(f"timings: cannot write {args.timings}: {error.strerror}") from None
    if progress:
        print(file=sys.stderr)
    files = render_files(doc)
    if args.check:
        stale = [name for name, text in files.items() if _read(os.path.join(args.out_dir, name)) != text]
        for name in stale:
            print(f"{os.path.join(args.out_dir, name)}: out of date (run `vredmax report`)")
        if stale:
            return EXIT_FAILED
        print(f"{', '.join(os.path.join(args.out_dir, name) for name in files)}: up to date")
    else:
        os.makedirs(args.out_dir, exist_ok=True)
        for name, text in files.items():
            with open(os.path.join(args.out_dir, name), "w", encoding="utf-8") as stream:
                stream.write(text)
        print(f"wrote {', '.join(os.path.join(args.out_dir, name) for name in files)}")
    s = doc["summary"]
    print(f"Summary: {s['proved']} proved, {s['counterexamples']} counterexamples, {s['unknown']} unknown, "
          f"{s['errors']} errors; {s['claims_refuted']} of {s['claims']} wrong assumptions refuted")
    if s["counterexamples"] or s["claims_refuted"] < s["claims"]:
        return EXIT_FAILED
    if s["errors"]:
        return EXIT_ERROR
    return EXIT_UNKNOWN if s["unknown"] else EXIT_OK


def _read(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8") as stream:
            return stream.read()
    except OSError:
        return None


def _progress(identifier: str, subject: str, config: str, verdict: str) -> None:
    print(f"\r\033[K{verdict:<14} {identifier} {subject} {config}", end="", file=sys.stderr, flush=True)
