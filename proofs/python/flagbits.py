"""Values a traced unit computes from the active flags alone, as Z3 Booleans over the flags.

A mask packed into an int (`bits |= 1 << k` where lane k is active, then `bits >> i & 1`), a
count of active lanes, a flag turned into 0 or 1 and compared: such a value depends on the
flags and constants only (proofs/python/trace.py: `Term.flag_only`), so a condition computed
from it is a *structural* condition, a Boolean over the flags (proofs/python/cutpoint.py).
`FlagBits` writes it as one: each value as its list of bits, least significant first, each a
Python bool or a Z3 Boolean, simplified as they are built (`c ? x : x` is x, `c ? 1 : 0` is
c, a bit or'ed with a known 1 is 1), so that the packed mask's bit i is the flag of lane i
itself, not a chain through every lane. An op without a bitwise rule (a multiply, a divide,
a shift by a computed amount) is computed on Z3 bit-vectors of the bits (the same value).
"""

from __future__ import annotations

import z3

from vredmax.proofs.python.trace import BOOL, Term, apply_op
from vredmax.spec.bv import Z3Elements


def _not(a):
    if a is True or a is False:
        return not a
    return z3.Not(a)


def _and(a, b):
    if a is False or b is False:
        return False
    if a is True:
        return b
    if b is True or a is b:
        return a
    return z3.And(a, b)


def _or(a, b):
    if a is True or b is True:
        return True
    if a is False:
        return b
    if b is False or a is b:
        return a
    return z3.Or(a, b)


def _xor(a, b):
    if a is False:
        return b
    if b is False:
        return a
    if a is True:
        return _not(b)
    if b is True:
        return _not(a)
    if a is b:
        return False
    return z3.Xor(a, b)


def _ite(c, a, b):
    if c is True:
        return a
    if c is False or a is b:
        return b
    if a is True and b is False:
        return c
    if a is False and b is True:
        return z3.Not(c)
    if a is True:
        return _or(c, b)
    if b is False:
        return _and(c, a)
    return z3.If(c, _z3(a), _z3(b))


def _z3(bit):
    return z3.BoolVal(bit) if bit is True or bit is False else bit


def _add(xs, ys, carry=False):
    """Ripple-carry sum of two bit lists of one width (the carry out dropped)."""
    out = []
    for x, y in zip(xs, ys):
        out.append(_xor(_xor(x, y), carry))
        carry = _or(_and(x, y), _and(carry, _xor(x, y)))
    return out


class FlagBits:
    """`condition(node)`: a structural condition node as a Z3 Boolean over `flags` (the Z3
    Booleans the flag leaves stand for); `bits(node)`: a flag-only value node's bits."""

    def __init__(self, flags: list):
        self.flags = flags
        self._bits: dict = {}  # id(value node) -> its bits
        self._conds: dict = {}  # id(condition node) -> a bool or a Z3 Boolean

    def condition(self, node: Term):
        found = self._conds.get(id(node))
        if found is None:
            self._build(node)
            found = self._conds[id(node)]
        return _z3(found)

    def bits(self, node: Term) -> list:
        if id(node) not in self._bits:
            self._build(node)
        return self._bits[id(node)]

    def _build(self, root: Term):
        stack = [(root, False)]
        while stack:
            node, ready = stack.pop()
            done = self._conds if node.width == BOOL else self._bits
            if id(node) in done:
                continue
            if not ready:
                stack.append((node, True))
                stack.extend((a, False) for a in node.args)
                continue
            if node.width == BOOL:
                self._conds[id(node)] = self._condition_of(node)
            else:
                self._bits[id(node)] = self._value_of(node)

    def _arg(self, a):
        return self._conds[id(a)] if a.width == BOOL else self._bits[id(a)]

    def _condition_of(self, node: Term):
        op, args = node.op, [self._arg(a) for a in node.args]
        if op == "flag":
            return self.flags[node.param]
        if op == "bool":
            return bool(node.param)
        if op == "and_":
            return _and(*args)
        if op == "or_":
            return _or(*args)
        if op == "not_":
            return _not(args[0])
        if op == "ite":
            return _ite(*args)
        if op in ("eq", "ne"):
            same = True
            for x, y in zip(*args):
                same = _and(same, _not(_xor(x, y)))
                if same is False:
                    break
            return same if op == "eq" else _not(same)
        # an ordered comparison: on Z3 bit-vectors
        return z3.simplify(apply_op(_Z3_OPS, op, None, BOOL, [_vector(a) for a in args]))

    def _value_of(self, node: Term) -> list:
        op, param, width = node.op, node.param, node.width
        if op == "const":
            return [bool(param >> k & 1) for k in range(width)]
        args = [self._arg(a) for a in node.args]
        if op == "ite":
            c, a, b = args
            return [_ite(c, x, y) for x, y in zip(a, b)]
        if op in ("bor", "band", "xor"):
            f = {"bor": _or, "band": _and, "xor": _xor}[op]
            return [f(x, y) for x, y in zip(*args)]
        if op == "bnot":
            return [_not(x) for x in args[0]]
        if op == "add":
            return _add(args[0], args[1])
        if op == "sub":  # a + ~b + 1
            return _add(args[0], [_not(y) for y in args[1]], True)
        if op == "neg":
            return _add([False] * width, [_not(y) for y in args[0]], True)
        if op == "extract":
            hi, lo = param
            return args[0][lo : hi + 1]
        if op == "concat":
            return args[1] + args[0]
        if op == "zext":
            return args[0] + [False] * (width - len(args[0]))
        if op == "sext":
            return args[0] + [args[0][-1]] * (width - len(args[0]))
        if op in ("shl", "lshr", "ashr") and param is not None:
            a = args[0]
            n = min(param, width)
            if op == "shl":
                return [False] * n + a[: width - n]
            fill = a[-1] if op == "ashr" else False
            return a[n:] + [fill] * n
        # no bitwise rule: on Z3 bit-vectors, then read back bit by bit
        vector = apply_op(_Z3_OPS, op, param, width, [_vector(a) if type(a) is list else a for a in args])
        vector = z3.simplify(vector)
        return [_bit(vector, k) for k in range(width)]


def _vector(bits: list):
    """A bit list as a Z3 bit-vector (least significant bit first)."""
    parts = [z3.If(_z3(b), z3.BitVecVal(1, 1), z3.BitVecVal(0, 1)) for b in reversed(bits)]
    return z3.simplify(parts[0] if len(parts) == 1 else z3.Concat(*parts))


def _bit(vector, k: int):
    bit = z3.simplify(z3.Extract(k, k, vector) == 1)
    return bool(z3.is_true(bit)) if z3.is_true(bit) or z3.is_false(bit) else bit


_Z3_OPS = Z3Elements(1)  # apply_op takes it to each node's width
