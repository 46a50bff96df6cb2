"""Implementation-defined policies and the named profiles (spec/profiles.py): the table, each
profile's recorded outcomes, exec --profile, and the decision procedure checked against the
declarative relation (spec/relation.py) on concrete outcomes."""

import json
import random

import jsonschema
import pytest

from vredmax.impl.case import case_json
from vredmax.cli.main import main
from vredmax.impl.execute import execute
from vredmax.schema import load_schema
from vredmax.spec.config import Config, decode_vtype, encode_vtype, legal_configs
from vredmax.spec.encoding import Insn
from vredmax.spec.legality import ILLEGAL, RESERVED, RETIRED
from vredmax.spec.profiles import (
    ANYTHING,
    CHOICES,
    POLICIES,
    PROFILE_SOURCES,
    PROFILES,
    SOURCE_VERSIONS,
    Observed,
    allowed,
    difference_markdown,
    difference_table,
    get_profile,
    readings,
)
from vredmax.spec.state import VS_DIRTY, ArchState
from tests.test_spec_relation import allowed as relation_allows

VLEN = 128


def state(vtype, vl, regs=None, vstart=0, vs=1, vlen=VLEN, elen=64):
    return ArchState(vlen, elen, tuple(regs or [0] * 32), vtype, vl, vstart, vs)


def test_profiles_and_their_policies():
    assert set(PROFILES) == {"any", "sail", "spike", "qemu"}
    assert all(getattr(PROFILES["any"], c) == "any" for c in CHOICES)
    for profile in PROFILES.values():
        for choice in CHOICES:
            assert getattr(profile, choice) in POLICIES[choice]
    assert [PROFILES["sail"].reserved, PROFILES["spike"].reserved, PROFILES["qemu"].reserved] == [
        "illegal",
        "execute",
        "execute",
    ]
    assert [PROFILES["sail"].vs_dirty, PROFILES["spike"].vs_dirty] == ["on-write", "always"]
    # Sail, Spike and QEMU all make SEW > LMUL*ELEN at fractional LMUL vill (PROFILE_SOURCES).
    assert [PROFILES[name].frac_sew for name in ("sail", "spike", "qemu")] == ["vill"] * 3
    with pytest.raises(ValueError, match="^tail:"):
        PROFILES["sail"].with_(tail="zeros")
    with pytest.raises(ValueError, match="^profile:"):
        get_profile("rtl")
    assert (
        get_profile("qemu", "ones").tail == "ones" and get_profile("qemu", "undisturbed") is PROFILES["qemu"]
    )


def test_the_difference_table():
    rows = difference_table()
    assert rows[0] == ["choice", "any", "sail", "spike", "qemu"]
    assert [row[0] for row in rows[1:]] == list(CHOICES)
    text = difference_markdown()
    assert "| `reserved` (differs) | any | illegal | execute | execute |" in text
    assert "| `tail` | any | undisturbed | undisturbed | undisturbed |" in text


def test_every_emulator_policy_cites_its_source():
    """Each value of the sail, spike and qemu profiles names the file and line it comes from
    (in SOURCE_VERSIONS); tests/test_emulator_policies.py runs Spike and QEMU on them."""
    import re

    for name in ("sail", "spike", "qemu"):
        assert SOURCE_VERSIONS[name]
        for choice in CHOICES:
            assert re.search(r"[\w/]+\.(c|cc|h|sail|c\.inc):\d+", PROFILE_SOURCES[name][choice]), (
                name,
                choice,
            )


def test_the_profiles_guide_holds_the_generated_table():
    from pathlib import Path

    guide = Path(__file__).resolve().parent.parent / "docs" / "guide" / "profiles.md"
    assert difference_markdown() in guide.read_text()


def test_deterministic_profiles_give_one_outcome_and_any_gives_the_set():
    rng = random.Random(1)
    for _ in range(50):
        cfg = rng.choice(legal_configs(64, [VLEN]))
        pre = state(
            encode_vtype(cfg.sew, cfg.lmul, rng.random() < 0.5),
            rng.randint(0, cfg.vlmax),
            [rng.getrandbits(VLEN) for _ in range(32)],
            vs=rng.choice((1, 2, 3)),
        )
        insn = Insn(rng.randrange(32), rng.randrange(32), rng.randrange(32), rng.randrange(2))
        for name in ("sail", "spike", "qemu"):
            option = allowed(pre, insn, name).unique()
            # a profile's recorded outcome is one the architecture allows
            assert allowed(pre, insn, "any").judge(Observed.of(option.kind, option.post)).allowed
            assert allowed(pre, insn, name).judge(Observed.of(option.kind, option.post)).allowed
        every = allowed(pre, insn, "any")
        if every.kinds != {ANYTHING} and pre.vtype >> 6 & 1 and pre.vl:
            with pytest.raises(ValueError, match="^profile:"):
                every.unique()


def test_profiles_agree_with_the_executable_model_where_they_share_its_choices():
    """sail keeps tails and dirties VS on write only, as impl/execute does; on legal cases
    (neither reserved nor the optional SEW/LMUL) the two give the same post-state."""
    rng = random.Random(2)
    for _ in range(60):
        cfg = rng.choice(legal_configs(64, [VLEN]))
        pre = state(
            encode_vtype(cfg.sew, cfg.lmul, rng.random() < 0.5),
            rng.randint(0, cfg.vlmax),
            [rng.getrandbits(VLEN) for _ in range(32)],
            vstart=rng.choice((0, 0, 1)),
            vs=rng.choice((0, 1, 2, 3)),
        )
        insn = Insn(rng.randrange(32), rng.randrange(32), rng.randrange(32), rng.randrange(2))
        result = execute(pre, insn)
        if result.outcome == RESERVED:
            continue
        for tail in ("undisturbed", "ones"):
            option = allowed(pre, insn, get_profile("sail", tail)).unique()
            result = execute(pre, insn, tail=tail)
            assert (option.kind, option.post) == (result.outcome, result.state)


def test_vs_policies_at_vl0():
    pre = state(encode_vtype(8, "m1"), 0)
    insn = Insn(8, 12, 4)
    assert allowed(pre, insn, "sail").unique().post.vs == 1
    assert allowed(pre, insn, "spike").unique().post.vs == VS_DIRTY
    assert allowed(pre, insn, "any").outcomes[0].vs == {1, VS_DIRTY}
    assert allowed(pre.with_(vs=VS_DIRTY), insn, "any").outcomes[0].vs == {VS_DIRTY}


def test_reserved_policies():
    pre = state(encode_vtype(8, "m2"), 3, [0b101] + [0] * 31)
    overlap, misaligned = Insn(8, 0, 4, 0), Insn(8, 3, 4, 1)
    assert allowed(pre, overlap, "any").kinds == {ANYTHING}
    assert allowed(pre, overlap, "any").dont_care == {r: (1 << VLEN) - 1 for r in range(32)}
    assert allowed(pre, overlap, "sail").unique().kind == ILLEGAL
    plain = allowed(pre, overlap, "spike").unique()  # v0 = 0b101: elements 0 and 2 active, both 0b101 / 0
    assert plain.kind == RETIRED and plain.post.regs[8] & 0xFF == 5
    assert allowed(pre, misaligned, "spike").unique().kind == ILLEGAL


def test_frac_sew_readings():
    vtype = encode_vtype(64, "mf2")  # SEW > LMUL*ELEN at ELEN=64: optional
    pre = state(vtype, 1, [0] * 4 + [7] + [0] * 27)
    assert [v.vill for v in readings(pre, "any")] == [True, False]
    assert [v.vill for v in readings(pre, "vill")] == [True]
    assert allowed(pre.with_(vl=0), Insn(8, 2, 4), "any").kinds == {ILLEGAL, RETIRED}
    # vl=1: a vill vtype has vl=0, so the implementation supports this one and must execute
    assert allowed(pre, Insn(8, 2, 4), "any").kinds == {RETIRED}
    assert (
        allowed(pre, Insn(8, 2, 4), PROFILES["sail"].with_(frac_sew="supported")).unique().post.regs[8] == 7
    )
    assert readings(state(encode_vtype(64, "m1"), 0, elen=64), "any")[0].vill is False
    assert len(readings(state(encode_vtype(64, "mf2"), 0, elen=32, vlen=128), "any")) == 1  # SEW > ELEN


# The decision procedure against the relation ------------------------------------------------------


def test_an_optional_vtype_at_a_nonzero_vl_must_execute_as_the_relation_says():
    """SEW=64, LMUL=1/2, ELEN=64, vl=1: the relation of that configuration (vill bit clear)
    rejects a trap; the judge agrees (it allowed the vill reading's trap at any vl)."""
    cfg = Config(VLEN, 64, 64, "mf2")
    pre = state(encode_vtype(64, "mf2"), 1, [0] * 4 + [7] + [0] * 27)
    insn = Insn(8, 2, 4)

    class Run:
        outcome, state = ILLEGAL, pre

    assert not relation_allows(cfg, pre, insn, Run())
    assert not allowed(pre, insn, "any").judge(Observed.of(ILLEGAL, pre)).allowed


def _mutations(rng, pre, insn, cfg, result):
    """The executable model's outcome and variations of it: some allowed, some not."""
    post = result.state
    yield result.outcome, post
    yield result.outcome, post.with_(vs=VS_DIRTY)
    yield result.outcome, post.with_(vs=rng.randrange(4))
    yield (ILLEGAL if result.outcome == RETIRED else RETIRED), post
    regs = list(post.regs)
    regs[insn.vd] ^= 1 << rng.randrange(cfg.vlen)
    yield result.outcome, post.with_(regs=tuple(regs))
    regs = list(post.regs)
    k = rng.randrange(cfg.elements_per_register)
    regs[insn.vd] |= ((1 << cfg.sew) - 1) << (k * cfg.sew)  # one element all ones
    yield result.outcome, post.with_(regs=tuple(regs))
    yield result.outcome, post.with_(vstart=1)


@pytest.mark.parametrize("seed", range(12))
def test_the_judge_agrees_with_the_relation(seed):
    rng = random.Random(seed)
    cfg = rng.choice([c for c in legal_configs(64, [64]) if c.vlmax <= 8])
    pre = state(
        encode_vtype(cfg.sew, cfg.lmul, rng.random() < 0.5),
        rng.randint(0, cfg.vlmax),
        [rng.getrandbits(64) for _ in range(32)],
        vstart=rng.choice((0, 0, 0, 1)),
        vs=rng.choice((0, 1, 2, 3, 3)),
        vlen=64,
    )
    insn = Insn(rng.randrange(32), rng.randrange(32), rng.randrange(32), rng.randrange(2))
    result = execute(pre, insn, tail=rng.choice(["undisturbed", "ones"]))
    judge = allowed(pre, insn, "any").judge
    for outcome, post in _mutations(rng, pre, insn, cfg, result):
        kind = ILLEGAL if outcome == RESERVED else outcome
        by_judge = judge(Observed.of(kind, post)).allowed

        class Run:  # the shape test_spec_relation.allowed reads
            pass

        run = Run()
        run.outcome, run.state = kind, post
        assert by_judge == relation_allows(cfg, pre, insn, run), (outcome, post, pre, insn)


# exec --profile -----------------------------------------------------------------------------------


def run_exec(capsys, case, *options):
    import io
    import sys

    old = sys.stdin
    sys.stdin = io.StringIO(json.dumps(case))
    try:
        code = main(["exec", "-", *options])
    finally:
        sys.stdin = old
    return code, capsys.readouterr()


CASE = {
    "vlen": VLEN,
    "insn": "vredmax.vs v8, v12, v4",
    "vtype": {"sew": 8, "lmul": "m1", "vta": True},
    "vl": 4,
    "vregs": {"v4": "0xfe", "v12": "0x03028001"},
}


def test_exec_profile_any_prints_the_set(capsys):
    code, (out, _) = run_exec(capsys, CASE, "--profile", "any", "--json")
    answer = json.loads(out)
    jsonschema.validate(answer, load_schema("exec-allowed"))
    [option] = answer["allowed"]
    assert (
        code == 0
        and option["vregs"]["v8"].endswith("03")
        and option["dont_care"] == {"v8": "0x" + "f" * 30 + "00"}
    )
    code, (out, _) = run_exec(capsys, CASE, "--profile", "any")
    assert "each element keeps its value or becomes all ones" in out


@pytest.mark.parametrize("name, tail_hex", [("sail", "0" * 30), ("qemu", "0" * 30)])
def test_exec_profile_is_deterministic(capsys, name, tail_hex):
    code, (out, _) = run_exec(capsys, CASE, "--profile", name, "--json")
    answer = json.loads(out)
    jsonschema.validate(answer, load_schema("exec-result"))
    assert code == 0 and answer["profile"] == name and answer["vregs"]["v8"] == "0x" + tail_hex + "03"


def test_exec_profile_takes_the_case_tail_and_elen(capsys):
    code, (out, _) = run_exec(capsys, {**CASE, "tail": "ones"}, "--profile", "qemu", "--json")
    assert json.loads(out)["vregs"]["v8"] == "0x" + "f" * 30 + "03"
    code, (out, _) = run_exec(capsys, {**CASE, "tail": "ones"}, "--profile", "any", "--json")
    [option] = json.loads(out)["allowed"]  # the case narrows any too
    assert option["vregs"]["v8"] == "0x" + "f" * 30 + "03" and option["dont_care"] == {}
    code, (_, err) = run_exec(capsys, {**CASE, "elen": 64}, "--elen", "32")
    assert code == 2 and err.startswith("vredmax: error: elen:")


def test_exec_jsonl_with_a_profile(capsys, tmp_path):
    path = tmp_path / "cases.jsonl"
    path.write_text(json.dumps({**CASE, "vl": 0}) + "\n" + json.dumps(CASE) + "\n")
    assert main(["exec", "--jsonl", str(path), "--profile", "spike"]) == 0
    first, second = (json.loads(line) for line in capsys.readouterr().out.splitlines())
    assert first["vs"] == "dirty" and first["vregs"]["v8"] == "0x" + "0" * 32
    assert second["vregs"]["v8"].endswith("03")


def test_case_json_round_trip_through_the_judge():
    pre = state(encode_vtype(16, "m1"), 2, [3] * 32)
    insn = Insn(1, 2, 3)
    assert case_json(pre, insn)["tail"] == "undisturbed"
    assert (
        allowed(pre, insn).judge(Observed.of(*(lambda r: (r.outcome, r.state))(execute(pre, insn)))).allowed
    )


def test_config_of_the_supported_reading():
    vt = readings(state(encode_vtype(32, "mf4"), 0), "supported")[0]
    assert not vt.vill and Config(VLEN, 64, vt.sew, vt.lmul).vlmax == 1
    assert decode_vtype(encode_vtype(32, "mf4"), 64).vill


# The freedoms as proof obligations ----------------------------------------------------------------

FREEDOMS = ("vl0_may_dirty_vs", "trap_may_dirty_vs", "tail_agnostic_any_mix")


def test_the_freedoms_are_proved_and_a_stricter_relation_fails_them(monkeypatch):
    import z3
    from vredmax.proofs.obligations import catalogue as obligations
    from vredmax.proofs.obligations import runner
    from vredmax.proofs.engine.verdict import Verdict
    from vredmax.spec import relation

    cfg = Config(128, 64, 8, "m1")
    for name in FREEDOMS:
        assert runner.run(obligations.by_name(name), cfg, "spec").answer.verdict == Verdict.PROVED
    # The relation before the VS freedom (VS unchanged) and a tail kept whole or all ones:
    monkeypatch.setattr(relation, "vs_kept_or_dirty", lambda old, new: new == old)
    monkeypatch.setattr(
        relation,
        "each_tail_element_old_or_ones",
        lambda cfg, old, new: z3.Or(
            z3.Extract(cfg.vlen - 1, cfg.sew, new) == z3.Extract(cfg.vlen - 1, cfg.sew, old),
            z3.Extract(cfg.vlen - 1, cfg.sew, new) == -1,
        ),
    )
    cfg = Config(128, 64, 8, "m2")  # another configuration: nothing kept from the first runs
    for name in FREEDOMS:
        assert runner.run(obligations.by_name(name), cfg, "spec").answer.verdict == Verdict.COUNTEREXAMPLE


# check-impl accepts the VS freedom (it rejected a Spike-like step before) ---------------------------

SPIKE_LIKE = '''
from vredmax.api import step as reference_step
from vredmax.impl.sequential import reduce_sequential


def dirty_when_retired(m, pre, insn, cfg, tail):
    """Spike: VS Dirty whenever the instruction retires, vl = 0 too."""
    traps, post = reference_step(m, pre, insn, cfg, reduce_sequential, tail)
    trapped = m.any_(*(cond for _, cond in traps))
    return traps, post.with_(vs=m.ite(trapped, post.vs, m.const(3, 2)))


def clean_at_vl0(m, pre, insn, cfg, tail):
    """Wrong: VS Initial becomes Clean at vl = 0."""
    traps, post = reference_step(m, pre, insn, cfg, reduce_sequential, tail)
    trapped = m.any_(*(cond for _, cond in traps))
    quiet = m.all_(m.not_(trapped), m.eq(pre.vl, 0), m.eq(pre.vs, 1))
    return traps, post.with_(vs=m.ite(quiet, m.const(2, 2), post.vs))
'''


@pytest.mark.parametrize("function, code", [("dirty_when_retired", 0), ("clean_at_vl0", 1)])
def test_check_impl_accepts_dirtying_vs_at_vl0(tmp_path, capsys, function, code):
    path = tmp_path / "vs_steps.py"
    path.write_text(SPIKE_LIKE)
    assert (
        main(
            [
                "check-impl",
                f"{path}:{function}",
                "--vlen",
                "128",
                "--sew",
                "8",
                "--lmul",
                "m1",
                "--random",
                "20",
            ]
        )
        == code
    )
