"""A traced term's value, asked of the solver with its top levels exact and the rest abstracted.

The top `depth` levels of the DAG are kept; a node below them is a free bit-vector of its width,
unless it *selects* (an `ite`, `smax` or `umax`: its value is one of its operands). A selection's
value is one of its selection leaves (the values reached through the chosen operands, whatever
the conditions), and leaves of the same shape (the same operations over different inputs, as
each element's `x if active else MIN` is) take the same set of values, the inputs being free.
So a selection below the top is a free value equal to one of its leaf shapes, each shape's own
top levels exact over fresh inputs: more values than the code can give (a proof about them
holds for the code), and far fewer than a free bit-vector (`best + 2**W if best < 0 else best`
of a running maximum of values in -2**(W-1)..2**(W-1)-1 is then shown to lie in 0..2**W-1).
"""

from __future__ import annotations

import itertools

import z3

from vredmax.proofs.python.trace import BOOL, Term, evaluate
from vredmax.spec.bv import Z3Elements

SELECTIONS = ("ite", "smax", "umax")
INPUTS = ("seed", "elem", "flag")
MAX_LEAVES = 1 << 16  # selection leaves walked per selection below the top
MAX_SHAPES = 8  # distinct leaf shapes a selection may be one of (else: a free value)
MAX_NESTING = 2
SMALL_CONE = 64  # a node below the top with at most this many operations under it is exact  # selections within a shape are expanded this many times


def _top(root: Term, depth: int) -> set:
    """The ids of the nodes within `depth` levels of the root, and the whole of each small cone
    just below them (an element's own `x * active + MIN * (1 - active)`: exact, not free)."""
    inside, level = set(), [root]
    for _ in range(depth):
        level = [n for n in level if id(n) not in inside]
        inside.update(id(n) for n in level)
        level = [a for n in level for a in n.args]
    for node in level:
        cone = _cone(node, inside)
        if cone is not None:
            inside |= cone
    return inside


def _cone(node: Term, outside: set) -> set | None:
    """The ids of the node's cone (down to its inputs) not in `outside`, if at most SMALL_CONE."""
    cone, stack = set(), [node]
    while stack:
        n = stack.pop()
        if id(n) in cone or id(n) in outside:
            continue
        cone.add(id(n))
        if len(cone) > SMALL_CONE:
            return None
        stack += n.args
    return cone


def _exact(node: Term, inside: set) -> bool:
    """Computed from its arguments: a constant anywhere, an operation within the top."""
    return node.op in ("const", "bool") or (id(node) in inside and node.op not in INPUTS and bool(node.args))


def selection_leaves(node: Term) -> list[Term]:
    """The values a selection may take, through every operand it chooses from (None: too many)."""
    leaves, seen, stack = [], set(), [node]
    while stack:
        n = stack.pop()
        if id(n) in seen:
            continue
        seen.add(id(n))
        if len(seen) > MAX_LEAVES:
            return []
        if n.op == "ite":
            stack += [n.args[1], n.args[2]]
        elif n.op in ("smax", "umax"):
            stack += list(n.args)
        else:
            leaves.append(n)
    return leaves


def shape_key(root: Term, depth: int) -> tuple:
    """The root's top levels up to renaming of what is free in them (inputs, the nodes below):
    two roots with the same key take the same set of values."""
    inside = _top(root, depth)
    numbers: dict = {}
    entries: list = []
    stack = [root]
    while stack:
        n = stack.pop()
        if id(n) in numbers:
            continue
        numbers[id(n)] = len(numbers)
        if _exact(n, inside):
            entries.append((n.op, n.param, n.width, tuple(id(a) for a in n.args)))
            stack += reversed(n.args)
        else:
            entries.append(("free", n.width == BOOL, n.width))
    # the argument ids renamed by their first visit (the numbers are complete now)
    return tuple(e if e[0] == "free" else e[:3] + (tuple(numbers[a] for a in e[3]),) for e in entries)


class Framing:
    """Builds the abstracted Z3 term of a traced node and the facts its free values meet."""

    def __init__(self, sew: int, depth: int):
        self.ops = Z3Elements(sew)
        self.depth = depth
        self.facts: list = []
        self._names = itertools.count()

    def _fresh(self, node: Term):
        name = f"range_free_{next(self._names)}"
        return z3.Bool(name) if node.width == BOOL else z3.BitVec(name, node.width)

    def term(self, root: Term, nesting: int = 0):
        inside = _top(root, self.depth)
        free: dict = {}

        def leaf(node):
            if _exact(node, inside):
                return None
            if id(node) not in free:
                free[id(node)] = self._chosen(node, nesting)
            return free[id(node)]

        return evaluate(self.ops, root, leaf)

    def _chosen(self, node: Term, nesting: int):
        """A node below the top: a free value, one of its leaf shapes if it is a selection."""
        value = self._fresh(node)
        if node.op not in SELECTIONS or node.width == BOOL or nesting >= MAX_NESTING:
            return value
        shapes: dict = {}
        for candidate in selection_leaves(node):
            shapes.setdefault(shape_key(candidate, self.depth), candidate)
            if len(shapes) > MAX_SHAPES:
                return value
        if not shapes:
            return value
        # each shape over inputs of its own (fresh names: the leaves' inputs are others)
        self.facts.append(z3.Or([value == self.term(shape, nesting + 1) for shape in shapes.values()]))
        return value
