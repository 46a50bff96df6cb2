"""Prove or refute a reduction unit built from any element ops, at any VLMAX, by cut points.

The unit is run once on the tracing backend (proofs/python/trace.py): a DAG of element ops over
the seed, the elements, the active flags and constants. Each element-wide node gets, where
it is one, a *denotation*: the signed max of a guarded set of leaves, written as a term of
the free semilattice (proofs/engine/semilattice.py: joins, the empty join, and choices whose
conditions are Booleans over the active flags alone). Bottom-up:

- a leaf denotes itself (the signed minimum: the empty join);
- `smax(a, b)` of denoted nodes denotes the join of theirs; `ite(c, a, b)` with a
  *structural* condition (built from flags only) the choice between theirs;
- any other node (a compare-and-select, a sign flip with xor before an unsigned compare,
  ...) is checked locally: its *cone* (the node and its non-denoted descendants, cut at the
  nearest denoted descendants and at the structural conditions) must equal, for all values
  of fresh variables x_j standing for the cut nodes and b_k for the conditions, a guarded
  join `smax over j of (phi_j(b) ? x_j : smin)` (plus a constant when it appears). The
  guards phi_j are found by concrete probes and then proved by the solver, once per cone
  shape (the cone up to renaming of its cut points) and SEW; every other node of that shape
  reuses the proof. Nodes that are not guarded joins (xor, add, ...) have no denotation and
  are inlined into their parents' cones; a dead one costs nothing.

Soundness: by induction over the DAG, a denoted node's value is the signed max of its
leaves whose guard holds: for leaves, joins and structural choices by the semilattice laws
of signed max (the algebra lemmas of proofs/engine/lemmas.py, proved per SEW), for a cone node by
its local proof (which holds for all values of the cut variables, in particular the cut
nodes' real values; the Booleans likewise). Then `inclusion` gives each leaf's condition
at the root; the unit meets the spec's result exactly when the seed's is true, element i's
is its active flag, and every constant's is false (the lemmas of the compositional method
carry this to the spec's result predicate). The instruction around the unit is proved by
pieces 1 and 2 of proofs/engine/compositional.py (the unit cut out, the operands it is handed).

A cone's shape and its proof are in proofs/python/cutshape.py, the concrete cases in
proofs/python/cutcases.py; a whole instruction is cut at its reduction by proofs/python/cutstep.py.

A difference in a condition becomes a concrete case (the wrongly included or excluded leaf
made strictly largest), confirmed by running the unit and the executable spec on it; a local
check that fails is not yet a bug (the cut forgot how the inputs are related), so a concrete
case is searched for, and without one the verdict is UNKNOWN.
"""

from __future__ import annotations

import random
import time
import traceback
from dataclasses import dataclass, field

import z3

from vredmax.impl.execute import TAIL_POLICIES
from vredmax.proofs.engine.semilattice import EMPTY, SemilatticeElements, atom, inclusion
from vredmax.proofs.python.cutcases import confirmed, differs, make_case, search_case
from vredmax.proofs.python.cutshape import Cone, ConeTooLarge, Shape, selection_of, shape_of, shape_value
from vredmax.proofs.python.flagbits import FlagBits
from vredmax.proofs.python.trace import SymbolicUse, Term, TraceElements, Tracer
from vredmax.proofs.engine.verdict import Verdict, prove
from vredmax.spec import z3fast as fast
from vredmax.spec.bv import ConcreteElements
from vredmax.spec.config import Config
from vredmax.spec.encoding import Insn
from vredmax.spec.state import ArchState

METHOD = "cut points"
CONE_LIMIT = 48  # nodes of one local cone; past it the unit is not analysed further
CUT_LIMIT = 8  # value cut points of one cone
DEEPER = 4  # retries of a cone that is no guarded max, cut one level deeper each
BOOL_CUT_LIMIT = 5  # structural Boolean cut points of one cone (its table has 2^m rows)
CHUNK = 4096  # root conditions per solver call
SEED_ATOM = "seed"
VALUE_LEAVES = ("seed", "elem", "input")  # input: a whole instruction's operand (proofs/python/cutstep.py)


def element_atom(i: int):
    return ("vs2", i)


@dataclass
class ScaleResult:
    verdict: Verdict
    detail: str
    method: str
    solver: str
    seconds: float
    case: tuple[ArchState, Insn] | None = None
    # the local case of a node that is no signed max (its cut values and what it gives): the
    # cut's own values, which the presentation shows unless a replayable counterexample is
    witness: str = ""


# The analysis ----------------------------------------------------------------------------


@dataclass
class Failure:
    """A node whose value could not be given a denotation, and why."""

    node: Term
    reason: str
    verdict: Verdict  # COUNTEREXAMPLE: the local check is refuted; UNKNOWN otherwise


@dataclass
class Analysis:
    root: object = None  # the root's semilattice term, when it has one
    failure: Failure | None = None
    nodes: int = 0
    shapes: dict = field(default_factory=dict)
    cone_nodes: int = 0
    refuted: tuple | None = None  # the first node shown no guarded max: (node, cone, witness)
    # the first node shown no guarded max but kept as a selection between two (its witness
    # explains a root the bounds do not pin down)
    selected: tuple | None = None
    # when the root is known only between two guarded maxima: `root` below it, this above
    upper: object = None


def post_order(root: Term, done=None) -> list[Term]:
    """The nodes under root, children before parents; not entering nodes in `done`."""
    order, seen, stack = [], set(), [(root, False)]
    while stack:
        node, expanded = stack.pop()
        if expanded:
            order.append(node)
            continue
        if id(node) in seen or (done is not None and id(node) in done):
            continue
        seen.add(id(node))
        stack.append((node, True))
        stack.extend((a, False) for a in reversed(node.args) if id(a) not in seen)
    return order


CONNECTIVES = ("and_", "or_", "not_", "ite")  # of conditions


def _connective_order(root: Term, done: dict) -> list[Term]:
    """The conditions under a structural root, children first, entering only the Boolean
    connectives (a comparison's operands are values: proofs/python/flagbits.py)."""
    order, seen, stack = [], set(), [(root, False)]
    while stack:
        node, expanded = stack.pop()
        if expanded:
            order.append(node)
            continue
        if id(node) in seen or id(node) in done:
            continue
        seen.add(id(node))
        stack.append((node, True))
        if node.op in CONNECTIVES:
            stack.extend((a, False) for a in reversed(node.args) if id(a) not in seen)
    return order


def element_span(node: Term) -> tuple[int, int]:
    """The lowest and highest element index a node depends on ((0, 0) for none)."""
    indices = [n.param for n in post_order(node) if n.op == "elem"]
    return (min(indices), max(indices)) if indices else (0, 0)


class SharedLattice(SemilatticeElements):
    """The free semilattice with equal joins and choices made once (the same object): two
    nodes of the unit that denote the same join (an element and the key it was compared by,
    a value and its sign-extended copy) then share one cut variable in their parents' cones."""

    def __init__(self, width: int):
        super().__init__(width)
        self._made: dict = {}

    def smax(self, a, b):
        if a is EMPTY or b is EMPTY or a is b:
            return super().smax(a, b)
        key = ("join", id(a), id(b))
        found = self._made.get(key)
        if found is None:
            found = self._made[key] = (super().smax(a, b), a, b)
        return found[0]

    def ite(self, c, a, b):
        if isinstance(a, z3.BoolRef) or a is b:
            return super().ite(c, a, b)
        key = ("ite", c.get_id(), id(a), id(b))
        found = self._made.get(key)
        if found is None:
            found = self._made[key] = (super().ite(c, a, b), a, b, c)
        return found[0]


class Denoter:
    """Gives each element-wide node of a traced unit its denotation, children first (see the
    module docstring): `run(root)` returns the Analysis. `flags` are the Z3 Booleans the
    flag leaves stand for."""

    def __init__(self, sew: int, flags: list, timeout_ms: int):
        self.sew = sew
        self.flags = flags
        self.timeout_ms = timeout_ms
        self.lattice = SharedLattice(sew)
        self.den: dict = {}
        self.conds: dict = {}
        self.flag_bits: FlagBits | None = None
        self.rng = random.Random(0)
        self.analysis = Analysis()
        # id(node) -> a guarded join at least the node's value, for a node whose own (in `den`)
        # is only at most its value: a selection (a minimum, a compare-and-swap's low output)
        self.up: dict = {}

    # a unit's root known between two guarded maxima is compared both ways (prove_unit_at_scale);
    # a step's analysis wants the root's exact guarded max
    BOUNDS_AT_ROOT = True

    def upper(self, node: Term):
        """A guarded join at least the node's value (its denotation when exact)."""
        return self.up.get(id(node), self.den[id(node)][0])

    # structural conditions as Z3 Booleans over the flags
    def condition(self, node: Term):
        found = self.conds.get(id(node))
        if found is not None:
            return found
        if node.op == "flag":
            found = self.conds[id(node)] = self.flags[node.param]
            return found
        for n in _connective_order(node, self.conds):
            c = [self.conds[id(a)] for a in n.args] if n.op in CONNECTIVES else []
            if n.op not in CONNECTIVES and n.op not in ("flag", "bool"):
                # a comparison of values computed from the flags (a mask packed into an
                # int, ...): its bits as Booleans over the flags
                if self.flag_bits is None:
                    self.flag_bits = FlagBits(self.flags)
                term = self.flag_bits.condition(n)
            elif n.op == "flag":
                term = self.flags[n.param]
            elif n.op == "bool":
                term = z3.BoolVal(n.param)
            # z3's own constructors: a chain of conditions may be 65536 deep (`any active`),
            # and such a chain made with spec/z3fast's takes minutes to free at exit (measured:
            # 80 s at depth 16384, growing quadratically; z3's: under a second)
            elif n.op == "and_":
                term = z3.And(*c)
            elif n.op == "or_":
                term = z3.Or(*c)
            elif n.op == "not_":
                term = z3.Not(c[0])
            else:  # ite of conditions
                term = z3.If(*c)
            self.conds[id(n)] = term
        return self.conds[id(node)]

    def extended(self, node: Term):
        """A sign or zero extension of a denoted element-wide node: its join, so encoded. A
        cone then sees `sext(x)` written as the step wrote it and as a wide node's encoding
        alike (one cut point, one encoding: a compare-and-swap of a Python int read from a
        lane and one computed wide, whose low output is one of them)."""
        if node.op not in ("zext", "sext") or not self.sew < node.width <= 2 * self.sew:
            return None
        found = self.den.get(id(node.args[0]))
        if node.args[0].width != self.sew or found is None or isinstance(found[1], tuple):
            return None
        return found[0], (node.op, node.width, found[1])

    def wide_leaf(self, node: Term):
        """The denotation of a node wider than an element whose cone is too large (or a leaf),
        as one leaf (none in a unit: its leaves are elements; a whole step's machine values
        may be: proofs/python/cutstep.py)."""
        return None

    def leaf(self, node: Term):
        if node.op == "seed":
            return atom(SEED_ATOM)
        if node.op == "elem":
            return atom(element_atom(node.param))
        return self.lattice.const(node.param)  # the empty join for smin; one atom per value

    def run(self, root: Term) -> Analysis:
        a = self.analysis
        order = post_order(root)
        a.nodes = len(order)
        for node in order:
            if node.width != self.sew:
                # a wider value (a signed Python int of proofs/python/values.py) may be a
                # sign-extended join; when it is none it is inlined into its parents' cones
                extended = self.extended(node)
                if extended is not None:
                    self.den[id(node)] = extended
                elif self.sew < node.width <= 2 * self.sew and node.op not in ("zext", "sext"):
                    found, opaque = None, not node.args
                    if node.args:
                        try:
                            found = self.denote_cone(node, False, wide=True)
                        except ConeTooLarge:  # over a leaf no cone takes apart: one leaf?
                            opaque = True
                    if opaque:
                        found = self.wide_leaf(node)
                    if found is not None:
                        self.den[id(node)] = found
                continue
            try:
                self.den[id(node)] = self.denote(node, node is root)
            except ConeTooLarge as error:
                a.failure = Failure(node, str(error), Verdict.UNKNOWN)
                return a
            if a.failure is not None:
                return a
        denoted = self.den.get(id(root))
        if denoted is not None and denoted[1] == 0 and id(root) in self.up:
            if self.BOUNDS_AT_ROOT:
                a.root, a.upper = denoted[0], self.up[id(root)]
            else:
                a.failure = Failure(
                    root, "the result is between two guarded maxima, not shown one", Verdict.UNKNOWN
                )
        elif denoted is not None and denoted[1] == 0:
            a.root = denoted[0]
        elif a.failure is None:
            a.failure = Failure(
                root,
                "the result is not a guarded signed max of the inputs"
                + (f" (it is one xor {denoted[1]:#x})" if denoted else ""),
                Verdict.COUNTEREXAMPLE,
            )
        return a

    def denote(self, node: Term, is_root: bool):
        """(semilattice term, encoding): the node's value is the term's max xor the encoding;
        None when it is no such thing."""
        L, den = self.lattice, self.den
        if node.op in ("seed", "elem", "const"):
            return self.leaf(node), 0
        args = [den.get(id(x)) for x in node.args]
        if node.op == "smax" and None not in args and args[0][1] == 0 and args[1][1] == 0:
            self._bound(node, L.smax, node.args)
            return L.smax(args[0][0], args[1][0]), 0
        if (
            node.op == "ite"
            and node.args[0].structural
            and args[1] is not None
            and args[2] is not None
            and args[1][1] == args[2][1]
        ):
            condition = self.condition(node.args[0])
            self._bound(node, lambda a, b: L.ite(condition, a, b), node.args[1:])
            return L.ite(condition, args[1][0], args[2][0]), args[1][1]
        return self.denote_cone(node, is_root)

    def _bound(self, node: Term, make, args) -> None:
        """The node's upper guarded join, made of its arguments' (when one of them is inexact):
        join and choice are monotone."""
        if any(id(a) in self.up for a in args):
            self.up[id(node)] = make(*(self.upper(a) for a in args))

    def cone(self, node: Term, inline=frozenset()) -> Cone:
        """The node's cone, cut at its nearest denoted descendants except those in `inline`
        (ids), which are taken apart like the others."""
        steps, index, xs, bs = [], {}, [], []
        den, sew = self.den, self.sew
        variables: dict = {}  # one cut variable per semilattice term: x and x xor s share it

        def cut(n):
            """The reference of a node the cone stops at, None for one it takes apart."""
            if n.op == "const" or n.op == "bool":
                return ("c", n.op, n.param, n.width)
            if n is not node and den.get(id(n)) is not None and id(n) not in inline:
                term, encoding = den[id(n)]
                # an inexact node is a variable of its own: its bounds do not fix its value
                name = ("node", id(n)) if id(n) in self.up else id(term)
                if name not in variables:
                    variables[name] = len(xs)
                    xs.append(n)
                return ("x", variables[name], encoding)
            if n.structural:
                bs.append(n)
                return ("b", len(bs) - 1)
            if not n.args:
                raise ConeTooLarge(
                    f"a {n.width}-bit input is used where only element values and conditions are understood"
                )
            return None

        # depth first, arguments left to right (the numbering of steps and cut points is the
        # shape's key), with a stack: a chain that is no maximum may be thousands of nodes deep
        stack = [(node, False)]
        while stack:
            n, expanded = stack.pop()
            if id(n) in index:
                continue
            if not expanded:
                ref = cut(n)
                if ref is not None:
                    index[id(n)] = ref
                    continue
                stack.append((n, True))
                stack.extend((a, False) for a in reversed(n.args))
                continue
            args = tuple(index[id(a)] for a in n.args)
            if len(steps) >= CONE_LIMIT:
                raise ConeTooLarge(
                    f"the values it depends on are no guarded maxima for more than "
                    f"{CONE_LIMIT} operations (the cut-point method needs each "
                    "intermediate result to be a maximum of some inputs)"
                )
            index[id(n)] = ("n", len(steps))
            steps.append((n.op, n.param, n.width, args))
        order = self.order_facts(xs)
        return Cone((sew, tuple(steps), len(xs), len(bs)) + ((order,) if order else ()), xs, bs)

    def order_facts(self, xs: list) -> tuple:
        """Pairs (i, j): cut point x_i is at least x_j (signed), because x_j's guarded join is
        part of x_i's whatever the flags (`below`). A cone is proved under these facts, which
        hold of the cut nodes' real values: a running maximum that is the type's largest
        value stays it, so a test `acc == MAX` (a loop that stops there) decides nothing."""
        lows = [self.den[id(x)][0] for x in xs]
        highs = [self.upper(x) for x in xs]
        return tuple(
            (i, j)
            for i, big in enumerate(lows)
            for j, small in enumerate(highs)
            if i != j and below(small, big)
        )

    def denote_cone(self, node: Term, is_root: bool, wide: bool = False):
        cone = self.cone(node)
        self.analysis.cone_nodes += 1
        if len(cone.xs) > CUT_LIMIT or len(cone.bs) > BOOL_CUT_LIMIT:
            return None  # too many inputs to tabulate: opaque, inlined into its parents
        cone, shape = self.deeper_if_needed(node, cone)
        self.analysis.shapes[cone.key] = shape
        if shape.table is None:
            chosen = self.selection(node, cone)
            if chosen is not None:
                if shape.witness is not None and self.analysis.selected is None and not wide:
                    self.analysis.selected = (node, cone, shape.witness)
                return chosen
        if shape.table is None:
            # name the first node that selects (a compare-and-select, a max), not an xor feeding one
            selects = any(op in ("ite", "umax", "smax") for op, _, _, _ in cone.key[1])
            if shape.witness is not None and selects and self.analysis.refuted is None and not wide:
                self.analysis.refuted = (node, cone, shape.witness)
            if shape.verdict == Verdict.UNKNOWN:
                self.analysis.failure = Failure(node, shape.detail, Verdict.UNKNOWN)
            return None
        return self.guarded_join(shape, cone, node)

    def selection(self, node: Term, cone: Cone):
        """A cone that is always one of its cut points (a minimum, the low output of a
        compare-and-swap): its value lies between the empty join and the join of the cut
        points' upper joins. (EMPTY, encoding) with that upper join kept, or None."""
        encoding = selection_of(cone.key, self.sew, self.rng, self.timeout_ms)
        if encoding is None:
            return None
        L = self.lattice
        high = EMPTY
        for x in cone.xs:
            high = L.smax(high, self.upper(x))
        self.up[id(node)] = high
        return EMPTY, encoding

    def deeper_if_needed(self, node: Term, cone: Cone):
        """(cone, shape). When the cone is no guarded max, the same cone cut deeper (up to
        DEEPER times): its cut points that are no inputs taken apart too. A cut point may take
        any value, so it forgets what its value is made of: a mask 0 or -1 chosen by a flag,
        `band(x, mask)` which is x or 0. Each deeper cone is a cone of its own, proved or
        refuted as any other (sound either way); the first one's answer stands when no deeper
        one is a guarded max."""
        shape = self.shape_of(cone)
        if shape.table is not None:
            return cone, shape
        inline, current = set(), cone
        for _ in range(DEEPER):
            apart = [x for x in current.xs if x.op not in VALUE_LEAVES]
            # a cut point that denotes one leaf (a whole step's element put together from
            # its bytes) is taken apart last: inside, it is that value written another way
            # (`(x ^ TOP) - TOP`), and a cone cut below it sees the leaf xor'd, not the leaf
            joins = [x for x in apart if self.den[id(x)][0].kind != "atom"]
            inline |= {id(x) for x in joins or apart}
            try:
                deeper = self.cone(node, frozenset(inline))
            except ConeTooLarge:
                break
            if deeper.key == current.key or len(deeper.xs) > CUT_LIMIT or len(deeper.bs) > BOOL_CUT_LIMIT:
                break
            deeper_shape = self.shape_of(deeper)
            if deeper_shape.table is not None:
                return deeper, deeper_shape
            current = deeper
        return cone, shape

    def shape_of(self, cone: Cone) -> Shape:
        """The cone's shape: probed, then proved by the solver; once per shape and SEW."""
        return shape_of(cone.key, self.sew, self.rng, self.timeout_ms)

    def guarded_join(self, shape: Shape, cone: Cone, node: Term | None = None):
        """The semilattice term of a cone node from its shape's table: the join of each cut
        point (and constant) under the condition, over the Boolean cut points, where the
        table has it joined. The table's reading is worked out once per shape (`recipe`)."""
        L = self.lattice
        if shape.recipe is None:
            table = shape.table
            members = [(("x", j), lambda entry, j=j: j in entry[0]) for j in range(cone.key[2])]
            for constant in sorted({c for _, c in table.values() if c is not None}):
                members.append((("c", constant), lambda entry, c=constant: entry[1] == c))
            placeholders = list(range(cone.key[3]))
            shape.recipe = [
                (
                    which,
                    _boolean_function({bits: member(entry) for bits, entry in table.items()}, placeholders),
                )
                for which, member in members
            ]
        conds = None
        inexact = node is not None and any(id(x) in self.up for x in cone.xs)
        result = high = EMPTY
        for (kind, which), guard in shape.recipe:
            if guard is False:
                continue
            value = self.den[id(cone.xs[which])][0] if kind == "x" else L.const(which)
            top = self.upper(cone.xs[which]) if kind == "x" else value
            if guard is not True:
                if conds is None:
                    conds = [self.condition(b) for b in cone.bs]
                condition = _instantiate(guard, conds)
                value = L.ite(condition, value, EMPTY)
                top = L.ite(condition, top, EMPTY)
            result = L.smax(result, value)
            high = L.smax(high, top)
        if inexact:  # a guarded join is monotone in each cut point: bounds give bounds
            self.up[id(node)] = high
        return result, shape.encoding


BELOW_BUDGET = 64  # semilattice nodes visited by one `below` question


def below(small, big, budget: int = BELOW_BUDGET) -> bool:
    """`small`'s guarded join is no more than `big`'s for every value of the flags and of the
    atoms (a sufficient test: `small` is one of `big`'s unconditional parts, or each part of
    `small` is). False when undecided within the budget of nodes visited."""
    parts = _parts(big, budget)
    left = [budget]

    def walk(s) -> bool:
        if s is EMPTY or id(s) in parts:
            return True
        left[0] -= 1
        return left[0] >= 0 and s.kind in ("join", "ite") and all(walk(c) for c in s.children)

    return walk(small)


def _parts(term, budget: int) -> set:
    """ids of the terms joined into `term` whatever the flags: itself, its joins' parts, the
    parts both arms of a choice share; breadth first, at most `budget` nodes."""
    found: set = set()
    queue = [term]
    while queue and len(found) < budget:
        t = queue.pop(0)
        if id(t) in found:
            continue
        found.add(id(t))
        if t.kind == "join":
            queue.extend(t.children)
        elif t.kind == "ite":
            a, b = (_parts(c, budget // 4) for c in t.children)
            found |= a & b
    return found


def _instantiate(formula, conds):
    """A formula of `_boolean_function` over placeholders (indices), with the conditions."""
    if isinstance(formula, int) and not isinstance(formula, bool):
        return conds[formula]
    op, *args = formula
    parts = [_instantiate(a, conds) for a in args]
    return {
        "not": lambda: fast.not_(parts[0]),
        "and": lambda: fast.and_(*parts),
        "or": lambda: fast.or_(*parts),
    }[op]()


def _boolean_function(rows: dict, conds: list):
    """A formula over `conds` true exactly on the rows (assignments) mapped to True, as
    nested tuples ("and"/"or"/"not", ...) over the conds; Python True/False when constant.
    Shannon expansion with the obvious simplifications."""
    values = set(rows.values())
    if values == {True}:
        return True
    if values == {False}:
        return False
    first = conds[0]
    on = _boolean_function({b[1:]: v for b, v in rows.items() if b[0]}, conds[1:])
    off = _boolean_function({b[1:]: v for b, v in rows.items() if not b[0]}, conds[1:])
    negated = ("not", first)
    if on is True and off is False:
        return first
    if on is False and off is True:
        return negated
    if off is False:
        return first if on is True else ("and", first, on)
    if on is False:
        return ("and", negated, off)
    if on is True:
        return ("or", first, off)
    if off is True:
        return ("or", negated, on)
    return ("or", ("and", first, on), ("and", negated, off))


# The root against the spec --------------------------------------------------------------


@dataclass
class Mismatch:
    """A leaf whose condition at the root is not the spec's."""

    label: object
    got: object  # its condition in the unit
    want: object  # the spec's
    model: object = None  # a model of `got != want` (flags), when the solver gave one


def root_conditions(root, count: int, flags: list) -> list:
    """(label, the unit's condition, the spec's) for every leaf that reaches the root or must."""
    conds = inclusion(root) if root is not EMPTY else {}
    false, true = z3.BoolVal(False), z3.BoolVal(True)
    rows = [(SEED_ATOM, conds.get(SEED_ATOM, false), true)]
    rows += [(element_atom(i), conds.get(element_atom(i), false), flags[i]) for i in range(count)]
    expected = {SEED_ATOM} | {element_atom(i) for i in range(count)}
    rows += [(label, cond, false) for label, cond in conds.items() if label not in expected]
    return rows


def compare_root(rows, timeout_ms: int):
    """(verdict, detail, Mismatch or None): PROVED when every condition is the spec's."""
    residue = [row for row in rows if not fast.same(row[1], row[2])]
    for k in range(0, len(residue), CHUNK):
        chunk = residue[k : k + CHUNK]
        answer = prove([], z3.And(*[got == want for _, got, want in chunk]), timeout_ms)
        if answer.verdict == Verdict.COUNTEREXAMPLE:
            for label, got, want in chunk:
                if not z3.is_true(answer.model.eval(got == want, model_completion=True)):
                    return Verdict.COUNTEREXAMPLE, "", Mismatch(label, got, want, answer.model)
        if answer.verdict != Verdict.PROVED:
            return answer.verdict, f"comparing the inclusion conditions: {answer.detail}", None
    return (
        Verdict.PROVED,
        f"{len(rows)} inclusion conditions, {len(rows) - len(residue)} identical to the spec's as terms",
        None,
    )


def compare_bounds(lows, highs, timeout_ms: int):
    """(verdict, detail, the leaves where a bound differs: Mismatches) for a result known only between two guarded joins: PROVED when the
    lower one joins every leaf the spec's does (where the spec's holds, so does its) and the
    upper one none other (a constant never); UNKNOWN otherwise (the bounds may be loose)."""
    goals = [(row, z3.Implies(row[2], row[1])) for row in lows if not fast.same(row[1], row[2])]
    goals += [(row, z3.Implies(row[1], row[2])) for row in highs if not fast.same(row[1], row[2])]
    for k in range(0, len(goals), CHUNK):
        chunk = goals[k : k + CHUNK]
        answer = prove([], z3.And(*[goal for _, goal in chunk]), timeout_ms)
        if answer.verdict != Verdict.PROVED:
            suspects = []
            if answer.verdict == Verdict.COUNTEREXAMPLE:
                suspects = [
                    Mismatch(label, got, want, answer.model)
                    for (label, got, want), goal in chunk
                    if not z3.is_true(answer.model.eval(goal, model_completion=True))
                ]
            why = "a leaf's condition differs" if suspects else f"{answer.verdict.value}: {answer.detail}"
            return (
                Verdict.UNKNOWN,
                f"the result lies between two guarded maxima that are not shown to be the spec's ({why})",
                suspects,
            )
    return (
        Verdict.PROVED,
        f"the result between two guarded maxima, each shown the spec's ({len(lows) + len(highs)} inclusion conditions)",
        [],
    )


def _variables(formula) -> dict:
    """The Boolean variables of a formula, by name."""
    found, seen, stack = {}, set(), [formula]
    while stack:
        t = stack.pop()
        if t.get_id() in seen:
            continue
        seen.add(t.get_id())
        if z3.is_const(t) and t.decl().kind() == z3.Z3_OP_UNINTERPRETED:
            found[str(t)] = t
        else:
            stack.extend(t.children())
    return found


def mismatch_active_sets(m: Mismatch, flags: list, count: int):
    """Sets of active elements that may show the leaf's wrong condition, fewest and lowest
    first: the obvious candidates (each is tried concretely), then the solver's model of the
    difference made smaller one flag at a time (checked on the formula)."""
    candidates = [set()]
    if isinstance(m.label, tuple) and m.label[0] == "vs2":
        i = m.label[1]
        candidates += [{i}, {0, i} if i else {0, 1}]
    candidates += [{0}, {0, 1}, {count - 1}]
    tried = []
    for active in candidates:
        if active not in tried and all(0 <= i < count for i in active):
            tried.append(active)
            yield active
    if m.model is None:
        return
    differ = z3.Xor(m.got, m.want)
    variables = _variables(differ)
    name_to_index = {str(f): i for i, f in enumerate(flags)}
    active = {
        name_to_index[name]
        for name, v in variables.items()
        if name in name_to_index and z3.is_true(m.model.eval(v, model_completion=True))
    }
    if not _holds(differ, variables, active):
        return
    for i in sorted(active, reverse=True)[:16]:
        if _holds(differ, variables, active - {i}):
            active = active - {i}
    if active not in tried:
        yield active


def _holds(formula, variables: dict, active: set) -> bool:
    """The formula's value when exactly the flags of `active` are true."""
    names = {f"active_{i}" for i in active}
    pairs = [(v, z3.BoolVal(name in names)) for name, v in variables.items()]
    return z3.is_true(z3.simplify(z3.substitute(formula, *pairs) if pairs else formula))


# Concrete cases ---------------------------------------------------------------------------


def case_for_mismatch(unit, cfg: Config, m: Mismatch, flags: list):
    """A confirmed concrete case showing the leaf's wrong condition, or None."""
    sew, count = cfg.sew, cfg.vlmax
    ops = ConcreteElements(sew)
    smin, top = 1 << (sew - 1), (1 << (sew - 1)) - 1
    for active in mismatch_active_sets(m, flags, count):
        for low in (0, smin, 1):
            seed, elements = low, [smin] * count
            for i in active:
                elements[i] = low
            label = m.label
            if label == SEED_ATOM:
                seed = top
            elif label[0] == "vs2":
                elements[label[1]] = top
            else:  # a constant the unit joins in: everything else below it
                seed = smin
                for i in active:
                    elements[i] = smin
            if not differs(unit, ops, seed, elements, active, count):
                continue
            pre, insn = make_case(cfg, seed, elements, active)
            if confirmed(unit, pre, insn):
                return pre, insn
    return None


# The instruction around the unit ---------------------------------------------------------

_INSTRUCTION: dict = {}  # Config -> (verdict, detail, solvers): the same fact for every unit


def instruction_pieces(cfg: Config, timeout_ms: int):
    """Pieces 1 and 2 of the compositional method and the algebra lemmas, for both tail
    policies: (verdict, detail, solvers). They do not depend on the unit: proved once."""
    if cfg in _INSTRUCTION:
        return _INSTRUCTION[cfg]
    from vredmax.proofs.engine import compositional as comp
    from vredmax.proofs.engine.setting import Setting

    s = Setting(cfg, "_cut")
    parts = [
        part
        for tail in TAIL_POLICIES
        for part in (comp.choice_part(s, tail), comp.instruction_part(s, tail), comp.operands_part(s, tail))
    ]
    parts += [comp.lemma_part(cfg.sew, name) for name in comp.ALGEBRA]
    solvers = set()
    for part in parts:
        answer = comp.check(part.build(), timeout_ms)
        solvers.add(answer.solver)
        if answer.verdict != Verdict.PROVED:
            outcome = (
                answer.verdict if answer.verdict != Verdict.COUNTEREXAMPLE else Verdict.UNKNOWN,
                f"{part.text}: {answer.verdict.value} {answer.detail}".strip(),
                solvers,
            )
            return outcome  # not kept: a timeout may go through another time
    _INSTRUCTION[cfg] = (Verdict.PROVED, f"{len(parts)} instruction pieces and lemmas", solvers)
    return _INSTRUCTION[cfg]


# The entry points --------------------------------------------------------------------------


def trace_unit(unit, cfg: Config):
    """(tracer, root term) of the unit on the tracing backend; raises UnitError."""
    tracer = Tracer(cfg.sew, cfg.vlmax)
    try:
        result = unit(TraceElements(tracer), tracer.seed, list(tracer.elements), list(tracer.flags))
    except SymbolicUse:
        raise
    except RecursionError:
        raise UnitError("the unit recursed too deeply") from None
    except Exception as error:
        raise UnitError(f"the unit raised {type(error).__name__}: {error}{_user_frame(error)}") from None
    if not isinstance(result, Term) or result.width != cfg.sew:
        what = (
            f"a {result.width}-bit value"
            if isinstance(result, Term) and result.width
            else "a condition"
            if isinstance(result, Term)
            else f"{type(result).__name__} {result!r}"[:80]
        )
        raise UnitError(
            f"the unit must return a {cfg.sew}-bit element value (SEW={cfg.sew}), it returned {what}"
        )
    return tracer, result


class UnitError(Exception):
    pass


def _user_frame(error) -> str:
    frames = [
        f
        for f in traceback.extract_tb(error.__traceback__)
        if "/proofs/" not in f.filename and "/vredmax/" not in f.filename
    ]
    return f" (at {frames[-1].filename}:{frames[-1].lineno})" if frames else ""


def _solver_text() -> str:
    return f"z3 {z3.get_version_string()}"


def prove_unit_at_scale(unit, cfg: Config, timeout_ms: int) -> ScaleResult:
    """Prove the reduction unit, in the project's instruction, at this configuration (both
    tail policies), or refute it with a confirmed concrete case. Cost linear in VLMAX."""
    start = time.perf_counter()

    def result(verdict, detail, case=None, solver=None, witness=""):
        return ScaleResult(
            verdict, detail, METHOD, solver or _solver_text(), time.perf_counter() - start, case, witness
        )

    deadline = start + max(5.0, timeout_ms / 1000)
    try:
        tracer, root = trace_unit(unit, cfg)
    except SymbolicUse as error:
        return result(Verdict.ERROR, str(error))
    except UnitError as error:
        return result(Verdict.ERROR, str(error))
    from vredmax.proofs.engine.compositional import active_flags

    flags = active_flags(cfg.vlmax)
    denoter = Denoter(cfg.sew, flags, timeout_ms)
    analysis = denoter.run(root)
    shapes = len(analysis.shapes)
    if analysis.failure is not None:
        node, why, witness = analysis.failure.node, f": {analysis.failure.reason}", ""
        if analysis.refuted is not None:  # the first node that is no max, rather than its parents
            node, cone, values = analysis.refuted
            why, witness = "", _witness_text(cfg.sew, cone, values)
        span = element_span(node)
        hints = set(span)
        for x in node.args:
            hints |= set(element_span(x))
        case = search_case(unit, cfg, hints, deadline)
        where = f"ops.{node.op} at {node.where()} (over vs2[{span[0]}..{span[1]}] and what they depend on)"
        if case is not None:
            return result(
                Verdict.COUNTEREXAMPLE,
                f"{where} is not a signed max of its inputs{why}; a concrete case confirms the unit is wrong",
                case,
                witness=witness,
            )
        return result(
            Verdict.UNKNOWN,
            f"{where} is not a signed max of its inputs{why}; no concrete "
            "counterexample was found, so the unit may still be right",
            witness=witness,
        )
    rows = root_conditions(analysis.root, cfg.vlmax, flags)
    if analysis.upper is not None:
        verdict, detail, suspects = compare_bounds(
            rows, root_conditions(analysis.upper, cfg.vlmax, flags), timeout_ms
        )
        if verdict == Verdict.UNKNOWN:
            # the leaves where a bound differs from the spec's, each made the largest value
            case = None
            for suspect in suspects[:4]:
                case = case or case_for_mismatch(unit, cfg, suspect, flags)
            case = case or search_case(unit, cfg, set(), deadline)
            if case is not None:
                return result(
                    Verdict.COUNTEREXAMPLE, f"{detail}; a concrete case confirms the unit is wrong", case
                )
        if verdict != Verdict.PROVED:
            witness = ""
            if analysis.selected is not None:  # the node that made the root a selection, and why
                node, cone, values = analysis.selected
                witness = _witness_text(cfg.sew, cone, values)
                detail += (
                    f"; ops.{node.op} at {node.where()} is not a signed max of its inputs (it selects one)"
                )
            return result(verdict, detail, witness=witness)
        mismatch = None
    else:
        verdict, detail, mismatch = compare_root(rows, timeout_ms)
    if verdict == Verdict.COUNTEREXAMPLE:
        case = case_for_mismatch(unit, cfg, mismatch, flags) or search_case(unit, cfg, set(), deadline)
        what = _label_text(mismatch.label)
        if case is not None:
            return result(
                Verdict.COUNTEREXAMPLE,
                f"{what} reaches the result under the wrong condition "
                f"(the unit: {_short(mismatch.got)}; the spec: {_short(mismatch.want)})",
                case,
            )
        return result(
            Verdict.UNKNOWN,
            f"{what} reaches the result under a condition other than the spec's, "
            "but no concrete case confirmed it (a checker fault?)",
        )
    if verdict != Verdict.PROVED:
        return result(verdict, detail)
    piece, piece_detail, solvers = instruction_pieces(cfg, timeout_ms)
    solver = ", ".join(sorted({_solver_text()} | {s if s != "z3" else _solver_text() for s in solvers}))
    if piece != Verdict.PROVED:
        return result(piece, piece_detail, solver=solver)
    return result(
        Verdict.PROVED,
        f"unit: {analysis.nodes} nodes, {analysis.cone_nodes} checked locally "
        f"against {shapes} cone shape{'s' * (shapes != 1)} (each proved once per SEW); {detail}; "
        f"{piece_detail}; both tail policies",
        solver=solver,
    )


def _witness_text(sew: int, cone: Cone, witness) -> str:
    """The local case: the cut values and conditions, and what the node gives for them."""
    xvals, bits = witness
    ops = ConcreteElements(sew)
    names = [_node_text(x) for x in cone.xs]
    got = shape_value(ops, cone.key, xvals, bits)
    inputs = ", ".join(f"{n} = {ops.to_signed(v)}" for n, v in zip(names, xvals))
    conds = ", ".join(f"{_node_text(b)} = {bool(v)}" for b, v in zip(cone.bs, bits))
    return (
        f"with {inputs}{'; ' + conds if conds else ''} it gives {ops.to_signed(got)}, "
        "which is no signed max of a choice of them"
    )


def _node_text(node: Term) -> str:
    if node.op == "seed":
        return "the seed"
    if node.op == "elem":
        return f"vs2[{node.param}]"
    if node.op == "flag":
        return f"active[{node.param}]"
    return f"(ops.{node.op} at {node.where()})"


def _label_text(label) -> str:
    if label == SEED_ATOM:
        return "the seed vs1[0]"
    if label[0] == "vs2":
        return f"vs2[{label[1]}]"
    return f"the constant {label[1]:#x}"


def _short(term) -> str:
    text = str(term).replace("\n", " ")
    return text if len(text) <= 80 else text[:77] + "..."


def prove_step_at_scale(step_fn, cfg: Config, tail: str, timeout_ms: int) -> ScaleResult:
    """A user's whole instruction at one configuration and tail policy, cut at its reduction
    (proofs/python/cutstep.py); UNKNOWN with the reason when its structure does not allow that."""
    from vredmax.proofs.python.cutstep import prove_step_at_scale as prove_step

    return prove_step(step_fn, cfg, tail, timeout_ms)
