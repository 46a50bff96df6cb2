"""A user's whole instruction at configurations too big for one query: cut at its reduction.

The step is run on the symbolic machine ops, except that `m.elements(sew)` hands it the
tracing element ops (proofs/python/trace.py) on which z3 terms (the operands the step read) become
leaves. What the reduction returns is a traced term; where the step hands it back to a
machine op (to write vd) it is replaced by a fresh variable r: the cut point. Then:

1. *instruction* (solver, case by case as the spec relation splits): the post-state the
   step computes from r meets the spec with `vd[0] = r`, for every r;
2. *reduction* (proofs/python/cutpoint.py): the traced reduction is a guarded signed max of its
   leaves; each leaf is, as a term, the spec's seed or one of its elements (identical, or
   identical after simplification), and the condition under which each reaches the result
   is, under the configuration's assumptions, the spec's (seed: always, element i: active
   i, constants: never), proved by the solver. A leaf that is not the same term as an
   operand may still equal one (an element put together from its bytes, the register
   `vs2 | k`): proofs/python/operands.py finds which and proves it, under the assumptions
   where vd[0] is written. A value the step builds from machine values other than whole
   elements (its bytes) is one leaf: its Z3 term over the pre-state;
3. the algebra lemmas of signed max for the SEW (as for a reduction unit).
Together: the step's post-state is the one of 1 with r the max of the seed and the active
elements, which meets the spec's result predicate. If the step's structure is not this
(no reduction reaches a machine op, two do, a leaf is no operand of the spec), the answer
is UNKNOWN with the reason: the monolithic proof is the one to use then.
"""

from __future__ import annotations

import itertools
import sys
import time
from dataclasses import dataclass

import z3

from vredmax.impl.execute import execute
from vredmax.proofs.python import cutpoint as cp
from vredmax.proofs.python.cutcases import VD, VS1, VS2, make_case
from vredmax.proofs.python.branches import InternalError
from vredmax.proofs.python.operands import Matcher
from vredmax.proofs.python.scalarpieces import Normaliser
from vredmax.proofs.engine.semilattice import atom
from vredmax.proofs.python.trace import (
    BOOL,
    SymbolicUse,
    Term,
    TraceElements,
    Tracer,
    evaluate,
    user_location,
)
from vredmax.proofs.engine.verdict import Verdict, prove
from vredmax.spec import relation as spec
from vredmax.spec import z3fast as fast
from vredmax.spec.bv import Concrete, Z3Elements
from vredmax.spec.config import Config
from vredmax.spec.legality import RETIRED
from vredmax.proofs.engine.setting import impl_outcome
from vredmax.proofs.engine.solvers import available
from vredmax.spec.state import ArchState

METHOD = "cut at the reduction"


class StepTracer(Tracer):
    """A tracer whose leaves are also the z3 terms the step hands the element ops: values
    ("input" leaves) and conditions ("flag" leaves, structural), numbered as first seen."""

    def __init__(self, sew: int):
        super().__init__(sew, 0)
        self.inputs: list = []  # z3 value terms, by leaf index
        self.conditions: list = []  # z3 Boolean terms, by leaf index
        self._index: dict = {}

    def leaf_for(self, term) -> Term:
        if z3.is_bv_value(term):
            return self.const(term.as_long(), term.size())
        boolean = isinstance(term, z3.BoolRef)
        key = (boolean, term.get_id())
        if key not in self._index:
            where = self.conditions if boolean else self.inputs
            self._index[key] = len(where)
            where.append(term)
        if boolean:
            return self.make("flag", (), self._index[key], BOOL)
        return self.make("input", (), self._index[key], term.size())


class StepElements(TraceElements):
    """Tracing element ops that accept the step's z3 terms as leaves."""

    def _value(self, x, width=None):
        if isinstance(x, z3.BitVecRef):
            x = self.tracer.leaf_for(x)
        return super()._value(x, width)

    def _cond(self, c):
        if isinstance(c, z3.BoolRef):
            if z3.is_true(c) or z3.is_false(c):
                return self.tracer.boolean(z3.is_true(c))
            c = self.tracer.leaf_for(c)
        return super()._cond(c)


class CutMachine:
    """The symbolic machine ops, with `elements` tracing and each traced value that comes
    back into a machine op replaced by the cut variable r (the same term, the same r)."""

    def __init__(self, base, sew: int):
        self.base = base
        self.tracer = StepTracer(sew)
        self.cuts: list = []  # (term, variable)
        self.symbolic = True
        self.true, self.false = base.true, base.false

    def elements(self, width: int):
        if width != self.tracer.sew:
            raise SymbolicUse(f"{user_location()}: m.elements({width}) at SEW={self.tracer.sew}")
        return StepElements(self.tracer, width)

    def _cut(self, value):
        if isinstance(value, Term) and value.op in ("const", "bool"):
            return z3.BitVecVal(value.param, value.width) if value.width else z3.BoolVal(value.param)
        if isinstance(value, Term):
            for term, variable in self.cuts:
                if term is value:
                    return variable
            if value.width == BOOL:
                raise SymbolicUse(
                    f"{user_location()}: a condition computed with the element ops "
                    "is used by a machine op; only the reduction's result may be"
                )
            variable = z3.BitVec(f"r_cut_{len(self.cuts)}", value.width)
            self.cuts.append((value, variable))
            return variable
        if isinstance(value, (list, tuple)) and any(isinstance(v, Term) for v in value):
            return type(value)(self._cut(v) for v in value)
        return value

    def __getattr__(self, name):
        # Only the checker holds this machine (the user's step gets facade.ProxyMachine): an op
        # it lacks is the checker's bug, an InternalError (an ERROR), never an AttributeError
        # that branches.internal_bug takes for the user's own (a proxy's `__getattr__`) or
        # that the user's `except AttributeError` could swallow. Python's own probes
        # (`__deepcopy__`, ...) get the AttributeError that hasattr() and copy expect.
        try:
            attribute = getattr(self.base, name)
        except AttributeError:
            if name.startswith("__") and name.endswith("__"):
                raise
            raise InternalError(
                f"check-impl's own code failed (not the implementation): the cut machine has no op {name!r}"
            ) from None
        if not callable(attribute):
            return attribute

        def call(*args, **kwargs):
            return attribute(*[self._cut(a) for a in args], **{k: self._cut(v) for k, v in kwargs.items()})

        return call


def prove_step_at_scale(step_fn, cfg: Config, tail: str, timeout_ms: int) -> cp.ScaleResult:
    start = time.perf_counter()

    def result(verdict, detail, case=None, solver=None):
        return cp.ScaleResult(
            verdict, detail, METHOD, solver or cp._solver_text(), time.perf_counter() - start, case
        )

    pre, insn = spec.symbolic_state(cfg, "_cut"), spec.symbolic_insn("_cut")
    wf = spec.in_configuration(cfg, pre)
    machine = CutMachine(fast.FastSymbolic, cfg.sew)
    try:
        traps, post = step_fn(machine, pre, insn, cfg, tail)
        traps = [(rule, machine._cut(cond)) for rule, cond in traps]
        post = ArchState(
            post.vlen,
            post.elen,
            *[machine._cut(getattr(post, f)) for f in ("regs", "vtype", "vl", "vstart", "vs")],
        )
    except SymbolicUse as error:
        return result(Verdict.ERROR, str(error))
    except Exception as error:
        return result(
            Verdict.UNKNOWN,
            f"the step could not be run with its reduction cut out "
            f"({type(error).__name__}: {error}); use the monolithic proof",
        )
    if len(machine.cuts) > 1:
        traps, post = _uncut_other_values(machine, traps, post, pre, insn, wf, cfg, timeout_ms)
    several = len(machine.cuts) > 1 and all(root.width == cfg.sew for root, _ in machine.cuts)
    if several:
        answer = _several_reductions(machine, traps, post, pre, insn, wf, cfg, timeout_ms)
        if answer.verdict == Verdict.PROVED:
            return result(
                Verdict.PROVED,
                answer.detail,
                solver=", ".join(sorted(cp._solver_text() if s == "z3" else s for s in answer.solvers)),
            )
    if len(machine.cuts) != 1:
        why = (
            f"{len(machine.cuts)} values computed with the element ops reach the machine ops (the cut "
            "needs exactly one: the reduction's result)"
        )
        if several:
            why = (
                f"{len(machine.cuts)} reductions reach the machine ops, and vd[0] is not shown to be one "
                f"that meets the spec ({answer.detail})"
            )
        case = _search(step_fn, cfg, tail, start + max(5.0, timeout_ms / 1000))
        if case is not None:
            return result(Verdict.COUNTEREXAMPLE, f"{why}; a concrete case shows the step is wrong", case)
        return result(Verdict.UNKNOWN, f"{why}; no concrete counterexample found either")
    root, r = machine.cuts[0]
    if root.width != cfg.sew:
        return result(Verdict.UNKNOWN, f"the element-ops value written back has {root.width} bits, not SEW")
    solvers = set()

    # 1. the instruction around the cut
    from vredmax.proofs.engine.compositional import BIG_VLEN, Cases, check
    from vredmax.proofs.engine.solvers import available

    solver = "bitwuzla" if cfg.vlen >= BIG_VLEN and available("bitwuzla") else "z3"
    try:
        outcome = impl_outcome(traps)
        cases = spec.relation_cases(cfg, pre, insn, outcome, post, lambda value: value == r)
    except Exception as error:
        return result(
            Verdict.ERROR, f"the step's post-state does not fit the spec: {type(error).__name__}: {error}"
        )
    try:
        cases = split_writes(cfg, pre, insn, outcome, post, r, cases)
    except Exception as error:
        return result(
            Verdict.ERROR, f"the step's post-state does not fit the spec: {type(error).__name__}: {error}"
        )
    answer = check(Cases(wf, [(n, w, z3.simplify(g)) for n, w, g in cases], solver), timeout_ms)
    solvers.add(answer.solver)
    if answer.verdict == Verdict.COUNTEREXAMPLE:
        case = _replayed_model(step_fn, cfg, tail, answer.model, pre, insn) or _search(
            step_fn, cfg, tail, start + max(5.0, timeout_ms / 1000)
        )
        if case is not None:
            return result(
                Verdict.COUNTEREXAMPLE, f"the instruction around the reduction: {answer.detail}", case
            )
        return result(
            Verdict.UNKNOWN,
            "the instruction with the reduction's result as a free r does not meet "
            f"the spec ({answer.detail}), but no concrete case confirmed a bug",
        )
    if answer.verdict != Verdict.PROVED:
        return result(answer.verdict, f"the instruction around the reduction: {answer.detail}")

    # 2. the reduction
    flags = list(machine.tracer.conditions)
    denoter = StepDenoter(cfg.sew, flags, timeout_ms, machine.tracer)
    analysis = denoter.run(root)
    if analysis.failure is not None:
        case = _search(step_fn, cfg, tail, start + max(5.0, timeout_ms / 1000))
        why = analysis.failure.reason
        if case is not None:
            return result(
                Verdict.COUNTEREXAMPLE,
                f"the reduction inside the step is not a signed max ({why}); a concrete case confirms it",
                case,
            )
        return result(
            Verdict.UNKNOWN,
            f"the reduction inside the step: ops.{analysis.failure.node.op} at "
            f"{analysis.failure.node.where()}: {why}; no concrete counterexample found",
        )
    # Only where vd[0] is written does r matter (part 1 holds for every r elsewhere: the
    # spec relation asks nothing of the result when it traps, is reserved or vl = 0).
    written = wf + [spec.retires_with_elements(cfg, pre, insn)]
    matcher = Matcher(
        cfg, spec.seed(cfg, pre, insn), spec.elements(cfg, pre, insn), written, pre, insn, timeout_ms
    )
    labels, pairs, stranger, _ = inclusion_pairs(machine, analysis, cfg, pre, insn, matcher)
    if stranger is not None:
        case = _search(step_fn, cfg, tail, start + max(5.0, timeout_ms / 1000))
        if case is not None:
            return result(
                Verdict.COUNTEREXAMPLE,
                "the reduction joins a value that is not one of the "
                "spec's operands; a concrete case confirms the step is wrong",
                case,
            )
        return result(
            Verdict.UNKNOWN,
            f"a value the reduction joins ({_short(stranger)}) is not shown to "
            "equal the spec's seed or one of its elements; no concrete case found",
        )
    residue = residue_pairs(labels, pairs, pre.vl, cfg.vlmax)
    for k in range(0, len(residue), cp.CHUNK):
        chunk = residue[k : k + cp.CHUNK]
        answer = prove(written, fast.and_(*[a == b for _, a, b in chunk]), timeout_ms)
        solvers.add(answer.solver)
        if answer.verdict == Verdict.COUNTEREXAMPLE:
            model = answer.model
            wrong = [
                label
                for label, a, b in chunk
                if model is not None and not z3.is_true(model.eval(a == b, model_completion=True))
            ]
            case = (
                _targeted(step_fn, cfg, tail, wrong[0] if wrong else None)
                or _replayed_model(step_fn, cfg, tail, model, pre, insn, wrong[0] if wrong else None)
                or _search(step_fn, cfg, tail, start + max(5.0, timeout_ms / 1000))
            )
            what = (
                "an operand"
                if not wrong
                else "the seed"
                if wrong[0] == "seed"
                else "a constant"
                if wrong[0] == "constant"
                else f"vs2[{wrong[0]}]"
            )
            if case is not None:
                return result(
                    Verdict.COUNTEREXAMPLE,
                    f"{what} reaches the reduction's result under a condition other than the spec's",
                    case,
                )
            return result(
                Verdict.UNKNOWN,
                "an operand reaches the reduction's result under a condition other "
                "than the spec's, but no concrete case confirmed it",
            )
        if answer.verdict != Verdict.PROVED:
            return result(answer.verdict, f"comparing the reduction's conditions: {answer.detail}")

    # 3. the algebra
    from vredmax.proofs.engine import compositional as comp

    for name in comp.ALGEBRA:
        answer = comp.check(comp.lemma_part(cfg.sew, name).build(), timeout_ms)
        if answer.verdict != Verdict.PROVED:
            return result(answer.verdict, f"lemma {name}: {answer.detail}")
    text = ", ".join(sorted(cp._solver_text() if s == "z3" else s for s in solvers))
    return result(
        Verdict.PROVED,
        f"instruction with the reduction cut out: {len(cases)} cases of the spec "
        f"relation ({solver}); reduction by cut points: {analysis.nodes} nodes, "
        f"{len(analysis.shapes)} cone shapes, {len(pairs)} inclusion conditions against the spec's "
        f"({len(pairs) - len(residue)} identical as terms or in normal form over vl){_equal_text(matcher)}; "
        f"{len(comp.ALGEBRA)} algebra lemmas; "
        f"tail {tail}",
        solver=text,
    )


@dataclass
class SeveralAnswer:
    verdict: Verdict
    detail: str
    solvers: set


def _several_reductions(machine, traps, post, pre, insn, wf, cfg: Config, timeout_ms: int) -> SeveralAnswer:
    """Several reductions reach the machine ops (an emulator's masked and unmasked loops chosen
    by vm, say), each cut at its own r_k. Each is taken apart by cut points: E_k, a condition
    on the pre-state, says its inclusion conditions are the spec's (then r_k is the spec's
    result). The instruction is proved for every r_1..r_n with the result required to be some
    r_k whose E_k holds. Sound: with r_k the reductions' real values, vd[0] is one whose
    conditions are the spec's, i.e. the signed max of the seed and the active elements (the
    algebra lemmas). PROVED, or why not (the caller then searches for a concrete case)."""
    from vredmax.proofs.engine import compositional as comp

    guards, solvers, nodes = [], set(), 0
    written = wf + [spec.retires_with_elements(cfg, pre, insn)]
    matcher = Matcher(
        cfg, spec.seed(cfg, pre, insn), spec.elements(cfg, pre, insn), written, pre, insn, timeout_ms
    )
    for root, _ in machine.cuts:
        analysis = StepDenoter(cfg.sew, list(machine.tracer.conditions), timeout_ms, machine.tracer).run(root)
        if analysis.failure is not None:
            return SeveralAnswer(
                Verdict.UNKNOWN, f"a reduction is no signed max: {analysis.failure.reason}", solvers
            )
        _, pairs, stranger, equal = inclusion_pairs(machine, analysis, cfg, pre, insn, matcher)
        if stranger is not None:
            return SeveralAnswer(
                Verdict.UNKNOWN, f"a reduction joins {_short(stranger)}, none of the spec's operands", solvers
            )
        # a leaf equal to its operand (proved where vd[0] is written) carries that in the guard
        guards.append(fast.and_(*[a == b for a, b in pairs if not fast.same(a, b)], *equal))
        nodes += analysis.nodes
    cut_values = [r for _, r in machine.cuts]
    solver = "bitwuzla" if cfg.vlen >= comp.BIG_VLEN and available("bitwuzla") else "z3"
    try:
        cases = spec.relation_cases(
            cfg,
            pre,
            insn,
            impl_outcome(traps),
            post,
            lambda value: fast.or_(*[z3.And(value == r, guard) for r, guard in zip(cut_values, guards)]),
        )
    except Exception as error:
        return SeveralAnswer(Verdict.ERROR, f"the post-state does not fit the spec: {error}", solvers)
    answer = comp.check(comp.Cases(wf, [(n, w, z3.simplify(g)) for n, w, g in cases], solver), timeout_ms)
    solvers.add(answer.solver)
    if answer.verdict != Verdict.PROVED:
        return SeveralAnswer(
            answer.verdict,
            f"the instruction with the reductions cut out: {answer.verdict.value} {answer.detail}".strip(),
            solvers,
        )
    for name in comp.ALGEBRA:
        lemma = comp.check(comp.lemma_part(cfg.sew, name).build(), timeout_ms)
        if lemma.verdict != Verdict.PROVED:
            return SeveralAnswer(lemma.verdict, f"lemma {name}: {lemma.detail}", solvers)
    return SeveralAnswer(
        Verdict.PROVED,
        f"instruction with {len(cut_values)} reductions cut out, vd[0] one whose "
        f"inclusion conditions are the spec's: {len(cases)} cases of the spec relation ({solver}); "
        f"reductions by cut points: {nodes} nodes; {len(comp.ALGEBRA)} algebra lemmas",
        solvers,
    )


def _uncut_other_values(machine, traps, post, pre, insn, wf, cfg: Config, timeout_ms: int):
    """Several element-ops values reach the machine ops, not all of them reductions: a tail
    element chosen with `ops.ite`, an element-wide piece of vd that met the result in a
    plain-Python `|`. Each cut that is no guarded signed max of the spec's operands is put back
    as its exact Z3 term (a cut is only a name for its value: substituting the value is exact,
    so nothing is assumed of it), provided one reduction stays cut; the proof then goes on
    with the reductions alone. (traps, post) with the cuts put back; machine.cuts keeps the
    reductions."""
    written = wf + [spec.retires_with_elements(cfg, pre, insn)]
    matcher = Matcher(
        cfg, spec.seed(cfg, pre, insn), spec.elements(cfg, pre, insn), written, pre, insn, timeout_ms
    )
    reductions, others = [], []
    for root, variable in machine.cuts:
        if root.width == cfg.sew:
            analysis = StepDenoter(cfg.sew, list(machine.tracer.conditions), timeout_ms, machine.tracer).run(
                root
            )
            if (
                analysis.failure is None
                and inclusion_pairs(machine, analysis, cfg, pre, insn, matcher)[2] is None
            ):
                reductions.append((root, variable))
                continue
        others.append((root, variable))
    if not reductions or not others:
        return traps, post
    inputs, conditions = machine.tracer.inputs, machine.tracer.conditions

    def leaf(node):
        return (
            inputs[node.param]
            if node.op == "input"
            else conditions[node.param]
            if node.op == "flag"
            else None
        )

    exact = [(variable, evaluate(Z3Elements(cfg.sew), root, leaf)) for root, variable in others]

    def put_back(term):
        return z3.substitute(term, *exact) if isinstance(term, z3.ExprRef) else term

    machine.cuts = reductions
    traps = [(rule, put_back(cond)) for rule, cond in traps]
    post = ArchState(
        post.vlen, post.elen, *[put_back(getattr(post, f)) for f in ("regs", "vtype", "vl", "vstart", "vs")]
    )
    return traps, post


def inclusion_pairs(machine, analysis, cfg: Config, pre, insn, matcher: Matcher):
    """(labels, pairs, None, equal): for the seed, each element and each constant the reduction
    joins, (the condition under which it reaches the result, the spec's), and the equalities
    `leaf == operand` of the leaves matched by value (proved where vd[0] is written); or
    (None, None, term, None) when a joined value is not shown to be one of the spec's operands.
    A result known only between two guarded maxima (a selection on its way, a minimum of lanes
    already joined) has the pairs of both: each bound the spec's, so is what lies between."""
    found = _root_pairs(machine, analysis.root, cfg, pre, insn, matcher)
    if analysis.upper is None or found[2] is not None:
        return found
    above = _root_pairs(machine, analysis.upper, cfg, pre, insn, matcher)
    if above[2] is not None:
        return above
    return found[0] + above[0], found[1] + above[1], None, found[3] + above[3]


def _root_pairs(machine, root, cfg: Config, pre, insn, matcher: Matcher):
    """inclusion_pairs of one guarded join."""
    conds = cp.inclusion(root) if root is not cp.EMPTY else {}
    elements, activity = matcher.elements, spec.activity(cfg, pre, insn)
    false = z3.BoolVal(False)
    got = {"seed": [], **{i: [] for i in range(len(elements))}}
    leaves = [(label, cond) for label, cond in conds.items() if label[0] == "input"]
    terms = [machine.tracer.inputs[label[1]] for label, _ in leaves]
    equal = []
    for term, which, (_, cond) in zip(terms, matcher.match(terms), leaves):
        if which is None:
            return None, None, term, None
        if isinstance(which, tuple):  # ("blend", i): vs2[i] where active, the bottom elsewhere
            got[which[1]].append(fast.and_(cond, matcher.active(which[1])))
        else:
            got[which].append(cond)
        if not term.eq(matcher.operand(which)):
            equal.append(term == matcher.operand(which))
    constants = [cond for label, cond in conds.items() if label[0] != "input"]
    labels = ["seed"] + list(range(len(elements))) + ["constant"] * len(constants)
    pairs = [(fast.or_(*got["seed"]) if got["seed"] else false, z3.BoolVal(True))]
    pairs += [(fast.or_(*got[i]) if got[i] else false, activity[i]) for i in range(len(elements))]
    pairs += [(c, false) for c in constants]
    return labels, pairs, None, equal


def residue_pairs(labels, pairs, vl, vlmax: int) -> list:
    """(label, a, b) of the pairs not shown equal without a solver: neither the same term nor
    the same term once both are in their normal form over vl (proofs/python/scalarpieces.py:
    a loop's bound on vl written another way than the spec's `k < vl`). The pairs left are
    handed on in their normal form (equal to the original, usually smaller). The normal form
    holds where vl <= VLMAX: so do the conditions every pair is proved under (`written`, the
    configuration's: spec/state.py reachable_conditions)."""
    normaliser = Normaliser(vl, vlmax)
    residue = []
    for label, (a, b) in zip(labels, pairs):
        if fast.same(a, b):
            continue
        a, b = normaliser.normal(a), normaliser.normal(b)
        if not fast.same(a, b):
            residue.append((label, a, b))
    return residue


def _equal_text(matcher: Matcher) -> str:
    if not matcher.by_value:
        return ""
    return (
        f"; {matcher.by_value} leaves equal to the spec's operands by {matcher.asked} "
        f"solver quer{'y' if matcher.asked == 1 else 'ies'}"
    )


def split_writes(cfg: Config, pre, insn, outcome, post, r, cases):
    """The spec's cases with the one where vd is written split into its requirements: the
    result, the tail (per value of vta), the CSRs, and the frame per register (`vd != k`
    implies register k kept; together they are the whole file, as the index has 5 bits). A
    solver that gives up on the whole (a register file in a dict rebuilt at VLEN 1024) decides
    the pieces; each is a query of its own, the conjunction the same claim."""
    out = []
    for name, when, required in cases:
        if name != "writes":
            out.append((name, when, required))
            continue
        stays = z3.Not(outcome.trapped)
        parts = spec.write_requirements(cfg, pre, insn, post, lambda value: value == r)
        out.append(("writes: result", when, z3.And(stays, parts["result"])))
        for agnostic in (spec.vta(pre), z3.Not(spec.vta(pre))):
            out.append((f"writes: tail, {agnostic}", z3.And(when, agnostic), parts["tail"]))
        out.append(("writes: CSRs", when, parts["csrs"]))
        for k in range(32):
            index = z3.BitVecVal(k, insn.vd.size())
            out.append(
                (
                    f"writes: v{k} kept",
                    z3.And(when, insn.vd != index),
                    z3.Select(post.regs, index) == z3.Select(pre.regs, index),
                )
            )
    return out


FUSION_DEPTH = 60_000  # Python frames for putting a running pair back together (_Fusion)


def _halves(node: Term):
    """(high, low) when the node puts two narrower values side by side,
    `zext(high) << k | zext(low)` with low k bits wide (or `+`: no carry can occur); else None."""
    if node.op not in ("bor", "add") or len(node.args) != 2:
        return None
    for shifted, low in (node.args, node.args[::-1]):
        if shifted.op != "shl" or low.op != "zext" or shifted.args[0].op != "zext":
            continue
        amount, high = shifted.args[1], shifted.args[0].args[0]
        k = low.args[0].width
        if amount.op == "const" and amount.param == k and high.width + k == node.width:
            return high, low.args[0]
    return None


class _Fusion:
    """A value kept as two halves, each chosen by the same conditions (a SEW=64 element
    compared as its high and low 32 bits, its running maximum a pair), put back together:
    `concat(ite(c, a1, a2), ite(c, b1, b2))` is `ite(c, concat(a1, b1), concat(a2, b2))`, down
    to the halves of one value (an element, the seed: a leaf the step built from them), and
    each half, where a condition reads it, the high or low bits of its pair's whole. Every
    node made has the value of the one it stands for (ite distributes over concat), so the
    reduction keeps its value and becomes one over whole elements."""

    def __init__(self, tracer: StepTracer):
        self.tracer = tracer
        self.pairs: dict = {}  # id(half) -> (is it the high half, high, low)
        self.built: dict = {}
        self.fused: dict = {}

    def run(self, root: Term) -> Term:
        parts = _halves(root)
        if parts is None:
            return root
        self._pair(*parts)
        # a running pair is a chain a few calls deep per element (Python calls of its own
        # since 3.11, no C stack): rebuilt within a limit, as it was past it
        limit = sys.getrecursionlimit()
        sys.setrecursionlimit(max(limit, FUSION_DEPTH))
        try:
            return self.fuse(*parts)
        except RecursionError:
            return root
        finally:
            sys.setrecursionlimit(limit)

    def _pair(self, high: Term, low: Term) -> None:
        stack, seen = [(high, low)], set()
        while stack:
            a, b = stack.pop()
            if (id(a), id(b)) in seen:
                continue
            seen.add((id(a), id(b)))
            self.pairs.setdefault(id(a), (True, a, b))
            self.pairs.setdefault(id(b), (False, a, b))
            stack.extend(self._split(a, b)[1])

    @staticmethod
    def _split(a: Term, b: Term):
        """(the condition both are chosen by, the pairs it chooses between), or (None, [])."""
        ite_a, ite_b = a.op == "ite" and a.width != BOOL, b.op == "ite" and b.width != BOOL
        if ite_a and ite_b and a.args[0] is b.args[0]:
            return a.args[0], [(a.args[1], b.args[1]), (a.args[2], b.args[2])]
        if ite_a:
            return a.args[0], [(a.args[1], b), (a.args[2], b)]
        if ite_b:
            return b.args[0], [(a, b.args[1]), (a, b.args[2])]
        return None, []

    def fuse(self, a: Term, b: Term) -> Term:
        key = (id(a), id(b))
        found = self.fused.get(key)
        if found is None:
            make, width = self.tracer.make, a.width + b.width
            condition, choices = self._split(a, b)
            if condition is None:  # one value's halves, side by side as the step put them
                high = make(
                    "shl",
                    (make("zext", (a,), b.width, width), self.tracer.const(b.width, width)),
                    None,
                    width,
                )
                found = self._leaf(make("bor", (high, make("zext", (b,), a.width, width)), None, width))
            else:
                found = make(
                    "ite", (self.build(condition), *[self.fuse(x, y) for x, y in choices]), None, width
                )
            self.fused[key] = found
        return found

    def _leaf(self, node: Term) -> Term:
        """A whole put together from machine values alone: the leaf of its Z3 term (an element,
        the seed, read as its two halves), so that what compares its halves compares it."""
        if not all(n.op in ("input", "const") for n in cp.post_order(node) if not n.args):
            return node
        inputs = self.tracer.inputs
        term = evaluate(Z3Elements(node.width), node, lambda n: inputs[n.param] if n.op == "input" else None)
        return self.tracer.leaf_for(z3.simplify(term))

    def build(self, node: Term) -> Term:
        """The node with each half it reads taken from its pair's whole."""
        found = self.built.get(id(node))
        if found is None:
            pair = self.pairs.get(id(node))
            if pair is not None:
                is_high, a, b = pair
                whole = self.fuse(a, b)
                bits = (whole.width - 1, b.width) if is_high else (b.width - 1, 0)
                found = self.tracer.make("extract", (whole,), bits, bits[0] - bits[1] + 1)
            elif not node.args:
                found = node
            else:
                found = self.tracer.make(
                    node.op, tuple([self.build(x) for x in node.args]), node.param, node.width
                )
            self.built[id(node)] = found
        return found


class StepDenoter(cp.Denoter):
    """Leaves are the step's z3 terms: values become atoms, conditions are the step's own. An
    element-wide value computed from machine values alone, some of them no whole elements
    (bytes, a register), is a leaf too: its Z3 term (an element put together from its bytes
    is one value of the pre-state, whatever the operations that assembled it)."""

    # a root known only between two guarded maxima (a selection on its way) is checked by
    # both (inclusion_pairs), never by its lower bound alone
    BOUNDS_AT_ROOT = True

    def __init__(self, sew: int, flags: list, timeout_ms: int, tracer: StepTracer):
        super().__init__(sew, flags, timeout_ms)
        self.tracer = tracer
        self._machine: dict = {}  # id(node) -> (only machine values, some not element-wide)
        self._blends: dict = {}  # id(node) -> (machine values and conditions alone, a condition, size)

    def run(self, root: Term) -> cp.Analysis:
        return super().run(_Fusion(self.tracer).run(root))

    def leaf(self, node):
        if node.op == "input":
            return atom(("input", node.param))
        return super().leaf(node)

    def denote(self, node, is_root):
        if node.op == "input":
            return self.leaf(node), 0
        if node.args and self._assembled(node) == (True, True):
            inputs = self.tracer.inputs
            term = evaluate(
                Z3Elements(self.sew), node, lambda n: inputs[n.param] if n.op == "input" else None
            )
            leaf = self.tracer.leaf_for(z3.simplify(term))
            if leaf.op == "input":
                return self.leaf(leaf), 0
        failure = self.analysis.failure
        try:
            found = super().denote(node, is_root)
        except cp.ConeTooLarge:  # a wider machine value in its cone, say: a blend may still be
            found = self._denote_blend(node, None)
            if found is None:
                raise
        found = self._denote_blend(node, found)
        if found is not None:
            self.analysis.failure = failure  # a local proof that gave up is not needed
        return found

    def _denote_blend(self, node, found):
        """A node with no denotation computed from machine values and conditions (and
        constants) alone, `x & keep | MIN & ~keep` with the element x and the mask `keep` read
        by the machine ops, the choice of MIN's bits over the conditions traced: one leaf, its
        Z3 term over the pre-state. That it is an element when active and the signed minimum
        (max's neutral element) otherwise is the solver's to show, per leaf (Matcher, a
        blend): the leaf's term does not grow with VLMAX, as a cone of the operations behind
        it would (the cone of the running maximum they feed)."""
        if found is not None or node.width != self.sew or not node.args or not self._blendable(node):
            return found
        leaf = self.tracer.leaf_for(self._term(node))
        return (self.leaf(leaf), 0) if leaf.op == "input" else found

    def wide_leaf(self, node):
        """A machine value wider than an element (an input, or a blend: `_denote_blend`) that
        is its low SEW bits sign- or zero-extended (`x - ((x >> (sew - 1)) << sew)` on the
        machine ops: a lane read as a signed Python int): the leaf of those bits, so encoded
        (an identity of bit-vectors proved for all values; the low bits are matched as any
        leaf, as a blend too)."""
        if node.op == "input":
            term = self.tracer.inputs[node.param]
        elif node.args and self._blendable(node):
            term = self._term(node)
        else:
            return None
        sew = self.sew
        low = z3.simplify(z3.Extract(sew - 1, 0, term))
        for extension, extend in (("sext", z3.SignExt), ("zext", z3.ZeroExt)):
            if prove([], term == extend(node.width - sew, low), self.timeout_ms).verdict == Verdict.PROVED:
                leaf = self.tracer.leaf_for(low)
                return (self.leaf(leaf), (extension, node.width, 0)) if leaf.op == "input" else None
        return None

    def _term(self, node):
        """The Z3 term over the pre-state of a node of machine values and conditions alone."""
        inputs, conditions = self.tracer.inputs, self.tracer.conditions
        term = evaluate(
            Z3Elements(node.width),
            node,
            lambda n: inputs[n.param] if n.op == "input" else conditions[n.param] if n.op == "flag" else None,
        )
        return z3.simplify(term)

    def _blendable(self, node) -> bool:
        """The node depends on machine values, conditions and constants alone, on a condition
        among them, through at most CONE_LIMIT operations (one lane's blend, not a reduction
        of them)."""
        known = self._blends
        if id(node) not in known:
            for n in cp.post_order(node, known):
                if not n.args:
                    known[id(n)] = (n.op in ("input", "const", "flag", "bool"), n.op == "flag", 0)
                else:
                    parts = [known[id(a)] for a in n.args]
                    size = min(1 + sum(p[2] for p in parts), cp.CONE_LIMIT + 1)
                    known[id(n)] = (all(p[0] for p in parts), any(p[1] for p in parts), size)
        machine, flag, size = known[id(node)]
        return machine and flag and size <= cp.CONE_LIMIT

    def _assembled(self, node):
        """(the node depends on machine values and constants alone, one of them is no element)."""
        known = self._machine
        if id(node) not in known:
            for n in cp.post_order(node, known):  # iterative: a running maximum is a long chain
                if n.op == "input":
                    known[id(n)] = (True, n.width != self.sew)
                elif n.op == "const":
                    known[id(n)] = (True, False)
                elif not n.args:
                    known[id(n)] = (False, False)
                else:
                    parts = [known[id(a)] for a in n.args]
                    known[id(n)] = (all(p for p, _ in parts), any(o for _, o in parts))
        found = known[id(node)]
        return found


# Concrete confirmation ----------------------------------------------------------------------


def differs(step_fn, pre: ArchState, insn, cfg: Config, tail: str) -> bool:
    """The step, run concretely, does what the executable spec does not (by outcome kind and
    post-state)."""
    try:
        traps, post = step_fn(Concrete, pre, insn, cfg, tail)
        fired = [rule for rule, cond in traps if cond]
    except Exception:
        return False
    want = execute(pre, insn, "sequential", tail)
    kind = fired[0].outcome if fired else RETIRED
    if kind != want.outcome:
        return True
    fields = ("regs", "vtype", "vl", "vstart", "vs")
    return any(getattr(post, f) != getattr(want.state, f) for f in fields)


def _targeted(step_fn, cfg: Config, tail: str, label):
    """Small cases around the operand whose condition is wrong: it the largest value, the
    fewest active elements first."""
    if not isinstance(label, int):
        return None
    count, smin, top = cfg.vlmax, 1 << (cfg.sew - 1), (1 << (cfg.sew - 1)) - 1
    for active in ({label}, set(), {0, label} if label else {0, 1}):
        for low in (0, smin):
            elements = [smin] * count
            for i in active:
                elements[i] = low
            elements[label] = top
            pre, insn = make_case(cfg, low, elements, active)
            if differs(step_fn, pre, insn, cfg, tail):
                return pre, insn
    return None


def _replayed_model(step_fn, cfg, tail, model, pre, insn, label=None):
    """The solver's case, as it is, then with the operand whose condition is wrong made the
    strictly largest (the model fixes vl, the mask and the registers, not the values that make
    the wrong condition show: a bug at vl = VLMAX alone is found here, not by small cases)."""
    if model is None:
        return None
    from vredmax.proofs.engine.counterexample import concrete_case

    try:
        concrete_pre, concrete_insn = concrete_case(model, cfg, pre, insn)
    except Exception:
        return None
    for candidate in [concrete_pre] + _emphasised(cfg, concrete_pre, concrete_insn, label):
        if differs(step_fn, candidate, concrete_insn, cfg, tail):
            return candidate, concrete_insn
    return None


def _emphasised(cfg: Config, pre: ArchState, insn, label) -> list:
    """The case with `label` (the seed or element i) the largest value and every other
    operand the signed minimum (or 0): a wrong condition of it changes vd[0]. Then the label
    larger than the others (0) only by the top bit of a byte, a half-word or a word
    (0x80, 0x8000, 0x80000000): a comparison made piece by piece that reads one piece's
    sign wrong (the low half compared signed) takes another operand over it."""
    if label is None or label == "constant":
        return []
    smin, top, sew, per = 1 << (cfg.sew - 1), (1 << (cfg.sew - 1)) - 1, cfg.sew, cfg.elements_per_register
    pairs = [(top, smin), (top, 0)] + [(1 << k, 0) for k in (7, 15, 31) if k < sew - 1]
    cases = []
    for high, low in pairs:
        regs = list(pre.regs)
        for i in range(cfg.vlmax):
            register = (insn.vs2 + i // per) % 32
            shift = (i % per) * sew
            value = high if label == i else low
            regs[register] = regs[register] & ~(((1 << sew) - 1) << shift) | value << shift
        seed = high if label == "seed" else low
        regs[insn.vs1] = regs[insn.vs1] & ~((1 << sew) - 1) | seed
        cases.append(pre.with_(regs=tuple(regs)))
    return cases


def _search(step_fn, cfg: Config, tail: str, deadline: float):
    """Small concrete cases (the layout of cutcases.make_case) until the deadline."""
    count = cfg.vlmax
    smin, top, ones = 1 << (cfg.sew - 1), (1 << (cfg.sew - 1)) - 1, (1 << cfg.sew) - 1
    edges = [0, 1, top, smin, ones]
    group = cfg.group_registers
    layouts = [(VD, VS2, VS1), (VS2, VS2, VS1), (VS1, VS2, VS1), (VS2 + group - 1, VS2, VS1)]
    for registers in layouts:
        for active in [set(), {0}, {1}, {0, 1}, {count - 1}]:
            if any(i >= count for i in active):
                continue
            for seed, value, inactive in itertools.product(edges, edges, (smin, top)):
                if time.perf_counter() > deadline:
                    return None
                elements = [inactive] * count
                for i in active:
                    elements[i] = value
                pre, insn = make_case(cfg, seed, elements, active, registers)
                if differs(step_fn, pre, insn, cfg, tail):
                    return pre, insn
    return None


def _short(term) -> str:
    text = " ".join(str(term).split())
    return text if len(text) <= 70 else text[:67] + "..."
