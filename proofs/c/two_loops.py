"""A unit whose first loop fills a buffer that a second loop folds, proved for every n.

The engine (angr_two_loops.py) hands back the entry run to the first loop's head, one trip of
the first loop (back at its head, on to the second loop's head, or returning), and one trip of
the second loop; the buffer is a solver array B, written by the first loop's conditional stores
and read by the second. The first loop's invariant after k trips is the one loop's (unit_loop.py:
an index affine in k, ghosts A and X of the visited elements) with

- a count m (`buf[m++] = x`): m <= the elements visited, m = 0 exactly when none was active;
- the buffer: every entry q < m (an entry: `width` bytes at base + q * width, its low SEW bits
  sign-extended when wider) is at most X in its low SEW bits, and when A, the entry at a ghost
  index w < m equals X (w moves to m when an element above X is stored there);

the second loop's after k2 trips: k2 < m (or <=, as its first arrival says) and its running value
acc (low SEW bits) between its first value `init` and M = (A ? max(init, X) : init), equal to M
once k2 > w. A universally quantified fact ("every entry below m") is proved at a fresh index q
from the same fact at q before the trip, and assumed at the indices the second loop reads.
Proved: the entry's paths cover the domain, reach the first head with k = 0, m = 0, or return the
spec's value; a first trip keeps the invariant, returns the spec's value, or reaches the second
head with every element visited and the second loop's invariant at k2 = 0; a second trip keeps
its invariant or returns the spec's value (acc = M then: every entry was read, w among them).
"""

from __future__ import annotations

import z3

from vredmax.proofs.c.symbolic import _all, _any
from vredmax.proofs.c.unit_loop import (
    _bound,
    _exit_goal,
    entry_return_goals,
    _kept_after_trip,
    _shapes,
    _terms,
    _trip_indices,
    _Unit,
)


def _smax(a, b):
    return z3.If(a > b, a, b)


class _Buffer:
    """The buffer's entries in an array, and the facts of the invariant about them."""

    def __init__(self, plan: dict, sew: int):
        second = plan["second"]
        self.base, self.width, self.sew = second["base"], second["width"], sew
        if 8 * self.width < sew:
            raise ValueError("entries narrower than the elements")

    def entry(self, array, q):
        address = self.base + q * self.width
        parts = [z3.Select(array, address + b) for b in reversed(range(self.width))]
        return parts[0] if len(parts) == 1 else z3.Concat(*parts)

    def low(self, array, q):
        return z3.Extract(self.sew - 1, 0, self.entry(array, q))

    def below(self, array, q, x):
        """Entry q is at most x in its low SEW bits (and its value their sign extension)."""
        entry, low = self.entry(array, q), self.low(array, q)
        shaped = [entry == z3.SignExt(8 * self.width - self.sew, low)] if 8 * self.width > self.sew else []
        return _all(shaped + [low <= x])

    def invariant(self, array, m, a, x, w, qs):
        """The buffer's facts, the universal one instantiated at `qs`."""
        return _all(
            [z3.Implies(z3.ULT(q, m), self.below(array, q, x)) for q in qs]
            + [z3.Implies(a, z3.And(z3.ULT(w, m), self.low(array, w) == x))]
        )

    def index(self, address):
        return z3.UDiv(address - self.base, self.width)


def _counted(m, visited, a):
    return z3.And(z3.ULE(m, visited), (m == 0) == z3.Not(a))


def _fold_w(unit, a, x, w, m, indices):
    """The ghost index w after the elements at `indices`: where a new maximum is stored (the
    count before it, as `buf[m++] = x` stores it)."""
    for j, guard in indices:
        on = z3.And(guard, unit.flag(j) != 0)
        e = unit.element(j)
        w = z3.If(z3.And(on, z3.Or(z3.Not(a), e > x)), m, w)
        m = m + z3.If(on, z3.BitVecVal(1, 64), z3.BitVecVal(0, 64))
        x = z3.If(on, z3.If(a, z3.If(e > x, e, x), e), x)
        a = z3.Or(a, on)
    return w


def _bounded(acc, init_low, a, x, w, k2):
    top = z3.If(a, _smax(init_low, x), init_low)
    return z3.And(init_low <= acc, acc <= top, z3.Implies(z3.And(a, z3.UGT(k2, w)), acc == top))


def obligations(result: dict, sew: int, vlmaxes) -> list[tuple[str, list, object, dict]]:
    """(what, assumptions, goal, parts) of both inductions, from the engine's terms."""
    terms, plan, unit = _terms(result), result["plan"], _Unit(sew, vlmaxes)
    second, counts = plan["second"], result["counts"]
    buffer = _Buffer(plan, sew)
    pre = z3.Array("buffer", z3.BitVecSort(64), z3.BitVecSort(8))
    post = pre
    for i in range(counts["s"]):
        post = z3.If(
            terms[f"store_if{i}"], z3.Store(post, terms[f"store_addr{i}"], terms[f"store_byte{i}"]), post
        )
    facts = [
        z3.BitVec(name, 8) == z3.Select(unit.bytes if region == "e" else unit.flags, terms[f"addr_{name}"])
        for name, region in result["loads"]
    ] + [z3.BitVec(name, 8) == z3.Select(post, terms[f"addr_{name}"]) for name in result["buffer_loads"]]
    given = unit.domain + facts
    locations = {r: tuple(v) for r, v in plan["locations"].items()}
    (count,) = [r for r, (kind, _) in locations.items() if kind == "count"]
    kept = {r: v for r, v in locations.items() if v[0] not in ("havoc", "count")}
    init = {r: terms[f"init_{r}"] for r in kept}
    found = []

    # the entry
    entry_paths = [terms["path_h0"]] + [terms[f"path_e{i}"] for i in range(counts["e"])]
    found.append(("the entry's paths cover every n", given, _any(entry_paths)))
    zero = z3.BitVecVal(0, 64)
    found.append(
        (
            "the invariant at the first loop's first arrival",
            given,
            z3.Implies(
                terms["path_h0"],
                _all(
                    [
                        _bound(plan, unit, zero),
                        terms[f"init_{count}"] == 0,
                        *_shapes(kept, init, sew).values(),
                    ]
                ),
            ),
        )
    )
    found += entry_return_goals(plan, unit, terms, counts["e"], given, sew)

    # a trip of the first loop
    k, a, x = z3.BitVec("ghost_k", 64), z3.BitVec("ghost_a", 1) == 1, z3.BitVec("ghost_x", sew)
    m, w, q = z3.BitVec("ghost_m", 64), z3.BitVec("ghost_w", 64), z3.BitVec("ghost_q", 64)
    at_head = given + [
        terms["path_h0"],
        _bound(plan, unit, k),
        _counted(m, k * plan["stride"], a),
        buffer.invariant(pre, m, a, x, w, [q]),
    ]
    trip_paths = [terms[f"path_t{i}"] for i in range(counts["t"])] + [
        terms[f"path_r{i}"] for i in range(counts["r"])
    ]
    found.append(
        ("the first trip's paths cover the invariant", at_head, _any(trip_paths + [terms["path_x"]]))
    )
    visited = _trip_indices(plan, unit, k, False)
    a1, x1 = unit.fold(a, x, visited)
    w1 = _fold_w(unit, a, x, w, m, visited)
    for i in range(counts["t"]):
        m1 = terms[f"{count}_t{i}"]
        parts = _kept_after_trip(kept, init, terms, i, sew, k + 1, a1, x1)
        parts[count] = _counted(m1, (k + 1) * plan["stride"], a1)
        parts["the buffer"] = buffer.invariant(post, m1, a1, x1, w1, [q])
        found.append(
            (
                f"the first loop's invariant after a trip (path {i})",
                at_head + unit.flag_domain(visited),
                z3.Implies(terms[f"path_t{i}"], _all([_bound(plan, unit, k + 1)] + list(parts.values()))),
                {r: z3.Implies(terms[f"path_t{i}"], part) for r, part in parts.items() if r in kept},
            )
        )
    for i in range(counts["r"]):
        indices, goal = _exit_goal(plan, unit, k, a, x, terms[f"ret_r{i}"])
        found.append(
            (
                f"the first loop's return {i}",
                at_head + unit.flag_domain(indices),
                z3.Implies(terms[f"path_r{i}"], goal),
            )
        )

    # on to the second loop: every element visited, the buffer's facts, the second invariant at k2 = 0
    last = _trip_indices(plan, unit, k, True)
    af, xf = unit.fold(a, x, last)
    wf = _fold_w(unit, a, x, w, m, last)
    cf = m + sum(
        z3.If(z3.And(g, unit.flag(j) != 0), z3.BitVecVal(1, 64), z3.BitVecVal(0, 64)) for j, g in last
    )
    left = unit.n - k * plan["stride"]
    kept2 = {r: tuple(v) for r, v in second["locations"].items() if v[0] != "havoc"}
    # each running value of the second loop (a copy of it kept too) with a ghost of its own
    running = [r for r, (kind, _) in kept2.items() if kind == "bounded"]
    init2 = {r: terms[f"init2_{r}"] for r in kept2}
    init_low = {r: z3.Extract(sew - 1, 0, init2[r]) for r in running}
    k2 = z3.BitVec("ghost_k2", 64)

    def bound2(j):
        return z3.ULT(j, cf) if second["bound"] == "lt" else z3.ULE(j, cf)

    shape = [
        init2[r] == z3.SignExt(64 - sew, init_low[r]) for r in running if kept2[r][1] == "sext" and sew < 64
    ]
    arrival = [
        z3.ULE(left, plan["stride"]),
        z3.ULE(cf, unit.n),
        (cf == 0) == z3.Not(af),
        buffer.invariant(post, cf, af, xf, wf, [q]),
        bound2(zero),
        *shape,
    ]
    at_exit = at_head + unit.flag_domain(last)
    found.append(("the second loop's first arrival", at_exit, z3.Implies(terms["path_x"], _all(arrival))))

    # a trip of the second loop
    reads = [buffer.index(terms[f"entry{i}"]) for i in range(counts["entries"])]
    at_second = at_exit + [
        terms["path_x"],
        z3.BitVec("ghost_c", 64) == cf,
        z3.ULE(cf, unit.n),
        z3.ULE(left, plan["stride"]),
        (cf == 0) == z3.Not(af),
        buffer.invariant(post, cf, af, xf, wf, reads),
        bound2(k2),
        *[_bounded(z3.BitVec(f"ghost_acc_{r}", sew), init_low[r], af, xf, wf, k2) for r in running],
    ]
    paths2 = [terms[f"path_u{i}"] for i in range(counts["u"])] + [
        terms[f"path_v{i}"] for i in range(counts["v"])
    ]
    found.append(
        (
            "the second trip's paths cover its invariant",
            at_second,
            _any(paths2) if paths2 else z3.BoolVal(False),
        )
    )
    for i in range(counts["u"]):
        parts = {}
        for r, (kind, extra) in kept2.items():
            value = terms[f"{r}_u{i}"]
            if kind == "affine":
                parts[r] = value == init2[r] + (k2 + 1) * extra
            else:
                low = z3.Extract(sew - 1, 0, value)
                parts[r] = _all(
                    [_bounded(low, init_low[r], af, xf, wf, k2 + 1)]
                    + ([value == z3.SignExt(64 - sew, low)] if extra == "sext" and sew < 64 else [])
                )
        found.append(
            (
                f"the second loop's invariant after a trip (path {i})",
                at_second,
                z3.Implies(terms[f"path_u{i}"], _all([bound2(k2 + 1)] + list(parts.values()))),
                {
                    f"{second['head']:#x}:{r}": z3.Implies(terms[f"path_u{i}"], part)
                    for r, part in parts.items()
                },
            )
        )
    for i in range(counts["v"]):
        ret = z3.Extract(sew - 1, 0, terms[f"ret_v{i}"])
        found.append(
            (
                f"the second loop's return {i}",
                at_second,
                z3.Implies(terms[f"path_v{i}"], ret == unit.spec(af, xf)),
            )
        )
    return [o if len(o) == 4 else (*o, {}) for o in found]
