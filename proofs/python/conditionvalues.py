"""A machine value that depends on conditions alone, as a choice between constants.

A step that blends an element with the neutral element by arithmetic, `x * on + MIN * (1 - on)`
or `x & -on | MIN & (on - 1)` with `on` the active flag as an int (`1 if active else 0`,
`-int(bool(active))`, a mask bit `(v0 >> i) & 1`), hands the trace a machine value `on` (a Z3
term over vl, vm, v0). As an opaque leaf it hides the condition: the blend is no guarded max of
anything. Here such a term is rewritten as the trace's choice between the constants it takes,
`ite(c, k1, k2)`, nested over its conditions (the conditions of its if-then-elses and its
one-bit values): the conditions become the trace's structural flags, and the cut-point method
proves by the solver, once per cone shape, that the blend is `If(active, x, MIN)` (or refutes
it). Exact: each constant is the term's value under that assignment of its conditions
(substituted and simplified to a numeral), so the choice equals the term for every input.
A term that reads anything but conditions (an element, a whole register) is left a leaf.
"""

from __future__ import annotations

import itertools

import z3

from vredmax.proofs.python.terms import facts, is_numeral
from vredmax.proofs.python.trace import Term, Tracer

MAX_CONDITIONS = 4  # conditions one value may depend on (2**4 constants at most)
MAX_NODES = 400  # Z3 nodes of a term looked at


# term's pointer -> (the term, (its conditions, their constants) or None): kept for the process,
# as the terms are hash-consed (an explored step is run again per path and per tail policy on
# the same terms); the entry holds the term, so that the pointer stays its own
_TABLES: dict = {}
TABLES_LIMIT = 1 << 16


def as_choice(tracer: Tracer, term) -> Term | None:
    """The trace node equal to `term` (a Z3 bit-vector) as a choice between constants over
    flag leaves, or None when the term depends on more than its conditions."""
    if not isinstance(term, z3.BitVecRef) or is_numeral(term):
        return None
    # kept per tracer: an explored step is run again per path, on the same terms
    known = tracer.__dict__.setdefault("_choices", {})
    key = term.ast.value
    found = known.get(key)
    if found is None:
        table = _table(term)
        found = known[key] = (term, _choice(tracer, term, *table, []) if table is not None else None)
    return found[1]


def _table(term):
    """(conditions, {their values: the term's constant}) of a term that is a function of its
    conditions alone, else None."""
    key = term.ast.value
    found = _TABLES.get(key)
    if found is None:
        if len(_TABLES) >= TABLES_LIMIT:
            _TABLES.clear()
        conditions = _conditions(term)
        table = None
        if conditions:
            values = {}
            for chosen in itertools.product((True, False), repeat=len(conditions)):
                pairs = [
                    (c, z3.BoolVal(v) if isinstance(c, z3.BoolRef) else z3.BitVecVal(int(v), 1))
                    for c, v in zip(conditions, chosen)
                ]
                value = z3.simplify(z3.substitute(term, *pairs))
                if not is_numeral(value):
                    break
                values[chosen] = value.as_long()
            else:
                table = (conditions, values)
        found = _TABLES[key] = (term, table)
    return found[1]


def _conditions(term) -> list | None:
    """The Boolean conditions and one-bit values the term is made of (the term being a function
    of them alone), or None: it reads a bit-vector other than through them, or is too big."""
    found: dict = {}
    seen: set = set()
    stack = [term]
    while stack:
        t = stack.pop()
        info = facts(t)
        key = t.ast.value
        if key in seen:
            continue
        seen.add(key)
        if len(seen) > MAX_NODES:
            return None
        if isinstance(t, z3.BoolRef):
            found.setdefault(key, t)
            continue
        if info.ast_kind == z3.Z3_NUMERAL_AST:
            continue
        # before the bit rule: `If(c, 1, 0)` is c, one flag wherever it is read
        if info.op == z3.Z3_OP_ITE:
            cond, then, other = info.children()
            found.setdefault(cond.ast.value, cond)
            stack.extend([then, other])
            continue
        # a bit read from the machine (vm, a mask bit, `vm | v0 >> i`): 0 or 1, one flag; a
        # bit computed from conditions (`1 - on`) is taken apart, so that each is one flag
        if isinstance(t, z3.BitVecRef) and info.width == 1 and not _has_choice(t):
            found.setdefault(key, t)
            continue
        children = info.children()
        if not isinstance(t, z3.BitVecRef) or not children or info.op == z3.Z3_OP_SELECT:
            return None
        stack.extend(children)
        if len(found) > MAX_CONDITIONS:
            return None
    if len(found) > MAX_CONDITIONS:
        return None
    return list(found.values())


def _has_choice(term) -> bool:
    """Does the term contain an if-then-else (a value chosen by a condition)?"""
    stack, seen = [term], set()
    while stack:
        t = stack.pop()
        key = t.ast.value
        if key in seen or len(seen) > MAX_NODES:
            continue
        seen.add(key)
        info = facts(t)
        if info.op == z3.Z3_OP_ITE:
            return True
        stack.extend(info.children())
    return False


def _flag(tracer: Tracer, condition) -> Term:
    if isinstance(condition, z3.BoolRef):
        return tracer.leaf_for(condition)
    return tracer.leaf_for(condition == 1)


def _choice(tracer: Tracer, term, conditions: list, values: dict, chosen: list) -> Term:
    """Shannon expansion on the conditions, the first one outermost."""
    if len(chosen) == len(conditions):
        return tracer.const(values[tuple(chosen)], facts(term).width)
    branches = [_choice(tracer, term, conditions, values, chosen + [value]) for value in (True, False)]
    if branches[0] is branches[1]:
        return branches[0]
    flag = _flag(tracer, conditions[len(chosen)])
    return tracer.make("ite", (flag, *branches), None, facts(term).width)
