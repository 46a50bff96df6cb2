"""What the user's code is handed: the element ops, the machine ops, the pre-state, the fields.

The same objects in every run, concrete or symbolic, so that the code takes the same path on
both (one program):

- `ElementOps` (`ops` of a reduction unit, `m.elements(sew)` of a whole instruction): the
  element ops of spec/bv.py over a backend (Python ints, Z3 terms, the cut-point tracer).
  Their arguments are checked the same way in every run (an element value is an int in
  0..2^SEW-1: a Python int or a symbolic one proved in range; a condition is a bool), and
  their results are Python ints and bools concretely, `SymInt`/`SymBool` (values.py) while
  proving, Python constants whenever the result is one.
- `ProxyMachine` (`m` of a whole instruction while proving): spec/bv.py's `Concrete`
  machine ops, computed with the symbolic values' operators (so each means what it means on
  the ints of the concrete run); the register file is a `SymRegs`, a tuple of 32 symbolic
  ints read and written by symbolic register numbers.

`ops.symbolic` and `m.symbolic` are False in every run: code that asked would otherwise take
another path while proving than on a real state.
"""

from __future__ import annotations

from dataclasses import dataclass

import z3

from vredmax.proofs.python import values as V
from vredmax.proofs.python.terms import TraceTerms, Z3Terms, is_numeral, kind
from vredmax.spec import z3fast as fast
from vredmax.proofs.python.trace import BOOL, Term, TraceElements
from vredmax.spec.bv import Concrete, ConcreteElements, Z3Elements
from vredmax.spec.state import NUM_VREGS, ArchState

V.internal(__file__)

Z3 = Z3Terms()


def _refuse(what: str, advice: str):
    cx = V.active()
    if cx is not None:
        cx.refuse(what, advice)
    location = V.where()
    raise V.Refusal(f"{location[0]}:{location[1]}: {what}; {advice}")


def _natural(x) -> int:
    """The bits a nonnegative element argument needs."""
    return x.w if isinstance(x, V.SymInt) else max(1, x.bit_length())


class ElementOps:
    """The element ops of spec/bv.py over `base`, checked and wrapped (module docstring)."""

    symbolic = False

    def __init__(self, base, bk=None):
        self.base, self.bk = base, bk
        self.width = base.width
        self.mask = (1 << base.width) - 1
        self.true, self.false = True, False

    # arguments ------------------------------------------------------------------------------
    def _value(self, op, x, width=None):
        """x as an argument of `op`: a Python int in range concretely, a backend term (or a
        Python int) symbolically; refused otherwise, in every run alike."""
        width = width or self.width
        if type(x) is int:
            if 0 <= x < 1 << width:
                return x
            _refuse(
                f"ops.{op} got {x}, not a {width}-bit value (0..{(1 << width) - 1})",
                "make constants with ops.const(value), which takes any int",
            )
        if isinstance(x, V.SymInt):
            if x.lo >= 0 and x.hi < 1 << width:
                return V.fit(self.bk, self._own(x), width)
            _refuse(
                f"ops.{op} got a value that may be outside 0..{(1 << width) - 1} (it may be {x.lo}.."
                f"{x.hi}: a Python + - * or ~ result?)",
                f"keep it in range (& {hex((1 << width) - 1)}) or use ops.add / ops.sub / ops.bnot",
            )
        if isinstance(x, (bool, V.SymBool)):
            _refuse(
                f"ops.{op} got a condition (a bool) where a value is expected",
                "turn it into a value with ops.ite(condition, a, b)",
            )
        _refuse(f"ops.{op} got {type(x).__name__} {_short(x)}, not an element value", "pass ints")

    def _cond(self, op, c):
        if type(c) is bool:
            return c if not self.base.symbolic else (self.base.true if c else self.base.false)
        if isinstance(c, V.SymBool):
            return self._own(c).t
        _refuse(
            f"ops.{op} got {_describe(c)} where a condition (a bool) is expected",
            "compare values to get one (ops.sgt, ops.eq, ops.ne(x, ops.const(0)), ...)",
        )

    def _own(self, x):
        """x in this backend (a machine value handed to the reduction becomes a trace leaf)."""
        if x.bk is self.bk:
            return x
        return V.active().lift(x, self.bk)

    def _wrap(self, result):
        if not self.base.symbolic:
            return result
        cx = V.active()
        if isinstance(result, Term) or isinstance(result, z3.ExprRef):
            width = self.bk.width(result)
            if width == BOOL:
                return V.make_bool(cx, self.bk, result)
            return V.make_int(cx, self.bk, result, width, False, 0, (1 << width) - 1)
        return result

    def _pair_width(self, a, b):
        return max(
            self.width,
            *(_natural(x) for x in (a, b) if isinstance(x, V.SymInt) or (type(x) is int and x >= 0)),
        )

    def _call(self, name, *args):
        if not self.base.symbolic:
            return getattr(self.base, name)(*args)
        terms = [self.bk.bv(a, self.width) if type(a) is int else a for a in args]
        return self._wrap(getattr(self.base, name)(*terms))

    # constants ------------------------------------------------------------------------------
    def const(self, value):
        if isinstance(value, V.SymInt):
            return value & self.mask
        if type(value) is not int:
            _refuse(f"ops.const takes an int, got {_describe(value)}", "pass an int")
        return value & self.mask

    def smin(self):
        return 1 << (self.width - 1)

    def to_signed(self, value):
        value = self._value_in_range("to_signed", value)
        return value - ((value >> (self.width - 1)) << self.width)

    def _value_in_range(self, op, x):
        self._value(op, x)
        return x

    # element-wide operations ----------------------------------------------------------------
    def _binary(name):
        def method(self, a, b):
            return self._call(name, self._value(name, a), self._value(name, b))

        method.__name__ = name
        return method

    smax, umax, add, sub = _binary("smax"), _binary("umax"), _binary("add"), _binary("sub")
    sgt, sge, slt, sle = _binary("sgt"), _binary("sge"), _binary("slt"), _binary("sle")
    ugt, uge, ult, ule = _binary("ugt"), _binary("uge"), _binary("ult"), _binary("ule")

    def _unary(name):
        def method(self, a):
            return self._call(name, self._value(name, a))

        method.__name__ = name
        return method

    bnot, neg = _unary("bnot"), _unary("neg")

    def _bitwise(name):
        def method(self, a, b):
            width = self._pair_width(a, b)
            a, b = self._value(name, a, width), self._value(name, b, width)
            if not self.base.symbolic:
                return getattr(self.base, name)(a, b)
            if type(a) is int and type(b) is int:
                return getattr(ConcreteElements(width), name)(a, b)
            terms = [self.bk.bv(x, width) if type(x) is int else x for x in (a, b)]
            return self._wrap(getattr(self.base, name)(*terms))

        method.__name__ = name
        return method

    xor, band, bor, eq, ne = (
        _bitwise("xor"),
        _bitwise("band"),
        _bitwise("bor"),
        _bitwise("eq"),
        _bitwise("ne"),
    )

    def _shift(name):
        def method(self, a, amount):
            a = self._value(name, a)
            if type(amount) is int:
                if amount < 0:
                    _refuse(f"ops.{name} by a negative amount {amount}", "shift by 0 or more")
            else:
                amount = self._value(name, amount)
            if not self.base.symbolic:
                return getattr(self.base, name)(a, amount)
            if type(a) is int and type(amount) is int:
                return getattr(ConcreteElements(self.width), name)(a, amount)
            a = self.bk.bv(a, self.width) if type(a) is int else a
            return self._wrap(getattr(self.base, name)(a, amount))

        method.__name__ = name
        return method

    shl, lshr, ashr = _shift("shl"), _shift("lshr"), _shift("ashr")

    # sub-words ------------------------------------------------------------------------------
    def extract(self, a, hi, lo):
        if not (type(hi) is int and type(lo) is int and 0 <= lo <= hi):
            _refuse(f"ops.extract(x, {hi!r}, {lo!r}): hi and lo must be ints with 0 <= lo <= hi", "pass ints")
        width = max(self.width, hi + 1, _natural(a) if isinstance(a, V.SymInt) else 0)
        a = self._value("extract", a, width)
        if type(a) is int:
            return a >> lo & ((1 << (hi - lo + 1)) - 1)
        if not self.base.symbolic:
            return self.base.extract(a, hi, lo)
        if hi >= self.bk.width(a):
            a = self.bk.zext(a, hi + 1)
        return self._wrap(self.bk.extract(a, hi, lo))

    def concat(self, hi, lo, lo_width):
        if type(lo_width) is not int or lo_width < 1:
            _refuse(f"ops.concat's lo_width must be a positive int, got {lo_width!r}", "pass an int")
        lo_value = self._value("concat", lo, lo_width)
        hi_width = max(
            1, _natural(hi) if isinstance(hi, V.SymInt) or (type(hi) is int and hi >= 0) else self.width
        )
        hi_value = self._value("concat", hi, hi_width)
        if not self.base.symbolic or (type(hi_value) is int and type(lo_value) is int):
            return hi_value << lo_width | lo_value
        terms = [
            self.bk.bv(v, w) if type(v) is int else V.fit(self.bk, self._own(x), w)
            for v, x, w in ((hi_value, hi, hi_width), (lo_value, lo, lo_width))
        ]
        return self._wrap(self.bk.concat(*terms))

    def _extend(name):
        def method(self, a, width):
            if type(width) is not int or not 1 <= width <= self.width:
                _refuse(f"ops.{name}(x, {width!r}): the width must be an int 1..{self.width}", "pass an int")
            a = self._value(name, a, width)
            if not self.base.symbolic or type(a) is int:
                return getattr(ConcreteElements(self.width), name)(a, width)
            return self._wrap(
                getattr(self.bk, name)(a, self.width) if name == "zext" else self.bk.sext(a, self.width)
            )

        method.__name__ = name
        return method

    zext, sext = _extend("zext"), _extend("sext")

    # conditions -----------------------------------------------------------------------------
    def ite(self, c, a, b):
        c = self._cond("ite", c)
        boolean = [isinstance(x, (bool, V.SymBool)) for x in (a, b)]
        if any(boolean):
            if not all(boolean):
                _refuse(
                    "ops.ite got a condition and a value as its choices",
                    "choose between two values or two conditions",
                )
            if not self.base.symbolic:
                return a if c else b
            return V.merge_bools(V.active(), self._wrap(c) if not isinstance(c, bool) else c, a, b)
        width = self._pair_width(a, b)
        a, b = self._value("ite", a, width), self._value("ite", b, width)
        if not self.base.symbolic:
            return a if c else b
        if type(c) is bool or self.bk.value_of(c) is not None:
            chosen = c if type(c) is bool else self.bk.value_of(c)
            return self._wrap(a) if chosen else self._wrap(b)
        if type(a) is int and type(b) is int and a == b:
            return a
        terms = [self.bk.bv(x, width) if type(x) is int else x for x in (a, b)]
        return self._wrap(self.base.ite(c, *terms))

    def _logic(name):
        def method(self, *args):
            conds = [self._cond(name, c) for c in args]
            if not self.base.symbolic:
                return getattr(self.base, name)(*conds)
            return self._wrap(getattr(self.base, name)(*conds))

        method.__name__ = name
        return method

    and_, or_, not_ = _logic("and_"), _logic("or_"), _logic("not_")

    def __repr__(self):
        return f"<element ops, {self.width}-bit>"


def element_ops(base) -> ElementOps:
    """The checked element ops over a backend's (ConcreteElements, Z3Elements, TraceElements)."""
    if isinstance(base, TraceElements):
        return ElementOps(base, trace_terms(base.tracer))
    if isinstance(base, Z3Elements):
        return ElementOps(base, Z3)
    return ElementOps(base)


_TRACE_TERMS: dict = {}


def trace_terms(tracer) -> TraceTerms:
    found = _TRACE_TERMS.get(id(tracer))
    if found is None or found.tracer is not tracer:
        found = _TRACE_TERMS[id(tracer)] = TraceTerms(tracer)
    return found


def _short(x) -> str:
    text = repr(x)
    return text if len(text) <= 40 else text[:37] + "..."


def _describe(x) -> str:
    if isinstance(x, V.SymInt):
        return "a symbolic int"
    return f"{type(x).__name__} {_short(x)}"


# The machine ops -------------------------------------------------------------------------


class ConcreteMachine(Concrete):
    """spec/bv.py's Concrete, with the checked element ops."""

    symbolic = False

    @staticmethod
    def elements(width: int) -> ElementOps:
        return ElementOps(ConcreteElements(width))


class ProxyMachine:
    """The machine ops while proving: Concrete's definitions on symbolic values (so each one
    means on them what it means on ints), the register file a SymRegs."""

    symbolic = False

    def __init__(self, element_base):
        self._element_base = element_base  # width -> the backend's element ops
        self.true, self.false = True, False

    def elements(self, width: int) -> ElementOps:
        return element_ops(self._element_base(width))

    @staticmethod
    def decided(cond):
        return None if isinstance(cond, V.SymBool) else bool(cond)

    @staticmethod
    def all_(*conds):
        result = True
        for c in conds:
            result = V.bool_and(result, V.truth(c))
        return result

    @staticmethod
    def any_(*conds):
        result = False
        for c in conds:
            result = V.bool_or(result, V.truth(c))
        return result

    @staticmethod
    def not_(cond):
        return V.bool_not(V.truth(cond))

    @staticmethod
    def ite(cond, a, b):
        return merge(V.active(), V.truth(cond), a, b)

    @staticmethod
    def eq(a, b):
        return a == b

    @staticmethod
    def ult(a, b):
        return a < b

    @staticmethod
    def const(value, width):
        return value & ((1 << width) - 1)

    @staticmethod
    def bit(value, i):
        return V.truth(value >> i & 1)

    @staticmethod
    def low_bits(value, n):
        return value & ((1 << n) - 1)

    @staticmethod
    def add(a, b, width):
        return (a + b) & ((1 << width) - 1)

    @staticmethod
    def read(regs, index):
        return regs[index]

    @staticmethod
    def write(regs, index, value):
        if isinstance(regs, SymRegs):
            return regs.stored(index, value)
        if any(isinstance(x, V.SymInt) for x in (index,)):
            return SymRegs.of(regs).stored(index, value)
        return regs[:index] + (value,) + regs[index + 1 :]

    @staticmethod
    def extract(value, hi, lo):
        return value >> lo & ((1 << (hi - lo + 1)) - 1)

    @staticmethod
    def concat(hi, lo, lo_width):
        return hi << lo_width | lo

    @staticmethod
    def split(value, width, count):
        if isinstance(value, V.SymInt) and not value.s:  # the same values, one extraction each
            return [_field(value, i * width, width) for i in range(count)]
        value = value & ((1 << count * width) - 1)
        mask = (1 << width) - 1
        return [value >> (i * width) & mask for i in range(count)]

    @staticmethod
    def bits(value, count):
        if isinstance(value, V.SymInt) and not value.s:
            return [V.truth(_field(value, i, 1)) for i in range(count)]
        return [V.truth(value >> i & 1) for i in range(count)]

    def __repr__(self):
        return "<machine ops>"


def _field(value: V.SymInt, lo: int, width: int):
    """`value >> lo & (2**width - 1)` of a nonnegative symbolic int, as one extraction."""
    if lo >= value.w:
        return 0
    hi = min(lo + width, value.w) - 1
    return V.make_int(
        value.cx,
        value.bk,
        value.bk.extract(value.t, hi, lo),
        hi - lo + 1,
        False,
        0,
        min((1 << (hi - lo + 1)) - 1, value.hi >> lo),
    )


def merge(cx, cond, a, b):
    """`a if cond else b` for the values a machine or a merged branch holds: ints, bools,
    register files, tuples of them, the same object; refused otherwise."""
    if not isinstance(cond, V.SymBool):
        return a if cond else b
    if a is b:
        return a
    numeric = (int, V.SymInt)
    if isinstance(a, (bool, V.SymBool)) and isinstance(b, (bool, V.SymBool)):
        return V.merge_bools(cx, cond, a, b)
    if (
        isinstance(a, numeric)
        and isinstance(b, numeric)
        and not isinstance(a, (bool, V.SymBool))
        and not isinstance(b, (bool, V.SymBool))
    ):
        return V.merge_ints(cx, cond, a, b)
    if isinstance(a, SymRegs) or isinstance(b, SymRegs):
        a, b = SymRegs.of(a), SymRegs.of(b)
        return SymRegs(cond.cx, a.vlen, Z3.ite(_z3_cond(cond), a.array, b.array))
    if type(a) is tuple and type(b) is tuple and len(a) == len(b):
        return tuple(merge(cx, cond, x, y) for x, y in zip(a, b))
    if isinstance(a, ArchState) and isinstance(b, ArchState) and (a.vlen, a.elen) == (b.vlen, b.elen):
        return a.with_(
            **{
                f: merge(cx, cond, getattr(a, f), getattr(b, f))
                for f in ("regs", "vtype", "vl", "vstart", "vs")
            }
        )
    if type(a) is str and type(b) is str and a == b:
        return a
    if isinstance(a, (bytes, bytearray)) and isinstance(b, (bytes, bytearray)):
        from vredmax.proofs.python.symbytes import merge as merge_bytes

        return merge_bytes(cx, cond, a, b)
    raise CannotMerge(a, b)


class CannotMerge(Exception):
    """Two values that no condition can choose between (paths.py explores instead)."""

    def __init__(self, a, b):
        super().__init__(f"{type(a).__name__} and {type(b).__name__}")


def _z3_cond(cond):
    if cond.bk is Z3 or isinstance(cond.bk, Z3Terms):
        return cond.t
    return cond.cx.to_z3(cond)


# The register file and the fields --------------------------------------------------------


class SymRegs:
    """The register file while proving: the tuple of 32 VLEN-bit ints it is concretely, held
    as a Z3 array; indexed by ints or symbolic register numbers."""

    __slots__ = ("cx", "vlen", "array")

    def __init__(self, cx, vlen: int, array):
        self.cx, self.vlen, self.array = cx, vlen, array

    __class__ = property(lambda self: tuple)

    @staticmethod
    def of(regs) -> "SymRegs":
        if isinstance(regs, SymRegs):
            return regs
        values = list(regs)
        if len(values) != NUM_VREGS:
            _refuse(f"a register file of {len(values)} registers", f"keep all {NUM_VREGS}")
        vlen = max((v.w for v in values if isinstance(v, V.SymInt)), default=1)
        cx = V.active()
        vlen = getattr(cx, "vlen", None) or vlen
        terms = [register_term(v, vlen) for v in values]
        return SymRegs(cx, vlen, array_of(terms, vlen))

    def __len__(self):
        return NUM_VREGS

    def _element(self, index):
        return V.make_int(
            self.cx, Z3, z3.Select(self.array, index), self.vlen, False, 0, (1 << self.vlen) - 1
        )

    def __getitem__(self, index):
        if type(index) is slice:
            return tuple(self[k] for k in range(*index.indices(NUM_VREGS)))
        if isinstance(index, V.SymBool):
            index = index.as_int()
        if isinstance(index, V.SymInt):
            return self._element(_register_number(self.cx, index))
        index = index.__index__()
        if not -NUM_VREGS <= index < NUM_VREGS:
            raise IndexError("tuple index out of range")
        return self._element(z3.BitVecVal(index % NUM_VREGS, 5))

    def __iter__(self):
        return (self[k] for k in range(NUM_VREGS))

    def stored(self, index, value) -> "SymRegs":
        """The register file with register `index` replaced (m.write)."""
        if isinstance(index, V.SymInt):
            number = _register_number(self.cx, index)
        else:
            index = index.__index__()
            if not -NUM_VREGS <= index < NUM_VREGS:
                raise IndexError("tuple index out of range")
            number = z3.BitVecVal(index % NUM_VREGS, 5)
        return SymRegs(self.cx, self.vlen, z3.Store(self.array, number, register_term(value, self.vlen)))

    def __eq__(self, other):
        if isinstance(other, SymRegs) or (type(other) in (tuple, list) and len(other) == NUM_VREGS):
            other = SymRegs.of(other)
            return V.make_bool(self.cx, Z3, self.array == other.array)
        return False if type(other) is not tuple else len(other) == NUM_VREGS and NotImplemented

    def __ne__(self, other):
        result = self.__eq__(other)
        return V.bool_not(result) if result is not NotImplemented else result

    def __hash__(self):  # noqa: PLE0309 (it raises)
        _refuse("hash() of a symbolic register file", "keep it in a variable, not a dict key")

    def __add__(self, other):
        return tuple(self) + tuple(other)

    def __radd__(self, other):
        return tuple(other) + tuple(self)

    def __repr__(self):
        return f"<symbolic register file, {NUM_VREGS} x {self.vlen} bits>"


def selected(term):
    """(array, k) when the term is Select(array, k) of a numeral k, else None."""
    if kind(term) == z3.Z3_OP_SELECT and is_numeral(term.arg(1)):
        return term.arg(0), term.arg(1).as_long()
    return None


def array_of(terms, vlen: int):
    """The register file holding these 32 terms as a Z3 array, in the form the spec's own
    step makes where it can: a register file read whole and written at one symbolic number
    (each register `ite(e == k, v, A[k])`) is Store(A, e, v); unchanged registers (A[k]) are A."""
    base = None
    for k, t in enumerate(terms):
        found = selected(t) or (selected(t.arg(2)) if kind(t) == z3.Z3_OP_ITE else None)
        if found is not None and found[1] == k:
            base = found[0]
            break
    written = _written_at(terms, base) if base is not None else None
    if written is not None:
        return z3.Store(base, written[0], written[1])
    array = base if base is not None else z3.K(z3.BitVecSort(5), z3.BitVecVal(0, vlen))
    for k, t in enumerate(terms):
        found = selected(t) if base is not None else None
        if found is None or not fast.same(found[0], base) or found[1] != k:
            array = z3.Store(array, z3.BitVecVal(k, 5), t)
    return array


def _written_at(terms, base):
    """(e, v) when every term k is ite(e == k, v, base[k]) (a list written at e) or
    ite(g and e == k, v, base[k]) (written at e where g holds: v is then ite(g, v, base[e])),
    else None."""
    index = value = guard = None
    for k, t in enumerate(terms):
        if kind(t) != z3.Z3_OP_ITE:
            return None
        cond, then, other = t.children()
        found = selected(other)
        if found is None or not fast.same(found[0], base) or found[1] != k:
            return None
        g = None
        if kind(cond) == z3.Z3_OP_AND and cond.num_args() == 2:
            g, cond = cond.children()
        if kind(cond) != z3.Z3_OP_EQ:
            return None
        e, number = cond.children()
        if not is_numeral(number) or number.as_long() != k:
            return None
        if index is None:
            index, value, guard = e, then, g
        elif not (
            fast.same(index, e)
            and fast.same(value, then)
            and (g is guard or (g is not None and guard is not None and fast.same(g, guard)))
        ):
            return None
    if guard is not None:
        value = z3.If(guard, value, z3.Select(base, index))
    return index, value


def _register_number(cx, index: V.SymInt):
    """A symbolic register number as a 5-bit term; outside 0..31, IndexError as a tuple does
    (negative numbers count from the end, as a tuple's)."""
    if not (index.lo >= 0 and index.hi < NUM_VREGS):
        inside = (index >= -NUM_VREGS) & (index < NUM_VREGS)
        if not V.decided(cx, inside, "a register number that may be outside 0..31"):
            raise IndexError("tuple index out of range")
        if index.lo < 0:
            index = V.merge_ints(cx, index < 0, index + NUM_VREGS, index)
            if type(index) is int:
                return z3.BitVecVal(index, 5)
        # within 0..31 on this path (the decision above): the same term, its bounds clipped
        index = V.SymInt(
            index.cx, index.bk, index.t, index.w, index.s, max(index.lo, 0), min(index.hi, NUM_VREGS - 1)
        )
    return V.fit(Z3, index, 5) if index.bk is Z3 or isinstance(index.bk, Z3Terms) else _z3_index(cx, index)


def _z3_index(cx, index):
    return V.fit(Z3, cx.to_z3_int(index), 5)


def register_term(value, vlen: int):
    """A register value (an int 0..2^VLEN-1, concrete or symbolic) as a VLEN-bit Z3 term."""
    if type(value) is int:
        if not 0 <= value < 1 << vlen:
            _refuse(f"a register value {value:#x} wider than VLEN={vlen} bits", "mask it")
        return z3.BitVecVal(value, vlen)
    if isinstance(value, V.SymInt):
        if value.lo < 0 or value.hi >= 1 << vlen:
            _refuse(f"a register value that may be outside 0..2^{vlen}-1", f"mask it to {vlen} bits")
        if not (value.bk is Z3 or isinstance(value.bk, Z3Terms)):
            value = value.cx.to_z3_int(value)
        return V.fit(Z3, value, vlen)
    _refuse(f"a register value of type {type(value).__name__}", "registers are ints")


@dataclass(frozen=True)
class SymInsn:
    """The instruction's fields while proving (spec.encoding.Insn concretely)."""

    vd: object
    vs2: object
    vs1: object
    vm: object = 1


def field_term(value, width: int, what: str):
    """A post-state field (vtype, vl, vstart: XLEN bits; vs: 2) as a Z3 term."""
    if type(value) is int:
        if not 0 <= value < 1 << width:
            _refuse(f"post.{what} = {value}, not a {width}-bit value", "keep it in range")
        return z3.BitVecVal(value, width)
    if isinstance(value, V.SymInt):
        if value.lo < 0 or value.hi >= 1 << width:
            _refuse(f"post.{what} may be outside 0..2^{width}-1", f"mask it to {width} bits")
        if not (value.bk is Z3 or isinstance(value.bk, Z3Terms)):
            value = value.cx.to_z3_int(value)
        return V.fit(Z3, value, width)
    _refuse(f"post.{what} is {type(value).__name__}, not an int", "return ints")


def condition_term(value):
    """A trap condition as a Z3 Boolean."""
    if type(value) is bool:
        return z3.BoolVal(value)
    if isinstance(value, V.SymBool):
        return value.t if (value.bk is Z3 or isinstance(value.bk, Z3Terms)) else value.cx.to_z3(value)
    if isinstance(value, (int, V.SymInt)):
        return condition_term(V.truth(value))
    _refuse(f"a trap condition of type {type(value).__name__}", "conditions are bools")
