"""`vredmax asm TEXT` and `vredmax disasm WORD`."""

from __future__ import annotations

from vredmax.spec.encoding import EncodingError, decode, describe_fields, encode, format_asm, parse_asm
from vredmax.errors import UsageError


def add_parser(subparsers) -> None:
    asm = subparsers.add_parser("asm", help="assemble vredmax.vs text into its 32-bit word")
    asm.add_argument("text", help='e.g. "vredmax.vs v8, v12, v4" or "vredmax.vs v4, v8, v12, v0.t"')
    asm.set_defaults(run=run_asm)
    disasm = subparsers.add_parser("disasm", help="disassemble a 32-bit word and show its fields")
    disasm.add_argument("word", help="the instruction word, e.g. 0x1c862257")
    disasm.set_defaults(run=run_disasm)


def run_asm(args) -> int:
    try:
        print(f"{encode(parse_asm(args.text)):#010x}")
    except EncodingError as error:
        raise UsageError(str(error)) from None
    return 0


def run_disasm(args) -> int:
    try:
        word = int(args.word.replace("_", ""), 0)
    except ValueError:
        raise UsageError(f"word: expected an integer such as 0x1c862257, got {args.word!r}") from None
    try:
        insn = decode(word)
    except EncodingError as error:
        raise UsageError(str(error)) from None
    print(format_asm(insn))
    for name, bits, value in describe_fields(word):
        print(f"  {name:<7} {bits:>7}  {value}")
    return 0
