"""`vredmax testgen` without emulators: the directed suite's coverage, its cases against the
executable model and the profiles, the cases.jsonl form (read back by exec and judge), the
compact register images, the mutants' words, the summary schema."""

import json

import jsonschema
import pytest

from vredmax.impl.case import parse_case
from vredmax.cli.main import main
from vredmax.cli.cmd_judge import judge_object
from vredmax.impl.execute import execute
from vredmax.schema import load_schema
from vredmax.spec.encoding import REDUCTIONS, decode, encode
from vredmax.spec.legality import RESERVED
from vredmax.spec.profiles import Observed, get_profile
from vredmax.platforms.testgen.asm import REPEAT, descriptor_words, instruction_word
from vredmax.platforms.testgen.cases import coverage, directed_cases, random_suite, required_coverpoints
from vredmax.platforms.testgen.suite import JSONL_KEY, exec_case, jsonl_line, make_suite


def undescribe(words: list[int], vlen: int) -> int:
    """The register image a descriptor stands for (what runner.S's tg_apply builds)."""
    count = max(1, vlen // 32)
    image = [words[j % 2] for j in range(count)]
    k = 3
    for _ in range(words[2]):
        start, n = words[k], words[k + 1]
        if n & REPEAT:
            n &= ~REPEAT
            image[start : start + n] = [words[k + 2 + j % 2] for j in range(start, start + n)]
            k += 4
        else:
            image[start : start + n] = words[k + 2 : k + 2 + n]
            k += 2 + n
    return sum(word << (32 * i) for i, word in enumerate(image))


@pytest.mark.parametrize("vlen,elen", [(32, 32), (64, 64), (128, 32), (128, 64), (1024, 64), (65536, 64)])
def test_directed_suite_hits_every_coverpoint(vlen, elen):
    cases = directed_cases(vlen, elen)
    hits, missing = coverage(cases, vlen, elen)
    assert missing == []
    assert all(hits[name] > 0 for name in required_coverpoints(vlen, elen))
    assert len({case.name for case in cases}) == len(cases)


def test_a_coverpoint_without_a_case_is_reported():
    cases = [
        case
        for case in directed_cases(128)
        if not case.name.endswith(".vl_0") and "cp_vl_0.e16" not in case.coverpoints
    ]
    _, missing = coverage(cases, 128)
    assert "cp_vl_0.e16" in missing


def test_coverpoints_are_read_off_the_data():
    by_name = {case.name: case for case in directed_cases(256)}
    assert "max_position.e8.middle" in by_name["e8m1.vl_vlmax"].coverpoints
    assert "one_active_max.e16.last" in by_name["e16m2.one_active_last"].coverpoints
    assert "cp_masking_edges.e32.all_off" in by_name["e32m1.all_masked"].coverpoints
    assert "cmp_vd_vs2.e8" in by_name["e8m2.vd_eq_vs2"].coverpoints
    assert "vd_in_vs2_group.e8" in by_name["e8m2.vd_in_vs2_group"].coverpoints
    assert by_name["trap.vill.reserved_vlmul"].coverpoints == ("trap.vill.reserved_vlmul",)
    assert by_name["trap.vs_off"].coverpoints == ("trap.vs_off",)


@pytest.mark.parametrize("vlen,stride", [(128, 1), (4096, 1), (65536, 7)])
def test_every_case_agrees_with_the_model_under_the_architecture(vlen, stride):
    """Both tail resolutions of the executable model are allowed outcomes (reserved aside),
    and the runner's check says the same: vd's agnostic tail free, the result as the model."""
    suite = make_suite(vlen, 64, "any", random_count=30, seed=3)
    for entry in suite.entries[::stride]:
        case = entry.case
        for tail in ("undisturbed", "ones"):
            result = execute(case.pre, case.insn, tail=tail)
            if result.outcome == RESERVED:
                assert entry.check.skip
                continue
            assert entry.allowed.judge(Observed.of(result.outcome, result.state)).allowed, case.name
            assert entry.check.may_retire == (result.outcome == "retired"), case.name
            assert entry.check.may_trap == (result.outcome != "retired"), case.name
        if entry.check.expected_vd is not None:
            mask = (1 << entry.check.sew_bytes * 8) - 1
            model = execute(case.pre, case.insn).state.regs[case.insn.vd]
            assert entry.check.expected_vd & mask == model & mask


def test_profiles_change_what_the_programs_accept():
    any_, sail, qemu = (make_suite(128, 64, name) for name in ("any", "sail", "qemu"))
    tail_free = lambda suite: sum(e.check.tail_free for e in suite.entries)  # noqa: E731
    skipped = lambda suite: sum(e.check.skip for e in suite.entries)  # noqa: E731
    assert tail_free(any_) > 100 and tail_free(sail) == 0 and tail_free(qemu) == 0
    assert skipped(any_) > 0 and skipped(sail) == 0 and skipped(qemu) == 0
    v0 = next(e for e in qemu.entries if e.case.name == "reserved.e8m1.v0_is_vs1")
    assert v0.check.may_retire and not v0.check.may_trap  # QEMU executes it
    v0 = next(e for e in sail.entries if e.case.name == "reserved.e8m1.v0_is_vs1")
    assert v0.check.may_trap and not v0.check.may_retire  # Sail traps it
    ones = make_suite(128, 64, get_profile("qemu", "ones"))
    assert tail_free(ones) == 0 and all(
        e.check.expected_vd is not None
        for e in ones.entries
        if e.case.pre.vtype >> 6 & 1 and e.check.may_retire and e.case.pre.vl > 0
    )


def test_jsonl_lines_are_exec_cases_that_judge_reads():
    suite = make_suite(128, 64, "any", random_count=5)
    for entry in suite.entries[::7]:
        line = json.loads(json.dumps(jsonl_line(entry, suite.profile)))
        extra = line[JSONL_KEY]
        assert extra["number"] == entry.number and extra["name"] == entry.case.name
        pre, insn, _ = parse_case(exec_case(line))
        assert pre == entry.case.pre and insn == entry.case.insn
        result = execute(pre, insn)
        observed = {"outcome": result.outcome if result.outcome != RESERVED else "illegal-instruction"}
        verdict = judge_object({**exec_case(line), "observed": observed}, suite.profile)
        assert verdict["verdict"] == "allowed"
        assert judge_object({**line, "observed": observed}, suite.profile) == verdict  # as written
        assert [option["outcome"] for option in extra["allowed"]] == [o.kind for o in entry.allowed.outcomes]


@pytest.mark.parametrize("vlen", [32, 128, 65536])
def test_register_images_round_trip(vlen):
    elen = min(64, vlen)
    for case in directed_cases(vlen, elen)[::11] + random_suite(vlen, elen, 3, 5):
        for value in case.pre.regs:
            assert undescribe(descriptor_words(value, vlen), vlen) == value


def test_big_vlen_images_stay_compact():
    sizes = [
        len(descriptor_words(value, 65536))
        for case in directed_cases(65536)
        for value in case.pre.regs
        if value
    ]
    assert max(sizes) < 40  # words, out of 2048 per register


def test_mutant_words_keep_the_operands():
    insn = decode(0x1C862257)
    for funct6, name in REDUCTIONS.items():
        word = instruction_word(insn, funct6)
        assert word >> 26 == funct6 and word & ((1 << 26) - 1) == encode(insn) & ((1 << 26) - 1), name
    assert instruction_word(insn) == 0x1C862257


def test_command_writes_the_suite_and_a_schema_valid_summary(tmp_path, capsys):
    code = main(["testgen", "--vlen", "128", "--random", "4", "--seed", "9", "-o", str(tmp_path), "--json"])
    summary = json.loads(capsys.readouterr().out)
    assert code == 0
    jsonschema.validate(summary, load_schema("testgen-summary"))
    assert summary["missing_coverpoints"] == [] and summary["random"] == 4
    lines = (tmp_path / "cases.jsonl").read_text().splitlines()
    assert len(lines) == summary["cases"]
    assert "cases.S" in {p.split("/")[-1] for p in summary["files"]}
    source = (tmp_path / "cases.S").read_text()
    assert source.count(".insn 0x") == summary["cases"]


def test_command_text_output(tmp_path, capsys):
    assert main(["testgen", "--vlen", "256", "--random", "0", "-o", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "coverage: all" in out and "directed + 0 random" in out


@pytest.mark.parametrize(
    "argv,field",
    [
        (["--vlen", "100"], "--vlen"),
        (["--vlen", "128", "--random", "-1"], "--random"),
        (["--vlen", "128", "--seed", "-2"], "--seed"),
    ],
)
def test_bad_input_names_the_field(tmp_path, capsys, argv, field):
    assert main(["testgen", *argv, "-o", str(tmp_path / "x")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"vredmax: error: {field}:")
