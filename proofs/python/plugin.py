"""The two plug-in levels on symbolic values: what the user's function is handed, and what it
returned as terms for the proof.

A proof's backend (Z3Elements or the tracer's TraceElements for a unit; Symbolic or the cut
machine for a whole instruction) gives terms; the user's code gets the proxies of
proofs/python/values.py and facade.py instead, and its result is turned back into terms here.
A concrete run hands the user's code Python ints, with the same checked element ops.
"""

from __future__ import annotations

import z3

from vredmax.proofs.python import values as V
from vredmax.proofs.python.facade import (
    Z3,
    ConcreteMachine,
    ElementOps,
    ProxyMachine,
    SymInsn,
    SymRegs,
    condition_term,
    element_ops,
    field_term,
    trace_terms,
)
from vredmax.proofs.python.paths import CutContext, ProofContext
from vredmax.proofs.python.trace import TraceElements
from vredmax.spec.bv import ConcreteElements
from vredmax.spec.config import VTYPE_VILL_BIT, XLEN, Config, encode_vtype
from vredmax.spec.state import NUM_VREGS, ArchState

V.internal(__file__)


class ContractError(Exception):
    """The user's result is not what its plug-in level returns; the message says why."""


# A reduction unit -------------------------------------------------------------------------


def unit_context(ops, user_files):
    """The context of a unit's run on `ops` (None for a concrete run)."""
    if isinstance(ops, (ConcreteElements, ElementOps)) or not getattr(ops, "symbolic", False):
        return None
    return ProofContext(_rewritten(user_files))


def merge_terms(cx, results):
    """The unit's result: each path's term, chosen by the paths' conditions."""
    (_, merged), rest = results[-1], results[:-1]
    for condition, term in reversed(rest):
        if condition is True:
            merged = term
        elif condition is not False:
            bk = condition.bk
            merged = bk.ite(condition.t, term, merged) if bk.width(term) == bk.width(merged) else merged
    return merged


def unit_arguments(ops, seed, elements, active, cx):
    """(ops, seed, elements, active) as the user's unit gets them."""
    if cx is None:
        return (ops if isinstance(ops, ElementOps) else ElementOps(ops)), seed, list(elements), list(active)
    user_ops = element_ops(ops)
    bk = user_ops.bk
    width = ops.width

    def value(term):
        if isinstance(term, int) and not isinstance(term, bool):
            return term
        return V.make_int(cx, bk, term, width, False, 0, (1 << width) - 1)

    def flag(term):
        if isinstance(term, bool):
            return term
        return V.make_bool(cx, bk, term)

    return user_ops, value(seed), [value(e) for e in elements], [flag(a) for a in active]


def unit_result(result, ops, cx):
    """The unit's result as the backend's SEW-bit term (concretely: the int, checked)."""
    width = ops.width
    if result is None:
        raise ContractError("returned None, not an element value (a missing return?)")
    if isinstance(result, (bool, V.SymBool)):
        raise ContractError(
            "returned a condition (a bool), not an element value; turn it into a value "
            "with ops.ite(condition, a, b)"
        )
    if cx is None:
        if not isinstance(result, int) or not 0 <= result < 1 << width:
            raise ContractError(
                f"returned {_short(result)} on a concrete case, not a {width}-bit element value"
            )
        return result
    if type(result) is int:
        if not 0 <= result < 1 << width:
            raise ContractError(f"returned {result}, not a {width}-bit element value (0..{(1 << width) - 1})")
        return V.fit(_backend(ops), result, width)
    if isinstance(result, V.SymInt):
        if (result.lo < 0 or result.hi >= 1 << width) and not _shown_in_range(result, width, ops):
            raise ContractError(
                f"returned a value that may be outside 0..{(1 << width) - 1} (it may be "
                f"{result.lo}..{result.hi}); mask it (& {hex((1 << width) - 1)})"
            )
        return V.fit(result.bk, result, width)
    raise ContractError(f"returned {_short(result)}, not an element value (a {width}-bit int)")


RANGE_DEPTH = 8  # the result's top operations kept in the range question, the rest free
RANGE_TIMEOUT_MS = 10_000


def _shown_in_range(result: V.SymInt, width: int, ops) -> bool:
    """The result is in 0..2**width-1 for every input, though its interval says it may not be
    (`x + 2**W if x < 0 else x`: the interval of each branch ignores the branch's condition).
    Asked of the solver about the result's top RANGE_DEPTH operations with every value below
    them free (proofs/python/selections.py: a free bit-vector of its width, or one of the leaf
    shapes of a selection: more values than the code can give, so a proof holds for the code;
    a counterexample may be spurious and is only a refusal)."""
    from vredmax.proofs.engine.verdict import Verdict, prove
    from vredmax.proofs.python.paths import is_z3
    from vredmax.proofs.python.selections import Framing

    term, facts = result.t, []
    if not is_z3(result.bk):
        framing = Framing(ops.width, RANGE_DEPTH)
        term, facts = framing.term(term), framing.facts
    at = max(result.w, width) + 2
    value = z3.SignExt(at - result.w, term) if result.s else z3.ZeroExt(at - result.w, term)
    answer = prove(facts, z3.And(value >= 0, value < (1 << width)), RANGE_TIMEOUT_MS)
    return answer.verdict == Verdict.PROVED


def _backend(ops):
    return trace_terms(ops.tracer) if isinstance(ops, TraceElements) else Z3


def _short(x) -> str:
    text = f"{type(x).__name__} {x!r}"
    return text if len(text) <= 60 else text[:57] + "..."


# A whole instruction ------------------------------------------------------------------------


def instruction_context(m, pre, cfg: Config, user_files):
    """The context of a whole instruction's symbolic run (None concretely); its paths are
    explored within the configuration's assumptions."""
    if not getattr(m, "symbolic", False):
        return None
    from vredmax.spec.relation import in_configuration

    assumptions = in_configuration(cfg, pre)
    if hasattr(m, "tracer") and hasattr(m, "_cut"):
        return CutContext(m, _rewritten(user_files), cfg.vlen, assumptions)
    return ProofContext(_rewritten(user_files), cfg.vlen, assumptions)


def _rewritten(user_files):
    """The user's files: the function's own and every file loaded rewritten (its helpers)."""
    from vredmax.proofs.python.rewrite import REWRITTEN_FILES

    return list(user_files) + sorted(REWRITTEN_FILES)


def merge_steps(cx, results, cfg: Config):
    """One (traps, post) of Z3 terms from each path's, chosen by the paths' conditions."""
    if len(results) == 1:
        return results[0][1]
    rules = []
    for _, (traps, _) in results:
        for rule, _ in traps:
            if rule not in rules:
                rules.append(rule)
    (_, (traps, post)), rest = results[-1], results[:-1]
    merged_traps = {rule: cond for rule, cond in traps}
    merged_post = post
    for condition, (traps_k, post_k) in reversed(rest):
        c = cx.z3_bool(condition)
        conds = dict(traps_k)
        merged_traps = {
            rule: z3.If(c, conds.get(rule, z3.BoolVal(False)), merged_traps.get(rule, z3.BoolVal(False)))
            for rule in rules
        }
        merged_post = ArchState(
            post.vlen,
            post.elen,
            *[
                z3.If(c, getattr(post_k, f), getattr(merged_post, f))
                for f in ("regs", "vtype", "vl", "vstart", "vs")
            ],
        )
    return [(rule, merged_traps.get(rule, z3.BoolVal(False))) for rule in rules], merged_post


def instruction_arguments(m, pre: ArchState, insn, cfg: Config, cx):
    """(m, pre, insn) as the user's step gets them."""
    if cx is None:
        return ConcreteMachine, pre, insn
    machine = ProxyMachine(m.elements)

    def field(term, width, hi):
        return V.make_int(cx, Z3, term, width, False, 0, hi)

    # Under the configuration's assumptions (spec/relation.py in_configuration) vtype is its
    # SEW and LMUL with vill, vta and vma free, vl <= VLMAX, vstart < VLEN: so the proxies'
    # bounds and the known vtype bits are sound wherever the proof is.
    vtype = z3.Concat(
        z3.Extract(VTYPE_VILL_BIT, VTYPE_VILL_BIT, pre.vtype),
        z3.BitVecVal(0, VTYPE_VILL_BIT - 8),
        z3.Extract(7, 6, pre.vtype),
        z3.BitVecVal(encode_vtype(cfg.sew, cfg.lmul), 6),
    )
    proxy = ArchState(
        pre.vlen,
        pre.elen,
        SymRegs(cx, cfg.vlen, pre.regs),
        field(vtype, XLEN, (1 << XLEN) - 1),
        field(pre.vl, XLEN, cfg.vlmax),
        field(pre.vstart, XLEN, cfg.vlen - 1),
        field(pre.vs, 2, 3),
    )
    fields = SymInsn(*(field(getattr(insn, f), 5, 31) for f in ("vd", "vs2", "vs1")), field(insn.vm, 1, 1))
    return machine, proxy, fields


def instruction_result(result, cfg: Config, cx):
    """(traps, post) as Z3 terms; ContractError when it is not (traps, post-state)."""
    if not (isinstance(result, tuple) and len(result) == 2 and isinstance(result[1], ArchState)):
        got = "None" if result is None else type(result).__name__
        raise ContractError(f"must return (traps, post-state) as impl.execute.step does, got {got}")
    traps, post = result
    try:
        traps = [(rule, cond) for rule, cond in traps]
        for rule, _ in traps:
            rule.outcome  # noqa: B018 (reading it checks the type)
    except (TypeError, ValueError, AttributeError):
        raise ContractError("traps must be a list of (spec.legality.TrapRule, condition) pairs") from None
    if cx is None:
        return traps, post
    with cx:
        traps = [(rule, condition_term(cond)) for rule, cond in traps]
        regs = post.regs
        if isinstance(regs, SymRegs):
            array = regs.array
        elif isinstance(regs, (tuple, list)) and len(regs) == NUM_VREGS:
            array = SymRegs.of(regs).array
        else:
            raise ContractError(
                f"post.regs must be the register file: {NUM_VREGS} registers of {cfg.vlen} bits"
            )
        fields = {
            name: field_term(getattr(post, name), width, name)
            for name, width in (("vtype", XLEN), ("vl", XLEN), ("vstart", XLEN), ("vs", 2))
        }
    return traps, ArchState(post.vlen, post.elen, array, **fields)
