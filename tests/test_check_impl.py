"""`vredmax check-impl`: loading MODULE:FUNCTION, the two plug-in levels, exit codes, output."""

import json

import pytest

from vredmax.proofs.check_impl import (INSTRUCTION, UNIT, LoadError, as_instruction, check_implementation,
                               check_monolithic, detect_level, load, replay)
from vredmax.proofs.verdict import Verdict
from vredmax.spec.config import Config
from vredmax.spec.encoding import Insn
from tests.strategies import make_state
from vredmax.cli import main

EXAMPLE = "examples/my_reduction.py"
TINY = Config(128, 64, 64, "m1")


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_load_by_path_and_by_module_name():
    assert load(f"{EXAMPLE}:reduce").__name__ == "reduce"
    assert load("vredmax.impl.tree:reduce_tree").__name__ == "reduce_tree"


@pytest.mark.parametrize("target, message", [
    ("examples/my_reduction.py", "expected MODULE:FUNCTION"),
    ("no/such/file.py:f", "no such file: no/such/file.py"),
    (f"{EXAMPLE}:nothing", "has no function 'nothing'"),
    ("no_such_module_here:f", "cannot load no_such_module_here: ModuleNotFoundError"),
])
def test_load_errors(target, message):
    with pytest.raises(LoadError, match=message):
        load(target)


def test_a_module_that_fails_to_import(tmp_path):
    path = tmp_path / "broken.py"
    path.write_text("raise RuntimeError('boom')\n")
    with pytest.raises(LoadError, match="RuntimeError: boom"):
        load(f"{path}:f")


def test_detect_level():
    assert detect_level(load(f"{EXAMPLE}:reduce")) == UNIT
    assert detect_level(load(f"{EXAMPLE}:step")) == INSTRUCTION
    assert detect_level(lambda a, b: a) is None


def test_unit_level_is_the_instruction_level_around_step():
    unit = load(f"{EXAMPLE}:reduce")
    pre = make_state(128, 8, "m1", vl=4, regs={4: 0xfe, 12: 0x03028001})
    from vredmax.spec.bv import Concrete
    _, post = as_instruction(unit)(Concrete, pre, Insn(vd=8, vs2=12, vs1=4), Config(128, 64, 8, "m1"), "undisturbed")
    assert post.regs[8] & 0xff == 3   # the seed's worked example


def test_the_example_is_proved_at_both_levels():
    for name, level in (("reduce", UNIT), ("step", INSTRUCTION)):
        report = check_implementation(load(f"{EXAMPLE}:{name}"), level, (TINY, Config(128, 64, 8, "mf2")))
        assert report.verdict == Verdict.PROVED, report.detail


def test_an_implementation_that_raises_is_an_error():
    def reduce(ops, seed, elements, active):
        if active[0]:          # a Python `if` on a Z3 Boolean
            return seed
        return seed
    check, cx = check_monolithic(as_instruction(reduce), TINY, "undisturbed", 10_000)
    assert check.verdict == Verdict.ERROR and "raised Z3Exception" in check.detail and cx is None


def test_an_implementation_breaking_the_contract_is_an_error():
    check, _ = check_monolithic(lambda m, pre, insn, cfg, tail: pre, TINY, "undisturbed", 10_000)
    assert check.verdict == Verdict.ERROR and "(traps, post-state)" in check.detail


def test_replay_ignores_allowed_agnostic_tail_choices():
    """An implementation writing ones into an agnostic tail is not blamed for it."""
    from tests.buggy.instructions import result_broadcast
    pre = make_state(128, 64, "m1", vl=1, vta=True, regs={8: 5 | 7 << 64, 16: 9})
    cx = replay(lambda m, p, i, c, t: result_broadcast(m, p, i, c, t), TINY, pre,
                Insn(vd=8, vs2=16, vs1=4), "undisturbed")
    assert cx.differing == ["vd[1]"]   # 9 is neither old (7) nor all ones


def test_cli_proved(capsys):
    code, out, err = run(capsys, "check-impl", f"{EXAMPLE}:reduce", "--sew", "64", "--lmul", "m1")
    assert code == 0, out + err
    assert "PROVED: the implementation refines the spec, within these bounds:" in out
    assert "VLEN=128 ELEN=64 SEW=64 LMUL=m1, VLMAX=2: vl 0..2" in out


def test_cli_counterexample_json(capsys):
    code, out, _ = run(capsys, "check-impl", "tests/buggy/units.py:unsigned_compare", "--json",
                       "--sew", "8", "--lmul", "m1")
    data = json.loads(out)
    assert code == 1 and data["verdict"] == "COUNTEREXAMPLE" and data["level"] == UNIT
    cx = data["counterexample"]
    assert cx["vl"] == 1 and cx["differing"] == ["vd[0]"]
    assert cx["implementation"]["vd[0]"]["unsigned"] != cx["spec"]["vd[0]"]["unsigned"]


def test_cli_counterexample_text(capsys):
    code, out, _ = run(capsys, "check-impl", "tests/buggy/instructions.py:vstart_ignored")
    assert code == 1
    assert "traps = yes (vstart=1 is nonzero; a reduction requires vstart = 0)" in out
    assert "Implementation:\n  traps = no    <- differs" in out


@pytest.mark.parametrize("argv, message", [
    (["nothing"], "impl: expected MODULE:FUNCTION"),
    ([f"{EXAMPLE}:reduce", "--sew", "12"], "sew: must be one of 8, 16, 32, 64, got 12"),
    ([f"{EXAMPLE}:reduce", "--vlen", "100"], "vlen: must be a power of two"),
    ([f"{EXAMPLE}:reduce", "--sew", "64", "--lmul", "mf8"], "vlen: no legal configuration matches"),
    (["json:dumps"], "level: cannot tell the plug-in level"),
    ([f"{EXAMPLE}:reduce", "--timeout", "0"], "timeout: must be positive"),
])
def test_cli_usage_errors(capsys, argv, message):
    code, out, err = run(capsys, "check-impl", *argv)
    assert code == 2 and out == ""
    assert err.startswith(f"vredmax: error: {message}") and err.count("\n") == 1
