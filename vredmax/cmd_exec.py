"""`vredmax exec`: run one case (or a JSON-lines batch) and show or print the post-state."""

from __future__ import annotations

import decimal
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
from vredmax.case import CaseError, parse_case, result_json
from vredmax.errors import EXIT_OK, EXIT_USAGE, UsageError
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


def _json_int(text: str) -> int:
    """JSON integers of any size (a VLEN=65536 register in decimal exceeds int()'s digit limit)."""
    try:
        return int(text)
    except ValueError:
        return int(decimal.Decimal(text))


def _load(text: str):
    try:
        return json.loads(text, parse_int=_json_int)
    except json.JSONDecodeError as error:
        raise CaseError(f"case: malformed JSON: {error.msg} at line {error.lineno} column {error.colno}") from None
    except RecursionError:
        raise CaseError("case: malformed JSON: nested too deeply") from None


def run(args) -> int:
    if args.jsonl is not None:
        if args.case is not None:
            raise UsageError("case: give either a case file or --jsonl, not both")
        return run_batch(args.jsonl, args.impl)
    if args.case is None:
        raise UsageError("case: missing (a JSON file, or - for standard input)")
    with _open(args.case) as stream:
        text = stream.read()
    try:
        pre, insn, tail = parse_case(_load(text))
    except CaseError as error:
        raise UsageError(str(error)) from None
    result = execute(pre, insn, args.impl, tail)
    if args.json:
        print(json.dumps(result_json(result), indent=2))
    else:
        print("\n".join(human_view(pre, insn, tail, args.impl, result, args.max_rows)))
    return EXIT_OK


def run_batch(path: str, impl: str) -> int:
    """One result line per input line, in order; a bad line gives an error line and we go on."""
    failed = False
    with _open(path) as stream:
        for number, line in enumerate(stream, 1):
            if not line.strip():
                continue
            try:
                pre, insn, tail = parse_case(_load(line))
                print(json.dumps(result_json(execute(pre, insn, impl, tail))))
            except CaseError as error:
                failed = True
                print(json.dumps({"error": f"line {number}: {error}"}))
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
