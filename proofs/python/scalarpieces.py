"""A condition over one scalar (vl) written in a normal form: which values of the scalar make
it hold, as intervals, each with what else it needs.

A whole step's reduction reaches each element under a condition its code wrote: `k < vl`,
`not (vl <= k)`, a while loop's `i >= vl: break` seen as a disjunction over the round it
broke in, `vl > k and vl > k - 1`, ... The spec writes `k < vl`. All of these are the same
function of vl, and a solver asked for all of them at once (1024 elements, their registers
4096 bits wide) runs out of time although each is trivial. So each condition is first put
in a normal form, and a pair whose normal forms are the same term needs no solver.

The normal form of a Boolean term c is a list of pieces: the 2^64 values of the scalar cut
into intervals, each with c's *residual* there: c with every comparison of the scalar against
a numeral replaced by its value on that interval (True/False), the connectives simplified
(constants, repeated and double negations, operands of `and`/`or` sorted). Adjacent intervals
with the same residual are one. The pieces are computed bottom-up over the term's DAG (each
shared node once); the term put back together is `Or` over the distinct residuals r of
`And(vl in the union of r's intervals, r)`, an interval written `ULT(lo - 1, vl)` (the spec's
own form) and `Not(ULT(hi, vl))`.

Exact over every value of the scalar up to a bound the proof assumes (a whole step's: vl <=
VLMAX, in the configuration's conditions), so there the normal form is equal to the term it
comes from whatever the rest of the state: a pair whose normal forms are the same term is
equal, and a pair that is not goes to the solver as before (in its normal form, usually far
smaller). A comparison of the scalar the form does not know (against another
variable, through arithmetic) is a residual atom like any other term: kept, not read.
"""

from __future__ import annotations

import z3
from z3 import z3core as C

from vredmax.proofs.python.terms import kind
from vredmax.spec import z3fast as fast

PIECE_LIMIT = 64  # intervals of one node; past it the term is kept as it is


class TooManyPieces(Exception):
    pass


def _id(t) -> int:
    return C.Z3_get_ast_id(t.ctx_ref(), t.as_ast())


def _same(a, b) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    return fast.same(a, b)


def _key(r) -> tuple:
    return (0, int(r)) if isinstance(r, bool) else (1, _id(r))


# The residual connectives: Python True/False for constants, z3 terms otherwise.


def _and(rs: list):
    kept: dict = {}
    for r in rs:
        if r is False:
            return False
        if r is not True:
            kept.setdefault(_id(r), r)
    if not kept:
        return True
    terms = [kept[k] for k in sorted(kept)]
    return terms[0] if len(terms) == 1 else fast.and_(*terms)


def _or(rs: list):
    kept: dict = {}
    for r in rs:
        if r is True:
            return True
        if r is not False:
            kept.setdefault(_id(r), r)
    if not kept:
        return False
    terms = [kept[k] for k in sorted(kept)]
    return terms[0] if len(terms) == 1 else fast.or_(*terms)


def _not(r):
    if isinstance(r, bool):
        return not r
    if z3.is_not(r):
        return r.arg(0)
    return fast.not_(r)


def _ite(c, a, b):
    if c is True:
        return a
    if c is False:
        return b
    if _same(a, b):
        return a
    if a is True or a is False or b is True or b is False:  # as and/or: one normal form
        return _or([_and([c, a]), _and([_not(c), b])])
    return fast.ite(c, a, b)


def _iff(a, b):
    if isinstance(a, bool) and isinstance(b, bool):
        return a is b
    if isinstance(a, bool):
        return b if a else _not(b)
    if isinstance(b, bool):
        return a if b else _not(a)
    return True if _same(a, b) else a == b


_CONNECTIVES = {
    z3.Z3_OP_AND: _and,
    z3.Z3_OP_OR: _or,
    z3.Z3_OP_NOT: lambda rs: _not(rs[0]),
    z3.Z3_OP_ITE: lambda rs: _ite(*rs),
    z3.Z3_OP_IFF: lambda rs: _iff(*rs),
}
_BOOLEAN_EQ = lambda rs: _iff(*rs)  # noqa: E731 (`==` of two Booleans)
_UNSIGNED = {z3.Z3_OP_ULEQ: "le", z3.Z3_OP_ULT: "lt", z3.Z3_OP_UGEQ: "ge", z3.Z3_OP_UGT: "gt"}
_SIGNED = {z3.Z3_OP_SLEQ: "le", z3.Z3_OP_SLT: "lt", z3.Z3_OP_SGEQ: "ge", z3.Z3_OP_SGT: "gt"}
_FLIPPED = {"le": "ge", "lt": "gt", "ge": "le", "gt": "lt", "eq": "eq"}


def _holds(rel: str, x: int, c: int) -> bool:
    return {"le": x <= c, "lt": x < c, "ge": x >= c, "gt": x > c, "eq": x == c}[rel]


def _solve(rel: str, c: int, lo: int, hi: int, offset: int) -> list:
    """The v in [lo, hi] with `v + offset rel c`, as intervals (v + offset is increasing)."""
    x = c - offset  # the boundary in v
    if rel == "eq":
        return [(x, x)] if lo <= x <= hi else []
    if rel in ("le", "lt"):
        top = min(hi, x if rel == "le" else x - 1)
        return [(lo, top)] if top >= lo else []
    bottom = max(lo, x if rel == "ge" else x + 1)
    return [(bottom, hi)] if bottom <= hi else []


class Normaliser:
    """Normal forms of conditions over `var` (a bit-vector variable), equal to the terms they
    come from wherever `var <= top` (unsigned; by default everywhere): a proof that assumes
    vl <= VLMAX passes VLMAX, and `vl <= 5` signed is then `k < vl`'s complement whatever the
    sign bit would say past it. One per proof, its memo shared by every condition it is asked
    (their DAGs share nodes)."""

    def __init__(self, var: z3.BitVecRef, top: int | None = None):
        self.var = var
        self.width = var.size()
        self.top = (1 << self.width) - 1 if top is None else top
        self.var_id = _id(var)
        self.memo: dict = {}  # ast id -> pieces, or None (too many)
        self.kept: list = []  # the terms whose ids are in memo (an id is reused once freed)

    def normal(self, cond: z3.BoolRef) -> z3.BoolRef:
        """A term equal to `cond` for every value of everything where `var <= top`, in normal
        form (`cond` itself when its pieces would be too many)."""
        try:
            pieces = self._pieces(cond)
        except TooManyPieces:
            return cond
        return self._term(pieces)

    # pieces: tuple of (lo, residual), lo increasing from 0, each up to the next lo - 1

    def _pieces(self, root):
        memo = self.memo
        stack = [(root, False)]
        while stack:
            t, expanded = stack.pop()
            key = _id(t)
            if key in memo and not expanded:
                continue
            op = kind(t)
            connective = _CONNECTIVES.get(op)
            if op == z3.Z3_OP_EQ and z3.is_bool(t.arg(0)):
                connective = _BOOLEAN_EQ
            if connective is not None:
                args = t.children()
                if not expanded:
                    stack.append((t, True))
                    stack.extend((a, False) for a in args if _id(a) not in memo)
                    continue
                found = [memo[_id(a)] for a in args]
                try:
                    memo[key] = None if any(f is None for f in found) else self._combine(found, connective)
                except TooManyPieces:  # and so are its parents': none is asked again
                    memo[key] = None
            else:
                memo[key] = self._atom(t, op)
            self.kept.append(t)
        found = memo[_id(root)]
        if found is None:
            raise TooManyPieces
        return found

    def _atom(self, t, op):
        if z3.is_true(t):
            return ((0, True),)
        if z3.is_false(t):
            return ((0, False),)
        intervals = self._comparison(t, op)
        if intervals is None:
            return ((0, t),)
        pieces, at = [], 0
        for lo, hi in intervals:
            if lo > at:
                pieces.append((at, False))
            pieces.append((lo, True))
            at = hi + 1
        if at <= self.top:
            pieces.append((at, False))
        return _merged(pieces)

    def _scalar(self, t):
        """(is `var` or a zero extension of it, its signed offset for values >= 2^(w-1))."""
        if _id(t) == self.var_id:
            return True, -(1 << self.width)
        if z3.is_app_of(t, z3.Z3_OP_ZERO_EXT) and _id(t.arg(0)) == self.var_id:
            return True, 0
        return False, 0

    def _comparison(self, t, op):
        """The values of `var` where a comparison of it against a numeral holds, as sorted
        disjoint intervals; None for any other term."""
        if op in _UNSIGNED or op in _SIGNED:
            rel = _UNSIGNED.get(op) or _SIGNED[op]
        elif op in (z3.Z3_OP_EQ, z3.Z3_OP_DISTINCT) and t.num_args() == 2 and z3.is_bv(t.arg(0)):
            rel = "eq"
        else:
            return None
        a, b = t.arg(0), t.arg(1)
        if z3.is_bv_value(a):
            a, b, rel = b, a, _FLIPPED[rel]
        is_var, high_offset = self._scalar(a)
        if not is_var or not z3.is_bv_value(b):
            return None
        c, width = b.as_long(), b.size()
        half = 1 << (self.width - 1)
        if op in _SIGNED:
            if c >= 1 << (width - 1):
                c -= 1 << width
            out = _solve(rel, c, 0, min(half - 1, self.top), 0) + _solve(rel, c, half, self.top, high_offset)
        else:
            out = _solve(rel, c, 0, self.top, 0)
        if op == z3.Z3_OP_DISTINCT:
            out = _complement(out, self.top)
        return out

    def _combine(self, found: list, op):
        """The pieces of a connective of nodes with pieces `found`."""
        if all(len(f) == 1 for f in found):
            return ((0, op([f[0][1] for f in found])),)
        bounds = sorted({lo for f in found for lo, _ in f})
        positions = [0] * len(found)
        out: list = []
        for lo in bounds:
            for i, f in enumerate(found):
                while positions[i] + 1 < len(f) and f[positions[i] + 1][0] <= lo:
                    positions[i] += 1
            r = op([f[positions[i]][1] for i, f in enumerate(found)])
            if out and _same(out[-1][1], r):
                continue
            out.append((lo, r))
            if len(out) > PIECE_LIMIT:
                raise TooManyPieces
        return tuple(out)

    def _term(self, pieces) -> z3.BoolRef:
        groups: dict = {}
        ends = [lo - 1 for lo, _ in pieces[1:]] + [self.top]
        for (lo, r), hi in zip(pieces, ends):
            groups.setdefault(_key(r), (r, []))[1].append((lo, hi))
        parts = []
        for r, intervals in groups.values():
            if r is False:
                continue
            inside = _or([self._interval(lo, hi) for lo, hi in intervals])
            parts.append(_and([inside, r]))
        result = _or(parts)
        return z3.BoolVal(result) if isinstance(result, bool) else result

    def _interval(self, lo: int, hi: int):
        above = True if lo == 0 else fast.ult(fast.numeral(lo - 1, self.width), self.var)
        below = True if hi == self.top else fast.not_(fast.ult(fast.numeral(hi, self.width), self.var))
        return _and([above, below])


def _merged(pieces: list) -> tuple:
    out: list = []
    for lo, r in pieces:
        if out and _same(out[-1][1], r):
            continue
        out.append((lo, r))
    return tuple(out)


def _complement(intervals: list, top: int) -> list:
    out, at = [], 0
    for lo, hi in intervals:
        if lo > at:
            out.append((at, lo - 1))
        at = hi + 1
    if at <= top:
        out.append((at, top))
    return out
