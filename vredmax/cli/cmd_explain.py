"""`vredmax explain`: the decode-and-execute animation of one case, for teaching and bug reports.

In a terminal: each step (decode, checks, vl, the seed, the lane table with the running
maximum, the write of vd[0], the tail, the CSRs). With `--html-out FILE`: a self-contained page
with the same animation as the manual (docs/vredmax.vs.html), for this case.
"""

from __future__ import annotations

from vredmax.cli.options import hidden_alias
from vredmax.cli import options

from vredmax.impl.case import CaseError, parse_case
from vredmax.cli.cmd_exec import _load, _open, with_elen
from vredmax.runtime.errors import EXIT_OK, UsageError
from vredmax.impl.trace import trace
from vredmax.runtime.outputs import check_writable_file, write_text
from vredmax.presentation.documents.manual import case_page
from vredmax.presentation.documents.manual.animation import text_lines


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "explain",
        help="show step by step how vredmax.vs executes one case",
        description="Trace one case (the `vredmax exec` format) through the executable model: the "
        "encoding fields, the legality checks, the seed, each lane's value, mask bit, active "
        "flag and running maximum, the write of vd[0] and the tail.",
    )
    parser.add_argument("case", help="case file, or - for standard input")
    parser.add_argument(
        "--html-out",
        dest="html",
        metavar="FILE",
        help="also write the animated page to FILE (self-contained HTML)",
    )
    hidden_alias(parser, "--html", dest="html")
    parser.add_argument(
        "--max-rows",
        type=options.rows,
        default=64,
        metavar="N",
        help="lanes shown in the terminal's lane table (default: 64)",
    )
    parser.add_argument(
        "--elen", type=int, choices=(32, 64), help='ELEN for cases without an "elen" field (default 64)'
    )
    parser.set_defaults(run=run)


def run(args) -> int:
    if args.html:
        check_writable_file(args.html, "--html-out")
    with _open(args.case) as stream:
        text = stream.read()
    try:
        obj = with_elen(_load(text), args.elen)
        pre, insn, tail = parse_case(obj)
    except CaseError as error:
        raise UsageError(str(error)) from None
    run_trace = trace(pre, insn, tail)
    print("\n".join(text_lines(run_trace, args.max_rows)))
    if args.html:
        write_text(args.html, case_page(run_trace, obj if isinstance(obj, dict) else None), "--html-out")
        print(f"wrote {args.html}")
    return EXIT_OK
