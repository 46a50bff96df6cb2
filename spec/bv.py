"""The bit-vector operations interface, with a concrete and a Z3 backend.

Every algorithm in impl/ and the instruction step are written once against this interface
(after claripy): run with `Concrete` they execute on Python ints, run with `Symbolic` they
build the Z3 terms that the proofs reason about. So the code `vredmax exec` runs is the code
the solver proves.

Two levels:
- Element ops (`elements(width)`): what a reduction unit needs on SEW-bit values:
  const, smin, smax, comparisons, ite, and booleans. This is the public plug-in interface.
- Machine ops (the backend itself): registers of VLEN bits, a 32-entry register file indexed
  by possibly symbolic register numbers, extract/concat, scalar compares.

Concrete values are unsigned Python ints already reduced to their width; booleans are bool.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any, Literal, Protocol, TypeVar

import z3

# The two kinds of value the ops interface passes around, per backend: an element (an int, or
# a z3 bit-vector term) and a condition (a bool, or a z3 Boolean term). Code written against
# `ElementOps[V, B]` cannot mix a term with an int, nor compare with `>` or truth-test a value:
# it knows of V and B only what the ops say (Z3's `>` is signed, Python's on the concrete
# unsigned representation is not).
V = TypeVar("V")
B = TypeVar("B")
T = TypeVar("T")
Term = z3.BitVecRef | int  # what a symbolic machine op takes: a term, or an int as a numeral


class ElementOps(Protocol[V, B]):
    """SEW-bit element operations: all a reduction unit may do with its values."""

    width: int

    @property
    def symbolic(self) -> bool: ...
    @property
    def true(self) -> B: ...
    @property
    def false(self) -> B: ...

    def const(self, value: int) -> V: ...
    def smin(self) -> V: ...
    def smax(self, a: V, b: V) -> V: ...
    def umax(self, a: V, b: V) -> V: ...
    def sgt(self, a: V, b: V) -> B: ...
    def sge(self, a: V, b: V) -> B: ...
    def slt(self, a: V, b: V) -> B: ...
    def sle(self, a: V, b: V) -> B: ...
    def ugt(self, a: V, b: V) -> B: ...
    def ult(self, a: V, b: V) -> B: ...
    def ule(self, a: V, b: V) -> B: ...
    def uge(self, a: V, b: V) -> B: ...
    def eq(self, a: V, b: V) -> B: ...
    def ne(self, a: V, b: V) -> B: ...
    def ite(self, c: B, a: V, b: V) -> V: ...
    def and_(self, a: B, b: B) -> B: ...
    def or_(self, a: B, b: B) -> B: ...
    def not_(self, a: B) -> B: ...
    def xor(self, a: V, b: V) -> V: ...
    def band(self, a: V, b: V) -> V: ...
    def bor(self, a: V, b: V) -> V: ...
    def bnot(self, a: V) -> V: ...
    def add(self, a: V, b: V) -> V: ...
    def sub(self, a: V, b: V) -> V: ...
    def neg(self, a: V) -> V: ...
    def shl(self, a: V, amount: V | int) -> V: ...
    def lshr(self, a: V, amount: V | int) -> V: ...
    def ashr(self, a: V, amount: V | int) -> V: ...
    def extract(self, a: V, hi: int, lo: int) -> V: ...
    def concat(self, hi: V, lo: V, lo_width: int) -> V: ...
    def zext(self, a: V, width: int) -> V: ...
    def sext(self, a: V, width: int) -> V: ...


# A reduction unit, `reduce(ops, seed, elements, active) -> result` (impl/__init__.py)
class ReductionUnit(Protocol):
    def __call__(self, ops: ElementOps[V, B], seed: V, elements: list[V], active: list[B]) -> V: ...


_NATIVE_FORMATS: dict[int, Literal["H", "I", "Q"]] = {16: "H", 32: "I", 64: "Q"}


class ConcreteElements:
    """SEW-bit element operations on Python ints (unsigned representation)."""

    symbolic = False
    true, false = True, False

    def __init__(self, width: int) -> None:
        self.width = width
        self.mask = (1 << width) - 1
        self._sign = 1 << (width - 1)

    def const(self, value: int) -> int:
        return value & self.mask

    def smin(self) -> int:
        """The signed minimum: the identity of signed max."""
        return self._sign

    def smax(self, a: int, b: int) -> int:
        return a if a ^ self._sign >= b ^ self._sign else b

    def umax(self, a: int, b: int) -> int:
        return a if a >= b else b

    def sgt(self, a: int, b: int) -> bool:
        return a ^ self._sign > b ^ self._sign

    def sge(self, a: int, b: int) -> bool:
        return a ^ self._sign >= b ^ self._sign

    def slt(self, a: int, b: int) -> bool:
        return a ^ self._sign < b ^ self._sign

    def ugt(self, a: int, b: int) -> bool:
        return a > b

    def ult(self, a: int, b: int) -> bool:
        return a < b

    def eq(self, a: int, b: int) -> bool:
        return a == b

    def ite(self, c: bool, a: int, b: int) -> int:
        return a if c else b

    def and_(self, a: bool, b: bool) -> bool:
        return a and b

    def or_(self, a: bool, b: bool) -> bool:
        return a or b

    def not_(self, a: bool) -> bool:
        return not a

    # comparisons, bitwise and arithmetic ops that real units use (a sign flip with xor
    # before an unsigned compare, an adder, a narrower sub-word); all modulo 2^width
    def sle(self, a: int, b: int) -> bool:
        return a ^ self._sign <= b ^ self._sign

    def ule(self, a: int, b: int) -> bool:
        return a <= b

    def uge(self, a: int, b: int) -> bool:
        return a >= b

    def ne(self, a: int, b: int) -> bool:
        return a != b

    def xor(self, a: int, b: int) -> int:
        return (a ^ b) & self.mask

    def band(self, a: int, b: int) -> int:
        return a & b & self.mask

    def bor(self, a: int, b: int) -> int:
        return (a | b) & self.mask

    def bnot(self, a: int) -> int:
        return ~a & self.mask

    def add(self, a: int, b: int) -> int:
        return (a + b) & self.mask

    def sub(self, a: int, b: int) -> int:
        return (a - b) & self.mask

    def neg(self, a: int) -> int:
        return -a & self.mask

    def shl(self, a: int, amount: int) -> int:
        """Shift left by an int or an element value; amounts >= width give 0 (SMT-LIB)."""
        return a << amount & self.mask if amount < self.width else 0

    def lshr(self, a: int, amount: int) -> int:
        return a >> amount if amount < self.width else 0

    def ashr(self, a: int, amount: int) -> int:
        return self.const(self.to_signed(a) >> min(amount, self.width - 1))

    def extract(self, a: int, hi: int, lo: int) -> int:
        """Bits hi..lo of a value (a narrower value, hi-lo+1 bits)."""
        return a >> lo & ((1 << (hi - lo + 1)) - 1)

    def concat(self, hi: int, lo: int, lo_width: int) -> int:
        """hi above lo (lo is lo_width bits wide)."""
        return hi << lo_width | lo

    def zext(self, a: int, width: int) -> int:
        """A width-bit value zero-extended to the element width."""
        return a & ((1 << width) - 1)

    def sext(self, a: int, width: int) -> int:
        """A width-bit value sign-extended to the element width."""
        a &= (1 << width) - 1
        return self.const(a - (1 << width) if a >> (width - 1) & 1 else a)

    def to_signed(self, value: int) -> int:
        return value - (1 << self.width) if value & self._sign else value


class Z3Elements:
    """SEW-bit element operations building Z3 bit-vector terms."""

    symbolic = True
    true, false = z3.BoolVal(True), z3.BoolVal(False)

    def __init__(self, width: int) -> None:
        self.width = width

    def const(self, value: int) -> z3.BitVecRef:
        return z3.BitVecVal(value, self.width)

    def smin(self) -> z3.BitVecRef:
        return z3.BitVecVal(1 << (self.width - 1), self.width)

    def smax(self, a: z3.BitVecRef, b: z3.BitVecRef) -> z3.BitVecRef:
        return z3.If(a >= b, a, b)

    def umax(self, a: z3.BitVecRef, b: z3.BitVecRef) -> z3.BitVecRef:
        return z3.If(z3.UGE(a, b), a, b)

    def sgt(self, a: z3.BitVecRef, b: z3.BitVecRef) -> z3.BoolRef:
        return a > b

    def sge(self, a: z3.BitVecRef, b: z3.BitVecRef) -> z3.BoolRef:
        return a >= b

    def slt(self, a: z3.BitVecRef, b: z3.BitVecRef) -> z3.BoolRef:
        return a < b

    def ugt(self, a: z3.BitVecRef, b: z3.BitVecRef) -> z3.BoolRef:
        return z3.UGT(a, b)

    def ult(self, a: z3.BitVecRef, b: z3.BitVecRef) -> z3.BoolRef:
        return z3.ULT(a, b)

    def eq(self, a: z3.BitVecRef, b: z3.BitVecRef) -> z3.BoolRef:
        return a == b

    def ite(self, c: z3.BoolRef, a: z3.BitVecRef, b: z3.BitVecRef) -> z3.BitVecRef:
        return z3.If(c, a, b)

    def and_(self, a: z3.BoolRef, b: z3.BoolRef) -> z3.BoolRef:
        return z3.And(a, b)

    def or_(self, a: z3.BoolRef, b: z3.BoolRef) -> z3.BoolRef:
        return z3.Or(a, b)

    def not_(self, a: z3.BoolRef) -> z3.BoolRef:
        return z3.Not(a)

    def sle(self, a: z3.BitVecRef, b: z3.BitVecRef) -> z3.BoolRef:
        return a <= b

    def ule(self, a: z3.BitVecRef, b: z3.BitVecRef) -> z3.BoolRef:
        return z3.ULE(a, b)

    def uge(self, a: z3.BitVecRef, b: z3.BitVecRef) -> z3.BoolRef:
        return z3.UGE(a, b)

    def ne(self, a: z3.BitVecRef, b: z3.BitVecRef) -> z3.BoolRef:
        return a != b

    def xor(self, a: z3.BitVecRef, b: z3.BitVecRef) -> z3.BitVecRef:
        return a ^ b

    def band(self, a: z3.BitVecRef, b: z3.BitVecRef) -> z3.BitVecRef:
        return a & b

    def bor(self, a: z3.BitVecRef, b: z3.BitVecRef) -> z3.BitVecRef:
        return a | b

    def bnot(self, a: z3.BitVecRef) -> z3.BitVecRef:
        return ~a

    def add(self, a: z3.BitVecRef, b: z3.BitVecRef) -> z3.BitVecRef:
        return a + b

    def sub(self, a: z3.BitVecRef, b: z3.BitVecRef) -> z3.BitVecRef:
        return a - b

    def neg(self, a: z3.BitVecRef) -> z3.BitVecRef:
        return -a

    def _amount(self, a: z3.BitVecRef, amount: z3.BitVecRef | int) -> z3.BitVecRef:
        """An int amount as a numeral; past the width it saturates (a numeral would wrap)."""
        if isinstance(amount, int):
            return z3.BitVecVal(min(amount, (1 << a.size()) - 1), a.size())
        return amount

    def shl(self, a: z3.BitVecRef, amount: z3.BitVecRef | int) -> z3.BitVecRef:
        return a << self._amount(a, amount)

    def lshr(self, a: z3.BitVecRef, amount: z3.BitVecRef | int) -> z3.BitVecRef:
        return z3.LShR(a, self._amount(a, amount))

    def ashr(self, a: z3.BitVecRef, amount: z3.BitVecRef | int) -> z3.BitVecRef:
        return a >> self._amount(a, amount)

    def extract(self, a: z3.BitVecRef, hi: int, lo: int) -> z3.BitVecRef:
        return z3.Extract(hi, lo, a)

    def concat(self, hi: z3.BitVecRef, lo: z3.BitVecRef, lo_width: int) -> z3.BitVecRef:
        return z3.Concat(hi, lo)

    def zext(self, a: z3.BitVecRef, width: int) -> z3.BitVecRef:
        return z3.ZeroExt(self.width - width, a)

    def sext(self, a: z3.BitVecRef, width: int) -> z3.BitVecRef:
        return z3.SignExt(self.width - width, a)


class Concrete:
    """Machine ops on Python ints; the register file is a tuple of 32 ints."""

    symbolic = False
    true, false = True, False

    @staticmethod
    def elements(width: int) -> ConcreteElements:
        return ConcreteElements(width)

    @staticmethod
    def decided(cond: object) -> bool | None:
        """The value of a condition when it is known without a solver, else None."""
        return bool(cond)

    # booleans and scalars
    @staticmethod
    def all_(*conds: object) -> bool:
        return all(conds)

    @staticmethod
    def any_(*conds: object) -> bool:
        return any(conds)

    @staticmethod
    def not_(cond: object) -> bool:
        return not cond

    @staticmethod
    def ite(cond: object, a: T, b: T) -> T:
        return a if cond else b

    @staticmethod
    def eq(a: int, b: int) -> bool:
        return a == b

    @staticmethod
    def ult(a: int, b: int) -> bool:
        return a < b

    @staticmethod
    def const(value: int, width: int) -> int:
        return value & ((1 << width) - 1)

    @staticmethod
    def bit(value: int, i: int) -> bool:
        return bool(value >> i & 1)

    @staticmethod
    def low_bits(value: int, n: int) -> int:
        return value & ((1 << n) - 1)

    @staticmethod
    def add(a: int, b: int, width: int) -> int:
        return (a + b) & ((1 << width) - 1)

    # registers
    @staticmethod
    def read(regs: tuple[int, ...], index: int) -> int:
        return regs[index]

    @staticmethod
    def write(regs: tuple[int, ...], index: int, value: int) -> tuple[int, ...]:
        return regs[:index] + (value,) + regs[index + 1 :]

    @staticmethod
    def extract(value: int, hi: int, lo: int) -> int:
        return value >> lo & ((1 << (hi - lo + 1)) - 1)

    @staticmethod
    def concat(hi: int, lo: int, lo_width: int) -> int:
        return hi << lo_width | lo

    @staticmethod
    def split(value: int, width: int, count: int) -> list[int]:
        """The first `count` width-bit elements of a register, element 0 first."""
        nbytes = width // 8
        # Mask first: a fractional-LMUL group uses only the low part of its register.
        raw = (value & ((1 << count * width) - 1)).to_bytes(count * nbytes, "little")
        if width == 8:
            return list(raw)
        view = memoryview(raw).cast(_NATIVE_FORMATS[width])
        if sys.byteorder == "little":
            return view.tolist()
        return [int.from_bytes(raw[i : i + nbytes], "little") for i in range(0, len(raw), nbytes)]

    @staticmethod
    def bits(value: int, count: int) -> list[bool]:
        """Bits 0..count-1 of a value (mask bits, EEW=1 layout)."""
        text = format(value & ((1 << count) - 1), f"0{count}b")
        return [c == "1" for c in reversed(text)]


class Symbolic:
    """Machine ops building Z3 terms; the register file is a Z3 array from 5-bit numbers."""

    symbolic = True
    true, false = z3.BoolVal(True), z3.BoolVal(False)

    @staticmethod
    def elements(width: int) -> Z3Elements:
        return Z3Elements(width)

    @staticmethod
    def decided(cond: z3.BoolRef | bool) -> bool | None:
        if isinstance(cond, bool):
            return cond
        simple = z3.simplify(cond)
        if z3.is_true(simple):
            return True
        if z3.is_false(simple):
            return False
        return None

    @staticmethod
    def all_(*conds: z3.BoolRef | bool) -> z3.BoolRef:
        return z3.And(*conds) if conds else z3.BoolVal(True)

    @staticmethod
    def any_(*conds: z3.BoolRef | bool) -> z3.BoolRef:
        return z3.Or(*conds) if conds else z3.BoolVal(False)

    @staticmethod
    def not_(cond: z3.BoolRef | bool) -> z3.BoolRef:
        return z3.Not(cond)

    @staticmethod
    def ite(cond: z3.BoolRef | bool, a: Any, b: Any) -> Any:
        return z3.If(cond, a, b)

    @staticmethod
    def eq(a: Term, b: Term) -> z3.BoolRef | bool:
        return a == b

    @staticmethod
    def ult(a: Term, b: Term) -> z3.BoolRef:
        return z3.ULT(a, b)

    @staticmethod
    def const(value: int, width: int) -> z3.BitVecRef:
        return z3.BitVecVal(value, width)

    @staticmethod
    def bit(value: Term, i: int) -> z3.BoolRef:
        if isinstance(value, int):
            return z3.BoolVal(bool(value >> i & 1))
        return z3.Extract(i, i, value) == 1

    @staticmethod
    def low_bits(value: Term, n: int) -> Term:
        if isinstance(value, int):
            return value & ((1 << n) - 1)
        return z3.ZeroExt(value.size() - n, z3.Extract(n - 1, 0, value))

    @staticmethod
    def add(a: Term, b: Term, width: int) -> Term:
        if isinstance(a, int) and isinstance(b, int):
            return (a + b) & ((1 << width) - 1)
        return a + b

    @staticmethod
    def read(regs: z3.ArrayRef, index: Term) -> z3.BitVecRef:
        return z3.Select(regs, _index(index))

    @staticmethod
    def write(regs: z3.ArrayRef, index: Term, value: Term) -> z3.ArrayRef:
        return z3.Store(regs, _index(index), value)

    @staticmethod
    def extract(value: z3.BitVecRef, hi: int, lo: int) -> z3.BitVecRef:
        return z3.Extract(hi, lo, value)

    @staticmethod
    def concat(hi: z3.BitVecRef, lo: z3.BitVecRef, lo_width: int) -> z3.BitVecRef:
        return z3.Concat(hi, lo)

    @staticmethod
    def split(value: z3.BitVecRef, width: int, count: int) -> list[z3.BitVecRef]:
        return [z3.Extract(i * width + width - 1, i * width, value) for i in range(count)]

    @staticmethod
    def bits(value: z3.BitVecRef, count: int) -> list[z3.BoolRef]:
        return [z3.Extract(i, i, value) == 1 for i in range(count)]


def _index(index: Term) -> z3.BitVecRef:
    return z3.BitVecVal(index, 5) if isinstance(index, int) else index


if TYPE_CHECKING:  # both element backends implement the interface (the type checker sees it)
    _CONCRETE: ElementOps[int, bool] = ConcreteElements(8)
    _SYMBOLIC: ElementOps[z3.BitVecRef, z3.BoolRef] = Z3Elements(8)


class MachineOps(Protocol[V, B]):
    """The machine ops (`Concrete`, `Symbolic`; spec, impl and the proofs take one as `m`).
    An int stands for a numeral where the symbolic side accepts one."""

    @property
    def symbolic(self) -> bool: ...
    @property
    def true(self) -> B: ...
    @property
    def false(self) -> B: ...

    def elements(self, width: int) -> ElementOps[V, B]: ...
    def decided(self, cond: B | bool) -> bool | None: ...
    def all_(self, *conds: B | bool) -> B: ...
    def any_(self, *conds: B | bool) -> B: ...
    def not_(self, cond: B | bool) -> B: ...
    def ite(self, cond: B | bool, a: T, b: T) -> T: ...
    def eq(self, a: V | int, b: V | int) -> B | bool: ...
    def ult(self, a: V | int, b: V | int) -> B | bool: ...
    def const(self, value: int, width: int) -> V: ...
    def bit(self, value: V | int, i: int) -> B | bool: ...
    def low_bits(self, value: V | int, n: int) -> V | int: ...
    def add(self, a: V | int, b: V | int, width: int) -> V | int: ...
    def read(self, regs: Any, index: V | int) -> V: ...
    def write(self, regs: Any, index: V | int, value: V) -> Any: ...
    def extract(self, value: V, hi: int, lo: int) -> V: ...
    def concat(self, hi: V, lo: V, lo_width: int) -> V: ...
    def split(self, value: V, width: int, count: int) -> list[V]: ...
    def bits(self, value: V, count: int) -> list[B]: ...


Machine = MachineOps[Any, Any]  # either backend, where the code is not generic over it


if TYPE_CHECKING:  # both machine backends implement the interface
    _CONCRETE_MACHINE: MachineOps[int, bool] = Concrete
    _SYMBOLIC_MACHINE: MachineOps[z3.BitVecRef, z3.BoolRef] = Symbolic
