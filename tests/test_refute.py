"""The catalogue of wrong assumptions: each is refuted, with a small, replayable counterexample.

The quality tier: a test here passes when the solver refutes the wrong claim.
"""

import json
import subprocess
import sys

import pytest

from vredmax.presentation.counterexamples import counterexample_lines
from vredmax.proofs.claims.claims import CLAIMS, CLAIMS_BY_ID, M1, Claim, View, select
from vredmax.proofs.claims.claim_language import check
from vredmax.proofs.claims.emit_test import refute_file
from vredmax.proofs.claims.refute import ERROR, NOT_REFUTED, REFUTED, refute, summary_line
from vredmax.proofs.engine.verdict import Verdict
from vredmax.impl.sequential import reduce_sequential
from vredmax.cli.main import main

# Under pytest-xdist (--dist loadgroup) the module runs on one worker: every claim refuted once (a session
# fixture: a worker may run other modules between these tests, which would end a module fixture).
pytestmark = pytest.mark.xdist_group("refute")

REQUIRED = (
    "masked_count_as_zero",
    "vl0_writes_seed",
    "all_masked_same_as_vl0",
    "result_broadcast",
    "vs1_elementwise",
    "seed_dropped_when_active",
    "unsigned_same",
    "restart_from_vstart",
    "agnostic_tail_all_ones",
    "vma_changes_result",
    "lmul_first_register_only",
    "tree_pads_with_zero",
    "vd_written_before_vs2_read",
    "agnostic_tail_written_at_vl0",
)


@pytest.fixture(scope="session")
def results():
    return {claim.id: refute(claim) for claim in CLAIMS}


def test_the_catalogue_covers_the_required_claims():
    names = {claim.id.rsplit(".", 1)[-1] for claim in CLAIMS}
    assert set(REQUIRED) <= names
    for claim in CLAIMS:
        assert claim.sentence and claim.source and claim.statement and claim.configs


@pytest.mark.parametrize("claim_id", [c.id for c in CLAIMS])
def test_every_claim_is_refuted(results, claim_id):
    result = results[claim_id]
    assert result.status == REFUTED, result.detail
    if CLAIMS_BY_ID[claim_id].universal:
        assert result.verdict == Verdict.COUNTEREXAMPLE
        cx = result.counterexample
        assert cx is not None and cx.differing
        # the replay ran both sides on the executable model and they differ
        assert cx.spec != cx.other
    else:
        assert result.verdict == Verdict.PROVED and result.counterexample is None


@pytest.mark.parametrize(
    "claim_id, vl, lanes",
    [
        ("vredmax.wrong.vl0_writes_seed", 0, 0),
        ("vredmax.wrong.agnostic_tail_written_at_vl0", 0, 0),
        ("vredmax.wrong.seed_dropped_when_active", 1, 1),
        ("vredmax.wrong.unsigned_same", 1, 1),
        ("vredmax.wrong.masked_count_as_zero", 1, 0),
        ("vredmax.wrong.vs1_elementwise", 2, 1),
        # four SEW=32 elements per register: element 4 is the first one of the second register
        ("vredmax.wrong.lmul_first_register_only", 5, 1),
    ],
)
def test_counterexamples_are_minimal(results, claim_id, vl, lanes):
    cx = results[claim_id].counterexample
    assert (cx.pre.vl, cx.active_lanes) == (vl, lanes)


def test_tail_counterexample_differs_in_one_element(results):
    cx = results["vredmax.wrong.agnostic_tail_all_ones"].counterexample
    assert cx.differing == ["vd[1]"]


def test_overlap_counterexample_overlaps(results):
    cx = results["vredmax.wrong.vd_written_before_vs2_read"].counterexample
    assert cx.insn.vd == cx.insn.vs2


def test_counterexamples_are_deterministic(results):
    """The same claim gives the same counterexample again (so docs/ can be regenerated)."""
    for claim_id in ("vredmax.wrong.unsigned_same", "vredmax.wrong.result_broadcast"):
        again = refute(CLAIMS_BY_ID[claim_id]).counterexample
        assert again.to_json() == results[claim_id].counterexample.to_json()


def test_counterexample_text_is_alive2_style(results):
    text = "\n".join(counterexample_lines(results["vredmax.wrong.unsigned_same"].counterexample))
    assert "seed vs1[0] = v4[0] = #x00 (0, 0)" in text
    assert "lane  vs2[i]" in text and "running max" in text
    assert "Spec:\n  vd[0] = v8[0] = #x00 (0, 0)" in text
    assert "Claim:\n  vd[0] = v8[0] = #xff (255, -1)    <- differs" in text


def _true_claim(**changes):
    fields = dict(
        id="test.true_claim",
        sentence="The result is the signed max of the seed and the active elements.",
        source="test",
        statement="vd'[0] = max(...)",
        configs=(M1,),
        when=lambda v: [v.retires, v.vl_positive],
        claimed=lambda v: {"vd[0]": reduce_sequential(v.e, v.seed, v.elements, v.active)},
    )
    fields.update(changes)
    return Claim(**fields)


def test_a_true_claim_is_not_refuted_and_shown_as_a_failure():
    result = refute(_true_claim())
    assert result.status == NOT_REFUTED and result.verdict == Verdict.PROVED
    assert summary_line([result]) == "Summary: 0 refuted as expected, 1 not refuted, 0 unknown, 0 errors"


def test_contradictory_assumptions_are_an_error_not_a_refutation():
    result = refute(_true_claim(when=lambda v: [v.vl_zero, v.vl_positive]))
    assert result.status == ERROR and "vacuous" in result.detail


def test_select_by_pattern():
    assert [c.id for c in select("vstart")] == [
        "vredmax.wrong.restart_from_vstart",
        "vredmax.wrong.vl0_ignores_vstart",
    ]
    assert select("no such claim") == []


def test_cli_refute_one_claim(capsys):
    code = main(["refute", "-k", "unsigned_same"])
    out = capsys.readouterr().out
    assert code == 0
    assert "REFUTED  vredmax.wrong.unsigned_same" in out
    assert out.rstrip().endswith("Summary: 1 refuted as expected, 0 not refuted, 0 unknown, 0 errors")


def test_cli_refute_json(capsys):
    code = main(["refute", "-k", "vl0_writes_seed", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0
    [claim] = data["claims"]
    assert claim["status"] == "refuted"
    cx = claim["counterexample"]
    assert cx["vl"] == 0 and cx["differing"] == ["vd[0]"]
    assert cx["case"]["vl"] == 0 and cx["spec"]["vd[0]"]["hex"].startswith("0x")
    assert data["summary"] == {"refuted": 1, "not_refuted": 0, "unknown": 0, "error": 0}
    import jsonschema
    from vredmax.schema import load_schema

    assert data["schema"] == "vredmax/refute-result/1"
    jsonschema.validate(data, load_schema("refute-result"))


def test_cli_refute_case_replays_with_exec(tmp_path, capsys):
    """The JSON case of a counterexample is a `vredmax exec` case."""
    main(["refute", "-k", "vl0_writes_seed", "--json"])
    cx = json.loads(capsys.readouterr().out)["claims"][0]["counterexample"]
    path = tmp_path / "case.json"
    path.write_text(json.dumps(cx["case"]))
    assert main(["exec", str(path), "--json"]) == 0
    post = json.loads(capsys.readouterr().out)
    vd = int(cx["case"]["insn"], 16) >> 7 & 31
    assert int(post["vregs"][f"v{vd}"], 16) & 0xFF == cx["spec"]["vd[0]"]["unsigned"]


def test_cli_refute_bad_pattern(capsys):
    assert main(["refute", "-k", "nothing-like-this"]) == 2
    err = capsys.readouterr().err
    assert err == "vredmax: error: -k: no claim id contains 'nothing-like-this'\n"


def test_cli_refute_exit_code_when_a_claim_survives(monkeypatch, capsys):
    import vredmax.cli.cmd_refute as cmd

    monkeypatch.setattr(cmd, "select", lambda pattern: [_true_claim()])
    assert main(["refute"]) == 1
    out = capsys.readouterr().out
    assert "NOT REFUTED  test.true_claim" in out and "1 not refuted" in out


def _pytest(path, cwd):
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(path)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=cwd,
    )


def test_emitted_test_file_passes_and_its_claim_test_discriminates(results, tmp_path):
    """The file imports vredmax.api only and runs outside the repository; its tests fail when
    the claim is replaced by a true one or the wrong claim's model by the spec."""
    path = tmp_path / "test_emitted.py"
    ids = (
        "vredmax.wrong.unsigned_same",
        "vredmax.wrong.restart_from_vstart",
        "vredmax.wrong.vd_written_before_vs2_read",
    )
    items = [(CLAIMS_BY_ID[cid], results[cid].counterexample, results[cid].asked) for cid in ids]
    text = refute_file(items)
    imports = {line for line in text.splitlines() if line.startswith(("import ", "from "))}
    assert all(line.startswith("from vredmax.api import") or line == "import random" for line in imports), (
        imports
    )
    path.write_text(text)
    done = _pytest(path, tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "4 passed" in done.stdout
    # a true claim in place of the first wrong one: its test fails
    path.write_text(
        text.replace(
            repr(CLAIMS_BY_ID[ids[0]].text), repr("implies(legal and pre.vl > 0, post.vd[0] >= seed)")
        )
    )
    done = _pytest(path, tmp_path)
    assert done.returncode == 1 and "1 failed, 3 passed" in done.stdout, done.stdout
    # the wrong claim's model in place of the executable one: the spec test fails
    path.write_text(
        text.replace(
            "vd_elements(result, insn, 8, EXPECTED_2)",
            f"claimed_values({ids[2]!r}, pre, insn, 'undisturbed')",
        )
    )
    done = _pytest(path, tmp_path)
    assert done.returncode == 1 and "1 failed, 3 passed" in done.stdout, done.stdout


def test_cli_emit_test(tmp_path, capsys):
    path = tmp_path / "test_regressions.py"
    assert main(["refute", "-k", "masked_count", "--emit-test", str(path)]) == 0
    text = path.read_text()
    assert "def test_masked_count_as_zero_is_false_on_the_executable_model" in text
    assert "def test_masked_count_as_themselves_is_false_on_the_executable_model" in text
    compile(text, str(path), "exec")


def test_cli_emit_test_bad_directory(capsys):
    assert main(["refute", "-k", "unsigned", "--emit-test", "/no/such/dir/t.py"]) == 2
    assert capsys.readouterr().err.startswith("vredmax: error: --test-out: cannot write to /no/such/dir")


def test_view_replays_concretely():
    """A claim's stated values run on the concrete backend too (what --emit-test relies on)."""
    from tests.strategies import make_state
    from vredmax.api import claimed_values
    from vredmax.spec.encoding import Insn

    pre = make_state(128, 8, "m1", vl=1, regs={4: 0xFF, 16: 0x00})
    insn = Insn(vd=8, vs2=16, vs1=4)
    assert claimed_values("vredmax.wrong.unsigned_same", pre, insn) == {"vd[0]": 0xFF}
    assert claimed_values("vredmax.wrong.vd_written_before_vs2_read", pre, insn) == {"vd[0]": 0x00}
    view = View.concrete(M1, pre, insn)
    assert view.observed("vd[0]") == 0x00


def test_catalogue_claims_are_in_the_claim_language_where_they_can_be():
    """One engine: only the two claims that need a model of their own are not in the language."""
    without = [c.id for c in CLAIMS if not c.text]
    assert without == ["vredmax.wrong.vma_changes_result", "vredmax.wrong.vd_written_before_vs2_read"]
    for claim in CLAIMS:
        if claim.text:
            check(claim.text)
            assert claim.claimed is None and claim.when is None


def test_refute_at_chosen_configurations(capsys):
    """--vlen/--sew/--lmul replace each claim's own configurations."""
    code = main(["refute", "-k", "result_broadcast", "--vlen", "256", "--sew", "16", "--lmul", "m2"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "VLEN=256 ELEN=64 SEW=16 LMUL=m2" in out and "REFUTED  vredmax.wrong.result_broadcast" in out


def test_refute_chosen_configuration_where_a_claim_holds(capsys):
    """LMUL=1: only the first register of the group exists, so the claim is not refuted there."""
    code = main(["refute", "-k", "lmul_first_register_only", "--vlen", "128", "--sew", "8", "--lmul", "m1"])
    out = capsys.readouterr().out
    assert code == 1 and "NOT REFUTED  vredmax.wrong.lmul_first_register_only" in out


def test_refute_bad_configuration(capsys):
    assert main(["refute", "--sew", "12"]) == 2
    assert capsys.readouterr().err.startswith("vredmax: error: --sew: must be one of 8, 16, 32, 64")
