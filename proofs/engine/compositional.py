"""The compositional method: proofs whose cost grows linearly in VLMAX.

A monolithic query hands the solver the whole instruction with every element's comparison
in it, and dies past 16 to 32 elements. Here the instruction is cut in three, each piece
small or a batch of independent per-element facts:

1. the instruction around the reduction unit, with the unit's output replaced by a fresh
   variable r (`Setting.abstract_run`): traps, vl=0, tail, frame, vstart, VS and "vd[0] is
   r" — no element comparison in it, small at any VLEN;
2. the operand reads: what step hands the unit (seed, elements, active flags) is, term for
   term or by the solver, the spec's seed, elements and activity;
3. the unit itself, run on the free semilattice (proofs/engine/semilattice.py): for every input,
   the condition under which it reaches the result is exactly "active" (the seed: always).
Then lemmas proved once per SEW (proofs/engine/lemmas.py) say that signed max is a semilattice
join with identity smin, and that a join of a finite set satisfies the spec's result
characterisation. `soundness_argument()` writes down why the pieces add up to the claim.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, cast

import z3

from vredmax.impl import ALGORITHMS
from vredmax.proofs.engine import lemmas
from vredmax.proofs.engine.folding import Folding, term
from vredmax.proofs.engine.semilattice import NotExpressible, SemilatticeElements, atom, inclusion
from vredmax.proofs.engine.setting import Run, Setting, split_subject
from vredmax.proofs.engine.solvers import available
from vredmax.proofs.engine.verdict import (
    VACUOUS,
    Answer,
    Verdict,
    consult,
    gathering,
    judging,
    prove,
    satisfiable,
    shared_assumptions,
)
from vredmax.spec import relation as spec
from vredmax.spec import z3fast as fast
from vredmax.spec.bv import ReductionUnit
from vredmax.spec.config import Config

SEED_ATOM = "seed"
BATCH = 4096  # per-element facts per solver call
BIG_VLEN = 512  # from here on register-level queries about step go to bitwuzla (proofs/engine/solvers.py)


def element_atom(i: int) -> tuple[str, int]:
    return ("vs2", i)


@dataclass
class Query:
    """Prove `assumptions => goal` with one solver call (after the vacuity check)."""

    assumptions: list[z3.BoolRef]
    goal: z3.BoolRef
    solver: str = "z3"


@dataclass
class Batch:
    """Prove that each pair is equal (Booleans: equivalent) under the assumptions.

    Pairs whose two sides are the same term hold by reflexivity (Z3 terms are hash-consed);
    the others go to the solver, BATCH at a time. The assumptions are checked satisfiable.
    """

    assumptions: list[z3.BoolRef]
    pairs: list[tuple[Any, Any]]  # two terms of one sort
    problem: str = ""  # set when the pairs could not even be formed (e.g. a missing input)
    problem_verdict: Verdict = Verdict.ERROR


@dataclass
class Cases:
    """Prove `assumptions and when => goal` for each case. The assumptions as a whole are
    checked satisfiable; a case no pre-state can be in holds trivially."""

    assumptions: list[z3.BoolRef]
    cases: list[tuple[str, z3.BoolRef, z3.BoolRef]]  # (name, when, goal)
    solver: str = "z3"


@dataclass
class Witnessed:
    """The assumptions `core + rest` can hold. The solver finds a model of `core` and the
    `witness` conditions (which only narrow the search); `rest` (e.g. one condition per
    element) is evaluated in it, in time linear in its size, and if it is true there the
    model satisfies the whole. If not, Z3 is asked about `core + rest` (slow at large VLMAX:
    the witnesses are chosen so that this does not happen). `folded` counts further
    conditions that were decided true in every model of the witness as they were built
    (`feasible_part`)."""

    core: list[z3.BoolRef]
    rest: list[z3.BoolRef]
    witness: list[z3.BoolRef] = field(default_factory=list)
    folded: int = 0


@dataclass
class Generalized:
    """Prove `work`, whose goals are instances of `general`'s (the same assumptions, some
    subterms of the goals replaced by fresh variables, see `generalize`): if `general`
    holds, so does `work`. Only if it does not go through is `work()` built and asked.
    The assumptions are the same, so the vacuity check is too."""

    general: Query | Cases
    work: Callable[[], Query | Cases]


Work = Query | Batch | Cases | Witnessed | Generalized
# a list, or a function giving one (built only when the part is)
Given = Iterable[Any] | Callable[[], list[Any]]


def generalize(goal: z3.BoolRef, subterms: Iterable[z3.ExprRef]) -> z3.BoolRef:
    """`goal` with each subterm replaced by a fresh variable of its sort (before any
    simplification, which could take the subterm apart). Used for the agnostic tail of a
    post-state the spec allows (thousands of per-element conditions at VLEN=65536) where a
    goal does not depend on what it says, and for a loop's running value in check-impl's
    implications (proofs/python/sharedterms.py). The variables are named by position, not by
    a counter, so that a query reads the same in every process (its answer is kept under its
    text): a goal proved for every value of them is proved for the subterms, and no query
    mentions these names otherwise."""
    kept = [term for term in subterms if not z3.is_true(term)]
    pairs = [(term, z3.Const(f"vredmax_generalized_{k}", term.sort())) for k, term in enumerate(kept)]
    return z3.substitute(goal, *pairs) if pairs else goal


def generalized_first(
    build: Callable[[Callable[[z3.BoolRef], z3.BoolRef]], Query | Cases], subterms: Iterable[z3.BoolRef]
) -> Generalized:
    """`build(prepare)` makes the work, passing each goal through `prepare` before anything
    else: once generalizing the subterms, and (only if needed) once as it is."""
    return Generalized(build(lambda goal: generalize(goal, subterms)), lambda: build(lambda goal: goal))


@dataclass
class Part:
    """One fact an obligation's proof rests on. The same key is the same fact: proved once."""

    key: tuple[Any, ...]
    text: str
    build: Callable[[], Work]
    # A counterexample to a decisive part is one to the obligation (the part follows from it);
    # to any other part it only means this proof does not go through.
    decisive: bool = False


def register_solver(setting: Setting, about: str = "step") -> str:
    """The solver for a query over registers; `about` is "step" (step's post-state), "spec"
    (the relation with a free post-state) or a solver's name. Measured at VLEN=65536 (Z3 in
    a fresh context each query, proofs/engine/verdict.py): on step's post-state (If/Store/Concat
    terms over whole registers) bitwuzla takes 0.01-1 s where Z3 takes up to 18 s; on the
    spec relation Z3 takes milliseconds where bitwuzla takes up to 15 s (array
    extensionality), though a few queries need bitwuzla (they name it). So at VLEN >=
    BIG_VLEN "step" queries go to bitwuzla and "spec" queries to Z3 first, then to bitwuzla
    if Z3 has not decided within two seconds ("auto")."""
    if setting.cfg.vlen < BIG_VLEN or not available("bitwuzla"):
        return "z3"
    return {"step": "bitwuzla", "spec": "auto"}.get(about, about)


def check(work: Work, timeout_ms: int) -> Answer:
    """Decide a piece of work. Any second opinions on its solver questions (proofs/certify)
    are kept with the answer; one that disagrees with the solver makes it an ERROR."""
    with gathering() as opinions:
        answer = _check(work, timeout_ms)
    answer.opinions, answer.judged = opinions, judging()
    disagreement = next((o for o in opinions if o.status == "ERROR"), None)
    if disagreement is not None:
        return Answer(
            Verdict.ERROR,
            answer.seconds,
            disagreement.detail,
            solver=answer.solver,
            opinions=opinions,
            judged=answer.judged,
        )
    return answer


def _check(work: Work, timeout_ms: int) -> Answer:
    if isinstance(work, Generalized):
        first = check(work.general, timeout_ms)
        if first.verdict == Verdict.PROVED:
            first.detail = "; ".join(filter(None, [first.detail, "the agnostic tail generalized"]))
            return first
        return check(work.work(), timeout_ms)
    if isinstance(work, Query):
        return prove(work.assumptions, work.goal, timeout_ms, work.solver)
    if isinstance(work, Cases):
        return _check_cases(work, timeout_ms)
    if isinstance(work, Witnessed):
        return _check_witnessed(work, timeout_ms)
    return _check_batch(work, timeout_ms)


def _check_witnessed(work: Witnessed, timeout_ms: int) -> Answer:
    start = time.perf_counter()
    found = satisfiable(work.core + work.witness, timeout_ms)
    if found.verdict == Verdict.PROVED:
        assert found.model is not None, "a satisfiable query has a model"
        holds = found.model.eval(fast.and_(*work.rest), model_completion=True)
        if z3.is_true(holds):
            folded = f"; {work.folded} more hold by the witness as built" if work.folded else ""
            answer = Answer(
                Verdict.PROVED,
                time.perf_counter() - start,
                f"a model of {len(work.core)} conditions satisfies the other {len(work.rest)}{folded}"
                if work.rest or work.folded
                else "",
            )
            # what the answer rests on: the model satisfies core and rest together
            consult(work.core + work.witness + work.rest, None, answer, found.model)
            return answer
    elif found.verdict == Verdict.UNKNOWN:
        return found
    answer = prove(work.core + work.rest, z3.BoolVal(True), timeout_ms)
    answer.seconds = time.perf_counter() - start
    return answer


def _check_cases(work: Cases, timeout_ms: int) -> Answer:
    if work.solver != "z3":
        return _each_case(work, timeout_ms)
    with shared_assumptions(work.assumptions):  # one Z3 solver holds them for every case
        return _each_case(work, timeout_ms)


def _each_case(work: Cases, timeout_ms: int) -> Answer:
    start = time.perf_counter()
    first = prove(work.assumptions, z3.BoolVal(True), timeout_ms, work.solver)
    if first.verdict != Verdict.PROVED:
        return first
    impossible = []
    for name, when, goal in work.cases:
        answer = prove(work.assumptions + [when], goal, timeout_ms, work.solver)
        if answer.verdict == Verdict.ERROR and answer.detail == VACUOUS:
            impossible.append(name)
            continue
        if answer.verdict != Verdict.PROVED:
            answer.detail = f"case {name}: {answer.detail}".rstrip(": ")
            answer.seconds = time.perf_counter() - start
            return answer
    note = f"case {', '.join(impossible)} cannot occur" if impossible else ""
    return Answer(Verdict.PROVED, time.perf_counter() - start, note, solver=work.solver)


def _check_batch(batch: Batch, timeout_ms: int) -> Answer:
    if batch.problem:
        return Answer(batch.problem_verdict, 0.0, batch.problem)
    with shared_assumptions(batch.assumptions):  # one Z3 solver holds them for every chunk
        return _each_chunk(batch, timeout_ms)


def _each_chunk(batch: Batch, timeout_ms: int) -> Answer:
    start = time.perf_counter()
    first = prove(batch.assumptions, z3.BoolVal(True), timeout_ms)
    if first.verdict != Verdict.PROVED:
        return first
    residue = [(a, b) for a, b in batch.pairs if not fast.same(a, b)]
    detail = f"{len(batch.pairs) - len(residue)} of {len(batch.pairs)} by reflexivity"
    for k in range(0, len(residue), BATCH):
        chunk = residue[k : k + BATCH]
        answer = prove(batch.assumptions, fast.and_(*[a == b for a, b in chunk]), timeout_ms)
        if answer.verdict != Verdict.PROVED:
            answer.seconds = time.perf_counter() - start
            return answer
    return Answer(Verdict.PROVED, time.perf_counter() - start, detail)


# Case-wise post-states ---------------------------------------------------------------------
#
# step's post-state is `choose(c, pre, retired)`: each field is If(c, old, new) with c
# "trapped or vl = 0". On 65536-bit registers the solvers drown in that If (tens of seconds
# per query). So the proofs split into the case where vd is written (legal, vl > 0) and the
# rest; a small lemma proves c false resp. true in each, and within a case c is replaced by
# its value (sound: under the case's assumptions c equals it). Numerals wider than 64 bits
# (the all-ones tail) become named constants (defined as ~0), which Z3's simplifier would
# otherwise take apart element by element at great cost (measured: 10 s per query).

WRITES, NO_WRITE = "vd written", "vd not written"


def choice_condition(run: Run) -> z3.BoolRef | None:
    """The c of `choose`, read off the post-state's register file (None if not that shape)."""
    regs = run.post.regs
    if z3.is_app_of(regs, z3.Z3_OP_ITE):
        return cast(z3.BoolRef, regs.arg(0))  # the If's condition
    return None


def wide_numerals(
    term: z3.ExprRef, seen: set[int] | None = None, found: dict[int, z3.BitVecNumRef] | None = None
) -> dict[int, z3.BitVecNumRef]:
    """The numerals wider than 64 bits in a term (a walk over its DAG)."""
    seen = set() if seen is None else seen
    found = {} if found is None else found
    stack: list[Any] = [term]  # terms of any sort
    while stack:
        node = stack.pop()
        key = node.get_id()
        if key in seen:
            continue
        seen.add(key)
        if z3.is_bv_value(node) and node.size() > 64:
            found[key] = node
        elif z3.is_app(node):
            stack.extend(node.children())
    return found


def _named(numeral: z3.BitVecNumRef) -> tuple[z3.BitVecRef, list[z3.BoolRef]]:
    """A name for a wide numeral and its definition: for all ones (the agnostic tail, the
    only one step makes) `name == ~0`, whose zero prints and parses in no time; otherwise
    64 bits at a time."""
    value, width = numeral.as_long(), numeral.size()
    name = z3.BitVec(f"wide_const_{width}_{numeral.get_id()}", width)
    if value == (1 << width) - 1:
        return name, [name == ~z3.BitVecVal(0, width)]
    return name, [
        z3.Extract(min(lo + 63, width - 1), lo, name)
        == z3.BitVecVal(value >> lo & ((1 << (min(64, width - lo))) - 1), min(64, width - lo))
        for lo in range(0, width, 64)
    ]


def case_run(s: Setting, tail: str, writes: bool) -> tuple[Run, list[z3.BoolRef]]:
    """The abstract run's post-state in one case: (run, definitions to assume)."""
    cache: dict[tuple[str, bool], tuple[Run, list[z3.BoolRef]]] = s.__dict__.setdefault("_case_runs", {})
    if (tail, writes) not in cache:
        run, _, _ = s.abstract_run(tail)
        c = choice_condition(run)
        fields = ("regs", "vtype", "vl", "vstart", "vs")
        terms = [getattr(run.post, f) for f in fields]
        if c is not None:
            value = z3.BoolVal(not writes)
            terms = [z3.simplify(z3.substitute(t, (c, value))) for t in terms]
        seen: set[int] = set()
        found: dict[int, z3.BitVecNumRef] = {}
        for t in terms:
            wide_numerals(t, seen, found)
        definitions: list[z3.BoolRef] = []
        pairs: list[tuple[z3.BitVecRef, z3.BitVecRef]] = []
        for numeral in found.values():
            name, definition = _named(numeral)
            pairs.append((numeral, name))
            definitions += definition
        if pairs:
            terms = [z3.substitute(t, *pairs) for t in terms]
        post = run.post.with_(**dict(zip(fields, terms)))
        cache[(tail, writes)] = (type(run)(run.outcome, post), definitions)
    return cache[(tail, writes)]


def choice_part(s: Setting, tail: str) -> Part:
    """c is false exactly when vd is written (legal, vl > 0), for step's abstract run."""

    def build() -> Cases:
        run, _, _ = s.abstract_run(tail)
        c = choice_condition(run)
        if c is None:
            return Cases(s.wf, [], register_solver(s))
        return Cases(
            s.wf, [(WRITES, s.writes_vd, z3.Not(c)), (NO_WRITE, z3.Not(s.writes_vd), c)], register_solver(s)
        )

    return Part(("choice", s.cfg, tail), "step keeps the old state exactly when vd is not written", build)


def assuming(facts: list[z3.BoolRef], goal: z3.BoolRef) -> z3.BoolRef:
    """`goal` with each fact (a Boolean term, or the negation of one) replaced by its value,
    simplified: equivalent to it wherever the facts hold. The solvers then need not find
    out themselves that, say, vta decides the If around a 65536-bit register (measured at
    VLEN=65536: 2 s for bitwuzla with the If, 0.5 s without)."""
    pairs = [
        (fact.arg(0), z3.BoolVal(False)) if z3.is_not(fact) else (fact, z3.BoolVal(True)) for fact in facts
    ]
    return z3.simplify(z3.substitute(goal, *pairs) if pairs else goal)


# The pieces ------------------------------------------------------------------------------


def instruction_part(s: Setting, tail: str) -> Part:
    """Piece 1: step, with the unit cut out, satisfies the spec with `vd[0] == r`."""

    def build() -> Cases:
        _, result, _ = s.abstract_run(tail)
        cases, definitions = [], []
        for writes in (True, False):
            run, defs = case_run(s, tail, writes)
            definitions += defs
            for name, when, required in spec.relation_cases(
                s.cfg, s.pre, s.insn, run.outcome, run.post, lambda value: value == result
            ):
                if (name == "writes") != writes:
                    continue
                if name != "writes":
                    cases.append((name, when, z3.simplify(required)))
                    continue
                # vd written: the tail depends on vta, so each value of it is a case of its own
                for agnostic in (spec.vta(s.pre), z3.Not(spec.vta(s.pre))):
                    cases.append(
                        (f"{name}, {agnostic}", z3.And(when, agnostic), assuming([agnostic], required))
                    )
        return Cases(s.wf + definitions, cases, register_solver(s))

    return Part(
        ("instruction", s.cfg, tail),
        f"step ({tail} tail) with the unit's output as a fresh r meets the spec with vd[0] = r",
        build,
    )


def operands_part(s: Setting, tail: str) -> Part:
    """Piece 2: the unit is handed the spec's seed, elements and activity."""

    def build() -> Batch:
        _, _, got = s.abstract_run(tail)
        if got.elements is None:
            return Batch(s.wf, [], "step never called the reduction unit")
        assert got.active is not None  # (set with the elements)
        if len(got.elements) != s.cfg.vlmax or len(got.active) != s.cfg.vlmax:
            return Batch(
                s.wf,
                [],
                f"the unit got {len(got.elements)} elements, VLMAX is {s.cfg.vlmax}",
                Verdict.COUNTEREXAMPLE,
            )
        pairs: list[tuple[Any, Any]] = (
            [(got.seed, s.seed)] + list(zip(got.elements, s.elements)) + list(zip(got.active, s.activity))
        )
        return Batch(s.wf, pairs)

    return Part(
        ("operands", s.cfg, tail), "step hands the unit the spec's seed, elements and activity", build
    )


_FLAGS: dict[int, list[z3.BoolRef]] = {}
_INCLUSION: dict[tuple[ReductionUnit, int, int], dict[object, z3.BoolRef]] = {}


def active_flags(count: int) -> list[z3.BoolRef]:
    if count not in _FLAGS:
        _FLAGS[count] = fast.booleans("active_", count)
    return _FLAGS[count]


def inclusion_of(unit: ReductionUnit, count: int, sew: int) -> dict[object, z3.BoolRef]:
    """The unit on the free semilattice: atom -> condition (raises NotExpressible)."""
    key = (unit, count, sew)
    if key not in _INCLUSION:
        ops: Any = SemilatticeElements(sew)  # a part of ElementOps: a unit using the rest fails
        result = unit(
            ops, atom(SEED_ATOM), [atom(element_atom(i)) for i in range(count)], active_flags(count)
        )
        _INCLUSION[key] = inclusion(result)
    return _INCLUSION[key]


def inclusion_part(cfg: Config, name: str, unit: ReductionUnit | None = None) -> Part:
    """Piece 3: the unit joins the seed always and element i exactly when it is active."""
    unit = unit if unit is not None else ALGORITHMS[name]
    count = cfg.vlmax

    def build() -> Batch:
        try:
            conds = inclusion_of(unit, count, cfg.sew)
        except NotExpressible as error:
            return Batch([], [], f"not expressible in the free semilattice: {error}")
        flags = active_flags(count)
        false = z3.BoolVal(False)
        pairs = [(conds.get(SEED_ATOM, false), z3.BoolVal(True))]
        pairs += [(conds.get(element_atom(i), false), flags[i]) for i in range(count)]
        expected = {SEED_ATOM} | {element_atom(i) for i in range(count)}
        pairs += [(cond, z3.BoolVal(False)) for label, cond in conds.items() if label not in expected]
        return Batch([], pairs)

    return Part(
        ("inclusion", name, unit, count, cfg.sew),
        f"{name} on the free semilattice joins the seed always and vs2[i] iff active (VLMAX={count})",
        build,
    )


def agreement_part(
    cfg: Config, first: str, second: str, units: dict[str, ReductionUnit] = ALGORITHMS
) -> Part:
    """Two units include every input under the same condition: equal in every semilattice."""
    count = cfg.vlmax

    def build() -> Batch:
        try:
            a = inclusion_of(units[first], count, cfg.sew)
            b = inclusion_of(units[second], count, cfg.sew)
        except NotExpressible as error:
            return Batch([], [], f"not expressible in the free semilattice: {error}")
        false = z3.BoolVal(False)
        return Batch(
            [], [(a.get(label, false), b.get(label, false)) for label in sorted(set(a) | set(b), key=str)]
        )

    return Part(
        ("agreement", first, second, units[first], units[second], count, cfg.sew),
        f"{first} and {second} join every input under the same condition (VLMAX={count})",
        build,
    )


def lemma_part(sew: int, name: str) -> Part:
    lemma = lemmas.by_name(name)

    def build() -> Query:
        assumptions, goal = lemma.build(sew)
        return Query(assumptions, goal)

    return Part(("lemma", name, sew), f"lemma {name} (SEW={sew}): {lemma.sentence}", build)


ALGEBRA = [lemma.name for lemma in lemmas.LEMMAS if lemma.family == "algebra"]


def refinement_parts(s: Setting, subject: str, unit: ReductionUnit | None = None) -> list[Part]:
    """Everything `algorithm refines the spec` rests on, for one tail policy."""
    name, tail = split_subject(subject)
    unit = unit if unit is not None else s.units[name]
    return [
        choice_part(s, tail),
        instruction_part(s, tail),
        operands_part(s, tail),
        inclusion_part(s.cfg, name, unit),
    ] + [lemma_part(s.cfg.sew, lemma) for lemma in ALGEBRA]


def result_field_part(s: Setting) -> Part:
    """Whenever the spec has vd written, it constrains vd[0] by its result predicate (any one)."""

    def build() -> Generalized:
        run = s.free_run
        pred = s.uninterpreted_result
        goal = pred(s.result_of(run))
        # only the relation's own case for "vd is written" is needed as a hypothesis
        required = next(req for name, _, req in s.relation_cases(run, pred) if name == "writes")

        return generalized_first(
            lambda prepare: Query(
                s.wf + [s.writes_vd],
                z3.simplify(prepare(z3.Implies(required, goal))),
                register_solver(s, "spec"),
            ),
            [s.free_tail],
        )

    return Part(
        ("result-field", s.cfg),
        "a retired vl > 0 post-state the spec allows has vd[0] meeting the result predicate",
        build,
    )


def feasible_part(
    s: Setting,
    key: str,
    assumptions: Given,
    witness: Given = (),
    rest: Callable[[Any], list[Any]] = lambda L: [],
    text: str = "its assumptions can hold",
    known: Given = (),
) -> Part:
    """The obligation's own assumptions can hold (so its proof is not vacuous).

    `assumptions` are few; `rest(L)` are the many (e.g. one per element), written against a
    term builder L. The witness narrows the search: conditions `witness` (e.g. the register
    file has v0 = 0) and variables fixed to values `known` (e.g. vl = 1); if the assumptions
    can hold with them, they can hold. `rest` is built with proofs/folding.Folding, which
    decides under the known values whatever needs no solver; what it leaves undecided is
    evaluated in a model of the others (see `Witnessed`). If the witness decides a condition
    false, `rest` is built with the plain constructors and the solver looks for any model.
    `assumptions`, `witness` and `known` may be lists or functions giving one (built only
    when the part is)."""

    def build() -> Witnessed:
        given: Callable[[Given], list[Any]] = lambda values: values() if callable(values) else list(values)
        fixed = given(known)
        core = s.wf + given(assumptions)
        folded = rest(Folding(fixed))
        if any(value is False for value in folded):
            return Witnessed(core, rest(fast))
        undecided: list[Any] = [term(value) for value in folded if value is not True]  # z3 Booleans
        narrowing = given(witness) + [variable == value for variable, value in fixed]
        return Witnessed(core, undecided, narrowing, len(folded) - len(undecided))

    return Part(("feasible", key, s.cfg), text, build)


# Documentation ---------------------------------------------------------------------------


def soundness_argument() -> str:
    """Why the compositional proofs prove what they claim, and the lemmas the solver checked
    (markdown, for docs/SEMANTICS.md; deterministic)."""
    return SOUNDNESS + "\n" + lemmas_markdown()


def lemmas_markdown() -> str:
    """The lemmas, each proved by Z3 for SEW 8, 16, 32 and 64 (`vredmax prove -k lemma.`)."""
    rows = [
        "#### Lemmas the solver checks (per SEW: 8, 16, 32, 64)",
        "",
        "| lemma | family | statement |",
        "|---|---|---|",
    ]
    rows += [f"| `{lemma.name}` | {lemma.family} | {lemma.sentence} |" for lemma in lemmas.LEMMAS]
    rows += [
        "",
        "Per configuration (and tail policy) the solver also checks the pieces: `choice` (step keeps "
        "the old state exactly when vd is not written), `instruction` (step with the unit cut out meets "
        "the spec with vd[0] = r), `operands` (VLMAX+1 operand reads, identical terms or solver-proved), "
        "`inclusion` per algorithm (VLMAX+1 inclusion conditions), `result-field` (the spec constrains "
        "vd[0] by its result predicate), and each obligation's own query.",
        "",
    ]
    return "\n".join(rows)


SOUNDNESS = """\
### Why the compositional method is sound

**The pieces.** For a configuration (VLEN, ELEN, SEW, LMUL) and an algorithm A with a tail
policy, `impl.execute.step` computes the post-state from the pre-state in three stages: it
reads the operands (seed vs1[0], the VLMAX elements of the vs2 group, their active flags),
calls the reduction unit A on them, and builds the post-state from the unit's output. The
proof checks each stage on its own:

1. *Instruction* (one query per configuration and tail policy). `step` is run with the
   unit replaced by one that returns a fresh SEW-bit variable r. The solver proves that the
   resulting post-state satisfies the spec relation in which the result condition is
   `vd[0] = r`. Since r is arbitrary, this holds for every value the unit could return.
   Python's `step` uses the unit's output only as a value it writes into vd (no branch on it),
   so the post-state of the real run is this post-state with r replaced by A's output: a
   cut point. The query is split by the relation's own cases (illegal, legal with vl = 0,
   legal with vl > 0); a lemma (`choice`) proves that step's "keep the old state" condition
   is true in the first two and false in the third, so within a case it is replaced by its
   value; numerals wider than 64 bits are replaced by named constants with their definition
   (all ones: `name = ~0`) among the assumptions. Both steps keep each query equivalent to
   the original.
2. *Operands* (a batch of VLMAX facts). The seed, elements and flags that `step` passes to the
   unit are the spec's seed, elements and activity conditions: as terms they are identical (Z3
   terms are hash-consed, so identity is equality) or the solver proves them equal.
3. *The unit* (a batch of VLMAX+1 facts). A is run on the free join-semilattice backend,
   whose values are terms built from atoms (seed, vs2[0..VLMAX-1]) by join (smax), the
   empty join (smin) and choices ite(c, x, y) whose conditions c are Booleans built from the
   active flags alone: any operation that needs element values (a comparison, unsigned max)
   is rejected and any other constant becomes an atom of its own. For each atom the backend
   computes the condition under which it reaches the result (top-down over the term DAG,
   linear in its size). The solver proves: the seed's condition is true, element i's condition
   is its active flag, and every other atom's condition is false.

**From 3 to the result.** Fix any semilattice with identity (L, join, bottom) and any
valuation of the atoms in L and of the flags. By induction on a term t built as above,
its value is the join of the values of the atoms whose condition holds: an atom is the join
of itself; bottom is the empty join; join(x, y) is the join of both sets (conditions OR-ed:
by associativity, commutativity and idempotence the order and repetition of atoms do not
matter); ite(c, x, y) is x's set when c holds and y's when not (conditions c AND ... and
!c AND ...). The solver proved, for this SEW, that the Z3 backend's smax is associative,
commutative and idempotent with smin as identity, so signed max over SEW-bit values is
such a semilattice, and A's real output (the same Python code run on the Z3 backend) is
the signed max of the seed and of the elements whose flag is true. With the operands of 2,
that is the seed and the active elements.

**From the max to the spec.** The spec's result predicate asks that r be at least the
seed and every active element and equal one of them. The max of a finite non-empty set S
satisfies this, by induction on S: for {x} it is x; if m satisfies it for S then smax(m, x)
is at least m and x (lemma `smax_is_upper_bound`), hence, by transitivity
(`signed_order_transitive`), at least every member of S, and it is m or x (`smax_selects`),
a member of S plus x.

**Putting it together.** The spec relation uses its result predicate only positively, once,
on vd[0] of a retired vl > 0 post-state. Piece 1 proved the relation with `vd[0] = r`; the
chain above proved the predicate for r = A's output; so the real post-state satisfies the
relation with the real predicate: A refines the spec. Two algorithms agree because their
inclusion conditions are equivalent atom by atom (checked directly, not only through the spec).

**Invariants.** An invariant that does not mention the result value (traps, vl=0, frame,
tail, vstart, VS) is proved of the spec from the relation with the result predicate left
uninterpreted (an uninterpreted predicate stands for every predicate, the real one too).
It holds of every algorithm because piece 1 proved that step's post-state, for every r, is
one the relation allows with the predicate `vd[0] = r`: an instance of the uninterpreted
one. vma (two runs of step, one with vma flipped) is proved directly of piece 1's
post-states, for every r, hence for every algorithm. An invariant about the result is
proved of the spec from *local lemmas* on the result predicate, which speak of one or two
elements with the others abstracted as two Booleans ("all other elements are bounded", "one
of them is the result"); the predicate for any number of elements is the
conjunction/disjunction of the same per-element pieces, so a lemma that holds for every
value of those Booleans holds for every VLMAX. It then holds of
each algorithm because the algorithm refines the spec and the spec determines vd[0]
(uniqueness: lemma `witness_is_below_any_allowed_result` with antisymmetry). Activity
facts are proved once for a symbolic element index, with the spec's own activity rule.

**Shortcuts inside a query.** Three transformations keep a query's answer honest. A
literal the query assumes (vta, or its negation; the case condition) is replaced by its value
in the goal: equivalent under the assumptions. In piece 1 the case where vd is written is
split by the value of vta, each value substituted: the two cases cover it. And where a goal
about the spec's post-state does not depend on what the agnostic tail says (thousands of
per-element conditions at VLEN=65536), that subterm is first replaced by a fresh Boolean:
the real goal is an instance of the generalized one, so proving the latter proves it; if
the generalized goal does not go through, the real one is asked.

**Not vacuous.** Every query's assumptions are checked satisfiable before its "unsat" counts.
Where an obligation assumes one condition per element, its feasibility part shows them
satisfiable by exhibiting a model: Z3 finds a model of the other assumptions with a few
witness conditions (e.g. the twin equal to the original, the two swapped positions both 0
and element 0 active, or vl = 1), and Z3's model evaluator computes every per-element
condition in that model; only if all are true is the part proved (a model of all the
assumptions is a proof that they can hold). The per-element conditions are built with a
folding builder (`proofs/engine/folding.py`) that decides, as it builds, the ones that hold in every
model of the witness for a reason that needs no solver (an equality of a term with itself,
numerals compared by value, a choice whose condition the witness decides, a disjunction
with a true operand); each rule is a valid equivalence, so only the undecided rest is
evaluated. A test checks at VLMAX = 16 that the folded and the plainly built conditions are
equivalent under the witness.

**What is not covered.** Reserved encodings: the spec allows anything, so nothing is claimed.
vtype values outside the configuration (other vsew/vlmul, reserved bits 62:8) are the
concrete decoder's business (tested there), not these proofs'.
"""


def method_text() -> str:
    """The README-ready description of how `vredmax prove` proves (markdown)."""
    return METHOD


METHOD = """\
`vredmax prove` checks, for each legal configuration (VLEN, ELEN=64, SEW, LMUL), every
obligation of the catalogue (`vredmax prove --list`) of the spec and of each algorithm
(sequential, tree, lanes) with each tail policy (undisturbed, ones), on a fully symbolic
pre-state: all 32 registers (a Z3 array, so vd, vs2, vs1 and every overlap are symbolic in
one proof), vl 0..VLMAX, vm, vta, vma, vill, vstart and mstatus.VS.

The proofs are compositional, so their cost grows linearly in VLMAX (65536 elements at
VLEN=65536, SEW=8, LMUL=8): the instruction is proved with the reduction unit cut out (a fresh
result variable), the operand reads element by element, and the unit on a free-semilattice
backend that gives, for every element, the condition under which it reaches the result;
lemmas proved once per SEW (signed max is associative, commutative, idempotent, smin is its
identity; local facts about the spec's result predicate) bridge the rest. The soundness
argument is in docs/SEMANTICS.md. At VLEN >= 512 queries about step's post-state go to
bitwuzla (Z3 takes seconds on 65536-bit registers where bitwuzla takes milliseconds) and
queries about the spec relation to Z3 first (bitwuzla is the slow one there), bitwuzla after
two seconds; below that, Z3 throughout. Z3 solves the queries in a context apart from the
one that holds the terms (there, with millions of terms alive, even trivial queries took a
second). The assumptions of an obligation that has one per element (a two-run obligation,
"every element masked off") are shown satisfiable by a model: the solver finds one for the
others under a witness, and the per-element ones are decided as they are built or evaluated
in it. The monolithic proof (one query over the whole instruction, practical up to VLMAX of
about 16) is kept as an independent cross-check: `vredmax prove --method both` (VLMAX <= 8
by default).

Verdicts: PROVED (the solver said unsat and the assumptions were satisfiable),
COUNTEREXAMPLE, UNKNOWN (timeout or the solver gave up; never reported as proved), ERROR
(vacuous assumptions, or the algorithm cannot be read compositionally).
"""
