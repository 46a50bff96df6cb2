"""The static checker: `check` types a claim without any configuration (every name, field,
call and operator known, every operand of the right type, every variable bound); the first
problem is a ClaimError naming its column."""

from __future__ import annotations

import ast
from dataclasses import dataclass


from vredmax.proofs.claims.claim_language.grammar import (
    BOOL,
    CONDITIONS,
    CONFIG_CONSTANTS,
    ELEM,
    GENERATORS,
    INSN,
    INSN_FIELDS,
    INT,
    NAMES_HELP,
    REG,
    SEQUENCES,
    STATE,
    STATE_FIELDS,
    STATE_SEQUENCES,
    UNSIGNED,
    VS,
    VS_CONSTANTS,
    MAX_LITERAL_BITS,
    ClaimError,
    parse,
)


@dataclass(frozen=True)
class Typed:
    type: str
    const: bool = False  # no state involved (literals, configuration constants, bound variables)
    literal: bool = False  # an integer literal (or a constant expression of them): takes its partner's type
    sequence: tuple | None = None  # indexable: (element type, domain)
    only_indexed: bool = False  # a sequence (vs2, active, ...) rather than a value (pre.vd)


def check(text: str) -> ast.Expression:
    """Parse and type the claim; raise ClaimError at the first problem. The claim must be a
    condition (type bool)."""
    tree = parse(text)
    typed = _Checker(text).visit(tree.body, {})
    if typed.type != BOOL or typed.only_indexed:  # `active` alone is a sequence of conditions
        raise ClaimError(tree.body, f"a claim must be a condition, this is {_kind(typed)}")
    return tree


def _kind(t: Typed) -> str:
    if t.only_indexed:
        return f"a sequence of {t.sequence[0]}s (index it)"
    return {
        BOOL: "a condition",
        INT: "an integer",
        ELEM: "an element",
        REG: "a register",
        VS: "an mstatus.VS value",
        STATE: "a state (use a field: pre.vl, post.vd, ...)",
        INSN: "the instruction (use a field: insn.vd, insn.vs2, insn.vs1, insn.vm)",
    }[t.type]


class _Checker:
    def __init__(self, text: str):
        self.text = text
        self.bound_anywhere = {
            target.id
            for node in ast.walk(ast.parse(text.strip(), mode="eval"))
            if isinstance(node, ast.comprehension) and isinstance(node.target, ast.Name)
            for target in [node.target]
        }

    def visit(self, node, env) -> Typed:
        method = getattr(self, f"_{type(node).__name__}", None)
        if method is None:
            raise ClaimError(
                node,
                f"unsupported construct: {type(node).__name__} "
                f"({ast.get_source_segment(self.text.strip(), node) or ''})",
            )
        return method(node, env)

    def value(self, node, env) -> Typed:
        """A value that can be computed with (not a sequence, a state or the instruction)."""
        typed = self.visit(node, env)
        if typed.only_indexed or typed.type in (STATE, INSN):
            raise ClaimError(node, f"{_segment(self.text, node)} is {_kind(typed)}")
        return typed

    def condition(self, node, env, what: str = "an operand of a condition") -> Typed:
        typed = self.value(node, env)
        if typed.type != BOOL:
            raise ClaimError(
                node, f"type error: {what} must be a condition, {_segment(self.text, node)} is {_kind(typed)}"
            )
        return typed

    def integer(self, node, env, what: str) -> Typed:
        typed = self.value(node, env)
        if typed.type != INT:
            raise ClaimError(
                node, f"type error: {what} must be an integer, {_segment(self.text, node)} is {_kind(typed)}"
            )
        return typed

    # leaves
    def _Constant(self, node, env):
        if isinstance(node.value, bool):
            return Typed(BOOL, const=True)
        if isinstance(node.value, int):
            if node.value.bit_length() > MAX_LITERAL_BITS:
                # bits, not digits: str() of such a value exceeds Python's digit limit
                raise ClaimError(
                    node,
                    f"an integer literal of {node.value.bit_length()} bits: no value in a "
                    f"claim is wider than VLEN={MAX_LITERAL_BITS} bits",
                )
            return Typed(INT, const=True, literal=True)
        raise ClaimError(node, f"unsupported literal {node.value!r}: only integers, True and False")

    def _Name(self, node, env):
        name = node.id
        if name in env:
            return Typed(INT, const=True)
        if name in ("pre", "post"):
            return Typed(STATE)
        if name == "insn":
            return Typed(INSN)
        if name == "seed":
            return Typed(ELEM)
        if name in SEQUENCES:
            return Typed(SEQUENCES[name][0], sequence=SEQUENCES[name], only_indexed=True)
        if name in CONFIG_CONSTANTS:
            return Typed(INT, const=True)
        if name in CONDITIONS:
            return Typed(BOOL)
        if name in VS_CONSTANTS:
            return Typed(VS, const=True)
        if name in self.bound_anywhere:
            raise ClaimError(node, f"free variable {name!r}: it is bound only inside its generator")
        if len(name) <= 2 and name.islower():
            raise ClaimError(
                node,
                f"free variable {name!r}: bind it in a generator, e.g. all(... for {name} in range(VLMAX))",
            )
        raise ClaimError(node, f"unknown name {name!r} (known: {NAMES_HELP})")

    def _Attribute(self, node, env):
        owner = self.visit(node.value, env)
        if owner.type == STATE:
            if node.attr in STATE_FIELDS:
                return Typed(
                    STATE_FIELDS[node.attr], sequence=(ELEM, "VLEN/SEW") if node.attr == "vd" else None
                )
            if node.attr in STATE_SEQUENCES:
                return Typed(REG, sequence=STATE_SEQUENCES[node.attr], only_indexed=True)
            raise ClaimError(
                node,
                f"unknown field {_segment(self.text, node)} "
                f"(a state has {', '.join(list(STATE_FIELDS) + ['v[r]'])})",
            )
        if owner.type == INSN:
            if node.attr in INSN_FIELDS:
                return Typed(INSN_FIELDS[node.attr])
            raise ClaimError(node, f"unknown field {_segment(self.text, node)} (insn has vd, vs2, vs1, vm)")
        raise ClaimError(node, f"{_segment(self.text, node.value)} has no fields")

    def _Subscript(self, node, env):
        base = self.visit(node.value, env)
        if base.sequence is None:
            raise ClaimError(
                node, f"{_segment(self.text, node.value)} is {_kind(base)}: it cannot be indexed"
            )
        if isinstance(node.slice, ast.Slice):
            raise ClaimError(node.slice, "slices are not supported: index one element")
        self.integer(node.slice, env, "an index")
        return Typed(base.sequence[0])

    # operators
    def _BoolOp(self, node, env):
        for value in node.values:
            self.condition(value, env, f"an operand of {'and' if isinstance(node.op, ast.And) else 'or'}")
        return Typed(BOOL)

    def _UnaryOp(self, node, env):
        if isinstance(node.op, ast.Not):
            self.condition(node.operand, env, "the operand of not")
            return Typed(BOOL)
        if isinstance(node.op, (ast.USub, ast.UAdd)):
            typed = self.value(node.operand, env)
            if typed.type not in (INT, ELEM):
                raise ClaimError(
                    node,
                    f"type error: unary minus needs an integer or an element, "
                    f"{_segment(self.text, node.operand)} is {_kind(typed)}",
                )
            return typed
        raise ClaimError(node, f"unsupported operator {type(node.op).__name__}")

    def _BinOp(self, node, env):
        left, right = self.value(node.left, env), self.value(node.right, env)
        op = type(node.op).__name__
        if left.type == INT and right.type == INT:
            const = left.const and right.const
            if op in ("Add", "Sub"):
                return Typed(INT, const, left.literal and right.literal)
            if op == "Mult" and (left.const or right.const):
                return Typed(INT, const, left.literal and right.literal)
            if op in ("Div", "FloorDiv", "Mod", "Pow") and const:
                return Typed(INT, True, left.literal and right.literal)
            raise ClaimError(
                node,
                f"unsupported: {_OPS.get(op, op)} on integers that depend on the state "
                "(+ and - are; * needs a constant operand; / // % ** constants only)",
            )
        if (
            op in ("Add", "Sub")
            and ELEM in (left.type, right.type)
            and {left.type, right.type} <= {ELEM, INT}
        ):
            other = right if left.type == ELEM else left
            if other.type == INT and not other.const:
                raise ClaimError(
                    node,
                    "type error: an element plus an integer needs a constant integer "
                    "(a literal, or of VLMAX SEW VLEN LMUL ELEN and bound variables)",
                )
            return Typed(ELEM)
        raise ClaimError(node, f"type error: {_OPS.get(op, op)} of {_kind(left)} and {_kind(right)}")

    def _Compare(self, node, env):
        operands = [node.left] + node.comparators
        types = [self.value(o, env) for o in operands]
        for op, (a, na), (b, nb) in zip(node.ops, zip(types, operands), zip(types[1:], operands[1:])):
            _comparable(op, a, b, node, self.text, na, nb)
        return Typed(BOOL)

    def _IfExp(self, node, env):
        self.condition(node.test, env, "the condition of `if`")
        a, b = self.value(node.body, env), self.value(node.orelse, env)
        unified = _unify(a, b)
        if unified is None:
            raise ClaimError(node, f"type error: the two branches are {_kind(a)} and {_kind(b)}")
        return unified

    def _Call(self, node, env):
        if not isinstance(node.func, ast.Name):
            raise ClaimError(node, f"unsupported call {_segment(self.text, node.func)}")
        name = node.func.id
        if node.keywords:
            raise ClaimError(node.keywords[0].value, f"{name}() takes no keyword arguments")
        args = node.args
        if name == "implies":
            if len(args) != 2:
                raise ClaimError(node, f"implies() takes 2 arguments, got {len(args)}")
            for arg in args:
                self.condition(arg, env, "an argument of implies")
            return Typed(BOOL)
        if name in UNSIGNED:
            if len(args) != 2:
                raise ClaimError(node, f"{name}() takes 2 arguments, got {len(args)}")
            a, b = self.value(args[0], env), self.value(args[1], env)
            if _unify(a, b) is None or _unify(a, b).type not in (ELEM, INT):
                raise ClaimError(
                    node,
                    f"type error: {name}() compares elements (or integers), got {_kind(a)} and {_kind(b)}",
                )
            return Typed(BOOL)
        if name in GENERATORS or name in ("min", "max"):
            element_type = BOOL if name in ("all", "any") else INT if name in ("min", "max") else ELEM
            items = self._items(node, env, name)
            for item, typed in items:
                if element_type == ELEM and typed.type == INT and typed.const:
                    continue
                if typed.type != element_type:
                    hint = " (for elements use smax, smin, umax or umin)" if typed.type == ELEM else ""
                    raise ClaimError(
                        item,
                        f"type error: {name}() needs {element_type}s, "
                        f"{_segment(self.text, item)} is {_kind(typed)}{hint}",
                    )
            if name in ("min", "max"):
                return Typed(INT, all(t.const for _, t in items))
            return Typed(element_type)
        if name == "range":
            raise ClaimError(
                node, "range() is only for `for i in range(...)` inside all/any/smax/smin/umax/umin"
            )
        raise ClaimError(
            node.func,
            f"unknown function {name!r} (known: implies, all, any, smax, smin, umax, "
            "umin, ult, ule, ugt, uge, min, max)",
        )

    def _items(self, node, env, name):
        """The typed items of a fold: one generator, a list/tuple, or several arguments."""
        args = node.args
        if len(args) == 1 and isinstance(args[0], ast.GeneratorExp):
            if name in ("min", "max"):
                raise ClaimError(args[0], f"{name}() takes integers as arguments, not a generator")
            inner = self._generators(args[0].generators, env)
            return [(args[0].elt, self.value(args[0].elt, inner))]
        if len(args) == 1 and isinstance(args[0], (ast.List, ast.Tuple)):
            args = args[0].elts
        if not args:
            raise ClaimError(node, f"{name}() needs at least one item")
        if name in ("all", "any") and len(node.args) > 1:
            raise ClaimError(node, f"{name}() takes one generator or list, got {len(node.args)} arguments")
        return [(arg, self.value(arg, env)) for arg in args]

    def _generators(self, generators, env):
        inner = dict(env)
        for generator in generators:
            if generator.is_async:
                raise ClaimError(generator.target, "async generators are not supported")
            if not isinstance(generator.target, ast.Name):
                raise ClaimError(generator.target, "a generator binds one name: for i in range(...)")
            it = generator.iter
            if not (isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "range"):
                raise ClaimError(it, "a generator ranges over range(...) only")
            if not 1 <= len(it.args) <= 3 or it.keywords:
                raise ClaimError(it, "range() takes 1 to 3 integer arguments")
            for k, arg in enumerate(it.args):
                typed = self.integer(arg, inner, "a range bound")
                if k == 2 and not typed.const:
                    raise ClaimError(arg, "the step of range() must be a constant")
            name = generator.target.id
            if name in CONFIG_CONSTANTS + CONDITIONS + tuple(SEQUENCES) + tuple(VS_CONSTANTS) + (
                "pre",
                "post",
                "insn",
                "seed",
            ):
                raise ClaimError(generator.target, f"{name!r} is a reserved name: bind another")
            inner[name] = True
            for condition in generator.ifs:
                self.condition(condition, inner, "a generator's filter")
        return inner

    def _GeneratorExp(self, node, env):
        raise ClaimError(node, "a generator must be the argument of all, any, smax, smin, umax or umin")

    def _List(self, node, env):
        raise ClaimError(node, "a list must be the argument of all, any, smax, smin, umax, umin, min or max")

    _Tuple = _List


_OPS = {
    "Add": "+",
    "Sub": "-",
    "Mult": "*",
    "Div": "/",
    "FloorDiv": "//",
    "Mod": "%",
    "Pow": "**",
    "Eq": "==",
    "NotEq": "!=",
    "Lt": "<",
    "LtE": "<=",
    "Gt": ">",
    "GtE": ">=",
}


def _segment(text: str, node) -> str:
    return ast.get_source_segment(text.strip(), node) or type(node).__name__


def _unify(a: Typed, b: Typed) -> Typed | None:
    """The common type of two operands (a literal takes its partner's), or None."""
    if a.type == b.type:
        return Typed(a.type, a.const and b.const, a.literal and b.literal)
    for x, y in ((a, b), (b, a)):
        # a constant integer (2**SEW - 1, VLMAX, a bound i) stands for a literal: it has a value at
        # each configuration, checked there to fit (claim_language._as_bits)
        if x.type == INT and x.const and y.type in (ELEM, REG, BOOL):
            return Typed(y.type, y.const)
    return None


def _comparable(op, a: Typed, b: Typed, node, text, na, nb) -> None:
    name = _OPS.get(type(op).__name__)
    if name is None:
        raise ClaimError(node, f"unsupported comparison {type(op).__name__} (use == != < <= > >=)")
    unified = _unify(a, b)
    if unified is None:
        raise ClaimError(
            node, f"type error: {_segment(text, na)} ({_kind(a)}) {name} {_segment(text, nb)} ({_kind(b)})"
        )
    if name not in ("==", "!=") and unified.type not in (INT, ELEM):
        raise ClaimError(node, f"type error: {name} orders integers and elements, not {_kind(unified)}s")
