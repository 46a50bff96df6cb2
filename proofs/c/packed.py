"""A unit whose first loop packs the active flags into a bit array that a second loop reads to
fold the elements whose bit is set, proved for every n.

The engine (angr_packed.py) hands back the entry run to the first loop's head with the bytes of
the array's region [lo, hi) there, one trip of the first loop (back at its head, or on to the
second loop's head), and one trip of the second loop; the array is a solver array B written by
the first loop's conditional stores. The first loop's invariant after k trips (c = k * stride
flags packed): its affine locations, and for every byte q of the region, B[lo + q] is the byte
`packed(q, c)`: bit b is flag j & 1 when j < c, else 0, where j is the flag the layout puts at
bit b of byte q. Layouts: the flags in order from bit 0 of byte 0 (a bit at a time in bytes or
in little-endian words of any width, `bits[i / 8] |= 1 << (i % 8)`), or from the top bit of each
word of 1, 2, 4 or 8 bytes (`bits[i / 64] |= 1ull << (63 - i % 64)`); the first whose trip
keeps the fact is the invariant, the rest of the proof is the same. A universally quantified
fact is proved at a fresh q from the same fact at q and at the bytes the trip loaded.

Proved: the entry's paths cover the domain, reach the first head with the region all zero (or
return the spec's value); a first trip keeps the invariant, or reaches the second head with every
byte `packed(q, n)`; the second loop is one loop's induction (unit_loop.py: its templates over
its own ghosts A2 and X2 of the elements it visited), each byte it loads from the region being
`packed(q, n)`.
"""

from __future__ import annotations

import z3

from vredmax.proofs.c.symbolic import _all, _any
from vredmax.proofs.c.unit_loop import (
    _bound,
    _exit_goal,
    _kept_after_trip,
    _shapes,
    _terms,
    _trip_indices,
    _Unit,
    entry_return_goals,
)
from vredmax.proofs.engine.verdict import Verdict, prove

# (name, word bytes, from the top bit): lsb is the same order for every word width
LAYOUTS = (("lsb", 1, False), ("msb8", 1, True), ("msb16", 2, True), ("msb32", 4, True), ("msb64", 8, True))
LAYOUT_TIMEOUT_MS = 60_000  # a layout tried on the first trip's invariant


def _flag_at(layout, q, b: int):
    """The index of the flag at bit b of byte q."""
    _, width, top = layout
    if not top:
        return 8 * q + b
    word, within = z3.UDiv(q, width), z3.URem(q, width)
    return 8 * width * word + (8 * width - 1) - (8 * within + b)


def _packed_byte(unit, layout, q, count):
    """Byte q of the array holding flags [0, count) packed, zero above them."""
    bits = []
    for b in reversed(range(8)):
        j = _flag_at(layout, q, b)
        bits.append(z3.If(z3.ULT(j, count), z3.Extract(0, 0, unit.flag(j)), z3.BitVecVal(0, 1)))
    return z3.Concat(*bits)


def _byte_of(layout, j: int) -> int:
    """The byte holding flag j (a number)."""
    _, width, top = layout
    if not top:
        return j // 8
    within = 8 * width - 1 - j % (8 * width)
    return width * (j // (8 * width)) + within // 8


def obligations(result: dict, sew: int, vlmaxes, timeout_s: float, solver: str) -> list:
    """(what, assumptions, goal, parts) of both inductions, with the first invariant of the
    family (a layout, the flags the entry packed: 0, or 1 when the compiler peeled the first
    trip, and whether the count stays below n at the head) whose first arrival and the array's
    fact after a first trip hold (else the first one's: not proved). The locations' parts are
    left out of the choice: one the trip refutes is havocked by the induction's next round."""
    family = [(layout, c0, lt) for layout in LAYOUTS for c0 in (0, 1) for lt in (True, False)]
    for choice in family:
        found = _obligations(result, sew, vlmaxes, *choice)
        first = [
            o for o in found if o[0].startswith(("the invariant at the first", "the first loop's invariant"))
        ]
        if all(
            prove(o[1], o[2], min(LAYOUT_TIMEOUT_MS, int(timeout_s * 1000)), solver).verdict == Verdict.PROVED
            for o in first
        ):
            return found
    return _obligations(result, sew, vlmaxes, *family[0])


def _obligations(result: dict, sew: int, vlmaxes, layout, c0: int, lt: bool) -> list:
    terms, plan, unit = _terms(result), result["plan"], _Unit(sew, vlmaxes)
    plan2, counts = plan["second"], result["counts"]
    lo, hi = plan["packed"]["lo"], plan["packed"]["hi"]
    # the bytes holding the flags of the largest n (the region, every address a trip's load may
    # take under its head state's looser bound, may reach past the array: no fact there)
    words = 8 * layout[1]
    width = min(hi - lo, layout[1] * -(-max(vlmaxes) // words))
    size = z3.BitVecVal(width, 64)
    stride = plan["stride"]

    def packed_count(k):
        return c0 + k * stride

    def first_bound(k):
        c = packed_count(k)
        return z3.And(z3.ULE(k, unit.n), z3.ULT(c, unit.n) if lt else z3.ULE(c, unit.n))

    def is_packed(byte, q, count):
        return z3.Implies(z3.ULT(q, size), byte == _packed_byte(unit, layout, q, count))

    def holds(array, q, count):
        return is_packed(z3.Select(array, lo + q), q, count)

    pre = z3.Array("bits", z3.BitVecSort(64), z3.BitVecSort(8))
    post = pre
    for i in range(counts["s"]):
        post = z3.If(
            terms[f"store_if{i}"], z3.Store(post, terms[f"store_addr{i}"], terms[f"store_byte{i}"]), post
        )
    given = unit.domain + [
        z3.BitVec(name, 8) == z3.Select(unit.bytes if region == "e" else unit.flags, terms[f"addr_{name}"])
        for name, region in result["loads"]
    ]
    kept = {r: tuple(v) for r, v in plan["locations"].items() if v[0] != "havoc"}
    init = {r: terms[f"init_{r}"] for r in kept}
    zero = z3.BitVecVal(0, 64)
    found = []

    # the entry: on to the first head with the array holding the first c0 flags, zero elsewhere
    # (the region's bytes in memory order: byte q at bits 8 * (size - q) - 1 down)
    expected = z3.BitVecVal(0, 8 * width)
    for q in sorted({_byte_of(layout, j) for j in range(c0)}):
        byte = _packed_byte(unit, layout, z3.BitVecVal(q, 64), c0)
        expected = expected | z3.ZeroExt(8 * (width - 1), byte) << (8 * (width - 1 - q))
    entry_paths = [terms["path_h0"]] + [terms[f"path_e{i}"] for i in range(counts["e"])]
    found.append(("the entry's paths cover every n", given, _any(entry_paths)))
    found.append(
        (
            "the invariant at the first loop's first arrival (the bit array's bytes)",
            given + unit.flag_domain([(z3.BitVecVal(j, 64), True) for j in range(c0)]),
            z3.Implies(
                terms["path_h0"],
                z3.And(
                    first_bound(zero),
                    z3.Extract(8 * (hi - lo) - 1, 8 * (hi - lo - width), terms["zero_region"]) == expected,
                ),
            ),
        )
    )
    found += entry_return_goals(plan, unit, terms, counts["e"], given, sew)

    # a trip of the first loop
    k, q = z3.BitVec("ghost_k", 64), z3.BitVec("packed_q", 64)
    loaded = [terms[f"addr_{name}"] - lo for name in result["pre_loads"]]
    at_head = given + [
        terms["path_h0"],
        first_bound(k),
        *[z3.BitVec(name, 8) == z3.Select(pre, terms[f"addr_{name}"]) for name in result["pre_loads"]],
        *[holds(pre, p, packed_count(k)) for p in [q, *loaded]],
    ]
    visited = [(packed_count(k) + t, z3.BoolVal(True)) for t in range(stride)]
    at_trip = at_head + unit.flag_domain(visited)
    trip_paths = [terms[f"path_t{i}"] for i in range(counts["t"])]
    found.append(
        ("the first trip's paths cover the invariant", at_head, _any(trip_paths + [terms["path_x"]]))
    )
    unused = (z3.BoolVal(False), z3.BitVec("unused_x", sew))
    for i in range(counts["t"]):
        # the locations apart from the array: one refuted is havocked (Houdini) and the family
        # tried again, whichever invariant of the array holds
        parts = _kept_after_trip(kept, init, terms, i, sew, k + 1, *unused)
        found.append(
            (
                f"the first loop's locations after a trip (path {i})",
                at_trip,
                z3.Implies(terms[f"path_t{i}"], _all(list(parts.values()))),
                {r: z3.Implies(terms[f"path_t{i}"], part) for r, part in parts.items()},
            )
        )
        found.append(
            (
                f"the first loop's invariant after a trip (path {i}: the bit array)",
                at_trip,
                z3.Implies(
                    terms[f"path_t{i}"], z3.And(first_bound(k + 1), holds(post, q, packed_count(k + 1)))
                ),
            )
        )
    found.append(
        (
            "the bit array packed at the second loop's first arrival",
            at_trip,
            z3.Implies(terms["path_x"], holds(post, q, unit.n)),
        )
    )

    # the second loop: one loop's induction, its loads from the array the packed flags
    kept2 = {r: tuple(v) for r, v in plan2["locations"].items() if v[0] != "havoc"}
    init2 = {r: terms[f"init2_{r}"] for r in kept2}
    shapes = _shapes(kept2, init2, sew)
    found.append(
        (
            "the second loop's first arrival",
            at_trip,
            z3.Implies(terms["path_x"], _all([_bound(plan2, unit, zero), *shapes.values()])),
            {f"{plan2['head']:#x}:{r}": z3.Implies(terms["path_x"], s) for r, s in shapes.items()},
        )
    )
    k2, a2, x2 = z3.BitVec("ghost2_k", 64), z3.BitVec("ghost2_a", 1) == 1, z3.BitVec("ghost2_x", sew)
    full = [
        is_packed(z3.BitVec(name, 8), terms[f"addr_{name}"] - lo, unit.n) for name in result["full_loads"]
    ]
    at_second = at_trip + [terms["path_x"], _bound(plan2, unit, k2), *full]
    paths2 = [terms[f"path_u{i}"] for i in range(counts["u"])] + [
        terms[f"path_v{i}"] for i in range(counts["v"])
    ]
    found.append(("the second trip's paths cover its invariant", at_second, _any(paths2)))
    visited2 = _trip_indices(plan2, unit, k2, False)
    a21, x21 = unit.fold(a2, x2, visited2)
    for i in range(counts["u"]):
        parts = _kept_after_trip(kept2, init2, terms, i, sew, k2 + 1, a21, x21, tag="u")
        found.append(
            (
                f"the second loop's invariant after a trip (path {i})",
                at_second + unit.flag_domain(visited2),
                z3.Implies(terms[f"path_u{i}"], _all([_bound(plan2, unit, k2 + 1), *parts.values()])),
                {f"{plan2['head']:#x}:{r}": z3.Implies(terms[f"path_u{i}"], p) for r, p in parts.items()},
            )
        )
    for i in range(counts["v"]):
        indices, goal = _exit_goal(plan2, unit, k2, a2, x2, terms[f"ret_v{i}"])
        found.append(
            (
                f"the second loop's return {i}",
                at_second + unit.flag_domain(indices),
                z3.Implies(terms[f"path_v{i}"], goal),
            )
        )
    return [o if len(o) == 4 else (*o, {}) for o in found]
