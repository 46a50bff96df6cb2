"""Evaluate bit-vector terms on concrete values, fast: the design simulated without a solver.

A `Program` compiles a set of Z3 terms once (the DAG in topological order) into one
straight-line Python function, a statement per node, and then evaluates them for many
assignments of their variables: the probing of the combinational method, the random
simulation of the sequential one, the replay of counterexamples. Bit-vectors are unsigned
ints, Booleans bools. An operator without a fast path is evaluated by Z3 itself on numerals,
so every operator is covered.
"""

from __future__ import annotations

import z3

K = z3  # the Z3_OP_* kinds


def _mask(width: int) -> int:
    return (1 << width) - 1


def _signed(value: int, width: int) -> int:
    return value - (1 << width) if value >> (width - 1) & 1 else value


def _join(op: str, args) -> str:
    return "(" + f" {op} ".join(args) + ")"


def _expression(term, args: list[str]) -> str | None:
    """A Python expression of the children's values (named in `args`) for this node, or None."""
    kind, width = term.decl().kind(), term.size() if z3.is_bv(term) else 0
    mask = _mask(width) if width else 0
    kids = term.children()
    child_width = kids[0].size() if kids and z3.is_bv(kids[0]) else 0
    sign = 1 << (child_width - 1) if child_width else 0
    a = args[0] if args else ""
    b = args[1] if len(args) > 1 else ""
    simple = {
        K.Z3_OP_ITE: lambda: f"({b} if {a} else {args[2] if len(args) > 2 else ''})",
        K.Z3_OP_EQ: lambda: f"({a} == {b})",
        K.Z3_OP_DISTINCT: lambda: f"(len({{{', '.join(args)}}}) == {len(args)})",
        K.Z3_OP_NOT: lambda: f"(not {a})",
        K.Z3_OP_AND: lambda: _join("and", args),
        K.Z3_OP_OR: lambda: _join("or", args),
        K.Z3_OP_XOR: lambda: f"({a} != {b})",
        K.Z3_OP_IMPLIES: lambda: f"((not {a}) or {b})",
        K.Z3_OP_BAND: lambda: _join("&", args),
        K.Z3_OP_BOR: lambda: _join("|", args),
        K.Z3_OP_BXOR: lambda: _join("^", args),
        K.Z3_OP_BNOT: lambda: f"(~{a} & {mask})",
        K.Z3_OP_BNEG: lambda: f"(-{a} & {mask})",
        K.Z3_OP_BADD: lambda: f"({_join('+', args)} & {mask})",
        K.Z3_OP_BSUB: lambda: f"(({a} - {b}) & {mask})",
        K.Z3_OP_BMUL: lambda: f"({_join('*', args)} & {mask})",
        K.Z3_OP_ULEQ: lambda: f"({a} <= {b})",
        K.Z3_OP_ULT: lambda: f"({a} < {b})",
        K.Z3_OP_UGEQ: lambda: f"({a} >= {b})",
        K.Z3_OP_UGT: lambda: f"({a} > {b})",
        K.Z3_OP_SLEQ: lambda: f"(({a} ^ {sign}) <= ({b} ^ {sign}))",
        K.Z3_OP_SLT: lambda: f"(({a} ^ {sign}) < ({b} ^ {sign}))",
        K.Z3_OP_SGEQ: lambda: f"(({a} ^ {sign}) >= ({b} ^ {sign}))",
        K.Z3_OP_SGT: lambda: f"(({a} ^ {sign}) > ({b} ^ {sign}))",
        K.Z3_OP_BSHL: lambda: f"((({a} << {b}) & {mask}) if {b} < {width} else 0)",
        K.Z3_OP_BLSHR: lambda: f"(({a} >> {b}) if {b} < {width} else 0)",
        K.Z3_OP_BASHR: lambda: f"((_signed({a}, {width}) >> min({b}, {width})) & {mask})",
        K.Z3_OP_BCOMP: lambda: f"int({a} == {b})",
        K.Z3_OP_ZERO_EXT: lambda: a,
        K.Z3_OP_SIGN_EXT: lambda: f"((({a} ^ {sign}) - {sign}) & {mask})",
    }
    if kind in simple:
        return simple[kind]()
    if kind == K.Z3_OP_CONCAT:
        out, total = "0", 0
        parts = []
        for value, kid in zip(reversed(args), reversed(kids)):
            parts.append(f"({value} << {total})" if total else value)
            total += kid.size()
        return _join("|", parts) if parts else out
    if kind == K.Z3_OP_EXTRACT:
        hi, lo = term.params()
        return f"(({a} >> {lo}) & {_mask(hi - lo + 1)})"
    return None


def _by_z3(term):
    """Evaluate this node with Z3 on numeral children (operators without a fast path)."""
    decl, kids = term.decl(), term.children()

    def run(*values):
        numerals = [
            z3.BoolVal(v) if z3.is_bool(k) else z3.BitVecVal(v, k.size()) for v, k in zip(values, kids)
        ]
        return _value(z3.simplify(decl(*numerals)))

    return run


def _value(term):
    if z3.is_true(term):
        return True
    if z3.is_false(term):
        return False
    if z3.is_bv_value(term):
        return term.as_long()
    raise ValueError(f"cannot evaluate {term.decl().name()} concretely")


class Program:
    """Terms compiled for concrete evaluation; variables are given by name."""

    def __init__(self, terms: dict):
        self.names = list(terms)
        order, index = [], {}
        todo = [(t, False) for t in reversed(list(terms.values()))]
        while todo:
            term, expanded = todo.pop()
            key = term.get_id()
            if key in index:
                continue
            if expanded or not term.children():
                index[key] = len(order)
                order.append(term)
                continue
            todo.append((term, True))
            todo.extend((k, False) for k in term.children() if k.get_id() not in index)
        self.variables: dict[str, int] = {}
        namespace = {"_signed": _signed}
        lines = ["def evaluate(values):", "    get = values.get"]
        for slot, term in enumerate(order):
            if z3.is_const(term) and term.decl().kind() == K.Z3_OP_UNINTERPRETED:
                self.variables[term.decl().name()] = slot
                lines.append(f"    s{slot} = get({term.decl().name()!r}, 0)")
            elif not term.children():
                lines.append(f"    s{slot} = {_value(term)!r}")
            else:
                args = [f"s{index[k.get_id()]}" for k in term.children()]
                code = _expression(term, args)
                if code is None:
                    namespace[f"f{slot}"] = _by_z3(term)
                    code = f"f{slot}({', '.join(args)})"
                lines.append(f"    s{slot} = {code}")
        outputs = [index[t.get_id()] for t in terms.values()]
        lines.append("    return (" + "".join(f"s{i}, " for i in outputs) + ")")
        exec(compile("\n".join(lines), "<rtl program>", "exec"), namespace)
        self._evaluate = namespace["evaluate"]

    def run(self, values: dict) -> dict:
        """{term name: value} for {variable name: value} (missing variables are 0)."""
        return dict(zip(self.names, self._evaluate(values)))
