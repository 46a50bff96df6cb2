"""The `vredmax` command line: exec (human, --json, --jsonl), asm, disasm, and bad input."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from vredmax.impl.case import case_json, parse_case
from vredmax.cli.main import main
from tests.strategies import cases, pack
from tests.test_execute import ANIMATION_MASK, ANIMATION_RUNNING_MAX, ANIMATION_V8

VREDMAX = Path(sys.executable).parent / "vredmax"

EXAMPLE1 = {
    "vlen": 128,
    "insn": "vredmax.vs v8, v12, v4",
    "vtype": {"sew": 8, "lmul": "m1"},
    "vl": 4,
    "vregs": {"v4": "0xfe", "v12": hex(pack([1, 0x80, 2, 3], 8))},
}
EXAMPLE2 = {
    "vlen": 4096,
    "insn": "vredmax.vs v4, v8, v12, v0.t",
    "vtype": {"sew": 16, "lmul": "m1"},
    "vl": 8,
    "vregs": {
        "v8": hex(pack(ANIMATION_V8, 16)),
        "v0": bin(sum(b << i for i, b in enumerate(ANIMATION_MASK))),
    },
}


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def run_process(*argv, stdin=None):
    done = subprocess.run(
        [str(VREDMAX), *map(str, argv)], input=stdin, capture_output=True, text=True, timeout=60
    )
    return done.returncode, done.stdout, done.stderr


def case_file(tmp_path, case, name="case.json"):
    path = tmp_path / name
    path.write_text(case if isinstance(case, str) else json.dumps(case))
    return path


# -- the worked examples ---------------------------------------------------------------------


def test_example1_human_view_in_a_subprocess(tmp_path):
    code, out, err = run_process("exec", case_file(tmp_path, EXAMPLE1))
    assert (code, err) == (0, "")
    assert "result vd[0] = v8[0] = #x03 (3, 3)" in out
    assert "seed vs1[0] = v4[0] = #xfe (254, -2)" in out
    assert "outcome: retired; vstart=0, VS=dirty" in out


def test_example1_json(capsys, tmp_path):
    code, out, _ = run(capsys, "exec", case_file(tmp_path, EXAMPLE1), "--json")
    result = json.loads(out)
    assert code == 0
    assert {k: result[k] for k in ("outcome", "reason", "vl", "vstart", "vtype", "vs")} == {
        "outcome": "retired",
        "reason": "",
        "vl": 4,
        "vstart": 0,
        "vtype": 0,
        "vs": "dirty",
    }
    assert result["vregs"]["v8"] == "0x" + "0" * 30 + "03"
    assert list(result["vregs"]) == [f"v{i}" for i in range(32)]
    assert result["vregs"]["v12"] == "0x" + "0" * 24 + "03028001"


def lane_rows(out):
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.split()[:1] == ["lane"]) + 1
    rows = []
    for line in lines[start:]:
        if not line.strip():
            break
        rows.append(line.split())
    return rows


@pytest.mark.parametrize("impl", ["sequential", "tree", "lanes"])
def test_example2_lane_table_like_the_animation(capsys, tmp_path, impl):
    code, out, _ = run(capsys, "exec", case_file(tmp_path, EXAMPLE2), "--impl", impl)
    assert code == 0
    rows = lane_rows(out)
    assert [int(r[0]) for r in rows] == list(range(8))
    assert [int(r[1], 16) for r in rows] == ANIMATION_V8
    assert [int(r[3]) for r in rows] == ANIMATION_MASK
    assert [r[4] for r in rows] == ["yes" if bit else "no" for bit in ANIMATION_MASK]
    assert [int(r[5], 16) for r in rows] == ANIMATION_RUNNING_MAX
    assert "result vd[0] = v4[0] = #x0011 (17, 17)" in out


def test_example2_json_in_a_subprocess_from_stdin():
    code, out, err = run_process("exec", "-", "--json", stdin=json.dumps(EXAMPLE2))
    assert (code, err) == (0, "")
    assert int(json.loads(out)["vregs"]["v4"], 16) == 0x0011


def test_traps_and_vl0_in_the_human_view(capsys, tmp_path):
    code, out, _ = run(capsys, "exec", case_file(tmp_path, {**EXAMPLE1, "vstart": 2}))
    assert code == 0
    assert "outcome: illegal-instruction: vstart=2 is nonzero" in out and "nothing changed" in out
    code, out, _ = run(capsys, "exec", case_file(tmp_path, {**EXAMPLE1, "vl": 0}), "--json")
    result = json.loads(out)
    assert (result["outcome"], result["vs"], result["vregs"]["v8"]) == ("retired", "initial", "0x" + "0" * 32)


def test_case_formats_vtype_raw_and_registers_as_integers(capsys, tmp_path):
    case = {
        **EXAMPLE1,
        "vtype": 0xC0,
        "tail": "ones",
        "elen": 32,
        "vs": "clean",
        "vregs": {"v4": 0xFE, "v12": pack([1, 0x80, 2, 3], 8), "v8": "0x1_0000"},
    }
    code, out, _ = run(capsys, "exec", case_file(tmp_path, case), "--json")
    result = json.loads(out)
    assert (code, result["vtype"]) == (0, 0xC0)
    assert result["vregs"]["v8"] == "0x" + "f" * 30 + "03"  # vta=1 with the ones policy


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)
@given(cases(vlens=(32, 64, 128, 256, 4096)))
def test_case_json_is_the_inverse_of_parse_case(case):
    assert parse_case(json.loads(json.dumps(case_json(*case)))) == case


# -- --jsonl ---------------------------------------------------------------------------------


def test_jsonl_bad_line_in_the_middle(capsys, tmp_path):
    lines = [json.dumps(EXAMPLE1), json.dumps({**EXAMPLE1, "vl": 17}), "", json.dumps(EXAMPLE2), "{oops"]
    code, out, err = run(capsys, "exec", "--jsonl", case_file(tmp_path, "\n".join(lines) + "\n"))
    results = [json.loads(line) for line in out.splitlines()]
    assert code == 2 and err == ""
    assert len(results) == 4
    assert int(results[0]["vregs"]["v8"], 16) == 3
    assert results[1] == {
        "schema": "vredmax/exec-error/1",
        "line": 2,
        "error": "line 2: vl: must be 0..16 (VLMAX=16 for SEW=8 LMUL=m1), got 17",
    }
    assert int(results[2]["vregs"]["v4"], 16) == 0x11
    assert results[3]["error"].startswith("line 5: case: malformed JSON")


def test_jsonl_matches_single_runs_and_every_impl(capsys, tmp_path):
    path = case_file(tmp_path, json.dumps(EXAMPLE1) + "\n" + json.dumps(EXAMPLE2) + "\n")
    singles = []
    for example in (EXAMPLE1, EXAMPLE2):
        singles.append(json.loads(run(capsys, "exec", case_file(tmp_path, example, "one.json"), "--json")[1]))
    for impl in ("sequential", "tree", "lanes"):
        code, out, _ = run(capsys, "exec", "--jsonl", path, "--impl", impl)
        assert code == 0
        assert [json.loads(line) for line in out.splitlines()] == singles


def test_jsonl_from_stdin_in_a_subprocess():
    stdin = json.dumps(EXAMPLE1) + "\n[1]\n" + json.dumps(EXAMPLE2) + "\n"
    code, out, err = run_process("exec", "--jsonl", "-", stdin=stdin)
    lines = out.splitlines()
    assert code == 2 and err == "" and len(lines) == 3
    assert json.loads(lines[1]) == {
        "schema": "vredmax/exec-error/1",
        "line": 2,
        "error": "line 2: case: expected a JSON object",
    }


# -- asm and disasm --------------------------------------------------------------------------


def test_asm_and_disasm(capsys):
    assert run(capsys, "asm", "vredmax.vs v8, v12, v4") == (0, "0x1ec22457\n", "")
    code, out, _ = run(capsys, "disasm", "0x1c862257")
    assert code == 0
    assert out.splitlines()[0] == "vredmax.vs v4, v8, v12, v0.t"
    assert [line.split()[:2] for line in out.splitlines()[1:]] == [
        ["funct6", "000111"],
        ["vm", "0"],
        ["vs2", "01000"],
        ["vs1", "01100"],
        ["funct3", "010"],
        ["vd", "00100"],
        ["opcode", "1010111"],
    ]


# -- bad input: exit 2 and exactly one line naming the field ----------------------------------


def with_(**changes):
    case = json.loads(json.dumps(EXAMPLE1))
    for key, value in changes.items():
        if key == "vtype" and isinstance(value, dict) and "replace" not in value:
            case["vtype"].update(value)
        elif key == "vregs":
            case["vregs"].update(value)
        else:
            case[key] = value
    return case


BAD_CASES = [
    ("malformed JSON", '{"vlen": 128,', "case"),
    ("not an object", "[1, 2]", "case"),
    ("unknown field", with_(vlenn=128), "vlenn"),
    ("missing vl", {k: v for k, v in EXAMPLE1.items() if k != "vl"}, "vl"),
    ("v32", with_(vregs={"v32": "0x1"}), "vregs.v32"),
    ("v07", with_(vregs={"v07": "0x1"}), "vregs.v07"),
    ("vl > VLMAX", with_(vl=17), "vl"),
    ("vl negative", with_(vl=-1), "vl"),
    ("vl a boolean", with_(vl=True), "vl"),
    ("VLEN not a power of two", with_(vlen=100), "vlen"),
    ("VLEN too large", with_(vlen=131072), "vlen"),
    ("ELEN 16", with_(elen=16), "elen"),
    ("ELEN > VLEN", with_(vlen=32), "elen"),
    ("SEW 12", with_(vtype={"sew": 12}), "vtype.sew"),
    ("bad lmul", with_(vtype={"lmul": "m3"}), "vtype.lmul"),
    ("unknown vtype key", with_(vtype={"vill": 1}), "vtype.vill"),
    ("vta not a flag", with_(vtype={"vta": "yes"}), "vtype.vta"),
    ("raw vtype too wide", with_(vtype=1 << 64), "vtype"),
    ("value wider than the register", with_(vregs={"v12": hex(1 << 128)}), "vregs.v12"),
    ("register not a number", with_(vregs={"v4": "fe"}), "vregs.v4"),
    ("vregs not an object", {**EXAMPLE1, "vregs": ["0x1"]}, "vregs"),
    ("bad tail", with_(tail="zeros"), "tail"),
    ("bad vs", with_(vs="on"), "vs"),
    ("vstart too large", with_(vstart=128), "vstart"),
    ("bad insn text", with_(insn="vredmax.vs v8, v12"), "insn"),
    ("insn is another reduction", with_(insn="0x02c22457"), "insn"),
    ("insn not OP-V", with_(insn=0x13), "insn"),
    ("deep nesting", "[" * 100000, "case"),
]


@pytest.mark.parametrize("case, field", [c[1:] for c in BAD_CASES], ids=[c[0] for c in BAD_CASES])
def test_bad_case_exits_2_with_one_line_naming_the_field(capsys, tmp_path, case, field):
    code, out, err = run(capsys, "exec", case_file(tmp_path, case))
    assert (code, out) == (2, "")
    assert err.count("\n") == 1 and err.startswith(f"vredmax: error: {field}: "), err


def test_other_reduction_is_named(capsys, tmp_path):
    _, _, err = run(capsys, "exec", case_file(tmp_path, with_(insn="0x02c22457")))
    assert "vredsum.vs" in err


@pytest.mark.parametrize(
    "argv, field",
    [
        (["exec", "/nonexistent/case.json"], "case"),
        (["exec"], "case"),
        (["exec", "--jsonl", "/nonexistent/cases.jsonl"], "case"),
        (["asm", "vredmax.vs v8, v12, v32"], "insn"),
        (["asm", "vredsum.vs v8, v12, v4"], "insn"),
        (["disasm", "zz"], "word"),
        (["disasm", "0x13"], "insn"),
    ],
)
def test_bad_arguments_exit_2_with_one_line(capsys, argv, field):
    code, out, err = run(capsys, *argv)
    assert (code, out) == (2, "")
    assert err.count("\n") == 1 and err.startswith(f"vredmax: error: {field}: "), err


@pytest.mark.parametrize("content", [b"\xff\xfe{", '{"vlen": 128, "tail": "\u00e9"}'.encode()])
def test_undecodable_or_odd_bytes_in_a_subprocess(tmp_path, content):
    path = tmp_path / "case.json"
    path.write_bytes(content)
    code, out, err = run_process("exec", path)
    assert (code, out) == (2, "")
    assert err.count("\n") == 1 and err.startswith("vredmax: error: ") and "Traceback" not in err


def test_missing_file_in_a_subprocess():
    code, out, err = run_process("exec", "/nonexistent/case.json")
    assert (code, out) == (2, "")
    assert err == "vredmax: error: case: cannot read /nonexistent/case.json: No such file or directory\n"


def test_register_as_a_huge_json_integer(capsys, tmp_path):
    # A VLEN=65536 register in decimal has 19729 digits, beyond int()'s default digit limit.
    value = 1 << 65535 | 0x42
    text = json.dumps(
        {
            "vlen": 65536,
            "insn": "vredmax.vs v1, v2, v3",
            "vtype": {"sew": 8, "lmul": "m1"},
            "vl": 1,
            "vregs": {"v2": "PLACEHOLDER"},
        }
    ).replace('"PLACEHOLDER"', _decimal(value))
    code, out, _ = run(capsys, "exec", case_file(tmp_path, text), "--json")
    assert code == 0 and int(json.loads(out)["vregs"]["v1"], 16) == 0x42


def _decimal(value: int) -> str:
    """Decimal digits without int's str() digit limit."""
    digits = []
    while value:
        value, low = divmod(value, 10**1000)
        digits.append(f"{low:01000d}")
    return "".join(reversed(digits)).lstrip("0") or "0"
