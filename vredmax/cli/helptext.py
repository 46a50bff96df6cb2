"""What every `--help` shares: examples, the exit codes the command uses, wrapped text, and
argparse's own mistakes as one line (`vredmax: error: --FLAG: ...`, exit 2, no usage dump).

The examples are run as shown from the repository's root (tests/test_cli_help.py parses each
one and checks the files it names); docs/reference/commands/ shows the same text.
"""

from __future__ import annotations

import argparse
import re
import textwrap

from vredmax.runtime.errors import UsageError

# What each exit code means for each command: only the codes that command uses.
_INTERRUPTED = "interrupted (Ctrl-C): what was done so far, marked INTERRUPTED"
_BAD_INPUT = "bad input or an output error: one line naming the field or file"
_INTERNAL = "internal error (a bug of the tool): one line naming the file that keeps its traceback"
EXITS = {
    "exec": {
        0: "executed (a trap or a reserved encoding is an outcome, not an error)",
        2: _BAD_INPUT + "; with --jsonl, at the end when a line was bad",
        4: _INTERNAL,
        130: _INTERRUPTED,
    },
    "asm": {0: "assembled", 2: "bad input: text that is not a vredmax.vs instruction", 4: _INTERNAL},
    "disasm": {0: "disassembled", 2: "bad input: not an integer, or not a vredmax.vs word", 4: _INTERNAL},
    "explain": {0: "explained", 2: _BAD_INPUT, 4: _INTERNAL},
    "conform": {
        0: "every case agrees with the spec",
        1: "a mismatch",
        2: _BAD_INPUT + " (also: no emulator or cross compiler)",
        4: _INTERNAL,
        130: _INTERRUPTED,
    },
    "prove": {
        0: "every obligation PROVED",
        1: "a counterexample",
        2: _BAD_INPUT,
        3: "unknown: a solver gave up or timed out (nothing failed)",
        4: "error: e.g. vacuous assumptions",
        130: _INTERRUPTED,
    },
    "refute": {
        0: "every claim refuted, as expected",
        1: "a claim was not refuted",
        2: _BAD_INPUT,
        3: "unknown: a solver gave up or timed out",
        4: "error",
        130: _INTERRUPTED,
    },
    "check-impl": {
        0: "PROVED at every configuration checked",
        1: "a counterexample",
        2: _BAD_INPUT,
        3: "unknown: a solver timed out (never PROVED)",
        4: "error: your code raised or hung, or a checker fault",
        130: _INTERRUPTED,
    },
    "check-rtl": {
        0: "PROVED at every SEW",
        1: "a counterexample",
        2: _BAD_INPUT + " (also: Verilog errors)",
        3: "unknown: the proof did not close",
        4: "error",
        130: _INTERRUPTED,
    },
    "check-c": {
        0: "PROVED within the bounds shown",
        1: "a counterexample (also: undefined behaviour the sanitizers saw)",
        2: _BAD_INPUT + " (also: code that does not compile)",
        3: "unknown: past the symbolic bound only concrete runs speak, or a solver timed out (never PROVED)",
        4: "error: the code crashed or hung, or a checker fault",
        130: _INTERRUPTED,
    },
    "report": {
        0: "written (or, with --check, up to date), everything proved",
        1: "a counterexample or a claim not refuted; with --check: a file is out of date",
        2: _BAD_INPUT,
        3: "unknown: a solver gave up",
        4: "error",
        130: _INTERRUPTED + "; no file written",
    },
    "judge": {
        0: "every observation is allowed",
        1: "a violation",
        2: "a bad line (reported in its place; the other lines are judged)",
        4: _INTERNAL,
        130: _INTERRUPTED,
    },
    "ask": {
        0: "PROVED within the bounds shown",
        1: "a counterexample",
        2: "bad input: one line naming the claim's column, or the option",
        3: "unknown: a solver gave up or timed out (never PROVED)",
        4: "VACUOUS: the hypothesis of implies() holds at no configuration asked (nothing is "
        "proved); or another error",
        130: _INTERRUPTED,
    },
    "testgen": {
        0: "the suite is complete and every run passed",
        1: "a run failed",
        2: _BAD_INPUT + " (also: no emulator or assembler)",
        4: "a coverpoint without a case, or a run that gave no verdict",
        130: _INTERRUPTED,
    },
    "certify-check": {
        0: "every certificate checks",
        1: "a certificate is rejected (hash, model or proof)",
        2: _BAD_INPUT + " (also: no manifest.json in DIR)",
        4: "the manifest records a disagreement between a solver and the route (ERROR)",
    },
}
ALL_EXITS = {
    0: "ok: proved, agreed, executed",
    1: "a counterexample, violation or mismatch was found",
    2: _BAD_INPUT,
    3: "unknown: a solver gave up or timed out (nothing failed)",
    4: "error: e.g. vacuous assumptions, a checker fault, an internal error (a bug: one line "
    "naming the file that keeps its traceback)",
    130: _INTERRUPTED,
}

# Examples for each command, run from the repository's root.
EXAMPLES = {
    "exec": [
        "vredmax exec examples/cases/retired-seed-usage.json",
        "vredmax exec examples/cases/retired-seed-usage.json --json",
        "vredmax exec examples/cases/retired-tail-agnostic.json --profile any --json",
        "vredmax exec --jsonl examples/batch.jsonl",
    ],
    "asm": ['vredmax asm "vredmax.vs v8, v12, v4"', 'vredmax asm "vredmax.vs v4, v8, v12, v0.t" --json'],
    "disasm": ["vredmax disasm 0x1c862257", "vredmax disasm 0x1ec22457 --json"],
    "explain": [
        "vredmax explain examples/cases/retired-seed-animation.json",
        "vredmax explain examples/cases/illegal-vstart.json --html-out vstart.html",
    ],
    "conform": [
        "vredmax conform --vlen 256 --cases 10000",
        "vredmax conform --vlen 1024 --tail ones --seed 7",
        "vredmax conform --vlen 128 --elen 32",
        "vredmax conform --emulator spike --vlen 4096 --cases 10000",
    ],
    "prove": [
        "vredmax prove",
        "vredmax prove --vlen 128 --sew 8 --lmul m1",
        "vredmax prove --all --jobs 2",
        "vredmax prove -k vl0 --json",
        "vredmax prove --certify certificates/ --jobs 2",
    ],
    "refute": [
        "vredmax refute",
        "vredmax refute -k unsigned",
        "vredmax refute -k broadcast --vlen 1024 --sew 16",
        "vredmax refute --test-out test_regressions.py",
    ],
    "check-impl": [
        "vredmax check-impl examples/my_reduction.py:reduce",
        "vredmax check-impl examples/my_reduction.py:reduce --vlen 128 --sew 8",
        "vredmax check-impl examples/my_reduction.py:step --all --jobs 2",
        "vredmax check-impl tests/buggy/units.py:unsigned_compare --case-out case.json",
    ],
    "check-rtl": [
        "vredmax check-rtl examples/rtl/tree_reduce.v --top tree_reduce --param LANES=8",
        "vredmax check-rtl examples/rtl/chunked_reduce.v --top chunked_reduce --sew 8",
        "vredmax check-rtl tests/rtl/comb_unsigned.v --top comb_unsigned --json",
    ],
    "check-c": [
        "vredmax check-c examples/c/unit.c:reduce --vlen 128 --sew 8",
        "vredmax check-c examples/c/unit.c:reduce_unsigned --random 50",
        "vredmax check-c examples/c/step.c:step --vlen 128 --symbolic-vlmax 2 --json",
    ],
    "report": ["vredmax report", "vredmax report --check", "vredmax report --certify certificates/"],
    "certify-check": [
        "vredmax certify-check certificates/",
        "vredmax certify-check certificates/ --engine python -v",
    ],
    "judge": [
        "vredmax judge examples/observed.jsonl",
        "vredmax judge --profile spike - < examples/observed.jsonl",
    ],
    "ask": [
        'vredmax ask "implies(legal and pre.vl == 0, post.vd == pre.vd)"',
        'vredmax ask "implies(legal and pre.vl > 0, post.vd[0] >= seed)" --sew 8',
        'vredmax ask "implies(legal, post.vd[1] == pre.vd[1])" --profile qemu',
    ],
    "testgen": [
        "vredmax testgen --vlen 256 -o out/",
        "vredmax testgen --vlen 1024 --random 500 --seed 7 -o out/ --build --run",
        "vredmax testgen --vlen 4096 --profile spike -o out/ --run-spike",
        "vredmax testgen --vlen 256 -o mutant/ --mutate vredmaxu --run",
    ],
}


def exit_table(codes: dict[int, str], width: int = 78) -> str:
    rows = [
        textwrap.fill(meaning, width, initial_indent=f"  {code:<4} ", subsequent_indent=" " * 7)
        for code, meaning in codes.items()
    ]
    return "exit codes:\n" + "\n".join(rows)


def epilog(name: str, own: str | None = None) -> str:
    """A command's epilog: its own text, its examples, its exit codes."""
    parts = [own] if own else []
    if name in EXAMPLES:
        parts.append("examples:\n" + "\n".join(f"  {example}" for example in EXAMPLES[name]))
    parts.append(exit_table(EXITS.get(name, ALL_EXITS)))
    return "\n\n".join(parts)


class Formatter(argparse.HelpFormatter):
    """Wraps the description and the epilog to the terminal's width, as argparse does the
    options; a line that starts with a space (an example, a table row) or ends with a colon (a
    heading) is kept as written."""

    def _fill_text(self, text, width, indent):
        lines, paragraph = [], []

        def flush():
            if paragraph:
                lines.extend(
                    textwrap.wrap(
                        " ".join(paragraph),
                        width,
                        initial_indent=indent,
                        subsequent_indent=indent,
                        break_on_hyphens=False,
                    )
                )
                paragraph.clear()

        for line in text.splitlines():
            if not line.strip():
                flush()
                lines.append("")
            elif line.startswith(" ") or line.rstrip().endswith(":"):
                flush()
                lines.append(indent + line)
            else:
                paragraph.append(line.strip())
        flush()
        return "\n".join(lines)


class Parser(argparse.ArgumentParser):
    """argparse's mistakes (an unknown option, a bad choice, a missing argument) are UsageErrors:
    one line naming the option, exit 2, no usage dump (the command's --help has it)."""

    def error(self, message):
        raise UsageError(_one_line(message, self.prog))

    def parse_args(self, args=None, namespace=None):
        parsed, extra = self.parse_known_args(args, namespace)
        if extra:  # name the command whose options were meant
            prog = f"{self.prog} {parsed.command}" if getattr(parsed, "command", None) else self.prog
            raise UsageError(f"{extra[0]}: not an option of {prog} (see {prog} --help)")
        return parsed


def _one_line(message: str, prog: str) -> str:
    hint = f" (see {prog} --help)"
    match = re.match(r"argument (\S+?)(?:/\S+)?: (.*)", message, re.S)
    if match:
        field, rest = match.groups()
        rest = re.sub(r"argument (\S+?)(?:/\S+)?\b", r"\1", rest)
        return f"{field}: {' '.join(rest.split())}"
    match = re.match(r"the following arguments are required: (.*)", message)
    if match:
        names = [name.strip() for name in match[1].split(",")]
        return (
            f"{names[0]}: required{hint}"
            if len(names) == 1
            else f"{names[0]}: required, and {', '.join(names[1:])}{hint}"
        )
    match = re.match(r"unrecognized arguments: (.*)", message)
    if match:
        return f"{match[1].split()[0]}: not an option of {prog}{hint}"
    return f"{prog.removeprefix('vredmax ').strip() or 'vredmax'}: {' '.join(message.split())}{hint}"
