"""The free join-semilattice backend of the element ops: which inputs reach the result.

Run a reduction unit on it and its result is not a number but a term over the inputs
built from join (smax), the identity (smin) and choices `ite(c, a, b)` whose conditions are
Booleans that do not depend on element values (the active flags). `inclusion` turns the
term into, for each input (atom), the condition under which it is joined into the result.

Any operation that would need the values themselves (a comparison, unsigned max, a
constant other than the identity) cannot be expressed: comparisons raise NotExpressible,
other constants become atoms of their own (so a tree padding with 0 shows the atom "0"
reaching the result, a counterexample rather than a crash).

Soundness: see proofs/engine/compositional.py, `soundness_argument()`.
"""

from __future__ import annotations

import itertools
from typing import Any, Literal, NoReturn

import z3


class NotExpressible(Exception):
    """The unit uses an operation that depends on element values."""


_SERIALS = itertools.count()


class Node:
    """A value of the free semilattice (a plain class: hundreds of thousands are made at
    VLMAX=65536, and a dataclass's constructor took twice as long)."""

    __slots__ = ("kind", "children", "label", "condition", "serial", "reached")

    def __init__(
        self,
        kind: str,
        children: tuple[Node, ...] = (),
        label: object = None,
        condition: z3.BoolRef | None = None,
    ) -> None:
        self.kind = kind  # "atom", "empty", "join", "ite"
        self.children = children
        self.label = label  # the atom's name
        self.condition = condition  # the ite's condition (a Z3 Boolean)
        # Made after its children, so a parent's serial is larger: descending serials are a
        # topological order (parents first).
        self.serial = next(_SERIALS)
        self.reached: Any = None  # `inclusion`'s incoming paths

    def __repr__(self) -> str:
        return f"Node({self.kind!r}, label={self.label!r}, serial={self.serial})"


EMPTY = Node("empty")


def atom(label: object) -> Node:
    return Node("atom", label=label)


class SemilatticeElements:
    """Element ops over the free semilattice (see the module docstring)."""

    symbolic = True
    true, false = z3.BoolVal(True), z3.BoolVal(False)

    def __init__(self, width: int) -> None:
        self.width = width
        self._smin = 1 << (width - 1)
        self._constants: dict[int, Node] = {}

    def const(self, value: int) -> Node:
        value &= (1 << self.width) - 1
        if value == self._smin:
            return EMPTY
        return self._constants.setdefault(value, atom(("const", value)))

    def smin(self) -> Node:
        return EMPTY

    def smax(self, a: Node, b: Node) -> Node:
        if a is EMPTY:
            return b
        if b is EMPTY or a is b:
            return a
        return Node("join", (a, b))

    def ite(self, c: z3.BoolRef, a: Any, b: Any) -> Any:  # on values (Node) or flags (z3 Booleans)
        if type(a) is not Node and isinstance(a, z3.BoolRef):
            return z3.If(c, a, b)
        if a is b:
            return a
        return Node("ite", (a, b), None, c)

    def and_(self, a: z3.BoolRef, b: z3.BoolRef) -> z3.BoolRef:
        return z3.And(a, b)

    def or_(self, a: z3.BoolRef, b: z3.BoolRef) -> z3.BoolRef:
        return z3.Or(a, b)

    def not_(self, a: z3.BoolRef) -> z3.BoolRef:
        return z3.Not(a)

    def _values(self, name: str) -> NoReturn:
        raise NotExpressible(f"{name} compares element values; the free semilattice has none")

    def umax(self, a: Node, b: Node) -> NoReturn:
        self._values("umax")

    def sgt(self, a: Node, b: Node) -> NoReturn:
        self._values("sgt")

    def sge(self, a: Node, b: Node) -> NoReturn:
        self._values("sge")

    def slt(self, a: Node, b: Node) -> NoReturn:
        self._values("slt")

    def ugt(self, a: Node, b: Node) -> NoReturn:
        self._values("ugt")

    def ult(self, a: Node, b: Node) -> NoReturn:
        self._values("ult")

    def eq(self, a: Node, b: Node) -> NoReturn:
        self._values("eq")


# Path conditions are Python True (the root) or Z3 Booleans; keys use Python identity,
# which is enough for the merge to fire on the patterns of a fold (it is an optimisation:
# without it the conditions are equivalent, only bigger).

Path = z3.BoolRef | Literal[True]  # the root's is True
Part = tuple[Path, z3.BoolRef | None, bool]  # (path, choice condition or None, its polarity)


def _conjoin(path: Path, literal: z3.BoolRef | None) -> Path:
    if literal is None:
        return path
    return literal if path is True else z3.And(path, literal)


def _literal(cond: z3.BoolRef, polarity: bool) -> z3.BoolRef:
    return cond if polarity else z3.Not(cond)


def _merge(parts: list[Part]) -> tuple[Path | None, Part | None]:
    """OR of the contributions; `p & c` and `p & !c` from one choice merge back into `p`.

    Returns (term, None), or (None, part) when there is a single contribution to forward.
    """
    if len(parts) == 1:
        return None, parts[0]
    if len(parts) == 2:  # the common case, a fold's accumulator: both sides of one choice
        (path, cond, polarity), (other_path, other_cond, other_polarity) = parts
        if cond is not None and cond is other_cond and path is other_path and polarity != other_polarity:
            return path, None
    pending: dict[tuple[tuple[int, int], bool], tuple[Path, z3.BoolRef, bool]] = {}
    merged: list[Path] = []
    for part in parts:
        path, cond, polarity = part
        if cond is None:
            merged.append(path)
            continue
        key = (id(path), id(cond))
        if pending.pop((key, not polarity), None) is not None:
            merged.append(path)
        else:
            pending[(key, polarity)] = (path, cond, polarity)  # (the part, its condition known)
    if any(m is True for m in merged):
        return True, None
    merged += [_conjoin(path, _literal(cond, polarity)) for path, cond, polarity in pending.values()]
    return (merged[0] if len(merged) == 1 else z3.Or(*merged)), None


def inclusion(root: object) -> dict[object, z3.BoolRef]:
    """For each atom reachable from `root`, the condition under which it is joined in.

    Top-down over the term's DAG (linear in its size, parents before children by serial):
    the root is reached under True, a join passes its condition to both sides,
    `ite(c, a, b)` passes `p & c` to a and `p & !c` to b, and a node reached along several
    paths is reached under their OR. (The empty join reaches nothing: it is not visited.)
    """
    if not isinstance(root, Node):
        raise NotExpressible(f"the unit returned {type(root).__name__}, not a semilattice value")
    nodes = _reachable(root)  # each with an empty `reached` list
    nodes.sort(key=_serial, reverse=True)
    root.reached.append((True, None, True))
    result: dict[object, z3.BoolRef] = {}
    for node in nodes:
        parts, node.reached = node.reached, None
        term, single = _merge(parts)
        kind = node.kind
        if kind == "join":
            incoming = (
                single if single is not None else (term, None, True)
            )  # forwarded as is, so pairs can merge
            for child in node.children:
                if child is not EMPTY:
                    child.reached.append(incoming)
            continue
        if single is not None:
            term = single[0] if single[1] is None else _conjoin(single[0], _literal(single[1], single[2]))
        assert term is not None  # _merge gives a term, or a single part
        if kind == "ite":
            then, other = node.children
            if then is not EMPTY:
                then.reached.append((term, node.condition, True))
            if other is not EMPTY:
                other.reached.append((term, node.condition, False))
        else:
            result[node.label] = z3.BoolVal(True) if term is True else term
    return result


def _serial(node: Node) -> int:
    return node.serial


def _reachable(root: Node) -> list[Node]:
    """The nodes below `root` (itself included, EMPTY not), each given an empty `reached`."""
    found = [root]
    root.reached = []
    stack = [root]
    while stack:
        for child in stack.pop().children:
            if child.reached is None and child is not EMPTY:
                child.reached = []
                found.append(child)
                stack.append(child)
    return found
