"""Symbolic bytes: `int.to_bytes`, `int.from_bytes`, `bytes`, `bytearray`, `memoryview`, `struct`
while proving.

Emulators keep registers as bytes (`x.to_bytes(nb, "little")`, a bytearray register file,
`struct.unpack("<b", ...)` for a sign). While proving, such a value is a `SymBytes`: a sequence
of bytes each a Python int 0..255 or an 8-bit symbolic one (values.py), with exactly the meaning
of the bytes or bytearray the concrete run holds: `len`, indexing and slicing at concrete
indexes, `+`, `*`, `join`, comparison (lexicographic, a condition), iteration, item and slice
assignment of a bytearray. `isinstance(b, bytes)` (or `bytearray`) is True, as of the concrete
value. Bytes whose every byte is known are real bytes (a bytearray stays a SymBytes, so that a
symbolic byte can be stored in it later).

What raises on ints raises here on the same inputs: a `to_bytes` of a value that may not fit
(OverflowError), a `bytes([...])` of a value that may be outside 0..255 (ValueError), a
`struct.pack` of a value out of its format's range (struct.error): the condition is asked of the
run's context (paths.py explores both ways: the path where Python raises raises). Errors that do
not depend on a symbolic value are Python's own (the real function is called on a stand-in of
the same shape).

`int.from_bytes` of bytes cut from one value gives that value's term back (bits hi..lo of the
same term, or an if-then-else of two such when the bytes were merged by a branch), so
`int.from_bytes(x.to_bytes(n, "little"), "little", signed=True)` is x read as signed: no new
node for the cut-point method. A bytearray read from a list at a symbolic index, or stored
into one, is the object chosen (`Choice`): reads see what the objects hold, an item or slice
store changes each where its condition holds. Refused, with what to write instead: a symbolic index into
bytes at a slice, a symbolic length, struct formats other than the integer ones, a memoryview of a bytearray (a memoryview of bytes
reads as the bytes), hash() of
bytes holding a symbolic byte; of a chosen bytearray, changes other than item or slice
stores, `is`, id(), and the type where bytes and bytearrays are chosen between.
"""

from __future__ import annotations

import builtins
import functools
import operator
import struct
import sys

import z3

from vredmax.proofs.python import values as V
from vredmax.proofs.python.terms import facts
from vredmax.spec import z3fast as fast

V.internal(__file__)

_REAL = {False: bytes, True: bytearray}
_MUTATORS = {"insert", "remove", "extend", "append", "pop", "reverse", "clear"}
INDEX_ADVICE = (
    "index and slice bytes with concrete ints (a register file as a list of bytes per register, "
    "read at a register number, then sliced at i * nb)"
)


def _cx():
    return V.active()


def _symbolic(x) -> bool:
    return type(x) is V.SymInt or type(x) is V.SymBool


def _refuse(what, advice):
    cx = _cx()
    if cx is not None:
        cx.refuse(what, advice)
    location = V.where()
    raise V.Refusal(f"{location[0]}:{location[1]}: {what}; {advice}")


# One byte -----------------------------------------------------------------------------------------


def _byte(value, error):
    """`value` as a byte: a Python int 0..255 or an 8-bit SymInt. `error()` raises Python's
    exception for a value outside 0..255 (on the path where the value is)."""
    if type(value) is V.SymBool:
        value = value.as_int()
    if type(value) is not V.SymInt:
        value = operator.index(value)
        if not 0 <= value <= 255:
            error()
        return value
    cx = V._cx(value)
    lo, hi = value.lo, value.hi
    if lo < 0 or hi > 255:
        outside = V.bool_or(value < 0, value > 255)
        if V.decided(cx, outside, "a byte that may be outside 0..255"):
            error()
        lo, hi = max(lo, 0), min(hi, 255)
    if lo == hi:
        return lo
    return V.make_int(cx, value.bk, V.fit(value.bk, value, 8), 8, False, lo, hi)


def _range_error(kind_):
    def error():
        _REAL[kind_]([256])  # Python's own ValueError

    return error


def _items(source, mutable: bool) -> list:
    """The bytes of `source` (bytes-like or an iterable of ints) as a list of bytes."""
    if type(source) is SymBytes:
        return list(source.items)
    if isinstance(source, (bytes, bytearray, memoryview)):
        return list(bytes(source))
    if _symbolic(source):
        _refuse("bytes or bytearray of a symbolic length", "give it a concrete length")
    if isinstance(source, int):
        return list(_REAL[mutable](source))
    error = _range_error(mutable)
    return [_byte(v, error) for v in source]


def make(items, mutable: bool = False):
    """Real bytes when every byte is known (a bytearray: always a SymBytes), else a SymBytes."""
    if not mutable and all(type(b) is int for b in items):
        return bytes(items)
    return SymBytes(list(items) if mutable else tuple(items), mutable)


def _bytes_like(x) -> bool:
    return type(x) is SymBytes or isinstance(x, (bytes, bytearray))


def _of(x):
    return x.items if type(x) is SymBytes else tuple(bytes(x))


def _concrete(x) -> bool:
    return all(type(b) is int for b in x.items)


# SymBytes ----------------------------------------------------------------------------------------


class SymBytes:
    """bytes (a tuple of bytes) or, `mutable`, a bytearray (a list of them): module docstring."""

    # choice: None, or the Choice of objects this one is (a bytearray read from a list at a
    # symbolic index); version: counts a bytearray's changes (a Choice's reads are kept per
    # version of the objects it chooses between)
    __slots__ = ("_items", "mutable", "choice", "version", "__weakref__")

    def __init__(self, items, mutable: bool, choice=None):
        self._items, self.mutable, self.choice, self.version = items, mutable, choice, 0

    @property
    def items(self):
        return self._items if self.choice is None else self.choice.read()

    @items.setter
    def items(self, value):
        self._items = value

    def _class(self):
        """The type, for type() and isinstance() in the user's code."""
        if self.choice is not None and self.choice.mixed:
            _refuse(
                "the type of bytes or a bytearray chosen by a symbolic index (bytes on one path, "
                "a bytearray on another)",
                "store bytes(new) into a list of bytes (or keep bytearrays throughout)",
            )
        return bytearray if self.mutable else bytes

    __class__ = property(lambda self: bytearray if self.mutable else bytes)

    def _real(self):
        return _REAL[self.mutable](self.items)

    def __repr__(self):
        if _concrete(self):
            return repr(self._real())
        return f"<symbolic {'bytearray' if self.mutable else 'bytes'}, {len(self.items)} bytes>"

    def __str__(self):
        if _concrete(self):
            return str(self._real())
        _refuse(
            "str() or print of bytes holding a symbolic byte",
            "its digits are not known while proving: print only concrete values",
        )

    def __len__(self):
        return len(self._items) if self.choice is None else len(self.choice.options[0][1])

    def __iter__(self):
        return iter(list(self.items))

    def __reversed__(self):
        return iter(self.items[::-1])

    def __bool__(self):
        return len(self.items) > 0

    def __getitem__(self, index):
        if type(index) is slice:
            if any(_symbolic(p) for p in (index.start, index.stop, index.step)):
                _refuse("a slice of bytes at a symbolic bound", INDEX_ADVICE)
            return make(self.items[index], self.mutable)
        if type(index) is V.SymBool:
            index = index.as_int()
        if type(index) is V.SymInt:
            return self._merged_read(index)
        if not isinstance(index, int):
            return self._real()[index]  # Python's TypeError
        n = len(self.items)
        if not -n <= index < n:
            raise IndexError(f"{'bytearray ' if self.mutable else ''}index out of range")
        return self.items[index]

    def _in_range(self, index):
        from vredmax.proofs.python.branches import in_range  # (branches imports this module)

        error = f"{'bytearray ' if self.mutable else ''}index out of range"
        return in_range(V._cx(index), index, len(self.items), error)

    def _merged_read(self, index):
        from vredmax.proofs.python.branches import chosen

        index = self._in_range(index)
        if type(index) is int:
            return self.items[index]
        positions = range(max(index.lo, 0), min(index.hi, len(self.items) - 1) + 1)
        value = chosen(V._cx(index), index, [(j, self.items[j]) for j in positions], "bytes")
        return _byte(value, _range_error(self.mutable))

    # a bytearray's stores
    def _mutable(self):
        if self.choice is not None:
            _refuse(
                "a change of a bytearray chosen by a symbolic index other than by item or slice assignment",
                "change a bytearray at a concrete register number, or store regs[vd] = new",
            )
        if not self.mutable:
            raise TypeError("'bytes' object does not support item assignment")
        self.version += 1

    def __setitem__(self, index, value):
        if self.choice is not None and not self.choice.mixed and self.mutable:
            return self.choice.store(index, value)
        self._mutable()
        if type(index) is slice:
            if any(_symbolic(p) for p in (index.start, index.stop, index.step)):
                _refuse("a store into a bytearray slice at a symbolic bound", INDEX_ADVICE)
            if isinstance(value, int) or _symbolic(value):
                bytearray(1)[index] = 0 if not isinstance(value, int) else value  # Python's TypeError
            self.items[index] = _items(value, True)
            return
        if type(index) is V.SymBool:
            index = index.as_int()
        value = _byte(value, _range_error(True))
        if type(index) is V.SymInt:
            cx = V._cx(index)
            index = self._in_range(index)
            if type(index) is int:
                self.items[index] = value
                return
            for j in range(max(index.lo, 0), min(index.hi, len(self.items) - 1) + 1):
                self.items[j] = _byte(V.merge_ints(cx, index == j, value, self.items[j]), _range_error(True))
            return
        if not isinstance(index, int):
            bytearray(1)[index] = 0  # Python's TypeError
        n = len(self.items)
        if not -n <= index < n:
            raise IndexError("bytearray index out of range")
        self.items[index] = value

    def __delitem__(self, index):
        self._mutable()
        if _symbolic(index) or (
            type(index) is slice and any(_symbolic(p) for p in (index.start, index.stop, index.step))
        ):
            _refuse("del of bytes at a symbolic index", INDEX_ADVICE)
        del self.items[index]

    def append(self, value):
        self._mutable()
        self.items.append(_byte(value, _range_error(True)))

    def extend(self, values):
        self._mutable()
        self.items.extend(_items(values, True))

    def __iadd__(self, other):
        if not self.mutable:
            return self + other
        if not _bytes_like(other):
            return NotImplemented
        self._mutable()
        self.items.extend(_of(other))
        return self

    def copy(self):
        return make(self.items, self.mutable)

    def pop(self, index=-1):
        self._mutable()
        if _symbolic(index):
            _refuse("bytearray.pop at a symbolic index", INDEX_ADVICE)
        _outside_branches("bytearray.pop")
        if not self.items:
            raise IndexError("pop from empty bytearray")
        return self.items.pop(index)

    def reverse(self):
        self._mutable()
        _outside_branches("bytearray.reverse")
        self.items.reverse()

    def clear(self):
        self._mutable()
        _outside_branches("bytearray.clear")
        self.items.clear()

    # operators
    def __add__(self, other):
        if not _bytes_like(other):
            return NotImplemented
        return make(tuple(self.items) + tuple(_of(other)), self.mutable)

    def __radd__(self, other):
        if not _bytes_like(other):
            return NotImplemented
        return make(tuple(_of(other)) + tuple(self.items), isinstance(other, bytearray))

    def __mul__(self, count):
        if _symbolic(count):
            _refuse("bytes repeated a symbolic number of times", "repeat them a concrete number of times")
        if not isinstance(count, int):
            return NotImplemented
        return make(tuple(self.items) * count, self.mutable)

    __rmul__ = __mul__

    def join(self, parts):
        return join(self, parts)

    def __eq__(self, other):
        if not _bytes_like(other):
            return NotImplemented
        mine, theirs = self.items, _of(other)
        if len(mine) != len(theirs):
            return False
        result = True
        for a, b in zip(mine, theirs):
            result = V.bool_and(result, a == b)
            if result is False:
                return False
        return result

    def __ne__(self, other):
        result = self.__eq__(other)
        return result if result is NotImplemented else V.bool_not(result)

    def _less(self, other, swap=False):
        if not _bytes_like(other):
            return NotImplemented
        from vredmax.proofs.python.pybuiltins import less

        a, b = tuple(self.items), tuple(_of(other))
        return less(b, a) if swap else less(a, b)

    def __lt__(self, other):
        return self._less(other)

    def __gt__(self, other):
        return self._less(other, swap=True)

    def __le__(self, other):
        result = self._less(other, swap=True)
        return result if result is NotImplemented else V.bool_not(result)

    def __ge__(self, other):
        result = self._less(other)
        return result if result is NotImplemented else V.bool_not(result)

    def __contains__(self, value):
        if not _bytes_like(value):
            value = _byte(value, lambda: 256 in b"")  # Python's ValueError
        if _bytes_like(value):
            if _concrete(self) and all(type(b) is int for b in _of(value)):
                return bytes(_of(value)) in self._real()
            _refuse(
                "a search for bytes in bytes holding a symbolic byte", "compare bytes at concrete indexes"
            )
        from vredmax.proofs.python.pybuiltins import symbolic_any

        return symbolic_any(b == value for b in self.items)

    def __hash__(self):
        if self.choice is not None and self.choice.mixed:
            self._class()
        if self.mutable:
            raise TypeError("unhashable type: 'bytearray'")
        if _concrete(self):
            return hash(bytes(self.items))
        _refuse(
            "hash() of bytes holding a symbolic byte (a dict key or a set member)",
            "a dict key or set member must be known while proving: key by a register number",
        )

    def __bytes__(self):
        return make(self.items)

    def __index__(self):
        return self._real().__index__()  # Python's TypeError

    def __copy__(self):
        return self.copy()

    def __deepcopy__(self, memo):
        return self.copy()

    def __getattr__(self, name):
        """Any other method of bytes or bytearray: Python's own on bytes that are all known."""
        if name.startswith("__") or not hasattr(_REAL[self.mutable], name):
            raise AttributeError(
                f"'{'bytearray' if self.mutable else 'bytes'}' object has no attribute '{name}'"
            )
        if not _concrete(self):
            _refuse(
                f"{'bytearray' if self.mutable else 'bytes'}.{name} of bytes holding a symbolic byte",
                "take bytes at concrete indexes and ints with int.from_bytes",
            )
        if self.mutable and name in _MUTATORS:

            def mutating(*args, **kwargs):
                _outside_branches(f"bytearray.{name}")
                self._mutable()
                real = self._real()
                result = getattr(real, name)(*args, **kwargs)
                self.items[:] = list(real)
                return result

            return mutating
        return getattr(self._real(), name)


def _outside_branches(what):
    """A store that the runtime cannot guard: inside a merged branch, the branch is explored."""
    cx = _cx()
    if cx is not None and cx.guards:
        from vredmax.proofs.python.branches import Escalate

        raise Escalate(cx.guard_site(), f"{what} inside a branch")


def _mixed(x) -> bool:
    return len({id(b.bk) for b in _of(x) if type(b) is V.SymInt}) > 1


def merge(cx, cond, a, b):
    """`a if cond else b` of two bytes of one length (bytearrays are objects with an identity,
    and so is a Choice of them: not merged, the branch is explored)."""
    from vredmax.proofs.python.facade import CannotMerge

    if _object(a) or _object(b) or len(a) != len(b):
        raise CannotMerge(a, b)
    limit = cx.trace_limit
    if _mixed(a) or _mixed(b) or (limit is not None and 8 * len(a) > limit):
        # in a cut step, bytes wider than an element (a register, or the reduction's traced
        # result in a register's machine bytes) are merged as whole values on the machine: a
        # register stays a machine value, the result reaches the machine once (not once per
        # merged byte)
        value = V.merge_ints(cx, cond, _value_of(list(_of(a)), False), _value_of(list(_of(b)), False))
        return make(
            list(value.to_bytes(len(a), "little"))
            if type(value) is int
            else _bytes_of(value, len(a), False, OverflowError)
        )
    return make([_byte(V.merge_ints(cx, cond, x, y), _range_error(False)) for x, y in zip(_of(a), _of(b))])


def _object(x) -> bool:
    return type(x) is SymBytes and (x.mutable or x.choice is not None) or type(x) is bytearray


def _content(x):
    """The bytes an object holds now, as bytes (an immutable copy)."""
    return make(tuple(x.items)) if type(x) is SymBytes else x


class Choice:
    """One of several bytes or bytearray objects of one length, by conditions of which exactly
    one holds (a list of bytearrays read at a symbolic index, or two merged by a branch): the
    SymBytes whose `choice` it is stands for the object chosen. Reads see what the objects hold
    now; an item or slice store changes each bytearray where its condition holds (what Python
    does to the one chosen); any other change, the identity (`is`, `id`) and, when bytes and
    bytearrays are mixed, the type are refused. `fast`: where the objects are still the
    pre-state's registers (their versions as when read), their bytes as the spec's array read."""

    def __init__(self, options, fast=None):
        self.options = options  # [(condition, object)], the last one's condition implied
        self.mixed = len({type(x) is bytes or not x.mutable for _, x in options}) > 1
        self.fast = fast  # (versions, a function giving the bytes) or None
        self._read = None  # (versions, bytes)

    @staticmethod
    def of(options):
        """The SymBytes standing for a choice between objects (bytes or bytearrays of one
        length, as the objects stored in a list at a symbolic index), nested choices
        flattened; None when they are not such objects."""
        if not all(type(x) is SymBytes or type(x) is bytes for _, x in options):
            return None  # a bytearray made before the proof ran (not tracked), or no bytes
        if len({len(x) for _, x in options}) != 1:
            return None
        flat = []
        for cond, x in options:
            if type(x) is SymBytes and x.choice is not None:
                flat += [(V.bool_and(cond, c), y) for c, y in x.choice.options]
            else:
                flat.append((cond, x))
        flat = [(c, x) for c, x in flat if c is not False]
        if len(flat) == 1:
            return flat[0][1]
        choice = Choice(flat)
        mutable = all(type(x) is SymBytes and x.mutable for _, x in flat)
        return SymBytes(None, mutable, choice)

    def versions(self):
        return tuple(x.version if type(x) is SymBytes else 0 for _, x in self.options)

    def read(self):
        versions = self.versions()
        if self.fast is not None and self.fast[0] == versions:
            if type(self.fast[1]) is not tuple:
                self.fast = (versions, tuple(_of(self.fast[1]())))
            return self.fast[1]
        if self._read is None or self._read[0] != versions:
            value = _content(self.options[-1][1])
            for cond, x in reversed(self.options[:-1]):
                value = merge(_cx(), cond, _content(x), value) if cond is not True else _content(x)
            self._read = (versions, tuple(_of(value)))
        return self._read[1]

    def store(self, index, value):
        """`chosen[index] = value`: each bytearray changed where its condition holds."""
        if type(index) is slice:
            if any(_symbolic(p) for p in (index.start, index.stop, index.step)):
                _refuse("a store into a bytearray slice at a symbolic bound", INDEX_ADVICE)
            n = len(self.options[0][1])
            positions = list(range(n))[index]
            if isinstance(value, int) or _symbolic(value):
                bytearray(1)[index] = 0 if not isinstance(value, int) else value  # Python's TypeError
            new = _items(value, True)
            if len(new) != len(positions):
                _refuse(
                    "a slice store that changes the length of a bytearray chosen by a symbolic index",
                    "store as many bytes as the slice has",
                )
            for cond, x in self.options:
                for p, byte in zip(positions, new):
                    x[p] = _byte(V.merge_ints(_cx(), cond, byte, x.items[p]), _range_error(True))
            return
        if type(index) is V.SymBool:
            index = index.as_int()
        value = _byte(value, _range_error(True))
        for cond, x in self.options:
            old = x[index]
            x[index] = _byte(V.merge_ints(_cx(), cond, value, old), _range_error(True))


def join(separator, parts):
    """separator.join(parts) of bytes-likes."""
    parts = list(parts)
    if not any(type(p) is SymBytes for p in parts) and type(separator) is not SymBytes:
        return _REAL[isinstance(separator, bytearray)](separator).join(parts)
    items = []
    for k, part in enumerate(parts):
        if not _bytes_like(part):
            raise TypeError(f"sequence item {k}: expected a bytes-like object, {type(part).__name__} found")
        if k:
            items.extend(_of(separator))
        items.extend(_of(part))
    return make(items, isinstance(separator, bytearray))


# int.to_bytes and int.from_bytes ------------------------------------------------------------------


def to_bytes(x, length=1, byteorder="big", *, signed=False):
    """x.to_bytes(length, byteorder, signed=signed) with Python's meaning (module docstring)."""
    if not _symbolic(x):
        return int.to_bytes(x, length, byteorder, signed=signed)
    if _symbolic(length):
        _refuse("int.to_bytes of a symbolic length", "give to_bytes a concrete length")
    (0).to_bytes(length, byteorder, signed=signed)  # Python's errors for the arguments
    x = x.as_int() if type(x) is V.SymBool else x
    items = _bytes_of(x, length, bool(signed), OverflowError)
    return make(items if byteorder == "little" else items[::-1])


def _bytes_of(x, n: int, signed: bool, error, raise_=None):
    """The n bytes (least significant first) of x, on the path where x fits (where it may not,
    the context decides: `raise_` (or Python's OverflowError) where it does not)."""
    cx = V._cx(x)
    bits = 8 * n
    low, high = (-(1 << bits - 1), (1 << bits - 1) - 1) if signed and n else (0, (1 << bits) - 1)
    lo, hi = x.lo, x.hi
    if not signed and lo < 0 and raise_ is None:
        if V.decided(cx, x < 0, "int.to_bytes of a value that may be negative"):
            raise OverflowError("can't convert negative int to unsigned")
        lo = 0
        x = V.SymInt(cx, x.bk, x.t, x.w, x.s, lo, hi)
    if lo < low or hi > high:
        outside = V.bool_or(x < low, x > high)
        if V.decided(cx, outside, "a value that may not fit in its bytes"):
            if raise_ is not None:
                raise_()
            raise error("int too big to convert")
        lo, hi = max(lo, low), min(hi, high)
    if lo == hi:
        return list(lo.to_bytes(n, "little", signed=signed))
    bk = x.bk
    term = V.fit(bk, x, bits)
    # the bytes' bounds from the value's, as an unsigned `bits`-bit number
    ulo, uhi = (lo, hi) if lo >= 0 else (lo + (1 << bits), hi + (1 << bits)) if hi < 0 else (None, None)
    items = []
    for i in range(n):
        if ulo is not None and ulo >> 8 * (i + 1) == uhi >> 8 * (i + 1):
            blo, bhi = ulo >> 8 * i & 255, uhi >> 8 * i & 255
        else:
            blo, bhi = 0, 255
        items.append(
            blo if blo == bhi else V.make_int(cx, bk, bk.extract(term, 8 * i + 7, 8 * i), 8, False, blo, bhi)
        )
    return items


def from_bytes(data, byteorder="big", *, signed=False):
    """int.from_bytes(data, byteorder, signed=signed) with Python's meaning (module docstring)."""
    if type(data) is SymBytes:
        items = list(data.items)
    elif isinstance(data, (bytes, bytearray, memoryview, str)) or _symbolic(data):
        return int.from_bytes(data, byteorder, signed=signed)
    else:
        values = list(data)
        if not any(_symbolic(v) for v in values):
            return int.from_bytes(values, byteorder, signed=signed)
        items = [_byte(v, _range_error(False)) for v in values]
    int.from_bytes(b"", byteorder, signed=signed)  # Python's errors for the arguments
    if byteorder == "big":
        items.reverse()
    return _value_of(items, bool(signed))


def _value_of(items, signed: bool):
    """The int whose bytes (least significant first) are `items`."""
    if all(type(b) is int for b in items):
        return int.from_bytes(bytes(items), "little", signed=signed)
    symbolic = [b for b in items if type(b) is V.SymInt]
    cx = V._cx(*symbolic)
    bits = 8 * len(items)
    bk = symbolic[0].bk
    limit = getattr(cx, "trace_limit", None)
    if any(b.bk is not bk for b in symbolic) or (
        # a traced value's bytes with constant ones around them, wider than an element (the
        # result's bytes in a register whose tail is all ones): the traced run alone is traced
        bk.name != "z3" and limit is not None and bits > limit and len(symbolic) < len(items)
    ):
        return _value_of_backends(items, signed)
    placed = symbolic
    placed = iter(placed)
    terms = [bk.bv(b, 8) if type(b) is int else V.fit(bk, next(placed), 8) for b in items]
    term = _assemble(bk, terms)
    lo = sum((b if type(b) is int else b.lo) << 8 * i for i, b in enumerate(items))
    hi = sum((b if type(b) is int else b.hi) << 8 * i for i, b in enumerate(items))
    half = 1 << bits - 1
    if not signed or hi < half:
        return V.make_int(cx, bk, term, bits, False, lo, hi)
    if lo >= half:
        return V.make_int(cx, bk, term, bits, True, lo - (1 << bits), hi - (1 << bits))
    return V.make_int(cx, bk, term, bits, True, max(lo, half) - (1 << bits), min(hi, half - 1))


def _value_of_backends(items, signed: bool):
    """Bytes of two backends (a cut step's: the reduction's result traced, the registers' bytes
    Z3 terms): each run of one backend put together on its own (the result's bytes are the
    result again), then the runs combined with the ints' operators (values.py places them)."""
    groups, backend = [], None
    for b in items:
        bk = b.bk if type(b) is V.SymInt else None
        # constant bytes do not join the traced run before them (nor one after them): an
        # agnostic tail of ones written after the result would make the result a
        # register-wide traced value (cut as a whole, the reduction lost in it)
        traced = lambda k: k is not None and k.name != "z3"
        if (
            not groups
            or (bk is not None and backend is not None and bk is not backend)
            or (bk is None and traced(backend))
            or (traced(bk) and backend is None)
        ):
            groups.append([])
            backend = None
        groups[-1].append(b)
        backend = backend or bk
    total, offset = 0, 0
    for group in groups:
        total = total | _value_of(group, False) << offset
        offset += 8 * len(group)
    if signed:
        total = total - ((total >> (offset - 1)) << offset)
    return total


# z3 terms assembled before, by the pointers of their bytes: each run of the code (a path, an
# escalation's restart, the other tail policy) takes the same registers apart and puts them
# together again, from the same hash-consed byte terms. An entry holds the bytes, so that the
# pointers stay theirs; a cache (any subset of it is right), started again past its limit.
_ASSEMBLED: dict = {}
ASSEMBLED_LIMIT = 1 << 16


def _assemble(bk, terms, memo=None):
    """The concatenation of 8-bit terms (least significant first), as the term they were cut
    from where they are its consecutive bits, and as an if-then-else where every byte is one
    on the same condition (bytes merged by a branch; `memo`: the terms are a DAG)."""
    z3_terms = bk.name == "z3"
    if z3_terms:
        memo = _ASSEMBLED
        if len(memo) >= ASSEMBLED_LIMIT:
            memo.clear()
        key = tuple(t.ast.value for t in terms)
    else:
        memo = {} if memo is None else memo
        key = tuple(id(t) for t in terms)
    found = memo.get(key)
    if found is not None:
        return found[0]
    result = _assembled(bk, terms, memo, z3_terms)
    memo[key] = (result, terms)  # the terms kept alive: their ids (pointers) stay theirs
    return result


def _assembled(bk, terms, memo, z3_terms):
    symbolic = sum(bk.value_of(t) is None for t in terms)
    cond, parts = None, []
    for t in terms if symbolic >= 2 else ():
        if bk.value_of(t) is not None:
            parts.append((t, t))
            continue
        ite = _ite(t, z3_terms)
        if ite is None or (cond is not None and not _same(z3_terms, cond, ite[0])):
            cond = None
            break
        cond = ite[0]
        parts.append(ite[1:])
    else:
        if cond is not None:
            return bk.ite(
                cond, _assemble(bk, [p[0] for p in parts], memo), _assemble(bk, [p[1] for p in parts], memo)
            )
    runs = []  # [base, hi, lo] of bits of one term, or [None, value, width] of a constant
    for t in terms:
        value = bk.value_of(t)
        if value is not None:
            if runs and runs[-1][0] is None:
                runs[-1] = [None, runs[-1][1] | value << runs[-1][2], runs[-1][2] + 8]
            else:
                runs.append([None, value, 8])
            continue
        base, hi, lo = _piece(t, z3_terms)
        last = runs[-1] if runs else None
        if last is not None and last[0] is not None and last[1] + 1 == lo and _same(z3_terms, last[0], base):
            last[1] = hi
        else:
            runs.append([base, hi, lo])
    result = None
    for base, a, b in runs:
        term = bk.bv(a, b) if base is None else bk.extract(base, a, b)
        result = term if result is None else bk.concat(term, result)
    return result


def _same(z3_terms, a, b) -> bool:
    return fast.same(a, b) if z3_terms else a is b


def _ite(t, z3_terms):
    if z3_terms:
        info = facts(t)
        return info.children() if info.op == z3.Z3_OP_ITE else None
    return t.args if t.op == "ite" else None


def _piece(t, z3_terms):
    """(base, hi, lo): t is bits hi..lo of base (a term that is no extraction: all its bits)."""
    if z3_terms:
        info = facts(t)
        if info.op == z3.Z3_OP_EXTRACT:
            hi, lo = info.params
            return info.arg(0), hi, lo
        return t, info.width - 1, 0
    if t.op == "extract":
        return t.args[0], t.param[0], t.param[1]
    return t, t.width - 1, 0


# bytes() and bytearray() -----------------------------------------------------------------------------

_NOTHING = object()


def symbolic_bytes(source=_NOTHING, *args, **kwargs):
    if source is _NOTHING:
        return bytes(*args, **kwargs)
    if type(source) is SymBytes and not args and not kwargs:
        return make(source.items)
    if (
        args
        or kwargs
        or isinstance(source, (str, bytes, bytearray, memoryview))
        or (isinstance(source, int) and not _symbolic(source))
    ):
        return bytes(source, *args, **kwargs)
    if _symbolic(source):
        _refuse("bytes of a symbolic length", "give it a concrete length")
    values = list(source)
    if not any(_symbolic(v) for v in values):
        return bytes(values)
    return make(_items(values, False))


def symbolic_bytearray(source=_NOTHING, *args, **kwargs):
    """A bytearray while proving is always a SymBytes: a symbolic byte may be stored in it."""
    if source is _NOTHING:
        return SymBytes(list(bytearray(*args, **kwargs)), True)
    if type(source) is not SymBytes and (args or kwargs or isinstance(source, str)):
        return SymBytes(list(bytearray(source, *args, **kwargs)), True)
    return SymBytes(_items(source, True), True)


def symbolic_memoryview(source):
    """A memoryview of bytes holding a symbolic byte reads as those bytes (the bytes cannot
    change, so a view and a copy read alike: `int.from_bytes(memoryview(reg)[a:b], ...)`).
    A view of such a bytearray shares its changes both ways: refused."""
    if type(source) is not SymBytes:
        return memoryview(source)
    if source.mutable:
        _refuse(
            "a memoryview of a bytearray holding a symbolic byte (the view shares its changes)",
            "read the bytearray itself, or a memoryview of bytes(...)",
        )
    return source


# struct --------------------------------------------------------------------------------------------

_INTEGER_CODES = "bBhHiIlLqQ"
STRUCT_ADVICE = (
    "use the integer formats b B h H i I l L q Q (with < > = ! or @) or int.to_bytes/int.from_bytes "
    "for symbolic values"
)


@functools.lru_cache(maxsize=256)
def layout(fmt):
    """(byteorder, [(offset, size, code)], total size) of an integer-only format, or None."""
    if isinstance(fmt, bytes):
        fmt = fmt.decode("ascii")
    if type(fmt) is not str:
        return None
    total = struct.calcsize(fmt)  # Python's struct.error for a bad format
    order = fmt[0] if fmt[:1] in ("@", "=", "<", ">", "!") and fmt else "@"
    body = fmt[1:] if fmt[:1] in ("@", "=", "<", ">", "!") and fmt else fmt
    byteorder = sys.byteorder if order in "@=" else "little" if order == "<" else "big"
    fields, offset, i = [], 0, 0
    while i < len(body):
        if body[i].isspace():
            i += 1
            continue
        j = i
        while j < len(body) and body[j].isdigit():
            j += 1
        count = int(body[i:j]) if j > i else 1
        if j >= len(body) or body[j] not in _INTEGER_CODES + "x":
            return None
        code, i = body[j], j + 1
        width = struct.calcsize(order + code)
        for _ in range(count):
            if order == "@" and code != "x":
                offset = -(-offset // width) * width  # native alignment
            if code != "x":
                fields.append((offset, width, code))
            offset += width
    return (byteorder, tuple(fields), offset) if offset == total else None


def _layout_or_refuse(fmt, what):
    found = layout(fmt)
    if found is None:
        _refuse(f"struct.{what} with the format {fmt!r} of symbolic values", STRUCT_ADVICE)
    return found


def _order(fmt):
    if isinstance(fmt, bytes):
        fmt = fmt.decode("ascii")
    return fmt[0] if fmt[:1] in ("@", "=", "<", ">", "!") else "@"


def _packed(fmt, values, what):
    """The bytes struct.pack(fmt, *values) gives (least significant first per field, laid out)."""
    byteorder, fields, total = _layout_or_refuse(fmt, what)
    if len(values) != len(fields):
        struct.pack(fmt, *[0] * len(values))  # Python's struct.error
    order, items = _order(fmt), [0] * total
    for (offset, width, code), value in zip(fields, values):
        if not _symbolic(value):
            piece = struct.pack(order + code, value)  # Python's errors for a concrete value
            items[offset : offset + width] = list(piece)
            continue
        value = value.as_int() if type(value) is V.SymBool else value
        signed = code.islower()
        low = -(1 << 8 * width - 1) if signed else 0
        raise_ = functools.partial(
            struct.pack, order + code, low - 1 if value.lo < low else (1 << 8 * width - (1 if signed else 0))
        )
        data = _bytes_of(value, width, signed, struct.error, raise_)
        items[offset : offset + width] = data if byteorder == "little" else data[::-1]
    return items


def symbolic_pack(fmt, *values):
    if not any(_symbolic(v) for v in values):
        return struct.pack(fmt, *values)
    return make(_packed(fmt, values, "pack"))


def symbolic_pack_into(fmt, buffer, offset, *values):
    if type(buffer) is not SymBytes:
        if not any(_symbolic(v) for v in values):
            return struct.pack_into(fmt, buffer, offset, *values)
        _refuse(
            "struct.pack_into of symbolic values into a buffer made before the proof ran",
            "make the bytearray inside your function",
        )
    if _symbolic(offset):
        _refuse("struct.pack_into at a symbolic offset", INDEX_ADVICE)
    struct.pack_into(fmt, bytearray(len(buffer.items)), offset, *[0 if _symbolic(v) else v for v in values])
    items = _packed(fmt, values, "pack_into")
    start = offset if offset >= 0 else offset + len(buffer.items)
    buffer._mutable()
    _outside_branches("struct.pack_into")
    buffer.items[start : start + len(items)] = items


def _unpacked(fmt, items, what):
    byteorder, fields, _ = _layout_or_refuse(fmt, what)
    result = []
    for offset, width, code in fields:
        data = list(items[offset : offset + width])
        if byteorder == "big":
            data.reverse()
        result.append(_value_of(data, code.islower()))
    return tuple(result)


def symbolic_unpack(fmt, buffer):
    if type(buffer) is not SymBytes:
        return struct.unpack(fmt, buffer)
    struct.unpack(fmt, bytes(len(buffer.items)))  # Python's struct.error for the sizes
    return _unpacked(fmt, buffer.items, "unpack")


def symbolic_unpack_from(fmt, buffer, offset=0):
    if type(buffer) is not SymBytes:
        return struct.unpack_from(fmt, buffer, offset)
    if _symbolic(offset):
        _refuse("struct.unpack_from at a symbolic offset", INDEX_ADVICE)
    struct.unpack_from(fmt, bytes(len(buffer.items)), offset)
    start = offset if offset >= 0 else offset + len(buffer.items)
    return _unpacked(fmt, buffer.items[start:], "unpack_from")


def symbolic_iter_unpack(fmt, buffer):
    if type(buffer) is not SymBytes:
        return struct.iter_unpack(fmt, buffer)
    struct.iter_unpack(fmt, bytes(len(buffer.items)))
    width = struct.calcsize(fmt)
    return iter(
        [
            _unpacked(fmt, buffer.items[k : k + width], "iter_unpack")
            for k in range(0, len(buffer.items), width)
        ]
    )


_STRUCT_METHODS = {
    "pack": symbolic_pack,
    "unpack": symbolic_unpack,
    "unpack_from": symbolic_unpack_from,
    "pack_into": symbolic_pack_into,
    "iter_unpack": symbolic_iter_unpack,
}


def register_file(items):
    """For a list of 32 bytes that are the registers of the pre-state (`[r.to_bytes(vlenb, order)
    for r in pre.regs]`, or bytearrays of them): a function reading it at a symbolic register
    number as the array read (the spec's own term), turned into the same bytes (for bytearrays:
    the Choice of them, read so while none has changed); else None. Kept per list state."""
    from vredmax.proofs.python.branches import NUM_VREGS, _whole_register_file

    if len(items) != NUM_VREGS or not all(type(x) is SymBytes and x.choice is None for x in items):
        return None
    cx = _cx()
    cache = cx.__dict__.setdefault("_bytes_register_files", {})
    key = tuple((id(x), x.version) for x in items)
    if key not in cache:
        found = None
        for order in ("little", "big"):
            values = [
                _value_of(list(x.items) if order == "little" else list(x.items)[::-1], False) for x in items
            ]
            whole = _whole_register_file(values) if all(type(v) is V.SymInt for v in values) else None
            if whole is not None:
                length = len(items[0].items)
                found = functools.partial(_read_as_bytes, whole, length, order)
                break
        cache[key] = (list(items), found)  # the items kept alive: their ids stay theirs
    found = cache[key][1]
    if found is None or not any(x.mutable for x in items):
        return found
    # bytearrays: the object read stands for the one chosen (a Choice), its bytes the array
    # read while none of them has changed
    versions = tuple(x.version for x in items)
    return lambda index: SymBytes(
        None,
        True,
        Choice(
            [(c, x) for c, x in zip(_index_is(index, len(items)), items)],
            (versions, functools.partial(found, index)),
        ),
    )


def _index_is(index, n: int) -> list:
    """[index == j for j < n], kept per index term for the run (a loop over the elements reads
    the same register number once per element)."""
    if type(index) is not V.SymInt:
        return [index == j for j in range(n)]
    cache = _cx().__dict__.setdefault("_index_conditions", {})
    term = index.t.get_id() if isinstance(index.t, z3.ExprRef) else id(index.t)
    key = (id(index.bk), term, index.w, index.s, index.lo, index.hi, n)
    found = cache.get(key)
    if found is None:
        found = cache[key] = (index, [index == j for j in range(n)])  # the index kept: its id stays its own
    return found[1]


def _read_as_bytes(whole, length, order, index):
    """The bytes of the register at `index`. Kept per register term for the run: a loop over
    the elements reads the same register once per element, and taking it apart into its
    VLENB bytes each time made a step's run quadratic (VLMAX reads of VLENB bytes). Only a
    value that fits its bytes is kept (its conversion asks the path nothing)."""
    value = whole[index]
    if type(value) is not V.SymInt or value.lo < 0 or value.hi >= 1 << 8 * length:
        return to_bytes(value, length, order)
    cache = _cx().__dict__.setdefault("_register_bytes", {})
    term = value.t.get_id() if isinstance(value.t, z3.ExprRef) else id(value.t)
    key = (id(value.bk), term, value.w, value.s, value.lo, value.hi, length, order)
    found = cache.get(key)
    if found is None:
        found = cache[key] = (value, to_bytes(value, length, order))  # the value kept: its id stays its own
    return found[1]


def calcsize(fmt):
    """struct.calcsize (this module's: no store, so not a call that escalates a merged branch)."""
    return struct.calcsize(fmt)


def int_to_bytes(x, *args, **kwargs):
    """int.to_bytes called unbound."""
    if _symbolic(x):
        return to_bytes(x, *args, **kwargs)
    return int.to_bytes(x, *args, **kwargs)


# What __vx__.call substitutes (pybuiltins.SUBSTITUTES) ---------------------------------------------

SUBSTITUTES = {
    int.from_bytes: from_bytes,
    int.to_bytes: int_to_bytes,
    builtins.bytes: symbolic_bytes,
    builtins.bytearray: symbolic_bytearray,
    builtins.memoryview: symbolic_memoryview,
    struct.pack: symbolic_pack,
    struct.unpack: symbolic_unpack,
    struct.unpack_from: symbolic_unpack_from,
    struct.pack_into: symbolic_pack_into,
    struct.iter_unpack: symbolic_iter_unpack,
    struct.calcsize: calcsize,
}


def method(function):
    """A bound method of real bytes (`b"".join`) or of a struct.Struct, taken by symbolic bytes."""
    owner = getattr(function, "__self__", None)
    if owner is None:
        return function
    kind_ = type(owner)
    if (kind_ is bytes or kind_ is bytearray) and getattr(function, "__name__", "") == "join":
        return functools.partial(join, owner)
    if kind_ is struct.Struct and getattr(function, "__name__", "") in _STRUCT_METHODS:
        return functools.partial(_STRUCT_METHODS[function.__name__], owner.format)
    return function
