"""The testgen programs under QEMU: the Linux suite at VLEN 128..1024 with both tail policies
(qemu-riscv64), the bare-metal suites (qemu-system-riscv64: virt with its test finisher, and
the spike board with HTIF), and the mutation test (the word replaced by vredmaxu, vredmin or
vredsum: every program must fail). Also that a failure names the case and the field, in the
output and in the exit status.

The default run keeps the random part small (directed cases + RANDOM); `-m testgen_sweep`
runs 2000 random cases per configuration.
"""

from __future__ import annotations

import dataclasses
import re

import pytest

from tests.conftest import require_tools
from vredmax.spec.profiles import get_profile
from vredmax.platforms.testgen.build import build
from vredmax.platforms.testgen.run import FIELD_CODES, run_baremetal, run_linux
from vredmax.platforms.testgen.suite import make_suite, write_suite

# Under pytest-xdist (--dist loadgroup) the module runs on one worker: the suites built once (session
# fixtures: a worker may run other modules between these tests, which would end a module fixture).
pytestmark = pytest.mark.xdist_group("testgen_qemu")

VLENS = (128, 256, 512, 1024)
TAILS = ("undisturbed", "ones")
RANDOM = 12
MUTANTS = {"vredmaxu": 0b000110, "vredmin": 0b000101, "vredsum": 0b000000}
BINUTILS = ("riscv64-linux-gnu-as", "riscv64-linux-gnu-ld")


@pytest.fixture(scope="session")
def built(tmp_path_factory):
    """built(vlen, profile, tail=None, funct6=None, random=RANDOM, suite=None) -> the directory
    of the built programs (cached for the session unless `suite` is given)."""
    require_tools(*BINUTILS)
    cache = {}

    def get(vlen, profile="any", tail=None, funct6=None, random=RANDOM, suite=None):
        key = (vlen, profile, tail, funct6, random)
        if suite is None and key in cache:
            return cache[key]
        out = tmp_path_factory.mktemp(f"tg{vlen}")
        write_suite(suite or make_suite(vlen, 64, get_profile(profile, tail), random, seed=vlen), out, funct6)
        build(out)
        if suite is None:
            cache[key] = out
        return out

    return get


@pytest.fixture(scope="session")
def qemu_user():
    require_tools("qemu-riscv64")


@pytest.fixture(scope="session")
def qemu_system():
    require_tools("qemu-system-riscv64")


@pytest.mark.parametrize("vlen", VLENS)
@pytest.mark.parametrize("tail", TAILS)
def test_linux_suite_passes_under_qemu(built, qemu_user, vlen, tail):
    result = run_linux(built(vlen) / "tests-linux.elf", vlen, tail)
    assert result.ok, result.output
    assert result.passed > 550 and result.skipped < 40


@pytest.mark.parametrize("vlen", VLENS)
@pytest.mark.parametrize("tail", TAILS)
def test_linux_suite_of_the_qemu_profile_passes(built, qemu_user, vlen, tail):
    """Deterministic expectations: reserved v0 overlaps executed as the plain reading, the tail
    exactly as the rvv_ta_all_1s setting says."""
    result = run_linux(built(vlen, "qemu", tail) / "tests-linux.elf", vlen, tail)
    assert result.ok, result.output
    assert result.skipped <= 4  # VS Off (user mode) and nothing else


def test_baremetal_suite_passes_on_virt(built, qemu_system):
    """Machine mode: mstatus.VS is set per case (Off too) and checked afterwards."""
    for tail in TAILS:
        result = run_baremetal(built(256) / "tests-baremetal.elf", 256, tail, timeout=120)
        assert result.ok, result.output
        linux = run_linux(built(256) / "tests-linux.elf", 256, tail) if _has("qemu-riscv64") else None
        if linux:
            assert result.passed == linux.passed + 2  # the two VS=Off cases run here


def test_the_qemu_profile_matches_qemu_system(built, qemu_system):
    """The qemu profile is QEMU 7.2 measured: in machine mode VS stays at vl=0 (on-write), the
    masked v0 overlaps execute, agnostic tails are kept; its bare-metal suite passes as it is."""
    result = run_baremetal(built(128, "qemu") / "tests-baremetal.elf", 128, timeout=120)
    assert result.ok, result.output


def test_htif_suite_passes_on_the_spike_board(built, qemu_system):
    result = run_baremetal(built(128) / "tests-htif.elf", 128, machine="spike", timeout=120)
    assert result.ok, result.output


@pytest.mark.parametrize("mutant", MUTANTS)
def test_mutants_fail_everywhere(built, qemu_user, qemu_system, mutant):
    out = built(256, funct6=MUTANTS[mutant])
    for tail in TAILS:
        linux = run_linux(out / "tests-linux.elf", 256, tail)
        assert not linux.ok and linux.failed_case is not None, linux.output
        assert linux.returncode == FIELD_CODES[linux.field]
    bare = run_baremetal(out / "tests-baremetal.elf", 256, timeout=120)
    assert not bare.ok and bare.failed_case is not None, bare.output
    assert bare.returncode == FIELD_CODES[bare.field]


@pytest.mark.parametrize("vlen", (128, 1024))
def test_mutants_fail_in_linux_at_other_vlens(built, qemu_user, vlen):
    for mutant, funct6 in MUTANTS.items():
        result = run_linux(built(vlen, funct6=funct6, random=0) / "tests-linux.elf", vlen)
        assert not result.ok and result.failed_case is not None, (mutant, result.output)


def test_a_failure_names_the_case_and_the_field(built, qemu_user):
    """A wrong expected result in one case: the program stops there and says which."""
    suite = make_suite(128, 64, "any", 0)
    number = next(e.number for e in suite.entries if e.case.name == "e16m1.vl_vlmax")
    entries = tuple(
        dataclasses.replace(e, check=dataclasses.replace(e.check, expected_vd=e.check.expected_vd ^ 1))
        if e.number == number
        else e
        for e in suite.entries
    )
    vd = suite.entries[number - 1].case.insn.vd
    out = built(128, suite=dataclasses.replace(suite, entries=entries))
    result = run_linux(out / "tests-linux.elf", 128)
    assert (result.failed_case, result.field, result.returncode) == (number, f"v{vd}", 10 + vd)
    assert f"FAIL case {number} (e16m1.vl_vlmax) field v{vd}" in result.output


@pytest.mark.parametrize(
    "after,field,detail",
    [
        ("vmv1r.v v31, v30", "v31", None),  # writes a register it must not
        ("csrwi vstart, 1", "vstart", ": observed 0x0000000000000001, allowed 0x0000000000000000"),
        (
            "vsetivli x0, 1, e64, m1, ta, ma",
            "vl",
            ": observed 0x0000000000000001, allowed 0x0000000000000002",
        ),
        (
            "vsetvli x0, x0, e16, mf4, ta, ma",
            "vtype",
            ": observed 0x00000000000000ce, allowed 0x0000000000000005",
        ),
        ("unimp", "trap", None),  # a trap outside the word
    ],
)
def test_every_checked_field_catches_a_faulty_implementation(tmp_path, qemu_user, after, field, detail):
    """Faulty implementations played by an extra instruction after the word: each changes one
    more thing, and the runner names that field in the output and the exit status."""
    require_tools(*BINUTILS)
    write_suite(make_suite(128, 64, "any", 0), tmp_path, after_word=after)
    build(tmp_path)
    result = run_linux(tmp_path / "tests-linux.elf", 128)
    assert (result.failed_case, result.field, result.returncode) == (1, field, FIELD_CODES[field]), (
        result.output
    )
    if detail is not None:
        assert f"FAIL case 1 (e8mf8.vl_vlmax) field {field}{detail}\n" in result.output
    if field == "v31":  # background(30) replaced background(31): they differ in the first word
        assert re.search(
            r"field v31: 32-bit word at byte 0: observed 0x[0-9a-f]{8}, expected 0x[0-9a-f]{8}, "
            r"before 0x[0-9a-f]{8}\n",
            result.output,
        ), result.output


@pytest.mark.parametrize("byte,passes", [(0xFF, True), (0x5A, True), (0x0F, False), (0x00, False)])
def test_agnostic_tail_elements_are_judged_one_by_one(tmp_path, qemu_user, byte, passes):
    """e8m1.vl_1 has vta=1 and vd=v4 (old bytes 0x5a): after the word, element 1 of vd is set
    to `byte` (vl and vtype restored). All ones and the old value are allowed, anything else not."""
    require_tools(*BINUTILS)
    suite = make_suite(128, 64, "any", 0)
    entry = next(e for e in suite.entries if e.case.name == "e8m1.vl_1")
    assert entry.check.tail_free and entry.case.insn.vd == 4
    after = (
        "csrr t0, vl; csrr t1, vtype; vsetivli x0, 1, e8, m1, tu, mu; vmv.x.s t2, v4; andi t2, t2, 0xff; "
        f"li t3, {byte << 8:#x}; or t2, t2, t3; vsetivli x0, 1, e16, m1, tu, mu; vmv.s.x v4, t2; vsetvl x0, t0, t1"
    )
    write_suite(dataclasses.replace(suite, entries=(entry,)), tmp_path, after_word=after)
    build(tmp_path)
    result = run_linux(tmp_path / "tests-linux.elf", 128)
    if passes:
        assert result.ok and result.passed == 1, result.output
    else:
        assert (result.failed_case, result.field) == (entry.number, "v4"), result.output


def test_baremetal_checks_mstatus_vs(tmp_path, qemu_system):
    """A faulty implementation that leaves VS Initial after writing vd: the VS field fails."""
    require_tools(*BINUTILS)
    write_suite(
        make_suite(128, 64, "any", 0),
        tmp_path,
        after_word="li t0, 3 << 9; csrc mstatus, t0; li t0, 1 << 9; csrs mstatus, t0",
    )
    build(tmp_path)
    result = run_baremetal(tmp_path / "tests-baremetal.elf", 128, timeout=120)
    assert (result.failed_case, result.field, result.returncode) == (1, "vs", FIELD_CODES["vs"]), (
        result.output
    )
    assert "field vs: observed initial, allowed dirty" in result.output


def test_a_narrow_profile_catches_what_it_excludes(built, qemu_user):
    """Sail's profile: agnostic tails kept and reserved v0 overlaps trapped. QEMU with
    rvv_ta_all_1s writes ones (a vd field fails); plain QEMU executes the overlaps (outcome)."""
    out = built(128, "sail", random=0)
    ones = run_linux(out / "tests-linux.elf", 128, "ones")
    assert ones.field is not None and ones.field.startswith("v"), ones.output
    plain = run_linux(out / "tests-linux.elf", 128, "undisturbed")
    assert plain.field == "outcome", plain.output


def test_wrong_vlen_is_reported(built, qemu_user):
    result = run_linux(built(256) / "tests-linux.elf", 128)
    assert result.field == "vlenb" and result.returncode == FIELD_CODES["vlenb"]


@pytest.mark.testgen_sweep
@pytest.mark.parametrize("vlen", VLENS)
@pytest.mark.parametrize("tail", TAILS)
def test_linux_suite_with_many_random_cases(built, qemu_user, vlen, tail):
    result = run_linux(built(vlen, random=2000) / "tests-linux.elf", vlen, tail)
    assert result.ok, result.output


def _has(tool: str) -> bool:
    import shutil

    return shutil.which(tool) is not None


def test_command_runs_and_summarises(tmp_path, capsys, qemu_user, qemu_system):
    import json

    import jsonschema

    from vredmax.cli.main import main
    from vredmax.schema import load_schema

    require_tools(*BINUTILS)
    code = main(
        [
            "testgen",
            "--vlen",
            "256",
            "--random",
            "5",
            "-o",
            str(tmp_path / "ok"),
            "--run",
            "--run-baremetal",
            "--json",
        ]
    )
    summary = json.loads(capsys.readouterr().out)
    jsonschema.validate(summary, load_schema("testgen-summary"))
    assert code == 0 and [run["verdict"] for run in summary["runs"]] == ["pass", "pass"]
    code = main(
        [
            "testgen",
            "--vlen",
            "256",
            "--random",
            "0",
            "-o",
            str(tmp_path / "bad"),
            "--mutate",
            "vredsum",
            "--run",
            "--json",
        ]
    )
    summary = json.loads(capsys.readouterr().out)
    jsonschema.validate(summary, load_schema("testgen-summary"))
    run = summary["runs"][0]
    assert code == 1 and run["verdict"] == "fail" and run["failed_case"] >= 1 and run["field"]
    assert (
        main(
            [
                "testgen",
                "--vlen",
                "128",
                "-o",
                str(tmp_path / "x"),
                "--run",
                "--emulator",
                str(tmp_path / "no-such-qemu"),
            ]
        )
        == 2
    )
    assert capsys.readouterr().err.startswith("vredmax: error: --emulator: ")


def test_the_written_build_script_builds_the_same_programs(tmp_path, qemu_user):
    """DIR/build.sh, for a platform team without this tool."""
    import subprocess

    require_tools(*BINUTILS)
    write_suite(make_suite(128, 64, "any", 3), tmp_path)
    done = subprocess.run([str(tmp_path / "build.sh")], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert all(
        (tmp_path / name).is_file() for name in ("tests-linux.elf", "tests-baremetal.elf", "tests-htif.elf")
    )
    assert run_linux(tmp_path / "tests-linux.elf", 128).ok
