"""The testgen programs on Spike (tests-htif.elf, machine mode, HTIF): the suites of profiles
any and spike at VLEN 128 to 4096 (and the smallest machines, VLEN = ELEN = 32 and 64), the mutation test (the word replaced by vredmaxu, vredmin or
vredsum: the programs must fail), and `testgen --run-spike`.

Spike keeps agnostic tails: the suites accepting that (profile any, whose tail policy allows
either, and the tail policy undisturbed) pass; the tail policy ones fails at vd. The default
run keeps to a few small suites; `-m testgen_sweep` runs every VLEN with 2000 random cases.
"""

from __future__ import annotations

import json
import re

import pytest

from tests.conftest import require_tools
from vredmax.cli.main import main
from vredmax.platforms.testgen.build import build
from vredmax.platforms.testgen.run import FIELD_CODES, run_spike
from vredmax.platforms.testgen.suite import make_suite, write_suite
from vredmax.spec.profiles import get_profile

# Under pytest-xdist (--dist loadgroup) the module runs on one worker: the suites built once for the module.
pytestmark = pytest.mark.xdist_group("testgen_spike")

BINUTILS = ("riscv64-linux-gnu-as", "riscv64-linux-gnu-ld")
MUTANTS = {"vredmaxu": 0b000110, "vredmin": 0b000101, "vredsum": 0b000000}
VLENS = (128, 256, 512, 1024, 2048, 4096)


@pytest.fixture(scope="module")
def built(tmp_path_factory, spike):
    """built(vlen, profile, tail=None, funct6=None, random=8, elen=64) -> the built suite's directory."""
    require_tools(*BINUTILS)

    def get(vlen, profile="any", tail=None, funct6=None, random=8, elen=64):
        out = tmp_path_factory.mktemp(f"spike{vlen}")
        write_suite(make_suite(vlen, elen, get_profile(profile, tail), random, seed=vlen), out, funct6)
        build(out)
        return out

    return get


@pytest.mark.parametrize(
    "vlen,profile,tail",
    [
        (128, "any", None),
        (128, "spike", None),
        (4096, "any", "undisturbed"),
        (4096, "spike", None),
    ],
)
def test_htif_suite_passes_on_spike(built, spike, vlen, profile, tail):
    result = run_spike(built(vlen, profile, tail) / "tests-htif.elf", vlen, spike=spike, timeout=120)
    assert result.ok, result.output
    assert result.passed > 550
    # Profile any skips what it leaves free (the reserved encodings); spike's profile nothing, not
    # even the SEW > LMUL*ELEN set-ups (the profile says vill: a vsetvl that took one would fail).
    assert result.skipped == 0 if profile == "spike" else result.skipped < 40


@pytest.mark.parametrize("vlen,elen", [(32, 32), (64, 64)])
def test_the_smallest_machines_on_spike(built, spike, vlen, elen):
    """Zve32x at VLEN=32 and Zve64x at VLEN=64 (--isa=rv64gc_zve32x_zvl32b, rv64gc_zve64x_zvl64b)."""
    result = run_spike(
        built(vlen, "spike", elen=elen) / "tests-htif.elf", vlen, elen, spike=spike, timeout=120
    )
    assert result.ok and result.skipped == 0, result.output


def test_the_all_ones_tail_policy_fails_on_spike(built, spike):
    """Spike keeps agnostic tails: expecting ones fails at a vd register."""
    result = run_spike(
        built(128, "spike", "ones", random=0) / "tests-htif.elf", 128, spike=spike, timeout=120
    )
    assert result.failed_case is not None and result.field.startswith("v"), result.output


@pytest.mark.parametrize("mutant", MUTANTS)
def test_mutants_fail_on_spike(built, spike, mutant):
    result = run_spike(
        built(256, funct6=MUTANTS[mutant], random=0) / "tests-htif.elf", 256, spike=spike, timeout=120
    )
    assert not result.ok and result.failed_case is not None, result.output
    assert result.returncode == FIELD_CODES[result.field]
    if result.field.startswith("v"):  # the register detail is a 32-bit word, printed as one
        assert re.search(
            r": 32-bit word at byte \d+: observed 0x[0-9a-f]{8}, expected 0x[0-9a-f]{8}, "
            r"before 0x[0-9a-f]{8}",
            result.output,
        ), result.output


def test_testgen_runs_spike(tmp_path, capsys, spike):
    from jsonschema import validate

    from vredmax.schema import load_schema

    require_tools(*BINUTILS)
    code = main(
        [
            "testgen",
            "--vlen",
            "512",
            "--random",
            "5",
            "-o",
            str(tmp_path / "ok"),
            "--run-spike",
            "--spike",
            spike,
            "--json",
        ]
    )
    summary = json.loads(capsys.readouterr().out)
    validate(summary, load_schema("testgen-summary"))
    assert code == 0 and [(r["environment"], r["verdict"]) for r in summary["runs"]] == [("spike", "pass")]
    assert (
        main(
            [
                "testgen",
                "--vlen",
                "128",
                "--random",
                "0",
                "-o",
                str(tmp_path / "bad"),
                "--mutate",
                "vredsum",
                "--run-spike",
            ]
        )
        == 1
    )
    capsys.readouterr()
    assert (
        main(
            [
                "testgen",
                "--vlen",
                "128",
                "-o",
                str(tmp_path / "x"),
                "--run-spike",
                "--spike",
                str(tmp_path / "no-such-spike"),
            ]
        )
        == 2
    )
    assert capsys.readouterr().err.startswith("vredmax: error: --spike: ")


@pytest.mark.testgen_sweep
@pytest.mark.parametrize("vlen", VLENS)
@pytest.mark.parametrize("profile,tail", [("any", None), ("any", "undisturbed"), ("spike", None)])
def test_htif_suite_with_many_random_cases_on_spike(built, spike, vlen, profile, tail):
    result = run_spike(built(vlen, profile, tail, random=2000) / "tests-htif.elf", vlen, spike=spike)
    assert result.ok, result.output


@pytest.mark.testgen_sweep
@pytest.mark.parametrize("vlen", VLENS)
def test_mutants_fail_on_spike_at_every_vlen(built, spike, vlen):
    for mutant, funct6 in MUTANTS.items():
        result = run_spike(built(vlen, funct6=funct6, random=0) / "tests-htif.elf", vlen, spike=spike)
        assert not result.ok and result.failed_case is not None, (mutant, result.output)
