"""Execution conformance on Spike: the harness in machine mode (HTIF), the same seeded cases as
the QEMU conformance, compared field by field with mstatus.VS included, judged with profile any.

The default run draws a few hundred cases at VLEN 32 (ELEN 32), 128 and 4096 and runs the
command; `-m conformance_sweep` runs 10,000 cases at every VLEN from 32 to 4096.
"""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys

import pytest

from vredmax.platforms.conformance.cases import random_cases
from vredmax.platforms.conformance.compare import AGREE, MISMATCH, compare
from vredmax.platforms.conformance.run import conform
from vredmax.impl.execute import execute
from vredmax.spec.state import VS_DIRTY

VS_INITIAL = 1

VLENS = (128, 256, 512, 1024, 2048, 4096)


@pytest.mark.parametrize("vlen,elen,cases", [(128, 64, 600), (4096, 64, 300), (32, 32, 300)])
def test_spike_agrees_on_a_seeded_run(spike_harnesses, vlen, elen, cases):
    """VLEN 32 with ELEN 32 is Zve32x, the smallest machine (QEMU starts at VLEN 128)."""
    tally = conform(spike_harnesses(vlen, elen), cases=cases, seed=4100 + vlen)
    assert tally.agreed, [(v.differences, v.note) for _, v in tally.mismatches]
    assert tally.kinds[AGREE] > cases // 2


def test_spike_shows_mstatus_vs_and_it_is_compared(spike_harnesses):
    """Machine mode: VS is set per case and read back; an observation with VS left Initial
    after vd was written is a mismatch naming vs (the harness really reports what it reads:
    Initial and Clean come back as set before the word)."""
    harness = spike_harnesses(256)
    seen_before, doctored_cases = set(), 0
    for case in random_cases(8, 200, 256):
        observation = harness.run(case)
        assert observation.vs is not None and observation.before[3] == case.pre.vs
        seen_before.add(observation.before[3])
        spec = execute(case.pre, case.insn, tail="undisturbed")
        if spec.outcome == "retired" and case.pre.vl > 0 and case.pre.vs == VS_INITIAL:
            assert observation.vs == VS_DIRTY
            doctored = dataclasses.replace(observation, vs=VS_INITIAL)
            doctored_cases += 1
            verdict = compare(case, spec, doctored, "undisturbed")
            assert verdict.kind == MISMATCH and "vs" in verdict.differences
            assert any(rule.endswith("success_dirties_vs") for rule in verdict.rules)
    assert seen_before == {1, 2, 3} and doctored_cases > 5


def test_a_wrong_tail_policy_is_caught_on_spike(spike_harnesses):
    """Spike keeps agnostic tails; a spec told they become ones disagrees (the check can fail)."""
    tally = conform(spike_harnesses(128), cases=300, seed=5, tail="ones")
    assert tally.kinds[MISMATCH] > 0


def test_the_command_on_spike(spike, htif_harness):
    base = [sys.executable, "-m", "vredmax", "conform", "--emulator", "spike", "--spike", spike]
    done = subprocess.run(
        [*base, "--vlen", "512", "--cases", "300", "--seed", "3"], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "--isa=rv64gcv_zvl512b" in done.stdout and "compared: mstatus.VS" in done.stdout
    assert done.stdout.strip().splitlines()[-1].startswith("Summary: 300 cases,")
    assert " 0 mismatches (" in done.stdout and "cases/s)" in done.stdout
    done = subprocess.run(
        [*base, "--vlen", "128", "--cases", "100", "--seed", "3", "--json"], capture_output=True, text=True
    )
    from jsonschema import validate

    from vredmax.schema import load_schema

    document = json.loads(done.stdout)
    validate(document, load_schema("conform-result"))
    assert done.returncode == 0 and document["kind"] == "spike" and document["vs_compared"] is True
    assert document["cpu"] == "rv64gcv_zvl128b"
    for extra, field in (
        (["--tail", "ones"], "tail"),
        (["--vlen", "8192"], "vlen"),
        (["--vlen", "16"], "vlen"),
        (["--spike", "/no/such/spike"], "spike"),
    ):
        done = subprocess.run([*base, *extra, "--cases", "3"], capture_output=True, text=True)
        assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
        assert done.stderr.startswith(f"vredmax: error: --{field}: ")


@pytest.mark.conformance_sweep
@pytest.mark.parametrize("vlen,elen", [(32, 32), (64, 32), (64, 64), *((vlen, 64) for vlen in VLENS)])
def test_spike_agrees_on_a_large_seeded_run(spike_harnesses, vlen, elen):
    tally = conform(spike_harnesses(vlen, elen), cases=10000, seed=777 + vlen)
    assert tally.agreed, [(v.differences, v.note) for _, v in tally.mismatches]
