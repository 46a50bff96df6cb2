"""`vredmax prove --certify DIR` and `vredmax certify-check DIR` (proofs/certify).

A configuration per SEW is certified end to end (the smallest VLMAX, so it stays fast; the
lemmas of each SEW come with it); the manifest validates; certify-check accepts the directory
without loading z3 and rejects a tampered proof; a planted wrong lemma of each family is
refuted by the certificate route as well; a solver that lies is caught (an ERROR naming both
answers).
"""

import gzip
import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest
import z3

pytest.importorskip("pysat")
pytest.importorskip("dratify")
jsonschema = pytest.importorskip("jsonschema")
# one worker: the certified run below is made once (--dist loadgroup)
pytestmark = pytest.mark.xdist_group("certify")

from vredmax.cli.main import main  # noqa: E402
from vredmax.proofs.certify.route import Judge  # noqa: E402
from vredmax.proofs.engine import compositional, lemmas, verdict  # noqa: E402
from vredmax.proofs.engine.verdict import Answer, Question, Verdict  # noqa: E402
from vredmax.schema import load_schema  # noqa: E402
from vredmax.spec import relation as spec  # noqa: E402
from vredmax.spec.bv import Z3Elements  # noqa: E402
from vredmax.spec.config import XLEN  # noqa: E402

# one configuration per SEW (Zve64x's smallest machine at LMUL=1: VLMAX 8, 4, 2, 1), each
# proving its SEW's lemmas too
PER_SEW = ["--vlen", "64", "--elen", "64", "--lmul", "m1"]


@pytest.fixture(scope="session")
def certified(tmp_path_factory):
    """One `prove --certify` run over a configuration per SEW: (exit code, output, DIR)."""
    directory = tmp_path_factory.mktemp("certificates")
    out = tmp_path_factory.mktemp("out") / "prove.json"
    code = subprocess.run(
        [
            sys.executable,
            "-m",
            "vredmax",
            "prove",
            "--certify",
            str(directory),
            "--json",
            "--jobs",
            "2",
            *PER_SEW,
        ],
        stdout=open(out, "w"),
        timeout=900,
    ).returncode
    return code, json.loads(out.read_text()), directory


def test_every_obligation_of_a_configuration_per_sew_is_certified(certified):
    code, result, directory = certified
    assert code == 0
    assert {r["config"]["sew"] for r in result["results"]} == {8, 16, 32, 64}
    assert result["summary"]["CERTIFIED"] == result["summary"]["PROVED"] == len(result["results"])
    lemma_lines = [r for r in result["results"] if r["kind"] == "lemma"]
    assert {r["config"]["sew"] for r in lemma_lines} == {8, 16, 32, 64}
    assert len(lemma_lines) == 4 * len(lemmas.LEMMAS)
    assert all(r["certified"] and all(s["certified"] for s in r["subjects"]) for r in result["results"])
    jsonschema.validate(result, load_schema("prove-result"))


def test_the_manifest_lists_every_query_with_its_figures(certified):
    _, result, directory = certified
    manifest = json.loads((directory / "manifest.json").read_text())
    jsonschema.validate(manifest, load_schema("certify-manifest"))
    assert manifest["summary"]["certified_lines"] == len(result["results"])
    ids = {q["id"] for q in manifest["queries"]}
    assert all(q["verdict"] == "CERTIFIED" for q in manifest["queries"])
    for record in result["results"]:  # every part names the certificates it rests on
        for subject in record["subjects"]:
            for part in subject["parts"]:
                assert part["certificates"] and set(part["certificates"]) <= ids
    refuted = [q["unsatisfiable"] for q in manifest["queries"] if "unsatisfiable" in q]
    assert refuted and all(r["proof_steps"] >= 1 and r["clauses"] >= 2 for r in refuted)
    for query in manifest["queries"]:
        for claim in ("satisfiable", "unsatisfiable"):
            for entry in query.get(claim, {}).get("files", {}).values():
                assert (directory / entry["path"]).is_file()
    about = {q["about"]["obligation"] for q in manifest["queries"]}
    assert any(
        ".lemma." in a or "smax" in q["about"].get("part", "") for a in about for q in manifest["queries"]
    )


def test_certify_check_accepts_the_directory_without_z3(certified):
    _, _, directory = certified
    script = (
        "import sys\nfrom vredmax.cli.main import main\ncode = main(['certify-check', sys.argv[1]])\n"
        "assert 'z3' not in sys.modules, 'certify-check loaded z3'\nsys.exit(code)"
    )
    run = subprocess.run(
        [sys.executable, "-c", script, str(directory)], capture_output=True, text=True, timeout=600
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "0 rejected" in run.stdout


def _copy_with_one(original: Path, directory: Path, claim: str):
    """A copy of the directory whose manifest keeps the query with the most variables for `claim`."""
    subprocess.run(["cp", "-r", str(original), str(directory)], check=True)
    manifest = json.loads((directory / "manifest.json").read_text())
    query = max((q for q in manifest["queries"] if claim in q), key=lambda q: q[claim]["variables"])
    manifest["queries"] = [query]
    (directory / "manifest.json").write_text(json.dumps(manifest))
    assert main(["certify-check", str(directory)]) == 0
    return manifest, query


def test_a_tampered_proof_is_rejected(certified, tmp_path, capsys):
    _, _, original = certified
    directory = tmp_path / "copy"
    manifest, query = _copy_with_one(original, directory, "unsatisfiable")
    entry = query["unsatisfiable"]["files"]["drat.gz"]
    path = directory / entry["path"]
    lines = gzip.decompress(path.read_bytes()).decode().splitlines()
    kept = [line for line in lines if line.split() != ["0"]][:-1]  # the empty clause and a lemma gone
    data = gzip.compress(("\n".join(kept) + "\n").encode())
    path.write_bytes(data)
    assert main(["certify-check", str(directory)]) == 1  # the hash no longer matches
    assert "SHA-256 differs" in capsys.readouterr().out
    entry["sha256"] = hashlib.sha256(data).hexdigest()  # a forger updates the manifest too
    (directory / "manifest.json").write_text(json.dumps(manifest))
    assert main(["certify-check", str(directory)]) == 1
    out = capsys.readouterr().out
    assert "REJECTED" in out and "the DRAT proof does not refute its CNF" in out and "1 rejected" in out


def test_a_model_that_does_not_satisfy_its_cnf_is_rejected(tmp_path, capsys):
    """(The default run's satisfiable CNFs fold to constants under Z3's model: this one keeps
    an uninterpreted function's outputs free.)"""
    f = z3.Function("f", z3.BitVecSort(8), z3.BitVecSort(8))
    x, y = z3.BitVecs("x y", 8)
    opinion = Judge(tmp_path)(Question([f(x) != f(y)], None, Answer(Verdict.PROVED, 0.0), {}))
    assert opinion.status == "CERTIFIED"
    manifest = {"schema": "vredmax/certify-manifest/1", "queries": [opinion.record]}
    (tmp_path / "manifest.json").write_text(json.dumps(manifest))
    assert main(["certify-check", str(tmp_path)]) == 0
    entry = opinion.record["satisfiable"]["files"]["sat.cnf.gz"]
    path = tmp_path / entry["path"]
    text = gzip.decompress(path.read_bytes()).decode()
    head, rest = text.split("\n", 1)
    model = [-int(x) if x not in ("0", "1") else int(x) for x in head.split(": ")[1].split()]  # flip it
    data = gzip.compress((f"c model: {' '.join(map(str, model))}\n{rest}").encode())
    path.write_bytes(data)
    entry["sha256"] = hashlib.sha256(data).hexdigest()
    (tmp_path / "manifest.json").write_text(json.dumps(manifest))
    assert main(["certify-check", str(tmp_path)]) == 1
    assert "the model does not satisfy its CNF" in capsys.readouterr().out


def test_certify_check_refuses_a_directory_without_manifest(tmp_path, capsys):
    assert main(["certify-check", str(tmp_path)]) == 2
    assert capsys.readouterr().err.startswith("vredmax: error: DIR: no manifest.json")


# Planted wrong lemmas: one false variant of each family ------------------------------------------


def _wrong_algebra(sew):  # smax returns its first operand (false: smax(0, 1) = 1)
    ops, (a, b) = Z3Elements(sew), z3.BitVecs(f"a_{sew} b_{sew}", sew)
    return [], ops.smax(a, b) == a


def _wrong_local(sew):  # an allowed result is at least every element, active or not
    r, s, e = z3.BitVecs(f"r_{sew} seed_{sew} e_{sew}", sew)
    a = z3.Bool(f"a_{sew}")
    bounded, witness = z3.Bool(f"rest_bounded_{sew}"), z3.Bool(f"rest_witness_{sew}")
    return [spec.result_ok(r, s, [e], [a], bounded, witness)], e <= r


def _wrong_activity(sew):  # an element below vl is active, whatever its mask bit
    i, vl = z3.BitVec(f"i_{sew}", XLEN), z3.BitVec(f"vl_{sew}", XLEN)
    vm, bit = z3.BitVec(f"vm_{sew}", 1), z3.Bool(f"mask_i_{sew}")
    return [z3.ULT(i, vl)], spec.is_active(i, vl, vm == 1, bit)


WRONG = {"algebra": _wrong_algebra, "local": _wrong_local, "activity": _wrong_activity}


def test_the_real_lemma_families_are_the_planted_ones():
    assert {lemma.family for lemma in lemmas.LEMMAS} == set(WRONG)


@pytest.mark.parametrize("family", sorted(WRONG))
@pytest.mark.parametrize("sew", [8, 64])
def test_a_planted_wrong_lemma_is_refuted_by_the_route_too(family, sew, tmp_path):
    """Z3 finds a counterexample; the route, deciding on its own, finds a model of the CNF of
    the negated goal (the counterexample certified)."""
    assumptions, goal = WRONG[family](sew)
    with verdict.second_opinion(Judge(tmp_path)):
        answer = compositional.check(compositional.Query(assumptions, goal), 30_000)
    assert answer.verdict == Verdict.COUNTEREXAMPLE
    [opinion] = answer.opinions
    assert opinion.status == "CERTIFIED"
    assert opinion.record["satisfiable"]["outcome"] == "agrees"


@pytest.mark.parametrize("family", sorted(WRONG))
def test_a_lying_solver_is_an_error_naming_both_answers(family, tmp_path, monkeypatch):
    """A solver that says PROVED of a wrong lemma: the route finds a model of the CNF, and the
    part's verdict becomes an ERROR that names both answers."""
    assumptions, goal = WRONG[family](16)
    monkeypatch.setattr(verdict, "_prove", lambda *args: Answer(Verdict.PROVED, 0.0))
    with verdict.second_opinion(Judge(tmp_path)):
        answer = compositional.check(compositional.Query(assumptions, goal), 30_000)
    assert answer.verdict == Verdict.ERROR
    assert "z3 said the goal follows" in answer.detail
    assert "the certificate route says satisfiable (a model of its CNF" in answer.detail
    [opinion] = answer.opinions  # the evidence is kept: the CNF with the model that satisfies it
    assert (tmp_path / opinion.record["unsatisfiable"]["files"]["sat.cnf.gz"]["path"]).is_file()


def test_the_real_lemmas_stand(tmp_path):
    """The true lemmas at SEW=8 are certified (and their wrong twins above are not)."""
    judge = Judge(tmp_path)
    for lemma in lemmas.LEMMAS:
        assumptions, goal = lemma.build(8)
        answer = Answer(Verdict.PROVED, 0.0)
        opinion = judge(Question(assumptions, goal, answer, {"lemma": lemma.name}))
        assert opinion.status == "CERTIFIED", (lemma.name, opinion.detail)


def test_a_query_too_large_for_the_route_stays_proved_and_is_listed(tmp_path, monkeypatch, capsys):
    """Over the route's size limit: PROVED (not CERTIFIED), listed with its figures."""
    from vredmax.proofs.certify import route

    monkeypatch.setattr(route, "MAX_CLAUSES", 2)
    code = main(
        [
            "prove",
            "--certify",
            str(tmp_path),
            "--vlen",
            "64",
            "--elen",
            "64",
            "--sew",
            "8",
            "--lmul",
            "m1",
            "-k",
            "lemma.smax_associative",
        ]
    )
    out = capsys.readouterr().out
    assert code == 0
    assert "PROVED         vredmax.sew8.lemma.smax_associative" in out
    assert (
        "PROVED, not certified, of algebra: " in out
        and "too large for the route:" in out
        and "clauses" in out
    )
    assert "Summary: 0 CERTIFIED, 1 proved without certificate" in out
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    assert manifest["summary"]["UNCERTIFIED"] >= 1 and manifest["summary"]["certified_lines"] == 0
    assert main(["certify-check", str(tmp_path)]) == 0  # nothing to reject; listed as not certified
    assert "not certified" in capsys.readouterr().out


def test_answers_proved_before_the_route_are_not_taken_as_certified(tmp_path, capsys):
    args = ["prove", "--vlen", "64", "--elen", "64", "--sew", "8", "--lmul", "m1", "-k", "lemma.smax_selects"]
    assert main(args) == 0  # proved (and cached) without a judge
    assert main(args + ["--certify", str(tmp_path)]) == 0  # decided again, and judged
    assert "Summary: 1 CERTIFIED" in capsys.readouterr().out
