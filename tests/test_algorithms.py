"""The three reduction algorithms agree with each other and with the obvious max, on any state."""

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from vredmax.impl import ALGORITHMS
from vredmax.impl.execute import execute
from vredmax.impl.lanes import make_reduce_lanes
from vredmax.spec.bv import ConcreteElements
from vredmax.spec.config import SEWS
from vredmax.spec.encoding import Insn
from tests.strategies import cases, make_state, pack

LANE_COUNTS = (1, 2, 3, 4, 7, 64)
SLOW = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def signed(value, width):
    return value - (1 << width) if value >> (width - 1) else value


@st.composite
def unit_inputs(draw):
    """Inputs of a reduction unit alone: seed, elements, active flags (any count, odd too)."""
    width = draw(st.sampled_from(SEWS))
    values = st.integers(0, (1 << width) - 1)
    top = 1 << (width - 1)
    edges = st.sampled_from((0, 1, top, top - 1, (1 << width) - 1))
    elements = draw(st.lists(values | edges, min_size=1, max_size=70))
    active = draw(st.lists(st.booleans(), min_size=len(elements), max_size=len(elements)))
    return width, draw(values | edges), elements, active


@settings(max_examples=400)
@given(unit_inputs())
def test_units_compute_the_signed_max_of_seed_and_active(inputs):
    width, seed, elements, active = inputs
    expected = max([signed(seed, width)] + [signed(e, width) for e, a in zip(elements, active) if a])
    ops = ConcreteElements(width)
    units = dict(ALGORITHMS, **{f"lanes{k}": make_reduce_lanes(k) for k in LANE_COUNTS})
    for name, reduce in units.items():
        assert signed(reduce(ops, seed, elements, active), width) == expected, name


def results_by_algorithm(state, insn, tail):
    results = {name: execute(state, insn, name, tail) for name in ALGORITHMS}
    for k in LANE_COUNTS:
        results[f"lanes{k}"] = execute(state, insn, tail=tail, reduce=make_reduce_lanes(k))
    return results


def assert_all_agree(state, insn, tail):
    results = results_by_algorithm(state, insn, tail)
    first = results["sequential"]
    for name, result in results.items():
        assert result == first, f"{name} differs from sequential"
    return first


@settings(SLOW, max_examples=300)
@given(st.one_of(cases(elen=64), cases(elen=32)))
def test_algorithms_agree_on_random_states(case):
    assert_all_agree(*case)


@settings(SLOW, max_examples=60)
@given(cases(vlens=(32, 64, 128), traps=False))
def test_algorithms_agree_on_small_legal_states(case):
    # Small VLEN without traps: most examples reach the reduction with several elements.
    assert_all_agree(*case)


def obvious_max(state, insn, sew, vl):
    """vd[0] as a Python int: max over the seed and the active elements (signed)."""
    per_register = state.vlen // sew
    values = [signed(state.regs[insn.vs1] & ((1 << sew) - 1), sew)]
    for i in range(vl):
        if insn.vm or state.regs[0] >> i & 1:
            register = state.regs[insn.vs2 + i // per_register]
            values.append(signed(register >> (i % per_register * sew) & ((1 << sew) - 1), sew))
    return max(values) % (1 << sew)


@pytest.mark.parametrize("vl", [65536, 65535, 1])
def test_largest_configuration_vlen65536_lmul8_sew8(vl):
    """65536 elements: the three algorithms agree with each other and with the obvious max."""
    rng = random.Random(vl)
    elements = [rng.randrange(-128, 64) for _ in range(65536)]
    elements[40000] = 100  # active: the maximum
    elements[65534] = 127  # masked off: must not win
    group = pack(elements, 8)
    regs = {r: rng.getrandbits(65536) for r in range(32)}
    regs.update({8 + k: group >> (k * 65536) & ((1 << 65536) - 1) for k in range(8)})
    regs[0] = (regs[0] | 1 << 40000) & ~(1 << 65534)
    regs[1] = 0x80  # seed -128
    state = make_state(65536, 8, "m8", vl, regs)
    insn = Insn(vd=3, vs2=8, vs1=1, vm=0)
    result = assert_all_agree(state, insn, "undisturbed")
    assert result.outcome == "retired"
    assert result.state.regs[3] & 0xFF == obvious_max(state, insn, 8, vl)
    if vl > 40000:
        assert result.state.regs[3] & 0xFF == 100
