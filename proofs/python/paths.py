"""The contexts of a symbolic run of the user's code: what a term cannot answer is asked here.

`ProofContext` answers constants and refuses the rest (values.Context): a run whose code
never needs a Python value of a symbolic one. `CutContext` is the run of a whole instruction
cut at its reduction (proofs/python/cutstep.py): machine values are Z3 terms, the reduction's
are traced; where the two meet, an element-sized Z3 value becomes a leaf of the trace, and a
traced value that reaches a machine value is cut (a fresh variable r, cutstep's cut point).
"""

from __future__ import annotations

import z3

from vredmax.proofs.python import values as V
from vredmax.proofs.python.facade import Z3
from vredmax.proofs.python.terms import TraceTerms, Z3Terms
from vredmax.proofs.python.trace import BOOL

V.internal(__file__)


def is_z3(bk) -> bool:
    return isinstance(bk, Z3Terms)


class ProofContext(V.Context):
    """A symbolic run: constants are answered, everything else refused (and recorded)."""

    def __init__(self, user_files=(), vlen: int | None = None):
        super().__init__(user_files)
        self.vlen = vlen

    def to_z3(self, cond: V.SymBool):
        if is_z3(cond.bk):
            return cond.t
        self.refuse("a traced condition used as a machine condition", "keep the reduction's conditions inside it")

    def to_z3_int(self, value: V.SymInt):
        if is_z3(value.bk):
            return value
        self.refuse("a traced value used as a machine value", "keep the reduction's values inside it")


class CutContext(ProofContext):
    """A whole instruction run on the cut machine of proofs/python/cutstep.py."""

    def __init__(self, machine, user_files=(), vlen: int | None = None):
        super().__init__(user_files, vlen)
        self.machine = machine
        self.sew = machine.tracer.sew

    @property
    def trace_limit(self):
        return min(2 * self.sew, (self.vlen or 1 << 20) - 1)

    def _trace(self):
        from vredmax.proofs.python.facade import trace_terms
        return trace_terms(self.machine.tracer)

    def lift(self, x, bk: TraceTerms | None = None):
        """A Z3-backed value as a leaf of the trace."""
        bk = bk or self._trace()
        if not is_z3(x.bk):
            return x
        if isinstance(x, V.SymBool):
            return V.make_bool(self, bk, self.machine.tracer.leaf_for(x.t))
        return V.SymInt(self, bk, self.machine.tracer.leaf_for(x.t), x.w, x.s, x.lo, x.hi)

    def to_z3_int(self, value: V.SymInt):
        """A traced value reaching a machine value: the cut variable standing for it (an
        element value is cut at SEW bits, the reduction's result)."""
        if is_z3(value.bk):
            return value
        width = self.sew if (value.lo >= 0 and value.hi < 1 << self.sew) else value.w
        variable = self.machine._cut(V.fit(value.bk, value, width))
        return V.SymInt(self, Z3, variable, width, value.s and width == value.w, value.lo, value.hi)

    def to_z3(self, cond: V.SymBool):
        if is_z3(cond.bk):
            return cond.t
        return self.machine._cut(cond.t)      # refused there: a traced condition is no reduction result

    def place(self, width, values):
        """Where traced and machine values meet (or a traced one grows wider than an element
        could): a register-wide result is computed on the machine, the traced values cut; an
        element-wide one in the trace, the machine values its leaves."""
        if width > self.trace_limit:
            converted = [self.to_z3_int(v) if isinstance(v, V.SymInt) else
                         V.make_bool(self, Z3, self.to_z3(v)) if isinstance(v, V.SymBool) else v for v in values]
            return (Z3, *converted)
        bk = self._trace()
        return (bk, *[self.lift(v, bk) if isinstance(v, (V.SymInt, V.SymBool)) else v for v in values])
