"""`vredmax certify-check DIR`: check a certificate directory again, without any SMT solver.

Reads DIR/manifest.json (written by `vredmax prove --certify DIR`) and, for every CERTIFIED
query, its files: each file's SHA-256 against the manifest, the model against the satisfiable
CNF (every clause true), the DRAT proof against the unsatisfiable CNF (dratify). Imports
proofs/certify/check.py and store.py only: no z3 (cli/main.py parses this command alone).
One line per query that fails or was not certified (`-v`: every query), then a Summary. Exit 0
when every certificate checks, 1 when one is rejected, 4 when the manifest records a
disagreement (ERROR), 2 for a missing or malformed directory.
"""

from __future__ import annotations

import time

from vredmax.runtime.errors import EXIT_ERROR, EXIT_FAILED, EXIT_OK, UsageError

KIND = "certify-manifest"


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "certify-check",
        help="check the certificates of `prove --certify DIR` again (no SMT solver)",
        description="Check every certificate in DIR again: the files' hashes, each model against its CNF, "
        "each DRAT proof against its CNF (dratify). Uses no SMT solver and no SAT solver.",
    )
    parser.add_argument(
        "directory", metavar="DIR", help="a directory written by `vredmax prove --certify DIR`"
    )
    parser.add_argument(
        "--engine",
        default="auto",
        choices=("auto", "native", "python"),
        help="dratify's engine: auto (Rust when installed), native (Rust) or python",
    )
    parser.add_argument(
        "-v", "--verbose", action="store_true", help="a line per query, not only the failures"
    )
    parser.set_defaults(run=run)


def run(args) -> int:
    from vredmax.proofs.certify import check, store

    try:
        manifest = store.read_manifest(args.directory)
    except FileNotFoundError:
        raise UsageError(
            f"DIR: no {store.MANIFEST} in {args.directory} (written by `vredmax prove --certify DIR`)"
        ) from None
    except (OSError, ValueError) as error:
        raise UsageError(f"DIR: cannot read {store.MANIFEST}: {error}") from None
    if not isinstance(manifest, dict) or manifest.get("schema") != f"vredmax/{KIND}/1":
        raise UsageError(f"DIR: {store.MANIFEST} is not a vredmax/{KIND}/1 manifest")
    try:
        engine = check.engine_name(args.engine)
    except check.CheckerMissing as error:
        raise UsageError(f"--engine: {error}") from None
    start = time.perf_counter()
    counts = {"ACCEPTED": 0, "REJECTED": 0, "UNCERTIFIED": 0, "ERROR": 0}
    for query in manifest.get("queries", []):
        result = check.recheck(args.directory, query, args.engine)
        counts[result.status] = counts.get(result.status, 0) + 1
        if args.verbose or result.status != "ACCEPTED":
            about = query.get("about", {})
            where = " ".join(str(about[k]) for k in ("obligation", "subject", "config") if k in about)
            print(f"{result.status:<12} {result.id}  {where}: {result.message}  {result.seconds:.2f}s")
    print(
        f"{len(manifest.get('queries', []))} queries, checked by {engine} in {time.perf_counter() - start:.1f} s"
    )
    print(
        f"Summary: {counts['ACCEPTED']} accepted, {counts['REJECTED']} rejected, "
        f"{counts['UNCERTIFIED']} not certified, {counts['ERROR']} disagreements"
    )
    if counts["REJECTED"]:
        return EXIT_FAILED
    return EXIT_ERROR if counts["ERROR"] else EXIT_OK
