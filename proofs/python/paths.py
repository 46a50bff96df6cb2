"""The contexts of a symbolic run of the user's code, and the exploration of its paths.

A term cannot answer a Python truth test, int() or an index: the run's context does. The
rewritten code (rewrite.py, branches.py) merges the two ways of most branches itself; what is
left reaches `ProofContext.decide` / `concretize`, which *explore*: the user's function is run
again for each way (CrossHair's method), each run following a plan of earlier choices and
taking, at each new question, a way the solver shows possible under the path's condition (and
the domain's assumptions), the other ways queued as new plans. A question inside a merged
branch constrains only where the branch's guard holds; one that the path's condition and the
outer guards already decide is no choice (a loop's "is this index in range?" is solved once,
not per round). Plans are run earliest choice first, so code whose paths double at every
round reaches MAX_PATHS within a few runs. `explore` returns every path's condition and
result; the caller merges the results with if-then-else on the conditions
(they cover every input the assumptions allow). An int() of a value with more than
MAX_VALUES possible values, or more than MAX_PATHS paths, is refused (one line naming the
user's file and line).

`CutContext` is the run of a whole instruction cut at its reduction (proofs/python/cutstep.py):
machine values are Z3 terms, the reduction's are traced; where they meet, an element-sized Z3
value becomes a leaf of the trace, and a traced value that grows register-wide is cut (a
fresh variable r, cutstep's cut point).
"""

from __future__ import annotations

import z3

from vredmax.proofs.python import values as V
from vredmax.proofs.python.conditionvalues import as_choice
from vredmax.proofs.python.facade import Z3
from vredmax.proofs.python.sharedterms import SharedTerms
from vredmax.proofs.python.terms import TraceTerms, Z3Terms, is_numeral, kind
from vredmax.proofs.python.trace import evaluate
from vredmax.spec.bv import Z3Elements

V.internal(__file__)

MAX_PATHS = 64  # paths of one run of the user's function
MAX_VALUES = 32  # values an int() of a symbolic value may take (a register number: 32)
MAX_ROUNDS = 4096  # rounds of a while loop whose test is symbolic
FEASIBILITY_MS = 10_000
IMPLIES_MS = 2_000


def is_z3(bk) -> bool:
    return isinstance(bk, Z3Terms)


class Explored(Exception):
    """A question the exploration cannot answer (too many paths or values): a refusal."""


class ProofContext(V.Context):
    """A symbolic run that explores (module docstring). `assumptions`: the domain's Z3
    conditions (a whole instruction's configuration), used for feasibility."""

    def __init__(self, user_files=(), vlen: int | None = None, assumptions=(), explore: bool = True):
        super().__init__(user_files)
        self.vlen = vlen
        self.assumptions = list(assumptions)
        self.exploring = explore
        self.split_sites: set = set()
        self.split_reasons: dict = {}  # site: why its branch could not be merged
        self.plans: list = [[]]
        self._z3_cache: dict = {}
        self._z3_memo: dict = {}  # id(backend) -> (backend, evaluate's memo of its nodes' Z3 values)
        self._answers: dict = {}
        self._implications: dict = {}
        self.paths_run = 0
        self.start([])

    # one path -----------------------------------------------------------------------------
    def start(self, plan):
        self.plan, self.position = list(plan), 0
        self.taken: list = []  # (plan entry, SymBool condition) of this path
        self.new_plans: list = []
        self.refusals = []
        self.guards, self.guard_sites = [], []
        self.occurrences: dict = {}
        self.rounds: dict = {}
        self.decided: dict = {}  # z3 id of a decided condition (under its guard): the choice

    def path_condition(self):
        """This path's condition as a SymBool (or True)."""
        result = True
        for _, cond in self.taken:
            result = cond if result is True else V.both(self, result, cond)
        return result

    # guards of merged branches ------------------------------------------------------------
    def push_guard(self, cond, site):
        self.guards.append(cond)
        self.guard_sites.append(site)

    def pop_guard(self):
        self.guards.pop()
        self.guard_sites.pop()

    def guard(self):
        result = True
        for g in self.guards:
            result = g if result is True else V.both(self, result, g)
        return result

    def guard_site(self):
        """The sites to split for a change the runtime cannot guard (an Escalate's): every
        merged branch around it, innermost first (the change needs all of them explored;
        asking for one a restart, each after running the code up to the change, cost a
        step with an early return and a list.append a whole run more), up to one without a
        site (a comprehension's element: no site to explore, the refusal is the answer)."""
        sites = []
        for site in reversed(self.guard_sites):
            sites.append(site)
            if site is None:
                break
        return sites or None

    def feasible_guards(self) -> bool:
        if not self.guards:
            return True
        return self._satisfiable([self.z3_bool(self.guard())])

    # sites that are explored rather than merged ---------------------------------------------
    def is_split(self, site) -> bool:
        if site is None:
            return False
        count = self.occurrences.get(site, 0)
        self.occurrences[site] = count + 1
        return (site, count) in self.split_sites or (site, None) in self.split_sites

    def split(self, sites, why=""):
        for site in sites:
            if site is not None:
                self.split_sites.add((site, None))
                self.split_reasons.setdefault(site, why)

    def split_reason(self, site) -> str:
        return self.split_reasons.get(site, "")

    def count_round(self, site):
        self.rounds[site] = self.rounds.get(site, 0) + 1
        if self.rounds[site] > MAX_ROUNDS:
            self.refuse(
                f"a while loop whose test stays symbolic for {MAX_ROUNDS} rounds",
                "bound the loop with a concrete count (for i in range(N))",
            )

    # the questions ---------------------------------------------------------------------------
    def decide(self, cond, what):
        if not self.exploring or self.refusals:  # a path already refused: no more solving
            V.Context.decide(self, cond, what)
        literal = lambda choice: cond if choice else V.make_bool(self, cond.bk, cond.bk.not_(cond.t))
        # the same question under the same guard, already answered on this path (a loop's
        # bound check per round): the path's condition fixes the answer, no solving, no new plan
        term = self.z3_bool(self._under_guard(cond))
        key = term.get_id()
        if key in self.decided:
            return self.decided[key][0]
        implied = self._implied(cond)
        if implied is not None:  # one way is impossible: no choice, nothing to record
            self.decided[key] = (implied, term)  # the term kept: its id is its own while it lives
            return implied
        if self.position < len(self.plan):
            choice = self.plan[self.position]
        else:
            options = [c for c in (True, False) if self._possible(literal(c))]
            choice = options[0] if options else True
            if len(options) == 2:
                self._queue(self.plan[: self.position] + [False], what)
            self.plan.append(choice)
        self.position += 1
        self.taken.append((choice, self._under_guard(literal(choice))))
        self.decided[key] = (choice, term)
        return choice

    def _implied(self, cond):
        """True or False when the path's condition and the outer part of the guard (some
        prefix of the merged branches being run) leave `cond` one way only, else None. The
        inner guards change at every round of a loop (`not brk` of a break), the outer ones
        (a step's `not traps`) do not: the answers for a prefix are kept for the whole run,
        so a question a loop asks at every round (is this index in range?) is solved once."""
        taken = tuple(self.z3_bool(c).get_id() for _, c in self.taken)
        prefix = []
        for depth in range(len(self.guards) + 1):
            if depth:
                prefix.append(self.z3_bool(self.guards[depth - 1]))
            key = (self.z3_bool(cond).get_id(), taken, tuple(g.get_id() for g in prefix))
            found, _ = self._implications.get(key, ("?", None))
            if found == "?":
                conditions = [self.z3_bool(c) for _, c in self.taken] + prefix
                found = (
                    False
                    if not self._satisfiable(conditions + [self.z3_bool(cond)])
                    else True
                    if not self._satisfiable(conditions + [z3.Not(self.z3_bool(cond))])
                    else None
                )
                # the terms kept with the answer: an id is a term's only while the term lives
                self._implications[key] = (found, (self.z3_bool(cond), conditions))
            if found is not None:
                return found
        return None

    def implies(self, a, b) -> bool:
        """Does `a` imply `b` for every input (no assumption used: a fact of the terms)?
        Kept for the run (a loop asks it at each round, of terms one round apart)."""
        key = (self.z3_bool(a).get_id(), self.z3_bool(b).get_id())
        found, _ = self._implications.get(key, (None, None))
        if found is None:
            found = _bound_implies(self._bound_of(self.z3_bool(a)), self._bound_of(self.z3_bool(b)))
        if found is None:
            # first with the deep subterms both sides share (a loop's running value) made
            # variables (sharedterms.py): small where the full query grows with the loop
            shared = self.__dict__.setdefault("_shared_terms", SharedTerms())
            general = shared.generalised(self.z3_bool(a), self.z3_bool(b))
            found = (general is not None and self._valid(general)) or self._valid(
                z3.Implies(self.z3_bool(a), self.z3_bool(b))
            )
        self._implications[key] = (found, (self.z3_bool(a), self.z3_bool(b)))  # the terms kept alive
        return found

    def _valid(self, claim) -> bool:
        """Does `claim` hold for every input (proved within IMPLIES_MS; unknown: not shown)?"""
        solver = self.__dict__.get("_plain_solver")
        if solver is None:
            solver = self._plain_solver = z3.SolverFor("QF_BV")
            solver.set("timeout", IMPLIES_MS)
        solver.push()
        try:
            solver.add(z3.Not(claim))
            return solver.check() == z3.unsat
        finally:
            solver.pop()

    def _bound_of(self, term):
        """_bound(term), kept for the run: a loop's round guard is asked about again and again."""
        bounds = self.__dict__.setdefault("_bounds", {})
        found = bounds.get(term.get_id())
        if found is None:
            found = bounds[term.get_id()] = (term, _bound(term))  # the term kept: its id stays its own
        return found[1]

    def concretize(self, value, what):
        if not self.exploring or self.refusals or value.hi - value.lo >= 1 << 16:
            V.Context.concretize(self, value, what)
        entry = self.plan[self.position] if self.position < len(self.plan) else ("not", ())
        if entry[0] == "not":
            excluded = entry[1]
            # at its first visit, count the values (up to the limit) before any path runs one:
            # a value with too many would otherwise be refused only after MAX_VALUES runs
            values = self._model_values(value, excluded, 1 if excluded else MAX_VALUES + 1)
            if len(values) > MAX_VALUES:
                self.refuse(
                    f"{what} of a symbolic value that may take more than {MAX_VALUES} values",
                    V.advice_for(what, V.where()),
                )
            found = values[0] if values else None
            if found is None:
                found = value.lo if value.lo not in excluded else None
            if found is None:
                self.refuse(
                    f"{what} of a symbolic value on a path the solver cannot continue",
                    V.advice_for(what, V.where()),
                )
            if len(excluded) + 1 > MAX_VALUES:
                self.refuse(
                    f"{what} of a symbolic value that may take more than {MAX_VALUES} values",
                    V.advice_for(what, V.where()),
                )
            self._queue(self.plan[: self.position] + [("not", tuple(excluded) + (found,))], what)
            entry = ("value", found)
            if self.position < len(self.plan):
                self.plan[self.position] = entry
            else:
                self.plan.append(entry)
        self.position += 1
        equal = value == entry[1]
        if type(equal) is V.SymBool:
            self.taken.append((entry, self._under_guard(equal)))
        return entry[1]

    def _queue(self, plan, what):
        if self.paths_run + len(self.new_plans) + len(self.plans) >= MAX_PATHS:
            mutation = "change its arguments" in what or "creates an entry" in what
            self.refuse(
                f"{what}: the code takes more than {MAX_PATHS} paths on symbolic values",
                "build the list with a filtered comprehension ([x for x, a in zip(xs, mask) if a]: "
                "max/min/sorted/sum/len of it are proved) or keep every element and choose with a "
                "condition (x if a else smallest), not list.append (or a new entry) under an if on a "
                "symbolic value"
                if mutation
                else "choose between values with ops.ite / m.ite or a Python if on them (merged), not by "
                "branching on register numbers and fields at every step",
            )
        self.new_plans.append(plan)

    def _under_guard(self, literal):
        guard = self.guard()
        if guard is True:
            return literal
        bk, guard, literal = V._place(self, 1, guard, literal)  # the two may be of two backends
        return V.make_bool(self, bk, bk.or_(bk.not_(guard.t), literal.t))

    def possible(self, cond) -> bool:
        """May `cond` hold on this path (within the merged branches being run)?"""
        return self._possible(cond)

    def _possible(self, literal) -> bool:
        conditions = [self.z3_bool(c) for _, c in self.taken] + [self.z3_bool(self._under_guard(literal))]
        guard = self.guard()
        if guard is not True:
            conditions.append(self.z3_bool(guard))
        key = tuple(c.get_id() for c in conditions)
        found, _ = self._answers.get(key, (None, None))  # the same question on the same path: a loop's rounds
        if found is None:
            found = self._satisfiable(conditions)
            self._answers[key] = (found, conditions)  # the terms kept alive: their ids stay theirs
        return found

    def _satisfiable(self, conditions) -> bool:
        # one solver for the run, the domain's assumptions asserted once (a loop asks a
        # question per round: re-asserting them each time was most of the cost)
        solver = self.__dict__.get("_solver")
        if solver is None:
            solver = self._solver = z3.Solver()
            solver.set("timeout", FEASIBILITY_MS)
            solver.add(*self.assumptions)
        solver.push()
        try:
            solver.add(*conditions)
            return solver.check() != z3.unsat  # unknown: possible (explored, never dropped)
        finally:
            solver.pop()

    def _model_values(self, value, excluded, limit: int) -> list:
        """Up to `limit` values the value may take on this path, other than `excluded` (fewer
        when the solver gives up: those found so far)."""
        solver = z3.Solver()
        solver.set("timeout", FEASIBILITY_MS)
        term = self.z3_int(value)
        solver.add(*self.assumptions, *[self.z3_bool(c) for _, c in self.taken])
        guard = self.guard()
        if guard is not True:
            solver.add(self.z3_bool(guard))
        solver.add(*[term != v for v in excluded])
        found = []
        while len(found) < limit and solver.check() == z3.sat:
            raw = solver.model().eval(term, model_completion=True).as_long()
            solver.add(term != raw)
            found.append(raw - (1 << value.w) if value.s and raw >> (value.w - 1) & 1 else raw)
        return found

    # terms as Z3 --------------------------------------------------------------------------------
    def z3_bool(self, cond):
        if cond is True or cond is False:
            return z3.BoolVal(cond)
        return cond.t if is_z3(cond.bk) else self._traced(cond.t, cond.bk)

    def z3_int(self, value):
        return value.t if is_z3(value.bk) else self._traced(value.t, value.bk)

    def _traced(self, term, bk: TraceTerms):
        found = self._z3_cache.get(id(term))
        if found is None:
            memo = self._z3_memo.setdefault(id(bk), (bk, {}))[1]
            found = evaluate(Z3Elements(bk.sew), term, lambda node: self._leaf(node, bk), memo)
            self._z3_cache[id(term)] = found
        return found

    def _leaf(self, node, bk):
        if node.op == "seed":
            return z3.BitVec("seed", node.width)
        if node.op == "elem":
            return z3.BitVec(f"elem_{node.param}", node.width)
        if node.op == "flag":
            conditions = getattr(bk.tracer, "conditions", None)
            return conditions[node.param] if conditions is not None else z3.Bool(f"active_{node.param}")
        if node.op == "input":
            return bk.tracer.inputs[node.param]
        return None

    def to_z3(self, cond):
        return self.z3_bool(cond)

    def to_z3_int(self, value):
        if is_z3(value.bk):
            return value
        self.refuse("a traced value used as a machine value", "keep the reduction's values inside it")


_BOUNDS = {
    z3.Z3_OP_ULEQ: ("le", 0),
    z3.Z3_OP_ULT: ("le", -1),
    z3.Z3_OP_UGEQ: ("ge", 0),
    z3.Z3_OP_UGT: ("ge", 1),
}


def _bound(term):
    """(x, side, k) when `term` bounds x by a numeral k (x <= k: "le", x >= k: "ge", unsigned), else None."""
    op = kind(term)
    if op == z3.Z3_OP_NOT:
        inner = _bound(term.arg(0))
        if inner is None:
            return None
        x, side, k = inner
        return (x, "ge", k + 1) if side == "le" else (x, "le", k - 1)
    if op not in _BOUNDS:
        return None
    side, shift = _BOUNDS[op]
    left, right = term.arg(0), term.arg(1)
    if is_numeral(right) and not is_numeral(left):
        return left, side, right.as_long() + shift
    if is_numeral(left) and not is_numeral(right):  # k <= x is x >= k
        flipped = "ge" if side == "le" else "le"
        return right, flipped, left.as_long() - shift
    return None


def _bound_implies(x, y):
    """True when bounds x and y (of _bound) bound one term from one side and x is the tighter
    one (vl <= 3 implies vl <= 4); None when the shapes say nothing (the solver is asked)."""
    if x is None or y is None or x[1] != y[1] or not x[0].eq(y[0]):
        return None
    return True if (x[2] <= y[2] if x[1] == "le" else x[2] >= y[2]) else None


def explore(cx: ProofContext, run_once):
    """Every path of `run_once()` (the user's function on fresh arguments, in `cx`):
    [(path condition, ("value", result) or ("error", exception))], up to the first path that
    fails: its error is the run's (the callers raise it), the paths left could not change that."""
    from vredmax.proofs.python.branches import Escalate

    paths = []
    cx.plans = [[]]
    while cx.plans:
        # the earliest choice flipped first: code whose paths double at every round of a loop
        # (an append under an if) reaches MAX_PATHS in a few runs, not after MAX_PATHS runs
        plan = cx.plans.pop(0)
        restarts = 0
        while True:
            cx.start(plan)
            try:
                outcome = ("value", run_once())
            except Escalate as error:
                restarts += 1
                sites = [s for s in error.sites if s is not None]
                if restarts > 64 or all((s, None) in cx.split_sites for s in sites):
                    place = f"{sites[0][0]}:{sites[0][2]}: " if sites else ""
                    outcome = (
                        "error",
                        V.Refusal(f"{place}{error.why}; the branch could be neither merged nor explored"),
                    )
                else:
                    cx.split(error.sites, error.why)
                    continue
            except Exception as error:  # the user's code failed on this path
                outcome = ("error", error)
            break
        cx.paths_run += 1
        paths.append((cx.path_condition(), outcome))
        if outcome[0] == "error":
            break
        cx.plans.extend(cx.new_plans)
    return paths


class CutContext(ProofContext):
    """A whole instruction run on the cut machine of proofs/python/cutstep.py (module docstring)."""

    def __init__(self, machine, user_files=(), vlen: int | None = None, assumptions=()):
        super().__init__(user_files, vlen, assumptions)
        self.machine = machine
        self.sew = machine.tracer.sew
        self._data: dict = {}

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
        tracer = self.machine.tracer
        if isinstance(x, V.SymBool):
            return V.make_bool(self, bk, tracer.leaf_for(x.t))
        # an int made of conditions alone (an active flag as 0/1 or 0/-1, a blend's neutral
        # part) is their choice between constants: the conditions stay structural
        node = as_choice(tracer, x.t)
        if node is None:
            node = tracer.leaf_for(x.t)
        return V.SymInt(self, bk, node, x.w, x.s, x.lo, x.hi)

    def to_z3_int(self, value: V.SymInt):
        """A traced value reaching a machine value: the cut variable standing for it (an
        element value is cut at SEW bits, the reduction's result)."""
        if is_z3(value.bk):
            return value
        width = self.sew if (value.lo >= 0 and value.hi < 1 << self.sew) else value.w
        variable = self.machine._cut(V.fit(value.bk, value, width))
        return V.SymInt(self, Z3, variable, width, value.s and width == value.w, value.lo, value.hi)

    def to_z3(self, cond):
        if cond is True or cond is False or is_z3(cond.bk):
            return self.z3_bool(cond)
        return self.machine._cut(cond.t)  # refused there: a traced condition is no reduction result

    def element_data(self, values, compute: bool) -> bool:
        """Is one of the machine values an element read from the register file's data (the
        seed, an element; not a mask bit, vl or a register number)? Combining such values
        (`compute`: a comparison, a choice, a sum) is the reduction: it is traced; so is taking
        a field of one (its sign bit) but not of a wider value (an element out of a register)."""
        top = self.trace_limit if compute else self.sew
        for v in values:
            if isinstance(v, V.SymInt) and is_z3(v.bk) and 2 <= v.w <= top and self._from_registers(v.t):
                return True
        return False

    def _from_registers(self, term, depth=6) -> bool:
        key = term.get_id()
        found = self._data.get(key)
        if found is None:
            op = kind(term)
            if op == z3.Z3_OP_SELECT:
                # a register at a register number: vs1, vs2 + k; not v0 (the mask register at
                # the constant 0, whose top bits shifted down look as narrow as an element)
                found = not is_numeral(term.arg(1))
            elif depth and op in (
                z3.Z3_OP_EXTRACT,
                z3.Z3_OP_ZERO_EXT,
                z3.Z3_OP_SIGN_EXT,
                z3.Z3_OP_BAND,
                z3.Z3_OP_BLSHR,
                z3.Z3_OP_ITE,
            ):
                found = any(
                    self._from_registers(a, depth - 1)
                    for a in term.children()
                    if not isinstance(a, z3.BoolRef)
                )
            else:
                found = False
            self._data[key] = found
        return found

    def place(self, width, values):
        """Where traced and machine values meet (or a traced one grows wider than an element
        could): a register-wide result is computed on the machine, the traced values cut; an
        element-wide one in the trace, the machine values its leaves."""
        if width > self.trace_limit:
            converted = [
                self.to_z3_int(v)
                if isinstance(v, V.SymInt)
                else V.make_bool(self, Z3, self.to_z3(v))
                if isinstance(v, V.SymBool)
                else v
                for v in values
            ]
            return (Z3, *converted)
        bk = self._trace()
        return (bk, *[self.lift(v, bk) if isinstance(v, (V.SymInt, V.SymBool)) else v for v in values])
