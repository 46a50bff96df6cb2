"""The claim language's vocabulary: its types, names, fields and forms, the error type, and
`parse` (Python's `ast`, with a bound on nesting). The language itself is described in
`claim_language/__init__.py`."""

from __future__ import annotations

import ast
import re

import z3

from vredmax.spec.state import VS_NAMES

BOOL, INT, ELEM, REG, VS = "bool", "int", "element", "register", "vs"
STATE, INSN = "state", "instruction"  # pre/post and insn: only their fields are values
INT_WIDTH = 80  # integers as signed 80-bit vectors: vl, vstart, vtype fit with room
MAX_UNROLL = 1 << 18  # generator iterations per claim and configuration

VS_CONSTANTS = {name.upper(): code for code, name in enumerate(VS_NAMES)}
CONFIG_CONSTANTS = ("VLMAX", "SEW", "VLEN", "LMUL", "ELEN")
CONDITIONS = ("trapped", "trapped_illegal", "retired", "illegal", "reserved", "legal")
# name -> (element type, what indexes it)
SEQUENCES = {
    "vs2": (ELEM, "VLMAX"),
    "active": (BOOL, "VLMAX"),
    "mask": (BOOL, "VLEN"),
    "vs1": (ELEM, "VLEN/SEW"),
}
STATE_FIELDS = {
    "vl": INT,
    "vstart": INT,
    "vtype": INT,
    "vs": VS,
    "vta": BOOL,
    "vma": BOOL,
    "vill": BOOL,
    "vd": REG,
}
STATE_SEQUENCES = {"v": (REG, "32")}  # pre.v[r]: register r
INSN_FIELDS = {"vd": INT, "vs2": INT, "vs1": INT, "vm": BOOL}
ELEMENT_FOLDS = ("smax", "smin", "umax", "umin")
UNSIGNED = {"ult": z3.ULT, "ule": z3.ULE, "ugt": z3.UGT, "uge": z3.UGE}
GENERATORS = ("all", "any") + ELEMENT_FOLDS
NAMES_HELP = (
    "pre.F/post.F (F: vl vstart vtype vs vta vma vill vd v[r]), insn.vd/vs2/vs1/vm, seed, "
    "vs2[i], vs1[k], active[i], mask[i], VLMAX SEW VLEN LMUL ELEN, trapped retired illegal "
    "reserved legal trapped_illegal, OFF INITIAL CLEAN DIRTY"
)


MAX_LITERAL_BITS = 65536  # the widest value a claim has: a register at VLEN=65536
LONG_NUMBER = re.compile(r"\d{%d,}" % 25)


def _shortened(match) -> str:
    digits = match.group(0)
    return f"{digits[:6]}...{digits[-4:]} ({len(digits)} digits)"


class ClaimError(ValueError):
    """A claim that cannot be read: the message names the column (1-based). A long number in
    the message is shortened (the message is one line of a terminal)."""

    def __init__(self, node_or_column, message: str):
        column = (
            node_or_column
            if isinstance(node_or_column, int)
            else getattr(node_or_column, "col_offset", 0) + 1
        )
        self.column = column
        super().__init__(f"column {column}: {LONG_NUMBER.sub(_shortened, message)}")


MAX_DEPTH = 100  # nesting of the claim's syntax tree: the checker and translator recurse


def parse(text: str) -> ast.Expression:
    if not isinstance(text, str) or not text.strip():
        raise ClaimError(1, "the claim is empty")
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError as error:
        raise ClaimError(error.offset or 1, f"syntax error: {error.msg}") from None
    except ValueError as error:  # a NUL character
        raise ClaimError(1, f"syntax error: {error}") from None
    except (RecursionError, MemoryError):
        raise ClaimError(1, f"the claim is nested too deeply (at most {MAX_DEPTH} levels)") from None
    _check_depth(tree)
    return tree


def _check_depth(tree) -> None:
    """Reject a claim nested deeper than MAX_DEPTH (walked without recursion), so that the
    recursive passes below cannot exhaust Python's stack."""
    stack = [(tree.body, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise ClaimError(node, f"the claim is nested too deeply (at most {MAX_DEPTH} levels)")
        stack.extend((child, depth + 1) for child in ast.iter_child_nodes(node))
