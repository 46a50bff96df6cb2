"""Formal statements for people: the solver's own terms, printed with named fields.

`human(obligation)` takes the obligation's monolithic query with readable names substituted
(proofs/statement.named_query: the formula the solver is given, not a paraphrase) and prints
it with the conventions of the manual: `≤ₛ` for signed order, `max(a, b)` for the signed
maximum `If(a >= b, a, b)`, `tail(vd')` for vd's elements 1 .. VLEN/SEW-1, `vtype.vill` for
bit 63, VS by name, and per-element conjunctions folded into "for every active i".

Folding: the query is built at a small configuration (VLMAX = 2 or 4), where a per-element
condition is one term per index. Sibling terms that print the same up to their element index
are printed once, with `i` for the index, as "for every i" (a conjunction over all VLMAX
indices), "for some i" (a disjunction), or "for i ∈ {..}" when only some indices occur.
"""

from __future__ import annotations

import re

import z3

from vredmax.proofs.engine import statement
from vredmax.spec.state import VS_NAMES

INDEXED = ("vs2", "active", "mask")  # names whose [k] is an element index
VTYPE_BITS = {63: "vill", 7: "vma", 6: "vta"}
SIGNED = {z3.Z3_OP_SLEQ: "≤ₛ", z3.Z3_OP_SGEQ: "≥ₛ", z3.Z3_OP_SLT: "<ₛ", z3.Z3_OP_SGT: ">ₛ"}
UNSIGNED = {z3.Z3_OP_ULEQ: "≤ᵤ", z3.Z3_OP_UGEQ: "≥ᵤ", z3.Z3_OP_ULT: "<ᵤ", z3.Z3_OP_UGT: ">ᵤ"}
NEGATED = {
    "<ᵤ": "≥ᵤ",
    "≥ᵤ": "<ᵤ",
    "≤ᵤ": ">ᵤ",
    ">ᵤ": "≤ᵤ",
    "<ₛ": "≥ₛ",
    "≥ₛ": "<ₛ",
    "≤ₛ": ">ₛ",
    ">ₛ": "≤ₛ",
    "=": "≠",
    "<": "≥",
}
SPEC_ALLOWS_TEXT = "the spec allows the post-state (primed names)"
_INDEX = re.compile(r"#(\d+)#")
_SEW_SUFFIX = re.compile(r"_(8|16|32|64)$")

# Binding strength: a child binding less tightly than its parent is parenthesised.
ATOM, COMPARE, NOT, AND, OR, IMPLIES, QUANT = 0, 1, 2, 3, 4, 5, 6


def human(obligation) -> dict:
    """{"config", "assume": [...], "prove": ...}, printed for people."""
    named = statement.named_query(obligation)
    if isinstance(named, str):
        return {"config": None, "assume": [], "prove": named}
    cfg, assumptions, goal = named
    printer = _Printer(cfg)
    terms = [a for a in assumptions if a is not statement.SPEC_ALLOWS]
    assume = [text for text, _ in printer.fold([printer.show(t) for t in terms], "and")]
    if any(a is statement.SPEC_ALLOWS for a in assumptions):
        assume.append(SPEC_ALLOWS_TEXT)
    return {
        "config": str(cfg),
        "assume": [_finish(t) for t in assume],
        "prove": _finish(printer.show(goal)[0]),
    }


def _finish(text: str) -> str:
    return _INDEX.sub(r"\1", text)


class _Printer:
    def __init__(self, cfg):
        self.cfg = cfg

    def show(self, t) -> tuple[str, int]:
        """(text, binding strength). Element indices print as #k# until folded or finished."""
        if z3.is_true(t):
            return "true", ATOM
        if z3.is_false(t):
            return "false", ATOM
        if z3.is_bv_value(t):
            return self.numeral(t.as_long(), t.size()), ATOM
        if z3.is_const(t):
            return self.name(t.decl().name()), ATOM
        kind, args = t.decl().kind(), t.children()
        if kind == z3.Z3_OP_AND:
            return self.connective(args, "and", AND)
        if kind == z3.Z3_OP_OR:
            return self.connective(args, "or", OR)
        if kind == z3.Z3_OP_NOT:
            return self.negation(args[0])
        if kind == z3.Z3_OP_IMPLIES:
            return f"{self.child(args[0], IMPLIES - 1)} ⟹ {self.child(args[1], IMPLIES)}", IMPLIES
        if kind == z3.Z3_OP_EQ:
            return self.equality(args[0], args[1]), COMPARE
        if kind == z3.Z3_OP_DISTINCT and len(args) == 2:
            return self.equality(args[0], args[1]).replace(" = ", " ≠ ", 1), COMPARE
        if kind in SIGNED or kind in UNSIGNED:
            return self.compare(kind, args), COMPARE
        if kind == z3.Z3_OP_ITE:
            return self.ite(*args)
        if kind == z3.Z3_OP_EXTRACT:
            return self.extract(t), ATOM
        if kind == z3.Z3_OP_BXOR and z3.is_bv_value(args[1]) and args[1].as_long() == 1 << 7:
            return f"{self.child(args[0], ATOM)} with vma flipped", ATOM
        if kind == z3.Z3_OP_BADD and z3.is_bv_value(args[1]) and args[1].as_long() == 0:
            return self.show(args[0])
        if kind == z3.Z3_OP_BADD:
            return f"{self.child(args[0], ATOM)} + {self.child(args[1], ATOM)}", COMPARE
        if kind == z3.Z3_OP_SELECT:
            return f"{self.child(args[0], ATOM)}[{self.show(args[1])[0]}]", ATOM
        if kind == z3.Z3_OP_STORE:
            return (
                f"{self.child(args[0], ATOM)} with [{self.show(args[1])[0]}] := {self.show(args[2])[0]}"
            ), COMPARE
        if kind == z3.Z3_OP_CONCAT:
            return " ++ ".join(self.child(arg, ATOM) for arg in args), COMPARE
        # anything else by its operator's name, the arguments printed the same way
        return f"{t.decl().name()}({', '.join(self.show(arg)[0] for arg in args)})", ATOM

    def child(self, t, strength: int) -> str:
        text, own = self.show(t)
        return f"({text})" if own > strength else text

    def name(self, name: str) -> str:
        match = re.fullmatch(r"(vs2|active|mask)(_b)?\[(\d+)\]", name)
        if match:
            return f"{match.group(1)}{match.group(2) or ''}[#{match.group(3)}#]"
        return _SEW_SUFFIX.sub("", name)

    def numeral(self, value: int, width: int) -> str:
        if width >= 8 and value == (1 << width) - 1:
            return "all ones"
        if width >= 8 and value == 1 << (width - 1):
            return "smin"
        return str(value)

    def negation(self, t) -> tuple[str, int]:
        text, own = self.show(t)
        if own == COMPARE:
            for op, negated in NEGATED.items():
                if f" {op} " in text and text.count(f" {op} ") == 1:
                    return text.replace(f" {op} ", f" {negated} "), COMPARE
        return f"not {text}" if own == ATOM else f"not ({text})", NOT

    def equality(self, a, b) -> str:
        if z3.is_bv_value(a) and not z3.is_bv_value(b):
            a, b = b, a  # the named side first: `VS = Off`, not `0 = VS`
        if z3.is_bv_value(b) and z3.is_const(a) and a.decl().name().startswith("VS"):
            return f"{self.show(a)[0]} = {VS_NAMES[b.as_long()].capitalize()}"
        if z3.is_bv(a) and a.size() == 1 and z3.is_bv_value(b) and a.decl().kind() == z3.Z3_OP_EXTRACT:
            return f"{self.show(a)[0]} = {b.as_long()}"
        return f"{self.child(a, ATOM)} = {self.child(b, ATOM)}"

    def compare(self, kind, args) -> str:
        a, b = args
        if kind == z3.Z3_OP_ULT and z3.is_bv_value(a) and z3.is_const(b) and b.decl().name() == "vl":
            return f"#{a.as_long()}# < vl"  # an element index: vl counts elements
        op = SIGNED.get(kind) or UNSIGNED[kind]
        return f"{self.child(a, ATOM)} {op} {self.child(b, ATOM)}"

    def ite(self, c, a, b) -> tuple[str, int]:
        if z3.is_true(c):
            return self.show(a)
        if z3.is_false(c):
            return self.show(b)
        kind = c.decl().kind() if z3.is_app(c) else None
        x, y = (c.children() + [None, None])[:2]
        for max_name, ge, le in (
            ("max", z3.Z3_OP_SGEQ, z3.Z3_OP_SLEQ),
            ("maxᵤ", z3.Z3_OP_UGEQ, z3.Z3_OP_ULEQ),
        ):
            # If(x >= y, x, y) and If(y <= x, x, y) are max(x, y)
            if (kind == ge and a.eq(x) and b.eq(y)) or (kind == le and a.eq(y) and b.eq(x)):
                return f"{max_name}({self.show(a)[0]}, {self.show(b)[0]})", ATOM
        return f"({self.show(c)[0]} ? {self.show(a)[0]} : {self.show(b)[0]})", ATOM

    def extract(self, t) -> str:
        hi, lo = t.params()
        [x] = t.children()
        inner = self.child(x, ATOM)
        if hi == lo and z3.is_const(x) and x.decl().name().startswith("vtype") and hi in VTYPE_BITS:
            return f"{inner}.{VTYPE_BITS[hi]}"
        if x.size() == self.cfg.vlen and lo == self.cfg.sew and hi == self.cfg.vlen - 1:
            return f"tail({inner})"
        if x.size() == self.cfg.vlen and lo == 0 and hi == self.cfg.sew - 1:
            return f"{inner}[0]"
        return f"{inner}[{hi}:{lo}]"

    def connective(self, args, word: str, strength: int) -> tuple[str, int]:
        neutral, absorbing = ("true", "false") if word == "and" else ("false", "true")
        flat = []
        for arg in args:
            if z3.is_app(arg) and arg.decl().kind() == (z3.Z3_OP_AND if word == "and" else z3.Z3_OP_OR):
                flat += arg.children()
            else:
                flat.append(arg)
        shown = [self.show(arg) for arg in flat]
        if any(text == absorbing for text, _ in shown):
            return absorbing, ATOM
        shown = [(text, own) for text, own in shown if text != neutral]
        if not shown:
            return neutral, ATOM
        parts = self.fold(shown, word)
        if len(parts) == 1:
            return parts[0]
        return f" {word} ".join(f"({text})" if own >= AND else text for text, own in parts), strength

    def fold(self, shown: list[tuple[str, int]], word: str) -> list[tuple[str, int]]:
        """Print terms equal up to their element index once, quantified over i."""
        groups: dict = {}
        for text, own in shown:
            indices = set(_INDEX.findall(text))
            key = _INDEX.sub("#i#", text) if len(indices) == 1 else text
            groups.setdefault(key, []).append((text, own, indices))
        parts = []
        for key, members in groups.items():
            if len(members) == 1 or "#i#" not in key:
                parts += [(text, own) for text, own, _ in members]
                continue
            indices = sorted(int(next(iter(i))) for _, _, i in members)
            parts.append((self.quantified(key.replace("#i#", "i"), indices, word), QUANT))
        return parts

    def quantified(self, body: str, indices: list[int], word: str) -> str:
        every = indices == list(range(self.cfg.vlmax))
        if word == "and":
            if body.startswith("active[i] ⟹ ") and every:
                return f"for every active i: {body[len('active[i] ⟹ ') :]}"
            head = "for every i" if every else f"for i ∈ {{{', '.join(map(str, indices))}}}"
        else:
            if body.startswith("active[i] and ") and every:
                return f"for some active i: {body[len('active[i] and ') :]}"
            head = "for some i" if every else f"for some i ∈ {{{', '.join(map(str, indices))}}}"
        return f"{head}: {body}"
