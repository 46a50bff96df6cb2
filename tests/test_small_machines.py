"""The whole configuration space: ELEN=32 and the small VLENs of the embedded profiles.

Zve32x allows VLEN=ELEN=32, Zve64x VLEN=ELEN=64. The properties that only arise there
(VLMAX = 1, no tail when VLEN = SEW, SEW=64 illegal at ELEN=32, no empty vs2 group) are
obligations of the catalogue; each is proved here and shown able to fail.
"""

from __future__ import annotations

import pytest
import z3

from vredmax.proofs.obligations import catalogue
from vredmax.proofs.obligations import runner
from vredmax.proofs.engine.compositional import check
from vredmax.proofs.engine.setting import Setting
from vredmax.proofs.engine.verdict import Verdict
from vredmax.spec.bv import Concrete, Symbolic
from vredmax.spec.config import (
    Config,
    decode_vtype,
    every_config,
    legal_configs,
    machine_vlens,
    vill_rules,
    vlmax,
)


def test_every_config_counts_the_whole_space():
    configs = every_config()
    assert len(configs) == 422 and len(set(configs)) == 422
    assert len(every_config((32,))) == 180 and len(every_config((64,))) == 242
    assert min(c.vlen for c in configs if c.elen == 32) == 32
    assert min(c.vlen for c in configs if c.elen == 64) == 64
    assert all(c.vlmax >= 1 for c in configs)
    assert not any(c.sew == 64 for c in configs if c.elen == 32)
    assert machine_vlens(32) == tuple(1 << k for k in range(5, 17))


@pytest.mark.parametrize("elen", [32, 64])
def test_vill_rules_are_the_same_concretely_and_symbolically(elen):
    """The rules are written once: the Z3 reading agrees with the int reading on every low byte
    and with a set vill bit or reserved bits."""
    raw = z3.BitVec("raw", 64)
    fired = z3.Or(*[cond for _, cond in vill_rules(Symbolic, raw, elen)])
    for value in [low | high for low in range(256) for high in (0, 1 << 63, 1 << 8, 1 << 62)]:
        symbolic = z3.is_true(z3.simplify(z3.substitute(fired, (raw, z3.BitVecVal(value, 64)))))
        concrete = any(cond for _, cond in vill_rules(Concrete, value, elen))
        assert symbolic == concrete == decode_vtype(value, elen).vill, hex(value)


def _prove(name: str, cfg: Config, subject: str = "spec", setting=None):
    obligation = catalogue.by_name(name)
    assert obligation.applies(cfg), (name, str(cfg))
    return runner.run(obligation, cfg, subject, setting=setting).answer.verdict


@pytest.mark.parametrize(
    "cfg",
    [Config(32, 32, 32, "m1"), Config(32, 32, 8, "mf4"), Config(64, 64, 64, "m1"), Config(64, 64, 8, "mf8")],
)
def test_vlmax_one_result_is_proved(cfg):
    assert cfg.vlmax == 1
    for subject in catalogue.by_name("vlmax_one_result").subjects:
        assert _prove("vlmax_one_result", cfg, subject) == Verdict.PROVED, subject


def test_vlmax_one_result_catches_a_unit_that_ignores_the_element():
    cfg = Config(32, 32, 32, "m1")
    seed_only = Setting(cfg, "_seed_only", units={"sequential": lambda ops, seed, elements, active: seed})
    assert _prove("vlmax_one_result", cfg, "sequential/undisturbed", seed_only) == Verdict.COUNTEREXAMPLE


@pytest.mark.parametrize(
    "cfg", [Config(32, 32, 32, "m1"), Config(64, 64, 64, "m1"), Config(32, 32, 32, "m8")]
)
def test_no_tail_when_vlen_equals_sew(cfg):
    assert _prove("no_tail_at_vlen_equal_sew", cfg) == Verdict.PROVED
    assert not catalogue.by_name("no_tail_at_vlen_equal_sew").applies(Config(64, 32, 32, "m1"))


def test_with_a_tail_the_agnostic_vd_is_not_determined():
    """The same query one VLEN up (a tail element exists) has a counterexample: the query can fail."""
    s = runner.setting_for(Config(64, 32, 32, "m1"))
    assert check(catalogue._whole_vd_determined(s, "spec"), 60_000).verdict == Verdict.COUNTEREXAMPLE


@pytest.mark.parametrize("vlen", machine_vlens(32))
def test_sew64_is_illegal_at_elen32_at_every_vlen(vlen):
    assert _prove("sew64_illegal_at_elen32", Config(vlen, 32, 8, "m1")) == Verdict.PROVED


def test_sew64_is_not_vill_at_elen64():
    """The same claim at ELEN=64 is false: the query finds a legal SEW=64 vtype."""
    query = catalogue._vtype_query(64, lambda raw, vill: z3.Implies(z3.Extract(5, 3, raw) == 3, vill))
    assert check(query, 60_000).verdict == Verdict.COUNTEREXAMPLE


@pytest.mark.parametrize("cfg", [Config(32, 32, 8, "m1"), Config(64, 64, 8, "m1"), Config(128, 64, 8, "m1")])
def test_vlmax_below_one_is_vill(cfg):
    assert _prove("vlmax_below_one_is_vill", cfg) == Verdict.PROVED


def test_an_empty_group_would_need_an_unsupported_sew():
    """Why the property holds: every (SEW, LMUL) with LMUL*VLEN < SEW is unsupported, at every
    machine; with ELEN=64 at VLEN=32 (not a machine) SEW=64 LMUL=m1 would be empty."""
    for cfg in every_config():
        assert vlmax(cfg.vlen, cfg.sew, cfg.lmul) >= 1
    assert vlmax(32, 64, "m1") == 0 and Config(32, 64, 64, "m1") not in every_config()
    assert all(c.elen <= c.vlen for c in legal_configs(32, machine_vlens(32)))


EXPORT = """
import sys
from vredmax.proofs.obligations import catalogue
from vredmax.proofs.obligations import runner
from vredmax.proofs.engine.export import Exporter
from vredmax.spec.config import Config
cfg, exporter = Config(64, int(sys.argv[1]), 8, "m1"), Exporter(sys.argv[2])
for obligation in catalogue.obligations(None, cfg):
    if obligation.kind != "vtype":
        for subject in obligation.subjects:
            assert runner.run(obligation, cfg, subject, exporter=exporter).answer.verdict.value == "PROVED"
"""


def _queries(directory) -> dict:
    """Every exported query of a directory tree, comments and ELEN names left out."""
    import re

    found = {}
    for path in sorted(directory.rglob("*.smt2")):
        text = "\n".join(line for line in path.read_text().splitlines() if not line.startswith(";"))
        found[re.sub(r"ELEN=\d+", "ELEN", path.name)] = re.sub(r"ELEN=\d+|elen\d+", "ELEN", text)
    return found


def test_elen_does_not_enter_the_queries(tmp_path):
    """Why one answer serves both ELENs (runner._answer_key): at the same VLEN, SEW and LMUL
    every query but the vtype ones is the same formula at ELEN=32 and ELEN=64 (each exported by
    a fresh process, so that Z3 numbers the terms alike)."""
    import subprocess
    import sys

    texts = {}
    for elen in (32, 64):
        subprocess.run([sys.executable, "-c", EXPORT, str(elen), str(tmp_path / f"e{elen}")], check=True)
        texts[elen] = _queries(tmp_path / f"e{elen}")
    assert len(texts[32]) > 50 and texts[32] == texts[64]
