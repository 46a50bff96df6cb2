"""`vredmax check-impl`: loading, the two plug-in levels, replay, configurations, exit codes, output."""

import json

import pytest

from vredmax.cli.main import main
from vredmax.proofs.python.check_impl import (
    INSTRUCTION,
    MONOLITHIC,
    SCALE,
    UNIT,
    InProcess,
    LoadError,
    all_configs,
    as_instruction,
    check_implementation,
    check_monolithic,
    default_configs,
    detect_level,
    load,
    method_for,
    model_case,
    random_cross_check,
    replay,
)
from vredmax.proofs.engine.verdict import Verdict
from vredmax.spec.bv import Concrete
from vredmax.spec.config import Config, legal_configs
from vredmax.spec.encoding import Insn
from tests.strategies import make_state

# imported as plain Python here, at collection: once a test has loaded a file of tests/buggy as
# the user's (`load`), later imports from that folder are rewritten (its truth tests become
# explored branches), and this test is about a truth test refused in code not rewritten
from tests.buggy.divergent import caught_truth_test

EXAMPLE = "examples/my_reduction.py"
TINY = Config(128, 64, 64, "m1")


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_load_by_path_and_by_module_name():
    assert load(f"{EXAMPLE}:reduce").__name__ == "reduce"
    assert load("vredmax.impl.tree:reduce_tree").__name__ == "reduce_tree"


@pytest.mark.parametrize(
    "target, message",
    [
        ("examples/my_reduction.py", "expected MODULE:FUNCTION"),
        ("no/such/file.py:f", "no such file: no/such/file.py"),
        (f"{EXAMPLE}:nothing", "has no function 'nothing'"),
        ("no_such_module_here:f", "cannot load no_such_module_here: ModuleNotFoundError"),
    ],
)
def test_load_errors(target, message):
    with pytest.raises(LoadError, match=message):
        load(target)


def test_a_module_that_fails_to_import(tmp_path):
    path = tmp_path / "broken.py"
    path.write_text("raise RuntimeError('boom')\n")
    with pytest.raises(LoadError, match="RuntimeError: boom"):
        load(f"{path}:f")


def test_user_files_named_like_project_packages_are_loaded_from_their_path(tmp_path):
    """A user's impl.py that imports its neighbour spec.py gets theirs, not the project's."""
    (tmp_path / "spec.py").write_text("IDENTITY = 'smin'\n")
    (tmp_path / "impl.py").write_text(
        "from spec import IDENTITY\n\n"
        "def reduce(ops, seed, elements, active):\n"
        "    acc = getattr(ops, IDENTITY)()\n"
        "    for x, a in zip(elements, active):\n"
        "        acc = ops.ite(a, ops.smax(acc, x), acc)\n"
        "    return ops.smax(seed, acc)\n"
    )
    function = load(f"{tmp_path / 'impl.py'}:reduce")
    assert function.__module__ == "vredmax_user_impl"
    assert (
        check_implementation(InProcess(function, UNIT, random_states=10), UNIT, [TINY]).verdict
        == Verdict.PROVED
    )


def test_detect_level():
    assert detect_level(load(f"{EXAMPLE}:reduce")) == UNIT
    assert detect_level(load(f"{EXAMPLE}:step")) == INSTRUCTION
    assert detect_level(lambda a, b: a) is None


def test_unit_level_is_the_instruction_level_around_step():
    unit = load(f"{EXAMPLE}:reduce")
    pre = make_state(128, 8, "m1", vl=4, regs={4: 0xFE, 12: 0x03028001})
    _, post = as_instruction(unit)(
        Concrete, pre, Insn(vd=8, vs2=12, vs1=4), Config(128, 64, 8, "m1"), "undisturbed"
    )
    assert post.regs[8] & 0xFF == 3  # the seed's worked example


def test_the_example_is_proved_at_both_levels():
    for name, level in (("reduce", UNIT), ("step", INSTRUCTION)):
        report = check_implementation(
            InProcess(load(f"{EXAMPLE}:{name}"), level, random_states=20),
            level,
            [TINY, Config(128, 64, 8, "mf2")],
        )
        assert report.verdict == Verdict.PROVED, report.detail
        assert report.random_states == 40 and len(report.bounds) == 2


# Configurations -------------------------------------------------------------------------------


def test_default_configurations_cover_every_sew_lmul_and_every_vlen():
    unit = default_configs(UNIT)
    assert {(c.sew, c.lmul) for c in unit} == {(c.sew, c.lmul) for c in legal_configs(64, [128])}
    assert {c.vlen for c in unit} == {1 << k for k in range(7, 17)}
    assert max(c.vlmax for c in unit) == 65536
    step = default_configs(INSTRUCTION)
    assert {c.vlen for c in step} == {1 << k for k in range(7, 13)}
    assert len(all_configs(UNIT)) == 220
    assert all(c.vlen <= 4096 for c in all_configs(INSTRUCTION))
    assert len(all_configs(INSTRUCTION)) == len(legal_configs(64, [128, 256, 512, 1024, 2048, 4096]))


def test_methods():
    assert method_for(UNIT, Config(128, 64, 8, "mf4")) == MONOLITHIC
    assert method_for(UNIT, Config(128, 64, 8, "m1")) == SCALE  # cut points are faster there
    assert method_for(INSTRUCTION, Config(128, 64, 64, "m2")) == MONOLITHIC
    assert method_for(INSTRUCTION, Config(128, 64, 64, "m8")) == SCALE
    assert method_for(UNIT, Config(65536, 64, 8, "m8")) == SCALE
    assert method_for(INSTRUCTION, Config(8192, 64, 8, "m1")) is None


# Replay ---------------------------------------------------------------------------------------


def test_replay_ignores_allowed_agnostic_tail_choices():
    """An implementation writing ones into an agnostic tail is not blamed for it."""
    from tests.buggy.instructions import result_broadcast

    pre = make_state(128, 64, "m1", vl=1, vta=True, regs={8: 5 | 7 << 64, 16: 9})
    cx = replay(result_broadcast, TINY, pre, Insn(vd=8, vs2=16, vs1=4), "undisturbed")
    assert cx.differing == ["vd[1]"]  # 9 is neither old (7) nor all ones


def test_replay_compares_outcome_kinds():
    """A trap of the wrong kind (reserved where the spec says illegal) is a difference."""
    from tests.buggy.scale_instructions import vs_off_reported_reserved

    pre = make_state(128, 64, "m1", vl=1, vs="off")
    cx = replay(vs_off_reported_reserved, TINY, pre, Insn(vd=8, vs2=16, vs1=4), "undisturbed")
    assert cx.differing == ["illegal instruction"]
    assert cx.spec["traps"] and cx.other["traps"]


def test_replay_keeps_registers_the_spec_does_not_read():
    """The concrete case of a model keeps every register: here the implementation reads v20."""

    def reads_v20(m, pre, insn, cfg, tail):
        from examples.my_reduction import step

        traps, post = step(m, pre, insn, cfg, tail)
        extra = m.extract(m.read(pre.regs, 20), 0, 0)
        return traps, post.with_(vs=m.ite(m.eq(extra, 1), m.const(0, 2), post.vs))

    check, cx = check_monolithic(reads_v20, TINY, "undisturbed", 20_000)
    assert check.verdict == Verdict.COUNTEREXAMPLE, check.detail
    assert cx.pre.regs[20] & 1 and cx.differing == ["vs"]


def test_model_cases_are_in_the_exec_domain():
    """A model of the proof's assumptions is a state `vredmax exec` accepts (vill => vl = 0)."""
    import z3
    from vredmax.spec import relation as spec

    cfg = Config(128, 64, 8, "m1")
    pre, insn = spec.symbolic_state(cfg), spec.symbolic_insn()
    solver = z3.Solver()
    solver.add(*spec.in_configuration(cfg, pre), z3.Extract(63, 63, pre.vtype) == 1)
    assert solver.check() == z3.sat
    state, _ = model_case(solver.model(), cfg, pre, insn)
    assert state.vl == 0
    solver.add(pre.vl != 0)
    assert solver.check() == z3.unsat


def test_random_cross_check_runs_the_states_and_finds_disagreements():
    from tests.buggy.units import unsigned_compare

    done, cx = random_cross_check(
        as_instruction(load(f"{EXAMPLE}:reduce")), TINY, ["undisturbed", "ones"], 50, 1
    )
    assert done == 50 and cx is None
    done, cx = random_cross_check(as_instruction(unsigned_compare), TINY, ["undisturbed"], 500, 1)
    assert cx is not None and "vd[0]" in cx.differing


# Misbehaving code, in-process -------------------------------------------------------------------


def test_a_truth_test_of_a_symbolic_value_is_taken_both_ways():
    """Not decided by Python (z3 would answer `seed == 0` by the terms' structure: False):
    both ways are explored, so the shortcut taken when the seed is 0 is a counterexample."""

    def reduce(ops, seed, elements, active):
        if seed == ops.const(0):
            return seed
        acc = seed
        for x, a in zip(elements, active):
            acc = ops.ite(a, ops.smax(acc, x), acc)
        return acc

    check, cx = check_monolithic(as_instruction(reduce), TINY, "undisturbed", 10_000)
    assert check.verdict == Verdict.COUNTEREXAMPLE and cx.differing
    assert cx.pre.regs[cx.insn.vs1] & ((1 << 64) - 1) == 0


def test_a_swallowed_refusal_is_still_an_error():
    def reduce(ops, seed, elements, active):
        try:
            lookup = {int(elements[0]): True}  # 2^64 possible keys: refused  # noqa: F841
        except Exception:
            pass
        acc = seed
        for x, a in zip(elements, active):
            acc = ops.ite(a, ops.smax(acc, x), acc)
        return acc

    check, _ = check_monolithic(as_instruction(reduce), TINY, "undisturbed", 10_000)
    assert check.verdict == Verdict.ERROR and "caught inside the implementation" in check.detail


def test_an_instruction_field_truth_test_splits_the_cases():
    def step(m, pre, insn, cfg, tail):
        from examples.my_reduction import step as good

        if insn.vm == 1:
            return good(m, pre, insn, cfg, tail)
        return good(m, pre, insn, cfg, tail)

    check, _ = check_monolithic(step, TINY, "undisturbed", 10_000)
    assert check.verdict == Verdict.PROVED, check.detail


@pytest.mark.parametrize(
    "body, message",
    [
        ("return None", "returned None"),
        ("return seed - 1", "may be outside 0..18446744073709551615"),
        ("return (seed, seed)", "not an element value"),
        ("return active[0]", "returned a condition"),
        ("raise SystemExit(0)", "raised SystemExit"),
        ("raise KeyboardInterrupt", "raised KeyboardInterrupt"),
        ("return hash(elements[0]) & 1", "uses a symbolic value"),
    ],
)
def test_contract_breaches_are_errors_naming_the_function(tmp_path, body, message):
    path = tmp_path / "mine.py"
    path.write_text(f"def reduce(ops, seed, elements, active):\n    {body}\n")
    check, _ = check_monolithic(as_instruction(load(f"{path}:reduce")), TINY, "undisturbed", 10_000)
    assert check.verdict == Verdict.ERROR
    assert "reduce" in check.detail and message in check.detail
    if "raised" in message or "uses" in message:
        assert "mine.py" in check.detail


@pytest.mark.parametrize("body", ["return ops.extract(seed, 3, 0)", "return 5", "return seed & 0xff"])
def test_any_int_in_range_is_an_element_value(tmp_path, body):
    """An element value is an int 0..2^SEW-1, as in the concrete run: a narrower one or a
    Python constant is a (wrong) result, not a breach of the contract."""
    path = tmp_path / "mine.py"
    path.write_text(f"def reduce(ops, seed, elements, active):\n    {body}\n")
    check, cx = check_monolithic(as_instruction(load(f"{path}:reduce")), TINY, "undisturbed", 10_000)
    assert check.verdict == Verdict.COUNTEREXAMPLE and cx.differing


def test_a_step_breaking_the_contract_is_an_error():
    check, _ = check_monolithic(lambda m, pre, insn, cfg, tail: pre, TINY, "undisturbed", 10_000)
    assert check.verdict == Verdict.ERROR and "(traps, post-state)" in check.detail


def test_errors_never_end_in_proved():
    def fails_at_sew8(ops, seed, elements, active):
        if ops.width == 8:
            raise ValueError("not written yet")
        acc = seed
        for x, a in zip(elements, active):
            acc = ops.ite(a, ops.smax(acc, x), acc)
        return acc

    report = check_implementation(
        InProcess(fails_at_sew8, UNIT, random_states=5), UNIT, [TINY, Config(128, 64, 8, "mf8")]
    )
    assert report.verdict == Verdict.ERROR and report.count(Verdict.PROVED) == 1
    assert "1 proved, 0 counterexamples, 0 unknown, 1 errors" in report.summary()


def test_the_smallest_failing_vlen_is_reported():
    """Found at VLEN=256, the bug shows at VLEN=128 with the same SEW and LMUL: reported there."""
    from tests.buggy.units import unsigned_compare

    report = check_implementation(
        InProcess(unsigned_compare, UNIT, random_states=0), UNIT, [Config(256, 64, 64, "m1")]
    )
    assert report.verdict == Verdict.COUNTEREXAMPLE
    assert report.counterexample.cfg == TINY and "smallest VLEN" in report.notes[0]


def test_code_the_cut_cannot_take_apart_gets_the_monolithic_query(monkeypatch):
    from vredmax.proofs.python import check_impl

    unknown = lambda function, level, cfg, tail, timeout_ms: (
        check_impl.Check(cfg, tail, SCALE, Verdict.UNKNOWN, 0.0, "a cone too large"),
        None,
    )
    monkeypatch.setattr(check_impl, "check_at_scale", unknown)
    cfg = Config(128, 64, 8, "mf2")
    result = check_impl.check_config(load(f"{EXAMPLE}:reduce"), UNIT, cfg, random_states=5)
    assert result.verdict == Verdict.PROVED
    assert [(c.tail, c.method) for c in result.checks] == [("undisturbed", MONOLITHIC), ("ones", MONOLITHIC)]
    assert "a cone too large; the monolithic query instead" in result.notes[0]


# The command, with the user's code in child processes -------------------------------------------

FAST = ["--vlen", "128", "--sew", "64", "--lmul", "m1", "--random", "20"]


def test_cli_proved(capsys):
    code, out, err = run(capsys, "check-impl", f"{EXAMPLE}:reduce", *FAST)
    assert code == 0, out + err
    assert "PROVED: the implementation refines the spec at every configuration checked:" in out
    assert "VLEN=128 ELEN=64 SEW=64 LMUL=m1, VLMAX=2: vl 0..2" in out
    assert "directed and 20 random concrete states agree" in out
    assert "Summary: 1 proved, 0 counterexamples, 0 unknown, 0 errors" in out
    assert "Covered: 1 configurations" in out


def test_cli_counterexample_json_validates(capsys):
    import jsonschema
    from vredmax.schema import load_schema

    code, out, _ = run(
        capsys,
        "check-impl",
        "tests/buggy/units.py:unsigned_compare",
        "--json",
        "--vlen",
        "128",
        "--sew",
        "8",
        "--lmul",
        "m1",
    )
    data = json.loads(out)
    jsonschema.validate(data, load_schema("check-impl"))
    assert code == 1 and data["verdict"] == "COUNTEREXAMPLE" and data["level"] == UNIT
    cx = data["counterexample"]
    assert cx["vl"] == 1 and cx["differing"] == ["vd[0]"] and cx["active_lanes"] == 1
    assert cx["implementation"]["vd[0]"]["unsigned"] != cx["spec"]["vd[0]"]["unsigned"]
    from vredmax.impl.case import parse_case
    from vredmax.impl.execute import execute

    pre, insn, tail = parse_case(cx["case"])  # a ready `vredmax exec` case
    assert (
        execute(pre, insn, "sequential", tail).state.regs[insn.vd] & 0xFF == cx["spec"]["vd[0]"]["unsigned"]
    )


def test_cli_counterexample_text(capsys):
    code, out, _ = run(capsys, "check-impl", "tests/buggy/instructions.py:vstart_ignored", *FAST)
    assert code == 1
    assert "traps = yes (vstart=1 is nonzero; a reduction requires vstart = 0)" in out
    assert "Implementation:\n  traps = no    <- differs" in out
    assert "vredmax exec case.json" in out


def test_cli_case_out_writes_a_replayable_case(capsys, tmp_path):
    from vredmax.impl.case import parse_case

    target = tmp_path / "case.json"
    code, out, _ = run(
        capsys, "check-impl", "tests/buggy/units.py:unsigned_compare", *FAST, "--case-out", str(target)
    )
    assert code == 1 and f"vredmax exec {target}" in out
    pre, insn, tail = parse_case(json.loads(target.read_text()))
    assert pre.vlen == 128 and pre.vl >= 1


def _user_file(tmp_path, body: str, name: str = "mine.py") -> str:
    path = tmp_path / name
    path.write_text(
        "import os, sys\n\n"
        "def reduce(ops, seed, elements, active):\n" + "".join(f"    {line}\n" for line in body.split("\n"))
    )
    return f"{path}:reduce"


GOOD = (
    "acc = seed\nfor x, a in zip(elements, active):\n    acc = ops.ite(a, ops.smax(acc, x), acc)\nreturn acc"
)


def test_cli_user_prints_are_captured_apart_from_json(capsys, tmp_path):
    target = _user_file(
        tmp_path, "print('hello from the unit')\nprint('to stderr', file=sys.stderr)\n" + GOOD
    )
    code, out, err = run(capsys, "check-impl", target, "--json", *FAST)
    data = json.loads(out)  # the prints did not corrupt it
    import jsonschema
    from vredmax.schema import load_schema

    jsonschema.validate(data, load_schema("check-impl"))
    assert code == 0 and data["verdict"] == "PROVED" and data["counterexample"] is None
    assert "hello from the unit" in data["configurations"][0]["output"]
    assert "to stderr" in data["configurations"][0]["output"]
    code, out, _ = run(capsys, "check-impl", target, *FAST)
    assert "output of the implementation (at VLEN=128" in out and "  | hello from the unit" in out


@pytest.mark.parametrize(
    "body, message",
    [
        ("sys.exit(0)", "raised SystemExit"),
        ("os._exit(0)", "the process running the implementation ended"),
        ("while True:\n    pass", "did not return within 3 s"),
    ],
)
def test_cli_misbehaving_code_is_an_error(capsys, tmp_path, body, message):
    code, out, err = run(capsys, "check-impl", _user_file(tmp_path, body), "--timeout", "3", *FAST)
    assert code == 4, out + err
    assert message in out and "Summary: 0 proved, 0 counterexamples, 0 unknown, 1 errors" in out
    assert "PROVED:" not in out


SLOW_WHEN_SYMBOLIC = """import sys, time

def _symbolic_run():
    frame = sys._getframe(1)
    while frame is not None:   # the checker explores the paths of a symbolic run only
        if frame.f_code.co_filename.endswith("paths.py") and frame.f_code.co_name == "explore":
            return True
        frame = frame.f_back
    return False

def reduce(ops, seed, elements, active):
    if _symbolic_run():
        time.sleep(6)
""" + "".join(f"    {line}\n" for line in GOOD.split("\n"))


@pytest.mark.check_impl_scale  # 27 s of waiting on a sleeping call: the default run's slowest
def test_cli_a_symbolic_run_beyond_vlmax_8192_gets_more_time(capsys, tmp_path):
    """The run on symbolic values does work per element: at VLMAX 32768 it gets 4 x --timeout
    (a plain-Python unit at VLMAX 65536 took 40-100 s, over the 60 s default, busy or not).
    A concrete call, and any call at VLMAX <= 8192, keeps the plain limit."""
    path = tmp_path / "sleepy.py"
    path.write_text(SLOW_WHEN_SYMBOLIC)
    # a wide margin for the work itself (under load 8 it took over 8 s at VLMAX 32768)
    common = [f"{path}:reduce", "--sew", "8", "--lmul", "m8", "--timeout", "6", "--random", "0", "--no-cache"]
    code, out, err = run(capsys, "check-impl", *common, "--vlen", "32768")
    assert code == 0 and "Summary: 1 proved" in out, out + err
    code, out, err = run(capsys, "check-impl", *common, "--vlen", "8192")
    assert code == 4 and "did not return within 6 s (--timeout)" in out, out + err


def test_cli_a_module_that_exits_while_loading(capsys, tmp_path):
    path = tmp_path / "bye.py"
    path.write_text("import sys\nsys.exit(3)\n")
    code, out, err = run(capsys, "check-impl", f"{path}:reduce", *FAST)
    assert code == 2 and out == "" and "impl: cannot load" in err and "SystemExit" in err
    assert err.count("\n") == 1 and "bye.py:2" in err


@pytest.mark.parametrize(
    "argv, message",
    [
        (["nothing"], "impl: expected MODULE:FUNCTION"),
        ([f"{EXAMPLE}:reduce", "--sew", "12"], "--sew: must be one of 8, 16, 32, 64, got '12'"),
        ([f"{EXAMPLE}:reduce", "--vlen", "100"], "--vlen: must be a power of two"),
        ([f"{EXAMPLE}:reduce", "--sew", "64", "--lmul", "mf8"], "--lmul: no legal configuration matches"),
        (["json:dumps"], "--level: cannot tell the plug-in level"),
        ([f"{EXAMPLE}:reduce", "--timeout", "0"], "--timeout: must be positive"),
        ([f"{EXAMPLE}:reduce", "--random", "-1"], "--random: must be at least 0"),
        ([f"{EXAMPLE}:reduce", "--elen", "16"], "--elen: must be one of 32, 64"),
        ([f"{EXAMPLE}:step", "--vlen", "8192"], "--vlen: a whole instruction is checked up to VLEN=4096"),
    ],
)
def test_cli_usage_errors(capsys, argv, message):
    code, out, err = run(capsys, "check-impl", *argv)
    assert code == 2 and out.startswith("") and "Summary" not in out
    assert err.startswith(f"vredmax: error: {message}") and err.count("\n") == 1


# The truth-test guard ----------------------------------------------------------------------------


def test_the_guard_decides_constants_and_refuses_the_rest():
    import z3
    from vredmax.proofs.engine.truth_guard import SymbolicBranch, no_truth_tests

    x, y = z3.BitVecs("x y", 8)
    with no_truth_tests() as guard:
        assert bool(x == x) and not bool(z3.BitVecVal(1, 8) == 2)
        assert bool(z3.Or(x == y, x != y))  # simplifies to true
        with pytest.raises(SymbolicBranch, match=r"test_check_impl\.py:\d+: .*ops\.ite"):
            bool(x == y)
    assert len(guard.refusals) == 1
    assert bool(x == y) is False  # outside the block z3 is as usual


def test_the_projects_own_proofs_refuse_truth_tests():
    from vredmax.proofs.engine.setting import Setting
    from vredmax.proofs.engine.truth_guard import SymbolicBranch

    def branching(ops, seed, elements, active):
        return seed if active[0] else elements[0]

    with pytest.raises(SymbolicBranch, match="test_check_impl.py"):
        Setting(TINY, "_guarded").implementation_run("sequential/undisturbed", reduce=branching)


@pytest.mark.xdist_group("interrupts")
def test_ctrl_c_stops_at_once_and_leaves_no_worker(tmp_path):
    """SIGINT: exit 130, the partial result marked INTERRUPTED (no Summary), workers gone."""
    import os
    import signal
    import subprocess
    import sys
    import time

    marker = tmp_path / "started"
    path = tmp_path / "slow.py"
    path.write_text(
        "import os, time\n\n"
        "def reduce(ops, seed, elements, active):\n"
        f"    open({str(marker)!r}, 'a').write(str(os.getpid()) + chr(10))\n"
        "    time.sleep(30)\n"
        "    return seed\n"
    )
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "vredmax",
            "check-impl",
            f"{path}:reduce",
            "--jobs",
            "2",
            "--vlen",
            "128",
            "--sew",
            "64",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.time() + 60
    while not (marker.exists() and marker.read_text().count("\n") >= 2) and time.time() < deadline:
        time.sleep(0.2)
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=30)
    assert process.returncode == 130, out + err
    assert "Summary" not in out and "INTERRUPTED" in out
    workers = [int(line) for line in marker.read_text().split()]
    time.sleep(0.5)
    for pid in workers:
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)


def test_a_truth_test_at_scale_is_an_error_not_unknown(tmp_path):
    """Past the monolithic limit too (the cut-point methods run the code on their own backends)."""
    path = tmp_path / "branchy.py"
    path.write_text(
        "def reduce(ops, seed, elements, active):\n"
        "    acc = seed\n"
        "    for x, a in zip(elements, active):\n"
        "        seen = {int(x): a}\n"
        "        acc = ops.ite(a, ops.smax(acc, x), acc)\n"
        "    return acc\n\n"
        "def step(m, pre, insn, cfg, tail):\n"
        "    from vredmax.impl.execute import step as project_step\n"
        "    from vredmax.impl.sequential import reduce_sequential\n"
        "    print(hex(pre.vl))\n"
        "    return project_step(m, pre, insn, cfg, reduce_sequential, tail)\n"
    )
    cfg = Config(1024, 64, 8, "m8")
    for name, level, line in (("reduce", UNIT, 4), ("step", INSTRUCTION, 11)):
        report = check_implementation(InProcess(load(f"{path}:{name}"), level, random_states=0), level, [cfg])
        assert report.verdict == Verdict.ERROR, report.detail
        assert f"uses a symbolic value at {path}:{line}" in report.detail
        # refused when first met, having counted its values: no path run per value
        assert "may take more than 32 values" in report.detail


def test_a_counterexample_does_not_wait_for_the_configurations_still_running(tmp_path):
    """--jobs 2: VLMAX 2 sleeps, VLMAX 4 fails at once; the run ends at the counterexample and
    the child still sleeping is gone."""
    import os
    import subprocess
    import sys
    import time

    marker = tmp_path / "sleeping"
    path = tmp_path / "slow_then_wrong.py"
    path.write_text(
        "import os, time\n\n"
        "def reduce(ops, seed, elements, active):\n"
        "    if len(elements) == 2:\n"
        f"        open({str(marker)!r}, 'a').write(str(os.getpid()) + chr(10))\n"
        "        time.sleep(60)\n"
        "    acc = seed\n"
        "    for x, a in zip(elements, active):\n"
        "        acc = ops.ite(a, ops.smax(acc, x), acc)\n"
        "    if len(elements) == 4:\n"
        f"        while not os.path.exists({str(marker)!r}):   # wrong once the other sleeps\n"
        "            time.sleep(0.1)\n"
        "        acc = ops.ite(active[0], elements[0], acc)\n"
        "    return acc\n"
    )
    start = time.monotonic()
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "vredmax",
            "check-impl",
            f"{path}:reduce",
            "--jobs",
            "2",
            "--vlen",
            "128",
            "--sew",
            "8",
            "--lmul",
            "mf8,mf4",
            "--timeout",
            "120",
        ],
        capture_output=True,
        text=True,
        timeout=100,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert "COUNTEREXAMPLE: VLEN=128 ELEN=64 SEW=8 LMUL=mf4" in done.stdout
    assert time.monotonic() - start < 30
    for pid in [int(line) for line in marker.read_text().split()]:
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)


def test_cli_a_module_name_of_the_working_directory(capsys):
    """The child that runs the user's code finds packages of the caller's working directory."""
    code, out, err = run(capsys, "check-impl", "examples.my_reduction:reduce", *FAST, "--jobs", "1")
    assert code == 0, out + err
    assert "Summary: 1 proved, 0 counterexamples, 0 unknown, 0 errors" in out


# Code whose concrete path is not its symbolic path (tests/buggy/divergent.py) -------------------------


def test_a_unit_that_asks_isinstance_takes_its_concrete_path_while_proving():
    """isinstance(x, int) is True of a symbolic int as of a concrete one: the proof itself
    (without random states) sees the shortcut the concrete run takes."""
    from tests.buggy.divergent import isinstance_shortcut

    report = check_implementation(
        InProcess(isinstance_shortcut, UNIT, random_states=0), UNIT, [Config(1024, 64, 8, "m8")]
    )
    assert report.verdict == Verdict.COUNTEREXAMPLE, report.detail
    cx = report.counterexample
    assert cx.differing and "random" not in report.detail
    assert replay(as_instruction(isinstance_shortcut), cx.cfg, cx.pre, cx.insn, cx.tail).differing


def test_a_caught_truth_test_at_cut_points_is_an_error_naming_the_line():
    """Wrong on ints: the concrete states show it; without them the proof refuses the line."""
    report = check_implementation(
        InProcess(caught_truth_test, UNIT, random_states=20), UNIT, [Config(1024, 64, 8, "m8")]
    )
    assert report.verdict == Verdict.COUNTEREXAMPLE and report.results[0].method == "concrete"
    report = check_implementation(
        InProcess(caught_truth_test, UNIT, random_states=0, directed=False), UNIT, [Config(1024, 64, 8, "m8")]
    )
    assert report.verdict == Verdict.ERROR
    assert "caught inside the implementation" in report.detail and "divergent.py:" in report.detail


def test_a_function_of_the_wrong_arity_is_an_error_saying_so(capsys):
    code, out, err = run(capsys, "check-impl", f"{EXAMPLE}:reduce", "--level", "instruction", *FAST)
    assert code == 4 and "cannot be called with the 5 arguments of its plug-in level" in out
    assert "check_impl.py" not in out


@pytest.mark.parametrize(
    "argv, message",
    [
        ([f"{EXAMPLE}:reduce", "--timeout", "inf"], "--timeout: must be positive and at most"),
        ([f"{EXAMPLE}:reduce:extra"], "impl: expected MODULE:FUNCTION with one ':'"),
    ],
)
def test_cli_more_usage_errors(capsys, argv, message):
    code, out, err = run(capsys, "check-impl", *argv)
    assert code == 2 and "Traceback" not in out + err
    assert err.startswith(f"vredmax: error: {message}") and err.count("\n") == 1


def test_a_syntax_error_names_the_file_not_importlib(tmp_path):
    path = tmp_path / "broken.py"
    path.write_text("def reduce(ops, seed, elements, active)\n    return seed\n")
    with pytest.raises(LoadError) as error:
        load(f"{path}:reduce")
    assert "SyntaxError" in str(error.value) and "broken.py, line 1" in str(error.value)
    assert "frozen" not in str(error.value)
