"""Execution conformance: the spec against QEMU user mode running the riscv64 harness.

Every VLEN QEMU 7.2 supports (128..1024) with both tail policies: plain QEMU keeps agnostic
tails (compared with tail="undisturbed"), rvv_ta_all_1s=true writes ones (tail="ones").
The default run draws a modest number of cases; `-m conformance_sweep` runs a large one,
and VREDMAX_CONFORM_EXAMPLES sets the Hypothesis examples per configuration.
"""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, given, settings

from vredmax.impl.execute import execute
from vredmax.spec.config import encode_vtype
from vredmax.spec.encoding import parse_asm
from vredmax.spec.legality import ILLEGAL
from vredmax.spec.state import ArchState
from tests.strategies import cases as shared_cases
from vredmax.platforms.conformance.cases import Case, case_strategy, configure
from vredmax.platforms.conformance.compare import (
    AGREE,
    MISMATCH,
    RESERVED_EXECUTED,
    RESERVED_TRAPPED,
    compare,
)
from vredmax.platforms.conformance.run import check_case, conform

# Under pytest-xdist (--dist loadgroup) the module runs on one worker: one set of QEMU harness processes.
pytestmark = pytest.mark.xdist_group("conformance")

VLENS = (128, 256, 512, 1024)
TAILS = ("undisturbed", "ones")
EXAMPLES = int(os.environ.get("VREDMAX_CONFORM_EXAMPLES", "200"))
CONFIGURATIONS = [(vlen, tail) for vlen in VLENS for tail in TAILS]


def pack(values: list[int], sew: int) -> int:
    """A register holding these SEW-bit elements, element 0 in the low bits."""
    return sum(value << (i * sew) for i, value in enumerate(values))


def case(vlen, insn, sew, lmul, vl, regs, vta=False, vstart=0) -> Case:
    vtype = encode_vtype(sew, lmul, vta=vta)
    full = [0x5A5A5A5A5A5A5A5A5A5A5A5A5A5A5A5A * (k + 1) % (1 << vlen) for k in range(32)]
    for number, value in regs.items():
        full[number] = value
    pre = ArchState(vlen, 64, tuple(full), vtype, vl, vstart, 1)
    pre.check()
    return Case(pre, insn, vtype, vl)


def seed_example_1(vlen):
    """SEW=8, vl=4, v4[0] = -2, v12 = [1, -128, 2, 3]: vredmax.vs v8, v12, v4 gives 3."""
    return case(
        vlen, parse_asm("vredmax.vs v8, v12, v4"), 8, "m1", 4, {4: 0xFE, 12: pack([1, 0x80, 2, 3], 8)}
    )


def seed_animation(vlen, vta=False):
    """SEW=16, masked: lane 5 holds the largest value but is masked off; the result is 0x11."""
    v8 = [0x0004, 0xFFFD, 0x0011, 0xFFF0, 0x0007, 0x0020, 0x0004, 0xFFFD]
    mask = sum(bit << i for i, bit in enumerate([1, 0, 1, 1, 1, 0, 1, 1]))
    return case(
        vlen,
        parse_asm("vredmax.vs v4, v8, v12, v0.t"),
        16,
        "m1",
        8,
        {0: mask, 8: pack(v8, 16), 12: 0x8000},
        vta=vta,
    )


@pytest.mark.parametrize("vlen", VLENS)
def test_qemu_computes_the_seed_examples(harnesses, vlen):
    first = harnesses(vlen, "undisturbed").run(seed_example_1(vlen))
    assert not first.trapped and first.regs[8] & 0xFF == 3
    animation = seed_animation(vlen, vta=True)
    undisturbed = harnesses(vlen, "undisturbed").run(animation)
    ones = harnesses(vlen, "ones").run(animation)
    old_tail = animation.pre.regs[4] >> 16
    assert undisturbed.regs[4] == old_tail << 16 | 0x0011
    assert ones.regs[4] == ((1 << (vlen - 16)) - 1) << 16 | 0x0011


@pytest.mark.parametrize("vlen", VLENS)
def test_qemu_traps_and_no_ops_like_the_spec(harnesses, vlen):
    """vstart != 0 traps even with vl = 0 and keeps vstart; vl = 0 writes nothing, not even ones."""
    harness = harnesses(vlen, "ones")
    for trial in (seed_animation(vlen, vta=True),):
        for pre in (trial.pre.with_(vstart=3), trial.pre.with_(vl=0, vstart=3), trial.pre.with_(vl=0)):
            probe = Case(pre, trial.insn, trial.requested_vtype, pre.vl)
            observed = harness.run(probe)
            spec = execute(pre, trial.insn, tail="ones")
            assert observed.trapped == (spec.outcome == ILLEGAL)
            assert observed.regs == pre.regs and observed.vstart == pre.vstart
            assert compare(probe, spec, observed, "ones").kind == AGREE


@pytest.mark.parametrize("vlen,tail", CONFIGURATIONS)
def test_qemu_agrees_on_hypothesis_cases(harnesses, vlen, tail):
    harness = harnesses(vlen, tail)

    @settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(case_strategy(vlen))
    def agrees(drawn):
        verdict = check_case(harness.run(drawn), drawn, tail)
        assert verdict.kind != MISMATCH, (verdict.differences, verdict.note)

    agrees()


@pytest.mark.parametrize("vlen", VLENS)
def test_qemu_agrees_on_the_shared_strategy(harnesses, vlen):
    """The tests' Hypothesis strategy (tests/strategies.py: the same random-state space as
    conform's, spec/random_state.py, drawn by Hypothesis so that it shrinks). Its vill states keep
    the raw vtype; here that raw vtype goes to vsetvl, which leaves vtype = 1 << 63 and vl = 0."""

    @settings(max_examples=EXAMPLES // 2, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(shared_cases(vlens=(vlen,), elen=64, vs_states=("initial", "clean", "dirty")))
    def agrees(drawn):
        state, insn, tail = drawn
        vtype, vl = configure(vlen, 64, state.vtype, state.vl)
        probe = Case(state.with_(vtype=vtype, vl=vl), insn, state.vtype, state.vl)
        verdict = check_case(harnesses(vlen, tail).run(probe), probe, tail)
        assert verdict.kind != MISMATCH, (verdict.differences, verdict.note)

    agrees()


@pytest.mark.parametrize("vlen,tail", CONFIGURATIONS)
def test_qemu_agrees_on_a_seeded_run(harnesses, vlen, tail):
    tally = conform(harnesses(vlen, tail), cases=3000, seed=20240 + vlen)
    assert tally.agreed, [verdict.differences for _, verdict in tally.mismatches]
    # QEMU traps the misaligned vs2 groups and executes the v0 overlaps, as the plain reading.
    assert tally.kinds[RESERVED_TRAPPED] > 0 and tally.kinds[RESERVED_EXECUTED] > 0
    assert all(("not as the plain reading" not in detail) for _, detail in tally.details)
    assert tally.kinds[AGREE] > 0.7 * tally.cases


@pytest.mark.parametrize("vlen,tail", [(128, "undisturbed"), (256, "ones")])
def test_qemu_agrees_at_elen32(harnesses, vlen, tail):
    """QEMU's elen=32 (a Zve32x-like ELEN): SEW=64 is vill, so every such case traps."""
    tally = conform(harnesses(vlen, tail, 32), cases=3000, seed=3200 + vlen)
    assert tally.agreed, [verdict.differences for _, verdict in tally.mismatches]
    assert tally.details[(AGREE, "illegal-instruction (vill)")] > 0


def test_elen32_traps_sew64(harnesses):
    """The seed's first example at SEW=64 retires at ELEN=64 and traps (vill) at ELEN=32."""
    probe = case(128, parse_asm("vredmax.vs v8, v12, v4"), 64, "m1", 2, {4: 5, 12: pack([1, 9], 64)})
    at64 = harnesses(128, "undisturbed").run(probe)
    assert not at64.trapped and at64.regs[8] & ((1 << 64) - 1) == 9
    vtype, vl = configure(128, 32, probe.requested_vtype, 2)
    at32 = Case(probe.pre.with_(elen=32, vtype=vtype, vl=vl), probe.insn, probe.requested_vtype, 2)
    observed = harnesses(128, "undisturbed", 32).run(at32)
    assert observed.trapped and observed.regs == at32.pre.regs
    assert execute(at32.pre, at32.insn).outcome == ILLEGAL


def test_an_unsigned_reduction_is_caught(harnesses):
    """The seed's classic mistake, checked against QEMU: unsigned max gives 0xfe, not 3."""

    def unsigned_max(ops, seed, elements, active):
        acc = seed
        for value, is_active in zip(elements, active):
            acc = ops.ite(is_active, ops.umax(acc, value), acc)
        return acc

    probe = seed_example_1(128)
    wrong = execute(probe.pre, probe.insn, reduce=unsigned_max)
    verdict = compare(probe, wrong, harnesses(128, "undisturbed").run(probe), "undisturbed")
    assert verdict.kind == MISMATCH and verdict.differences == ("v8",)


def test_the_wrong_tail_policy_is_caught(harnesses):
    """QEMU with rvv_ta_all_1s compared with the undisturbed policy must disagree."""
    tally = conform(harnesses(256, "ones"), cases=300, seed=5, tail="undisturbed")
    assert tally.kinds[MISMATCH] > 0 and not tally.agreed


@pytest.mark.conformance_sweep
@pytest.mark.parametrize("vlen,tail", CONFIGURATIONS)
def test_qemu_agrees_on_a_large_seeded_run(harnesses, vlen, tail):
    tally = conform(harnesses(vlen, tail), cases=25000, seed=777 + vlen)
    assert tally.agreed, [verdict.differences for _, verdict in tally.mismatches]
