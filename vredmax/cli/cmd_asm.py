"""`vredmax asm TEXT` and `vredmax disasm WORD`."""

from __future__ import annotations

import json

from vredmax.spec.encoding import EncodingError, decode, describe_fields, encode, format_asm, parse_asm
from vredmax.runtime.errors import UsageError
from vredmax.schema import tagged


def add_parser(subparsers) -> None:
    asm = subparsers.add_parser("asm", help="assemble vredmax.vs text into its 32-bit word")
    asm.add_argument("text", help='e.g. "vredmax.vs v8, v12, v4" or "vredmax.vs v4, v8, v12, v0.t"')
    asm.add_argument(
        "--json", action="store_true", help="print the word and its fields as JSON (schema asm-result)"
    )
    asm.set_defaults(run=run_asm)
    disasm = subparsers.add_parser("disasm", help="disassemble a 32-bit word and show its fields")
    disasm.add_argument("word", help="the instruction word, e.g. 0x1c862257")
    disasm.add_argument(
        "--json", action="store_true", help="print the text and the fields as JSON (schema asm-result)"
    )
    disasm.set_defaults(run=run_disasm)


def run_asm(args) -> int:
    try:
        word = encode(parse_asm(args.text))
    except EncodingError as error:
        raise UsageError(str(error)) from None
    print(json.dumps(asm_json(word), indent=2) if args.json else f"{word:#010x}")
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
    if args.json:
        print(json.dumps(asm_json(word), indent=2))
        return 0
    print(format_asm(insn))
    for name, bits, value in describe_fields(word):
        print(f"  {name:<7} {bits:>7}  {value}")
    return 0


def asm_json(word: int) -> dict:
    """One instruction both ways: its word, its text and its fields (asm and disasm alike)."""
    insn = decode(word)
    return tagged(
        "asm-result",
        {
            "word": f"{word:#010x}",
            "text": format_asm(insn),
            "vd": insn.vd,
            "vs2": insn.vs2,
            "vs1": insn.vs1,
            "vm": insn.vm,
            "fields": [
                {"name": name, "bits": bits, "value": str(value)}
                for name, bits, value in describe_fields(word)
            ],
        },
    )
