"""The bit-blaster of the certificate route: Z3 terms of the proofs' fragment into CNF.

It reads a term's operator and arguments and builds the circuit that operator means in
SMT-LIB's QF_ABV + UF semantics (Tseitin encoding, one definition per gate); it uses no
solver's reasoning. The fragment is what the proofs' queries contain (collected from every
query of `vredmax prove`'s default configurations): Boolean connectives, =, distinct, ite,
bit-vector numerals, extract, concat, zero/sign extension, not/and/or/xor, add, sub, neg, urem,
the signed and unsigned comparisons, arrays indexed by at most MAX_INDEX_BITS bits (select,
store, constant arrays) and uninterpreted functions of bit-vectors and Booleans. Anything else
raises NotBlastable.

Values: a Boolean is a DIMACS literal; a bit-vector the tuple of its bits' literals, least
significant first; an array the tuple of its elements, one per index value. Variable 1 is
TRUE (the unit clause [1] says so), so constants are literals too and every gate folds them.
An uninterpreted function gets fresh outputs per application and congruence constraints
(Ackermann's reduction: equal arguments give equal results).

Five shortcuts keep the CNF small; each is an equivalence or a definition:
- constant folding and structural hashing: a gate of known inputs, or one already made, is
  not made again (`Circuit`), nor is an operation on the same values (`Blaster._shared`);
- read over write: select(store(a, i, v), i) is v, and store(a, i, select(a, i)) is a;
- definitions (`Blaster.assert_all`): an asserted top-level equation `x = t`, where x is a
  variable (or some bits of one) not used yet, gives x the value of t instead of fresh bits:
  every model of the rest extends to x, and every model of the whole satisfies the rest;
- the cone (`Circuit.cnf`): only the definitions the asserted literals reach are written.
"""

from __future__ import annotations

import z3

TRUE, FALSE = 1, -1
MAX_INDEX_BITS = 8


class NotBlastable(Exception):
    """The term uses something outside the fragment (its query stays PROVED, not CERTIFIED)."""


class Circuit:
    """Gates over literals, each defined by its Tseitin clauses once (structural hashing)."""

    def __init__(self):
        self.variables = 1
        self._ands: dict = {}  # the gates made so far, by their inputs (structural hashing)
        self._xors: dict = {}
        self._ites: dict = {}
        self.definitions: dict[int, list] = {}  # a gate's variable -> the clauses defining it
        self.constraints: list = []  # (variables, clauses) that are no definition

    def fresh(self) -> int:
        self.variables += 1
        return self.variables

    def define(self, gate: int, clauses) -> None:
        self.definitions[gate] = clauses

    def cnf(self, units, reach=()) -> list[list[int]]:
        """The unit clauses and every clause their variables depend on (the cone: a gate
        nothing asserted reaches can take its defined value in any model, so leaving its
        definition out changes no answer). `reach`: more literals whose cone to include."""
        clauses = [[TRUE]] + [[lit] for lit in units]
        reached = {TRUE}
        todo = [abs(lit) for lit in units] + [abs(lit) for lit in reach]
        pending = [(set(vs), cs) for vs, cs in self.constraints]
        while todo:
            while todo:
                var = todo.pop()
                if var in reached:
                    continue
                reached.add(var)
                for clause in self.definitions.get(var, ()):
                    clauses.append(clause)
                    todo.extend(abs(lit) for lit in clause if abs(lit) not in reached)
            kept = []
            for vs, cs in pending:
                if vs & reached:
                    for clause in cs:
                        clauses.append(clause)
                        todo.extend(abs(lit) for lit in clause if abs(lit) not in reached)
                else:
                    kept.append((vs, cs))
            pending = kept
        return clauses

    def and_(self, *lits) -> int:
        if len(lits) == 2:  # the common case, without building a set
            a, b = lits
            if a == FALSE or b == FALSE or a == -b:
                return FALSE
            if a == TRUE or a == b:
                return b
            if b == TRUE:
                return a
            key = (a, b) if a < b else (b, a)
        else:
            kept = set()
            for lit in lits:
                if lit == FALSE or -lit in kept:
                    return FALSE
                if lit != TRUE:
                    kept.add(lit)
            if len(kept) < 2:
                return kept.pop() if kept else TRUE
            key = tuple(sorted(kept))
        gate = self._ands.get(key)
        if gate is None:
            gate = self._ands[key] = self.fresh()
            self.define(gate, [[-gate, lit] for lit in key] + [[gate] + [-lit for lit in key]])
        return gate

    def or_(self, *lits) -> int:
        return -self.and_(*[-lit for lit in lits])

    def xor(self, a: int, b: int) -> int:
        if a == TRUE or a == FALSE:
            return -b if a == TRUE else b
        if b == TRUE or b == FALSE:
            return -a if b == TRUE else a
        if a == b or a == -b:
            return FALSE if a == b else TRUE
        negated = (a < 0) != (b < 0)
        a, b = abs(a), abs(b)
        key = (a, b) if a < b else (b, a)
        gate = self._xors.get(key)
        if gate is None:
            gate = self._xors[key] = self.fresh()
            a, b = key
            self.define(gate, [[-gate, a, b], [-gate, -a, -b], [gate, -a, b], [gate, a, -b]])
        return -gate if negated else gate

    def ite(self, c: int, t: int, e: int) -> int:
        if c == TRUE or t == e:
            return t
        if c == FALSE:
            return e
        if t == -e:
            return self.xor(c, e)
        if t in (TRUE, c):
            return self.or_(c, e)
        if t in (FALSE, -c):
            return self.and_(-c, e)
        if e in (TRUE, -c):
            return self.or_(-c, t)
        if e in (FALSE, c):
            return self.and_(c, t)
        if c < 0:
            c, t, e = -c, e, t
        if t < 0 and e < 0:
            return -self.ite(c, -t, -e)
        gate = self._ites.get((c, t, e))
        if gate is None:
            gate = self._ites[(c, t, e)] = self.fresh()
            self.define(gate, [[-c, -t, gate], [-c, t, -gate], [c, -e, gate], [c, e, -gate]])
        return gate


# Words (tuples of literals, least significant first) ------------------------------------------


def constant(value: int, width: int) -> tuple:
    return tuple(TRUE if value >> i & 1 else FALSE for i in range(width))


def equal(g: Circuit, x, y) -> int:
    """x = y for Booleans, bit-vectors and arrays alike."""
    if x is y:
        return TRUE
    if isinstance(x, int):
        return -g.xor(x, y)
    return g.and_(*[equal(g, a, b) for a, b in zip(x, y)])


def choose(g: Circuit, c: int, x, y):
    """ite(c, x, y) for Booleans, bit-vectors and arrays alike."""
    if isinstance(x, int):
        return g.ite(c, x, y)
    return tuple(choose(g, c, a, b) for a, b in zip(x, y))


def add(g: Circuit, x, y, carry: int = FALSE) -> tuple:
    """x + y + carry mod 2^width (ripple carry)."""
    out = []
    for a, b in zip(x, y):
        half = g.xor(a, b)
        out.append(g.xor(half, carry))
        carry = g.or_(g.and_(a, b), g.and_(carry, half))
    return tuple(out)


def subtract(g: Circuit, x, y) -> tuple:
    return add(g, x, tuple(-b for b in y), TRUE)


def less(g: Circuit, x, y, signed: bool) -> int:
    """x < y: the most significant differing bit decides (for signed, the sign bit flips it)."""
    below = FALSE
    for i, (a, b) in enumerate(zip(x, y)):
        top = signed and i == len(x) - 1
        below = g.ite(g.xor(a, b), a if top else b, below)
    return below


def remainder(g: Circuit, x, d) -> tuple:
    """x urem d by restoring division; urem(x, 0) = x, as SMT-LIB defines it."""
    width = len(x)
    wide_d = tuple(d) + (FALSE,)
    r = constant(0, width)
    for i in reversed(range(width)):
        shifted = (x[i],) + r  # r * 2 + x_i, width + 1 bits
        fits = -less(g, shifted, wide_d, signed=False)
        r = choose(g, fits, subtract(g, shifted, wide_d), shifted)[:width]
    return r


def select(g: Circuit, array, index) -> object:
    """array[index]: one element per value of the index; with a symbolic index, `hit_k` is
    `index = k` (exactly one holds) and each bit of the result equals element k's under hit_k."""
    hits = [equal(g, index, constant(k, len(index))) for k in range(len(array))]
    on = [k for k, hit in enumerate(hits) if hit != FALSE]
    if len(on) == 1:
        return array[on[0]]
    sample = array[0]
    if isinstance(sample, int):
        return _selected_bit(g, [(hits[k], array[k]) for k in on])
    if isinstance(sample[0], int):
        return tuple(_selected_bit(g, [(hits[k], array[k][b]) for k in on]) for b in range(len(sample)))
    raise NotBlastable("select from an array of arrays")


def _selected_bit(g: Circuit, cases) -> int:
    first = cases[0][1]
    if all(bit == first for _, bit in cases):
        return first
    out = g.fresh()
    clauses = []
    for hit, bit in cases:
        if bit == TRUE:
            clauses.append([-hit, out])
        elif bit == FALSE:
            clauses.append([-hit, -out])
        else:
            clauses += [[-hit, -out, bit], [-hit, out, -bit]]
    g.define(out, clauses)
    return out


def store(g: Circuit, array, index, value) -> tuple:
    return tuple(
        choose(g, equal(g, index, constant(k, len(index))), value, old) for k, old in enumerate(array)
    )


# Terms -----------------------------------------------------------------------------------------


def _fresh_value(g: Circuit, sort):
    kind = sort.kind()
    if kind == z3.Z3_BOOL_SORT:
        return g.fresh()
    if kind == z3.Z3_BV_SORT:
        return tuple(g.fresh() for _ in range(sort.size()))
    if kind == z3.Z3_ARRAY_SORT:
        domain = sort.domain()
        if domain.kind() != z3.Z3_BV_SORT or domain.size() > MAX_INDEX_BITS:
            raise NotBlastable(f"an array indexed by {domain}")
        if sort.range().kind() == z3.Z3_ARRAY_SORT:
            raise NotBlastable("an array of arrays")
        return tuple(_fresh_value(g, sort.range()) for _ in range(1 << domain.size()))
    raise NotBlastable(f"a variable of sort {sort}")


def _n_ary(op):
    def apply(g, term, args):
        result = args[0]
        for arg in args[1:]:
            result = op(g, result, arg)
        return result

    return apply


def _bitwise(op):
    return _n_ary(lambda g, x, y: tuple(op(g, a, b) for a, b in zip(x, y)))


def _distinct(g, term, args):
    return g.and_(*[-equal(g, args[i], args[j]) for i in range(len(args)) for j in range(i)])


def _extract(g, term, args):
    hi, lo = term.params()
    return args[0][lo : hi + 1]


def _concat(g, term, args):  # the first argument is the most significant
    return tuple(bit for arg in reversed(args) for bit in arg)


def _compare(name):
    signed, strict, swap = name[0] == "s", name[1:] in ("lt", "gt"), name[1:] in ("gt", "le")
    # a <= b is not (b < a); a > b is b < a; a >= b is not (a < b)

    def apply(g, term, args):
        x, y = args if not swap else args[::-1]
        below = less(g, x, y, signed)
        return below if strict else -below

    return apply


def _const_array(g, term, args):
    return (args[0],) * (1 << term.sort().domain().size())


OPERATORS = {
    z3.Z3_OP_TRUE: lambda g, t, a: TRUE,
    z3.Z3_OP_FALSE: lambda g, t, a: FALSE,
    z3.Z3_OP_NOT: lambda g, t, a: -a[0],
    z3.Z3_OP_AND: lambda g, t, a: g.and_(*a),
    z3.Z3_OP_OR: lambda g, t, a: g.or_(*a),
    z3.Z3_OP_IMPLIES: lambda g, t, a: g.or_(-a[0], a[1]),
    z3.Z3_OP_XOR: _n_ary(lambda g, x, y: g.xor(x, y)),
    z3.Z3_OP_IFF: lambda g, t, a: equal(g, a[0], a[1]),
    z3.Z3_OP_EQ: lambda g, t, a: equal(g, a[0], a[1]),
    z3.Z3_OP_DISTINCT: _distinct,
    z3.Z3_OP_ITE: lambda g, t, a: choose(g, a[0], a[1], a[2]),
    z3.Z3_OP_BNUM: lambda g, t, a: constant(t.as_long(), t.size()),
    z3.Z3_OP_EXTRACT: _extract,
    z3.Z3_OP_CONCAT: _concat,
    z3.Z3_OP_ZERO_EXT: lambda g, t, a: a[0] + (FALSE,) * t.params()[0],
    z3.Z3_OP_SIGN_EXT: lambda g, t, a: a[0] + (a[0][-1],) * t.params()[0],
    z3.Z3_OP_BNOT: lambda g, t, a: tuple(-b for b in a[0]),
    z3.Z3_OP_BAND: _bitwise(lambda g, x, y: g.and_(x, y)),
    z3.Z3_OP_BOR: _bitwise(lambda g, x, y: g.or_(x, y)),
    z3.Z3_OP_BXOR: _bitwise(lambda g, x, y: g.xor(x, y)),
    z3.Z3_OP_BADD: _n_ary(add),
    z3.Z3_OP_BSUB: _n_ary(subtract),
    z3.Z3_OP_BNEG: lambda g, t, a: subtract(g, constant(0, len(a[0])), a[0]),
    z3.Z3_OP_BUREM: lambda g, t, a: remainder(g, a[0], a[1]),
    z3.Z3_OP_BUREM_I: lambda g, t, a: remainder(g, a[0], a[1]),
    z3.Z3_OP_ULT: _compare("ult"),
    z3.Z3_OP_ULEQ: _compare("ule"),
    z3.Z3_OP_UGT: _compare("ugt"),
    z3.Z3_OP_UGEQ: _compare("uge"),
    z3.Z3_OP_SLT: _compare("slt"),
    z3.Z3_OP_SLEQ: _compare("sle"),
    z3.Z3_OP_SGT: _compare("sgt"),
    z3.Z3_OP_SGEQ: _compare("sge"),
    z3.Z3_OP_SELECT: lambda g, t, a: select(g, a[0], a[1]),
    z3.Z3_OP_STORE: lambda g, t, a: store(g, a[0], a[1], a[2]),
    z3.Z3_OP_CONST_ARRAY: _const_array,
}


def flatten(facts) -> list[tuple]:
    """(term, polarity) facts split at top-level conjunctions: `and` asserted, `or` and `=>`
    denied, `not` flips the polarity; `true` asserted and `false` denied are dropped."""
    leaves, stack = [], list(reversed(facts))
    while stack:
        term, positive = stack.pop()
        kind = term.decl().kind() if z3.is_app(term) else None
        if kind == z3.Z3_OP_NOT:
            stack.append((term.arg(0), not positive))
        elif (kind == z3.Z3_OP_AND and positive) or (kind == z3.Z3_OP_OR and not positive):
            stack += [(c, positive) for c in reversed(term.children())]
        elif kind == z3.Z3_OP_IMPLIES and not positive:
            stack += [(term.arg(1), False), (term.arg(0), True)]
        elif not (kind == z3.Z3_OP_TRUE and positive or kind == z3.Z3_OP_FALSE and not positive):
            leaves.append((term, positive))
    return leaves


def _bits(value) -> list[int]:
    return [abs(value)] if isinstance(value, int) else [abs(bit) for bit in value]


class Blaster:
    """Turns Z3 terms into literals of one circuit; shared subterms are blasted once."""

    def __init__(self):
        self.circuit = Circuit()
        self._values: dict[int, object] = {}
        self._shared: dict[tuple, object] = {}
        self._partial: dict[int, list] = {}  # bit-vector variable -> bits defined so far
        self._selected: dict[int, tuple] = {}  # a select's value -> (array, index)
        self._stored: dict[int, tuple] = {}  # a store's value -> (index, stored value)
        self._applications: dict[int, list] = {}  # function -> [(arguments, result)]

    def fix(self, variable, value) -> None:
        """Give a variable a value (e.g. constants from a model) before it is blasted."""
        self._values[variable.get_id()] = value

    def value(self, term):
        values, stack = self._values, [term]
        while stack:
            node = stack[-1]
            key = node.get_id()
            if key in values:
                stack.pop()
                continue
            if z3.is_quantifier(node) or z3.is_var(node):
                raise NotBlastable("a quantifier")
            children = node.children()
            pending = [c for c in children if c.get_id() not in values]
            if pending:
                stack.extend(pending)
                continue
            stack.pop()
            values[key] = self._apply(node, [values[c.get_id()] for c in children])
        return values[term.get_id()]

    def _apply(self, node, args):
        kind = node.decl().kind()
        if kind == z3.Z3_OP_UNINTERPRETED:
            return self._uninterpreted(node, args)
        operator = OPERATORS.get(kind)
        if operator is None:
            raise NotBlastable(f"the operator {node.decl().name()}")
        if not args:
            return operator(self.circuit, node, args)
        # the same operation on the same values is the same value (values stay alive in _values)
        key = (kind, tuple(node.params()), tuple(a if isinstance(a, int) else id(a) for a in args))
        value = self._shared.get(key)
        if value is not None:
            return value
        if kind == z3.Z3_OP_STORE and self._selected.get(id(args[2])) == (id(args[0]), id(args[1])):
            value = args[0]  # store(a, i, select(a, i)) is a
        elif kind == z3.Z3_OP_SELECT and self._stored.get(id(args[0]), (None,))[0] == id(args[1]):
            value = self._stored[id(args[0])][1]  # select(store(a, i, v), i) is v
        else:
            value = operator(self.circuit, node, args)
        if kind == z3.Z3_OP_SELECT and isinstance(value, tuple):
            self._selected[id(value)] = (id(args[0]), id(args[1]))
        if kind == z3.Z3_OP_STORE and value is not args[0]:
            self._stored[id(value)] = (id(args[1]), args[2])
        self._shared[key] = value
        return value

    def _uninterpreted(self, node, args):
        g = self.circuit
        if not args:
            value = _fresh_value(g, node.sort())
            defined = self._partial.pop(node.get_id(), None)
            if defined is not None:
                value = tuple(fresh if bit is None else bit for fresh, bit in zip(value, defined))
            return value
        if any(not isinstance(a, int) and not isinstance(a[0], int) for a in args):
            raise NotBlastable("a function of an array")
        result = _fresh_value(g, node.sort())
        if not isinstance(result, int) and not isinstance(result[0], int):
            raise NotBlastable("a function returning an array")
        earlier = self._applications.setdefault(node.decl().get_id(), [])
        outputs = _bits(result)
        for other_args, other in earlier:  # congruence: equal arguments, equal results
            same = g.and_(*[equal(g, a, b) for a, b in zip(args, other_args)])
            g.constraints.append((outputs + _bits(other), [[-same, equal(g, result, other)]]))
        earlier.append((args, result))
        return result

    def assert_all(self, facts) -> list[int]:
        """Literals whose conjunction is equisatisfiable with the facts, (term, polarity) pairs.

        The facts are split at top-level conjunctions (`flatten`); an equation `x = t` between
        a variable not blasted yet and any term (also `x` and `not x` for a Boolean x) is used
        as a definition: x takes t's value instead of fresh bits (a model of the rest extends
        to x, and every model of the facts satisfies the rest). The others become literals."""
        rest = [(term, positive) for term, positive in flatten(facts) if not self._defines(term, positive)]
        return [self.literal(term) if positive else -self.literal(term) for term, positive in rest]

    def _defines(self, term, positive) -> bool:
        if self._is_free(term):
            self._values[term.get_id()] = TRUE if positive else FALSE
            return True
        if not positive or not z3.is_app_of(term, z3.Z3_OP_EQ):
            return False
        for side, other in ((term.arg(0), term.arg(1)), (term.arg(1), term.arg(0))):
            slot = self._free_slot(side)
            if slot is None:
                continue
            value = self.value(other)
            if self._free_slot(side) is None:  # `other` uses those bits itself
                continue
            var, lo = slot[0], slot[1]
            if isinstance(value, tuple) and isinstance(value[0], int) and z3.is_bv(var):
                bits = self._partial.setdefault(var.get_id(), [None] * var.size())
                bits[lo : lo + len(value)] = value
            else:
                self._values[var.get_id()] = value
            return True
        return False

    def _free_slot(self, term):
        """(variable, lo, hi) when `term` is a variable, or bits lo..hi of a bit-vector variable,
        none of whose bits is blasted or defined yet; else None."""
        var, lo, hi = term, 0, None
        if z3.is_app_of(term, z3.Z3_OP_EXTRACT):
            var = term.arg(0)
            hi, lo = term.params()
        if (
            not (z3.is_const(var) and var.decl().kind() == z3.Z3_OP_UNINTERPRETED)
            or var.get_id() in self._values
        ):
            return None
        if z3.is_bv(var):
            hi = var.size() - 1 if hi is None else hi
            bits = self._partial.get(var.get_id())
            if bits is not None and any(b is not None for b in bits[lo : hi + 1]):
                return None
        elif hi is not None or var.get_id() in self._partial:
            return None
        return (var, lo, hi)

    def _is_free(self, term) -> bool:
        """A Boolean variable not blasted yet."""
        return (
            z3.is_bool(term)
            and z3.is_const(term)
            and term.decl().kind() == z3.Z3_OP_UNINTERPRETED
            and term.get_id() not in self._values
        )

    def literal(self, term) -> int:
        value = self.value(term)
        if not isinstance(value, int):
            raise NotBlastable("a non-Boolean formula")
        return value
