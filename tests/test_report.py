"""`vredmax report`: docs/SEMANTICS.md and its JSON twin are committed and up to date.

Regenerating must give the same bytes: the test that runs every proof again (about 20 s)
fails when the committed files are stale; run `vredmax report` and commit the result.
"""

import json
import re
from pathlib import Path

import pytest

from vredmax.proofs.obligations import catalogue as obligations
from vredmax.proofs.claims.claims import CLAIMS, CLAIMS_BY_ID
from vredmax.presentation.documents.report import collect, markdown, report_configs
from vredmax.spec.config import Config
from vredmax.cli import cmd_report
from vredmax.cli.main import main

# Under pytest-xdist (--dist loadgroup) test_report, test_manual and test_browser run on one
# worker: each collects the same small document, proved once there.
pytestmark = pytest.mark.xdist_group("documents")

DOCS = Path(__file__).resolve().parent.parent / "docs"
TINY = [Config(128, 64, 64, "m1")]


@pytest.fixture(scope="session")
def committed():
    return json.loads((DOCS / "SEMANTICS.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="session")
def tiny_doc():
    return collect(
        TINY,
        claims=[
            CLAIMS_BY_ID["vredmax.wrong.unsigned_same"],
            CLAIMS_BY_ID["vredmax.wrong.vma_changes_result"],
        ],
    )


def test_markdown_is_rendered_from_the_json_twin(committed):
    """Nobody edited SEMANTICS.md by hand: it is exactly the rendering of SEMANTICS.json."""
    assert (DOCS / "SEMANTICS.md").read_text(encoding="utf-8") == markdown(committed)


def test_the_document_covers_every_property_and_claim(committed):
    assert [p["name"] for p in committed["properties"]] == [o.name for o in obligations.OBLIGATIONS]
    assert [c["id"] for c in committed["claims"]] == [c.id for c in CLAIMS]
    assert committed["configurations"] == [
        {"vlen": c.vlen, "elen": c.elen, "sew": c.sew, "lmul": c.lmul, "vlmax": c.vlmax}
        for c in report_configs()
    ]
    text = (DOCS / "SEMANTICS.md").read_text(encoding="utf-8")
    assert "### Why the compositional method is sound" in text
    assert "z3 " in text and "#xff (255, -1)" in text


def test_regenerating_changes_nothing():
    """Every proof and refutation again: the committed files are what the code gives now (their
    CERTIFIED marks come from `vredmax report --certify`, too slow here: the committed files
    must render from the committed JSON, and the JSON less its marks is what this run gives)."""
    assert cmd_report.stale_files(collect(), str(DOCS)) == [], (
        "docs/ is out of date: run `vredmax report --certify DIR` and commit docs/"
    )


def test_the_committed_documents_are_certified(committed):
    """Every property the committed documents show PROVED is CERTIFIED, and they say what that
    trusts (the trusted-base table, in the semantics document and the manual page)."""
    assert committed["certification"] is True
    assert committed["summary"]["certified"] == committed["summary"]["proved"]
    for name in ("SEMANTICS.md", "vredmax.vs.md", "vredmax.vs.html"):
        assert "What a CERTIFIED verdict trusts" in (DOCS / name).read_text(encoding="utf-8")


def test_a_certified_document_marks_each_property(tmp_path):
    from vredmax.presentation.documents import manual
    from vredmax.proofs.certify.route import Judge

    pytest.importorskip("pysat")
    smallest = [Config(32, 32, 8, "mf4")]  # VLMAX = 1: the quickest to certify
    doc = collect(smallest, claims=[], certify=Judge(tmp_path))
    plain_doc = collect(smallest, claims=[])
    assert doc["summary"]["certified"] == doc["summary"]["proved"] > 0
    md = markdown(doc)
    assert "| `vredmax.sew8.seed_included` | CERTIFIED (z3) |" in md
    assert "of them CERTIFIED" in md and "What a CERTIFIED verdict trusts" in md
    page = manual.render(doc)["vredmax.vs.md"]
    assert "CERTIFIED ×7" in page
    plain = manual.render(plain_doc)["vredmax.vs.md"]
    assert "CERTIFIED ×" not in plain and "generated without it" in plain
    # --check without --certify: the marks are taken as committed, everything else compared
    out = tmp_path / "docs"
    out.mkdir()
    for name, text in cmd_report.render_files(doc).items():
        (out / name).write_text(text, encoding="utf-8")
    assert cmd_report.stale_files(plain_doc, str(out)) == []
    edited = json.loads((out / "SEMANTICS.json").read_text())
    edited["properties"][0]["results"][0]["certified"]["spec"] = False
    (out / "SEMANTICS.json").write_text(json.dumps(edited), encoding="utf-8")
    assert cmd_report.stale_files(plain_doc, str(out)) == [
        "SEMANTICS.json",
        "SEMANTICS.md",
        "vredmax.vs.md",
        "vredmax.vs.html",
    ]


def test_output_is_deterministic(tiny_doc):
    again = collect(
        TINY,
        claims=[
            CLAIMS_BY_ID["vredmax.wrong.unsigned_same"],
            CLAIMS_BY_ID["vredmax.wrong.vma_changes_result"],
        ],
    )
    assert cmd_report.render_files(again) == cmd_report.render_files(tiny_doc)


def _keys(value):
    if isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from _keys(item)
    elif isinstance(value, list):
        for item in value:
            yield from _keys(item)


def test_no_timings_in_the_output(tiny_doc):
    # Prose may speak of seconds; what must not appear is a measured time.
    assert not {"seconds", "elapsed", "time"} & set(_keys(tiny_doc))
    assert not re.search(r"\d\.\d+ ?s\b", markdown(tiny_doc))


def test_tiny_document_shape(tiny_doc):
    prop = next(p for p in tiny_doc["properties"] if p["name"] == "seed_included")
    assert prop["ids"] == ["vredmax.sew64.seed_included"]
    assert prop["statement"]["prove"] == "vs1[0] <= vd'[0]"
    [entry] = prop["results"]
    assert entry["verdicts"] == {subject: "PROVED" for subject in obligations.SUBJECTS}
    claim = tiny_doc["claims"][0]
    assert claim["status"] == "refuted" and claim["counterexample"]["vl"] == 1
    md = markdown(tiny_doc)
    assert "| `vredmax.sew64.seed_included` | PROVED (z3) |" in md
    assert "### vredmax.wrong.unsigned_same: REFUTED" in md


def test_cli_writes_and_checks(tmp_path, monkeypatch, capsys, tiny_doc):
    monkeypatch.setattr(cmd_report, "collect", lambda *args, **kwargs: tiny_doc)
    out = tmp_path / "docs"
    assert main(["report", "--out-dir", str(out)]) == 0
    assert (out / "SEMANTICS.md").read_text() == markdown(tiny_doc)
    assert main(["report", "--out-dir", str(out), "--check"]) == 0
    (out / "SEMANTICS.md").write_text("edited by hand\n")
    capsys.readouterr()
    assert main(["report", "--out-dir", str(out), "--check"]) == 1
    assert "SEMANTICS.md: out of date" in capsys.readouterr().out


def test_cli_bad_out_dir(tmp_path, capsys):
    path = tmp_path / "file"
    path.write_text("")
    assert main(["report", "--out-dir", str(path)]) == 2
    assert capsys.readouterr().err == f"vredmax: error: --out: cannot write to {path}: not a directory\n"
