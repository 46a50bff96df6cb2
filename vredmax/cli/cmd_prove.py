"""`vredmax prove`: prove the obligation catalogue over legal configurations.

One line per configuration (its verdict over every obligation), every obligation that is not
PROVED in full beneath it (its verdict per subject: the spec and each algorithm with each tail
policy), then `Summary: N proved, N counterexamples, N unknown, N errors`; `-v` gives a line
per obligation and configuration, `-q` only what failed and the Summary. A progress bar on a
terminal. Exit 0 only when everything is proved; Ctrl-C ends with a line marked INTERRUPTED
(no Summary) and exit 130. The work is spread by vredmax/cli/cluster.py (--jobs, --scheduler).

`--certify DIR`: every solver question is decided again by the certificate route
(proofs/certify: bit-blasting, a SAT solver's DRAT proof, an independent checker); an
obligation all of whose questions passed is CERTIFIED, a disagreement is an ERROR, and DIR
gets the CNFs, proofs, models and manifest.json (`vredmax certify-check DIR` re-checks it).
"""

from __future__ import annotations

import functools
import json
import time
from contextlib import ExitStack

from vredmax.cli import configurations
from vredmax.cli.cluster import add_arguments as add_worker_arguments, workers_from_args
from vredmax.cli.options import positive_int
from vredmax.runtime.outputs import check_writable, cut_short
from vredmax.schema import tagged
from vredmax.cli.terminal import print_verdict, progress, say, width

from vredmax.spec.config import Config, every_config, legal_configs
from vredmax.runtime.errors import EXIT_ERROR, EXIT_FAILED, EXIT_OK, EXIT_UNKNOWN, UsageError

DEFAULT_ELEN = 64
SEED_CONFIG = Config(4096, DEFAULT_ELEN, 16, "m1")  # the seed document's configuration
# The default run: every SEW x LMUL at VLEN=128, the seed's configuration, and the smallest
# machines of the embedded profiles (Zve32x: VLEN=ELEN=32; Zve64x: VLEN=ELEN=64).
DEFAULT_CONFIGS = legal_configs(64, [128]) + [SEED_CONFIG] + legal_configs(32, [32]) + legal_configs(64, [64])
VERDICT_ORDER = ("COUNTEREXAMPLE", "ERROR", "UNKNOWN", "PROVED")  # worst first
# A configuration's line fits 80 columns: PROVED, CERTIFIED, UNKNOWN, ERROR fill the verdict
# column, COUNTEREXAMPLE overflows it (and the line wraps if it must: terminal.fit)
CONFIG_VERDICT_WIDTH = 9


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "prove",
        help="prove the obligations (default: 60 representative configurations; about a minute of "
        "CPU, seconds when the answers are kept)",
        description="Prove every obligation of the catalogue of the spec and of each algorithm, per "
        "configuration. Default: every SEW x LMUL at VLEN=128 and ELEN=64, VLEN=4096 SEW=16 "
        "LMUL=m1, and every SEW x LMUL of the smallest machines VLEN=ELEN=32 and VLEN=ELEN=64.",
    )
    parser.add_argument(
        "--all",
        action="store_true",
        help="every legal configuration: ELEN=32 with VLEN 32..65536 and ELEN=64 with "
        "VLEN 64..65536 (422; narrow with --elen)",
    )
    configurations.add_options(parser, one_elen=False)
    parser.add_argument(
        "-k",
        dest="pattern",
        metavar="PATTERN",
        help="only obligations whose name or ID contains PATTERN (or matches it as a glob)",
    )
    add_worker_arguments(parser, "worker processes (default 1); with --scheduler, ignored")
    parser.add_argument("--timeout", default="60", metavar="SECONDS", help="per solver query (default 60)")
    parser.add_argument(
        "--method",
        default="compositional",
        choices=("compositional", "monolithic", "both"),
        help="compositional (default, any VLMAX), monolithic (one query per obligation; "
        "small VLMAX only) or both (monolithic as a cross-check where VLMAX <= "
        "--monolithic-max)",
    )
    parser.add_argument(
        "--monolithic-max",
        default="8",
        metavar="N",
        help="with --method both: the largest VLMAX cross-checked monolithically (default 8)",
    )
    parser.add_argument("--json", action="store_true", help="print the results as JSON (schema prove-result)")
    output = parser.add_mutually_exclusive_group()
    output.add_argument(
        "-q",
        "--quiet",
        action="store_true",
        help="print only what is not proved, and the Summary (no progress bar)",
    )
    output.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="a line per obligation and configuration (default: a line per configuration)",
    )
    parser.add_argument("--smt2-out", metavar="DIR", help="write every query as an SMT-LIB2 script into DIR")
    parser.add_argument(
        "--certify",
        metavar="DIR",
        help="also decide every solver question by bit-blasting, a SAT solver's DRAT proof and an "
        "independent proof checker (CERTIFIED); write the certificates into DIR",
    )
    parser.add_argument("--list", action="store_true", help="list the obligations and exit")
    parser.set_defaults(run=run)


def select_configs(args) -> list[Config]:
    wanted = configurations.filters(args)
    if args.all or wanted.vlens:
        configs = every_config()
    else:
        configs = list(DEFAULT_CONFIGS)
        if (
            wanted.elens and not wanted.sews and not wanted.lmuls
        ):  # --elen alone: that ELEN's default machines
            configs = [c for c in every_config() if c.vlen in (128, c.elen)] + [SEED_CONFIG]
    return configurations.chosen(configs, wanted)


def run(args) -> int:
    from vredmax.proofs.obligations import catalogue

    if args.list:
        for obligation in catalogue.OBLIGATIONS:
            print(f"{obligation.name:<40} {obligation.kind:<12} {obligation.sentence}")
        return EXIT_OK
    configs = select_configs(args)
    workers = workers_from_args(args)
    try:
        timeout = float(args.timeout)
    except ValueError:
        raise UsageError(f"--timeout: expected seconds, got {args.timeout!r}") from None
    if not timeout > 0:
        raise UsageError(f"--timeout: expected a positive number of seconds, got {args.timeout!r}")
    monolithic_max = positive_int(args.monolithic_max, "--monolithic-max")
    if not any(catalogue.obligations(args.pattern, cfg) for cfg in configs):
        raise UsageError(f"-k: no obligation matches {args.pattern!r} (see vredmax prove --list)")
    if args.smt2_out:
        check_writable(args.smt2_out, "--smt2-out")
    if args.certify:
        check_certify(args.certify, "--certify")

    tasks = _tasks(configs, args.method, monolithic_max)
    lemma_hosts = {}
    for twins, method in tasks:
        lemma_hosts.setdefault((twins[0].sew, method), twins[0])
    work = [
        (
            twins,
            method,
            args.pattern,
            timeout,
            args.smt2_out,
            lemma_hosts[(twins[0].sew, method)] == twins[0],
            args.certify,
        )
        for twins, method in tasks
    ]
    # the bar counts configurations, as the summary does: one is done when its every unit is
    units_left: dict = {}
    for twins, _ in tasks:
        for cfg in twins:
            units_left[cfg] = units_left.get(cfg, 0) + 1
    start = time.perf_counter()
    records, queries = [], {}
    try:
        with (
            cut_short(),
            workers as pool,
            progress(len(units_left), "prove", quiet=args.quiet or args.json) as bar,
        ):
            function = prove_unit
            if pool.in_process:  # this process proves: the bar can name each obligation
                function = functools.partial(
                    prove_unit, on_obligation=lambda cfg, name: bar.describe(f"{name} at {cfg}")
                )
            for index, batch in pool.map_unordered(function, work):
                for record in batch:  # the certificates' records travel with the obligations'
                    for query in record.pop("_queries", ()):
                        queries.setdefault(query["id"], query)
                records += batch
                if not args.json:
                    for indent, verdict, text, width in report_lines(batch, args.quiet, args.verbose):
                        bar.log_verdict(verdict, text, width=width, indent=indent)
                twins = work[index][0]
                for cfg in twins:
                    units_left[cfg] -= 1
                bar.advance(n=sum(1 for cfg in twins if units_left[cfg] == 0))
    except KeyboardInterrupt:
        _print_totals(
            args, configs, records, time.perf_counter() - start, interrupted=(len(records), len(work))
        )
        raise
    if args.certify:
        write_certificates(args.certify, queries, records, "--certify")
    counts = _print_totals(args, configs, records, time.perf_counter() - start)
    if counts["COUNTEREXAMPLE"]:
        return EXIT_FAILED
    if counts["ERROR"]:
        return EXIT_ERROR
    if counts["UNKNOWN"]:
        return EXIT_UNKNOWN
    return EXIT_OK


def _tasks(configs, method, monolithic_max):
    """(configurations, method) units of work, the biggest first (so the pool ends evenly).
    The ELEN twins of one (VLEN, SEW, LMUL) are one unit, ELEN=64 first: their queries are the
    same formula, proved once in that worker (proofs/runner._answer_key)."""
    twins: dict = {}
    for cfg in configs:
        twins.setdefault((cfg.vlen, cfg.sew, cfg.lmul), []).append(cfg)
    tasks = []
    for group in sorted(twins.values(), key=lambda g: -g[0].vlmax * g[0].vlen):
        group = tuple(sorted(group, key=lambda c: -c.elen))
        if method in ("compositional", "both"):
            tasks.append((group, "compositional"))
        if method == "monolithic" or (method == "both" and group[0].vlmax <= monolithic_max):
            tasks.append((group, "monolithic"))
    return tasks


def _print_totals(args, configs, records, elapsed: float, interrupted=None) -> dict:
    """The Summary (or, after Ctrl-C, a line marked INTERRUPTED: the counts so far, no Summary)."""
    from vredmax.proofs.engine.solvers import versions

    counts = {v: sum(1 for r in records if r["verdict"] == v) for v in VERDICT_ORDER}
    tally = (
        f"{counts['PROVED']} proved, {counts['COUNTEREXAMPLE']} counterexamples, "
        f"{counts['UNKNOWN']} unknown, {counts['ERROR']} errors"
    )
    if args.certify:
        counts["CERTIFIED"] = sum(1 for r in records if r.get("certified"))
        tally = (
            f"{counts['CERTIFIED']} CERTIFIED, {counts['PROVED'] - counts['CERTIFIED']} proved without "
            f"certificate, " + tally.split(", ", 1)[1]
        )
    if args.json:
        say(
            json.dumps(
                tagged(
                    "prove-result",
                    {
                        "interrupted": interrupted is not None,
                        "summary": counts,
                        "seconds": round(elapsed, 2),
                        "solvers": versions(),
                        "configurations": len(configs),
                        "results": records,
                    },
                ),
                indent=2,
            ),
            fitted=False,
        )
    elif interrupted is not None:
        print_verdict(
            "INTERRUPTED",
            f"after {interrupted[0]} obligation lines: {tally} so far; the run is not complete",
            width=0,
        )
    else:
        if not args.quiet:
            proofs = sum(len(r["subjects"]) for r in records)
            say(
                f"{len(configs)} configurations, {len(records)} obligation lines ({proofs} proofs, one per "
                f"subject), {elapsed:.1f} s"
            )
            say(f"solvers: {', '.join(f'{k} {v}' for k, v in versions().items())}")
            if any(origin_of(r) != "asked" for r in records):
                say(REUSE_LEGEND)
        say(f"Summary: {tally}")
    return counts


def report_lines(batch: list[dict], quiet: bool, verbose: bool):
    """(indent, verdict, text, verdict width) lines for one unit of work: per obligation with `verbose`; else
    per configuration (not with `quiet`), and every obligation not proved in full under it."""
    if verbose:
        return [("", shown_verdict(r), line(r)[15:], 14) for r in batch]
    lines = []
    by_config: dict = {}
    for record in batch:
        by_config.setdefault((record["config"]["elen"], record["method"]), []).append(record)
    for (_, method), group in by_config.items():
        worst = min((r["verdict"] for r in group), key=VERDICT_ORDER.index)
        certifying = "certified" in group[0]
        if worst == "PROVED" and certifying and all(r["certified"] for r in group):
            worst = "CERTIFIED"
        if not quiet:
            c = group[0]["config"]
            seconds = sum(r["seconds"] for r in group)
            proved = sum(1 for r in group if r["verdict"] == "PROVED")
            shown = f"{proved}/{len(group)} proved"
            if certifying:
                certified = sum(1 for r in group if r.get("certified"))
                shown = (
                    f"{certified}/{len(group)} certified"
                    if certified == proved
                    else f"{shown}, {certified} certified"
                )
            where = f"VLEN={c['vlen']} ELEN={c['elen']} SEW={c['sew']} LMUL={c['lmul']} VLMAX={c['vlmax']}"
            marks = [m for m in (reuse_mark(group), "monolithic" if method == "monolithic" else "") if m]
            lines.append(
                (
                    "",
                    worst,
                    f"{where:<39} {shown} {seconds:.2f}s" + "".join(f", {m}" for m in marks),
                    CONFIG_VERDICT_WIDTH,
                )
            )
        lines += [
            ("  ", shown_verdict(r), line(r)[15:].replace("\n", "\n  "), 14)
            for r in group
            if r["verdict"] != "PROVED" or r.get("certified") is False
        ]
    return lines


def origin_of(record: dict) -> str:
    """ "asked" when a solver was asked any part of the line's proof for its configuration in
    this run; else "kept" (every answer from the answer store) or "reused" (answers asked for
    another configuration of the run: the ELEN twin's, the same queries)."""
    origins = [p.get("origin") for s in record["subjects"] for p in s["parts"]]
    if not origins or None in origins or "asked" in origins:
        return "asked"
    return "kept" if all(o == "kept" for o in origins) else "reused"


def reuse_mark(group: list[dict]) -> str:
    """How many of a configuration's lines rest on answers not asked for it: "reused", "kept",
    "12 reused", "3 reused, 40 kept" or ""."""
    origins = [origin_of(r) for r in group]
    counts = [(origins.count(o), o) for o in ("reused", "kept") if o in origins]
    if len(counts) == 1 and counts[0][0] == len(group):
        return counts[0][1]
    return ", ".join(f"{n} {o}" for n, o in counts)


REUSE_LEGEND = (
    "reused: every answer was asked for another configuration of this run (the same query: "
    "an ELEN=32 configuration asks what its ELEN=64 twin asked); kept: every answer was kept "
    "from an earlier run (--no-cache asks again)"
)


def shown_verdict(record: dict) -> str:
    """CERTIFIED for a PROVED record whose every solver question passed the certificate route."""
    return "CERTIFIED" if record["verdict"] == "PROVED" and record.get("certified") else record["verdict"]


def prove_unit(item, on_obligation=None) -> list[dict]:
    """One unit of work of `run` (a tuple of prove_twins' arguments): for vredmax/cli/cluster.py."""
    return prove_twins(*item, on_obligation=on_obligation)


def prove_twins(
    twins, method: str, pattern, timeout: float, smt2_out, with_lemmas: bool, certify=None, on_obligation=None
) -> list[dict]:
    """`prove_config` for each ELEN twin of one (VLEN, SEW, LMUL); the lemmas with the first.
    `on_obligation(cfg, name)`, if given, is told each obligation as it starts."""
    from vredmax.proofs.obligations import runner

    records = []
    with runner.collector_paused():  # (the twins share their terms: nothing to collect between them)
        for k, cfg in enumerate(twins):
            told = None if on_obligation is None else (lambda name, cfg=cfg: on_obligation(cfg, name))
            records += prove_config(
                cfg, method, pattern, timeout, smt2_out, with_lemmas and k == 0, told, certify
            )
    return records


def prove_config(
    cfg: Config,
    method: str,
    pattern,
    timeout: float,
    smt2_out,
    with_lemmas: bool,
    on_obligation=None,
    certify=None,
) -> list[dict]:
    """Every matching obligation for one configuration: one record per obligation. The
    lemmas depend on SEW only: they come with one configuration per SEW. `on_obligation`,
    if given, is told the name of each obligation as it starts (for the progress line).
    `certify`, a directory: the certificate route judges every solver question (proofs/certify)."""
    from vredmax.proofs.obligations import catalogue
    from vredmax.proofs.obligations import runner
    from vredmax.proofs.engine import verdict
    from vredmax.proofs.engine.export import Exporter

    exporter = Exporter(smt2_out) if smt2_out else None
    records = []
    with runner.collector_paused(), ExitStack() as stack:
        if certify:
            from vredmax.proofs.certify.route import judge_for

            stack.enter_context(verdict.second_opinion(judge_for(certify, timeout)))
        for obligation in catalogue.obligations(pattern, cfg):
            if obligation.kind == "lemma" and not with_lemmas:
                continue
            if on_obligation is not None:
                on_obligation(obligation.name)
            results = []
            for subject in obligation.subjects:
                with verdict.about(
                    obligation=obligation.id(cfg.sew), subject=subject, config=str(cfg), sew=cfg.sew
                ):
                    results.append(runner.run(obligation, cfg, subject, method, timeout, exporter=exporter))
            records.append(record_of(obligation, cfg, method, results, certifying=bool(certify)))
            if exporter is not None:
                for result in results:
                    exporter.manifest(
                        {
                            "id": result.id,
                            "config": str(cfg),
                            "subject": result.subject,
                            "method": method,
                            "files": result.files,
                        }
                    )
    return records


def record_of(obligation, cfg: Config, method: str, results, certifying: bool = False) -> dict:
    worst = min((r.answer.verdict.value for r in results), key=VERDICT_ORDER.index)
    first = results[0]
    record = {
        "id": first.id,
        "name": obligation.name,
        "kind": obligation.kind,
        "sentence": obligation.sentence,
        "verdict": worst,
        "method": method,
        "config": {"vlen": cfg.vlen, "elen": cfg.elen, "sew": cfg.sew, "lmul": cfg.lmul, "vlmax": cfg.vlmax},
        "bounds": first.bounds,
        "seconds": round(sum(r.answer.seconds for r in results), 3),
        "subjects": [
            {
                "subject": r.subject,
                "verdict": r.answer.verdict.value,
                "seconds": round(r.answer.seconds, 3),
                "solver": r.answer.solver,
                "detail": r.answer.detail,
                "parts": [
                    {
                        "part": text,
                        "verdict": a.verdict.value,
                        "solver": a.solver,
                        "detail": a.detail,
                        **({"origin": origin} if origin else {}),
                    }
                    for (text, a), origin in zip(r.parts, list(r.origins) + [None] * len(r.parts))
                ],
            }
            for r in results
        ],
    }
    if certifying:
        add_certification(record, results)
    return record


def add_certification(record: dict, results) -> None:
    """Which certificates each part rests on; a subject is certified when it is PROVED and
    every opinion on its parts' questions is CERTIFIED; the record when every subject is. The
    opinions' own records go along under `_queries` (for the manifest; removed before output)."""
    queries = {}
    for subject, result in zip(record["subjects"], results):
        certified = result.answer.verdict.value == "PROVED"
        for part, (_, answer) in zip(subject["parts"], result.parts):
            part["certificates"] = [o.record.get("id", "") for o in answer.opinions]
            uncertified = [o.detail for o in answer.opinions if o.status != "CERTIFIED"]
            if not answer.judged:
                uncertified.append("decided before the certificate route was installed")
            part["certified"] = not uncertified
            if uncertified:
                part["detail"] = "; ".join(filter(None, [part["detail"], f"not certified: {uncertified[0]}"]))
                certified = False
            for opinion in answer.opinions:
                queries.setdefault(opinion.record.get("id", ""), opinion.record)
        subject["certified"] = certified
        if not certified and subject["verdict"] == "PROVED":
            subject["detail"] = next(
                (p["detail"] for p in subject["parts"] if not p["certified"]), subject["detail"]
            )
    record["certified"] = all(subject["certified"] for subject in record["subjects"])
    record["_queries"] = list(queries.values())


def check_certify(directory: str, field: str) -> None:
    """Before any proving: the certificate route's tools are installed, DIR can be written."""
    from vredmax.proofs.certify.check import CheckerMissing, engine_name
    from vredmax.proofs.certify.sat import SolverMissing, solver_name

    try:
        solver_name()
        engine_name()
    except (CheckerMissing, SolverMissing, ImportError) as error:
        raise UsageError(f"{field}: {error}") from None
    check_writable(directory, field)


def write_certificates(directory: str, queries: dict, records: list, field: str) -> None:
    """DIR/manifest.json: every query's certificate and every obligation line's verdict."""
    from vredmax.proofs.certify.route import write_manifest

    lines = [
        {
            "id": r["id"],
            "config": r["config"],
            "verdict": shown_verdict(r),
            "subjects": [
                {
                    "subject": s["subject"],
                    "verdict": s["verdict"],
                    "certified": s["certified"],
                    "queries": sorted({q for p in s["parts"] for q in p["certificates"]}),
                }
                for s in r["subjects"]
            ],
        }
        for r in records
    ]
    write_manifest(directory, queries, lines, sum(1 for r in records if r.get("certified")), field)


def line(record: dict) -> str:
    c = record["config"]
    where = f"VLEN={c['vlen']} ELEN={c['elen']} SEW={c['sew']} LMUL={c['lmul']} VLMAX={c['vlmax']}"
    if record["kind"] == "lemma":
        where = f"SEW={c['sew']} (all values)"
    subjects = record["subjects"]
    columns = width()
    pad = 48 if columns is None or columns >= 150 else 0  # aligned columns where they fit, else fitted text
    text = (
        f"{shown_verdict(record):<14} {record['id']:<{pad}} {where:<{pad}} "
        f"{len(subjects)} subject{'s' if len(subjects) > 1 else ''}  {record['seconds']:.2f}s"
    )
    if record["method"] == "monolithic":
        text += "  (monolithic)"
    for subject in subjects:
        if subject["verdict"] != "PROVED":
            text += f"\n    {subject['verdict']} of {subject['subject']}: {subject['detail']}"
        elif subject.get("certified") is False:
            text += f"\n    PROVED, not certified, of {subject['subject']}: {subject['detail']}"
    return text
