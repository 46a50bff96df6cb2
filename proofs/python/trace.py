"""A tracing backend of the element ops: run a reduction unit once, get the DAG of its ops.

Every value the unit computes is a `Term`: an operation with its arguments, hash-consed (an
equal operation on the same arguments is the same node), so a unit's DAG has one node per
distinct subterm. Leaves are the seed, the elements, the active flags and constants.

Terms refuse to be decided: a Python truth test (`if x:`, `if a == b:`, `and`, `or`,
`not`), a comparison operator or arithmetic operator on a Term raises `SymbolicUse` naming
the user's file and line and the element op to use instead. Python never picks a branch.

Simplifications made while tracing are identities of the bit-vector operations (constant
folding with the concrete backend, `ite(c, a, a) = a`, `ite(true, a, b) = a`, Boolean unit
laws, `smax(a, a) = a`, `smax(smin, a) = a`); each keeps the value of the term.
"""

from __future__ import annotations

import itertools
import os
import sys

from vredmax.spec.bv import ConcreteElements

BOOL = 0  # the width of a Boolean term


class SymbolicUse(TypeError):
    """The unit used a symbolic value the way Python decides concrete ones."""


_HERE = os.path.abspath(__file__)


def user_location() -> str:
    """file:line of the innermost frame outside this module (the user's code)."""
    frame = sys._getframe(1)
    while frame is not None and os.path.abspath(frame.f_code.co_filename) == _HERE:
        frame = frame.f_back
    if frame is None:
        return "<unknown>"
    return f"{frame.f_code.co_filename}:{frame.f_lineno}"


def _refuse(what: str, instead: str):
    def refuse(self, *args):
        error = SymbolicUse(
            f"{user_location()}: {what} of a symbolic value ({self.describe()}); "
            f"its value is not known while proving, so Python cannot decide it: {instead}"
        )
        # recorded, so that code catching it (`except Exception:`) cannot take a path of
        # its own while proving (proofs/engine/truth_guard.py: the caller checks the refusals)
        from vredmax.proofs.engine.truth_guard import record_refusal

        record_refusal(error)
        raise error

    return refuse


_BRANCH = "use ops.ite(condition, then, else) to choose between values"


class Term:
    """One node of the traced DAG. `width` is the bit width, BOOL (0) for a Boolean."""

    # flag_only: computed from the flags and constants alone; structural: a flag-only
    # Boolean, a condition over the flags (proofs/python/flagbits.py writes it as one)
    __slots__ = ("op", "args", "param", "width", "serial", "flag_only", "structural", "origin", "__weakref__")

    def __init__(self, op, args, param, width, serial, flag_only, origin=None):
        self.op, self.args, self.param, self.width = op, args, param, width
        self.serial, self.flag_only, self.origin = serial, flag_only, origin
        self.structural = flag_only and width == BOOL

    def where(self) -> str:
        """file:line of the user's code that made this node (first made there)."""
        return f"{self.origin[0]}:{self.origin[1]}" if self.origin else "<unknown>"

    def describe(self) -> str:
        if self.op in ("seed", "elem", "flag", "const", "bool"):
            return self.op if self.param is None else f"{self.op} {self.param}"
        return f"the result of ops.{self.op}"

    __hash__ = object.__hash__
    __bool__ = _refuse("a Python truth test (if/while/and/or/not/bool())", _BRANCH)
    __eq__ = _refuse("==", "use ops.eq(a, b) for a condition, ops.ite to choose on it")
    __ne__ = _refuse("!=", "use ops.ne(a, b) for a condition, ops.ite to choose on it")
    __lt__ = _refuse("<", "use ops.slt or ops.ult")
    __le__ = _refuse("<=", "use ops.sle or ops.ule")
    __gt__ = _refuse(">", "use ops.sgt or ops.ugt")
    __ge__ = _refuse(">=", "use ops.sge or ops.uge")
    __index__ = _refuse("use as an int (an index, range(), hex())", "compute with the element ops")
    __int__ = __index__
    __float__ = __index__
    __add__ = __radd__ = _refuse("+", "use ops.add")
    __sub__ = __rsub__ = _refuse("-", "use ops.sub")
    __xor__ = __rxor__ = _refuse("^", "use ops.xor")
    __and__ = __rand__ = _refuse("&", "use ops.band (values) or ops.and_ (conditions)")
    __or__ = __ror__ = _refuse("|", "use ops.bor (values) or ops.or_ (conditions)")
    __invert__ = _refuse("~", "use ops.bnot (values) or ops.not_ (conditions)")
    __neg__ = _refuse("unary -", "use ops.neg")
    __lshift__ = _refuse("<<", "use ops.shl")
    __rshift__ = _refuse(">>", "use ops.lshr or ops.ashr")
    __mul__ = __rmul__ = _refuse("*", "the element ops have no multiply")

    def __repr__(self) -> str:
        return f"<Term #{self.serial} {self.describe()} w={self.width}>"


# Which ops combine values into values of the same width (for constant folding and widths).
VALUE_OPS = ("smax", "umax", "xor", "band", "bor", "add", "sub")
UNARY_VALUE_OPS = ("bnot", "neg")
COMPARISONS = ("sgt", "sge", "slt", "sle", "ugt", "ult", "ule", "uge", "eq", "ne")
SHIFTS = ("shl", "lshr", "ashr")


class Tracer:
    """The node table of one traced run (hash-consing) and its leaves."""

    def __init__(self, sew: int, count: int):
        self.sew = sew
        self._table: dict = {}
        self._serials = itertools.count()
        self.true = self.make("bool", (), True, BOOL)
        self.false = self.make("bool", (), False, BOOL)
        self.seed = self.make("seed", (), None, sew)
        self.elements = [self.make("elem", (), i, sew) for i in range(count)]
        self.flags = [self.make("flag", (), i, BOOL) for i in range(count)]

    def make(self, op, args, param, width) -> Term:
        key = (op, param, width) + tuple(id(a) for a in args)
        found = self._table.get(key)
        if found is None:
            flag_only = op in ("flag", "bool", "const") or (bool(args) and all(a.flag_only for a in args))
            frame = sys._getframe(1)
            while frame is not None and is_internal(frame.f_code.co_filename):
                frame = frame.f_back
            origin = (frame.f_code.co_filename, frame.f_lineno) if frame is not None else None
            found = Term(op, tuple(args), param, width, next(self._serials), flag_only, origin)
            self._table[key] = found
        return found

    def const(self, value: int, width: int) -> Term:
        return self.make("const", (), value & ((1 << width) - 1), width)

    def boolean(self, value: bool) -> Term:
        return self.true if value else self.false

    def __len__(self) -> int:
        return len(self._table)


_THIS_FILE = Tracer.make.__code__.co_filename
# The checker's own files (this one, and those of proofs/python/values.py's symbolic values):
# a node's origin is the first frame outside them, the user's line.
INTERNAL_FILES: set = {os.path.abspath(_THIS_FILE)}
_INTERNAL_NAMES: dict = {}


def is_internal(filename: str) -> bool:
    found = _INTERNAL_NAMES.get(filename)
    if found is None:
        found = _INTERNAL_NAMES[filename] = os.path.abspath(filename) in INTERNAL_FILES
    return found


def is_const(t: Term) -> bool:
    return t.op in ("const", "bool")


class TraceElements:
    """The element ops of spec/bv.py, building Terms (see the module docstring)."""

    symbolic = True

    def __init__(self, tracer: Tracer, width: int | None = None):
        self.tracer = tracer
        self.width = width or tracer.sew
        self.true, self.false = tracer.true, tracer.false

    # inputs -----------------------------------------------------------------------------
    def _value(self, x, width=None) -> Term:
        if isinstance(x, Term):
            if x.width == BOOL:
                raise SymbolicUse(
                    f"{user_location()}: a condition ({x.describe()}) where a value is "
                    "expected: use ops.ite(condition, a, b) to turn it into a value"
                )
            return x
        if isinstance(x, bool) or not isinstance(x, int):
            raise SymbolicUse(
                f"{user_location()}: expected an element value or an int, got {type(x).__name__} {x!r}"
            )
        return self.tracer.const(x, width or self.width)

    def _cond(self, c) -> Term:
        if isinstance(c, Term):
            if c.width != BOOL:
                raise SymbolicUse(
                    f"{user_location()}: a value ({c.describe()}) where a condition is "
                    "expected: compare it (ops.ne(x, ops.const(0)), ops.sgt, ...)"
                )
            return c
        if isinstance(c, bool):
            return self.tracer.boolean(c)
        raise SymbolicUse(f"{user_location()}: expected a condition, got {type(c).__name__} {c!r}")

    def _pair(self, a, b):
        a = self._value(a, b.width if isinstance(b, Term) and b.width else None)
        b = self._value(b, a.width)
        if a.width != b.width:
            raise SymbolicUse(
                f"{user_location()}: operands of {a.width} and {b.width} bits; "
                "extend one first (ops.zext, ops.sext)"
            )
        return a, b

    def _wide(self, op, a):
        """Arithmetic and ordered comparisons work on element-wide values only (so that the
        concrete and Z3 backends agree): narrower ones are extended first."""
        if a.width != self.width:
            raise SymbolicUse(
                f"{user_location()}: ops.{op} on a {a.width}-bit value; the element "
                f"width is {self.width}: extend it first (ops.zext, ops.sext)"
            )
        return a

    def _fold(self, op, width, *args):
        """A constant when every argument is one (computed by the concrete backend)."""
        if all(is_const(a) for a in args if isinstance(a, Term)):
            values = [a.param if isinstance(a, Term) else a for a in args]
            return getattr(ConcreteElements(width), op)(*values)
        return None

    def _node(self, op, args, param, width, fold_width=None, fold_args=None):
        folded = self._fold(op, fold_width or width, *(fold_args if fold_args is not None else args))
        if folded is not None:
            return self.tracer.boolean(folded) if width == BOOL else self.tracer.const(folded, width)
        return self.tracer.make(op, args, param, width)

    # constants --------------------------------------------------------------------------
    def const(self, value: int) -> Term:
        if isinstance(value, Term) or isinstance(value, bool) or not isinstance(value, int):
            raise SymbolicUse(f"{user_location()}: ops.const takes a Python int, got {value!r}")
        return self.tracer.const(value, self.width)

    def smin(self) -> Term:
        return self.tracer.const(1 << (self.width - 1), self.width)

    # values -----------------------------------------------------------------------------
    def smax(self, a, b):
        a, b = self._pair(a, b)
        self._wide("smax", a)
        smin = 1 << (a.width - 1)
        if a is b or (is_const(b) and b.param == smin):
            return a
        if is_const(a) and a.param == smin:
            return b
        return self._node("smax", (a, b), None, a.width)

    def _binary(op):
        def method(self, a, b):
            a, b = self._pair(a, b)
            self._wide(op, a)
            return self._node(op, (a, b), None, a.width)

        method.__name__ = op
        return method

    umax, xor, band, bor = _binary("umax"), _binary("xor"), _binary("band"), _binary("bor")
    add, sub = _binary("add"), _binary("sub")

    def _unary(op):
        def method(self, a):
            a = self._wide(op, self._value(a))
            return self._node(op, (a,), None, a.width)

        method.__name__ = op
        return method

    bnot, neg = _unary("bnot"), _unary("neg")

    def _shift(op):
        def method(self, a, amount):
            a = self._wide(op, self._value(a))
            if isinstance(amount, int) and not isinstance(amount, bool):
                if amount < 0:
                    raise SymbolicUse(f"{user_location()}: a negative shift amount {amount}")
                return self._node(op, (a,), amount, a.width, fold_args=(a, amount))
            amount = self._value(amount, a.width)
            return self._node(op, (a, amount), None, a.width)

        method.__name__ = op
        return method

    shl, lshr, ashr = _shift("shl"), _shift("lshr"), _shift("ashr")

    def extract(self, a, hi: int, lo: int):
        a = self._value(a)
        if not (isinstance(hi, int) and isinstance(lo, int) and 0 <= lo <= hi < a.width):
            raise SymbolicUse(f"{user_location()}: extract({hi}, {lo}) of a {a.width}-bit value")
        if lo == 0 and hi == a.width - 1:
            return a
        return self._node("extract", (a,), (hi, lo), hi - lo + 1, a.width, (a, hi, lo))

    def concat(self, hi, lo, lo_width: int):
        hi, lo = self._value(hi), self._value(lo)
        if lo.width != lo_width:
            raise SymbolicUse(
                f"{user_location()}: concat says the low part has {lo_width} bits, it has {lo.width}"
            )
        return self._node(
            "concat", (hi, lo), lo_width, hi.width + lo.width, hi.width + lo.width, (hi, lo, lo_width)
        )

    def _extend(op):
        def method(self, a, width: int):
            a = self._value(a, width)
            if a.width != width or width > self.width:
                raise SymbolicUse(
                    f"{user_location()}: {op}(x, {width}) of a {a.width}-bit value to {self.width} bits"
                )
            if width == self.width:
                return a
            return self._node(op, (a,), width, self.width, self.width, (a, width))

        method.__name__ = op
        return method

    zext, sext = _extend("zext"), _extend("sext")

    # conditions -------------------------------------------------------------------------
    def _compare(op):
        def method(self, a, b):
            a, b = self._pair(a, b)
            if op not in ("eq", "ne"):
                self._wide(op, a)
            if a is b:
                return self.tracer.boolean(op in ("sge", "sle", "uge", "ule", "eq"))
            return self._node(op, (a, b), None, BOOL, a.width)

        method.__name__ = op
        return method

    sgt, sge, slt, sle = _compare("sgt"), _compare("sge"), _compare("slt"), _compare("sle")
    ugt, ult, ule, uge = _compare("ugt"), _compare("ult"), _compare("ule"), _compare("uge")
    eq, ne = _compare("eq"), _compare("ne")

    def ite(self, c, a, b):
        c = self._cond(c)
        if isinstance(a, Term) and a.width == BOOL or isinstance(a, bool):
            a, b = self._cond(a), self._cond(b)
        else:
            a, b = self._pair(a, b)
        if c is self.true or a is b:
            return a
        if c is self.false:
            return b
        if a.width == BOOL and a is self.true and b is self.false:
            return c
        return self.tracer.make("ite", (c, a, b), None, a.width)

    def and_(self, a, b):
        a, b = self._cond(a), self._cond(b)
        if a is self.false or b is self.false:
            return self.false
        if a is self.true or a is b:
            return b
        if b is self.true:
            return a
        return self.tracer.make("and_", (a, b), None, BOOL)

    def or_(self, a, b):
        a, b = self._cond(a), self._cond(b)
        if a is self.true or b is self.true:
            return self.true
        if a is self.false or a is b:
            return b
        if b is self.false:
            return a
        return self.tracer.make("or_", (a, b), None, BOOL)

    def not_(self, a):
        a = self._cond(a)
        if is_const(a):
            return self.tracer.boolean(not a.param)
        if a.op == "not_":
            return a.args[0]
        return self.tracer.make("not_", (a,), None, BOOL)


def evaluate(ops, term: Term, leaf, memo: dict | None = None) -> object:
    """The value of a term on an element-ops backend: `leaf(term)` gives each leaf's value
    (or None to compute the node from its arguments). Iterative, children first. `memo`
    (id(node) -> (node, value), the node kept so that its id stays its own) carries the values
    from one call to the next: a loop asks about its running value at every round, and each
    round's term is the last one's plus a node (without it, every question walks the chain)."""
    values: dict = {}
    stack = [term]
    while stack:
        node = stack[-1]
        if id(node) in values:
            stack.pop()
            continue
        if memo is not None and id(node) in memo:
            values[id(node)] = memo[id(node)][1]
            stack.pop()
            continue
        given = leaf(node)
        if given is not None:
            values[id(node)] = given
            stack.pop()
            continue
        missing = [a for a in node.args if id(a) not in values]
        if missing:
            stack.extend(missing)
            continue
        stack.pop()
        values[id(node)] = apply_op(ops, node.op, node.param, node.width, [values[id(a)] for a in node.args])
        if memo is not None:
            memo[id(node)] = (node, values[id(node)])
    return values[id(term)]


def apply_op(ops, op, param, width, args: list):
    """One operation on a backend (whose element width is the SEW), on its arguments' values.
    A node of another width (a symbolic Python int of proofs/python/values.py) is computed by
    the backend's ops at its own width; a comparison's param is its operands' width."""
    if op == "const":
        if width == ops.width:
            return ops.const(param)
        if not ops.symbolic:
            return param
        import z3

        return z3.BitVecVal(param, width)
    if op == "bool":
        return ops.true if param else ops.false
    if op in COMPARISONS:
        return getattr(_at(ops, param) if param else ops, op)(*args)
    if width != BOOL and width != ops.width:
        ops = _at(ops, width)
    if op in SHIFTS and param is not None:
        return getattr(ops, op)(args[0], param)
    if op == "extract":
        return ops.extract(args[0], *param)
    if op == "concat":
        return ops.concat(args[0], args[1], param)
    if op in ("zext", "sext"):
        return getattr(ops, op)(args[0], param)
    if op in WORD_OPS:
        return WORD_OPS[op][ops.symbolic](ops, *args)
    return getattr(ops, op)(*args)


_OPS_AT: dict = {}


def _at(ops, width):
    """The backend's element ops at another width."""
    key = (type(ops), width)
    found = _OPS_AT.get(key)
    if found is None:
        found = _OPS_AT[key] = type(ops)(width)
    return found


def _udiv(ops, a, b):
    return a // b if b else ops.mask  # SMT-LIB: x / 0 is all ones


def _urem(ops, a, b):
    return a % b if b else a


def _sdiv(ops, a, b):
    x, y = ops.to_signed(a), ops.to_signed(b)
    if y == 0:
        return ops.mask if x >= 0 else 1
    q = abs(x) // abs(y)
    return ops.const(q if (x < 0) == (y < 0) else -q)


def _smod(ops, a, b):
    x, y = ops.to_signed(a), ops.to_signed(b)
    return ops.const(x % y) if y else a


def _z3(name):
    import z3

    return {
        "mul": lambda o, a, b: a * b,
        "udiv": lambda o, a, b: z3.UDiv(a, b),
        "urem": lambda o, a, b: z3.URem(a, b),
        "sdiv": lambda o, a, b: a / b,
        "smod": lambda o, a, b: a % b,
    }[name]


# Operations only symbolic Python ints make: (concrete, Z3) by the backend's `symbolic`.
WORD_OPS = {
    "mul": (lambda ops, a, b: (a * b) & ops.mask, _z3("mul")),
    "udiv": (_udiv, _z3("udiv")),
    "urem": (_urem, _z3("urem")),
    "sdiv": (_sdiv, _z3("sdiv")),
    "smod": (_smod, _z3("smod")),
}
