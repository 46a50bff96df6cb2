"""One Z3 solver for the cases of a split (proofs/engine/verdict.py `shared_assumptions`): each
question gets the answer it gets alone (proved, counterexample with a model, vacuous, a case
that cannot occur), the solver's scopes do not leak from one case to the next, and a kept
answer is found again under the split's key text (a counterexample's model replays)."""

from __future__ import annotations

import pytest
import z3

from vredmax.proofs.engine import answers, verdict
from vredmax.proofs.engine.compositional import Cases, check
from vredmax.proofs.engine.verdict import VACUOUS, Verdict

X = z3.BitVec("shared_x", 8)
BASE = [z3.ULT(X, 100)]
QUESTIONS = [
    ([], X + 1 > X),  # proved: no signed overflow below 100
    ([z3.UGT(X, 50)], X == 51),  # a counterexample (x = 52 ..)
    ([z3.UGT(X, 200)], X == 0),  # vacuous: x < 100 and x > 200
    ([X == 7], X * 2 == 14),  # proved, after the vacuous one (nothing leaked)
    ([], z3.BoolVal(True)),
]


def _answers():
    return [verdict.prove(BASE + extra, goal, 10_000) for extra, goal in QUESTIONS]


@pytest.mark.parametrize("kept", [False, True])
def test_each_question_gets_its_answer_alone(kept, tmp_path):
    with answers.using(tmp_path if kept else None) as store:
        alone = _answers()
        with verdict.shared_assumptions(BASE):
            shared = _answers()
            again = _answers()  # (kept: from the store, under the split's key text)
    if kept:  # every kept answer served (a model that did not replay would be dropped)
        assert store.ignored == 0 and store.hits >= len(QUESTIONS)
    for one, other in ((alone, shared), (alone, again)):
        assert [a.verdict for a in one] == [a.verdict for a in other]
        assert [a.detail for a in one] == [a.detail for a in other]
    assert [a.verdict for a in shared] == [
        Verdict.PROVED,
        Verdict.COUNTEREXAMPLE,
        Verdict.ERROR,
        Verdict.PROVED,
        Verdict.PROVED,
    ]
    assert shared[2].detail == VACUOUS
    for answer in (shared[1], again[1]):  # a model of the whole question, in the main context
        value = answer.model.eval(X, model_completion=True).as_long()
        assert 50 < value < 100 and value != 51


def test_a_query_not_beginning_with_the_shared_part_is_asked_alone():
    with verdict.shared_assumptions(BASE):
        assert verdict._shared_prefix([z3.UGT(X, 3)] + BASE) is None
        assert verdict._shared_prefix(BASE + [X == 1]) is not None
        answer = verdict.prove([z3.UGT(X, 200)], X != 0, 10_000)  # x > 200 alone: proved
    assert answer.verdict == Verdict.PROVED


def test_a_case_split_reports_the_impossible_case_and_the_counterexample():
    work = Cases(
        BASE,
        [
            ("small", z3.ULT(X, 10), X < 10),
            ("never", z3.UGT(X, 200), X == 0),
            ("large", z3.UGE(X, 10), X < 99),
        ],
    )
    answer = check(work, 10_000)
    assert answer.verdict == Verdict.COUNTEREXAMPLE and answer.detail.startswith("case large")
    assert answer.model.eval(X, model_completion=True).as_long() == 99
    fixed = Cases(BASE, work.cases[:2] + [("large", z3.UGE(X, 10), X < 100)])
    answer = check(fixed, 10_000)
    assert answer.verdict == Verdict.PROVED and answer.detail == "case never cannot occur"
