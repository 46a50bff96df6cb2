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


# Cheap questions to Z3. Each question through its Python API costs microseconds (`t.size()`,
# `t.decl().kind()` 20 us; z3core's checked wrappers 2-5 us), and a register's bytes ask them by
# the hundred thousand, of the same hash-consed terms again and again: each term's answers are
# kept (`Facts`), keyed by its pointer. An entry holds its term, so that the pointer stays its own.
_MAIN = z3.main_ctx()
_FACTS: dict = {}
FACTS_LIMIT = 1 << 21  # entries kept before the table starts again (a cache: any subset is right)


class Facts:
    """What Z3 says of one term: its AST kind, its operation (-1 for no application), its
    bit-vector width (None for another sort), its value if it is a constant (a bit-vector
    numeral's int, true's or false's bool, else None); its int parameters and bit-vector arguments
    asked when first wanted."""

    __slots__ = ("term", "ast_kind", "op", "width", "value", "_params", "_args", "_children", "extracts")

    def __init__(self, t):
        ctx, ast = t.ctx_ref(), t.as_ast()
        self.term = t
        self.ast_kind = C.Z3_get_ast_kind(ctx, ast)
        app = self.ast_kind == z3.Z3_APP_AST
        self.op = C.Z3_get_decl_kind(ctx, C.Z3_get_app_decl(ctx, ast)) if app else -1
        sort = (
            C.Z3_get_sort(ctx, ast)
            if self.ast_kind in (z3.Z3_APP_AST, z3.Z3_NUMERAL_AST, z3.Z3_VAR_AST)
            else None
        )
        bv = sort is not None and C.Z3_get_sort_kind(ctx, sort) == z3.Z3_BV_SORT
        self.width = C.Z3_get_bv_sort_size(ctx, sort) if bv else None
        # the Python value of a constant: an int of a numeral, a bool of true or false
        self.value = None
        if self.ast_kind == z3.Z3_NUMERAL_AST and bv:
            known = fast.numeral_value(t)
            self.value = known if known is not None else int(C.Z3_get_numeral_string(ctx, ast))
        elif self.op in (z3.Z3_OP_TRUE, z3.Z3_OP_FALSE):
            self.value = self.op == z3.Z3_OP_TRUE
        self._params = self._args = self._children = None
        self.extracts: dict | None = None  # (hi, lo) -> Z3Terms.extract's answer, made once

    @property
    def params(self) -> tuple:
        if self._params is None:
            ctx, ast = self.term.ctx_ref(), self.term.as_ast()
            decl = C.Z3_get_app_decl(ctx, ast)
            self._params = tuple(
                C.Z3_get_decl_int_parameter(ctx, decl, i)
                for i in range(C.Z3_get_decl_num_parameters(ctx, decl))
            )
        return self._params

    def arg(self, i: int):
        """Argument i, a bit-vector."""
        return self.bv_args()[i] if self._args is None else self._args[i]

    def bv_args(self) -> tuple:
        """The arguments of an application whose arguments are bit-vectors."""
        if self._args is None:
            t = self.term
            ctx, ast = t.ctx_ref(), t.as_ast()
            self._args = tuple(
                z3.BitVecRef(C.Z3_get_app_arg(ctx, ast, i), t.ctx)
                for i in range(C.Z3_get_app_num_args(ctx, ast))
            )
        return self._args

    def children(self) -> tuple:
        """The arguments of an application, of any sort (`t.children()`, asked once)."""
        if self._children is None:
            t = self.term
            ctx, ast = t.ctx_ref(), t.as_ast()
            app = self.ast_kind == z3.Z3_APP_AST
            count = C.Z3_get_app_num_args(ctx, ast) if app else 0
            self._children = tuple(
                z3.z3._to_expr_ref(C.Z3_get_app_arg(ctx, ast, i), t.ctx) for i in range(count)
            )
        return self._children


def facts(t) -> Facts:
    if t.ctx is not _MAIN:
        return Facts(t)
    key = t.ast.value
    found = _FACTS.get(key)
    if found is None:
        if len(_FACTS) >= FACTS_LIMIT:
            _FACTS.clear()
        found = _FACTS[key] = Facts(t)
    return found


def size(t) -> int:
    return facts(t).width


def kind(t) -> int:
    """The operation of an application term (-1 for a numeral or a variable's other kinds)."""
    return facts(t).op


def int_params(t) -> tuple:
    """The int parameters of an application's operation (an Extract's hi and lo, an
    extension's width)."""
    return facts(t).params


def bv_arg(t, i: int):
    """Argument i of an application whose argument i is a bit-vector."""
    return facts(t).arg(i)


def is_numeral(t) -> bool:
    return facts(t).ast_kind == z3.Z3_NUMERAL_AST


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
        return facts(t).value

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
        `(vs2 + k) & 31` the 5-bit sum the spec's m.add makes (identical terms). Made once
        per term and bits (a register's bytes are cut again on every run of the code)."""
        info = facts(t)
        if lo == 0 and hi == info.width - 1:
            return t
        if info.extracts is None:
            info.extracts = {}
        found = info.extracts.get((hi, lo))
        if found is None:
            found = info.extracts[(hi, lo)] = self._extract(info, hi, lo)
        return found

    def _extract(self, info, hi, lo):
        while True:
            t, width, op = info.term, info.width, info.op
            if lo == 0 and hi == width - 1:
                return t
            if info.value is not None:
                return self.bv(info.value >> lo, hi - lo + 1)
            if op == z3.Z3_OP_EXTRACT:
                low = info.params[1]
                info, hi, lo = facts(info.arg(0)), hi + low, lo + low
            elif op in (z3.Z3_OP_ZERO_EXT, z3.Z3_OP_SIGN_EXT) and hi < width - info.params[0]:
                info = facts(info.arg(0))
            elif op == z3.Z3_OP_ZERO_EXT and lo >= width - info.params[0]:
                return self.bv(0, hi - lo + 1)
            elif op == z3.Z3_OP_CONCAT:
                base = width
                for arg in info.bv_args():
                    part = facts(arg)
                    base -= part.width
                    if lo >= base and hi < base + part.width:
                        info, hi, lo = part, hi - base, lo - base
                        break
                else:
                    return fast.extract(t, hi, lo)
            elif op in _BITWISE or (lo == 0 and op in _LOW_BITS):
                return _rebuild(op, [self.extract(a, hi, lo) for a in info.bv_args()])
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
