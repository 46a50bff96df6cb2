"""Z3 term constructors with less Python overhead, and a Symbolic backend built on them.

z3's Python API spends most of its time coercing and checking arguments, and its wrappers
check Z3's error code after every C call: building the activity conditions of 65536
elements takes 4 s with it and well under 1 s with these. They call the same C functions,
so they build the very same (hash-consed) terms: `FastSymbolic` gives term-for-term what
`spec.bv.Symbolic` gives (a test checks it), only sooner; the one difference is that a
conjunction or disjunction of a single term is that term. Every term is wrapped in a z3
reference (a subclass of z3's own, reference counted the same way), and a constructor that
fails (a NULL term) raises Z3's error.
"""

from __future__ import annotations

import z3
from z3 import z3core as C

from spec.bv import Symbolic, _index

_CTX = z3.main_ctx()
_REF = _CTX.ref()


def _raw(function):
    """The ctypes entry point behind a z3core function (which adds an error check per call)."""
    try:
        return function.__defaults__[-1].f
    except (AttributeError, IndexError, TypeError):
        return function


_inc_ref, _dec_ref = _raw(C.Z3_inc_ref), _raw(C.Z3_dec_ref)
_mk_and, _mk_or, _mk_not, _mk_eq = _raw(C.Z3_mk_and), _raw(C.Z3_mk_or), _raw(C.Z3_mk_not), _raw(C.Z3_mk_eq)
_mk_ult, _mk_sle, _mk_extract = _raw(C.Z3_mk_bvult), _raw(C.Z3_mk_bvsle), _raw(C.Z3_mk_extract)
_mk_ite, _mk_numeral = _raw(C.Z3_mk_ite), _raw(C.Z3_mk_unsigned_int64)


def _made(ast):
    if not ast:
        message = C.Z3_get_error_msg(_REF, C.Z3_get_error_code(_REF))
        raise z3.Z3Exception(message.decode() if isinstance(message, bytes) else message)
    return ast


class _Lean:
    """Reference counting as z3.AstRef does it, without the per-call error checks."""

    ast = None

    def __init__(self, ast, ctx=None):
        self.ast = _made(ast)
        self.ctx = _CTX
        _inc_ref(_REF, ast)

    def __del__(self):
        if self.ast is not None and _dec_ref is not None and self.ctx.ref() is not None:
            _dec_ref(_REF, self.ast)
            self.ast = None


class _LeanBool(_Lean, z3.BoolRef):
    pass


class _LeanBitVec(_Lean, z3.BitVecRef):
    pass


class _LeanNumeral(_Lean, z3.BitVecNumRef):
    pass


_bool, _bv = _LeanBool, _LeanBitVec
_ONE_BIT = z3.BitVecVal(1, 1)


def _array(terms):
    return (z3.Ast * len(terms))(*[t.ast for t in terms])


# Terms made from the same arguments are the same term (hash-consing), so a table can hand
# back the one made before instead of making it again: the proofs build each element's read
# and activity several times (step per tail policy, a twin pre-state that shares the register
# file, the spec). Entries hold their arguments, so the pointers in the keys stay valid.
_MEMO: dict = {}


def clear_memo() -> None:
    """Forget the kept terms (between configurations: they hold large terms alive)."""
    _MEMO.clear()


def _kept(key, make, *keep):
    found = _MEMO.get(key)
    if found is None:
        found = _MEMO[key] = (make(), keep)
    return found[0]


def _connective(name: str, make, empty: bool, terms) -> z3.BoolRef:
    """An n-ary `and`/`or`: of none, its unit; of one term, that term (strict SMT-LIB
    readers reject a 1-ary one); of two, kept in the table."""
    if len(terms) < 2:
        return terms[0] if terms else z3.BoolVal(empty)
    if len(terms) == 2:
        a, b = terms
        return _kept((name, a.ast.value, b.ast.value), lambda: _bool(make(_REF, 2, _array(terms))), a, b)
    return _bool(make(_REF, len(terms), _array(terms)))


def and_(*terms) -> z3.BoolRef:
    """Conjunction (see `_connective`)."""
    return _connective("and", _mk_and, True, terms)


def or_(*terms) -> z3.BoolRef:
    """Disjunction (see `_connective`)."""
    return _connective("or", _mk_or, False, terms)


def same(a, b) -> bool:
    """The same term (`a.eq(b)`: hash-consed terms of one context are equal iff identical)."""
    return a.ast.value == b.ast.value and a.ctx is b.ctx


def not_(term) -> z3.BoolRef:
    return _bool(_mk_not(_REF, term.ast))


def eq(a, b):
    return _kept(("eq", a.ast.value, b.ast.value), lambda: _bool(_mk_eq(_REF, a.ast, b.ast)), a, b)


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
    made = _LeanNumeral(_mk_numeral(_REF, value, _SORTS[width].ast))
    if len(_NUMERALS) < 1 << 20:
        _NUMERALS[key] = made
    return made


def ult(a, b) -> z3.BoolRef:
    return _kept(("ult", a.ast.value, b.ast.value), lambda: _bool(_mk_ult(_REF, a.ast, b.ast)), a, b)


def extract(value, hi: int, lo: int) -> z3.BitVecRef:
    return _bv(_mk_extract(_REF, hi, lo, value.ast))


def ite(cond, a, b):
    made = _mk_ite(_REF, cond.ast, a.ast, b.ast)
    if isinstance(a, z3.BitVecRef):
        return _bv(made)
    if isinstance(a, z3.BoolRef):
        return _bool(made)
    return z3.z3._to_expr_ref(_made(made), _CTX)


def sle(a, b) -> z3.BoolRef:
    """Signed a <= b."""
    return _bool(_mk_sle(_REF, a.ast, b.ast))


def bit_set(value, i: int) -> z3.BoolRef:
    """Bit i of value is 1 (the same term as `Extract(i, i, value) == 1`)."""
    return eq(extract(value, i, i), _ONE_BIT)


def bits(value, count: int) -> list:
    """Bits 0 .. count-1 of value, each as `bit_set`."""
    made = _kept(("bits", value.ast.value, count), lambda: [bit_set(value, i) for i in range(count)], value)
    return list(made)


def split(value, width: int, count: int) -> list:
    """The first count width-bit fields of value, lowest first."""
    made = _kept(("split", value.ast.value, width, count),
                 lambda: [extract(value, i * width + width - 1, i * width) for i in range(count)], value)
    return list(made)


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
        return bits(value, count)

    @staticmethod
    def split(value, width: int, count: int) -> list:
        return split(value, width, count)

    @staticmethod
    def read(regs, index):
        return z3.Select(regs, _index(index))
