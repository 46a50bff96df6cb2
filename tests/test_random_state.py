"""spec/random_state.py, the one generator of random states (conform, testgen and the tests'
Hypothesis strategies): every state valid, the whole space covered, both drivers."""

from __future__ import annotations

from collections import Counter

from hypothesis import HealthCheck, given, settings

from vredmax.platforms.conformance.compare import fired_rule
from vredmax.impl.execute import execute
from vredmax.spec.config import LMUL_NAMES, SEWS, decode_vtype, group_registers, sew_lmul_supported
from vredmax.spec.legality import RETIRED
from vredmax.spec.random_state import VILL_VTYPE, RandomChooser, Space, draw_case
from tests.strategies import cases

SPACE = Space(vlens=(64, 128, 256, 1024))


def test_seeded_draws_cover_the_space():
    seen = Counter()
    choose = RandomChooser(3)
    for _ in range(3000):
        drawn = draw_case(choose, SPACE)
        pre, insn = drawn.pre, drawn.insn
        pre.check()
        outcome = execute(pre, insn).outcome
        seen[outcome] += 1
        seen[fired_rule(pre, insn)] += 1
        seen["VLEN", pre.vlen] += 1
        vt = decode_vtype(pre.vtype, 64)
        if vt.vill:
            assert pre.vl == 0 and pre.vtype == drawn.requested_vtype  # the raw vtype is kept
            continue
        seen["vl=0"] += pre.vl == 0
        if outcome == RETIRED and pre.vl > 0:
            seen[vt.sew, vt.lmul] += 1
            seen["vd=vs2"] += insn.vd == insn.vs2
            seen["vd=vs1"] += insn.vd == insn.vs1
            seen["vd=v0"] += insn.vd == 0
            seen["vs1=vs2"] += insn.vs1 == insn.vs2
            seen["vd in vs2 group"] += insn.vs2 < insn.vd < insn.vs2 + group_registers(vt.lmul)
            if insn.vm == 0:
                seen["mask all off"] += pre.regs[0] == 0
                seen["mask all on"] += pre.regs[0] == (1 << pre.vlen) - 1
    for sew in SEWS:
        for lmul in LMUL_NAMES:
            if sew_lmul_supported(sew, lmul, 64):
                assert seen[sew, lmul] > 0, f"SEW={sew} LMUL={lmul} never retired"
    for rule in ("vs_off", "vill", "vstart_nonzero", "vs2_misaligned", "v0_mask_in_vs2", "v0_mask_is_vs1"):
        assert seen[rule] > 0, rule
    for what in (
        "vl=0",
        "vd=vs2",
        "vd=vs1",
        "vd=v0",
        "vs1=vs2",
        "vd in vs2 group",
        "mask all off",
        "mask all on",
    ):
        assert seen[what] > 0, what
    assert all(seen["VLEN", vlen] > 0 for vlen in SPACE.vlens)
    assert seen[RETIRED] > 0.5 * 3000


def test_a_seed_gives_the_same_states_and_vsetvl_mode_gives_what_vsetvl_leaves():
    one = [draw_case(RandomChooser(9), SPACE) for _ in range(1)]
    two = [draw_case(RandomChooser(9), SPACE) for _ in range(1)]
    assert one == two
    choose = RandomChooser(4)
    harness = Space(vlens=(128,), vs_states=("initial", "clean", "dirty"), vsetvl=True)
    vills = [
        d for d in (draw_case(choose, harness) for _ in range(400)) if decode_vtype(d.pre.vtype, 64).vill
    ]
    assert vills and all(d.pre.vtype == VILL_VTYPE and d.pre.vl == 0 for d in vills)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases(vlens=(128, 65536), traps=False))
def test_the_hypothesis_driver_without_traps_retires(case):
    state, insn, tail = case
    state.check()
    assert execute(state, insn, "sequential", tail).outcome == RETIRED
