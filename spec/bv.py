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
import z3


class ConcreteElements:
    """SEW-bit element operations on Python ints (unsigned representation)."""

    symbolic = False
    true, false = True, False

    def __init__(self, width: int):
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

    def sgt(self, a, b): return a ^ self._sign > b ^ self._sign
    def sge(self, a, b): return a ^ self._sign >= b ^ self._sign
    def slt(self, a, b): return a ^ self._sign < b ^ self._sign
    def ugt(self, a, b): return a > b
    def ult(self, a, b): return a < b
    def eq(self, a, b): return a == b
    def ite(self, c, a, b): return a if c else b
    def and_(self, a, b): return a and b
    def or_(self, a, b): return a or b
    def not_(self, a): return not a

    # comparisons, bitwise and arithmetic ops that real units use (a sign flip with xor
    # before an unsigned compare, an adder, a narrower sub-word); all modulo 2^width
    def sle(self, a, b): return a ^ self._sign <= b ^ self._sign
    def ule(self, a, b): return a <= b
    def uge(self, a, b): return a >= b
    def ne(self, a, b): return a != b
    def xor(self, a, b): return (a ^ b) & self.mask
    def band(self, a, b): return a & b & self.mask
    def bor(self, a, b): return (a | b) & self.mask
    def bnot(self, a): return ~a & self.mask
    def add(self, a, b): return (a + b) & self.mask
    def sub(self, a, b): return (a - b) & self.mask
    def neg(self, a): return -a & self.mask

    def shl(self, a, amount):
        """Shift left by an int or an element value; amounts >= width give 0 (SMT-LIB)."""
        return a << amount & self.mask if amount < self.width else 0

    def lshr(self, a, amount):
        return a >> amount if amount < self.width else 0

    def ashr(self, a, amount):
        return self.const(self.to_signed(a) >> min(amount, self.width - 1))

    def extract(self, a, hi: int, lo: int):
        """Bits hi..lo of a value (a narrower value, hi-lo+1 bits)."""
        return a >> lo & ((1 << (hi - lo + 1)) - 1)

    def concat(self, hi, lo, lo_width: int):
        """hi above lo (lo is lo_width bits wide)."""
        return hi << lo_width | lo

    def zext(self, a, width: int):
        """A width-bit value zero-extended to the element width."""
        return a & ((1 << width) - 1)

    def sext(self, a, width: int):
        """A width-bit value sign-extended to the element width."""
        a &= (1 << width) - 1
        return self.const(a - (1 << width) if a >> (width - 1) & 1 else a)

    def to_signed(self, value: int) -> int:
        return value - (1 << self.width) if value & self._sign else value


class Z3Elements:
    """SEW-bit element operations building Z3 bit-vector terms."""

    symbolic = True
    true, false = z3.BoolVal(True), z3.BoolVal(False)

    def __init__(self, width: int):
        self.width = width

    def const(self, value: int):
        return z3.BitVecVal(value, self.width)

    def smin(self):
        return z3.BitVecVal(1 << (self.width - 1), self.width)

    def smax(self, a, b): return z3.If(a >= b, a, b)
    def umax(self, a, b): return z3.If(z3.UGE(a, b), a, b)
    def sgt(self, a, b): return a > b
    def sge(self, a, b): return a >= b
    def slt(self, a, b): return a < b
    def ugt(self, a, b): return z3.UGT(a, b)
    def ult(self, a, b): return z3.ULT(a, b)
    def eq(self, a, b): return a == b
    def ite(self, c, a, b): return z3.If(c, a, b)
    def and_(self, a, b): return z3.And(a, b)
    def or_(self, a, b): return z3.Or(a, b)
    def not_(self, a): return z3.Not(a)

    def sle(self, a, b): return a <= b
    def ule(self, a, b): return z3.ULE(a, b)
    def uge(self, a, b): return z3.UGE(a, b)
    def ne(self, a, b): return a != b
    def xor(self, a, b): return a ^ b
    def band(self, a, b): return a & b
    def bor(self, a, b): return a | b
    def bnot(self, a): return ~a
    def add(self, a, b): return a + b
    def sub(self, a, b): return a - b
    def neg(self, a): return -a

    def _amount(self, a, amount):
        """An int amount as a numeral; past the width it saturates (a numeral would wrap)."""
        if isinstance(amount, int):
            return z3.BitVecVal(min(amount, (1 << a.size()) - 1), a.size())
        return amount

    def shl(self, a, amount): return a << self._amount(a, amount)
    def lshr(self, a, amount): return z3.LShR(a, self._amount(a, amount))
    def ashr(self, a, amount): return a >> self._amount(a, amount)
    def extract(self, a, hi: int, lo: int): return z3.Extract(hi, lo, a)
    def concat(self, hi, lo, lo_width: int): return z3.Concat(hi, lo)
    def zext(self, a, width: int): return z3.ZeroExt(self.width - width, a)
    def sext(self, a, width: int): return z3.SignExt(self.width - width, a)


class Concrete:
    """Machine ops on Python ints; the register file is a tuple of 32 ints."""

    symbolic = False
    true, false = True, False

    @staticmethod
    def elements(width: int) -> ConcreteElements:
        return ConcreteElements(width)

    @staticmethod
    def decided(cond) -> bool | None:
        """The value of a condition when it is known without a solver, else None."""
        return bool(cond)

    # booleans and scalars
    @staticmethod
    def all_(*conds) -> bool: return all(conds)
    @staticmethod
    def any_(*conds) -> bool: return any(conds)
    @staticmethod
    def not_(cond) -> bool: return not cond
    @staticmethod
    def ite(cond, a, b): return a if cond else b
    @staticmethod
    def eq(a, b) -> bool: return a == b
    @staticmethod
    def ult(a, b) -> bool: return a < b
    @staticmethod
    def const(value: int, width: int) -> int: return value & ((1 << width) - 1)
    @staticmethod
    def bit(value: int, i: int) -> bool: return bool(value >> i & 1)
    @staticmethod
    def low_bits(value: int, n: int) -> int: return value & ((1 << n) - 1)
    @staticmethod
    def add(a: int, b: int, width: int) -> int: return (a + b) & ((1 << width) - 1)

    # registers
    @staticmethod
    def read(regs, index): return regs[index]

    @staticmethod
    def write(regs, index, value):
        return regs[:index] + (value,) + regs[index + 1:]

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
        view = memoryview(raw).cast({16: "H", 32: "I", 64: "Q"}[width])
        if sys.byteorder == "little":
            return view.tolist()
        return [int.from_bytes(raw[i:i + nbytes], "little") for i in range(0, len(raw), nbytes)]

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
    def decided(cond) -> bool | None:
        if isinstance(cond, bool):
            return cond
        simple = z3.simplify(cond)
        if z3.is_true(simple):
            return True
        if z3.is_false(simple):
            return False
        return None

    @staticmethod
    def all_(*conds): return z3.And(*conds) if conds else z3.BoolVal(True)
    @staticmethod
    def any_(*conds): return z3.Or(*conds) if conds else z3.BoolVal(False)
    @staticmethod
    def not_(cond): return z3.Not(cond)
    @staticmethod
    def ite(cond, a, b): return z3.If(cond, a, b)
    @staticmethod
    def eq(a, b): return a == b
    @staticmethod
    def ult(a, b): return z3.ULT(a, b)
    @staticmethod
    def const(value: int, width: int): return z3.BitVecVal(value, width)

    @staticmethod
    def bit(value, i: int):
        if isinstance(value, int):
            return z3.BoolVal(bool(value >> i & 1))
        return z3.Extract(i, i, value) == 1

    @staticmethod
    def low_bits(value, n: int):
        if isinstance(value, int):
            return value & ((1 << n) - 1)
        return z3.ZeroExt(value.size() - n, z3.Extract(n - 1, 0, value))

    @staticmethod
    def add(a, b, width: int):
        if isinstance(a, int) and isinstance(b, int):
            return (a + b) & ((1 << width) - 1)
        return a + b

    @staticmethod
    def read(regs, index):
        return z3.Select(regs, _index(index))

    @staticmethod
    def write(regs, index, value):
        return z3.Store(regs, _index(index), value)

    @staticmethod
    def extract(value, hi: int, lo: int):
        return z3.Extract(hi, lo, value)

    @staticmethod
    def concat(hi, lo, lo_width: int):
        return z3.Concat(hi, lo)

    @staticmethod
    def split(value, width: int, count: int) -> list:
        return [z3.Extract(i * width + width - 1, i * width, value) for i in range(count)]

    @staticmethod
    def bits(value, count: int) -> list:
        return [z3.Extract(i, i, value) == 1 for i in range(count)]


def _index(index):
    return z3.BitVecVal(index, 5) if isinstance(index, int) else index

