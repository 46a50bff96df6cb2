"""Times of `vredmax check-rtl` on the examples (needs the rtl extra).

Combinational: the tree example at SEW=64 as LANES grows, the whole check (elaboration,
simulation, lemmas, cut points) against the monolithic characterisation query alone (which
does not scale). Multi-cycle: the 4-lane example at each SEW, the whole check and the
induction step alone (independent of vl: the proof covers every number of chunks); a unit with
a 16-lane tree per chunk (tests/rtl/sv/sv_seq_tree16_ok.sv), whose tree the cut points replace
before the induction.

    .venv/bin/python bench/bench_check_rtl.py [--monolithic-timeout SECONDS]
"""

from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from vredmax.proofs.rtl import frontend, yosys  # noqa: E402
from vredmax.proofs.rtl.check import Options, check_rtl  # noqa: E402
from vredmax.proofs.rtl.combinational import CombUnit, monolithic  # noqa: E402
from vredmax.proofs.rtl.ports import interface, parse_mapping  # noqa: E402

TREE, CHUNKED, LANES_OK = (
    "examples/rtl/tree_reduce.v",
    "examples/rtl/chunked_reduce.v",
    "tests/rtl/seq_lanes_ok.v",
)
VALID_TREE, PIPELINED = "tests/rtl/comb_valid_tree_ok.v", "tests/rtl/seq_pipelined_ok.v"
TREE16 = "tests/rtl/sv/sv_seq_tree16_ok.sv"


def timed(function):
    start = time.perf_counter()
    value = function()
    return value, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--monolithic-timeout", type=float, default=30.0)
    parser.add_argument("--tree16-only", action="store_true", help="only the 16-lane multi-cycle unit")
    args = parser.parse_args()
    mapping = parse_mapping([])
    options = Options(mapping)
    tree16(options)
    if args.tree16_only:
        return
    print("combinational tree_reduce, SEW=64 (whole check | monolithic query alone)")
    for lanes in (4, 8, 16, 32):
        report, whole = timed(lambda: check_rtl([TREE], "tree_reduce", {"LANES": lanes}, options, [64]))
        design = yosys.elaborate(frontend.elaborate([TREE], "tree_reduce", {"SEW": 64, "LANES": lanes}))
        unit = CombUnit(design, interface(design, mapping))
        (mono, _), alone = timed(lambda: monolithic(unit, int(args.monolithic_timeout * 1000), "auto"))
        print(
            f"  LANES={lanes:<3} {report.verdict.value:<8} {whole:6.1f} s   |  monolithic {mono.verdict.value:<8} "
            f"{alone:6.1f} s ({mono.solver})",
            flush=True,
        )
    print("combinational comb_valid_tree_ok (skips invalid children), SEW=64, whole check")
    for lanes in (8, 32):
        report, whole = timed(
            lambda: check_rtl([VALID_TREE], "comb_valid_tree_ok", {"LANES": lanes}, options, [64])
        )
        print(f"  LANES={lanes:<3} {report.verdict.value:<8} {whole:6.1f} s", flush=True)
    for path, top in (
        (CHUNKED, "chunked_reduce"),
        (PIPELINED, "seq_pipelined_ok"),
        (LANES_OK, "seq_lanes_ok"),
    ):
        print(f"multi-cycle {top}, LANES=4 (whole check | induction | bounded check)")
        for sew in (8, 16, 32, 64):
            report, whole = timed(lambda: check_rtl([path], top, {}, options, [sew]))
            methods = {m.method: m.seconds for m in report.results[-1].outcome.methods}
            print(
                f"  SEW={sew:<3} {report.verdict.value:<8} {whole:6.1f} s   |  induction {methods.get('induction', 0):5.2f} s"
                f"  |  bounded {methods.get('bounded', 0):5.2f} s",
                flush=True,
            )


def tree16(options) -> None:
    print(
        "multi-cycle sv_seq_tree16_ok: a 16-lane tree per chunk, every vl (whole check | cut points | induction)"
    )
    for sew in (8, 16, 32, 64):
        report, whole = timed(lambda: check_rtl([TREE16], "sv_seq_tree16_ok", {}, options, [sew]))
        methods = {m.method: m.seconds for m in report.results[-1].outcome.methods}
        print(
            f"  SEW={sew:<3} LANES=16 {report.verdict.value:<8} {whole:6.1f} s   |  cut points "
            f"{methods.get('cut points', 0):5.2f} s  |  induction {methods.get('induction', 0):5.2f} s",
            flush=True,
        )


if __name__ == "__main__":
    main()
