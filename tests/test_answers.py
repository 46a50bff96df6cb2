"""The store of solver answers (proofs/engine/answers.py): a warm run gives the same verdicts,
an entry that does not match is ignored (never trusted), a different query never hits, and
UNKNOWN is never kept."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import z3

from vredmax.cli.main import main
from vredmax.proofs.engine import answers, verdict
from vredmax.proofs.engine.verdict import Verdict
from vredmax.proofs.obligations import catalogue, runner
from vredmax.spec.config import Config

SMALL = ["prove", "--vlen", "128", "--sew", "64", "--lmul", "m1,m2", "--json"]


@pytest.fixture(autouse=True)
def every_answer_on_disk(monkeypatch):
    """Quick answers are kept in memory only (answers.DURABLE_S); these tests use quick ones."""
    monkeypatch.setattr(answers, "DURABLE_S", 0.0)


def _entries(folder: Path) -> list[Path]:
    return sorted(folder.rglob("*.json")) if folder.exists() else []


def _query(bound: int):
    """x + 1 > x for x < bound (signed, 8 bits): PROVED below 127, a counterexample at 128."""
    x = z3.BitVec("x", 8)
    return [z3.ULT(x, bound)], x + 1 > x


def _verdicts(document: dict) -> list:
    return sorted(
        (
            r["id"],
            r["config"]["elen"],
            r["config"]["lmul"],
            r["verdict"],
            [(s["subject"], s["verdict"]) for s in r["subjects"]],
        )
        for r in document["results"]
    )


def test_a_warm_run_gives_the_same_verdicts_and_proves_nothing_again(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv(answers.FOLDER_ENV, str(tmp_path / "answers"))
    runner.clear_caches()
    assert main(SMALL + ["--jobs", "2"]) == 0
    cold = json.loads(capsys.readouterr().out)
    kept = _entries(tmp_path / "answers")
    assert kept and not list((tmp_path / "answers").rglob("*.tmp"))
    runner.clear_caches()  # (this process's own table of answers too)
    with answers.using(tmp_path / "answers") as store:
        cfg = Config(128, 64, 64, "m1")
        for obligation in catalogue.obligations(None, cfg):
            for subject in obligation.subjects:
                assert runner.run(obligation, cfg, subject).answer.verdict == Verdict.PROVED
    assert store.hits and not store.misses and not store.written
    runner.clear_caches()
    assert main(SMALL) == 0
    warm = json.loads(capsys.readouterr().out)
    assert _verdicts(warm) == _verdicts(cold)
    assert _entries(tmp_path / "answers") == kept  # nothing new was asked
    runner.clear_caches()


def test_no_cache_neither_reads_nor_writes(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv(answers.FOLDER_ENV, str(tmp_path / "answers"))
    runner.clear_caches()
    assert main(["prove", "--vlen", "128", "--sew", "64", "--lmul", "m1", "-k", "lemma.", "--no-cache"]) == 0
    assert not _entries(tmp_path / "answers")
    runner.clear_caches()


def test_a_kept_counterexample_comes_with_a_model_of_the_query(tmp_path):
    assumptions, goal = _query(200)
    with answers.using(tmp_path) as store:
        cold = verdict.prove(assumptions, goal)
    with answers.using(tmp_path) as store:
        warm = verdict.prove(assumptions, goal)
    assert store.hits == 1 and cold.verdict == warm.verdict == Verdict.COUNTEREXAMPLE
    value = warm.model.eval(z3.BitVec("x", 8)).as_long()
    assert value == cold.model.eval(z3.BitVec("x", 8)).as_long() == 127


def test_a_different_query_or_solver_never_hits(tmp_path):
    with answers.using(tmp_path) as store:
        assert verdict.prove(*_query(100)).verdict == Verdict.PROVED
        assert verdict.prove(*_query(200)).verdict == Verdict.COUNTEREXAMPLE  # one constant differs
        y = z3.BitVec("x", 16)  # the same text but for the width of x
        assert verdict.prove([z3.ULT(y, 200)], y + 1 > y).verdict == Verdict.PROVED
        assert verdict.prove(*_query(100), solver="bitwuzla").verdict == Verdict.PROVED
        assert verdict.satisfiable(_query(100)[0]).verdict == Verdict.PROVED
    assert store.hits == 0 and store.written >= 5


def _tamper(folder: Path, change) -> None:
    for path in _entries(folder):
        path.write_text(change(path.read_text()))


def _resigned(text: str, change) -> str:
    """An entry edited and given a matching checksum (as if written by a broken program)."""
    body = json.loads(text)
    body.pop("sum")
    change(body["entry"])
    return json.dumps(dict(body, sum=answers._sum(body)))


def test_a_corrupted_entry_is_ignored_not_trusted(tmp_path):
    assumptions, goal = _query(200)
    with answers.using(tmp_path):
        assert verdict.prove(assumptions, goal).verdict == Verdict.COUNTEREXAMPLE
    for change in (
        lambda text: text.replace("COUNTEREXAMPLE", "PROVED"),  # checksum no longer matches
        lambda text: text[: len(text) // 2],  # a truncated write
        lambda text: "",
        lambda text: "\x00garbage",
    ):
        _tamper(tmp_path, change)
        with answers.using(tmp_path) as store:
            assert verdict.prove(assumptions, goal).verdict == Verdict.COUNTEREXAMPLE
        assert store.ignored >= 1 and store.written >= 1


def test_a_kept_model_that_is_no_model_is_ignored(tmp_path):
    assumptions, goal = _query(200)
    with answers.using(tmp_path):
        verdict.prove(assumptions, goal)

    def wrong_value(entry):
        if entry["model"] is not None:
            entry["model"]["constants"] = [["x", "#x05"]]  # x = 5 is no counterexample

    _tamper(tmp_path, lambda text: _resigned(text, wrong_value))
    with answers.using(tmp_path) as store:
        answer = verdict.prove(assumptions, goal)
    assert answer.verdict == Verdict.COUNTEREXAMPLE and answer.model.eval(z3.BitVec("x", 8)).as_long() == 127
    assert store.ignored == 1


def test_an_entry_under_another_name_is_ignored(tmp_path):
    with answers.using(tmp_path):
        verdict.prove(*_query(200))  # COUNTEREXAMPLE
        verdict.prove(*_query(100))  # PROVED
    paths = _entries(tmp_path)
    texts = [path.read_text() for path in paths]
    for path, text in zip(paths, texts[1:] + texts[:1]):  # each file holds another's (whole, valid) entry
        path.write_text(text)
    with answers.using(tmp_path) as store:
        assert verdict.prove(*_query(200)).verdict == Verdict.COUNTEREXAMPLE
        assert verdict.prove(*_query(100)).verdict == Verdict.PROVED
    assert store.ignored >= 2 and store.hits == 0


def test_unknown_is_never_kept(tmp_path):
    x, y = z3.BitVecs("x y", 64)
    hard = [x * y == 0xDEADBEEFCAFEF00D, x != 1, y != 1]  # factoring: not decided in 1 ms
    with answers.using(tmp_path) as store:
        assert verdict.prove(hard, x > 0, timeout_ms=1).verdict == Verdict.UNKNOWN
    assert not _entries(tmp_path) and store.written == 0


def test_part_keys_do_not_depend_on_the_process(tmp_path):
    """A part's verdict is kept under its key in the catalogue and the code's fingerprint: a
    second process (another hash seed, so another set order) asks nothing again."""
    command = [sys.executable, "-m", "vredmax", "prove", "--vlen", "64", "--sew", "32", "--lmul", "m1", "-q"]
    environment = dict(os.environ, VREDMAX_ANSWERS=str(tmp_path))
    first = subprocess.run(command, env=dict(environment, PYTHONHASHSEED="1"), capture_output=True, text=True)
    assert first.returncode == 0, first.stdout + first.stderr
    kept = _entries(tmp_path)
    second = subprocess.run(
        command, env=dict(environment, PYTHONHASHSEED="2"), capture_output=True, text=True
    )
    assert second.returncode == 0 and second.stdout == first.stdout
    assert _entries(tmp_path) == kept


def test_a_quick_answer_is_kept_in_memory_only(tmp_path, monkeypatch):
    monkeypatch.setattr(answers, "DURABLE_S", 60.0)
    with answers.using(tmp_path) as store:
        assert verdict.prove(*_query(100)).verdict == Verdict.PROVED
        assert verdict.prove(*_query(100)).verdict == Verdict.PROVED
    assert store.hits == 1 and not _entries(tmp_path)
