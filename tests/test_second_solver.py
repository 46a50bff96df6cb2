"""Re-check exported obligations with second solvers (cvc5 and bitwuzla, from PyPI).

Each obligation's queries are written as SMT-LIB2 scripts (as `vredmax prove --smt2-out`
writes them) and given to cvc5 and bitwuzla: both must find the assumptions satisfiable and
the negated goal unsatisfiable, as Z3 did; and on a deliberately wrong obligation both must
find the negated goal satisfiable.
"""

from __future__ import annotations

import pytest
import z3

from vredmax.proofs.obligations import catalogue
from vredmax.proofs.engine.compositional import Query
from vredmax.proofs.engine.export import scripts
from vredmax.proofs.engine.setting import Setting
from vredmax.proofs.engine.solvers import check_text
from vredmax.spec.config import Config

SOLVERS = ("cvc5", "bitwuzla")
TIMEOUT_MS = 60_000


@pytest.fixture(params=SOLVERS)
def solver(request):
    pytest.importorskip(request.param)
    return request.param


def exported(obligation, cfg, subject, method, setting):
    """Every SMT-LIB2 script of one obligation's proof (parts by reflexivity included)."""
    if method == "monolithic":
        works = [obligation.monolithic(setting, subject)]
    else:
        works = [part.build() for part in obligation.compositional(setting, subject)]
    texts = []
    for work in works:
        texts += [script for _, script in scripts(work, [obligation.id(cfg.sew), subject])]
    return texts


CHECKED = [
    ("frame", "tree/ones"),
    ("tail_agnostic", "spec"),
    ("vl0_preserves_vd", "lanes/undisturbed"),
    ("refines_spec", "sequential/ones"),
    ("seed_included", "spec"),
    ("masked_ignored", "tree/undisturbed"),
    ("vma_irrelevant", "spec"),
    ("spec_deterministic", "spec"),
    ("algorithms_agree", "sequential=lanes/ones"),
]


@pytest.mark.parametrize("name,subject", CHECKED)
def test_second_solver_agrees_on_compositional_parts(solver, name, subject):
    cfg = Config(128, 64, 16, "m1")
    setting = Setting(cfg)
    texts = exported(catalogue.by_name(name), cfg, subject, "compositional", setting)
    answers = [agreed(solver, text) for text in texts]
    # proved: no script has a counterexample, and at least one asked a real question
    assert ("sat", "unsat") in answers and ("sat", "sat") not in answers, answers


def agreed(solver: str, text: str) -> tuple[str, str]:
    """Both questions of a script, asked of Z3 and of the second solver: they must agree. (A
    case script whose assumptions are unsat is a case that cannot occur.)"""
    mine = check_text(solver, text, TIMEOUT_MS)
    reference = check_text("z3", text, TIMEOUT_MS)
    assert (mine.assumptions, mine.negated_goal) == (reference.assumptions, reference.negated_goal), (
        solver,
        mine,
        reference,
    )
    return mine.assumptions, mine.negated_goal


@pytest.mark.parametrize(
    "name", ["refines_spec", "vl0_changes_nothing", "order_independent", "tail_undisturbed"]
)
def test_second_solver_agrees_on_monolithic_queries(solver, name):
    cfg = Config(128, 64, 64, "m1")  # VLMAX = 2
    obligation = catalogue.by_name(name)
    subject = obligation.subjects[-1]
    for text in exported(obligation, cfg, subject, "monolithic", Setting(cfg)):
        checked = check_text(solver, text, TIMEOUT_MS)
        assert (checked.assumptions, checked.negated_goal) == ("sat", "unsat"), (solver, name, checked)


def test_both_solvers_refute_a_wrong_obligation(solver):
    """'The result is strictly above the seed' is false (all masked off): every solver says sat."""
    cfg = Config(128, 64, 8, "m1")
    s = Setting(cfg)
    run = s.free_run
    wrong = Query(s.wf + [s.writes_vd, s.relation(run)], s.seed < s.result_of(run))
    for text in [script for _, script in scripts(wrong, ["deliberately wrong"])]:
        checked = check_text(solver, text, TIMEOUT_MS)
        assert (checked.assumptions, checked.negated_goal) == ("sat", "sat")
    z3_view = check_text("z3", scripts(wrong, [])[0][1], TIMEOUT_MS)
    assert z3_view.negated_goal == "sat"


def test_both_solvers_refute_a_broken_algorithm(solver):
    cfg = Config(128, 64, 32, "m1")

    def forgets_the_seed(ops, seed, elements, active):
        acc = ops.smin()
        for value, is_active in zip(elements, active):
            acc = ops.ite(is_active, ops.smax(acc, value), acc)
        return acc

    s = Setting(cfg, units={"sequential": forgets_the_seed})
    query = catalogue.by_name("refines_spec").monolithic(s, "sequential/undisturbed")
    checked = check_text(solver, scripts(query, [])[0][1], TIMEOUT_MS)
    assert (checked.assumptions, checked.negated_goal) == ("sat", "sat")


def test_a_vacuous_query_is_unsat_before_the_goal(solver):
    cfg = Config(128, 64, 8, "m1")
    s = Setting(cfg)
    vacuous = Query(s.wf + [s.pre.vl == 0, s.pre.vl == 1], z3.BoolVal(False))
    checked = check_text(solver, scripts(vacuous, [])[0][1], TIMEOUT_MS)
    assert checked.assumptions == "unsat"


def test_names_that_are_not_smt_lib_symbols_reach_the_other_solvers(solver):
    """A port name with a prime (`in_seed'`, as Yosys names a register's next value) is printed
    by Z3 bare; the script quotes it, so the other solvers read it as the same name."""
    from vredmax.proofs.engine.solvers import smt2_script

    a, b = z3.BitVec("in_seed'", 8), z3.BitVec("x'y", 8)
    proved = check_text(solver, smt2_script([a == b + 1], a != b), TIMEOUT_MS)
    assert (proved.assumptions, proved.negated_goal) == ("sat", "unsat")
    refuted = check_text(solver, smt2_script([a == b + 1], a == 3), TIMEOUT_MS)
    assert (refuted.assumptions, refuted.negated_goal) == ("sat", "sat")


def test_z3s_internal_division_reaches_the_other_solvers(solver):
    """z3.simplify writes `x % y` as Z3's own `bvsmod_i` (`/` as bvsdiv_i, ...): the script says
    bvsmod, which the other solvers know and which means the same, division by zero included
    (a generated step's `best % (1 << W)` was an ERROR under bitwuzla: undefined symbol)."""
    from vredmax.proofs.engine.solvers import smt2_script

    x, y = z3.BitVecs("x y", 8)
    terms = [
        z3.simplify(f(x, y)) for f in (lambda a, b: a % b, z3.SRem, z3.UDiv, z3.URem, lambda a, b: a / b)
    ]
    assert all(t.decl().name().endswith("_i") for t in terms)
    by_zero = [y == 0, terms[0] == x, terms[1] == x, terms[2] == 255, terms[3] == x]
    proved = check_text(
        solver, smt2_script([x == 7], z3.And(*[z3.Implies(y == 0, c) for c in by_zero[1:]])), TIMEOUT_MS
    )
    assert (proved.assumptions, proved.negated_goal) == ("sat", "unsat")
    refuted = check_text(solver, smt2_script([x == 7, y == 2], terms[0] == 0), TIMEOUT_MS)
    assert (refuted.assumptions, refuted.negated_goal) == ("sat", "sat")
