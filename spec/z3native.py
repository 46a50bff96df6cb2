"""Z3 term constructors with less Python overhead: the fast path of spec/z3fast.py.

z3's Python API spends most of its time coercing and checking arguments: its ctypes entry
points convert every argument and result through Python-level classes, and its wrappers
check Z3's error code after every C call. Building the activity conditions of 65536
elements takes seconds with it. These constructors call the same C functions through
prototypes of their own (plain pointers in and out), so they build the very same
(hash-consed) terms as the public API (spec/z3public.py); the one difference is that a
conjunction or disjunction of a single term is that term. Every term is wrapped in a z3
reference (a subclass of z3's own, reference counted the same way), and a constructor that
fails (a NULL term) raises Z3's error.

This relies on z3's internals: each `z3core.Z3_*` wrapper keeps its ctypes entry point as its
last default argument (`__defaults__[-1].f`), `z3types.Ast` is a `ctypes.c_void_p`, a context's
`ref()` and a reference's `.ast` are such pointers. `shape_problem()` checks that shape before
any entry point is used (importing this module raises `ShapeError` if it is not there), and
`self_test()` compares terms built both ways; spec/z3fast.py falls back to the public API when
either fails.
"""

from __future__ import annotations

import ctypes
from typing import Any, Callable, TypeVar, cast

import z3
from z3 import z3core as C
from z3.z3types import Ast


_T = TypeVar("_T")


class ShapeError(ImportError):
    """This z3 is not shaped as the fast path needs."""


NEEDED = (
    "Z3_inc_ref",
    "Z3_dec_ref",
    "Z3_mk_and",
    "Z3_mk_or",
    "Z3_mk_not",
    "Z3_mk_eq",
    "Z3_mk_bvult",
    "Z3_mk_bvsle",
    "Z3_mk_extract",
    "Z3_mk_ite",
    "Z3_mk_unsigned_int64",
    "Z3_mk_string_symbol",
    "Z3_mk_const",
    "Z3_get_error_msg",
    "Z3_get_error_code",
)


def _entry_point(name: str) -> Any:
    """The ctypes function behind z3core's wrapper `name`, or None if it is not where expected."""
    defaults = getattr(getattr(C, name, None), "__defaults__", None) or ()
    entry = getattr(defaults[-1], "f", None) if defaults else None
    if isinstance(entry, ctypes._CFuncPtr) and getattr(entry, "__name__", None) == name:  # type: ignore[attr-defined]
        return entry
    return None


def shape_problem() -> str | None:
    """What differs from the shape this module relies on (None: nothing)."""
    for name in NEEDED:
        if _entry_point(name) is None:
            return f"z3core.{name} does not keep its C entry point where expected"
    if not (isinstance(Ast, type) and issubclass(Ast, ctypes.c_void_p)):
        return "z3types.Ast is not a ctypes pointer"
    reference = z3.main_ctx().ref()
    if not isinstance(getattr(reference, "value", None), int):
        return "a context's ref() is not a pointer"
    probe = z3.BoolVal(True)
    if not isinstance(getattr(probe, "ast", None), Ast) or not hasattr(probe, "ctx"):
        return "a z3 reference does not hold its pointer in .ast"
    return None


_PROBLEM = shape_problem()
if _PROBLEM is not None:
    raise ShapeError(_PROBLEM)

_CTX = z3.main_ctx()
_REF = _CTX.ref()
_CTX_PTR = _REF.value
_P, _U, _U64 = ctypes.c_void_p, ctypes.c_uint, ctypes.c_uint64


def _native(name: str, *argtypes: Any, restype: Any = _P) -> Callable[..., Any]:
    """Z3's C function `name` with plain ctypes types: pointers go in and come out as ints.
    (The address is taken from z3core's own entry point, behind its checking wrapper.)"""
    entry = _entry_point(name)
    return ctypes.CFUNCTYPE(restype, *argtypes)(ctypes.cast(entry, _P).value)  # type: ignore[arg-type]  # self_test checks it


_inc_ref = _native("Z3_inc_ref", _P, _P, restype=None)
_dec_ref = _native("Z3_dec_ref", _P, _P, restype=None)
_mk_and, _mk_or = _native("Z3_mk_and", _P, _U, _P), _native("Z3_mk_or", _P, _U, _P)
_mk_not, _mk_eq = _native("Z3_mk_not", _P, _P), _native("Z3_mk_eq", _P, _P, _P)
_mk_ult, _mk_sle = _native("Z3_mk_bvult", _P, _P, _P), _native("Z3_mk_bvsle", _P, _P, _P)
_mk_extract = _native("Z3_mk_extract", _P, _U, _U, _P)
_mk_ite = _native("Z3_mk_ite", _P, _P, _P, _P)
_mk_numeral = _native("Z3_mk_unsigned_int64", _P, _U64, _P)
_mk_symbol = _native("Z3_mk_string_symbol", _P, ctypes.c_char_p)
_mk_const = _native("Z3_mk_const", _P, _P, _P)


class _Pointer(Ast):  # type: ignore[misc]  # (z3types ships no types)
    """z3's `Ast` handle, made without its Python-level __init__."""

    __init__ = ctypes.c_void_p.__init__


def _made(pointer: int | None) -> int:
    if not pointer:
        message = C.Z3_get_error_msg(_REF, C.Z3_get_error_code(_REF))
        raise z3.Z3Exception(message.decode() if isinstance(message, bytes) else message)
    return pointer


class _Lean:
    """Reference counting as z3.AstRef does it, on a pointer (an int) from `_native`."""

    ast: Any = None

    def __init__(self, pointer: int, ctx: object = None) -> None:
        self.ast = _Pointer(_made(pointer))
        self.ctx = _CTX
        _inc_ref(_CTX_PTR, pointer)

    def __del__(self, _dec_ref: Callable[..., Any] = _dec_ref, _context: int = _CTX_PTR) -> None:
        # (bound as defaults: at interpreter exit the module's globals may be gone first)
        if self.ast is not None and self.ctx.ref() is not None:
            _dec_ref(_context, self.ast.value)
            self.ast = None


class _LeanBool(_Lean, z3.BoolRef):
    pass


class _LeanBitVec(_Lean, z3.BitVecRef):
    pass


class _LeanNumeral(_Lean, z3.BitVecNumRef):
    pass


_bool, _bv = _LeanBool, _LeanBitVec
_ONE_BIT = z3.BitVecVal(1, 1)


def _array(terms: tuple[z3.AstRef, ...]) -> Any:
    return (_P * len(terms))(*[t.ast.value for t in terms])


# Terms made from the same arguments are the same term (hash-consing), so a table can hand
# back the one made before instead of making it again: the proofs build each element's read
# and activity several times (step per tail policy, a twin pre-state that shares the register
# file, the spec). Entries hold their arguments, so the pointers in the keys stay valid.
_MEMO: dict[tuple[Any, ...], tuple[Any, ...]] = {}  # key -> (the term, what it holds)


def clear_memo() -> None:
    """Forget the kept terms (between configurations: they hold large terms alive)."""
    _MEMO.clear()


def _kept(key: tuple[Any, ...], make: Callable[[], _T], *keep: object) -> _T:
    found = _MEMO.get(key)
    if found is None:
        found = _MEMO[key] = (make(), keep)
    return cast(_T, found[0])


def _binary(name: str, make: Callable[..., Any], wrap: Callable[[int], _T], a: z3.AstRef, b: z3.AstRef) -> _T:
    """`make(a, b)`, kept in the table: the one made before if there is one."""
    key = (name, a.ast.value, b.ast.value)
    found = _MEMO.get(key)
    if found is None:
        found = _MEMO[key] = (wrap(make(_CTX_PTR, key[1], key[2])), a, b)
    return cast(_T, found[0])


_PAIR = (_P * 2)()  # the arguments of a 2-ary and/or (one call at a time)


def _make_pair(make: Callable[..., Any]) -> Callable[[int, int, int], Any]:
    def pair(ctx: int, a: int, b: int) -> Any:
        _PAIR[0], _PAIR[1] = a, b
        return make(ctx, 2, _PAIR)

    return pair


_and2, _or2 = _make_pair(_mk_and), _make_pair(_mk_or)


def _connective(
    name: str, make: Callable[..., Any], pair: Callable[..., Any], empty: bool, terms: tuple[z3.BoolRef, ...]
) -> z3.BoolRef:
    """An n-ary `and`/`or`: of none, its unit; of one term, that term (strict SMT-LIB
    readers reject a 1-ary one); of two, kept in the table."""
    if len(terms) < 2:
        return terms[0] if terms else z3.BoolVal(empty)
    if len(terms) == 2:
        return _binary(name, pair, _bool, *terms)
    return _bool(make(_CTX_PTR, len(terms), _array(terms)))


def and_(*terms: z3.BoolRef) -> z3.BoolRef:
    """Conjunction (see `_connective`)."""
    if len(terms) == 2:  # (the per-element case: the table first, without further calls)
        found = _MEMO.get(("and", terms[0].ast.value, terms[1].ast.value))
        if found is not None:
            return cast(z3.BoolRef, found[0])
    return _connective("and", _mk_and, _and2, True, terms)


def or_(*terms: z3.BoolRef) -> z3.BoolRef:
    """Disjunction (see `_connective`)."""
    if len(terms) == 2:
        found = _MEMO.get(("or", terms[0].ast.value, terms[1].ast.value))
        if found is not None:
            return cast(z3.BoolRef, found[0])
    return _connective("or", _mk_or, _or2, False, terms)


def same(a: z3.AstRef, b: z3.AstRef) -> bool:
    """The same term (`a.eq(b)`: hash-consed terms of one context are equal iff identical)."""
    return a.ast.value == b.ast.value and a.ctx is b.ctx


def not_(term: z3.BoolRef) -> z3.BoolRef:
    return _bool(_mk_not(_CTX_PTR, term.ast.value))


def eq(a: z3.BitVecRef, b: z3.BitVecRef) -> z3.BoolRef:
    return _binary("eq", _mk_eq, _bool, a, b)


_SORTS: dict[int, z3.BitVecSortRef] = {}
_NUMERALS: dict[tuple[int, int], z3.BitVecRef] = {}
_NUMERAL_VALUES: dict[int, int] = {}  # pointer -> value, for the numerals in _NUMERALS


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
    made = _LeanNumeral(_mk_numeral(_CTX_PTR, value, _SORTS[width].ast.value))
    if len(_NUMERALS) < 1 << 20:
        _NUMERALS[key] = made
        _NUMERAL_VALUES[made.ast.value] = value
    return made


def numeral_value(term: z3.ExprRef) -> int | None:
    """The value of a numeral that `numeral` keeps, else None (without asking Z3)."""
    return _NUMERAL_VALUES.get(term.ast.value)


def ult(a: z3.BitVecRef, b: z3.BitVecRef) -> z3.BoolRef:
    found = _MEMO.get(("ult", a.ast.value, b.ast.value))
    if found is not None:
        return cast(z3.BoolRef, found[0])
    return _binary("ult", _mk_ult, _bool, a, b)


def extract(value: z3.BitVecRef, hi: int, lo: int) -> z3.BitVecRef:
    return _bv(_mk_extract(_CTX_PTR, hi, lo, value.ast.value))


def ite(cond: z3.BoolRef, a: Any, b: Any) -> Any:
    made = _mk_ite(_CTX_PTR, cond.ast.value, a.ast.value, b.ast.value)
    if isinstance(a, z3.BitVecRef):
        return _bv(made)
    if isinstance(a, z3.BoolRef):
        return _bool(made)
    return z3.z3._to_expr_ref(_Pointer(_made(made)), _CTX)


def sle(a: z3.BitVecRef, b: z3.BitVecRef) -> z3.BoolRef:
    """Signed a <= b."""
    return _bool(_mk_sle(_CTX_PTR, a.ast.value, b.ast.value))


def booleans(prefix: str, count: int) -> list[z3.BoolRef]:
    """Boolean constants named prefix0 .. prefix{count-1} (as `z3.Bool` makes them)."""
    sort = z3.BoolSort(_CTX).ast.value
    return [
        _bool(_mk_const(_CTX_PTR, _mk_symbol(_CTX_PTR, f"{prefix}{i}".encode()), sort)) for i in range(count)
    ]


def bit_set(value: z3.BitVecRef, i: int) -> z3.BoolRef:
    """Bit i of value is 1 (the same term as `Extract(i, i, value) == 1`)."""
    return _bool(_mk_eq(_CTX_PTR, _mk_extract(_CTX_PTR, i, i, value.ast.value), _ONE_BIT.ast.value))


def bits(value: z3.BitVecRef, count: int) -> list[z3.BoolRef]:
    """Bits 0 .. count-1 of value, each as `bit_set`."""
    made = _kept(("bits", value.ast.value, count), lambda: [bit_set(value, i) for i in range(count)], value)
    return list(made)


def split(value: z3.BitVecRef, width: int, count: int) -> list[z3.BitVecRef]:
    """The first count width-bit fields of value, lowest first."""
    made = _kept(
        ("split", value.ast.value, width, count),
        lambda: [extract(value, i * width + width - 1, i * width) for i in range(count)],
        value,
    )
    return list(made)


def self_test() -> str | None:
    """Build a few terms with these constructors and with z3's public API: they must be the
    same terms (None), else what differs."""
    p, q = z3.Bool("vredmax_probe_p"), z3.Bool("vredmax_probe_q")
    a, b = z3.BitVec("vredmax_probe_a", 8), z3.BitVec("vredmax_probe_b", 8)
    pairs = [
        ("and", and_(p, q, p), z3.And(p, q, p)),
        ("or", or_(p, q), z3.Or(p, q)),
        ("not", not_(p), z3.Not(p)),
        ("eq", eq(a, b), a == b),
        ("ult", ult(a, b), z3.ULT(a, b)),
        ("sle", sle(a, b), a <= b),
        ("extract", extract(a, 5, 2), z3.Extract(5, 2, a)),
        ("ite", ite(p, a, b), z3.If(p, a, b)),
        ("numeral", numeral(200, 8), z3.BitVecVal(200, 8)),
        ("bit", bit_set(a, 3), z3.Extract(3, 3, a) == 1),
        ("const", booleans("vredmax_probe_c", 2)[1], z3.Bool("vredmax_probe_c1")),
    ]
    for name, made, expected in pairs:
        if not made.eq(expected) or made.sort() != expected.sort():
            return f"the fast {name} constructor built {made}, the public API {expected}"
    return None
