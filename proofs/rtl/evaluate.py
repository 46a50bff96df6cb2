"""Evaluate bit-vector terms on concrete values, fast: the design simulated without a solver.

A `Program` compiles a set of Z3 terms once (the DAG in topological order, one Python
function per node) and then evaluates them for many assignments of their variables: the
probing of the combinational method, the random simulation of the sequential one, the replay
of counterexamples. Bit-vectors are unsigned ints, Booleans bools. An operator without a
fast path is evaluated by Z3 itself on numerals, so every operator is covered.
"""

from __future__ import annotations

import z3

K = z3  # the Z3_OP_* kinds


def _mask(width: int) -> int:
    return (1 << width) - 1


def _signed(value: int, width: int) -> int:
    return value - (1 << width) if value >> (width - 1) & 1 else value


def _concat(widths):
    def run(*values):
        out = 0
        for value, width in zip(values, widths):
            out = out << width | value
        return out
    return run


def _fast(term):
    """A Python function of the children's values for this node, or None."""
    kind, width = term.decl().kind(), term.size() if z3.is_bv(term) else 0
    mask = _mask(width) if width else 0
    kids = term.children()
    child_width = kids[0].size() if kids and z3.is_bv(kids[0]) else 0
    params = term.params()
    simple = {
        K.Z3_OP_ITE: lambda c, a, b: a if c else b,
        K.Z3_OP_EQ: lambda a, b: a == b,
        K.Z3_OP_DISTINCT: lambda *v: len(set(v)) == len(v),
        K.Z3_OP_NOT: lambda a: not a,
        K.Z3_OP_AND: lambda *v: all(v),
        K.Z3_OP_OR: lambda *v: any(v),
        K.Z3_OP_XOR: lambda a, b: a != b,
        K.Z3_OP_IMPLIES: lambda a, b: (not a) or b,
        K.Z3_OP_BAND: lambda *v: _fold(v, lambda x, y: x & y),
        K.Z3_OP_BOR: lambda *v: _fold(v, lambda x, y: x | y),
        K.Z3_OP_BXOR: lambda *v: _fold(v, lambda x, y: x ^ y),
        K.Z3_OP_BNOT: lambda a: ~a & mask,
        K.Z3_OP_BNEG: lambda a: -a & mask,
        K.Z3_OP_BADD: lambda *v: sum(v) & mask,
        K.Z3_OP_BSUB: lambda a, b: (a - b) & mask,
        K.Z3_OP_BMUL: lambda *v: _fold(v, lambda x, y: x * y & mask),
        K.Z3_OP_ULEQ: lambda a, b: a <= b,
        K.Z3_OP_ULT: lambda a, b: a < b,
        K.Z3_OP_UGEQ: lambda a, b: a >= b,
        K.Z3_OP_UGT: lambda a, b: a > b,
        K.Z3_OP_SLEQ: lambda a, b: _signed(a, child_width) <= _signed(b, child_width),
        K.Z3_OP_SLT: lambda a, b: _signed(a, child_width) < _signed(b, child_width),
        K.Z3_OP_SGEQ: lambda a, b: _signed(a, child_width) >= _signed(b, child_width),
        K.Z3_OP_SGT: lambda a, b: _signed(a, child_width) > _signed(b, child_width),
        K.Z3_OP_BSHL: lambda a, b: (a << b) & mask if b < width else 0,
        K.Z3_OP_BLSHR: lambda a, b: a >> b if b < width else 0,
        K.Z3_OP_BASHR: lambda a, b: (_signed(a, width) >> min(b, width)) & mask,
        K.Z3_OP_BCOMP: lambda a, b: int(a == b),
    }
    if kind in simple:
        return simple[kind]
    if kind == K.Z3_OP_CONCAT:
        return _concat([k.size() for k in kids])
    if kind == K.Z3_OP_EXTRACT:
        hi, lo = params
        return lambda a: a >> lo & _mask(hi - lo + 1)
    if kind == K.Z3_OP_ZERO_EXT:
        return lambda a: a
    if kind == K.Z3_OP_SIGN_EXT:
        return lambda a: _signed(a, child_width) & mask
    return None


def _fold(values, op):
    out = values[0]
    for v in values[1:]:
        out = op(out, v)
    return out


def _by_z3(term):
    """Evaluate this node with Z3 on numeral children (operators without a fast path)."""
    decl, kids = term.decl(), term.children()

    def run(*values):
        args = [z3.BoolVal(v) if z3.is_bool(k) else z3.BitVecVal(v, k.size()) for v, k in zip(values, kids)]
        return _value(z3.simplify(decl(*args)))
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
        self.steps = []
        self.constants: dict[int, object] = {}
        for slot, term in enumerate(order):
            if z3.is_const(term) and term.decl().kind() == K.Z3_OP_UNINTERPRETED:
                self.variables[term.decl().name()] = slot
            elif not term.children():
                self.constants[slot] = _value(term)
            else:
                run = _fast(term) or _by_z3(term)
                self.steps.append((slot, run, tuple(index[k.get_id()] for k in term.children())))
        self.size = len(order)
        self.outputs = [index[t.get_id()] for t in terms.values()]
        self.slot_of = index

    def run(self, values: dict) -> dict:
        """{term name: value} for {variable name: value} (missing variables are 0)."""
        slots = self.evaluate(values)
        return {name: slots[i] for name, i in zip(self.names, self.outputs)}

    def evaluate(self, values: dict) -> list:
        slots = [None] * self.size
        for slot, value in self.constants.items():
            slots[slot] = value
        for name, slot in self.variables.items():
            slots[slot] = values.get(name, 0)
        for slot, run, args in self.steps:
            slots[slot] = run(*[slots[a] for a in args])
        return slots
