"""The term constructors of spec/z3fast.py through z3's public Python API only.

Slower than spec/z3native.py (z3's wrappers check every argument and error code) but it
depends on nothing inside z3: the path taken when this z3 is not shaped as the fast path
needs, or when VREDMAX_Z3_PUBLIC_API=1 asks for it. Same functions, same terms (hash-consed:
building a term twice gives the same term).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

import z3


def clear_memo() -> None:
    """Nothing is kept here (the fast path keeps a table of terms)."""


def _connective(make: Callable[..., z3.BoolRef], empty: bool, terms: tuple[Any, ...]) -> z3.BoolRef:
    if len(terms) < 2:
        return terms[0] if terms else z3.BoolVal(empty)
    return make(*terms)


def and_(*terms: z3.BoolRef | bool) -> z3.BoolRef:
    """Conjunction: of none, True; of one term, that term."""
    return _connective(z3.And, True, terms)


def or_(*terms: z3.BoolRef | bool) -> z3.BoolRef:
    """Disjunction: of none, False; of one term, that term."""
    return _connective(z3.Or, False, terms)


def same(a: z3.AstRef, b: z3.AstRef) -> bool:
    """The same term."""
    return a.eq(b)


def not_(term: z3.BoolRef | bool) -> z3.BoolRef:
    return z3.Not(term)


def eq(a: z3.BitVecRef, b: z3.BitVecRef | int) -> z3.BoolRef:
    return a == b


def numeral(value: int, width: int) -> z3.BitVecRef:
    return z3.BitVecVal(value, width)


def numeral_value(term: z3.ExprRef) -> int | None:
    """The value of a bit-vector numeral, else None."""
    return cast(z3.BitVecNumRef, term).as_long() if z3.is_bv_value(term) else None


def ult(a: z3.BitVecRef | int, b: z3.BitVecRef | int) -> z3.BoolRef:
    return z3.ULT(a, b)


def extract(value: z3.BitVecRef, hi: int, lo: int) -> z3.BitVecRef:
    return z3.Extract(hi, lo, value)


def ite(cond: z3.BoolRef | bool, a: Any, b: Any) -> Any:
    return z3.If(cond, a, b)


def sle(a: z3.BitVecRef, b: z3.BitVecRef | int) -> z3.BoolRef:
    """Signed a <= b."""
    return a <= b


def booleans(prefix: str, count: int) -> list[z3.BoolRef]:
    return [z3.Bool(f"{prefix}{i}") for i in range(count)]


def bit_set(value: z3.BitVecRef, i: int) -> z3.BoolRef:
    return z3.Extract(i, i, value) == 1


def bits(value: z3.BitVecRef, count: int) -> list[z3.BoolRef]:
    return [bit_set(value, i) for i in range(count)]


def split(value: z3.BitVecRef, width: int, count: int) -> list[z3.BitVecRef]:
    return [z3.Extract(i * width + width - 1, i * width, value) for i in range(count)]
