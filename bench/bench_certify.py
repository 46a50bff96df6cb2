"""Benchmark: `vredmax prove --certify` on prove's default configurations (target: under 10
minutes on a 2-core machine), then `vredmax certify-check` of the same directory.

Prints the wall time of each, the verdicts, the certificate directory's size, and the queries
that took longest (blasting, SAT solving and proof checking together); any query that is not
CERTIFIED is listed with its figures.

    python bench/bench_certify.py [--jobs 2] [--keep DIR] [prove's filters, e.g. --vlen 128]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", default="2")
    parser.add_argument("--keep", metavar="DIR", help="write the certificates here (kept)")
    args, filters = parser.parse_known_args()
    directory = args.keep or tempfile.mkdtemp(prefix="vredmax-certify-")
    vredmax = [sys.executable, "-m", "vredmax"]
    try:
        start = time.perf_counter()
        prove = subprocess.run(
            vredmax + ["prove", "--certify", directory, "--jobs", args.jobs, "-q", *filters],
            capture_output=True,
            text=True,
        )
        proved = time.perf_counter() - start
        print(prove.stdout.rstrip())
        print(
            f"prove --certify ({' '.join(filters) or 'default configurations'}, --jobs {args.jobs}): "
            f"{proved:.1f} s wall, exit {prove.returncode}"
        )
        manifest = json.load(open(os.path.join(directory, "manifest.json")))
        size = sum(
            os.path.getsize(os.path.join(root, name))
            for root, _, names in os.walk(directory)
            for name in names
        )
        summary = manifest["summary"]
        print(
            f"{summary['certified_lines']} of {summary['obligation_lines']} obligation lines CERTIFIED; "
            f"{summary['queries']} distinct queries ({summary['CERTIFIED']} certified, {summary['UNCERTIFIED']} "
            f"not, {summary['ERROR']} disagreements); certificates: {size / 1e6:.1f} MB"
        )
        print(f"tools: {manifest['tools']['sat_solver']}; {manifest['tools']['checker']}")
        queries = manifest["queries"]
        print("slowest queries (route seconds, clauses, proof steps, solve s, check s):")
        for query in sorted(queries, key=lambda q: -q["seconds"])[:8]:
            refuted = query.get("unsatisfiable", {})
            about = query["about"]
            print(
                f"  {query['seconds']:7.2f}  {refuted.get('clauses', '-'):>8}  {refuted.get('proof_steps', '-'):>8}  "
                f"{refuted.get('solve_seconds', '-'):>7}  {refuted.get('check_seconds', '-'):>7}  "
                f"{about.get('obligation', '')} {about.get('subject', '')} {about.get('config', '')}"
            )
        for query in queries:
            if query["verdict"] != "CERTIFIED":
                print(f"  {query['verdict']}: {query['about']} {query['detail']}")
        start = time.perf_counter()
        check = subprocess.run(vredmax + ["certify-check", directory], capture_output=True, text=True)
        print(check.stdout.rstrip().splitlines()[-1])
        print(f"certify-check: {time.perf_counter() - start:.1f} s wall, exit {check.returncode}")
        return prove.returncode or check.returncode
    finally:
        if not args.keep:
            shutil.rmtree(directory, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
