"""`vredmax judge` and the decision procedure behind it (spec/profiles.py Allowed.judge):
historical bugs named by the right property, flipped bits in defined places caught, the
freedoms (agnostic tails, VS dirtying, reserved encodings) allowed, exit codes, bad lines,
the output schema."""

import json
import random

import jsonschema
import pytest
from hypothesis import given, settings

from vredmax.impl.case import case_json, result_json
from vredmax.cli.main import main
from vredmax.impl.execute import execute
from vredmax.schema import load_schema
from vredmax.spec.config import encode_vtype, legal_configs
from vredmax.spec.encoding import Insn
from vredmax.spec.profiles import PROFILES, Observed, allowed
from vredmax.spec.state import VS_DIRTY, ArchState
from tests.strategies import cases

VLEN = 128
SEED_CASE = {
    "vlen": VLEN,
    "insn": "vredmax.vs v8, v12, v4",
    "vtype": {"sew": 8, "lmul": "m1"},
    "vl": 4,
    "vregs": {"v4": "0xfe", "v12": "0x03028001", "v8": "0x1122334455667788"},
}
RETIRED_OK = {
    "outcome": "retired",
    "vl": 4,
    "vstart": 0,
    "vtype": 0,
    "vs": "dirty",
    "vregs": {"v8": "0x1122334455667703"},
}


def judge_lines(capsys, lines, *options):
    """Run `vredmax judge` on JSON lines; return (exit code, verdict objects)."""
    import io
    import sys

    text = "\n".join(line if isinstance(line, str) else json.dumps(line) for line in lines) + "\n"
    old = sys.stdin
    sys.stdin = io.StringIO(text)
    try:
        code = main(["judge", "-", *options])
    finally:
        sys.stdin = old
    out, _ = capsys.readouterr()
    return code, [json.loads(line) for line in out.splitlines()]


def line(case=None, **observed):
    return {**(case or SEED_CASE), "observed": observed}


def rule_names(verdict):
    return {rule.rsplit(".", 1)[-1] for rule in verdict["rules"]}


# The freedoms are allowed -------------------------------------------------------------------


def test_the_seed_example_is_allowed(capsys):
    code, [verdict] = judge_lines(capsys, [line(**RETIRED_OK)])
    assert code == 0 and verdict == {
        "schema": "vredmax/judge-verdict/1",
        "verdict": "allowed",
        "dont_care": {},
    }


def test_a_trap_may_give_only_its_outcome(capsys):
    code, [verdict] = judge_lines(capsys, [line({**SEED_CASE, "vstart": 1}, outcome="illegal-instruction")])
    assert code == 0 and verdict["verdict"] == "allowed"


def test_agnostic_tail_any_mix_of_old_and_ones_is_allowed(capsys):
    case = {**SEED_CASE, "vtype": {"sew": 8, "lmul": "m1", "vta": True}}
    mixed = "0xffff33ff5566ff03"  # elements 1, 4, 6, 7 (and 8.. in the first) all ones, the rest old
    high = "ff" * 8
    code, [one, two] = judge_lines(
        capsys,
        [
            line(case, outcome="retired", vregs={"v8": "0x" + high + mixed[2:]}),
            line(case, outcome="retired", vregs={"v8": mixed}),
        ],
    )
    assert code == 0 and one["verdict"] == two["verdict"] == "allowed"
    assert one["dont_care"] == {"v8": "0x" + "f" * 30 + "00"}


def test_spike_dirtying_vs_at_vl0_is_allowed_by_the_architecture_not_by_sail(capsys):
    case = {**SEED_CASE, "vl": 0}
    seen = line(
        case, outcome="retired", vl=0, vstart=0, vtype=0, vs="dirty", vregs={"v8": "0x1122334455667788"}
    )
    code, [verdict] = judge_lines(capsys, [seen])
    assert code == 0 and verdict["verdict"] == "allowed"
    code, [verdict] = judge_lines(capsys, [seen], "--profile", "sail")
    assert code == 1 and verdict["rules"] == ["policy.vs_dirty"]
    code, [verdict] = judge_lines(capsys, [seen], "--profile", "spike")
    assert code == 0


def test_vs_may_turn_dirty_at_a_trap_but_off_stays_off(capsys):
    trap = {**SEED_CASE, "vstart": 2}
    code, [verdict] = judge_lines(capsys, [line(trap, outcome="illegal-instruction", vs="dirty")])
    assert code == 0
    code, [verdict] = judge_lines(
        capsys, [line({**trap, "vs": "initial"}, outcome="illegal-instruction", vs="clean")]
    )
    assert code == 1 and "vs_kept_or_dirty" in rule_names(verdict)
    code, [verdict] = judge_lines(
        capsys, [line({**SEED_CASE, "vs": "off"}, outcome="illegal-instruction", vs="dirty")]
    )
    assert code == 1 and {"vs_off_traps", "vs_kept_or_dirty"} <= rule_names(verdict)


def test_reserved_allows_anything_and_the_profiles_narrow_it(capsys):
    case = {**SEED_CASE, "insn": "vredmax.vs v8, v0, v4, v0.t"}  # v0 is mask and vs2
    trapped = line(case, outcome="illegal-instruction")
    executed = line(case, outcome="retired", vregs={"v8": "0x5"})
    code, verdicts = judge_lines(capsys, [trapped, executed])
    assert code == 0 and all(v["dont_care"]["v31"] == "0x" + "f" * 32 for v in verdicts)
    assert judge_lines(capsys, [trapped], "--profile", "sail")[0] == 0
    code, [verdict] = judge_lines(capsys, [trapped], "--profile", "spike")
    assert code == 1 and verdict["rules"] == ["policy.reserved"]


# Historical bugs are violations naming the right property ---------------------------------------


def test_qemu_9_writing_the_seed_at_vl0(capsys):
    case = {**SEED_CASE, "vl": 0}
    code, [verdict] = judge_lines(capsys, [line(case, outcome="retired", vregs={"v8": "0x11223344556677fe"})])
    assert code == 1 and verdict["verdict"] == "violation"
    assert {"vl0_preserves_vd", "vl0_changes_nothing"} <= rule_names(verdict)
    assert verdict["rules"][0] == "vredmax.sew8.vl0_preserves_vd"


def test_tail_ones_written_at_vl0(capsys):
    case = {**SEED_CASE, "vl": 0, "vtype": {"sew": 8, "lmul": "m1", "vta": True}}
    code, [verdict] = judge_lines(
        capsys, [line(case, outcome="retired", vregs={"v8": "0x" + "f" * 30 + "88"})]
    )
    assert code == 1 and "vl0_preserves_vd" in rule_names(verdict)


@pytest.mark.parametrize(
    "change, rule",
    [
        ({"vstart": 1}, "vstart_nonzero_traps"),
        ({"vtype": 1 << 63, "vl": 0}, "vill_traps"),
        ({"vs": "off"}, "vs_off_traps"),
    ],
)
def test_a_trap_that_writes_vd(capsys, change, rule):
    case = {**SEED_CASE, **change}
    code, [verdict] = judge_lines(capsys, [line(case, outcome="illegal-instruction", vregs={"v8": "0x3"})])
    assert code == 1 and rule in rule_names(verdict)


def test_every_property_whose_hypothesis_holds_is_named(capsys):
    """The ids are `vredmax prove`'s: at a legal vl=0, trapping breaks legal_retires and
    vl0_changes_nothing (it requires retiring); a nonzero vstart left behind breaks
    success_resets_vstart (hypothesis: legal, vl=0 too); a trap that changes v9 breaks frame."""
    vl0 = {**SEED_CASE, "vl": 0}
    code, verdicts = judge_lines(
        capsys,
        [
            line(vl0, outcome="illegal-instruction"),
            line(vl0, outcome="retired", vstart=1),
            line(outcome="illegal-instruction", vregs={"v9": "0x1"}),
        ],
    )
    assert code == 1
    assert [rule_names(v) for v in verdicts] == [
        {"legal_retires", "vl0_changes_nothing"},
        {"vl0_changes_nothing", "success_resets_vstart"},
        {"legal_retires", "frame"},
    ]


def test_vstart_left_nonzero_after_retiring(capsys):
    code, [verdict] = judge_lines(capsys, [line(**{**RETIRED_OK, "vstart": 3})])
    assert code == 1 and rule_names(verdict) == {"success_resets_vstart"}


def test_a_changed_vl_or_vtype_is_not_a_vstart_rule(capsys):
    """vl and vtype left changed after retiring break success_keeps_vl_vtype (at vl = 0 also
    vl0_changes_nothing), never success_resets_vstart, which is about vstart alone."""
    vl0 = {**SEED_CASE, "vl": 0}
    code, verdicts = judge_lines(
        capsys,
        [
            line(**{**RETIRED_OK, "vl": 3}),
            line(**{**RETIRED_OK, "vtype": 1}),
            line(vl0, outcome="retired", vl=1),
            line(**{**RETIRED_OK, "vl": 3, "vstart": 1}),
        ],
    )
    assert code == 1
    assert [rule_names(v) for v in verdicts] == [
        {"success_keeps_vl_vtype"},
        {"success_keeps_vl_vtype"},
        {"vl0_changes_nothing", "success_keeps_vl_vtype"},
        {"success_resets_vstart", "success_keeps_vl_vtype"},
    ]


def test_vs_left_initial_after_a_write(capsys):
    code, [verdict] = judge_lines(capsys, [line(**{**RETIRED_OK, "vs": "initial"})])
    assert code == 1 and rule_names(verdict) == {"success_dirties_vs"}


def test_unsigned_max_and_a_missing_trap(capsys):
    code, [unsigned, missing] = judge_lines(
        capsys,
        [
            line(**{**RETIRED_OK, "vregs": {"v8": "0x11223344556677fe"}}),
            line({**SEED_CASE, "vstart": 1}, **RETIRED_OK),
        ],
    )
    assert code == 1
    assert rule_names(unsigned) == {"bounds_active"}  # 0xfe = -2 is the seed, below the active 3
    assert "vstart_nonzero_traps" in rule_names(missing)


def test_a_wrong_mask_reading_breaks_the_result_properties(capsys):
    # masked: v0 = 0b0101 activates 1 and 2; counting 3 (masked off) is a bound violation of nothing
    # but gives a result that is no active element
    case = {
        **SEED_CASE,
        "insn": "vredmax.vs v8, v12, v4, v0.t",
        "vregs": {**SEED_CASE["vregs"], "v0": "0b0101"},
    }
    code, [verdict] = judge_lines(capsys, [line(case, outcome="retired", vregs={"v8": "0x1122334455667703"})])
    assert code == 1 and rule_names(verdict) == {"result_is_candidate"}
    code, [verdict] = judge_lines(capsys, [line(case, outcome="retired", vregs={"v8": "0x1122334455667701"})])
    assert code == 1 and rule_names(verdict) == {"bounds_active"}


def test_the_other_registers_are_the_frame(capsys):
    code, [verdict] = judge_lines(
        capsys, [line(**{**RETIRED_OK, "vregs": {"v8": "0x1122334455667703", "v9": "0x1"}})]
    )
    assert code == 1 and rule_names(verdict) == {"frame"}


def test_a_disturbed_tail(capsys):
    code, [verdict] = judge_lines(capsys, [line(**{**RETIRED_OK, "vregs": {"v8": "0xff22334455667703"}})])
    assert code == 1 and rule_names(verdict) == {"tail_undisturbed"}
    case = {**SEED_CASE, "vtype": {"sew": 8, "lmul": "m1", "vta": True}}
    code, [verdict] = judge_lines(capsys, [line(case, outcome="retired", vregs={"v8": "0x1f22334455667703"})])
    assert code == 1 and rule_names(verdict) == {"tail_agnostic"}


# Mutations: one flipped bit in a defined place is a violation ------------------------------------


def _random_case(rng: random.Random, vlen: int):
    cfg = rng.choice(legal_configs(64, [vlen]))
    vl = rng.choice([0, 1, cfg.vlmax, rng.randint(0, cfg.vlmax)])
    vtype = encode_vtype(cfg.sew, cfg.lmul, rng.random() < 0.5)
    regs = tuple(rng.getrandbits(vlen) for _ in range(32))
    group = cfg.group_registers
    insn = Insn(rng.randrange(32), rng.randrange(0, 32, group), rng.randrange(1, 32), rng.randrange(2))
    if insn.vm == 0 and insn.vs2 == 0:
        insn = Insn(insn.vd, group, insn.vs1, 0)
    pre = ArchState(vlen, 64, regs, vtype, vl, 0, rng.choice((1, 2, 3)))
    return cfg, pre, insn


@pytest.mark.parametrize("seed", range(40))
def test_flipping_a_defined_bit_is_a_violation(seed):
    rng = random.Random(seed)
    cfg, pre, insn = _random_case(rng, rng.choice([64, 128, 256, 1024]))
    result = execute(pre, insn, tail=rng.choice(["undisturbed", "ones"]))
    judge = allowed(pre, insn, "any").judge
    assert judge(Observed.of(result.outcome, result.state)).allowed
    vta = pre.vtype >> 6 & 1
    regs = list(result.state.regs)
    written = pre.vl > 0
    # a bit of vd[0] when written, of vd's tail when vta=0 (or vd anywhere at vl=0), or another register
    if written and rng.random() < 0.5:
        bit = rng.randrange(cfg.sew)
    elif not vta or not written:
        bit = rng.randrange(cfg.vlen)
    else:
        bit = None
    register = insn.vd if bit is not None else rng.choice([r for r in range(32) if r != insn.vd])
    regs[register] ^= 1 << (bit if bit is not None else rng.randrange(cfg.vlen))
    verdict = judge(Observed.of(result.outcome, result.state.with_(regs=tuple(regs))))
    assert not verdict.allowed and verdict.rules and verdict.differences


@pytest.mark.parametrize("field", ["vl", "vstart", "vtype"])
def test_flipping_a_csr_bit_is_a_violation(field):
    rng = random.Random(field)
    for _ in range(10):
        _, pre, insn = _random_case(rng, 128)
        result = execute(pre, insn)
        flipped = result.state.with_(**{field: getattr(result.state, field) ^ 1 << rng.randrange(6)})
        verdict = allowed(pre, insn).judge(Observed.of(result.outcome, flipped))
        assert not verdict.allowed


@settings(max_examples=60, deadline=None)
@given(cases(vlens=(64, 128, 256)))
def test_every_executed_outcome_is_allowed(case):
    pre, insn, tail = case
    result = execute(pre, insn, tail=tail)
    observed = Observed.of(
        "illegal-instruction" if result.outcome == "reserved" else result.outcome, result.state
    )
    assert allowed(pre, insn).judge(observed).allowed
    if result.outcome == "retired" and pre.vl == 0 and pre.vs in (1, 2):
        assert allowed(pre, insn).judge(Observed.of("retired", result.state.with_(vs=VS_DIRTY))).allowed


def test_an_agnostic_tail_element_that_is_neither_old_nor_ones_is_caught():
    rng = random.Random(3)
    for _ in range(30):
        cfg, pre, insn = _random_case(rng, 256)
        pre = pre.with_(vtype=pre.vtype | 1 << 6, vl=max(pre.vl, 1))
        result = execute(pre, insn, tail="ones")
        if result.outcome != "retired" or cfg.elements_per_register == 1:
            continue
        k = rng.randrange(1, cfg.elements_per_register)
        regs = list(result.state.regs)
        old = pre.regs[insn.vd] >> (k * cfg.sew) & ((1 << cfg.sew) - 1)
        if old == (1 << cfg.sew) - 2:
            continue
        regs[insn.vd] &= ~(1 << (k * cfg.sew))  # element k: all ones but bit 0
        verdict = allowed(pre, insn).judge(Observed.of("retired", result.state.with_(regs=tuple(regs))))
        assert not verdict.allowed and verdict.rules == (f"vredmax.sew{cfg.sew}.tail_agnostic",)


# The command: exit codes, bad lines, --elen, the schema -------------------------------------------


def test_a_bad_line_gives_an_error_line_and_the_batch_goes_on(capsys):
    code, verdicts = judge_lines(
        capsys,
        [
            "{not json",
            line(**RETIRED_OK),
            {**SEED_CASE},
            line(outcome="reserved"),
            line(**{**RETIRED_OK, "vs": "initial"}),
        ],
    )
    assert code == 2
    assert [v["verdict"] for v in verdicts] == ["error", "allowed", "error", "error", "violation"]
    assert verdicts[0]["error"].startswith("line 1: case: malformed JSON")
    assert verdicts[2]["error"] == "line 3: observed: missing"
    assert verdicts[3]["error"].startswith("line 4: observed.outcome:")
    code, [verdict] = judge_lines(capsys, [line(**{**RETIRED_OK, "reason": 5})])
    assert code == 2 and verdict["error"].startswith("line 1: observed.reason: expected a string")


def test_elen_option(capsys):
    case = {**SEED_CASE, "vtype": {"sew": 64, "lmul": "m1"}, "vl": 0}
    code, [verdict] = judge_lines(capsys, [line(case, outcome="illegal-instruction")], "--elen", "32")
    assert code == 0 and verdict["verdict"] == "allowed"  # SEW=64 > ELEN=32: vill, traps
    code, [verdict] = judge_lines(
        capsys, [line({**case, "elen": 64}, outcome="illegal-instruction")], "--elen", "32"
    )
    assert code == 2 and verdict["error"].startswith("line 1: elen:")


def test_frac_sew_is_a_policy(capsys):
    # SEW=64 at LMUL=1/2 with ELEN=64: optional. At vl=0 either reading; vl=1 needs the supported one.
    case = {**SEED_CASE, "vtype": {"sew": 64, "lmul": "mf2"}, "vl": 0}
    trapped = line(case, outcome="illegal-instruction")
    kept = line(case, outcome="retired", vregs={"v8": SEED_CASE["vregs"]["v8"]})
    assert judge_lines(capsys, [trapped, kept])[0] == 0
    for name in ("sail", "spike", "qemu"):  # each makes such a vtype vill (spec/profiles.py)
        assert judge_lines(capsys, [trapped], "--profile", name)[0] == 0
        code, [verdict] = judge_lines(capsys, [kept], "--profile", name)
        assert code == 1 and verdict["rules"] == ["policy.frac_sew"]
    # A platform that supports the pair: the trap is what its profile forbids.
    pre = ArchState(VLEN, 64, tuple([0] * 32), encode_vtype(64, "mf2"), 0, 0, 1)
    supporting = PROFILES["spike"].with_(name="supporting", frac_sew="supported")
    judgement = allowed(pre, Insn(8, 12, 4, 1), supporting).judge(Observed("illegal-instruction"))
    assert not judgement.allowed and judgement.rules == ("policy.frac_sew",)
    case = {**case, "vl": 1}
    executed = line(case, outcome="retired", vregs={"v8": "0x03028001"})  # max(0xfe, 0x03028001)
    assert judge_lines(capsys, [executed])[0] == 0
    code, [verdict] = judge_lines(capsys, [executed], "--profile", "qemu")
    assert code == 2 and "vl" in verdict["error"]  # QEMU's reading: vill, so vl must be 0


def test_a_trap_at_a_nonzero_vl_of_an_optional_vtype_is_a_violation(capsys):
    # vl=1 with SEW=64 LMUL=1/2 (ELEN=64): a vill vtype has vl=0, so this implementation supports
    # the vtype and must execute (the relation of that configuration, tests/test_profiles.py).
    case = {**SEED_CASE, "vtype": {"sew": 64, "lmul": "mf2"}, "vl": 1}
    code, [verdict] = judge_lines(capsys, [line(case, outcome="illegal-instruction")])
    assert code == 1 and rule_names(verdict) == {"legal_retires"}


def test_a_trap_that_changes_state_breaks_every_trap_property_that_applies(capsys):
    case = {**SEED_CASE, "vs": "off", "vstart": 1, "vl": 0}
    code, [verdict] = judge_lines(capsys, [line(case, outcome="illegal-instruction", vregs={"v8": "0x3"})])
    assert code == 1
    assert rule_names(verdict) == {"vs_off_traps", "vstart_nonzero_traps", "vstart_nonzero_traps_at_vl0"}
    case = {**SEED_CASE, "vtype": 1 << 63, "vl": 0, "vstart": 2}
    code, [verdict] = judge_lines(capsys, [line(case, outcome="illegal-instruction", vregs={"v9": "0x3"})])
    assert code == 1
    assert rule_names(verdict) == {
        "vill_traps",
        "vstart_nonzero_traps",
        "vstart_nonzero_traps_at_vl0",
        "frame",
    }


def test_output_matches_the_schema(capsys):
    schema = load_schema("judge-verdict")
    lines = [
        line(**RETIRED_OK),
        line(**{**RETIRED_OK, "vstart": 1}),
        "[]",
        line({**SEED_CASE, "insn": "vredmax.vs v8, v0, v4, v0.t"}, outcome="retired"),
    ]
    _, verdicts = judge_lines(capsys, lines)
    for verdict in verdicts:
        jsonschema.validate(verdict, schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({**verdicts[1], "rules": []}, schema)


def test_judging_exec_output_round_trip(capsys, tmp_path):
    """exec --json output is the observed format."""
    rng = random.Random(5)
    lines = []
    for _ in range(20):
        _, pre, insn = _random_case(rng, 128)
        result = execute(pre, insn)
        if result.outcome == "reserved":
            continue
        lines.append({**case_json(pre, insn), "observed": result_json(result)})
    code, verdicts = judge_lines(capsys, lines)
    assert code == 0 and {v["verdict"] for v in verdicts} == {"allowed"}


def test_exec_json_output_is_an_observation_as_printed(capsys, tmp_path):
    """`exec --profile NAME --json` prints "schema" and "profile" too: pasted whole as
    "observed" it is judged (it was an unknown-field error), allowed by its profile and by
    the architecture; exec-allowed output (profile any) is not an outcome."""
    rng = random.Random(7)
    cases = []
    for _ in range(12):
        _, pre, insn = _random_case(rng, 128)
        case = case_json(pre, insn)
        cases.append({**case, "vstart": rng.choice([0, 0, 1]), "vs": rng.choice(["off", "initial", "dirty"])})
    cases.append({**SEED_CASE, "insn": "vredmax.vs v8, v0, v4, v0.t"})  # reserved
    path = tmp_path / "cases.jsonl"
    path.write_text("".join(json.dumps(case) + "\n" for case in cases))
    for name in ("sail", "spike", "qemu"):
        assert main(["exec", "--jsonl", str(path), "--profile", name]) == 0
        printed = [json.loads(text) for text in capsys.readouterr().out.splitlines()]
        assert {p["schema"] for p in printed} == {"vredmax/exec-result/1"}
        lines = [{**case, "observed": seen} for case, seen in zip(cases, printed)]
        for options in (["--profile", name], []):
            code, verdicts = judge_lines(capsys, lines, *options)
            assert code == 0 and {v["verdict"] for v in verdicts} == {"allowed"}, (name, verdicts)
    assert main(["exec", "--jsonl", str(path), "--profile", "any"]) == 0
    every = json.loads(capsys.readouterr().out.splitlines()[0])
    code, [verdict] = judge_lines(capsys, [{**cases[0], "observed": every}])
    assert code == 2 and verdict["error"].startswith("line 1: observed.schema: must be vredmax/exec-result/1")
    code, [verdict] = judge_lines(capsys, [line(**{**RETIRED_OK, "profile": 1})])
    assert code == 2 and verdict["error"].startswith("line 1: observed.profile: expected a string")


def test_conform_decides_through_the_judge():
    """vredmax conform's compare: agreement is the judge's (a trap may dirty nothing it can
    see; a wrong result names the properties)."""
    from vredmax.platforms.conformance.cases import Case
    from vredmax.platforms.conformance.compare import AGREE, MISMATCH, compare
    from vredmax.platforms.conformance.protocol import Observation

    pre = ArchState(VLEN, 64, tuple([0] * 4 + [0xFE] + [0] * 7 + [0x03028001] + [0] * 19), 0, 4, 0, 1)
    case = Case(pre, Insn(8, 12, 4), pre.vtype, 4)
    spec = execute(pre, case.insn)

    def observation(regs):
        return Observation(False, (4, 0, 0, None), 4, 0, 0, tuple(regs))

    assert compare(case, spec, observation(spec.state.regs), "undisturbed").kind == AGREE
    regs = list(spec.state.regs)
    regs[8] = 0xFE
    verdict = compare(case, spec, observation(regs), "undisturbed")
    assert verdict.kind == MISMATCH and verdict.rules == ("vredmax.sew8.bounds_active",)
