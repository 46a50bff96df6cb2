"""`vredmax exec`: run one case (or a JSON-lines batch) and show or print the post-state."""

from __future__ import annotations

from vredmax.cli import options

import io
import json
import sys

from vredmax.impl import ALGORITHMS
from vredmax.impl.execute import execute
from vredmax.spec.state import VS_NAMES
from vredmax.spec.profiles import ANYTHING, PROFILES, allowed, get_profile, readings
from vredmax.impl.case import CaseError, load_json, parse_case, register_hex, result_json, state_json
from vredmax.runtime.errors import EXIT_OK, EXIT_USAGE, UsageError, one_line
from vredmax.schema import tagged
from vredmax.presentation.execution import allowed_view, human_view


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "exec",
        help="execute one vredmax.vs case given as JSON",
        description="Execute vredmax.vs on a JSON case (the format: docs/reference/cases.md; examples/cases/ has one of each outcome).",
    )
    parser.add_argument("case", nargs="?", help="case file, or - for standard input")
    parser.add_argument("--json", action="store_true", help="print the post-state as JSON")
    parser.add_argument(
        "--jsonl", metavar="FILE", help="read one case per line (- for stdin), write one JSON result per line"
    )
    parser.add_argument(
        "--impl",
        choices=sorted(ALGORITHMS),
        default="sequential",
        help="which implementation executes (default: sequential)",
    )
    parser.add_argument(
        "--max-rows",
        type=options.rows,
        default=64,
        metavar="N",
        help="lanes shown in the human view (default: 64)",
    )
    parser.add_argument(
        "--profile",
        choices=list(PROFILES),
        help="answer as this implementation profile does (sail, spike, qemu: one outcome; "
        'any: every outcome the architecture allows); a case\'s "tail" field '
        "overrides the profile's tail policy",
    )
    parser.add_argument(
        "--elen", type=int, choices=(32, 64), help='ELEN for cases without an "elen" field (default 64)'
    )
    parser.set_defaults(run=run)


def _open(path: str):
    # Undecodable bytes become U+FFFD: reported as bad JSON or a bad value, not a traceback.
    if path == "-":
        if hasattr(sys.stdin, "buffer"):
            return io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8", errors="replace")
        return sys.stdin
    try:
        return open(path, encoding="utf-8", errors="replace")
    except OSError as error:
        raise UsageError(f"case: cannot read {path}: {error.strerror}") from None


def _load(text: str):
    return load_json(text, "case")


def run(args) -> int:
    if args.jsonl is not None:
        if args.case is not None:
            raise UsageError("case: give either a case file or --jsonl, not both")
        return run_batch(args.jsonl, args.impl, getattr(args, "profile", None), getattr(args, "elen", None))
    if args.case is None:
        raise UsageError("case: missing (a JSON file, or - for standard input)")
    with _open(args.case) as stream:
        text = stream.read()
    if getattr(args, "profile", None):
        try:
            answer = profile_answer(_load(text), args.profile, args.elen)
        except (CaseError, ValueError) as error:
            raise UsageError(str(error)) from None
        if args.json:
            print(json.dumps(allowed_json(answer), indent=2))
        else:
            print("\n".join(allowed_view(answer, args.max_rows)))
        return EXIT_OK
    try:
        pre, insn, tail = parse_case(with_elen(_load(text), getattr(args, "elen", None)))
    except CaseError as error:
        raise UsageError(str(error)) from None
    result = execute(pre, insn, args.impl, tail)
    if args.json:
        print(json.dumps(tagged("exec-result", result_json(result)), indent=2))
    else:
        print("\n".join(human_view(pre, insn, tail, args.impl, result, args.max_rows)))
    return EXIT_OK


def run_batch(path: str, impl: str, profile: str | None = None, elen: int | None = None) -> int:
    """One result line per input line, in order; a bad line gives an error line and we go on."""
    failed = False
    with _open(path) as stream:
        for number, line in enumerate(stream, 1):
            if not line.strip():
                continue
            try:
                if profile:
                    print(json.dumps(allowed_json(profile_answer(_load(line), profile, elen))))
                    continue
                pre, insn, tail = parse_case(with_elen(_load(line), elen))
                print(json.dumps(tagged("exec-result", result_json(execute(pre, insn, impl, tail)))))
            except (CaseError, ValueError) as error:
                failed = True
                print(
                    json.dumps(
                        tagged("exec-error", {"line": number, "error": f"line {number}: {one_line(error)}"})
                    )
                )
    return EXIT_USAGE if failed else EXIT_OK


# --profile and --elen -------------------------------------------------------------------------


def with_elen(obj, elen: int | None):
    """The case with --elen filled in where it gives no "elen" (a conflicting one is an error)."""
    if elen is None or not isinstance(obj, dict):
        return obj
    if "elen" in obj and obj["elen"] != elen:
        raise CaseError(f"elen: the case says {obj['elen']}, --elen says {elen}")
    return {**obj, "elen": elen}


def profile_answer(obj, profile_name: str, elen: int | None = None):
    """What the profile allows for a case (spec/profiles.py). The case's own "tail", when it
    gives one, overrides the profile's tail policy."""
    obj = with_elen(obj, elen)
    tail = obj.get("tail") if isinstance(obj, dict) else None
    profile = get_profile(profile_name, tail)
    pre, insn, _ = parse_case(obj, reading=lambda state: readings(state, profile.frac_sew)[-1])
    return allowed(pre, insn, profile)


def option_json(option, vlen: int) -> dict:
    """One allowed outcome in the exec result format, plus what is left free."""
    if option.kind == ANYTHING:
        return {
            "outcome": ANYTHING,
            "reason": option.reason,
            "rule": option.rule,
            "dont_care": "everything: a reserved encoding",
        }
    return {
        "outcome": option.kind,
        "reason": option.reason,
        **state_json(option.post),
        "vs_allowed": [VS_NAMES[v] for v in sorted(option.vs)],
        "dont_care": {f"v{r}": register_hex(bits, vlen) for r, bits in sorted(option.free.items()) if bits},
        "tail_elements": "each old or all ones" if option.tail else "as shown",
    }


def allowed_json(answer) -> dict:
    """A deterministic profile (sail, spike, qemu): the exec result format. `any` (or any
    profile that leaves a choice free): {"profile", "allowed": [one object per outcome]}."""
    if not answer.profile.deterministic:
        return tagged(
            "exec-allowed",
            {
                "profile": answer.profile.name,
                "allowed": [option_json(o, answer.pre.vlen) for o in answer.outcomes],
            },
        )
    option = answer.unique()
    return tagged(
        "exec-result",
        {
            "outcome": option.kind,
            "reason": option.reason,
            **state_json(option.post),
            "profile": answer.profile.name,
        },
    )
