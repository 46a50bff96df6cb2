"""Symbolic Python ints and bools: what the user's code holds while a proof runs.

The concrete run hands the user's code Python ints (elements, registers, vl, register numbers,
all unsigned and in range) and bools (mask bits, active flags). A proof hands it these proxies
instead, with exactly the meaning of those ints and bools: `a > b` is the unsigned comparison
of two elements (as on the ints), `a + b` is unbounded (0xff + 1 is 256, not 0), `a - b` may be
negative, `~a` is -a-1, `a >> n` is floor division by 2**n, `a // b` and `a % b` round
toward minus infinity, `int(a)`, `bool(a)`, `hash(a)` are the value's. A `SymInt` is a
bit-vector term of enough bits for the value it can take (an interval [lo, hi], tracked
soundly), read as signed or unsigned: every operation is done at a width where the
bit-vector result is the integer result, so nothing wraps that would not wrap on ints.
A result that is one value for every input is that Python int (constants stay ints, as in
the concrete run).

What a term cannot give is a Python value: `bool()` (an `if`), `int()`, `hash()`, `str()`,
an index. These ask the run's context (proofs/python/paths.py), which explores both ways,
merges, or refuses with a one-line message naming the user's file and line; every refusal
is recorded, so code that catches it cannot take a path of its own while proving.
`isinstance(x, int)` is True of a SymInt (and `isinstance(x, bool)` of a SymBool), as of the
concrete value.
"""

from __future__ import annotations

from vredmax.proofs.python import runcontext
from vredmax.proofs.python.runcontext import Refusal, active, internal, where

# reached as V.Context and V.advice_for by paths.py and the tests
Context, advice_for = runcontext.Context, runcontext.advice_for

MAX_WIDTH = 1 << 18  # a value wider than this (a shift by a huge amount) is refused
POW_LIMIT = 64  # x ** k is multiplied out up to this k

internal(__file__)


def _cx(*values):
    cx = active()
    for v in values:
        if isinstance(v, (SymInt, SymBool)) and v.cx is not cx:
            stale = Refusal(
                f"{where()[0]}:{where()[1]}: a symbolic value kept from another run (state kept "
                "between calls of your code?); each call must compute from its own arguments"
            )
            if cx is not None:
                cx.refusals.append(stale)
            raise stale
    return cx


# Widths ---------------------------------------------------------------------------------


def need(lo: int, hi: int) -> tuple[int, bool]:
    """(width, signed): the fewest bits holding every integer in [lo, hi]."""
    if lo >= 0:
        return max(1, hi.bit_length()), False
    return max((-lo - 1).bit_length(), max(hi, 0).bit_length()) + 1, True


def signed_width(x) -> int:
    """Bits to hold x as a signed (two's complement) number."""
    if isinstance(x, SymInt):
        return x.w if x.s else x.w + 1
    return need(min(x, 0) if x < 0 else -1, max(x, 0))[0]


def bounds(x) -> tuple[int, int]:
    return (x.lo, x.hi) if isinstance(x, SymInt) else (x, x)


def fit(bk, x, width: int):
    """x's term at `width` bits (two's complement): extended by its signedness, or its low
    bits (exact for ring and bitwise operations, and whenever the value fits)."""
    if isinstance(x, SymInt):
        if x.w == width:
            return x.t
        if x.w > width:
            return bk.extract(x.t, width - 1, 0)
        return bk.sext(x.t, width) if x.s else bk.zext(x.t, width)
    return bk.bv(x, width)


def make_int(cx, bk, t, w: int, s: bool, lo: int, hi: int):
    """A value: a Python int when it is one value, else a SymInt."""
    if lo == hi:
        return lo
    value = bk.value_of(t)
    if value is not None:
        return value - (1 << w) if s and value >> (w - 1) & 1 else value
    assert bk.width(t) == w, (bk.width(t), w, lo, hi)
    if w > MAX_WIDTH:
        cx.refuse(
            f"a value of {w} bits",
            "Python ints are unbounded but a proof needs a width: keep values "
            "within the registers' width (mask with &)",
        )
    return SymInt(cx, bk, t, w, s, lo, hi)


def negation_of(x):
    """y when the SymInt x was made as -y, else None: a choice between negated values is the
    negated choice between the values (merge_ints), and max()/min() compare them by their
    operands (proofs/python/pybuiltins.py), so that the minimum of negated values is a term
    the cut-point method reads as the negated maximum."""
    return getattr(x, "negated", None) if type(x) is SymInt else None


def negations(a, b):
    """(x, y) when a is -x and b is -y (a Python int counts as the negation of its negation)
    and one of them is a symbolic negation, else None."""
    x, y = negation_of(a), negation_of(b)
    if x is None and y is None:
        return None
    if x is None and type(a) is int:
        x = -a
    if y is None and type(b) is int:
        y = -b
    return None if x is None or y is None else (x, y)


def make_bool(cx, bk, t):
    value = bk.value_of(t)
    if value is not None:
        return bool(value)
    return SymBool(cx, bk, t)


def bool_and(a, b):
    """`a and b` of Python bools and symbolic bools, folding the constants."""
    if a is False or b is False:
        return False
    if a is True:
        return b
    if b is True:
        return a
    bk, a, b = _place(a.cx, 1, a, b)
    return make_bool(a.cx, bk, bk.and_(a.t, b.t))


def bool_or(a, b):
    """`a or b` of Python bools and symbolic bools, folding the constants."""
    if a is True or b is True:
        return True
    if a is False:
        return b
    if b is False:
        return a
    bk, a, b = _place(a.cx, 1, a, b)
    return make_bool(a.cx, bk, bk.or_(a.t, b.t))


def bool_not(a):
    return make_bool(a.cx, a.bk, a.bk.not_(a.t)) if isinstance(a, SymBool) else not a


def _numeric(x):
    """x as an int-like operand: SymInt or Python int; NotImplemented for other types."""
    if isinstance(x, SymInt):
        return x
    if isinstance(x, SymBool):
        return x.as_int()
    if type(x) is int:
        return x
    if type(x) is bool:
        return int(x)
    if isinstance(x, int) and not isinstance(x, (SymInt, SymBool)):  # an int subclass (IntEnum ...)
        return int(x)
    return NotImplemented


def _place(cx, width, *values, compute=False):
    """(backend, values) for an operation on values (Python ints, SymInts, SymBools) giving a
    `width`-bit result: their common backend, or the context's choice (a cut run: proofs/
    python/paths.py CutContext; `compute` marks an operation that combines values, which a
    cut run traces when its operands are elements, rather than one that extracts a field)."""
    bk = None
    for v in values:
        if isinstance(v, (SymInt, SymBool)):
            if bk is None:
                bk = v.bk
            elif v.bk is not bk and not (bk.name == "z3" == v.bk.name):
                return cx.place(width, values)
    limit = cx.trace_limit
    if limit is not None and (
        bk.name == "trace"
        and width > limit
        or bk.name == "z3"
        and width <= limit
        and cx.element_data(values, compute)
    ):
        return cx.place(width, values)
    return (bk, *values)


# SymInt ----------------------------------------------------------------------------------


class SymInt:
    """A Python int whose value is a bit-vector term `t` of `w` bits, read as signed when `s`,
    known to lie in [lo, hi]."""

    __slots__ = ("cx", "bk", "t", "w", "s", "lo", "hi", "negated", "__weakref__")

    def __init__(self, cx, bk, t, w, s, lo, hi):
        self.cx, self.bk, self.t, self.w, self.s, self.lo, self.hi = cx, bk, t, w, s, lo, hi

    # as the concrete value does
    __class__ = property(lambda self: int)

    def __repr__(self):
        return f"<symbolic int, {self.w} bits, {self.lo}..{self.hi}>"

    # arithmetic ---------------------------------------------------------------------------
    def _ring(self, other, op, lo_hi, reverse=False):
        other = _numeric(other)
        if other is NotImplemented:
            return NotImplemented
        a, b = (other, self) if reverse else (self, other)
        cx = _cx(a, b)
        lo, hi = lo_hi(bounds(a), bounds(b))
        w, s = need(lo, hi)
        if w > MAX_WIDTH:
            cx.refuse(f"a value of {w} bits", "keep values within the registers' width (mask with &)")
        compute = op != "band" or (isinstance(a, SymInt) and isinstance(b, SymInt))
        bk, a, b = _place(cx, w, a, b, compute=compute)
        return make_int(cx, bk, getattr(bk, op)(fit(bk, a, w), fit(bk, b, w)), w, s, lo, hi)

    def __add__(self, other):
        return self._ring(other, "add", lambda a, b: (a[0] + b[0], a[1] + b[1]))

    def __radd__(self, other):
        return self._ring(other, "add", lambda a, b: (a[0] + b[0], a[1] + b[1]), True)

    def __sub__(self, other):
        return self._ring(other, "sub", lambda a, b: (a[0] - b[1], a[1] - b[0]))

    def __rsub__(self, other):
        return self._ring(other, "sub", lambda a, b: (a[0] - b[1], a[1] - b[0]), True)

    def __mul__(self, other):
        return self._ring(other, "mul", _mul_bounds)

    def __rmul__(self, other):
        return self._ring(other, "mul", _mul_bounds, True)

    def __and__(self, other):
        return self._ring(other, "band", _and_bounds)

    __rand__ = __and__

    def __or__(self, other):
        return self._ring(other, "bor", _or_bounds)

    __ror__ = __or__

    def __xor__(self, other):
        return self._ring(other, "xor", _xor_bounds)

    __rxor__ = __xor__

    def __neg__(self):
        cx = _cx(self)
        if negation_of(self) is not None:  # -(-y) is y: no term for it
            return self.negated
        lo, hi = -self.hi, -self.lo
        w, s = need(lo, hi)
        bk, x = _place(cx, w, self, compute=True)
        result = make_int(cx, bk, bk.neg(fit(bk, x, w)), w, s, lo, hi)
        if type(result) is SymInt:
            result.negated = self
        return result

    def __pos__(self):
        _cx(self)
        return self

    def __invert__(self):
        cx = _cx(self)
        lo, hi = -self.hi - 1, -self.lo - 1
        w, s = need(lo, hi)
        bk, x = _place(cx, w, self, compute=True)
        return make_int(cx, bk, bk.bnot(fit(bk, x, w)), w, s, lo, hi)

    def __abs__(self):
        cx = _cx(self)
        if self.lo >= 0:
            return self
        if self.hi <= 0:
            return -self
        negative = self < 0
        return merge_ints(cx, negative, -self, self)

    # shifts -------------------------------------------------------------------------------
    def __lshift__(self, other):
        other = _numeric(other)
        if other is NotImplemented:
            return NotImplemented
        return _shift_left(self, other)

    def __rlshift__(self, other):
        other = _numeric(other)
        if other is NotImplemented:
            return NotImplemented
        return _shift_left(other, self)

    def __rshift__(self, other):
        other = _numeric(other)
        if other is NotImplemented:
            return NotImplemented
        return _shift_right(self, other)

    def __rrshift__(self, other):
        other = _numeric(other)
        if other is NotImplemented:
            return NotImplemented
        return _shift_right(other, self)

    # division -----------------------------------------------------------------------------
    def __floordiv__(self, other):
        other = _numeric(other)
        return NotImplemented if other is NotImplemented else _divmod(self, other)[0]

    def __rfloordiv__(self, other):
        other = _numeric(other)
        return NotImplemented if other is NotImplemented else _divmod(other, self)[0]

    def __mod__(self, other):
        other = _numeric(other)
        return NotImplemented if other is NotImplemented else _divmod(self, other)[1]

    def __rmod__(self, other):
        other = _numeric(other)
        return NotImplemented if other is NotImplemented else _divmod(other, self)[1]

    def __divmod__(self, other):
        other = _numeric(other)
        return NotImplemented if other is NotImplemented else _divmod(self, other)

    def __rdivmod__(self, other):
        other = _numeric(other)
        return NotImplemented if other is NotImplemented else _divmod(other, self)

    def __truediv__(self, other):
        _cx(self).refuse("/ (true division, a float) of a symbolic value", "use // for integer division")

    __rtruediv__ = __truediv__

    def __pow__(self, other, modulo=None):
        cx = _cx(self)
        if modulo is None and type(other) is int and 0 <= other <= POW_LIMIT:
            result = 1
            for _ in range(other):
                result = result * self
            return result
        cx.refuse(
            "** of a symbolic value (other than by a small constant exponent)",
            "multiply it out, or use << for powers of two",
        )

    def __rpow__(self, other):
        if type(other) is int and other == 2:
            return 1 << self
        _cx(self).refuse("a power with a symbolic exponent", "use 1 << n for powers of two")

    # comparisons --------------------------------------------------------------------------
    def __eq__(self, other):
        return _compare(self, other, "eq")

    def __ne__(self, other):
        result = _compare(self, other, "eq")
        return result if result is NotImplemented else _not(result)

    def __lt__(self, other):
        return _compare(self, other, "lt")

    def __le__(self, other):
        return _compare(self, other, "le")

    def __gt__(self, other):
        other = _numeric(other)
        return NotImplemented if other is NotImplemented else _compare(other, self, "lt")

    def __ge__(self, other):
        other = _numeric(other)
        return NotImplemented if other is NotImplemented else _compare(other, self, "le")

    # where a Python value is needed -------------------------------------------------------
    def __bool__(self):
        cx = _cx(self)
        return cx.decide(self != 0, "a Python truth test (if/while/and/or/not/bool())")

    def __index__(self):
        return _cx(self).concretize(self, "use as an int (an index, range(), int(), hex(), struct, bytes)")

    def __int__(self):
        return _cx(self).concretize(self, "int()")

    def __hash__(self):
        return hash(_cx(self).concretize(self, "hash() (a dict key, a set member)"))

    def __str__(self):
        return str(_cx(self).concretize(self, "str() or print"))

    def __format__(self, spec):
        return format(_cx(self).concretize(self, "format() (an f-string)"), spec)

    def __float__(self):
        _cx(self).refuse("float() of a symbolic value", "compute with ints")

    __complex__ = __float__

    def __array__(self, *args, **kwargs):
        _cx(self).refuse(
            "a numpy array of symbolic values",
            "numpy arrays hold machine integers, not symbolic values: keep elements in a "
            "Python list of ints (numpy is refused while proving)",
        )

    __array_interface__ = property(__array__)
    __array_struct__ = property(__array__)

    def __round__(self, ndigits=None):
        if ndigits is None or (type(ndigits) is int and ndigits >= 0):
            return self
        _cx(self).refuse("round() to tens of a symbolic value", "use // and *")

    def __trunc__(self):
        return self

    __floor__ = __ceil__ = __trunc__

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self

    def __reduce__(self):
        _cx(self).refuse("pickling a symbolic value", "keep values in memory")

    # int's methods and attributes ---------------------------------------------------------
    real = numerator = property(lambda self: self)
    imag = property(lambda self: 0)
    denominator = property(lambda self: 1)

    def conjugate(self):
        return self

    def as_integer_ratio(self):
        return self, 1

    def is_integer(self):
        return True

    def bit_length(self):
        cx = _cx(self)
        x = abs(self) if self.lo < 0 else self
        if not isinstance(x, SymInt):
            return int(x).bit_length()
        if x.w > 4096:
            cx.refuse("bit_length() of a very wide symbolic value", "compare against powers of two")
        result = 0
        for k in range(1, x.hi.bit_length() + 1):
            result = merge_ints(cx, x >= (1 << (k - 1)), k, result)
        return result

    def bit_count(self):
        cx = _cx(self)
        x = abs(self) if self.lo < 0 else self
        if not isinstance(x, SymInt):
            return bin(x).count("1")
        if x.w > 4096:
            cx.refuse("bit_count() of a very wide symbolic value", "count the bits with >> and &")
        total = 0
        for k in range(x.hi.bit_length()):
            total = total + (x >> k & 1)
        return total

    def to_bytes(self, *args, **kwargs):
        from vredmax.proofs.python.symbytes import to_bytes  # bytes of symbolic values

        return to_bytes(self, *args, **kwargs)


def _mul_bounds(a, b):
    corners = [a[0] * b[0], a[0] * b[1], a[1] * b[0], a[1] * b[1]]
    return min(corners), max(corners)


def _generic_bounds(a, b):
    width = max(need(*a)[0] + (not need(*a)[1]), need(*b)[0] + (not need(*b)[1]))
    return -(1 << (width - 1)), (1 << (width - 1)) - 1


def _and_bounds(a, b):
    if a[0] >= 0 and b[0] >= 0:
        return 0, min(a[1], b[1])
    if a[0] >= 0:
        return 0, a[1]
    if b[0] >= 0:
        return 0, b[1]
    return _generic_bounds(a, b)


def _or_bounds(a, b):
    if a[0] >= 0 and b[0] >= 0:
        return max(a[0], b[0]), (1 << max(a[1].bit_length(), b[1].bit_length())) - 1
    return _generic_bounds(a, b)


def _xor_bounds(a, b):
    if a[0] >= 0 and b[0] >= 0:
        return 0, (1 << max(a[1].bit_length(), b[1].bit_length())) - 1
    return _generic_bounds(a, b)


def _shift_left(a, n):
    """a << n with Python's meaning (ValueError for a negative count)."""
    if not isinstance(n, SymInt):
        if n < 0:
            raise ValueError("negative shift count")
        if not isinstance(a, SymInt):
            return a << n
        cx = _cx(a)
        lo, hi = a.lo << n, a.hi << n
        w, s = need(lo, hi)
        if w > MAX_WIDTH:
            cx.refuse(f"a shift giving a value of {w} bits", "keep values within the registers' width")
        bk, a = _place(cx, w, a)
        return make_int(cx, bk, bk.shl(fit(bk, a, w), bk.bv(n, w)), w, s, lo, hi)
    cx = _cx(a, n)
    n = _nonnegative_count(cx, n)
    if not isinstance(n, SymInt):
        return _shift_left(a, n)
    alo, ahi = bounds(a)
    corners = [alo << n.lo, alo << n.hi, ahi << n.lo, ahi << n.hi]
    lo, hi = min(corners), max(corners)
    w, s = need(lo, hi)
    if w > MAX_WIDTH or n.hi > MAX_WIDTH:
        cx.refuse(f"a shift by a symbolic amount up to {n.hi}", "bound the amount first (mask it with &)")
    bk, a, n = _place(cx, w, a, n)
    return make_int(cx, bk, bk.shl(fit(bk, a, w), fit(bk, n, w)), w, s, lo, hi)


def _shift_right(a, n):
    """a >> n: floor division by 2**n (ValueError for a negative count)."""
    if not isinstance(n, SymInt):
        if n < 0:
            raise ValueError("negative shift count")
        if not isinstance(a, SymInt):
            return a >> n
        cx = _cx(a)
        lo, hi = a.lo >> n, a.hi >> n
        w, s = need(lo, hi)
        bk, a = _place(cx, a.w, a)
        if not a.s:
            return make_int(cx, bk, bk.extract(a.t, a.w - 1, n) if n < a.w else bk.bv(0, 1), w, s, lo, hi)
        shifted = bk.ashr(a.t, bk.bv(min(n, a.w - 1), a.w))
        return make_int(cx, bk, bk.extract(shifted, w - 1, 0) if w < a.w else shifted, w, s, lo, hi)
    cx = _cx(a, n)
    n = _nonnegative_count(cx, n)
    if not isinstance(n, SymInt):
        return _shift_right(a, n)
    alo, ahi = bounds(a)
    corners = [alo >> n.lo, alo >> min(n.hi, MAX_WIDTH), ahi >> n.lo, ahi >> min(n.hi, MAX_WIDTH)]
    lo, hi = min(corners), max(corners)
    w, s = need(lo, hi)
    at = max(signed_width(a) if (isinstance(a, SymInt) and a.s) or alo < 0 else need(alo, ahi)[0], n.w)
    bk, a, n = _place(cx, at, a, n)
    ta, tn = fit(bk, a, at), fit(bk, n, at)
    shifted = bk.ashr(ta, tn) if alo < 0 else bk.lshr(ta, tn)
    return make_int(cx, bk, bk.extract(shifted, w - 1, 0) if w < at else shifted, w, s, lo, hi)


def _nonnegative_count(cx, n):
    """A symbolic shift count, with the path where it is negative raising as Python does."""
    if n.lo < 0:
        if decided(cx, n < 0, "a shift count that may be negative"):
            raise ValueError("negative shift count")
        return SymInt(cx, n.bk, n.t, n.w, n.s, 0, n.hi) if n.hi > 0 else 0
    return n


def decided(cx, cond, what: str) -> bool:
    """A condition's Python value: itself when it is a bool, else the context's decision."""
    return cx.decide(cond, what) if isinstance(cond, SymBool) else bool(cond)


def _divmod(a, b):
    """(a // b, a % b) with Python's meaning (floor; ZeroDivisionError for b == 0)."""
    if not isinstance(a, SymInt) and not isinstance(b, SymInt):
        return divmod(a, b)
    cx = _cx(a, b)
    if not isinstance(b, SymInt):
        if b == 0:
            raise ZeroDivisionError("integer division or modulo by zero")
    elif b.lo <= 0 <= b.hi and decided(cx, b == 0, "a divisor that may be zero"):
        raise ZeroDivisionError("integer division or modulo by zero")
    alo, ahi = bounds(a)
    blo, bhi = bounds(b)
    if not isinstance(b, SymInt):
        qlo, qhi = sorted((alo // b, ahi // b))
        rlo, rhi = (0, b - 1) if b > 0 else (b + 1, 0)
        if 0 <= alo and ahi < b:
            rlo, rhi = alo, ahi
    else:
        m = max(abs(alo), abs(ahi))
        qlo, qhi = -m, m
        top = max(abs(blo), abs(bhi)) - 1
        rlo, rhi = (0, top) if blo > 0 else (-top, top)
    if isinstance(b, SymInt) and alo >= 0 and blo > 0:
        qlo, qhi, rlo, rhi = alo // bhi, ahi // blo, 0, min(ahi, bhi - 1)
    qw, rw = need(qlo, qhi)[0], need(rlo, rhi)[0]
    bk, a, b = _place(cx, max(signed_width(a), signed_width(b), qw, rw) + 2, a, b, compute=True)
    if alo >= 0 and blo > 0:
        at = max(need(alo, ahi)[0], need(blo, bhi)[0], qw, rw)
        ta, tb = fit(bk, a, at), fit(bk, b, at)
        q, r = bk.udiv(ta, tb), bk.urem(ta, tb)
    else:
        at = max(signed_width(a), signed_width(b), qw + 1, rw + 1) + 1
        ta, tb = fit(bk, a, at), fit(bk, b, at)
        r = bk.smod(ta, tb)  # the sign of the divisor: Python's %
        q = bk.sdiv(bk.sub(ta, r), tb)  # exact
    qw, qs = need(qlo, qhi)
    rw, rs = need(rlo, rhi)
    return (
        make_int(cx, bk, _low(bk, q, at, qw), qw, qs, qlo, qhi),
        make_int(cx, bk, _low(bk, r, at, rw), rw, rs, rlo, rhi),
    )


def _low(bk, t, width, w):
    return bk.extract(t, w - 1, 0) if w < width else t


def _compare(a, b, op):
    """a == b, a < b or a <= b as a condition (a Python bool when the bounds decide it)."""
    a, b = _numeric(a), _numeric(b)
    if a is NotImplemented or b is NotImplemented:
        return NotImplemented
    if not isinstance(a, SymInt) and not isinstance(b, SymInt):
        return {"eq": a == b, "lt": a < b, "le": a <= b}[op]
    cx = _cx(a, b)
    alo, ahi = bounds(a)
    blo, bhi = bounds(b)
    if op == "eq" and (ahi < blo or bhi < alo):
        return False
    if op == "lt" and (ahi < blo or alo >= bhi):
        return ahi < blo
    if op == "le" and (ahi <= blo or alo > bhi):
        return ahi <= blo
    if alo >= 0 and blo >= 0:
        # at the width of the terms (not of the bounds): `i < vl` is the spec's ULT(i, vl)
        w = max(
            a.w if isinstance(a, SymInt) else need(alo, ahi)[0],
            b.w if isinstance(b, SymInt) else need(blo, bhi)[0],
        )
        names = {"eq": "eq", "lt": "ult", "le": "ule"}
    else:
        w = max(signed_width(a), signed_width(b))
        names = {"eq": "eq", "lt": "slt", "le": "sle"}
    bk, a, b = _place(cx, w, a, b, compute=True)
    return make_bool(cx, bk, getattr(bk, names[op])(fit(bk, a, w), fit(bk, b, w)))


def _not(cond):
    if isinstance(cond, SymBool):
        return make_bool(cond.cx, cond.bk, cond.bk.not_(cond.t))
    return not cond


def merge_ints(cx, cond, a, b):
    """`a if cond else b` for int-like a and b, without a truth test of cond."""
    if not isinstance(cond, SymBool):
        return a if cond else b
    a, b = _numeric(a), _numeric(b)
    if a is b or (type(a) is int and type(b) is int and a == b):
        return a
    negated = negations(a, b)
    if negated is not None:  # `-x if c else -y` is -(x if c else y): a negation still
        return -merge_ints(cx, cond, *negated)
    (alo, ahi), (blo, bhi) = bounds(a), bounds(b)
    lo, hi = min(alo, blo), max(ahi, bhi)
    w, s = need(lo, hi)
    if not s:  # at the operands' own width: a register stays a VLEN-bit term
        w = max([w] + [x.w for x in (a, b) if isinstance(x, SymInt) and not x.s])
    bk, cond, a, b = _place(cx, w, cond, a, b, compute=True)
    return make_int(cx, bk, bk.ite(cond.t, fit(bk, a, w), fit(bk, b, w)), w, s, lo, hi)


def merge_bools(cx, cond, a, b):
    """`a if cond else b` for bool-like a and b."""
    if not isinstance(cond, SymBool):
        return a if cond else b
    if a is b:
        return a
    if a is True and isinstance(b, SymBool) and _complementary(cond, b):
        return True  # `c ? True : not c`: a flag set on both ways
    if a is True and b is False:
        return cond
    if a is False and b is True:
        return _not(cond)
    bk, cond, a, b = _place(cx, 1, cond, a, b)
    if a is cond or (isinstance(a, SymBool) and a.t is cond.t):  # c ? c : b is c or b
        return make_bool(cx, bk, bk.or_(cond.t, b.t if isinstance(b, SymBool) else bk.boolean(b)))
    if a is True:
        return make_bool(cx, bk, bk.or_(cond.t, b.t))
    if b is False:
        return make_bool(cx, bk, bk.and_(cond.t, a.t))
    ta = a.t if isinstance(a, SymBool) else bk.boolean(a)
    tb = b.t if isinstance(b, SymBool) else bk.boolean(b)
    return make_bool(cx, bk, bk.ite(cond.t, ta, tb))


# SymBool ---------------------------------------------------------------------------------


class SymBool:
    """A Python bool whose value is a Boolean term."""

    __slots__ = ("cx", "bk", "t", "__weakref__")

    def __init__(self, cx, bk, t):
        self.cx, self.bk, self.t = cx, bk, t

    __class__ = property(lambda self: bool)

    def __repr__(self):
        return "<symbolic bool>"

    def as_int(self) -> SymInt:
        bk = self.bk
        return SymInt(self.cx, bk, bk.ite(self.t, bk.bv(1, 1), bk.bv(0, 1)), 1, False, 0, 1)

    def __bool__(self):
        return _cx(self).decide(self, "a Python truth test (if/while/and/or/not/bool())")

    def __index__(self):
        return int(bool(self))

    __int__ = __index__

    def __hash__(self):
        return hash(bool(self))

    def __str__(self):
        return str(bool(self))

    def __format__(self, spec):
        return format(bool(self), spec)

    def __float__(self):
        _cx(self).refuse("float() of a symbolic condition", "compute with ints")

    def __array__(self, *args, **kwargs):
        SymInt.__array__(self.as_int())

    __array_interface__ = property(__array__)

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self

    def _logic(self, other, op, reverse=False):
        if isinstance(other, SymBool) or type(other) is bool:
            cx = _cx(self, other)
            bk, a, b = _place(cx, 1, self, other)
            ta = a.t
            tb = b.t if isinstance(b, SymBool) else bk.boolean(b)
            if op == "xor":
                return make_bool(cx, bk, bk.not_(_eq_term(bk, ta, tb)))
            return make_bool(cx, bk, getattr(bk, op)(ta, tb))
        return None

    def __and__(self, other):
        result = self._logic(other, "and_")
        return result if result is not None else self.as_int() & other

    def __rand__(self, other):
        result = self._logic(other, "and_")
        return result if result is not None else other & self.as_int()

    def __or__(self, other):
        result = self._logic(other, "or_")
        return result if result is not None else self.as_int() | other

    def __ror__(self, other):
        result = self._logic(other, "or_")
        return result if result is not None else other | self.as_int()

    def __xor__(self, other):
        result = self._logic(other, "xor")
        return result if result is not None else self.as_int() ^ other

    def __rxor__(self, other):
        result = self._logic(other, "xor")
        return result if result is not None else other ^ self.as_int()

    def __eq__(self, other):
        if isinstance(other, SymBool) or type(other) is bool:
            result = self._logic(other, "xor")
            return _not(result)
        return self.as_int() == other

    def __ne__(self, other):
        if isinstance(other, SymBool) or type(other) is bool:
            return self._logic(other, "xor")
        return self.as_int() != other

    # the int operations (bool is an int)
    def __lt__(self, other):
        return self.as_int() < other

    def __le__(self, other):
        return self.as_int() <= other

    def __gt__(self, other):
        return self.as_int() > other

    def __ge__(self, other):
        return self.as_int() >= other

    def __add__(self, other):
        return self.as_int() + other

    def __radd__(self, other):
        return other + self.as_int()

    def __sub__(self, other):
        return self.as_int() - other

    def __rsub__(self, other):
        return other - self.as_int()

    def __mul__(self, other):
        return self.as_int() * other

    def __rmul__(self, other):
        return other * self.as_int()

    def __lshift__(self, other):
        return self.as_int() << other

    def __rlshift__(self, other):
        return other << self.as_int()

    def __rshift__(self, other):
        return self.as_int() >> other

    def __rrshift__(self, other):
        return other >> self.as_int()

    def __floordiv__(self, other):
        return self.as_int() // other

    def __rfloordiv__(self, other):
        return other // self.as_int()

    def __mod__(self, other):
        return self.as_int() % other

    def __rmod__(self, other):
        return other % self.as_int()

    def __neg__(self):
        return -self.as_int()

    def __pos__(self):
        return self.as_int()

    def __invert__(self):
        return ~self.as_int()

    def __abs__(self):
        return self.as_int()

    real = numerator = property(lambda self: self.as_int())
    imag = property(lambda self: 0)
    denominator = property(lambda self: 1)

    def bit_length(self):
        return self.as_int()

    def to_bytes(self, *args, **kwargs):
        return self.as_int().to_bytes(*args, **kwargs)  # refused, as an int's


def both(cx, a: "SymBool", b: "SymBool") -> "SymBool":
    """a and b as one SymBool, on their common backend (a guard on a machine condition and one
    on a traced condition meet here: proofs/python/paths.py)."""
    bk, a, b = _place(cx, 1, a, b)
    return make_bool(cx, bk, bk.and_(a.t, b.t))


def _complementary(x: "SymBool", y: "SymBool") -> bool:
    """Is x, as a term, the negation of y (or y of x)?"""
    if x.bk is not y.bk:
        return False
    return x.bk.is_not_of(x.t, y.t) or x.bk.is_not_of(y.t, x.t)


def _eq_term(bk, a, b):
    return bk.or_(bk.and_(a, b), bk.and_(bk.not_(a), bk.not_(b)))


def is_symbolic(x) -> bool:
    return type(x) is SymInt or type(x) is SymBool


def truth(x):
    """The condition `bool(x)` without deciding it: a Python bool or a SymBool (of a bit:
    `bit == 1`, the spec's form)."""
    if type(x) is SymBool:
        return x
    if type(x) is SymInt:
        return x == 1 if x.w == 1 and not x.s else x != 0
    return bool(x)
