"""Small lemmas, proved once per SEW, that the compositional proofs combine.

Two families:
- algebra: the `smax` and `smin` of the Z3 element backend (spec/bv.py, the very
  operations the algorithms run on) form a join-semilattice with identity, whose order is
  the signed order; this is what makes the free-semilattice reading of an algorithm sound.
- local: facts about the spec's result predicate (`spec.relation.result_ok`) that speak of
  one or two elements, the others standing as two Booleans ("the rest are bounded", "one of
  the rest is the result"). A fact proved for every value of those Booleans holds for any
  number of elements.
Plus two facts about activity for a symbolic element index (any i < 2^64 at once).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import z3

from vredmax.spec import relation as spec
from vredmax.spec.bv import Z3Elements
from vredmax.spec.config import XLEN

Built = tuple[list[z3.BoolRef], z3.BoolRef]  # (assumptions, goal)
Builder = Callable[[int], Built]


@dataclass(frozen=True)
class Lemma:
    name: str
    family: str  # "algebra", "local", "activity"
    sentence: str
    build: Builder  # sew -> (assumptions, goal)


def _values(sew: int, *names: str) -> list[z3.BitVecRef]:
    return [z3.BitVec(f"{name}_{sew}", sew) for name in names]


def _algebra(name: str, sentence: str) -> Callable[[Builder], Builder]:
    def register(build: Builder) -> Builder:
        LEMMAS.append(Lemma(name, "algebra", sentence, build))
        return build

    return register


def _local(name: str, sentence: str, family: str = "local") -> Callable[[Builder], Builder]:
    def register(build: Builder) -> Builder:
        LEMMAS.append(Lemma(name, family, sentence, build))
        return build

    return register


LEMMAS: list[Lemma] = []


@_algebra("smax_associative", "smax(smax(a, b), c) = smax(a, smax(b, c)).")
def _assoc(sew: int) -> Built:
    ops, (a, b, c) = Z3Elements(sew), _values(sew, "a", "b", "c")
    return [], ops.smax(ops.smax(a, b), c) == ops.smax(a, ops.smax(b, c))


@_algebra("smax_commutative", "smax(a, b) = smax(b, a).")
def _comm(sew: int) -> Built:
    ops, (a, b) = Z3Elements(sew), _values(sew, "a", "b")
    return [], ops.smax(a, b) == ops.smax(b, a)


@_algebra("smax_idempotent", "smax(a, a) = a.")
def _idem(sew: int) -> Built:
    ops, (a,) = Z3Elements(sew), _values(sew, "a")
    return [], ops.smax(a, a) == a


@_algebra("smin_is_identity", "smax(smin, a) = a = smax(a, smin): the signed minimum is the identity.")
def _identity(sew: int) -> Built:
    ops, (a,) = Z3Elements(sew), _values(sew, "a")
    return [], z3.And(ops.smax(ops.smin(), a) == a, ops.smax(a, ops.smin()) == a)


@_algebra("smax_is_upper_bound", "a <= smax(a, b) and b <= smax(a, b) (signed).")
def _upper(sew: int) -> Built:
    ops, (a, b) = Z3Elements(sew), _values(sew, "a", "b")
    return [], z3.And(a <= ops.smax(a, b), b <= ops.smax(a, b))


@_algebra("smax_selects", "smax(a, b) is a or b.")
def _selects(sew: int) -> Built:
    ops, (a, b) = Z3Elements(sew), _values(sew, "a", "b")
    return [], z3.Or(ops.smax(a, b) == a, ops.smax(a, b) == b)


@_algebra("smax_is_least_upper_bound", "If a <= c and b <= c then smax(a, b) <= c.")
def _least(sew: int) -> Built:
    ops, (a, b, c) = Z3Elements(sew), _values(sew, "a", "b", "c")
    return [a <= c, b <= c], ops.smax(a, b) <= c


@_algebra("signed_order_antisymmetric", "a <= b and b <= a imply a = b.")
def _antisym(sew: int) -> Built:
    a, b = _values(sew, "a", "b")
    return [a <= b, b <= a], a == b


@_algebra("signed_order_transitive", "a <= b and b <= c imply a <= c.")
def _trans(sew: int) -> Built:
    a, b, c = _values(sew, "a", "b", "c")
    return [a <= b, b <= c], a <= c


@_algebra("smax_monotone", "a <= a2 and b <= b2 imply smax(a, b) <= smax(a2, b2).")
def _mono(sew: int) -> Built:
    ops, (a, a2, b, b2) = Z3Elements(sew), _values(sew, "a", "a2", "b", "b2")
    return [a <= a2, b <= b2], ops.smax(a, b) <= ops.smax(a2, b2)


# Local lemmas on the spec's result predicate ------------------------------------------


def _rest(sew: int, tag: str = "") -> tuple[z3.BoolRef, z3.BoolRef]:
    return z3.Bool(f"rest_bounded{tag}_{sew}"), z3.Bool(f"rest_witness{tag}_{sew}")


@_local("result_bounds_seed", "Any result the spec allows is at least the seed.")
def _l_seed(sew: int) -> Built:
    r, s = _values(sew, "r", "seed")
    bounded, witness = _rest(sew)
    return [spec.result_ok(r, s, [], [], bounded, witness)], s <= r


@_local(
    "result_bounds_active_element",
    "Any result the spec allows is at least an active element, wherever it stands.",
)
def _l_bound(sew: int) -> Built:
    r, s, e = _values(sew, "r", "seed", "e")
    a = z3.Bool(f"a_{sew}")
    bounded, witness = _rest(sew)
    return [spec.result_ok(r, s, [e], [a], bounded, witness)], z3.Implies(a, e <= r)


@_local(
    "result_is_seed_or_witness",
    "Any result the spec allows is the seed or what the elements' witness part names.",
)
def _l_candidate(sew: int) -> Built:
    r, s = _values(sew, "r", "seed")
    bounded, witness = _rest(sew)
    return [spec.result_ok(r, s, [], [], bounded, witness)], z3.Or(r == s, witness)


@_local(
    "inactive_element_is_neutral",
    "An inactive element adds nothing: bounds holds and witnesses fails, whatever its value.",
)
def _l_inactive(sew: int) -> Built:
    r, e = _values(sew, "r", "e")
    return [], z3.And(spec.bounds(r, e, z3.BoolVal(False)), z3.Not(spec.witnesses(r, e, z3.BoolVal(False))))


@_local(
    "inactive_value_irrelevant",
    "Replacing the value of an inactive element does not change which results the spec allows.",
)
def _l_inactive_value(sew: int) -> Built:
    r, s, e, e2 = _values(sew, "r", "seed", "e", "e2")
    bounded, witness = _rest(sew)
    off = z3.BoolVal(False)
    return [], spec.result_ok(r, s, [e], [off], bounded, witness) == spec.result_ok(
        r, s, [e2], [off], bounded, witness
    )


@_local(
    "only_seed_when_nothing_active", "With no active element the only result the spec allows is the seed."
)
def _l_only_seed(sew: int) -> Built:
    r, s = _values(sew, "r", "seed")
    return [], spec.result_ok(r, s, [], [], z3.BoolVal(True), z3.BoolVal(False)) == (r == s)


@_local(
    "swap_active_elements",
    "Exchanging the values of two active elements does not change which results the spec allows.",
)
def _l_swap(sew: int) -> Built:
    r, s, e, f = _values(sew, "r", "seed", "e", "f")
    bounded, witness = _rest(sew)
    on = z3.BoolVal(True)
    return [], (
        spec.result_ok(r, s, [e, f], [on, on], bounded, witness)
        == spec.result_ok(r, s, [f, e], [on, on], bounded, witness)
    )


@_local(
    "witness_is_below_any_allowed_result",
    "If r1 is the seed or an active element and r2 bounds both, then r1 <= r2 (so the "
    "allowed result is unique).",
)
def _l_unique(sew: int) -> Built:
    r1, r2, s, e = _values(sew, "r1", "r2", "seed", "e")
    a = z3.Bool(f"a_{sew}")
    return ([z3.Or(r1 == s, spec.witnesses(r1, e, a)), s <= r2, spec.bounds(r2, e, a)], r1 <= r2)


@_local(
    "raising_operands_raises_result",
    "If r1 is the seed or an active element, and r2 bounds a raised seed and that element "
    "raised, then r1 <= r2.",
)
def _l_monotone(sew: int) -> Built:
    r1, r2, s1, s2, e1, e2 = _values(sew, "r1", "r2", "s1", "s2", "e1", "e2")
    a = z3.Bool(f"a_{sew}")
    return (
        [z3.Or(r1 == s1, spec.witnesses(r1, e1, a)), s1 <= s2, e1 <= e2, s2 <= r2, spec.bounds(r2, e2, a)],
        r1 <= r2,
    )


# Activity of element i, for every i at once ---------------------------------------------


def _activity(sew: int) -> tuple[z3.BitVecRef, z3.BitVecRef, z3.BitVecRef, z3.BoolRef, z3.BoolRef]:
    """The spec's own activity rule (`spec.relation.is_active`) for a symbolic index i."""
    i, vl = z3.BitVec(f"i_{sew}", XLEN), z3.BitVec(f"vl_{sew}", XLEN)
    vm, bit = z3.BitVec(f"vm_{sew}", 1), z3.Bool(f"mask_i_{sew}")
    return i, vl, vm, bit, spec.is_active(i, vl, vm == 1, bit)


@_local(
    "masked_off_is_inactive",
    "An element below vl whose mask bit is 0 under vm=0 is inactive.",
    family="activity",
)
def _a_masked(sew: int) -> Built:
    i, vl, vm, bit, active = _activity(sew)
    return [vm == 0, z3.Not(bit)], z3.Not(active)


@_local("past_vl_is_inactive", "An element at or past vl is inactive.", family="activity")
def _a_past(sew: int) -> Built:
    i, vl, vm, bit, active = _activity(sew)
    return [z3.UGE(i, vl)], z3.Not(active)


def by_name(name: str) -> Lemma:
    return next(lemma for lemma in LEMMAS if lemma.name == name)
