"""Bit-vector terms of any width for the symbolic Python values (proofs/python/values.py).

Two backends with one interface: `Z3Terms` builds Z3 terms (the monolithic proof, the machine
values of a whole instruction), `TraceTerms` builds the hash-consed DAG of proofs/python/trace.py
(the cut-point method), where a value of another width than SEW is one more node that the
cut-point analysis inlines into its parents' cones. Every operation is the SMT-LIB one at the
width of its operands (which the caller has made equal); a comparison gives a Boolean term.
"""

from __future__ import annotations

import z3
from z3 import z3core as C

from vredmax.proofs.python import trace
from vredmax.proofs.python.trace import BOOL, INTERNAL_FILES, Term
from vredmax.spec import z3fast as fast

INTERNAL_FILES.add(__import__("os").path.abspath(__file__))

# name -> the trace op of the same meaning (trace.apply_op evaluates both kinds of node)
UNSIGNED_COMPARE = {"ult": "ult", "ule": "ule"}
SIGNED_COMPARE = {"slt": "slt", "sle": "sle"}


# Cheap questions to Z3 (its Python API's `t.size()`, `t.decl().kind()` cost 20 us each).
def _ast(t):
    return t.as_ast()


def _ctx(t):
    return t.ctx_ref()


def size(t) -> int:
    return C.Z3_get_bv_sort_size(_ctx(t), C.Z3_get_sort(_ctx(t), _ast(t)))


def kind(t) -> int:
    """The operation of an application term (-1 for a numeral or a variable's other kinds)."""
    ctx, ast = _ctx(t), _ast(t)
    if C.Z3_get_ast_kind(ctx, ast) != z3.Z3_APP_AST:
        return -1
    return C.Z3_get_decl_kind(ctx, C.Z3_get_app_decl(ctx, ast))


def int_params(t) -> tuple:
    """The int parameters of an application's operation (an Extract's hi and lo, an
    extension's width): its Python API's `t.params()` costs 200 us."""
    ctx, ast = _ctx(t), _ast(t)
    decl = C.Z3_get_app_decl(ctx, ast)
    return tuple(
        C.Z3_get_decl_int_parameter(ctx, decl, i) for i in range(C.Z3_get_decl_num_parameters(ctx, decl))
    )


def bv_arg(t, i: int):
    """Argument i of an application whose argument i is a bit-vector (`t.arg(i)` without its checks)."""
    return z3.BitVecRef(C.Z3_get_app_arg(_ctx(t), _ast(t), i), t.ctx)


def is_numeral(t) -> bool:
    return C.Z3_get_ast_kind(_ctx(t), _ast(t)) == z3.Z3_NUMERAL_AST


def _children(t):
    return t.children()


# Operations whose result's bits hi..lo depend only on their operands' bits hi..lo (bitwise),
# or on bits hi..0 (the ring operations, for lo = 0).
_BITWISE = {
    z3.Z3_OP_BAND: lambda a, b: a & b,
    z3.Z3_OP_BOR: lambda a, b: a | b,
    z3.Z3_OP_BXOR: lambda a, b: a ^ b,
    z3.Z3_OP_BNOT: lambda a: ~a,
}
_LOW_BITS = {
    z3.Z3_OP_BADD: lambda a, b: a + b,
    z3.Z3_OP_BSUB: lambda a, b: a - b,
    z3.Z3_OP_BMUL: lambda a, b: a * b,
    z3.Z3_OP_BNEG: lambda a: -a,
}


def _rebuild(op, args):
    make = _BITWISE.get(op) or _LOW_BITS[op]
    result = make(*args[:2]) if len(args) >= 2 else make(args[0])
    for extra in args[2:]:
        result = make(result, extra)
    return result


class Z3Terms:
    """Terms as Z3 expressions (built with spec/z3fast.py's constructors where it has them)."""

    name = "z3"

    def width(self, t) -> int:
        return BOOL if isinstance(t, z3.BoolRef) else size(t)

    def bv(self, value: int, width: int):
        return fast.numeral(value & ((1 << width) - 1), width)

    def boolean(self, value: bool):
        return z3.BoolVal(bool(value))

    def value_of(self, t):
        """The Python value of a constant term (int, or bool for a condition), else None."""
        if isinstance(t, z3.BoolRef):
            value = C.Z3_get_bool_value(_ctx(t), _ast(t))
            return True if value == z3.Z3_L_TRUE else False if value == z3.Z3_L_FALSE else None
        if is_numeral(t):
            known = fast.numeral_value(t)
            return known if known is not None else t.as_long()
        return None

    def zext(self, t, width):
        have = size(t)
        return t if width == have else z3.ZeroExt(width - have, t)

    def sext(self, t, width):
        have = size(t)
        return t if width == have else z3.SignExt(width - have, t)

    def extract(self, t, hi, lo):
        """Bits hi..lo of t, pushed through the extensions, extractions, concatenations and
        (where truncation commutes with them) the arithmetic that symbolic Python ints build:
        so that `x >> 8 & 0xff` of a register is the Extract the spec's split makes, and
        `(vs2 + k) & 31` the 5-bit sum the spec's m.add makes (identical terms)."""
        while True:
            width = size(t)
            if lo == 0 and hi == width - 1:
                return t
            if is_numeral(t):
                return self.bv(self.value_of(t) >> lo, hi - lo + 1)
            op = kind(t)
            if op == z3.Z3_OP_EXTRACT:
                low = int_params(t)[1]
                t, hi, lo = bv_arg(t, 0), hi + low, lo + low
            elif op in (z3.Z3_OP_ZERO_EXT, z3.Z3_OP_SIGN_EXT) and hi < width - int_params(t)[0]:
                t = bv_arg(t, 0)
            elif op == z3.Z3_OP_ZERO_EXT and lo >= width - int_params(t)[0]:
                return self.bv(0, hi - lo + 1)
            elif op == z3.Z3_OP_CONCAT:
                base = width
                for arg in _children(t):
                    base -= size(arg)
                    if lo >= base and hi < base + size(arg):
                        t, hi, lo = arg, hi - base, lo - base
                        break
                else:
                    return fast.extract(t, hi, lo)
            elif op in _BITWISE or (lo == 0 and op in _LOW_BITS):
                return _rebuild(op, [self.extract(a, hi, lo) for a in _children(t)])
            else:
                return fast.extract(t, hi, lo)

    def concat(self, hi, lo):
        return z3.Concat(hi, lo)

    def add(self, a, b):
        return a + b

    def sub(self, a, b):
        return a - b

    def mul(self, a, b):
        return a * b

    def band(self, a, b):
        for x, y in ((a, b), (b, a)):
            if is_numeral(y):
                value = self.value_of(y)
                if value == (1 << size(y)) - 1:
                    return x
                if value == 0:
                    return y
        return a & b

    def bor(self, a, b):
        for x, y in ((a, b), (b, a)):
            if is_numeral(y) and self.value_of(y) == 0:
                return x
        return a | b

    def xor(self, a, b):
        for x, y in ((a, b), (b, a)):
            if is_numeral(y) and self.value_of(y) == 0:
                return x
        return a ^ b

    def bnot(self, a):
        return ~a

    def neg(self, a):
        return -a

    def shl(self, a, n):
        return a << n

    def lshr(self, a, n):
        return z3.LShR(a, n)

    def ashr(self, a, n):
        return a >> n

    def udiv(self, a, b):
        return z3.UDiv(a, b)

    def urem(self, a, b):
        return z3.URem(a, b)

    def sdiv(self, a, b):
        return a / b

    def smod(self, a, b):
        return a % b  # z3: bvsmod (the sign of the divisor)

    def ult(self, a, b):
        return fast.ult(a, b)

    def ule(self, a, b):
        return z3.ULE(a, b)

    def slt(self, a, b):
        return a < b

    def sle(self, a, b):
        return fast.sle(a, b)

    def eq(self, a, b):
        return fast.eq(a, b)

    def ite(self, c, a, b):
        if fast.same(a, b):
            return a
        # c ? (d ? x : b) : b is (c and d) ? x : b: a guarded store of a guarded store
        if kind(a) == z3.Z3_OP_ITE and fast.same(a.arg(2), b):
            return fast.ite(fast.and_(c, a.arg(0)), a.arg(1), b)
        return fast.ite(c, a, b)

    def is_not_of(self, x, y) -> bool:
        """x is the term not(y)."""
        return kind(x) == z3.Z3_OP_NOT and fast.same(x.arg(0), y)

    def and_(self, a, b):
        return fast.and_(a, b)

    def or_(self, a, b):
        return fast.or_(a, b)

    def not_(self, a):
        return fast.not_(a)

    def to_z3(self, t):
        return t


class TraceTerms:
    """Terms as nodes of a proofs/python/trace.py Tracer (hash-consed)."""

    name = "trace"

    def __init__(self, tracer: trace.Tracer):
        self.tracer = tracer
        self.sew = tracer.sew

    def width(self, t: Term) -> int:
        return t.width

    def bv(self, value: int, width: int) -> Term:
        return self.tracer.const(value, width)

    def boolean(self, value: bool) -> Term:
        return self.tracer.boolean(bool(value))

    def value_of(self, t: Term):
        if t.op == "const":
            return t.param
        if t.op == "bool":
            return t.param
        return None

    def _make(self, op, args, param, width):
        return self.tracer.make(op, tuple(args), param, width)

    def zext(self, t, width):
        return t if width == t.width else self._make("zext", (t,), t.width, width)

    def sext(self, t, width):
        return t if width == t.width else self._make("sext", (t,), t.width, width)

    def extract(self, t, hi, lo):
        while t.op == "extract":
            low = t.param[1]
            t, hi, lo = t.args[0], hi + low, lo + low
        if t.op == "zext" and hi < t.param:
            t = t.args[0]
        if lo == 0 and hi == t.width - 1:
            return t
        if t.op == "const":
            return self.bv(t.param >> lo, hi - lo + 1)
        return self._make("extract", (t,), (hi, lo), hi - lo + 1)

    def concat(self, hi, lo):
        return self._make("concat", (hi, lo), lo.width, hi.width + lo.width)

    def _binary(op):
        def method(self, a, b):
            return self._make(op, (a, b), None, a.width)

        return method

    add, sub, mul = _binary("add"), _binary("sub"), _binary("mul")
    bor, xor = _binary("bor"), _binary("xor")

    def band(self, a, b):
        for x, y in ((a, b), (b, a)):
            if y.op == "const" and y.param == (1 << y.width) - 1:
                return x
        return self._make("band", (a, b), None, a.width)

    shl, lshr, ashr = _binary("shl"), _binary("lshr"), _binary("ashr")
    udiv, urem, sdiv, smod = _binary("udiv"), _binary("urem"), _binary("sdiv"), _binary("smod")

    def bnot(self, a):
        return self._make("bnot", (a,), None, a.width)

    def neg(self, a):
        return self._make("neg", (a,), None, a.width)

    def _compare(op):
        def method(self, a, b):
            if a is b:
                return self.tracer.boolean(op in ("ule", "sle", "eq"))
            # the operand width, so that the node can be evaluated at any SEW (trace.apply_op)
            return self._make(op, (a, b), None if a.width == self.sew else a.width, BOOL)

        return method

    ult, ule, slt, sle, eq = (
        _compare("ult"),
        _compare("ule"),
        _compare("slt"),
        _compare("sle"),
        _compare("eq"),
    )

    def ite(self, c, a, b):
        if a is b:
            return a
        value = self.value_of(c)
        if value is not None:
            return a if value else b
        return self._make("ite", (c, a, b), None, a.width)

    def and_(self, a, b):
        return self._make("and_", (a, b), None, BOOL)

    def or_(self, a, b):
        return self._make("or_", (a, b), None, BOOL)

    def not_(self, a):
        if a.op == "not_":
            return a.args[0]
        return self._make("not_", (a,), None, BOOL)

    def is_not_of(self, x, y) -> bool:
        return x.op == "not_" and x.args[0] is y
