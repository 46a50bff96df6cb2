"""Z3 term constructors for the spec's relation and the proofs, and a Symbolic backend on them.

Two implementations of one set of functions:
- spec/z3native.py, the fast path: Z3's C functions called through ctypes prototypes of its
  own, taken from z3's internals (measured: seconds saved per large configuration);
- spec/z3public.py: z3's public Python API (slower, depends on nothing inside z3).

At import the fast path checks the shape of z3 it relies on and builds a few terms both ways;
if anything differs (a z3-solver release changed its internals), this module uses the public
API and prints one line on stderr saying so. `VREDMAX_Z3_PUBLIC_API=1` forces the public API
(CI runs the tests both ways). `BACKEND` says which one is in use ("native" or "public").

It lives in spec/ because spec/relation.py builds its terms with it (spec may not import
proofs/); the proofs use it too.

Functions: and_, or_, not_, eq, same, numeral, numeral_value, ult, sle, extract, ite, pick,
booleans, bit_set, bits, split, select, clear_memo; the class FastSymbolic.
"""

from __future__ import annotations

import os
import sys
from types import ModuleType
from typing import TYPE_CHECKING, TypeVar

import z3

from vredmax.spec.bv import Symbolic, Term, _index

T = TypeVar("T")

PUBLIC_API_ENV = "VREDMAX_Z3_PUBLIC_API"


def _choose() -> tuple[ModuleType, str | None]:
    """(module, reason the fast path is not used or None)."""
    from vredmax.spec import z3public

    if os.environ.get(PUBLIC_API_ENV, "").strip() not in ("", "0"):
        return z3public, None
    try:
        from vredmax.spec import z3native

        problem = z3native.self_test()
    except Exception as error:  # any failure of the fast path's import or self-test: not used
        problem = f"{type(error).__name__}: {error}"
    if problem is None:
        return z3native, None
    return z3public, problem


_IMPL, FALLBACK_REASON = _choose()
BACKEND = "native" if _IMPL.__name__.endswith("z3native") else "public"
if FALLBACK_REASON is not None:
    print(
        f"vredmax: note: z3 {z3.get_version_string()} differs from the versions the fast term "
        f"constructors were tested with ({FALLBACK_REASON}); using z3's public API "
        f"(slower, same results)",
        file=sys.stderr,
    )

if TYPE_CHECKING:  # both implementations have z3public's signatures
    from vredmax.spec.z3public import and_ as and_
    from vredmax.spec.z3public import bit_set as bit_set
    from vredmax.spec.z3public import bits as bits
    from vredmax.spec.z3public import booleans as booleans
    from vredmax.spec.z3public import clear_memo as clear_memo
    from vredmax.spec.z3public import eq as eq
    from vredmax.spec.z3public import extract as extract
    from vredmax.spec.z3public import ite as ite
    from vredmax.spec.z3public import not_ as not_
    from vredmax.spec.z3public import numeral as numeral
    from vredmax.spec.z3public import numeral_value as numeral_value
    from vredmax.spec.z3public import or_ as or_
    from vredmax.spec.z3public import same as same
    from vredmax.spec.z3public import sle as sle
    from vredmax.spec.z3public import split as split
    from vredmax.spec.z3public import ult as ult
else:
    clear_memo = _IMPL.clear_memo
    and_, or_, not_, eq, same = _IMPL.and_, _IMPL.or_, _IMPL.not_, _IMPL.eq, _IMPL.same
    numeral, numeral_value = _IMPL.numeral, _IMPL.numeral_value
    ult, sle, extract, ite = _IMPL.ult, _IMPL.sle, _IMPL.extract, _IMPL.ite
    booleans, bit_set, bits, split = _IMPL.booleans, _IMPL.bit_set, _IMPL.bits, _IMPL.split


def pick(index: z3.BitVecRef, values: list[T]) -> T:
    """values[index] as a chain of choices (the last value for an index past the others)."""
    width = index.size()
    picked = values[-1]
    for i in range(len(values) - 2, -1, -1):
        picked = ite(eq(index, numeral(i, width)), values[i], picked)
    return picked


def select(array: z3.ArrayRef, index: z3.BitVecRef | int) -> z3.BitVecRef:
    return z3.Select(array, index)


class FastSymbolic(Symbolic):
    """`spec.bv.Symbolic` with faster constructors for the per-element operations."""

    all_ = staticmethod(and_)
    any_ = staticmethod(or_)

    @staticmethod
    def ult(a: Term, b: Term) -> z3.BoolRef:
        if isinstance(a, int):
            a = numeral(a, b.size())  # type: ignore[union-attr]  # one of the two is a term
        if isinstance(b, int):
            b = numeral(b, a.size())
        return ult(a, b)

    @staticmethod
    def const(value: int, width: int) -> z3.BitVecRef:
        return numeral(value & ((1 << width) - 1), width)

    @staticmethod
    def bits(value: z3.BitVecRef, count: int) -> list[z3.BoolRef]:
        return bits(value, count)

    @staticmethod
    def split(value: z3.BitVecRef, width: int, count: int) -> list[z3.BitVecRef]:
        return split(value, width, count)

    @staticmethod
    def read(regs: z3.ArrayRef, index: Term) -> z3.BitVecRef:
        return z3.Select(regs, _index(index))
