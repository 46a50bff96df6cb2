"""The instruction on the full state: worked examples, an obvious oracle, traps, vl=0, tail, overlaps."""

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from vredmax.impl import ALGORITHMS
from vredmax.impl.execute import execute
from vredmax.spec.config import encode_vtype
from vredmax.spec.encoding import parse_asm
from vredmax.spec.state import VS_NAMES
from tests.strategies import cases, make_state, pack

ILLEGAL, RESERVED, RETIRED = "illegal-instruction", "reserved", "retired"
DIRTY = VS_NAMES.index("dirty")


# -- the test's own oracle: the semantics written down in the most obvious way -------------


def oracle(state, insn, tail):
    """(outcome, post-state) straight from REFERENCE.md."""
    vtype, elen, vlen = state.vtype, state.elen, state.vlen
    vsew, vlmul = vtype >> 3 & 7, vtype & 7
    if state.vs == 0:
        return ILLEGAL, state
    if vtype >> 8 or vsew > 3 or vlmul == 4:  # vill, reserved bits 62:8, reserved vsew/vlmul
        return ILLEGAL, state
    sew = 8 << vsew
    lmul = 2**vlmul if vlmul < 4 else 2 ** (vlmul - 8)
    if sew > elen or sew > lmul * elen or state.vstart != 0:
        return ILLEGAL, state
    if (lmul > 1 and insn.vs2 % lmul) or (insn.vm == 0 and 0 in (insn.vs2, insn.vs1)):
        return RESERVED, state
    if state.vl == 0:
        return RETIRED, state

    def signed(x):
        x &= (1 << sew) - 1
        return x - (1 << sew) if x >> (sew - 1) else x

    per_register = vlen // sew
    active = [
        signed(state.regs[insn.vs2 + i // per_register] >> (i % per_register * sew))
        for i in range(state.vl)
        if insn.vm or state.regs[0] >> i & 1
    ]
    result = max([signed(state.regs[insn.vs1])] + active) % (1 << sew)
    tail_bits = state.regs[insn.vd] >> sew << sew
    if tail == "ones" and vtype >> 6 & 1:
        tail_bits = ((1 << vlen) - 1) >> sew << sew
    regs = list(state.regs)
    regs[insn.vd] = tail_bits | result
    return RETIRED, state.with_(regs=tuple(regs), vstart=0, vs=DIRTY)


@settings(
    deadline=None, max_examples=300, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)
@given(st.one_of(cases(elen=64), cases(elen=32)), st.sampled_from(sorted(ALGORITHMS)))
def test_execute_matches_the_obvious_oracle(case, algorithm):
    state, insn, tail = case
    outcome, expected = oracle(state, insn, tail)
    result = execute(state, insn, algorithm, tail)
    assert (result.outcome, result.state) == (outcome, expected)
    if outcome != RETIRED or state.vl == 0:
        assert result.reason, "a trap or a vl=0 no-op says why"


# -- the seed's worked examples ---------------------------------------------------------------


def example1():
    """SEW=8, vl=4: v4[0] = 0xFE (-2), v12 = [1, 0x80 (-128), 2, 3]; vredmax.vs v8, v12, v4."""
    state = make_state(128, 8, "m1", 4, {4: 0xFE, 12: pack([1, 0x80, 2, 3], 8)})
    return state, parse_asm("vredmax.vs v8, v12, v4")


ANIMATION_V8 = [0x0004, 0xFFFD, 0x0011, 0xFFF0, 0x0007, 0x0020, 0x0004, 0xFFFD]
ANIMATION_MASK = [1, 0, 1, 1, 1, 0, 1, 1]
ANIMATION_RUNNING_MAX = [0x0004, 0x0004, 0x0011, 0x0011, 0x0011, 0x0011, 0x0011, 0x0011]


def example2():
    """The animation: VLEN=4096, SEW=16, m1, vredmax.vs v4, v8, v12, v0.t, vl=8, seed 0."""
    mask = sum(bit << i for i, bit in enumerate(ANIMATION_MASK))
    state = make_state(4096, 16, "m1", 8, {8: pack(ANIMATION_V8, 16), 0: mask})
    return state, parse_asm("vredmax.vs v4, v8, v12, v0.t")


@pytest.mark.parametrize("algorithm", sorted(ALGORITHMS))
def test_worked_example_1_signed_not_unsigned(algorithm):
    state, insn = example1()
    result = execute(state, insn, algorithm)
    assert result.outcome == RETIRED
    assert result.state.regs[8] == 3  # not 0xFE: the comparison is signed; tail (zeros) kept
    assert result.state.regs[:8] + result.state.regs[9:] == state.regs[:8] + state.regs[9:]
    assert (result.state.vstart, result.state.vs) == (0, DIRTY)


@pytest.mark.parametrize("algorithm", sorted(ALGORITHMS))
def test_worked_example_2_masked_lane_does_not_win(algorithm):
    state, insn = example2()
    result = execute(state, insn, algorithm)
    assert result.outcome == RETIRED
    assert result.state.regs[4] == 0x0011  # lane 5 (0x0020) is masked off
    assert oracle(state, insn, "undisturbed") == (RETIRED, result.state)


# -- traps: each changes nothing and says why ----------------------------------------------------

V12 = pack([5, 7, 9, 1], 8)
TRAPS = [
    # (name, state, insn, outcome, words the reason must contain)
    (
        "VS off",
        make_state(128, 8, vl=4, regs={12: V12}, vs="off"),
        "vredmax.vs v8, v12, v4",
        ILLEGAL,
        "VS is Off",
    ),
    ("VS off, vl=0", make_state(128, 8, vl=0, vs="off"), "vredmax.vs v8, v12, v4", ILLEGAL, "VS is Off"),
    ("raw vill bit", make_state(128, 8, vl=0, vtype=1 << 63), "vredmax.vs v8, v12, v4", ILLEGAL, "vill"),
    (
        "vill bit over a valid vtype",
        make_state(128, 8, vl=0, vtype=1 << 63 | encode_vtype(8, "m1")),
        "vredmax.vs v8, v12, v4",
        ILLEGAL,
        "vill",
    ),
    ("reserved vsew", make_state(128, 8, vl=0, vtype=0b100 << 3), "vredmax.vs v8, v12, v4", ILLEGAL, "vsew"),
    ("reserved vlmul", make_state(128, 8, vl=0, vtype=0b100), "vredmax.vs v8, v12, v4", ILLEGAL, "vlmul"),
    (
        "reserved vtype bit 8",
        make_state(128, 8, vl=0, vtype=1 << 8),
        "vredmax.vs v8, v12, v4",
        ILLEGAL,
        "reserved vtype bits",
    ),
    ("SEW=64 > ELEN=32", make_state(128, 64, vl=0, elen=32), "vredmax.vs v8, v12, v4", ILLEGAL, "SEW=64"),
    (
        "mf8 with SEW=16 at ELEN=64",
        make_state(128, 16, "mf8", vl=0, vtype=encode_vtype(16, "mf8")),
        "vredmax.vs v8, v12, v4",
        ILLEGAL,
        "LMUL=mf8",
    ),
    (
        "mf2 with SEW=64 at ELEN=64",
        make_state(128, 64, "mf2", vl=0, vtype=encode_vtype(64, "mf2")),
        "vredmax.vs v8, v12, v4",
        ILLEGAL,
        "LMUL=mf2",
    ),
    (
        "mf8 with SEW=8 at ELEN=32",
        make_state(128, 8, "mf8", vl=0, elen=32, vtype=encode_vtype(8, "mf8")),
        "vredmax.vs v8, v12, v4",
        ILLEGAL,
        "ELEN=32",
    ),
    (
        "vstart != 0",
        make_state(128, 8, vl=4, regs={12: V12}, vstart=1),
        "vredmax.vs v8, v12, v4",
        ILLEGAL,
        "vstart=1",
    ),
    (
        "vstart != 0 with vl=0",
        make_state(128, 8, vl=0, vstart=3),
        "vredmax.vs v8, v12, v4",
        ILLEGAL,
        "vstart=3",
    ),
    (
        "misaligned vs2, LMUL=2",
        make_state(128, 8, "m2", regs={3: V12}),
        "vredmax.vs v8, v3, v4",
        RESERVED,
        "multiple of LMUL=2",
    ),
    ("misaligned vs2, LMUL=4", make_state(128, 8, "m4"), "vredmax.vs v8, v6, v4", RESERVED, "LMUL=4"),
    ("misaligned vs2, LMUL=8", make_state(128, 8, "m8"), "vredmax.vs v8, v12, v4", RESERVED, "LMUL=8"),
    ("vm=0, vs2=v0", make_state(128, 8, regs={0: 0xF}), "vredmax.vs v8, v0, v4, v0.t", RESERVED, "vs2 group"),
    (
        "vm=0, v0 in the vs2 group (LMUL=8)",
        make_state(128, 8, "m8", regs={0: 0xF}),
        "vredmax.vs v8, v0, v4, v0.t",
        RESERVED,
        "vs2 group",
    ),
    (
        "vm=0, vs1=v0",
        make_state(128, 8, regs={0: 0xF, 12: V12}),
        "vredmax.vs v8, v12, v0, v0.t",
        RESERVED,
        "vs1=v0",
    ),
]


@pytest.mark.parametrize("name, state, text, outcome, why", TRAPS, ids=[t[0] for t in TRAPS])
@pytest.mark.parametrize("tail", ["undisturbed", "ones"])
def test_traps_change_nothing_and_say_why(name, state, text, outcome, why, tail):
    state = state.with_(vtype=state.vtype | 1 << 6) if not state.vtype >> 8 else state  # vta=1 too
    result = execute(state, parse_asm(text), tail=tail)
    assert (result.outcome, result.state) == (outcome, state)
    assert why in result.reason


@pytest.mark.parametrize(
    "text, lmul",
    [
        ("vredmax.vs v8, v0, v4", "m1"),  # unmasked: v0 is plain data
        ("vredmax.vs v0, v8, v4, v0.t", "m1"),  # vd=v0 while masked: allowed (vd is a scalar)
        ("vredmax.vs v8, v3, v4", "mf2"),  # fractional LMUL: any vs2
        ("vredmax.vs v8, v24, v4, v0.t", "m8"),  # aligned group without v0
    ],
)
def test_legal_corner_encodings_retire(text, lmul):
    state = make_state(256, 8, lmul, 1, {0: 1})
    assert execute(state, parse_asm(text)).outcome == RETIRED


# -- vl = 0 and the tail -------------------------------------------------------------------------


@pytest.mark.parametrize("text", ["vredmax.vs v8, v12, v4", "vredmax.vs v8, v12, v4, v0.t"])
def test_vl0_changes_nothing_not_even_vs(text):
    state = make_state(128, 8, "m1", 0, {4: 0x55, 8: 0x1234, 12: V12, 0: 0xFF}, vta=True)
    result = execute(state, parse_asm(text), tail="ones")
    assert (result.outcome, result.state) == (RETIRED, state)
    assert VS_NAMES[result.state.vs] == "initial"


def test_all_masked_off_writes_the_seed_unlike_vl0():
    state = make_state(128, 8, "m1", 4, {4: 0x85, 8: 0xAB00, 12: V12, 0: 0})
    result = execute(state, parse_asm("vredmax.vs v8, v12, v4, v0.t"))
    assert result.state.regs[8] == 0xAB85


OLD_VD = pack(range(0x10, 0x20), 8)
TAIL_CASES = [  # (vta, policy, expected tail above element 0)
    (False, "undisturbed", OLD_VD >> 8),
    (False, "ones", OLD_VD >> 8),
    (True, "undisturbed", OLD_VD >> 8),
    (True, "ones", (1 << 120) - 1),
]


@pytest.mark.parametrize("vta, policy, tail_bits", TAIL_CASES)
@pytest.mark.parametrize("lmul", ["m1", "m8", "mf2"])
def test_tail_follows_vta_and_the_policy(vta, policy, tail_bits, lmul):
    state = make_state(128, 8, lmul, 2, {8: OLD_VD, 16: pack([3, 9], 8), 4: 1}, vta=vta)
    result = execute(state, parse_asm("vredmax.vs v8, v16, v4"), tail=policy)
    assert result.state.regs[8] == tail_bits << 8 | 9


def test_no_tail_when_vlen_equals_sew():
    state = make_state(64, 64, "m1", 1, {1: 5, 2: 7, 3: 2}, vta=True)
    result = execute(state, parse_asm("vredmax.vs v3, v1, v2"), tail="ones")
    assert result.state.regs[3] == 7


# -- overlaps: the sources are read before vd is written -----------------------------------------


def test_vd_equals_vs2():
    state = make_state(128, 8, "m1", 4, {2: pack([1, 5, 3, 2, 0x77], 8), 4: 0})
    result = execute(state, parse_asm("vredmax.vs v2, v2, v4"))
    assert result.state.regs[2] == state.regs[2] >> 8 << 8 | 5  # element 4 (0x77) is past vl


def test_vd_in_the_vs2_group_is_read_before_it_is_written():
    # LMUL=2, VLEN=128, SEW=8: elements 16..31 live in v3; the largest one is there.
    elements = [1] * 16 + [2, 0x60] + [0] * 14
    group = pack(elements, 8)
    state = make_state(128, 8, "m2", 32, {2: group & (1 << 128) - 1, 3: group >> 128, 4: 0})
    result = execute(state, parse_asm("vredmax.vs v3, v2, v4"))
    assert result.state.regs[3] == state.regs[3] >> 8 << 8 | 0x60


def test_vd_equals_vs1():
    state = make_state(128, 8, "m1", 4, {1: pack([9, 0x42], 8), 2: pack([1, 2, 3, 4], 8)})
    result = execute(state, parse_asm("vredmax.vs v1, v2, v1"))
    assert result.state.regs[1] == pack([9, 0x42], 8)


def test_vd_equals_v0_uses_the_old_mask():
    state = make_state(128, 8, "m1", 4, {0: 0b0101, 2: pack([1, 0x70, 3, 0x71], 8), 4: 0})
    result = execute(state, parse_asm("vredmax.vs v0, v2, v4, v0.t"))
    assert result.state.regs[0] == 3  # lanes 1 and 3 are masked off by the old v0


def test_vs1_equals_vs2_seed_is_element_0():
    state = make_state(128, 8, "m1", 2, {2: pack([0x7F, 0x80], 8), 0: 0b10})
    result = execute(state, parse_asm("vredmax.vs v8, v2, v2, v0.t"))
    assert result.state.regs[8] == 0x7F  # seed vs2[0]=127 included though lane 0 is masked off


def test_fractional_lmul_ignores_the_upper_part_of_vs2():
    # mf2 at VLEN=128, SEW=8: VLMAX=8; bytes 8..15 of vs2 are not elements.
    state = make_state(128, 8, "mf2", 8, {2: 0x7F << 120 | 0x05, 4: 0})
    result = execute(state, parse_asm("vredmax.vs v8, v2, v4"))
    assert result.state.regs[8] == 5


@settings(deadline=None, max_examples=100, suppress_health_check=[HealthCheck.too_slow])
@given(cases(vlens=(128, 256, 512, 1024), traps=False, vs_states=("initial", "clean", "dirty")))
def test_strategy_without_traps_only_retires(case):
    # tests/strategies.py promises this to its other users (the QEMU conformance tests).
    state, insn, tail = case
    assert execute(state, insn, tail=tail).outcome == RETIRED and state.vs != 0
