"""A term builder that decides what it can before building: for feasibility under a witness.

The relational obligations link a pre-state to a twin with one condition per element
(65536 at VLEN=65536, SEW=8, LMUL=8). Their assumptions are shown satisfiable with the twin
equal to the original and a few variables fixed (the swapped positions p = q = 0). Then
nearly every condition is true for a reason that needs no solver: an equality of a term with
itself, a comparison of two numerals, a choice whose condition is decided. Built with the
plain constructors of spec/z3fast.py, each condition costs a handful of Z3 terms and is then
evaluated in a model; written against a builder and built with `Folding`, it is decided on
the way, in Python, and only what is left undecided becomes Z3 terms (`term`).

A folded value is Python's True or False (decided), a Z3 term, or a `Lazy` application not
built yet (so that `or_(eq(x, x), <big>)` never makes the Z3 terms of `<big>`). `known` maps
variables to the numerals they are fixed to. Every rule is a valid equivalence (x = x,
x <= x, numerals compare by value, or(true, ...) = true, ite(true, a, b) = a,
ite(c, a, a) = a, a pick at a known index is the value there), so a folded condition holds
in a model exactly when the built one does, in any model in which the known variables have
their values: the witness puts those equalities among the assumptions.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable, cast

import z3

from vredmax.spec import z3fast as fast


@dataclass(frozen=True, eq=False)
class Lazy:
    """`make(*args)`, not built yet."""

    make: Callable[..., z3.ExprRef]
    args: tuple[Folded, ...]


# A folded value: decided (a Python bool), a Z3 term, or not built yet.
Folded = bool | z3.ExprRef | Lazy


def term(value: Folded) -> z3.ExprRef:
    """The Z3 term of a folded value."""
    if isinstance(value, bool):
        return z3.BoolVal(value)
    if isinstance(value, Lazy):
        return value.make(*[term(arg) for arg in value.args])
    return value


def _numeral(value: Folded) -> int | None:
    return None if isinstance(value, (bool, Lazy)) else fast.numeral_value(value)


def _same(a: Folded, b: Folded) -> bool:
    if a is b:
        return True
    return not isinstance(a, (bool, Lazy)) and not isinstance(b, (bool, Lazy)) and fast.same(a, b)


def _unchanged(value: Folded) -> Folded:
    return value


class Folding:
    """The constructors the per-element conditions use, folding as they go (module docstring)."""

    def __init__(self, known: Iterable[tuple[z3.BitVecRef, int]] = ()) -> None:
        self._known = {variable.ast.value: fast.numeral(value, variable.size()) for variable, value in known}
        if not self._known:
            self._resolve = _unchanged  # type: ignore[method-assign]  # the identity, when nothing is known

    def _resolve(self, value: Folded) -> Folded:
        if isinstance(value, (bool, Lazy)):
            return value
        return self._known.get(value.ast.value, value)

    @staticmethod
    def numeral(value: int, width: int) -> z3.BitVecRef:
        return fast.numeral(value, width)

    def eq(self, a: Folded, b: Folded) -> bool | Lazy:
        a, b = self._resolve(a), self._resolve(b)
        if _same(a, b):
            return True
        if isinstance(a, bool) and isinstance(b, bool):
            return a == b
        values = _numeral(a), _numeral(b)
        if None not in values:
            return values[0] == values[1]
        return Lazy(fast.eq, (a, b))

    def sle(self, a: Folded, b: Folded) -> bool | Lazy:
        """Signed a <= b."""
        a, b = self._resolve(a), self._resolve(b)
        return True if _same(a, b) else Lazy(fast.sle, (a, b))

    def ult(self, a: Folded, b: Folded) -> bool | Lazy:
        a, b = self._resolve(a), self._resolve(b)
        values = _numeral(a), _numeral(b)
        if None not in values:
            assert values[0] is not None and values[1] is not None  # (for the type checker)
            return values[0] < values[1]
        return Lazy(fast.ult, (a, b))

    def not_(self, a: Folded) -> bool | Lazy:
        a = self._resolve(a)
        return (not a) if isinstance(a, bool) else Lazy(fast.not_, (a,))

    def and_(self, *values: Folded) -> Folded:
        return self._connective(values, False, fast.and_)

    def or_(self, *values: Folded) -> Folded:
        return self._connective(values, True, fast.or_)

    def _connective(
        self, values: tuple[Folded, ...], absorbing: bool, make: Callable[..., z3.BoolRef]
    ) -> Folded:
        """and (absorbing False) / or (absorbing True): decided by one absorbing operand,
        or by having no undecided operand left."""
        undecided = []
        for value in values:
            value = self._resolve(value)
            if value is absorbing:
                return absorbing
            if not isinstance(value, bool):
                undecided.append(value)
        if not undecided:
            return not absorbing
        return undecided[0] if len(undecided) == 1 else Lazy(make, tuple(undecided))

    def pick(self, index: Folded, values: list[Folded]) -> Folded:
        """`fast.pick`: with the index known, the value it picks."""
        index = self._resolve(index)
        known = _numeral(index)
        if known is None:
            return fast.pick(cast(z3.BitVecRef, index), [term(value) for value in values])  # an index term
        return values[min(known, len(values) - 1)]

    def ite(self, cond: Folded, a: Folded, b: Folded) -> Folded:
        cond, a, b = self._resolve(cond), self._resolve(a), self._resolve(b)
        if isinstance(cond, bool):
            return a if cond else b
        return a if _same(a, b) else Lazy(fast.ite, (cond, a, b))
