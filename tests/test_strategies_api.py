"""vredmax.strategies: the public Hypothesis strategies (configurations, instructions, legal
states, cases), and that a shrunk case is zero wherever the case does not read."""

from hypothesis import HealthCheck, find, given, settings
from hypothesis import strategies as st

from vredmax.api import RETIRED, execute
from vredmax.impl.execute import operands
from vredmax.spec.bv import Concrete
from vredmax.spec.config import Config, decode_vtype
from vredmax.strategies import LANES, Case, cases, configurations, instructions, states

FAST = settings(
    max_examples=60,
    deadline=None,
    database=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
FIND = settings(max_examples=3000, deadline=None, database=None, derandomize=True)


def _config(pre) -> Config:
    vt = decode_vtype(pre.vtype, pre.elen)
    return Config(pre.vlen, pre.elen, vt.sew, vt.lmul)


@FAST
@given(
    configurations(vlens=(128, 1024), sews=(8, 16)).flatmap(
        lambda cfg: st.tuples(st.just(cfg), instructions(cfg))
    )
)
def test_instructions_are_legal_for_their_configuration(drawn):
    cfg, insn = drawn
    assert cfg.vlen in (128, 1024) and cfg.sew in (8, 16)
    assert insn.vs2 % cfg.group_registers == 0
    if insn.vm == 0:
        assert insn.vs1 != 0 and insn.vs2 != 0


@FAST
@given(configurations(vlens=(256,)).flatmap(states))
def test_states_are_legal(pre):
    pre.check()
    assert pre.vstart == 0 and pre.vs != 0 and not decode_vtype(pre.vtype, pre.elen).vill


@FAST
@given(cases(vlens=(128, 4096)))
def test_cases_without_traps_retire(case):
    assert isinstance(case, Case)
    case.pre.check()
    assert execute(case.pre, case.insn, tail=case.tail).outcome == RETIRED


@FAST
@given(cases(vlens=(128,), traps=True))
def test_cases_with_traps_are_valid_states(case):
    case.pre.check()
    execute(case.pre, case.insn, tail=case.tail)


def test_configurations_shrink_to_the_smallest_vlmax():
    assert find(configurations(vlens=(128, 256)), lambda cfg: True, settings=FIND).vlmax == 2


def _read_bits(case) -> dict:
    """Register -> the bits the case reads: the seed, the active elements, the mask below vl."""
    cfg = _config(case.pre)
    read = {}
    _, _, active = operands(Concrete, case.pre, case.insn, cfg)
    per = cfg.elements_per_register
    for lane, on in enumerate(active):
        if on:
            register = case.insn.vs2 + lane // per
            read[register] = read.get(register, 0) | ((1 << cfg.sew) - 1) << (lane % per * cfg.sew)
    read[case.insn.vs1] = read.get(case.insn.vs1, 0) | (1 << cfg.sew) - 1
    if case.insn.vm == 0:
        read[0] = read.get(0, 0) | (1 << case.pre.vl) - 1
    return read


def test_a_shrunk_case_is_zero_where_it_is_not_read():
    """A failure that needs vl >= 5, an active lane 3 above the seed and anything in an unread
    register shrinks to exactly that: every bit the case does not read is zero."""

    def fails(case):
        cfg = _config(case.pre)
        seed, elements, active = operands(Concrete, case.pre, case.insn, cfg)
        return case.pre.vl >= 5 and active[3] and elements[3] > seed

    case = find(cases(vlens=(128,), sews=(8,)), fails, settings=FIND)
    read = _read_bits(case)
    for number, value in enumerate(case.pre.regs):
        assert value & ~read.get(number, 0) == 0, f"v{number} has unread bits set: {value:#x}"
    assert case.pre.vl == 5 and case.insn.vm == 1 and case.tail == "undisturbed"
    assert (case.insn.vd, case.insn.vs2, case.insn.vs1) == (8, 16, 4)  # vredmax.vs v8, v16, v4
    cfg = _config(case.pre)
    _, elements, _ = operands(Concrete, case.pre, case.insn, cfg)
    assert elements[:5] == [0, 0, 0, 1, 0]


def test_lanes_past_the_drawn_ones_follow_a_pattern_and_spots():
    """VLEN=1024 SEW=8 m1 has 128 lanes: past the LANES drawn one by one, a pattern (zeros,
    ones, random) and up to 4 spots; a failure that needs one of those lanes nonzero shrinks
    to the first of them alone nonzero (all ones: a pattern is a smaller choice than a spot)."""

    def fails(case):
        cfg = _config(case.pre)
        _, elements, active = operands(Concrete, case.pre, case.insn, cfg)
        return any(on and value for on, value in list(zip(active, elements))[LANES:])

    case = find(cases(vlens=(1024,), sews=(8,), lmuls=("m1",)), fails, settings=FIND)
    cfg = _config(case.pre)
    _, elements, _ = operands(Concrete, case.pre, case.insn, cfg)
    assert case.pre.vl == LANES + 1 and elements[:LANES] == [0] * LANES and elements[LANES] != 0
    read = _read_bits(case)
    assert all(value & ~read.get(number, 0) == 0 for number, value in enumerate(case.pre.regs))
