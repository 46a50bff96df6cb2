"""Decide a user's claim (proofs/claims/claim_language.py) against the spec, configuration by configuration.

The claim must hold for every pre-state of the configuration (all 32 registers, vd vs2 vs1
vm, vl, vtype's vta vma vill, vstart, mstatus.VS symbolic: every overlap included) and
every outcome and post-state the spec relation (spec/relation.py) allows, narrowed by a
profile (`--profile`). Per configuration:

1. Abstract first (cheap at any VLMAX). The spec's result predicate is kept only for the
   elements the claim reads (vs2[i], active[i]); all the others are two free Booleans
   ("every other active element is bounded", "the result is one of them"), as in the local
   lemmas of proofs/engine/lemmas.py; the agnostic tail is kept for the vd elements the claim reads
   and one free Boolean for the rest. The real relation is an instance of the abstract one
   (each free Boolean set to what it stands for), so a proof of the claim under the abstract
   relation proves it under the real one.
2. A counterexample of the abstract query counts only if it satisfies the real relation:
   the real relation is evaluated in the model (linear in its size, no solver). If it does
   not, the solver is asked again with the other elements inactive (vl at most one past the
   last element read, the free Booleans at their values for that), and that model is
   checked the same way.
3. Otherwise the query with the real relation is asked (practical for small VLMAX; at large
   VLMAX a timeout is UNKNOWN with the reason, never PROVED).

Before that, the claim's partial operations (an index that may be out of range under its
guards) are proved in range, and when the claim is `implies(H, C)` the hypothesis H is
checked satisfiable: a configuration where H cannot hold is reported as vacuous.

A counterexample is minimised (proofs/refute.smallest_model), then replayed: the pre-state
is run on the executable model (impl/execute.py) and the claim evaluated on its post-state.
When the claim is false there too, the counterexample replays; when it is not, the solver's
post-state used a freedom of the spec (a reserved encoding, an agnostic tail, mstatus.VS
turning Dirty), and the freedoms of that pre-state are listed.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import z3

from vredmax.impl.execute import execute, operands
from vredmax.proofs.claims.claim_language import ClaimError, Translator, World, check, compared_values
from vredmax.proofs.engine.lemmas import by_name
from vredmax.proofs.engine.counterexample import (
    Counterexample,
    concrete_case,
    model_register,
    tail_policy_for,
)
from vredmax.proofs.engine.minimise import smallest_model
from vredmax.proofs.engine.setting import Run, Setting, bounds_text
from vredmax.proofs.engine.verdict import Answer, Verdict, prove, satisfiable
from vredmax.spec import relation as spec
from vredmax.spec.bv import Concrete
from vredmax.spec.config import LMUL_NAMES, VTYPE_VILL_BIT, Config, decode_vtype, every_config, legal_configs
from vredmax.spec.legality import ILLEGAL, RETIRED
from vredmax.spec.profiles import PROFILES
from vredmax.spec.state import NUM_VREGS, VS_DIRTY, VS_NAMES, ArchState

DEFAULT_VLEN = 128
DEFAULT_TIMEOUT_MS = 60_000
MINIMISE_ELEMENTS = 64  # canonical fixing reads this many elements per register at most
MINIMISE_BUDGET_S = 20.0  # for minimising one counterexample (VLEN=65536: seconds per query)

PROFILE_NAMES = tuple(PROFILES)


# Configurations ---------------------------------------------------------------------------


def configurations(vlens=(), sews=(), lmuls=(), elen: int = 64, everything: bool = False) -> list[Config]:
    """The configurations to decide a claim at, smallest VLMAX first (so a counterexample is
    found where it is easiest to read). Default: every SEW x LMUL at VLEN=128; `everything`:
    every legal configuration for this ELEN (VLEN from ELEN to 65536)."""
    if everything or vlens:
        configs = every_config((elen,))
    else:
        configs = legal_configs(elen, vlens=[DEFAULT_VLEN])
    configs = [
        c
        for c in configs
        if (not vlens or c.vlen in vlens) and (not sews or c.sew in sews) and (not lmuls or c.lmul in lmuls)
    ]
    return sorted(configs, key=lambda c: (c.vlmax, c.vlen, c.sew, LMUL_NAMES.index(c.lmul)))


# Profiles as constraints on the relation ----------------------------------------------------


def profile_constraints(profile, s: Setting, run: Run, result_pred) -> list:
    """What a profile (spec/profiles.py) adds to the relation, as constraints; [] for "any".

    frac_sew does not appear: the configurations asked about are all supported ones."""
    if profile is None or profile.name == "any":
        return []
    pre, post, insn, cfg, outcome = s.pre, run.post, s.insn, s.cfg, run.outcome
    reserved_only = z3.And(z3.Not(s.illegal), s.reserved)
    misaligned = z3.URem(insn.vs2, cfg.group_registers) != 0 if cfg.group_registers > 1 else z3.BoolVal(False)
    trap = z3.And(outcome.trapped, outcome.illegal, spec.unchanged(pre, post))
    found = []
    if profile.reserved == "illegal":
        found.append(z3.Implies(reserved_only, trap))
    elif profile.reserved == "execute":
        executed = z3.And(reserved_only, z3.Not(misaligned))
        found.append(z3.Implies(z3.And(reserved_only, misaligned), trap))
        found.append(
            z3.Implies(
                z3.And(executed, pre.vl == 0),
                z3.And(z3.Not(outcome.trapped), spec.unchanged_but_vs(pre, post)),
            )
        )
        found.append(
            z3.Implies(
                z3.And(executed, pre.vl != 0),
                z3.And(z3.Not(outcome.trapped), spec.writes(cfg, pre, insn, post, result_pred)),
            )
        )
    runs = (
        z3.And(z3.Not(s.illegal), z3.Not(s.reserved))
        if profile.reserved != "execute"
        else z3.And(z3.Not(s.illegal), z3.Or(z3.Not(s.reserved), z3.Not(misaligned)))
    )
    written = z3.And(runs, pre.vl != 0)
    if profile.vs_dirty == "on-write":
        found.append(z3.Implies(z3.Not(written), post.vs == pre.vs))
    elif profile.vs_dirty == "always":
        found.append(z3.Implies(z3.Not(runs), post.vs == pre.vs))
        found.append(z3.Implies(runs, post.vs == VS_DIRTY))
    if profile.tail != "any" and cfg.elements_per_register > 1:
        old, new = z3.Select(pre.regs, insn.vd), z3.Select(post.regs, insn.vd)
        high = lambda v: z3.Extract(cfg.vlen - 1, cfg.sew, v)  # noqa: E731
        wanted = high(old) if profile.tail == "undisturbed" else z3.BitVecVal(-1, cfg.vlen - cfg.sew)
        found.append(z3.Implies(z3.And(written, spec.vta(pre)), high(new) == wanted))
    return found


def get_profile(name: str):
    from vredmax.spec.profiles import get_profile as named

    return named(name)


# The per-configuration decision -------------------------------------------------------------


class _Lazy:
    """vs2[i] or active[i] by index, built on demand (a claim reads a few of 65536)."""

    def __init__(self, make, count: int):
        self.make, self.count, self.made = make, count, {}

    def __len__(self) -> int:
        return self.count

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(self.count))]
        if i not in self.made:
            self.made[i] = self.make(i)
        return self.made[i]


def operand_views(s: Setting) -> tuple[_Lazy, _Lazy]:
    """The spec's vs2[i] and active[i] (spec/relation.py's layout and activity rule), lazily."""
    cfg, pre, insn = s.cfg, s.pre, s.insn
    per, sew = cfg.elements_per_register, cfg.sew

    def element(i):
        register, k = divmod(i, per)
        return z3.Extract(k * sew + sew - 1, k * sew, z3.Select(pre.regs, insn.vs2 + register))

    def active(i):
        return spec.is_active(z3.BitVecVal(i, 64), pre.vl, insn.vm == 1, spec.mask_bit(pre, i))

    return _Lazy(element, cfg.vlmax), _Lazy(active, cfg.vlmax)


@dataclass
class Decision:
    """The verdict of a claim at one configuration."""

    cfg: Config
    verdict: Verdict
    detail: str = ""
    seconds: float = 0.0
    method: str = ""  # "abstract", "abstract, checked", "full"
    vacuous: bool = False  # the hypothesis of implies(H, C) cannot hold here
    counterexample: "AskCounterexample | None" = None

    @property
    def bounds(self) -> str:
        return bounds_text(self.cfg)


@dataclass
class Problem:
    """Everything one configuration's queries are made of."""

    cfg: Config
    s: Setting
    run: Run
    world: World
    claim: object
    hypothesis: object
    wf: list
    abstract: list  # the abstract relation (and profile)
    real_of: object  # () -> the real relation (and profile), built when first needed
    narrowings: list  # ways to make the other elements inactive (lists of conditions)
    is_abstract: bool
    compared: dict  # name ("vd[k]", "traps") -> (the claim's value, the post-state's), if any
    profile: object = None
    hypothesis_on_pre_only: bool = False  # H reads nothing of the outcome or the post-state
    lean: list | None = None  # wf without the definition of the spec's result R, when the claim uses R
    reduction: object = None

    @property
    def real(self) -> list:
        if "_real" not in self.__dict__:
            self.__dict__["_real"] = self.real_of()
        return self.__dict__["_real"]


def build(text: str, cfg: Config, profile=None) -> Problem:
    s = Setting(cfg, tag="_ask")
    run = s.free_run
    # the spec's result as one constant: a fold in the claim that is the spec's reduction is
    # translated to it (claim_language's _is_reduction), when its uniqueness is proved at this SEW
    reduction = z3.BitVec("ask_reduction", cfg.sew) if result_is_unique(cfg.sew) else None
    world = _world(cfg, s, defined_folds=True, reduction=reduction)
    claim = Translator(text, world).claim()
    parts_world = _world(cfg, s, defined_folds=True, reduction=reduction)
    parts = Translator(text, parts_world).top_parts()
    hypothesis = parts[0] if parts else None
    read = sorted(i for i in world.mentioned_elements if i < cfg.vlmax)
    whole = len(read) == cfg.vlmax
    bounded, witness = (
        (z3.BoolVal(True), z3.BoolVal(False))
        if whole
        else (z3.Bool("ask_others_bounded"), z3.Bool("ask_others_witness"))
    )

    compared_world = _world(cfg, s, defined_folds=True, reduction=reduction)
    compared = _compared(text, cfg, s, compared_world)
    recognised = any(w.reduction_used for w in (world, parts_world, compared_world))

    def local(result):
        if recognised and whole:  # the result is R, R defined below by the whole result_ok
            return result == reduction
        return spec.result_ok(
            result,
            s.seed,
            [world.elements[i] for i in read],
            [world.activity[i] for i in read],
            bounded,
            witness,
        )

    abstract_relation = s.relation(run, local)
    tail_read = sorted(k for k in world.mentioned_vd if 0 < k < cfg.elements_per_register)
    tail_whole = len(tail_read) == cfg.elements_per_register - 1
    rest_of_tail = z3.Bool("ask_rest_of_tail")
    if not tail_whole and not z3.is_true(s.free_tail):
        ones = z3.BitVecVal(-1, cfg.sew)
        old, new = z3.Select(s.pre.regs, s.insn.vd), z3.Select(run.post.regs, s.insn.vd)
        element = lambda v, k: z3.Extract(k * cfg.sew + cfg.sew - 1, k * cfg.sew, v)  # noqa: E731
        kept = [z3.Or(element(new, k) == element(old, k), element(new, k) == ones) for k in tail_read]
        abstract_relation = z3.substitute(abstract_relation, (s.free_tail, z3.And(*kept, rest_of_tail)))

    def real():
        real_pred = (lambda result: result == reduction) if recognised else s.result_pred()
        return [s.relation(run, real_pred)] + profile_constraints(profile, s, run, real_pred)

    abstract = [abstract_relation] + profile_constraints(profile, s, run, local)
    is_abstract = not whole or not tail_whole
    limit = (max(read) + 1) if read else 0
    others = [] if whole else [bounded, z3.Not(witness)]
    # the elements the claim does not read are inactive: past vl, or else masked off
    unread_mask = sum(1 << i for i in range(cfg.vlmax) if i not in set(read))
    narrowings = [
        [z3.ULE(s.pre.vl, limit)] + others,
        [
            s.insn.vm == 0,
            z3.Extract(cfg.vlmax - 1, 0, z3.Select(s.pre.regs, 0)) & z3.BitVecVal(unread_mask, cfg.vlmax)
            == 0,
        ]
        + others,
    ]
    if not tail_whole and cfg.elements_per_register > 1:
        # the tail elements the claim does not read are kept (one mask, not one term each)
        unread = sum(
            ((1 << cfg.sew) - 1) << (k * cfg.sew)
            for k in range(1, cfg.elements_per_register)
            if k not in tail_read
        )
        old, new = z3.Select(s.pre.regs, s.insn.vd), z3.Select(run.post.regs, s.insn.vd)
        narrowings = [
            n + [rest_of_tail, (old ^ new) & z3.BitVecVal(unread, cfg.vlen) == 0] for n in narrowings
        ]
    # the folds' definitions (claim_language._defined_fold): the same constants in every world
    definitions = world.fold_definitions + parts_world.fold_definitions + compared_world.fold_definitions
    lean = None
    if recognised:
        # R is what result_ok allows, and it allows exactly one value (result_is_unique; one
        # exists: the signed maximum), so a relation requiring vd[0] == R allows exactly the
        # post-states of the one requiring result_ok(vd[0])
        lean = s.wf + list(definitions)
        definitions.append(s.result_pred()(reduction))
    return Problem(
        cfg,
        s,
        run,
        world,
        claim,
        hypothesis,
        s.wf + definitions,
        abstract,
        real if is_abstract else lambda: abstract,
        narrowings,
        is_abstract,
        compared,
        profile,
        parts is not None and parts[2],
        lean,
        reduction if recognised else None,
    )


def _compared(text: str, cfg: Config, s: Setting, world: World) -> dict:
    """The claim's stated values (claim_language.compared_values) paired with the spec's."""
    try:
        claimed = compared_values(text, world)
    except ClaimError:
        return {}
    run = s.free_run

    def observed(name):
        if name in ("traps", "vs"):
            return run.outcome.trapped if name == "traps" else run.post.vs
        k = int(name[3:-1])
        return z3.Extract(k * cfg.sew + cfg.sew - 1, k * cfg.sew, z3.Select(run.post.regs, s.insn.vd))

    return {name: (term, observed(name)) for name, term in claimed.items()}


def _holds_in(model, terms) -> bool:
    return z3.is_true(model.eval(z3.And(*terms), model_completion=True))


def _genuine(p: Problem, model, goal) -> bool:
    """The model is a real counterexample: the real relation holds in it and the goal does not."""
    return z3.is_false(model.eval(goal, model_completion=True)) and _holds_in(
        model, p.wf + _real_in(p, model)
    )


EVALUATE_REAL_MAX_VLMAX = 256  # beyond, the real relation is not built to be evaluated in a model


def _real_in(p: Problem, model) -> list:
    """The real relation, as it reads in `model`. At large VLMAX building it costs far more
    than solving (result_ok over every element: 40 s at VLMAX=65536): its result predicate is
    then `vd[0] == R`, R the spec's result on the model's pre-state computed on integers
    (result_ok has exactly one solution, the signed maximum of the seed and the active
    elements), which holds in the model exactly when result_ok does."""
    if not p.is_abstract or "_real" in p.__dict__ or p.cfg.vlmax <= EVALUATE_REAL_MAX_VLMAX:
        return p.real
    pre, insn = concrete_case(model, p.cfg, p.s.pre, p.s.insn)
    expected = z3.BitVecVal(spec_result(p.cfg, pre, insn), p.cfg.sew)
    pred = lambda result: result == expected  # noqa: E731
    return [p.s.relation(p.run, pred)] + profile_constraints(p.profile, p.s, p.run, pred)


def spec_result(cfg: Config, pre: ArchState, insn) -> int:
    """The one result result_ok allows for a concrete pre-state: the signed maximum of the
    seed and the active elements (read as spec/relation.py reads them: impl.execute.operands)."""
    seed, elements, active = operands(Concrete, pre, insn, cfg)
    signed = lambda v: v - (1 << cfg.sew) if v >> (cfg.sew - 1) else v  # noqa: E731
    return max([seed] + [e for e, a in zip(elements, active) if a], key=signed)


def _decide(p: Problem, goal, timeout_ms: int) -> tuple[Answer, str]:
    """(answer, method) for `wf and relation => goal`, by the steps of the module docstring.
    A claim that uses the spec's result R is first asked without R's definition (result_ok
    over every element, costly at large VLMAX): fewer assumptions, so a proof is a proof."""
    if p.lean is not None:
        lean = prove(p.lean + p.abstract, goal, timeout_ms)
        if lean.verdict == Verdict.PROVED:
            return lean, "abstract, the fold read as the spec's result"
    first = prove(p.wf + p.abstract, goal, timeout_ms)
    if not p.is_abstract:
        return first, "full"
    if first.verdict == Verdict.PROVED:
        return first, "abstract"
    if first.verdict == Verdict.COUNTEREXAMPLE:
        if _genuine(p, first.model, goal):
            return first, "abstract, checked"
        for k, narrowing in enumerate(p.narrowings):
            narrowed = satisfiable(p.wf + p.abstract + narrowing + [z3.Not(goal)], timeout_ms)
            if narrowed.verdict == Verdict.PROVED and _genuine(p, narrowed.model, goal):
                return Answer(
                    Verdict.COUNTEREXAMPLE, first.seconds + narrowed.seconds, model=narrowed.model
                ), f"abstract, narrowed {k + 1}, checked"
    full = prove(p.wf + p.real, goal, timeout_ms)
    if full.verdict == Verdict.UNKNOWN:
        full.detail = (
            f"the abstract query gave {first.verdict.value.lower()}"
            f"{' (a spurious counterexample)' if first.verdict == Verdict.COUNTEREXAMPLE else ''}; "
            f"the query with the whole relation (VLMAX={p.cfg.vlmax}): {full.detail}"
        )
    return full, "full"


def decide(
    text: str, cfg: Config, profile=None, timeout_ms: int = DEFAULT_TIMEOUT_MS, minimise: bool = True
) -> Decision:
    """The claim's verdict at one configuration. Raises ClaimError for a claim that cannot
    be read, or whose index can be out of range under its guards."""
    start = time.perf_counter()
    p = build(text, cfg, profile)
    for column, what, in_range in p.world.wd:
        answer, _ = _decide(p, in_range, timeout_ms)
        if answer.verdict == Verdict.COUNTEREXAMPLE:
            example = _state_summary(answer.model, p)
            raise ClaimError(column, f"{what}; it can be out of range at {cfg} ({example}): guard it")
        if answer.verdict != Verdict.PROVED:
            return Decision(
                cfg,
                answer.verdict if answer.verdict != Verdict.ERROR else Verdict.ERROR,
                f"whether {what} stays in range: {answer.detail}",
                time.perf_counter() - start,
            )
    note = ""
    if p.hypothesis is not None:
        if p.hypothesis_on_pre_only:
            # every pre-state has an allowed outcome and post-state (obligation spec_total; each
            # profile picks one of them), so H can hold exactly when some pre-state meets it
            # R's definition has exactly one solution: leaving it out changes nothing of what
            # H can do unless H mentions R
            free = p.lean is not None and z3.substitute(
                p.hypothesis, (p.reduction, z3.BitVec("ask_reduction_unused", p.cfg.sew))
            ).eq(p.hypothesis)
            possible = satisfiable((p.lean if free else p.wf) + [p.hypothesis], timeout_ms)
            possible = Answer(
                Verdict.PROVED
                if possible.verdict == Verdict.ERROR
                else Verdict.COUNTEREXAMPLE
                if possible.verdict == Verdict.PROVED
                else possible.verdict,
                possible.seconds,
                possible.detail,
            )
        else:
            possible, _ = _decide(p, z3.Not(p.hypothesis), timeout_ms)  # a counterexample: H can hold
        if possible.verdict == Verdict.PROVED:
            return Decision(
                cfg,
                Verdict.PROVED,
                "vacuous here: the hypothesis of implies() never holds",
                time.perf_counter() - start,
                "abstract",
                vacuous=True,
            )
        if possible.verdict != Verdict.COUNTEREXAMPLE:
            note = f"whether the hypothesis can hold is not known: {possible.detail}"
    answer, method = _decide(p, p.claim, timeout_ms)
    decision = Decision(cfg, answer.verdict, "; ".join(filter(None, [answer.detail, note])), 0.0, method)
    if answer.verdict == Verdict.COUNTEREXAMPLE:
        if answer.model is None:
            decision.verdict = Verdict.UNKNOWN
            decision.detail = f"a counterexample exists but no model was given: {answer.detail}"
        else:
            decision.counterexample = counterexample(text, p, answer.model, method, minimise, timeout_ms)
    decision.seconds = time.perf_counter() - start
    return decision


def _state_summary(model, p: Problem) -> str:
    value = lambda t: model.eval(t, model_completion=True).as_long()  # noqa: E731
    return (
        f"vl={value(p.s.pre.vl)}, vstart={value(p.s.pre.vstart)}, vd=v{value(p.s.insn.vd)}, "
        f"vs2=v{value(p.s.insn.vs2)}, vs1=v{value(p.s.insn.vs1)}, vm={value(p.s.insn.vm)}"
    )


# Counterexamples ----------------------------------------------------------------------------


@dataclass
class AskCounterexample:
    """A concrete pre-state, the post-state the solver chose (allowed by the spec), and what
    the executable model does with the same pre-state."""

    text: str
    shown: Counterexample  # inputs and lane table (and compared values, if any)
    post: ArchState  # the solver's post-state
    trapped: bool
    illegal_trap: bool
    values: dict  # name in the claim -> (kind, value) in the solver's choice
    replay_values: dict  # the same on the executable model's post-state
    tail: str  # the executable model's tail policy used for the replay
    replays: bool  # the claim is false on the executable model's post-state too
    free: list[str]  # the spec's freedoms for this pre-state
    hypothesis: bool | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def cfg(self) -> Config:
        return self.shown.cfg

    @property
    def pre(self) -> ArchState:
        return self.shown.pre

    @property
    def insn(self):
        return self.shown.insn


def counterexample(
    text: str, p: Problem, model, method: str, minimise: bool, timeout_ms: int
) -> AskCounterexample:
    notes = []
    if minimise:
        model, notes = _minimised(p, model, method)
    cfg, s = p.cfg, p.s
    pre, insn = concrete_case(model, cfg, s.pre, s.insn)
    pre = pre.with_(regs=tuple(model_register(model, s.pre, r) for r in range(NUM_VREGS)))
    post = _model_state(model, cfg, p.run.post)
    trapped = z3.is_true(model.eval(p.run.outcome.trapped, model_completion=True))
    illegal_trap = z3.is_true(model.eval(p.run.outcome.illegal, model_completion=True))
    tail = tail_policy_for(cfg, pre, insn, post.regs[insn.vd]) or "undisturbed"
    result = execute(pre, insn, "sequential", tail)
    replay_trapped = result.outcome != RETIRED
    values = {
        name: (kind, _value(model.eval(term, model_completion=True)))
        for name, (kind, term) in p.world.shown.items()
    }
    replay = evaluate(text, pre, insn, result.state, replay_trapped, result.outcome == ILLEGAL)
    replay_values = replay["values"]
    if p.compared:
        spec_side = {n: _value(model.eval(obs, model_completion=True)) for n, (_, obs) in p.compared.items()}
        claim_side = {n: _value(model.eval(cl, model_completion=True)) for n, (cl, _) in p.compared.items()}
    else:
        spec_side = {"vd[0]": post.regs[insn.vd] & ((1 << cfg.sew) - 1)}
        claim_side = dict(spec_side)
    shown = Counterexample(
        cfg,
        pre,
        insn,
        tail,
        spec_side,
        claim_side,
        "claim",
        result.reason if replay_trapped else "",
        notes,
        {"vs": 2} if "vs" in spec_side else {},
    )
    hypothesis = None if p.hypothesis is None else z3.is_true(model.eval(p.hypothesis, model_completion=True))
    return AskCounterexample(
        text,
        shown,
        post,
        trapped,
        illegal_trap,
        values,
        replay_values,
        tail,
        not replay["holds"],
        freedoms(cfg, pre, insn, p.profile),
        hypothesis,
        notes,
    )


def _world(cfg, s: Setting, defined_folds: bool = False, reduction=None) -> World:
    """The claim's world; `defined_folds` for the solver (folds as defined constants), not
    for concrete evaluation (which needs the folds to simplify to values); `reduction`: the
    constant a fold that is the spec's reduction becomes (defined by the caller)."""
    run = s.free_run
    elements, activity = s.__dict__.get("_operand_views") or s.__dict__.setdefault(
        "_operand_views", operand_views(s)
    )
    return World(
        cfg,
        s.pre,
        s.insn,
        run.post,
        run.outcome,
        s.seed,
        elements,
        activity,
        s.illegal,
        s.reserved,
        fold_definitions=[] if defined_folds else None,
        reduction=reduction,
    )


UNIQUENESS_LEMMAS = ("witness_is_below_any_allowed_result", "signed_order_antisymmetric")
_UNIQUE: dict = {}


def result_is_unique(sew: int) -> bool:
    """Whether result_ok allows at most one value at this SEW, proved here from its local
    lemmas (proofs/engine/lemmas.py): a result is the seed or an active element, so it is at
    most any other allowed result, which is the same the other way round; milliseconds."""
    if sew not in _UNIQUE:
        _UNIQUE[sew] = all(
            prove(*by_name(name).build(sew)).verdict == Verdict.PROVED for name in UNIQUENESS_LEMMAS
        )
    return _UNIQUE[sew]


def _value(term):
    if z3.is_true(term):
        return True
    if z3.is_false(term):
        return False
    return term.as_long()


def _model_state(model, cfg: Config, state: ArchState) -> ArchState:
    value = lambda t: model.eval(t, model_completion=True).as_long()  # noqa: E731
    return ArchState(
        cfg.vlen,
        cfg.elen,
        tuple(model_register(model, state, r) for r in range(NUM_VREGS)),
        value(state.vtype),
        value(state.vl),
        value(state.vstart),
        value(state.vs),
    )


class _MinimiseView:
    """What proofs/refute.smallest_model reads of a symbolic claim view, from a Problem; at
    a large configuration only the first MINIMISE_ELEMENTS elements of a register are fixed."""

    def __init__(self, p: Problem):
        self.cfg, self.pre, self.insn, self.post = p.cfg, p.s.pre, p.s.insn, p.run.post
        limit = MINIMISE_ELEMENTS if p.cfg.vlen <= 1024 else 4
        self.limit = min(p.cfg.elements_per_register, limit)
        self.active = p.world.activity[:limit]
        self.old_vd = self.register_elements(self.pre, self.insn.vd)
        self.new_vd = self.register_elements(self.post, self.insn.vd)

    def register_elements(self, state, register) -> list:
        value, sew = z3.Select(state.regs, register), self.cfg.sew
        return [z3.Extract(k * sew + sew - 1, k * sew, value) for k in range(self.limit)]


def _executable_like(p: Problem) -> list:
    """Preferences that make the solver's post-state the one the executable model gives,
    where the claim does not need another: a trap (reserved too) changes nothing, vl = 0
    keeps mstatus.VS."""
    s, run = p.s, p.run
    legal = z3.And(z3.Not(s.illegal), z3.Not(s.reserved))
    insn, group = s.insn, s.cfg.group_registers
    read = lambda r: z3.Or(
        r == insn.vd,
        r == insn.vs1,
        z3.And(r == 0, insn.vm == 0),  # noqa: E731
        *[r == insn.vs2 + k for k in range(group)],
    )
    unread_zero = [z3.Or(read(z3.BitVecVal(r, 5)), z3.Select(s.pre.regs, r) == 0) for r in range(NUM_VREGS)]
    if s.cfg.vlen > 1024:  # minimisation fixes the first elements only: zero the rest where it can
        low = 4 * s.cfg.sew
        unread_zero += [
            z3.Extract(s.cfg.vlen - 1, low, z3.Select(s.pre.regs, r)) == 0
            for r in [insn.vd, insn.vs1, z3.BitVecVal(0, 5)] + [insn.vs2 + k for k in range(group)]
        ]
    cfg = s.cfg
    tails = []
    if cfg.elements_per_register > 1:  # the tail kept, else all ones: each a policy the executable model has
        high = lambda v: z3.Extract(cfg.vlen - 1, cfg.sew, v)  # noqa: E731
        new, old = high(z3.Select(run.post.regs, insn.vd)), high(z3.Select(s.pre.regs, insn.vd))
        tails = [new == old, z3.Or(new == old, new == z3.BitVecVal(-1, cfg.vlen - cfg.sew))]
    return (
        tails
        + [
            z3.Implies(z3.Not(legal), z3.And(run.outcome.trapped, spec.unchanged(s.pre, run.post))),
            z3.Implies(s.illegal, run.outcome.illegal),
            z3.Implies(z3.And(legal, s.pre.vl == 0), run.post.vs == s.pre.vs),
        ]
        + [
            # where anything is allowed (reserved), change as little as the claim lets
            z3.Implies(z3.Not(legal), condition)
            for condition in (
                run.outcome.trapped,
                spec.others_unchanged(s.pre, run.post, insn),
                run.post.vl == s.pre.vl,
                run.post.vstart == s.pre.vstart,
                run.post.vtype == s.pre.vtype,
                run.post.vs == s.pre.vs,
            )
        ]
        + unread_zero
    )


def _minimised(p: Problem, model, method: str):
    """The smallest counterexample (proofs/refute.smallest_model) among those that satisfy
    the whole relation: minimised under the abstract relation with each narrowing (the
    whole relation at small VLMAX), the first one whose result is genuine kept."""
    mismatches = [claimed != observed for claimed, observed in p.compared.values()]
    candidates = [p.abstract + n for n in p.narrowings] if p.is_abstract else [p.abstract]
    if p.is_abstract and (method == "full" or p.cfg.vlmax <= 256):
        candidates.append(p.real)
    deadline = time.monotonic() + MINIMISE_BUDGET_S
    for relation in candidates:
        if time.monotonic() > deadline:
            return model, [
                "not minimised: its time ran out before a minimised model satisfied the whole relation"
            ]
        try:
            chosen, notes = smallest_model(
                _MinimiseView(p),
                p.wf + relation,
                z3.Not(p.claim),
                mismatches,
                _executable_like(p),
                budget_s=max(0.0, deadline - time.monotonic()),
            )
        except RuntimeError:  # no counterexample under this narrowing
            continue
        if _genuine(p, chosen, p.claim):
            return chosen, notes
    return model, ["not minimised: no minimised model satisfied the whole relation"]


# Concrete evaluation (the replay, and the emitted tests through vredmax.api) ---------------------


def config_of(pre: ArchState) -> Config:
    """The configuration a concrete pre-state's vtype selects (its vill bit aside)."""
    raw = pre.vtype & ~(1 << VTYPE_VILL_BIT)
    vt = decode_vtype(raw, pre.elen)
    if vt.vill:
        raise ValueError(f"vtype: {vt.why_vill}; a claim is evaluated at a configuration vtype selects")
    return Config(pre.vlen, pre.elen, vt.sew, vt.lmul)


def _array(vlen: int, regs) -> z3.ArrayRef:
    array = z3.K(z3.BitVecSort(5), z3.BitVecVal(0, vlen))
    for number, value in enumerate(regs):
        if value:
            array = z3.Store(array, z3.BitVecVal(number, 5), z3.BitVecVal(value, vlen))
    return array


def _state_pairs(symbolic: ArchState, concrete: ArchState) -> list:
    return [
        (symbolic.regs, _array(concrete.vlen, concrete.regs)),
        (symbolic.vtype, z3.BitVecVal(concrete.vtype, 64)),
        (symbolic.vl, z3.BitVecVal(concrete.vl, 64)),
        (symbolic.vstart, z3.BitVecVal(concrete.vstart, 64)),
        (symbolic.vs, z3.BitVecVal(concrete.vs, 2)),
    ]


def evaluate(
    text: str, pre: ArchState, insn, post: ArchState, trapped: bool, illegal_trap: bool | None = None
) -> dict:
    """The claim on one concrete execution: {"holds": bool, "values": name -> (kind, value)}.
    Raises ClaimError (a bad claim, or an index out of range here) or ValueError (a vtype
    that selects no configuration)."""
    cfg = config_of(pre)
    s = Setting(cfg, tag="_eval")
    world = _world(cfg, s)
    claim = Translator(text, world).claim()
    run = s.free_run
    pairs = (
        _state_pairs(s.pre, pre)
        + _state_pairs(run.post, post)
        + [
            (getattr(s.insn, f), z3.BitVecVal(getattr(insn, f), 5 if f != "vm" else 1))
            for f in ("vd", "vs2", "vs1", "vm")
        ]
        + [
            (run.outcome.trapped, z3.BoolVal(trapped)),
            (run.outcome.illegal, z3.BoolVal(trapped if illegal_trap is None else illegal_trap)),
        ]
    )
    concrete = lambda term: z3.simplify(z3.substitute(term, *pairs))  # noqa: E731
    for column, what, in_range in world.wd:
        if z3.is_false(concrete(in_range)):
            raise ClaimError(column, f"{what}; it is out of range in this state")
    holds = concrete(claim)
    if not (z3.is_true(holds) or z3.is_false(holds)):
        raise RuntimeError(f"the claim did not evaluate to a truth value: {holds}")
    values = {name: (kind, _value(concrete(term))) for name, (kind, term) in world.shown.items()}
    return {"holds": z3.is_true(holds), "values": values}


def claim_holds(
    text: str, pre: ArchState, insn, post, trapped: bool | None = None, illegal_trap: bool | None = None
) -> bool:
    """Whether the claim holds of one concrete execution. `post` is an ArchState (then say
    `trapped`) or an impl.execute.Result (its outcome gives both flags)."""
    if hasattr(post, "outcome") and hasattr(post, "state"):
        trapped, illegal_trap, post = post.outcome != RETIRED, post.outcome == ILLEGAL, post.state
    if trapped is None:
        raise ValueError("trapped: say whether the execution trapped")
    return evaluate(text, pre, insn, post, trapped, illegal_trap)["holds"]


def freedoms(cfg: Config, pre: ArchState, insn, profile=None) -> list[str]:
    """What the spec (narrowed by the profile) leaves free for this pre-state."""
    name = lambda choice: "any" if profile is None else getattr(profile, choice)  # noqa: E731
    s = Setting(cfg, tag="_free")
    pairs = _state_pairs(s.pre, pre) + [
        (getattr(s.insn, f), z3.BitVecVal(getattr(insn, f), 5 if f != "vm" else 1))
        for f in ("vd", "vs2", "vs1", "vm")
    ]
    value = lambda term: z3.is_true(z3.simplify(z3.substitute(term, *pairs)))  # noqa: E731
    illegal, reserved = value(s.illegal), value(s.reserved)
    if not illegal and reserved and name("reserved") == "any":
        return [
            "everything: a reserved encoding, where the architecture promises nothing "
            "(any outcome, any post-state)"
        ]
    found = []
    runs = not illegal and (not reserved or name("reserved") == "execute" and not _misaligned(cfg, insn))
    written = runs and pre.vl != 0
    vta = bool(pre.vtype >> 6 & 1)
    if written and vta and cfg.elements_per_register > 1 and name("tail") == "any":
        found.append(
            f"vd's tail, elements 1..{cfg.elements_per_register - 1} of v{insn.vd}: each keeps its "
            "value or becomes all ones (vta=1)"
        )
    if not written and VS_NAMES[pre.vs] in ("initial", "clean") and name("vs_dirty") == "any":
        found.append(f"mstatus.VS: stays {VS_NAMES[pre.vs]} or becomes dirty (allowed at any time)")
    return found


def _misaligned(cfg: Config, insn) -> bool:
    return insn.vs2 % cfg.group_registers != 0


# The whole question ------------------------------------------------------------------------


@dataclass
class Asked:
    claim: str
    profile: str
    decisions: list[Decision]
    stopped_early: bool = False  # a counterexample ended the search

    @property
    def verdict(self) -> Verdict:
        verdicts = [d.verdict for d in self.decisions]
        for worst in (Verdict.COUNTEREXAMPLE, Verdict.ERROR, Verdict.UNKNOWN):
            if worst in verdicts:
                return worst
        if verdicts and all(d.vacuous for d in self.decisions):
            return Verdict.ERROR
        return Verdict.PROVED if verdicts else Verdict.ERROR

    @property
    def vacuous(self) -> bool:
        """The hypothesis of implies() holds at no configuration decided: nothing is proved
        (the verdict is then ERROR)."""
        return bool(self.decisions) and all(d.vacuous for d in self.decisions)

    @property
    def counterexample(self) -> AskCounterexample | None:
        return next((d.counterexample for d in self.decisions if d.counterexample is not None), None)

    @property
    def detail(self) -> str:
        if self.decisions and all(d.vacuous for d in self.decisions):
            return "vacuous: the hypothesis of implies() holds at no configuration asked"
        bad = next(
            (d for d in self.decisions if d.verdict == self.verdict and d.verdict != Verdict.PROVED), None
        )
        return f"{bad.cfg}: {bad.detail}" if bad and bad.detail else ""


def ask(
    text: str,
    configs: list[Config],
    profile_name: str = "any",
    timeout_ms: int = DEFAULT_TIMEOUT_MS,
    minimise: bool = True,
    on_decision=None,
) -> Asked:
    """Decide the claim at each configuration (stopping at the first counterexample)."""
    check(text)
    profile = get_profile(profile_name)
    asked = Asked(text, profile_name, [])
    for cfg in configs:
        decision = decide(text, cfg, profile, timeout_ms, minimise)
        asked.decisions.append(decision)
        if on_decision is not None:
            on_decision(decision)
        if decision.verdict == Verdict.COUNTEREXAMPLE:
            asked.stopped_early = cfg is not configs[-1]
            break
    return asked


def outcome_text(trapped: bool, illegal_trap: bool) -> str:
    return ("trapped (illegal instruction)" if illegal_trap else "trapped") if trapped else "retired"


def counterexample_json(cx: AskCounterexample) -> dict:
    from vredmax.impl.case import case_json, state_json

    cfg = cx.cfg
    kinds = lambda values: {name: _json_value(kind, value, cfg) for name, (kind, value) in values.items()}  # noqa: E731
    return {
        "config": {"vlen": cfg.vlen, "elen": cfg.elen, "sew": cfg.sew, "lmul": cfg.lmul, "vlmax": cfg.vlmax},
        "vl": cx.pre.vl,
        "active_lanes": cx.shown.active_lanes,
        "case": case_json(cx.pre, cx.insn, cx.tail),
        "post": {"outcome": outcome_text(cx.trapped, cx.illegal_trap), **state_json(cx.post)},
        "values": kinds(cx.values),
        "replays": cx.replays,
        "replay_values": kinds(cx.replay_values),
        "free": cx.free,
        "compared": cx.shown.to_json()["spec"] if cx.shown.other != cx.shown.spec else {},
        "claimed": cx.shown.to_json()["claim"] if cx.shown.other != cx.shown.spec else {},
        "notes": cx.notes,
    }


def _json_value(kind: str, value, cfg: Config):
    from vredmax.proofs.engine.counterexample import json_value

    if kind in ("bool", "int"):
        return value
    if kind == "vs":
        return VS_NAMES[value]
    return json_value(value, cfg.sew if kind == "element" else cfg.vlen)


def claimed_on(text: str, pre: ArchState, insn, post: ArchState, trapped: bool) -> dict:
    """What a claim of the form `implies(H, post.vd[k] == E and ...)` says the compared
    values are, on one concrete execution ({} if it is not of that form)."""
    cfg = config_of(pre)
    s = Setting(cfg, tag="_eval")
    claimed = compared_values(text, _world(cfg, s))
    run = s.free_run
    pairs = (
        _state_pairs(s.pre, pre)
        + _state_pairs(run.post, post)
        + [
            (getattr(s.insn, f), z3.BitVecVal(getattr(insn, f), 5 if f != "vm" else 1))
            for f in ("vd", "vs2", "vs1", "vm")
        ]
        + [(run.outcome.trapped, z3.BoolVal(trapped)), (run.outcome.illegal, z3.BoolVal(trapped))]
    )
    return {name: _value(z3.simplify(z3.substitute(term, *pairs))) for name, term in claimed.items()}
