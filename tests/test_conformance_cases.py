"""The conformance machinery without any emulator: case generation, the wire format, the
comparison rules. These run everywhere."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings

from vredmax.impl.execute import Result, execute
from vredmax.spec.config import (
    LMUL_NAMES,
    SEWS,
    decode_vtype,
    encode_vtype,
    group_registers,
    sew_lmul_supported,
    vlmax,
)
from vredmax.spec.encoding import Insn
from vredmax.spec.legality import ILLEGAL, RESERVED, RETIRED
from vredmax.spec.state import ArchState
from vredmax.platforms.conformance.cases import VILL_VTYPE, Case, case_strategy, configure, random_cases
from vredmax.platforms.conformance.compare import (
    AGREE,
    MISMATCH,
    RESERVED_EXECUTED,
    RESERVED_TRAPPED,
    compare,
    fired_rule,
    plain_reading,
)
from vredmax.platforms.conformance.protocol import (
    NOT_VISIBLE,
    RESPONSE,
    Observation,
    pack_request,
    unpack_response,
)

VLEN = 128


@pytest.mark.parametrize("ci,outcome", [("", pytest.skip.Exception), ("true", pytest.fail.Exception)])
def test_a_missing_tool_skips_locally_and_fails_in_ci(monkeypatch, ci, outcome):
    from tests.conftest import require_tools

    monkeypatch.setenv("CI", ci)
    with pytest.raises(outcome, match="no-such-riscv-tool"):
        require_tools("no-such-riscv-tool")


def observe(state: ArchState, trapped: bool, before=None) -> Observation:
    """What a perfect harness would report for this post-state."""
    return Observation(trapped, before, state.vl, state.vtype, state.vstart, state.regs)


def perfect(case: Case, result: Result) -> Observation:
    pre = case.pre
    return observe(result.state, result.outcome != RETIRED, (pre.vl, pre.vtype, pre.vstart, None))


def seed_case(**changes) -> Case:
    """The seed's first worked example: SEW=8, vl=4, v4[0]=-2, v12=[1, -128, 2, 3]."""
    regs = [0] * 32
    regs[4], regs[12] = 0xFE, 0x03028001
    pre = ArchState(VLEN, 64, tuple(regs), encode_vtype(8, "m1"), 4, 0, 1).with_(**changes)
    return Case(pre, Insn(vd=8, vs2=12, vs1=4), pre.vtype, pre.vl)


def test_configure_models_vsetvl():
    assert configure(VLEN, 64, encode_vtype(8, "m1", vta=True), 5) == (encode_vtype(8, "m1", vta=True), 5)
    assert configure(VLEN, 64, encode_vtype(64, "mf2"), 1) == (VILL_VTYPE, 0)  # SEW > LMUL*ELEN
    assert configure(VLEN, 64, 0b100, 3) == (VILL_VTYPE, 0)  # reserved vlmul
    assert configure(VLEN, 64, 1 << 20, 3) == (VILL_VTYPE, 0)  # reserved bits
    with pytest.raises(ValueError, match="avl"):
        configure(VLEN, 64, encode_vtype(8, "m1"), 17)  # VLMAX is 16


@pytest.mark.parametrize("vlen", [128, 1024])
def test_random_cases_are_valid_and_cover_the_space(vlen):
    seen = Counter()
    for case in random_cases(seed=1, count=3000, vlen=vlen):
        pre, insn = case.pre, case.insn
        pre.check()
        assert pre.vs != 0, "VS=Off cannot be set up in user mode"
        vt = decode_vtype(pre.vtype, 64)
        outcome = execute(pre, insn).outcome
        seen[outcome] += 1
        seen[fired_rule(pre, insn)] += 1
        if vt.vill:
            continue
        seen["vl=0"] += pre.vl == 0
        seen["vl=1"] += pre.vl == 1
        seen["vl=VLMAX"] += pre.vl == vlmax(vlen, vt.sew, vt.lmul)
        seen["vta"] += vt.vta
        if outcome == RETIRED and pre.vl > 0:
            seen[vt.sew, vt.lmul] += 1
            seen["vd=vs2"] += insn.vd == insn.vs2
            seen["vd=vs1"] += insn.vd == insn.vs1
            seen["vd=v0"] += insn.vd == 0
            seen["vs1=vs2"] += insn.vs1 == insn.vs2
            seen["vd in vs2 group"] += insn.vs2 < insn.vd < insn.vs2 + group_registers(vt.lmul)
            if insn.vm == 0:
                seen["mask all off"] += pre.regs[0] == 0
                seen["mask all on"] += pre.regs[0] == (1 << vlen) - 1
    for sew in SEWS:
        for lmul in LMUL_NAMES:
            if sew_lmul_supported(sew, lmul, 64):
                assert seen[sew, lmul] > 0, f"SEW={sew} LMUL={lmul} never retired"
    for rule in ("vill", "vstart_nonzero", "vs2_misaligned", "v0_mask_in_vs2", "v0_mask_is_vs1"):
        assert seen[rule] > 0, rule
    for what in (
        "vl=0",
        "vl=1",
        "vl=VLMAX",
        "vta",
        "vd=vs2",
        "vd=vs1",
        "vd=v0",
        "vs1=vs2",
        "vd in vs2 group",
        "mask all off",
        "mask all on",
    ):
        assert seen[what] > 0, what
    assert seen[RETIRED] > 0.4 * 3000


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case_strategy(256))
def test_hypothesis_cases_are_valid(case):
    case.pre.check()
    assert configure(256, 64, case.requested_vtype, case.avl) == (case.pre.vtype, case.pre.vl)


def test_protocol_round_trip():
    regs = tuple(range(1, 33))
    request = pack_request(0x1E002057, 2, 0x41, 3, 2, regs, 16)
    assert len(request) == 40 + 32 * 16
    assert request[8:16] == (2).to_bytes(8, "little") and request[40:56] == (1).to_bytes(16, "little")
    response = RESPONSE.pack(1, 0, 3, 0x41, 2, NOT_VISIBLE, 3, 0x41, 2, NOT_VISIBLE) + request[40:]
    obs = unpack_response(response, 16)
    assert obs.trapped and obs.before == (3, 0x41, 2, None) and obs.vstart == 2 and obs.regs == regs
    assert obs.vs is None  # user mode: VS is not visible
    machine = unpack_response(RESPONSE.pack(0, 0, 3, 0x41, 0, 2, 3, 0x41, 0, 3) + request[40:], 16)
    assert machine.before == (3, 0x41, 0, 2) and machine.vs == 3 and not machine.trapped


def test_a_perfect_emulator_agrees():
    case = seed_case()
    spec = execute(case.pre, case.insn)
    assert compare(case, spec, perfect(case, spec), "undisturbed").kind == AGREE


def test_a_wrong_result_is_a_mismatch():
    case = seed_case()
    spec = execute(case.pre, case.insn)
    regs = list(spec.state.regs)
    regs[8] ^= 0xFF  # unsigned max would give 0xfe instead of 3
    wrong = observe(spec.state.with_(regs=tuple(regs)), False, (4, case.pre.vtype, 0))
    verdict = compare(case, spec, wrong, "undisturbed")
    assert verdict.kind == MISMATCH and verdict.differences == ("v8",)


def test_a_missing_trap_is_a_mismatch():
    case = seed_case(vstart=1)
    spec = execute(case.pre, case.insn)
    assert spec.outcome == ILLEGAL
    executed = execute(case.pre.with_(vstart=0), case.insn).state
    verdict = compare(case, spec, observe(executed, False, (4, case.pre.vtype, 1)), "undisturbed")
    assert verdict.kind == MISMATCH and "outcome" in verdict.differences and "vstart" in verdict.differences


def test_a_wrong_setup_is_a_mismatch():
    case = seed_case()
    spec = execute(case.pre, case.insn)
    verdict = compare(case, spec, observe(spec.state, False, (3, case.pre.vtype, 0)), "undisturbed")
    assert verdict.kind == MISMATCH and "before the word" in verdict.differences[0]


def test_reserved_trap_must_change_nothing():
    regs = [0] * 32
    regs[3] = 5
    pre = ArchState(VLEN, 64, tuple(regs), encode_vtype(8, "m2"), 4, 0, 1)
    case = Case(pre, Insn(vd=8, vs2=3, vs1=4), pre.vtype, 4)  # vs2 misaligned
    spec = execute(pre, case.insn)
    assert spec.outcome == RESERVED
    clean = compare(case, spec, observe(pre, True, (4, pre.vtype, 0)), "undisturbed")
    assert clean.kind == RESERVED_TRAPPED and clean.rule == "vs2_misaligned"
    dirty = compare(
        case,
        spec,
        observe(pre.with_(vstart=0, regs=(1,) + pre.regs[1:]), True, (4, pre.vtype, 0)),
        "undisturbed",
    )
    assert dirty.kind == MISMATCH and dirty.differences == ("v0",)


@pytest.mark.parametrize(
    "insn", [Insn(vd=8, vs2=0, vs1=4, vm=0), Insn(vd=0, vs2=0, vs1=0, vm=0), Insn(vd=5, vs2=4, vs1=0, vm=0)]
)
def test_plain_reading_of_v0_overlaps(insn):
    """v0 = 0b0110 as mask and as SEW=8 data: lanes 1 and 2 (values 0 and 0) are active."""
    regs = [0] * 32
    regs[0], regs[4] = 0b0110 | 0x7F << 24, 0x05
    pre = ArchState(VLEN, 64, tuple(regs), encode_vtype(8, "m2"), 4, 0, 1)
    case = Case(pre, insn, pre.vtype, 4)
    assert execute(pre, insn).outcome == RESERVED
    plain = plain_reading(case, "undisturbed")

    def signed(byte):
        return byte - 256 * (byte >> 7)

    data = [regs[insn.vs2] >> (8 * i) & 0xFF for i in range(4)]  # vl=4 fits in the first register
    active = [signed(d) for i, d in enumerate(data) if regs[0] >> i & 1]
    expected = max([signed(regs[insn.vs1] & 0xFF)] + active)
    assert plain.state.regs[insn.vd] & 0xFF == expected & 0xFF
    others = [k for k in range(32) if k != insn.vd]
    assert [plain.state.regs[k] for k in others] == [regs[k] for k in others]
    observed = observe(plain.state, False, (4, pre.vtype, 0))
    executed = compare(case, execute(pre, insn), observed, "undisturbed")
    assert executed.kind == RESERVED_EXECUTED and executed.plain is True
