"""`vredmax exec`: run one case (or a JSON-lines batch) and show or print the post-state."""

from __future__ import annotations

import io
import json
import sys

from vredmax.impl import ALGORITHMS
from vredmax.impl.execute import execute, operands
from vredmax.spec.bv import Concrete
from vredmax.spec.config import Config, decode_vtype
from vredmax.spec.encoding import encode, format_asm
from vredmax.spec.legality import RETIRED
from vredmax.spec.state import VS_NAMES
from vredmax.spec.profiles import ANYTHING, PROFILES, allowed, get_profile, readings
from vredmax.case import CaseError, load_json, parse_case, register_hex, result_json, state_json
from vredmax.errors import EXIT_OK, EXIT_USAGE, UsageError
from vredmax.schema import tagged
from vredmax.view import lane_table, value_text


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "exec", help="execute one vredmax.vs case given as JSON",
        description="Execute vredmax.vs on a JSON case (see the README for the format).")
    parser.add_argument("case", nargs="?", help="case file, or - for standard input")
    parser.add_argument("--json", action="store_true", help="print the post-state as JSON")
    parser.add_argument("--jsonl", metavar="FILE",
                        help="read one case per line (- for stdin), write one JSON result per line")
    parser.add_argument("--impl", choices=sorted(ALGORITHMS), default="sequential",
                        help="which implementation executes (default: sequential)")
    parser.add_argument("--max-rows", type=int, default=64, metavar="N",
                        help="lanes shown in the human view (default: 64)")
    parser.add_argument("--profile", choices=list(PROFILES),
                        help="answer as this implementation profile does (sail, spike, qemu: one outcome; "
                             "any: every outcome the architecture allows); a case's \"tail\" field "
                             "overrides the profile's tail policy")
    parser.add_argument("--elen", type=int, choices=(32, 64),
                        help="ELEN for cases without an \"elen\" field (default 64)")
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
                print(json.dumps(tagged("exec-error", {"line": number, "error": f"line {number}: {error}"})))
    return EXIT_USAGE if failed else EXIT_OK


def human_view(pre, insn, tail, impl, result, max_rows) -> list[str]:
    vt = decode_vtype(pre.vtype, pre.elen)
    lines = [f"{format_asm(insn)}    ({encode(insn):#010x})"]
    machine = f"VLEN={pre.vlen} ELEN={pre.elen}"
    if vt.vill:
        lines.append(f"{machine} vtype={pre.vtype:#x} (vill) vl={pre.vl} vstart={pre.vstart}")
    else:
        cfg = Config(pre.vlen, pre.elen, vt.sew, vt.lmul)
        lines.append(f"{machine} SEW={vt.sew} LMUL={vt.lmul} VLMAX={cfg.vlmax} vl={pre.vl} "
                     f"vstart={pre.vstart} vta={int(vt.vta)} vma={int(vt.vma)} "
                     f"VS={VS_NAMES[pre.vs]} tail={tail} impl={impl}")
    if result.outcome != RETIRED:
        lines += ["", f"outcome: {result.outcome}: {result.reason}", "nothing changed"]
        return lines
    seed, elements, active = operands(Concrete, pre, insn, cfg)
    lines.append(f"seed vs1[0] = v{insn.vs1}[0] = {value_text(seed, vt.sew)}")
    if pre.vl == 0:
        lines += ["", f"outcome: retired ({result.reason})"]
        return lines
    mask = None if insn.vm else Concrete.bits(pre.regs[0], pre.vl)
    lines.append("")
    lines += lane_table(seed, elements[: pre.vl], mask, active[: pre.vl], vt.sew, max_rows)
    written = Concrete.extract(result.state.regs[insn.vd], vt.sew - 1, 0)
    tail_changed = result.state.regs[insn.vd] >> vt.sew != pre.regs[insn.vd] >> vt.sew
    lines += ["", f"result vd[0] = v{insn.vd}[0] = {value_text(written, vt.sew)}",
              f"tail of v{insn.vd}: {'set to all ones' if tail_changed else 'unchanged'}",
              f"outcome: retired; vstart=0, VS={VS_NAMES[result.state.vs]}"]
    return lines


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
        return {"outcome": ANYTHING, "reason": option.reason, "rule": option.rule,
                "dont_care": "everything: a reserved encoding"}
    return {"outcome": option.kind, "reason": option.reason, **state_json(option.post),
            "vs_allowed": [VS_NAMES[v] for v in sorted(option.vs)],
            "dont_care": {f"v{r}": register_hex(bits, vlen) for r, bits in sorted(option.free.items()) if bits},
            "tail_elements": "each old or all ones" if option.tail else "as shown"}


def allowed_json(answer) -> dict:
    """A deterministic profile (sail, spike, qemu): the exec result format. `any` (or any
    profile that leaves a choice free): {"profile", "allowed": [one object per outcome]}."""
    if not answer.profile.deterministic:
        return tagged("exec-allowed", {"profile": answer.profile.name,
                                       "allowed": [option_json(o, answer.pre.vlen) for o in answer.outcomes]})
    option = answer.unique()
    return tagged("exec-result", {"outcome": option.kind, "reason": option.reason, **state_json(option.post),
                                  "profile": answer.profile.name})


def allowed_view(answer, max_rows: int) -> list[str]:
    """The human view: the lane table of the spec's reading, then each allowed outcome."""
    pre, insn = answer.pre, answer.insn
    lines = [f"{format_asm(insn)}    ({encode(insn):#010x})", f"profile: {answer.profile.name}"]
    for option in answer.outcomes:
        lines.append("")
        if option.kind == ANYTHING:
            lines.append(f"allowed: anything ({option.reason}): every outcome and every post-state")
            continue
        if option.kind != RETIRED:
            vs = " or ".join(VS_NAMES[v] for v in sorted(option.vs))
            lines.append(f"allowed: {option.kind}: {option.reason}; nothing changes (VS {vs})")
            continue
        vs = " or ".join(VS_NAMES[v] for v in sorted(option.vs))
        if pre.vl == 0:
            lines.append(f"allowed: retired ({option.reason}); VS {vs}")
            continue
        vt = next(v for v in readings(pre, answer.profile.frac_sew) if not v.vill)
        cfg = Config(pre.vlen, pre.elen, vt.sew, vt.lmul)
        seed, elements, active = operands(Concrete, pre, insn, cfg)
        mask = None if insn.vm else Concrete.bits(pre.regs[0], pre.vl)
        lines.append(f"SEW={vt.sew} LMUL={vt.lmul} VLMAX={cfg.vlmax} vl={pre.vl} vta={int(vt.vta)}"
                     + (f" ({option.rule}: v0 read as the mask and as data)" if option.rule else ""))
        lines.append(f"seed vs1[0] = v{insn.vs1}[0] = {value_text(seed, vt.sew)}")
        lines += lane_table(seed, elements[: pre.vl], mask, active[: pre.vl], vt.sew, max_rows)
        written = option.post.regs[insn.vd] & ((1 << vt.sew) - 1)
        tail = ("each element keeps its value or becomes all ones" if option.tail
                else "unchanged" if option.post.regs[insn.vd] >> vt.sew == pre.regs[insn.vd] >> vt.sew
                else "all ones")
        lines += [f"allowed: retired; vd[0] = v{insn.vd}[0] = {value_text(written, vt.sew)}",
                  f"tail of v{insn.vd}: {tail}", f"vstart=0, VS {vs}"]
    return lines
