"""`vredmax report`: write docs/SEMANTICS.md, its JSON twin docs/SEMANTICS.json, and the manual page
docs/vredmax.vs.md and docs/vredmax.vs.html (proofs/manual)."""

from __future__ import annotations

import json
import os

from vredmax.cli.options import hidden_alias
from vredmax.runtime.outputs import check_writable, check_writable_file, cut_short, write_text
from vredmax.schema import tagged
from vredmax.cli.terminal import print_verdict, progress
from vredmax.presentation.documents import manual
from vredmax.presentation.documents.report import collect, markdown, report_configs, without_certification
from vredmax.runtime.errors import EXIT_ERROR, EXIT_FAILED, EXIT_OK, EXIT_UNKNOWN, UsageError

MARKDOWN, JSON = "SEMANTICS.md", "SEMANTICS.json"


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "report",
        help="generate docs/SEMANTICS.md (and .json) and the manual page docs/vredmax.vs.md/.html",
        description="Run every proof obligation and every refutation and write the semantics "
        "document. The output is deterministic (no timings), so it can be committed "
        "and checked.",
    )
    parser.add_argument(
        "-o", "--out", dest="out_dir", default="docs", metavar="DIR", help="where to write (default: docs)"
    )
    hidden_alias(parser, "--out-dir", "--output", dest="out_dir", default="docs")
    parser.add_argument(
        "--check", action="store_true", help="write nothing; exit 1 if regenerating would change the files"
    )
    parser.add_argument(
        "--all",
        action="store_true",
        help="every legal configuration (422, ELEN 32 and 64), not the representative set",
    )
    parser.add_argument(
        "--timeout", type=float, default=60, metavar="SECONDS", help="time limit per query (default: 60)"
    )
    parser.add_argument(
        "--certify",
        metavar="DIR",
        help="also decide every proof's solver questions by the certificate route (as `vredmax "
        "prove --certify`): the documents mark each property CERTIFIED or not; DIR gets "
        "the certificates",
    )
    parser.add_argument(
        "--timings",
        metavar="FILE",
        help="also write each proof's time and deciding solver to FILE (JSON; not "
        "deterministic, so kept out of the documents)",
    )
    parser.set_defaults(run=run)


def render_files(doc: dict) -> dict[str, str]:
    """Every generated file by name; `--check` compares each of them."""
    return {
        JSON: json.dumps(tagged("semantics", doc), indent=1, ensure_ascii=False) + "\n",
        MARKDOWN: markdown(doc),
        **manual.render(doc),
    }


def run(args) -> int:
    if args.timeout <= 0:
        raise UsageError(f"--timeout: must be positive, got {args.timeout:g}")
    if not args.check:  # before any proving: where the files go must take them
        check_writable(args.out_dir, "--out")
    if args.timings:
        check_writable_file(args.timings, "--timings")
    judge = None
    if args.certify:
        from vredmax.cli.cmd_prove import check_certify
        from vredmax.proofs.certify.route import Judge

        check_certify(args.certify, "--certify")
        judge = Judge(args.certify, args.timeout)
    timings = [] if args.timings else None
    try:
        configs = report_configs(args.all)
        with cut_short(), progress(_proof_count(configs), "report") as bar:
            doc = collect(
                configs,
                args.timeout,
                lambda identifier, subject, config, verdict: bar.advance(f"{identifier} {subject} {config}"),
                timings=timings,
                certify=judge,
            )
    except KeyboardInterrupt:
        print_verdict("INTERRUPTED", "no file written; the report is not complete", width=0)
        raise
    if args.timings:
        write_text(
            args.timings, json.dumps(tagged("report-timings", {"timings": timings}), indent=1), "--timings"
        )
    if judge is not None:
        _write_manifest(args.certify, judge, doc)
    files = render_files(doc)
    if args.check:
        stale = stale_files(doc, args.out_dir)
        for name in stale:
            print(f"{os.path.join(args.out_dir, name)}: out of date (run `vredmax report`)")
        if stale:
            return EXIT_FAILED
        print(f"{', '.join(os.path.join(args.out_dir, name) for name in files)}: up to date")
    else:
        for name, text in files.items():  # each file whole or not at all
            write_text(os.path.join(args.out_dir, name), text, "--out")
        print(f"wrote {', '.join(os.path.join(args.out_dir, name) for name in files)}")
    s = doc["summary"]
    certified = f" ({s['certified']} CERTIFIED)" if "certified" in s else ""
    lines = sum(len(p["results"]) for p in doc["properties"])
    proofs = s["proved"] + s["counterexamples"] + s["unknown"] + s["errors"]
    print(
        f"{lines} obligation lines (as `vredmax prove` counts them), {proofs} proofs (one per line and subject)"
    )
    print(
        f"Summary: {s['proved']} proved{certified}, {s['counterexamples']} counterexamples, {s['unknown']} unknown, "
        f"{s['errors']} errors; {s['claims_refuted']} of {s['claims']} wrong assumptions refuted"
    )
    if s["counterexamples"] or s["claims_refuted"] < s["claims"]:
        return EXIT_FAILED
    if s["errors"]:
        return EXIT_ERROR
    return EXIT_UNKNOWN if s["unknown"] else EXIT_OK


def stale_files(doc: dict, out_dir: str) -> list[str]:
    """The generated files that differ from what `doc` renders. A document made without
    --certify is compared with the committed one less its certification marks (which only a
    certified run can check); the committed files must then still render from the committed
    JSON, marks and all."""
    committed = _read(os.path.join(out_dir, JSON))
    if doc.get("certification") or committed is None:
        files = render_files(doc)
        return [name for name, text in files.items() if _read(os.path.join(out_dir, name)) != text]
    try:
        old = json.loads(committed)
    except ValueError:
        return [JSON]
    old.pop("schema", None)
    if without_certification(old) != without_certification(doc):
        return [JSON]
    return [name for name, text in render_files(old).items() if _read(os.path.join(out_dir, name)) != text]


def _write_manifest(directory: str, judge, doc: dict) -> None:
    from vredmax.proofs.certify.route import write_manifest

    lines = [
        {
            "id": e["id"],
            "config": {"name": e["config"]},
            "verdict": "CERTIFIED"
            if e["certified"] and all(e["certified"].values())
            else min(e["verdicts"].values(), key=("COUNTEREXAMPLE", "ERROR", "UNKNOWN", "PROVED").index),
            "subjects": [
                {
                    "subject": subject,
                    "verdict": v,
                    "certified": e["certified"][subject],
                    "queries": judge.subjects.get((e["id"], e["config"], subject), []),
                }
                for subject, v in e["verdicts"].items()
            ],
        }
        for p in doc["properties"]
        for e in p["results"]
    ]
    write_manifest(
        directory,
        judge.records,
        lines,
        sum(1 for line in lines if line["verdict"] == "CERTIFIED"),
        "--certify",
    )


def _read(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8") as stream:
            return stream.read()
    except OSError:
        return None


def _proof_count(configs) -> int:
    """How many proofs `collect` runs (for the progress bar): every subject of every
    obligation per configuration, a lemma once per SEW."""
    from vredmax.proofs.obligations import catalogue as obligations

    lemmas, count = set(), 0
    for cfg in configs:
        for obligation in obligations.obligations(cfg=cfg):
            if obligation.kind == "lemma":
                if (obligation.name, cfg.sew) in lemmas:
                    continue
                lemmas.add((obligation.name, cfg.sew))
            count += len(obligation.subjects)
    return count
