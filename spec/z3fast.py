"""Z3 term constructors with less Python overhead, and a Symbolic backend built on them.

z3's Python API spends most of its time coercing and checking arguments: building the
activity conditions of 65536 elements takes 4 s with it and 1 s with these. They call the
same C functions, so they build the very same (hash-consed) terms: `FastSymbolic` gives
term-for-term what `spec.bv.Symbolic` gives (a test checks it), only sooner; the one
difference is that a conjunction or disjunction of a single term is that term. Every
intermediate term is wrapped in a z3 reference, so reference counting stays safe.
"""

from __future__ import annotations

import z3
from z3 import z3core as C

from spec.bv import Symbolic, _index

_CTX = z3.main_ctx()
_ONE_BIT = z3.BitVecVal(1, 1)


def _ref():
    return _CTX.ref()


def _bool(ast) -> z3.BoolRef:
    return z3.BoolRef(ast, _CTX)


def _bv(ast) -> z3.BitVecRef:
    return z3.BitVecRef(ast, _CTX)


def _array(terms):
    return (z3.Ast * len(terms))(*[t.as_ast() for t in terms])


def and_(*terms) -> z3.BoolRef:
    """Conjunction; of one term, that term (strict SMT-LIB readers reject a 1-ary `and`)."""
    if len(terms) < 2:
        return terms[0] if terms else z3.BoolVal(True)
    return _bool(C.Z3_mk_and(_ref(), len(terms), _array(terms)))


def or_(*terms) -> z3.BoolRef:
    """Disjunction; of one term, that term."""
    if len(terms) < 2:
        return terms[0] if terms else z3.BoolVal(False)
    return _bool(C.Z3_mk_or(_ref(), len(terms), _array(terms)))


def not_(term) -> z3.BoolRef:
    return _bool(C.Z3_mk_not(_ref(), term.as_ast()))


def eq(a, b):
    return _bool(C.Z3_mk_eq(_ref(), a.as_ast(), b.as_ast()))


_SORTS: dict = {}
_NUMERALS: dict = {}


def numeral(value: int, width: int) -> z3.BitVecRef:
    """A bit-vector numeral; small ones are kept (element indices recur by the thousand)."""
    key = (value, width)
    found = _NUMERALS.get(key)
    if found is not None:
        return found
    if not 0 <= value < 1 << 64:
        return z3.BitVecVal(value, width)
    if width not in _SORTS:
        _SORTS[width] = z3.BitVecSort(width, _CTX)
    made = _bv(C.Z3_mk_unsigned_int64(_ref(), value, _SORTS[width].ast))
    if len(_NUMERALS) < 1 << 20:
        _NUMERALS[key] = made
    return made


def ult(a, b) -> z3.BoolRef:
    return _bool(C.Z3_mk_bvult(_ref(), a.as_ast(), b.as_ast()))


def extract(value, hi: int, lo: int) -> z3.BitVecRef:
    return _bv(C.Z3_mk_extract(_ref(), hi, lo, value.as_ast()))


def ite(cond, a, b):
    return z3.z3._to_expr_ref(C.Z3_mk_ite(_ref(), cond.as_ast(), a.as_ast(), b.as_ast()), _CTX)


def sle(a, b) -> z3.BoolRef:
    """Signed a <= b."""
    return _bool(C.Z3_mk_bvsle(_ref(), a.as_ast(), b.as_ast()))


def bit_set(value, i: int) -> z3.BoolRef:
    """Bit i of value is 1 (the same term as `Extract(i, i, value) == 1`)."""
    return eq(extract(value, i, i), _ONE_BIT)


def select(array, index) -> z3.ExprRef:
    return z3.Select(array, index)


class FastSymbolic(Symbolic):
    """`spec.bv.Symbolic` with faster constructors for the per-element operations."""

    @staticmethod
    def all_(*conds):
        return and_(*conds)

    @staticmethod
    def any_(*conds):
        return or_(*conds)

    @staticmethod
    def ult(a, b):
        if isinstance(a, int):
            a = numeral(a, b.size())
        if isinstance(b, int):
            b = numeral(b, a.size())
        return ult(a, b)

    @staticmethod
    def const(value: int, width: int):
        return numeral(value & ((1 << width) - 1), width)

    @staticmethod
    def bits(value, count: int) -> list:
        return [bit_set(value, i) for i in range(count)]

    @staticmethod
    def split(value, width: int, count: int) -> list:
        return [extract(value, i * width + width - 1, i * width) for i in range(count)]

    @staticmethod
    def read(regs, index):
        return z3.Select(regs, _index(index))
