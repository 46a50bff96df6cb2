"""The translator: a checked claim becomes one Z3 Boolean over a `World` (a configuration's
symbolic pre-state, instruction, outcome and post-state); generators over `range(...)` are
unrolled, so a bound variable is always a Python int when an index is taken. Partial
operations are recorded with the guards in force (`World.wd`)."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from fractions import Fraction

import z3

from vredmax.spec import relation as spec
from vredmax.spec.config import LMUL_VALUE, VTYPE_VILL_BIT, VTYPE_VMA_BIT, VTYPE_VTA_BIT
from vredmax.runtime.errors import shown_number

from vredmax.proofs.claims.claim_language.grammar import (
    BOOL,
    ELEM,
    INT,
    INT_WIDTH,
    MAX_UNROLL,
    REG,
    UNSIGNED,
    VS,
    VS_CONSTANTS,
    ClaimError,
)
from vredmax.proofs.claims.claim_language.checker import _segment, check


@dataclass
class World:
    """What a claim is about, for one configuration: the symbolic pre-state, instruction,
    outcome and post-state, and the spec's reading of the operands. Filled by `ask`."""

    cfg: object
    pre: object
    insn: object
    post: object
    outcome: object
    seed: object
    elements: list
    activity: list
    illegal: object
    reserved: object
    # what a translation found
    wd: list = field(default_factory=list)  # (column, text, condition in range)
    mentioned_elements: set = field(default_factory=set)  # vs2/active indices read
    mentioned_vd: set = field(default_factory=set)  # post.vd elements read
    whole_post_vd: bool = False
    fold_definitions: list | None = None  # if a list: folds as defined constants (_defined_fold)
    shown: dict = field(default_factory=dict)  # display name -> (type, term)
    # the spec's result as one constant (the caller defines it): a fold that is the spec's
    # reduction, smax of the seed and every active vs2 element, is translated to it
    reduction: object = None
    reduction_used: bool = False


def _int(value: int):
    return z3.BitVecVal(value, INT_WIDTH)


def _widen(term):
    return z3.ZeroExt(INT_WIDTH - term.size(), term)


@dataclass
class _Int:
    """A symbolic integer with static bounds lo <= value <= hi (for unrolling ranges)."""

    term: object
    lo: int
    hi: int


class Translator:
    """Turn a checked claim into a Z3 Boolean over a World."""

    def __init__(self, text: str, world: World):
        self.text, self.w = text.strip(), world
        self.tree = check(text)
        self.guards: list = []
        self.budget = MAX_UNROLL
        self._smax_folds: dict = {}  # id of an smax fold's constant -> (its definition, its flattened items)
        cfg = world.cfg
        self.constants = {
            "VLMAX": cfg.vlmax,
            "SEW": cfg.sew,
            "VLEN": cfg.vlen,
            "LMUL": LMUL_VALUE[cfg.lmul],
            "ELEN": cfg.elen,
        }

    def claim(self):
        return self.visit(self.tree.body, {})

    def top_parts(self):
        """For `implies(H, C)` at the top: (H, C translated, whether H reads the pre-state
        only); else None."""
        body = self.tree.body
        if isinstance(body, ast.Call) and isinstance(body.func, ast.Name) and body.func.id == "implies":
            hypothesis = self.visit(body.args[0], {})
            self.guards.append(hypothesis)
            conclusion = self.visit(body.args[1], {})
            self.guards.pop()
            return hypothesis, conclusion, not any(_reads_outcome(node) for node in ast.walk(body.args[0]))
        return None

    # dispatch
    def visit(self, node, env):
        return getattr(self, f"_{type(node).__name__}")(node, env)

    def _show(self, name: str, kind: str, term):
        if len(self.w.shown) < 24 and name not in self.w.shown:
            self.w.shown[name] = (kind, term)

    def _Constant(self, node, env):
        return z3.BoolVal(node.value) if isinstance(node.value, bool) else Fraction(node.value)

    def _Name(self, node, env):
        name, w = node.id, self.w
        if name in env:
            return Fraction(env[name])
        if name in self.constants:
            return Fraction(self.constants[name])
        if name in VS_CONSTANTS:
            return z3.BitVecVal(VS_CONSTANTS[name], 2)
        if name == "seed":
            self._show("seed", ELEM, w.seed)
            return w.seed
        value = {
            "trapped": lambda: w.outcome.trapped,
            "retired": lambda: z3.Not(w.outcome.trapped),
            "trapped_illegal": lambda: z3.And(w.outcome.trapped, w.outcome.illegal),
            "illegal": lambda: w.illegal,
            "reserved": lambda: z3.And(z3.Not(w.illegal), w.reserved),
            "legal": lambda: z3.And(z3.Not(w.illegal), z3.Not(w.reserved)),
        }[name]()
        self._show(name, BOOL, value)
        return value

    def _state(self, node):
        return self.w.pre if node.id == "pre" else self.w.post

    def _Attribute(self, node, env):
        owner, field_name = node.value.id, node.attr
        if owner == "insn":
            value = getattr(self.w.insn, field_name)
            if field_name == "vm":
                result = value == 1
                self._show("insn.vm", BOOL, result)
                return result
            self._show(f"insn.{field_name}", INT, _widen(value))
            return _Int(_widen(value), 0, 31)
        state = self._state(node.value)
        name = f"{owner}.{field_name}"
        if field_name in ("vl", "vstart", "vtype"):
            term = _widen(getattr(state, field_name))
            hi = {"vl": self.w.cfg.vlmax, "vstart": self.w.cfg.vlen - 1}.get(field_name, (1 << 64) - 1)
            self._show(name, INT, term)
            return _Int(term, 0, hi if owner == "pre" else (1 << 64) - 1)
        if field_name == "vs":
            self._show(name, VS, state.vs)
            return state.vs
        if field_name in ("vta", "vma", "vill"):
            bit = {"vta": VTYPE_VTA_BIT, "vma": VTYPE_VMA_BIT, "vill": VTYPE_VILL_BIT}[field_name]
            value = spec.flag(state.vtype, bit)
            self._show(name, BOOL, value)
            return value
        # vd, whole register
        if owner == "post":
            self.w.whole_post_vd = True
        value = z3.Select(state.regs, self.w.insn.vd)
        self._show(name, REG, value)
        return value

    def _Subscript(self, node, env):
        base, index_node = node.value, node.slice
        index = self.visit(index_node, env)
        cfg, w = self.w.cfg, self.w
        if isinstance(base, ast.Name):
            name = base.id
            size = {
                "vs2": cfg.vlmax,
                "active": cfg.vlmax,
                "mask": cfg.vlen,
                "vs1": cfg.elements_per_register,
            }[name]

            def at(i: int):
                if name in ("vs2", "active"):
                    w.mentioned_elements.add(i)
                if name == "vs2":
                    return w.elements[i]
                if name == "active":
                    return w.activity[i]
                if name == "mask":
                    return spec.mask_bit(w.pre, i)
                return z3.Extract(i * cfg.sew + cfg.sew - 1, i * cfg.sew, z3.Select(w.pre.regs, w.insn.vs1))

            kind = BOOL if name in ("active", "mask") else ELEM
            return self._indexed(node, name, index, size, at, kind)
        owner, field_name = base.value.id, base.attr
        state = self._state(base.value)
        if field_name == "v":
            return self._register(node, owner, state, index)
        register = z3.Select(state.regs, w.insn.vd)

        def element(k: int):
            if owner == "post":
                w.mentioned_vd.add(k)
            return z3.Extract(k * cfg.sew + cfg.sew - 1, k * cfg.sew, register)

        return self._indexed(node, f"{owner}.vd", index, cfg.elements_per_register, element, ELEM)

    def _register(self, node, owner, state, index):
        if isinstance(index, Fraction):
            if index.denominator != 1 or not 0 <= index < 32:
                return self._out_of_range(
                    node, f"{owner}.v[{index}]", "32 registers", z3.Select(state.regs, z3.BitVecVal(0, 5))
                )
            if owner == "post":
                self.w.whole_post_vd = True
            value = z3.Select(state.regs, z3.BitVecVal(int(index), 5))
            self._show(f"{owner}.v[{int(index)}]", REG, value)
            return value
        if owner == "post":
            self.w.whole_post_vd = True
        self._record_wd(node, z3.And(index.term >= 0, index.term < 32), "the register number is 0..31")
        return z3.Select(state.regs, z3.Extract(4, 0, index.term))

    def _indexed(self, node, name, index, size, at, kind):
        if isinstance(index, Fraction):
            if index.denominator != 1 or not 0 <= index < size:
                return self._out_of_range(node, f"{name}[{index}]", f"{size} elements", at(0))
            value = at(int(index))
            self._show(f"{name}[{int(index)}]", kind, value)
            return value
        lo, hi = max(index.lo, 0), min(index.hi, size - 1)
        self._record_wd(node, z3.And(index.term >= 0, index.term < size), f"{name} has {size} elements here")
        if hi < lo:
            return at(0)
        self._spend(node, hi - lo + 1)
        value = at(hi)
        for i in range(hi - 1, lo - 1, -1):
            value = z3.If(index.term == i, at(i), value)
        self._show(_segment(self.text, node), kind, value)
        return value

    def _out_of_range(self, node, text, size_text, default):
        self._record_wd(node, z3.BoolVal(False), f"{text} is out of range ({size_text} at {self.w.cfg})")
        return default

    def _record_wd(self, node, in_range, why: str):
        guard = z3.And(*self.guards) if self.guards else z3.BoolVal(True)
        condition = z3.simplify(z3.Implies(guard, in_range))
        if not z3.is_true(condition):
            self.w.wd.append((node.col_offset + 1, f"{_segment(self.text, node)}: {why}", condition))

    def _spend(self, node, count: int):
        self.budget -= count
        if self.budget < 0:
            raise ClaimError(node, f"the claim unrolls to more than {MAX_UNROLL} terms at {self.w.cfg}")

    # conditions
    def _BoolOp(self, node, env):
        is_and = isinstance(node.op, ast.And)
        terms, pushed = [], 0
        for value in node.values:
            term = self.visit(value, env)
            terms.append(term)
            self.guards.append(term if is_and else z3.Not(term))
            pushed += 1
        del self.guards[len(self.guards) - pushed :]
        return z3.And(*terms) if is_and else z3.Or(*terms)

    def _UnaryOp(self, node, env):
        value = self.visit(node.operand, env)
        if isinstance(node.op, ast.Not):
            return z3.Not(value)
        if isinstance(node.op, ast.UAdd):
            return value
        if isinstance(value, Fraction):
            return -value
        if isinstance(value, _Int):
            return _Int(-value.term, -value.hi, -value.lo)
        return -value

    def _BinOp(self, node, env):
        left, right = self.visit(node.left, env), self.visit(node.right, env)
        op = type(node.op).__name__
        if isinstance(left, Fraction) and isinstance(right, Fraction):
            return _fold(node, op, left, right)
        if _is_element(left) or _is_element(right):
            width = (left if _is_element(left) else right).size()
            a, b = (_as_bits(node, v, width) for v in (left, right))
            return a + b if op == "Add" else a - b
        a, b = (_as_int(node, v) for v in (left, right))
        if op == "Add":
            return _Int(a.term + b.term, a.lo + b.lo, a.hi + b.hi)
        if op == "Sub":
            return _Int(a.term - b.term, a.lo - b.hi, a.hi - b.lo)
        factor, other = (left, b) if isinstance(left, Fraction) else (right, a)
        if factor.denominator != 1 or abs(factor) >= 1 << 14:
            raise ClaimError(node, f"a product needs a whole constant factor below 2^14, got {factor}")
        k = int(factor)
        bounds = sorted((other.lo * k, other.hi * k))
        return _Int(other.term * k, bounds[0], bounds[1])

    def _IfExp(self, node, env):
        test = self.visit(node.test, env)
        self.guards.append(test)
        body = self.visit(node.body, env)
        self.guards[-1] = z3.Not(test)
        orelse = self.visit(node.orelse, env)
        self.guards.pop()
        if isinstance(body, (Fraction, _Int)) and isinstance(orelse, (Fraction, _Int)):
            body, orelse = _as_int(node, body), _as_int(node, orelse)
        a, b = _coerce_pair(node, body, orelse)
        if isinstance(a, _Int):
            return _Int(z3.If(test, a.term, b.term), min(a.lo, b.lo), max(a.hi, b.hi))
        return z3.If(test, a, b)

    def _Compare(self, node, env):
        operands = [self.visit(node.left, env)] + [self.visit(c, env) for c in node.comparators]
        terms = [
            _compare(node, type(op).__name__, a, b) for op, a, b in zip(node.ops, operands, operands[1:])
        ]
        return terms[0] if len(terms) == 1 else z3.And(*terms)

    def _Call(self, node, env):
        name = node.func.id
        if name == "implies":
            hypothesis = self.visit(node.args[0], env)
            self.guards.append(hypothesis)
            conclusion = self.visit(node.args[1], env)
            self.guards.pop()
            return z3.Implies(hypothesis, conclusion)
        if name in UNSIGNED:
            a, b = _coerce_pair(node, self.visit(node.args[0], env), self.visit(node.args[1], env), False)
            if isinstance(a, (Fraction, _Int)):
                a, b = _as_int(node, a), _as_int(node, b)
                return {
                    "ult": a.term < b.term,
                    "ule": a.term <= b.term,
                    "ugt": a.term > b.term,
                    "uge": a.term >= b.term,
                }[name]
            return UNSIGNED[name](a, b)
        items = self._fold_items(node, env)  # (guard or None, value)
        if name in ("all", "any"):
            if not items:
                return z3.BoolVal(name == "all")
            if name == "all":
                return z3.And(*[v if g is None else z3.Implies(g, v) for g, v in items])
            return z3.Or(*[v if g is None else z3.And(g, v) for g, v in items])
        if name in ("min", "max"):
            return _int_fold(node, name, [v for _, v in items])
        if self.w.fold_definitions is None:
            return _element_fold(node, name, items)
        flat = None
        if name == "smax":
            flat, inner = self._flattened(items)
            if flat is not None and self.w.reduction is not None and _is_reduction(flat, self.w):
                # the nested folds' own definitions are left out: each has exactly one solution
                # and nothing else mentions them any more
                self.w.fold_definitions[:] = [
                    d for d in self.w.fold_definitions if not any(d is i for i in inner)
                ]
                self.w.reduction_used = True
                return self.w.reduction
        fold = self._defined_fold(node, env, name, items)
        if name == "smax":
            self._smax_folds[fold.get_id()] = (self.w.fold_definitions[-1], flat)
        return fold

    def _flattened(self, items):
        """The items of an smax with each unguarded item that is itself an smax fold replaced by
        that fold's items (smax is associative, commutative and idempotent, and its identity
        changes nothing), and the definitions of the folds taken apart; (None, []) when a fold
        inside could not be flattened."""
        flat, inner = [], []
        for guard, value in items:
            nested = self._smax_folds.get(value.get_id()) if guard is None and z3.is_expr(value) else None
            if nested is None:
                flat.append((guard, value))
            elif nested[1] is None:
                return None, []
            else:
                flat += nested[1]
                inner.append(nested[0])
        return flat, inner

    def _defined_fold(self, node, env, name, items):
        """The fold as a constant defined by what it is (at least every item taken, and one
        of them or the identity), for the solver: the chain of Ifs of _element_fold makes it
        case-split on every order of the items (`post.vd[0] == smax(seed, smax(...))` took
        minutes at VLMAX=16). The definition has exactly one solution, so a claim is valid
        under it iff it is valid with the fold. Named by the fold's place and the bound
        variables, so every translation of one claim in one Setting defines the same constant."""
        chain = _element_fold(node, name, items)  # checks the items, gives the width
        width = chain.size()
        place = "_".join(f"{k}{v}" for k, v in sorted(env.items()))
        fold = z3.BitVec(f"ask_{name}_{node.lineno}_{node.col_offset}_{place}", width)
        at_least = {
            "smax": lambda x: fold >= x,
            "smin": lambda x: fold <= x,
            "umax": lambda x: z3.UGE(fold, x),
            "umin": lambda x: z3.ULE(fold, x),
        }[name]
        values = [(g, _as_bits(node, v, width, name in ("smax", "smin"))) for g, v in items]
        identity = {
            "smax": 1 << (width - 1),
            "smin": (1 << (width - 1)) - 1,
            "umax": 0,
            "umin": (1 << width) - 1,
        }[name]
        bounds = [at_least(v) if g is None else z3.Implies(g, at_least(v)) for g, v in values]
        choices = [fold == identity] + [fold == v if g is None else z3.And(g, fold == v) for g, v in values]
        self.w.fold_definitions.append(z3.And(*bounds, z3.Or(*choices)))
        return fold

    def _fold_items(self, node, env):
        args = node.args
        if len(args) == 1 and isinstance(args[0], ast.GeneratorExp):
            found = []
            self._unroll(args[0].generators, 0, dict(env), [], args[0].elt, found)
            return found
        if len(args) == 1 and isinstance(args[0], (ast.List, ast.Tuple)):
            args = args[0].elts
        return [(None, self.visit(arg, env)) for arg in args]

    def _unroll(self, generators, k, env, conditions, elt, found):
        """Each iteration of the generators: (its guard or None, the element's value)."""
        if k == len(generators):
            guard = z3.And(*conditions) if conditions else None
            if guard is not None and z3.is_false(z3.simplify(guard)):
                return
            self._spend(elt, 1)
            self.guards.extend(conditions)
            found.append((guard, self.visit(elt, env)))
            del self.guards[len(self.guards) - len(conditions) :]
            return
        generator = generators[k]
        bounds = [self.visit(arg, env) for arg in generator.iter.args]
        if len(bounds) == 1:
            bounds = [Fraction(0)] + bounds
        start, stop = bounds[0], bounds[1]
        step = bounds[2] if len(bounds) == 3 else Fraction(1)
        symbolic = not isinstance(start, Fraction) or not isinstance(stop, Fraction)
        if step.denominator != 1 or step <= 0 or (symbolic and step != 1):
            raise ClaimError(
                generator.iter,
                "the step of range() must be a positive whole number "
                "(and 1 when a bound depends on the state)",
            )
        low, high = _low(generator.iter, start), _high(generator.iter, stop)
        self._spend(
            generator.iter, max(0, -(-(high - low) // int(step)))
        )  # before range(): len() may overflow
        values = range(low, high, int(step))
        name = generator.target.id
        for i in values:
            inner = dict(env, **{name: i})
            extra = []
            if symbolic:  # the static bounds over-approximate: keep the real ones as guards
                extra = [
                    _compare(generator.iter, "LtE", start, Fraction(i)),
                    _compare(generator.iter, "Lt", Fraction(i), stop),
                ]
            self.guards.extend(extra)
            filters = []
            for condition in generator.ifs:
                filters.append(self.visit(condition, inner))
                self.guards.append(filters[-1])
            del self.guards[len(self.guards) - len(extra) - len(filters) :]
            conds = conditions + extra + filters
            if any(z3.is_false(z3.simplify(c)) for c in conds):
                continue
            self._unroll(generators, k + 1, inner, conds, elt, found)


def _reads_outcome(node) -> bool:
    """The node reads the execution's outcome or post-state."""
    if isinstance(node, ast.Name):
        return node.id in ("post", "trapped", "trapped_illegal", "retired")
    return False


def _low(node, value) -> int:
    if isinstance(value, Fraction):
        return int(value) if value.denominator == 1 else -(-value.numerator // value.denominator)
    return value.lo


def _high(node, value) -> int:
    """One past the largest value an exclusive bound allows (from its static bound)."""
    if isinstance(value, Fraction):
        return -(-value.numerator // value.denominator)
    if value.hi > MAX_UNROLL:
        raise ClaimError(
            node,
            "a range bound that depends on the state must have a known bound "
            "(pre.vl, pre.vstart, insn fields do; post fields and vtype do not)",
        )
    return value.hi


def _fold(node, op, a: Fraction, b: Fraction) -> Fraction:
    try:
        if op == "Add":
            return a + b
        if op == "Sub":
            return a - b
        if op == "Mult":
            return a * b
        if op == "Div":
            return a / b
        if op == "FloorDiv":
            return Fraction(a // b)
        if op == "Mod":
            return a % b
        if op == "Pow":
            if b.denominator != 1 or abs(b) > 64:
                raise ClaimError(node, "an exponent must be a whole number up to 64")
            return a ** int(b)
    except ZeroDivisionError:
        raise ClaimError(node, "division by zero") from None
    raise ClaimError(node, f"unsupported operator {op}")


def _is_element(value) -> bool:
    return isinstance(value, z3.BitVecRef)


def _as_int(node, value) -> _Int:
    if isinstance(value, _Int):
        return value
    if isinstance(value, Fraction):
        if value.denominator != 1:
            raise ClaimError(node, f"{shown_number(value)} is not a whole number (LMUL is fractional here)")
        if abs(value) >= 1 << (INT_WIDTH - 4):
            raise ClaimError(node, f"the integer {shown_number(value)} is too large")
        return _Int(_int(int(value)), int(value), int(value))
    raise ClaimError(node, "type error: expected an integer")


def _as_bits(node, value, width: int, signed: bool | None = None):
    """An element or register operand; an integer literal becomes one (two's complement).
    An order must not change the literal's value: a signed one (< smax ...) takes literals
    in the signed range, an unsigned one (ult umax ...) those in the unsigned range; else
    `seed <= 255` at SEW=8 would silently mean `seed <= -1`."""
    if isinstance(value, Fraction):
        low = 0 if signed is False else -(1 << (width - 1))
        high = 1 << (width - 1) if signed else 1 << width
        if value.denominator != 1 or not low <= value < high:
            which = {
                True: " as a signed value (an order compares signed: use ult ule ugt uge or "
                "umax umin for unsigned)",
                False: " as an unsigned value (ult ule ugt uge umax umin compare unsigned; write "
                "2**SEW - 1 for all ones)",
            }.get(signed, "")
            raise ClaimError(node, f"the literal {shown_number(value)} does not fit in {width} bits{which}")
        return z3.BitVecVal(int(value) % (1 << width), width)
    return value


def _coerce_pair(node, a, b, signed: bool | None = None):
    """Bring two operands of one comparison (already type-checked) to one representation
    (`signed`: the comparison's order, for the range of a literal; see _as_bits)."""
    if isinstance(a, (Fraction, _Int)) and isinstance(b, (Fraction, _Int)):
        return a, b
    if isinstance(a, z3.BoolRef) or isinstance(b, z3.BoolRef):
        return tuple(_as_bool(node, v) for v in (a, b))
    width = (a if _is_element(a) else b).size()
    return _as_bits(node, a, width, signed), _as_bits(node, b, width, signed)


def _as_bool(node, value):
    if isinstance(value, Fraction):
        if value not in (0, 1):
            raise ClaimError(node, f"a condition compares with 0 or 1, not {shown_number(value)}")
        return z3.BoolVal(value == 1)
    return value


def _compare(node, op: str, a, b):
    if isinstance(a, (Fraction, _Int)) and isinstance(b, (Fraction, _Int)):
        return _compare_ints(node, op, a, b)
    a, b = _coerce_pair(node, a, b, None if op in ("Eq", "NotEq") else True)
    return {
        "Eq": lambda: a == b,
        "NotEq": lambda: a != b,
        "Lt": lambda: a < b,
        "LtE": lambda: a <= b,
        "Gt": lambda: a > b,
        "GtE": lambda: a >= b,
    }[op]()


def _compare_ints(node, op, a, b):
    """Exact comparison; a fractional constant (LMUL=1/2) against a state integer is
    rounded the way that keeps the comparison exact."""
    if isinstance(a, Fraction) and isinstance(b, Fraction):
        return z3.BoolVal(
            {"Eq": a == b, "NotEq": a != b, "Lt": a < b, "LtE": a <= b, "Gt": a > b, "GtE": a >= b}[op]
        )
    if isinstance(a, Fraction):  # put the constant on the right
        flipped = {"Lt": "Gt", "LtE": "GtE", "Gt": "Lt", "GtE": "LtE"}.get(op, op)
        return _compare_ints(node, flipped, b, a)
    x = a.term
    if isinstance(b, Fraction) and b.denominator != 1:
        floor, ceil = b.numerator // b.denominator, -(-b.numerator // b.denominator)
        return {
            "Eq": z3.BoolVal(False),
            "NotEq": z3.BoolVal(True),
            "Lt": x < _int(ceil),
            "LtE": x <= _int(floor),
            "Gt": x > _int(floor),
            "GtE": x >= _int(ceil),
        }[op]
    y = _as_int(node, b).term
    return {"Eq": x == y, "NotEq": x != y, "Lt": x < y, "LtE": x <= y, "Gt": x > y, "GtE": x >= y}[op]


def _int_fold(node, name, values):
    if all(isinstance(v, Fraction) for v in values):
        return (min if name == "min" else max)(values)
    ints = [_as_int(node, v) for v in values]
    result = ints[0]
    for other in ints[1:]:
        pick = other.term < result.term if name == "min" else other.term > result.term
        result = _Int(
            z3.If(pick, other.term, result.term),
            min(result.lo, other.lo) if name == "min" else max(result.lo, other.lo),
            min(result.hi, other.hi) if name == "min" else max(result.hi, other.hi),
        )
    return result


def _is_reduction(items, world: World) -> bool:
    """The items (guard or None, value) are exactly the spec's reduction's: the seed (at least
    once, unguarded) and each vs2[i], i < VLMAX, guarded by active[i] and nothing else."""
    seen, seed = set(), False
    index_of = {world.elements[i].get_id(): i for i in world.mentioned_elements if i < world.cfg.vlmax}
    for guard, value in items:
        if not z3.is_expr(value):
            return False
        if guard is None:
            if not value.eq(world.seed):
                return False
            seed = True
            continue
        if z3.is_and(guard) and guard.num_args() == 1:
            guard = guard.arg(0)
        index = index_of.get(value.get_id())
        if index is None or not world.activity[index].eq(guard):
            return False
        seen.add(index)
    return seed and len(seen) == world.cfg.vlmax


def _element_fold(node, name, items):
    """smax/smin/umax/umin of the items; an item whose guard is false is skipped, and the
    fold of nothing is the operation's identity (smax: the signed minimum, and so on)."""
    width = next((v.size() for _, v in items if _is_element(v)), None)
    if width is None:
        raise ClaimError(node, f"{name}() needs at least one element (literals alone have no width)")
    identity = {
        "smax": 1 << (width - 1),
        "smin": (1 << (width - 1)) - 1,
        "umax": 0,
        "umin": (1 << width) - 1,
    }[name]
    better = {
        "smax": lambda x, acc: x > acc,
        "smin": lambda x, acc: x < acc,
        "umax": lambda x, acc: z3.UGT(x, acc),
        "umin": lambda x, acc: z3.ULT(x, acc),
    }[name]
    acc = z3.BitVecVal(identity, width)
    for guard, value in items:
        value = _as_bits(node, value, width, name in ("smax", "smin"))
        take = better(value, acc)
        acc = z3.If(take if guard is None else z3.And(guard, take), value, acc)
    return acc


def compared_values(text: str, world: World) -> dict:
    """For a claim `implies(H, C)` whose conclusion C says what the outcome is (`post.vd[k] ==
    E`, `all(post.vd[k] == E for k in range(..))`, `trapped`, `not trapped`, and of these),
    the values it claims, by name ("vd[k]", "traps", "vs" for `post.vs == E`), as terms. Empty if it is not of that form."""
    translator = Translator(text, world)
    body = translator.tree.body
    if not (isinstance(body, ast.Call) and isinstance(body.func, ast.Name) and body.func.id == "implies"):
        return {}
    found: dict = {}
    if not _collect(translator, body.args[1], {}, found):
        return {}
    return found


def _collect(translator, node, env, found) -> bool:
    if isinstance(node, ast.BoolOp) and isinstance(node.op, ast.And):
        return all(_collect(translator, value, env, found) for value in node.values)
    if isinstance(node, ast.Name) and node.id == "trapped":
        found["traps"] = z3.BoolVal(True)
        return True
    if (
        isinstance(node, ast.UnaryOp)
        and isinstance(node.op, ast.Not)
        and isinstance(node.operand, ast.Name)
        and node.operand.id == "trapped"
    ):
        found["traps"] = z3.BoolVal(False)
        return True
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "all"
        and len(node.args) == 1
        and isinstance(node.args[0], ast.GeneratorExp)
    ):
        generator = node.args[0]
        if len(generator.generators) != 1 or generator.generators[0].ifs:
            return False
        bounds = [translator.visit(arg, env) for arg in generator.generators[0].iter.args]
        if not all(isinstance(b, Fraction) and b.denominator == 1 for b in bounds):
            return False
        name = generator.generators[0].target.id
        return all(
            _collect(translator, generator.elt, dict(env, **{name: i}), found)
            for i in range(*map(int, bounds))
        )
    if isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], ast.Eq):
        for side, other in ((node.left, node.comparators[0]), (node.comparators[0], node.left)):
            if (
                isinstance(side, ast.Attribute)
                and isinstance(side.value, ast.Name)
                and side.value.id == "post"
                and side.attr == "vs"
            ):
                found["vs"] = translator.visit(other, env)
                return True
            if (
                isinstance(side, ast.Subscript)
                and isinstance(side.value, ast.Attribute)
                and isinstance(side.value.value, ast.Name)
                and side.value.value.id == "post"
                and side.value.attr == "vd"
            ):
                index = translator.visit(side.slice, env)
                # an index past vd's elements is a partial operation (World.wd), not a value
                if (
                    not isinstance(index, Fraction)
                    or index.denominator != 1
                    or not 0 <= index < translator.w.cfg.elements_per_register
                ):
                    return False
                value = translator.visit(other, env)
                found[f"vd[{int(index)}]"] = _as_bits(node, value, translator.w.cfg.sew)
                return True
    return False
