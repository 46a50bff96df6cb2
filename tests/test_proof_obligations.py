"""The obligation catalogue and its runner: proofs go through, and the machinery can fail."""

from __future__ import annotations

import re

import pytest
import z3

import vredmax.impl.execute
from vredmax.impl import ALGORITHMS
from vredmax.impl.tree import fold_tree
from vredmax.proofs.engine import compositional
from vredmax.proofs.engine import lemmas
from vredmax.proofs.obligations import catalogue
from vredmax.proofs.obligations import runner
from vredmax.proofs.engine.compositional import Part, Query
from vredmax.proofs.obligations.catalogue import Obligation
from vredmax.proofs.engine.setting import SPEC, Setting
from vredmax.proofs.engine.verdict import Verdict
from vredmax.spec.config import Config

SMALL = [
    Config(128, 64, 8, "m1"),
    Config(128, 64, 16, "m2"),
    Config(128, 64, 64, "m8"),
    Config(128, 64, 8, "mf8"),
    Config(256, 64, 32, "mf2"),
]


def test_catalogue_shape():
    invariants = [o for o in catalogue.OBLIGATIONS if o.kind != "lemma"]
    assert len(invariants) >= 20
    names = [o.name for o in catalogue.OBLIGATIONS]
    assert len(names) == len(set(names))
    for obligation in catalogue.OBLIGATIONS:
        assert re.fullmatch(r"vredmax\.sew16\.[a-z0-9_.]+", obligation.id(16))
        assert obligation.sentence.endswith(".") and obligation.subjects
    for name in (
        "vl0_preserves_vd",
        "seed_included",
        "masked_ignored",
        "past_vl_ignored",
        "frame",
        "tail_undisturbed",
        "tail_agnostic",
        "vma_irrelevant",
        "vstart_nonzero_traps_at_vl0",
        "order_independent",
        "monotone",
        "refines_spec",
        "algorithms_agree",
        "spec_deterministic",
    ):
        catalogue.by_name(name)
    # invariants are proved of the spec and of every algorithm with every tail policy
    assert set(catalogue.by_name("seed_included").subjects) == {SPEC} | {
        f"{a}/{t}" for a in ALGORITHMS for t in ("undisturbed", "ones")
    }


@pytest.mark.parametrize("cfg", SMALL, ids=str)
def test_everything_is_proved_compositionally(cfg):
    for obligation in catalogue.obligations(cfg=cfg):
        for subject in obligation.subjects:
            result = runner.run(obligation, cfg, subject)
            assert result.answer.verdict == Verdict.PROVED, (result.id, subject, result.answer.detail)
            assert f"VLEN={cfg.vlen}" in result.bounds or obligation.kind == "lemma"


def test_monolithic_cross_check_at_vlmax_2():
    cfg = Config(128, 64, 64, "m1")
    for obligation in catalogue.obligations(cfg=cfg):
        for subject in obligation.subjects:
            result = runner.run(obligation, cfg, subject, "monolithic")
            assert result.answer.verdict == Verdict.PROVED, (result.id, subject, result.answer.detail)


@pytest.mark.parametrize("name", ["refines_spec", "masked_ignored", "tail_agnostic", "spec_deterministic"])
def test_monolithic_cross_check_at_vlmax_4(name):
    cfg = Config(128, 64, 32, "m1")
    obligation = catalogue.by_name(name)
    for subject in obligation.subjects[:3]:
        assert runner.run(obligation, cfg, subject, "monolithic").answer.verdict == Verdict.PROVED


# Broken algorithms, as users write them ---------------------------------------------------------


def tree_padding_with_zero(ops, seed, elements, active):
    leaves = [ops.ite(a, v, ops.const(0)) for v, a in zip(elements, active)]
    return ops.smax(seed, fold_tree(ops, leaves)) if leaves else seed


def dropping_the_last_element(ops, seed, elements, active):
    acc = seed
    for value, is_active in list(zip(elements, active))[:-1]:
        acc = ops.ite(is_active, ops.smax(acc, value), acc)
    return acc


def mask_inverted(ops, seed, elements, active):
    acc = seed
    for value, is_active in zip(elements, active):
        acc = ops.ite(ops.not_(is_active), ops.smax(acc, value), acc)
    return acc


def unsigned_compare(ops, seed, elements, active):
    acc = seed
    for value, is_active in zip(elements, active):
        acc = ops.ite(is_active, ops.umax(acc, value), acc)
    return acc


BROKEN = [tree_padding_with_zero, dropping_the_last_element, mask_inverted]


@pytest.mark.parametrize("unit", BROKEN, ids=lambda u: u.__name__)
@pytest.mark.parametrize("method", ["compositional", "monolithic"])
def test_a_broken_unit_does_not_refine_the_spec(unit, method):
    cfg = Config(128, 64, 16, "m1")
    setting = Setting(cfg, units={"tree": unit})
    result = runner.run(catalogue.by_name("refines_spec"), cfg, "tree/ones", method, setting=setting)
    assert result.answer.verdict == Verdict.COUNTEREXAMPLE, result.answer.detail
    agree = runner.run(
        catalogue.by_name("algorithms_agree"), cfg, "sequential=tree/ones", method, setting=setting
    )
    assert agree.answer.verdict == Verdict.COUNTEREXAMPLE


def test_a_unit_that_compares_values_cannot_be_read_compositionally():
    cfg = Config(128, 64, 32, "m1")
    setting = Setting(cfg, units={"lanes": unsigned_compare})
    refines = catalogue.by_name("refines_spec")
    assert runner.run(refines, cfg, "lanes/ones", setting=setting).answer.verdict == Verdict.ERROR
    assert (
        runner.run(refines, cfg, "lanes/ones", "monolithic", setting=setting).answer.verdict
        == Verdict.COUNTEREXAMPLE
    )


def test_a_derived_invariant_is_decided_directly_when_the_proof_does_not_go_through():
    """tree_padding_with_zero does not refine the spec, yet it does include the seed: the
    compositional proof fails at the unit, and the monolithic query decides (small VLMAX)."""
    cfg = Config(128, 64, 16, "m1")
    setting = Setting(cfg, units={"tree": tree_padding_with_zero})
    seed = runner.run(catalogue.by_name("seed_included"), cfg, "tree/undisturbed", setting=setting)
    assert seed.answer.verdict == Verdict.PROVED and "monolithic" in seed.answer.detail
    bounds = runner.run(catalogue.by_name("result_is_candidate"), cfg, "tree/undisturbed", setting=setting)
    assert bounds.answer.verdict == Verdict.COUNTEREXAMPLE


def test_a_broken_tail_write_is_caught(monkeypatch):
    cfg = Config(128, 64, 8, "m1")
    original = vredmax.impl.execute.written_vd

    def broadcast(m, old_vd, result, vta, cfg_, tail):  # the result copied into every element
        value = result
        for _ in range(cfg_.elements_per_register - 1):
            value = m.concat(value, result, cfg_.sew)
        return value

    monkeypatch.setattr(vredmax.impl.execute, "written_vd", broadcast)
    setting = Setting(cfg)
    for name in ("tail_undisturbed", "refines_spec"):
        result = runner.run(catalogue.by_name(name), cfg, "sequential/undisturbed", setting=setting)
        assert result.answer.verdict == Verdict.COUNTEREXAMPLE, name
    monkeypatch.setattr(vredmax.impl.execute, "written_vd", original)


def test_vacuous_assumptions_give_error():
    cfg = Config(128, 64, 8, "m1")

    def build(s):
        return Query(s.wf + [s.pre.vl == 0, s.pre.vl == 1], z3.BoolVal(False))

    vacuous = Obligation(
        "vacuous_example",
        "Nothing can satisfy this.",
        "instruction",
        lambda s, subject: build(s),
        lambda s, subject: [Part(("vacuous", cfg), "contradiction", lambda: build(s))],
        subjects=(SPEC,),
    )
    for method in ("compositional", "monolithic"):
        answer = runner.run(vacuous, cfg, SPEC, method, setting=Setting(cfg)).answer
        assert answer.verdict == Verdict.ERROR and "vacuous" in answer.detail


def test_a_timeout_is_unknown_never_proved():
    cfg = Config(128, 64, 8, "m2")  # VLMAX = 32: far beyond a monolithic query's reach
    result = runner.run(
        catalogue.by_name("algorithms_agree"),
        cfg,
        "sequential=tree/undisturbed",
        "monolithic",
        timeout_s=0.5,
        setting=Setting(cfg),
    )
    assert result.answer.verdict == Verdict.UNKNOWN


def test_run_rejects_a_subject_the_obligation_is_not_about():
    with pytest.raises(ValueError, match="subject"):
        runner.run(catalogue.by_name("refines_spec"), Config(128, 64, 8, "m1"), SPEC)


def test_the_documents_name_only_lemmas_that_exist():
    text = compositional.soundness_argument() + compositional.method_text()
    mentioned = set(re.findall(r"`([a-z_]+)`", text))
    known = {lemma.name for lemma in lemmas.LEMMAS}
    assert {"smax_is_upper_bound", "signed_order_transitive", "smax_selects"} <= mentioned
    code_names = {"step", "vd[0] = r", "result_ok", "choice", "instruction", "operands", "inclusion"}
    assert mentioned - known - code_names <= {"soundness_argument"}, mentioned - known


def test_witnessed_feasibility_decides_honestly():
    """A model of the core that satisfies the rest proves feasibility; one that does not
    falls back to the solver on the whole; assumptions that cannot hold are vacuous."""
    x, y = z3.BitVec("wx", 8), z3.BitVec("wy", 8)
    check = lambda core, rest: compositional.check(compositional.Witnessed(core, rest), 10_000)
    easy = check([x == 3], [x + 1 == 4, z3.ULE(x, 3)])
    assert easy.verdict == Verdict.PROVED and easy.detail.startswith("a model of")
    # the model of `ULT(x, 10)` need not have y = x + 5; the whole is still satisfiable
    fallback = check([z3.ULT(x, 10)], [y == x + 5, y == 7])
    assert fallback.verdict == Verdict.PROVED
    assert check([x == 3], [x == 4]).verdict == Verdict.ERROR
    assert check([x != x], [y == 1]).verdict == Verdict.ERROR


def test_feasibility_parts_find_their_witness_by_evaluation():
    """The per-element feasibility checks are decided by evaluating a model (not by the
    fallback query), so they stay linear at large VLMAX."""
    cfg = Config(1024, 64, 8, "m2")
    s = runner.setting_for(cfg)
    for name in ("masked_ignored", "order_independent", "monotone", "all_masked_writes_seed"):
        parts = [p for p in catalogue.by_name(name).compositional(s, SPEC) if "feasible" in p.key]
        assert parts, name
        answer = compositional.check(parts[0].build(), 60_000)
        assert answer.verdict == Verdict.PROVED and answer.detail.startswith("a model of"), (
            name,
            answer.detail,
        )


def test_a_generalized_goal_is_a_shortcut_never_a_verdict_of_its_own():
    """Generalized: a proof of the generalized goal proves the claim; when it does not go
    through, the claim itself is asked (and decides)."""
    x = z3.BitVec("gx", 8)
    tail = x == 3

    def claim(assumptions):
        query = Query(assumptions, z3.And(tail, z3.ULE(x, 3)))
        general = Query(assumptions, compositional.generalize(query.goal, [tail]))
        return compositional.Generalized(general, lambda: query)

    # "tail" generalized to a free Boolean cannot be proved; the claim can: PROVED by fallback
    answer = compositional.check(claim([x == 3]), 10_000)
    assert answer.verdict == Verdict.PROVED and "generalized" not in answer.detail
    assert compositional.check(claim([z3.ULT(x, 10)]), 10_000).verdict == Verdict.COUNTEREXAMPLE
    # a goal that does not depend on the generalized term is proved the short way
    both = Query([x == 3], z3.Or(tail, z3.ULE(x, 3)))
    short = compositional.Generalized(
        Query(both.assumptions, compositional.generalize(both.goal, [tail])), lambda: both
    )
    assert "generalized" in compositional.check(short, 10_000).detail
