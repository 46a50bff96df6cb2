"""`vredmax judge`: is an implementation's outcome one the architecture (or a profile) allows?

One JSON object a line in: a case in the `exec` format plus `"observed"`, an outcome in the
`exec --json` result format. One line out each: the verdict, the rules broken, the
differences, and the bits the architecture leaves free. The decision is
spec/profiles.py's `allowed(...).judge(...)`: no solver call per line.
"""

from __future__ import annotations

import json

from vredmax.spec.legality import ILLEGAL, RETIRED
from vredmax.spec.profiles import POLICIES, PROFILES, Observed, allowed, get_profile, readings
from vredmax.spec.state import VS_NAMES
from vredmax.impl.case import (
    REGISTER_NUMBERS,
    CaseError,
    _integer,
    field_name,
    parse_case,
    parse_vregs,
    register_hex,
)
from vredmax.cli.cmd_exec import _load, _open
from vredmax.runtime.errors import EXIT_FAILED, EXIT_OK, EXIT_USAGE, one_line
from vredmax.schema import schema_id, tagged

KIND = "judge-verdict"
OBSERVED_FIELDS = ("schema", "profile", "outcome", "reason", "vl", "vstart", "vtype", "vs", "vregs")
# `exec --json` (and `exec --profile NAME --json`) output is an observation as printed: its
# "schema" must say so, "reason" and "profile" are text and not judged.
EXEC_RESULT = schema_id("exec-result")


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "judge",
        help="judge observed outcomes against what the architecture allows",
        description='Read JSON lines, each a case in the exec format plus "observed" (an outcome in '
        'the exec --json format; a trap may give only "outcome"), and print one verdict '
        "line each: allowed, or violation with the property ids broken and the differences, "
        "plus dont_care: per register the bits left free. Exit 0 when every line is "
        "allowed, 1 on a violation, 2 on a bad line (the batch goes on).",
    )
    parser.add_argument("input", nargs="?", default="-", help="JSON-lines file, or - for stdin (default)")
    parser.add_argument(
        "--profile",
        choices=list(PROFILES),
        default="any",
        help="what is allowed: any (the architecture, default), sail, spike or qemu",
    )
    parser.add_argument(
        "--tail",
        choices=POLICIES["tail"],
        help="override the profile's agnostic-tail policy (e.g. qemu with ones = "
        'rvv_ta_all_1s=true); a case\'s own "tail" field is not used',
    )
    parser.add_argument(
        "--elen", type=int, choices=(32, 64), help='ELEN for cases without an "elen" field (default 64)'
    )
    parser.set_defaults(run=run)


def parse_observed(value, vlen: int) -> Observed:
    """The `observed` object: `outcome` required, every other field optional (not observed)."""
    if not isinstance(value, dict):
        raise CaseError('observed: expected a JSON object such as {"outcome": "retired", ...}')
    if "schema" in value and value["schema"] != EXEC_RESULT:  # first: exec-allowed is not an outcome
        raise CaseError(
            f"observed.schema: must be {EXEC_RESULT} (exec --json output), got {json.dumps(value['schema'])}"
        )
    for key in value:
        if key not in OBSERVED_FIELDS:
            raise CaseError(
                f"{field_name(key, 'observed')}: unknown field (expected {', '.join(OBSERVED_FIELDS)})"
            )
    if "outcome" not in value:
        raise CaseError("observed.outcome: missing")
    outcome = value["outcome"]
    if outcome not in (RETIRED, ILLEGAL):
        raise CaseError(
            f"observed.outcome: must be {RETIRED} or {ILLEGAL} (what an implementation did), "
            f"got {json.dumps(outcome)}"
        )
    for name in ("reason", "profile"):
        if name in value and not isinstance(value[name], str):
            raise CaseError(f"observed.{name}: expected a string, got {json.dumps(value[name])}")
    fields = {}
    for name, limit in (("vl", 1 << 64), ("vstart", 1 << 64), ("vtype", 1 << 64)):
        if name in value:
            number = _integer(value[name], f"observed.{name}")
            if not 0 <= number < limit:
                raise CaseError(f"observed.{name}: must be a 64-bit value, got {number}")
            fields[name] = number
    if "vs" in value:
        if value["vs"] not in VS_NAMES:
            raise CaseError(
                f"observed.vs: must be one of {', '.join(VS_NAMES)}, got {json.dumps(value['vs'])}"
            )
        fields["vs"] = VS_NAMES.index(value["vs"])
    if "vregs" in value:
        fields["regs"] = _registers(value["vregs"], vlen)
    return Observed(outcome, **fields)


def _registers(value, vlen: int) -> dict:
    """observed.vregs: the registers given (any subset), by number."""
    try:
        parsed = parse_vregs(value, vlen)
    except CaseError as error:
        raise CaseError(f"observed.{error}") from None
    return {REGISTER_NUMBERS[name]: parsed[REGISTER_NUMBERS[name]] for name in value}


def judge_object(obj, profile, elen: int | None = None) -> dict:
    """The verdict object for one input object (raises CaseError on bad input)."""
    if not isinstance(obj, dict):
        raise CaseError("case: expected a JSON object")
    if "observed" not in obj:
        raise CaseError("observed: missing")
    # "testgen" is the metadata `vredmax testgen` puts on each line of its cases.jsonl: those
    # lines, with "observed" added, are judged as they are.
    case = {key: value for key, value in obj.items() if key not in ("observed", "testgen")}
    if elen is not None:
        if "elen" in case and _integer(case["elen"], "elen") != elen:
            raise CaseError(f"elen: the case says {case['elen']}, --elen says {elen}")
        case["elen"] = elen
    pre, insn, _ = parse_case(case, reading=lambda state: readings(state, profile.frac_sew)[-1])
    observed = parse_observed(obj["observed"], pre.vlen)
    judgement = allowed(pre, insn, profile).judge(observed)
    dont_care = {f"v{r}": register_hex(bits, pre.vlen) for r, bits in judgement.dont_care.items()}
    if judgement.allowed:
        return tagged(KIND, {"verdict": "allowed", "dont_care": dont_care})
    return tagged(
        KIND,
        {
            "verdict": "violation",
            "rules": list(judgement.rules),
            "differences": list(judgement.differences),
            "dont_care": dont_care,
        },
    )


def run(args) -> int:
    profile = get_profile(args.profile)
    if args.tail is not None:
        profile = profile.with_(name=f"{profile.name}+tail={args.tail}", tail=args.tail)
    violated = failed = False
    with _open(args.input) as stream:
        for number, line in enumerate(stream, 1):
            if not line.strip():
                continue
            try:
                verdict = judge_object(_load(line), profile, args.elen)
            except (CaseError, ValueError) as error:
                failed = True
                print(
                    json.dumps(
                        tagged(KIND, {"verdict": "error", "error": f"line {number}: {one_line(error)}"})
                    )
                )
                continue
            violated |= verdict["verdict"] == "violation"
            print(json.dumps(verdict))
    return EXIT_USAGE if failed else EXIT_FAILED if violated else EXIT_OK
