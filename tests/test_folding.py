"""proofs/engine/folding.py: the builder that decides feasibility conditions as it builds them."""

import pytest
import z3

from vredmax.proofs.engine import compositional
from vredmax.proofs.obligations import catalogue
from vredmax.proofs.engine.folding import Folding, Lazy, term
from vredmax.proofs.engine.setting import SPEC, Setting
from vredmax.proofs.engine.verdict import Verdict, prove
from vredmax.spec import z3fast as fast
from vredmax.spec.config import Config


def test_folding_decides_only_what_needs_no_solver():
    x, y = z3.BitVec("fx", 8), z3.BitVec("fy", 8)
    p = z3.BitVec("fp", 64)
    L = Folding([(p, 3)])
    assert L.eq(x, x) is True and L.sle(y, y) is True
    assert L.eq(p, fast.numeral(3, 64)) is True and L.eq(p, fast.numeral(4, 64)) is False
    assert L.ult(p, fast.numeral(4, 64)) is True and L.ult(fast.numeral(5, 64), p) is False
    assert L.or_(L.eq(x, y), True) is True and L.and_(L.eq(x, y), False) is False
    assert L.ite(L.eq(p, fast.numeral(3, 64)), x, y) is x
    values = [z3.BitVec(f"fv{i}", 8) for i in range(6)]
    assert L.pick(p, values) is values[3]
    assert fast.pick(p, values).eq(
        z3.If(
            p == 0,
            values[0],
            z3.If(
                p == 1,
                values[1],
                z3.If(p == 2, values[2], z3.If(p == 3, values[3], z3.If(p == 4, values[4], values[5]))),
            ),
        )
    )
    undecided = L.eq(x, y)
    assert isinstance(undecided, Lazy) and term(undecided).eq(x == y)
    assert term(L.and_(L.eq(x, x), L.not_(L.eq(x, y)))).eq(z3.Not(x == y))
    # an unknown variable stays a variable
    assert isinstance(L.ult(fast.numeral(1, 64), z3.BitVec("fq", 64)), Lazy)


@pytest.mark.parametrize(
    "name", ["masked_ignored", "past_vl_ignored", "order_independent", "monotone", "all_masked_writes_seed"]
)
def test_folded_conditions_are_the_built_ones_under_the_witness(name):
    """Built with Folding or with the plain constructors, the feasibility conditions are
    equivalent wherever the known variables have their values (checked by Z3 at VLMAX=16)."""
    cfg = Config(128, 64, 8, "m1")
    s = Setting(cfg)
    part = next(p for p in catalogue.by_name(name).compositional(s, SPEC) if p.key[0] == "feasible")
    work = part.build()
    closure = part.build.__closure__
    rest = next(
        c.cell_contents
        for c in closure
        if getattr(c.cell_contents, "__name__", "") == "<lambda>"
        and c.cell_contents.__code__.co_varnames[:1] == ("L",)
    )
    plain = fast.and_(*rest(fast))
    folded = fast.and_(*work.rest) if work.rest else z3.BoolVal(True)
    assert work.folded > 0
    assert prove(work.core + work.witness, plain == folded).verdict == Verdict.PROVED
    assert compositional.check(work, 60_000).verdict == Verdict.PROVED


def test_a_witness_that_decides_a_condition_false_falls_back_to_the_solver():
    cfg = Config(128, 64, 8, "m1")
    s = Setting(cfg)
    vl = s.pre.vl
    # vl fixed to 1 decides "vl = 2" false: the plain condition goes to the solver, which
    # finds a model of the assumptions without the witness
    part = compositional.feasible_part(
        s, "example", [], [], lambda L: [L.eq(vl, L.numeral(2, 64))], known=[(vl, 1)]
    )
    work = part.build()
    assert work.folded == 0 and work.witness == [] and len(work.rest) == 1
    answer = compositional.check(work, 60_000)
    assert answer.verdict == Verdict.PROVED and not answer.detail.startswith("a model of")
