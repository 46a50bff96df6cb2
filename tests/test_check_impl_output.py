"""check-impl's text: one witness per counterexample (the replayable, minimised one; the cut-point
method's local case is a field of its own, shown only without one) and each error once."""

from __future__ import annotations

from vredmax.cli.main import main

FAST = [
    "--vlen",
    "128",
    "--sew",
    "8",
    "--random",
    "0",
]  # and --lmul: m1 (VLMAX=16) takes the cut points first

# Wrong only when vs2[7] is 0x35 (and above the running max): the directed states miss it, the
# cut-point analysis finds the node that is no max (with values of its own), the monolithic
# query the counterexample that is shown
RARE_BUG = """
def reduce(ops, seed, elements, active):
    acc = seed
    for i, (e, a) in enumerate(zip(elements, active)):
        v = ops.smax(acc, e)
        if i == 7:
            v = ops.ite(ops.eq(e, ops.const(0x35)), acc, v)
        acc = ops.ite(a, v, acc)
    return acc
"""

RAISES = """
def reduce(ops, seed, elements, active):
    acc = seed
    for e, a in zip(elements, active):
        acc = ops.ite(a, ops.smax(acc, e), acc)
    raise ValueError("this unit always " + "fails at the end")   # (the traceback quotes this line)
"""


def _run(capsys, tmp_path, source: str, lmul: str = "m1"):
    path = tmp_path / "unit.py"
    path.write_text(source)
    code = main(["check-impl", f"{path}:reduce", *FAST, "--lmul", lmul])
    return code, capsys.readouterr().out


def test_a_counterexample_shows_one_witness(capsys, tmp_path):
    code, out = _run(capsys, tmp_path, RARE_BUG)
    assert code == 1
    assert out.count("Counterexample (") == 1 and "lane  vs2[i]" in out
    assert "it gives" not in out and "no signed max of a choice" not in out  # the cut point's own values
    assert "vs2[7] = 53" not in out
    assert "7  0x35" in out  # the witness shown: the minimised one, in the lane table


def test_an_error_is_printed_once(capsys, tmp_path):
    code, out = _run(capsys, tmp_path, RAISES, "mf2")
    assert code == 4
    assert out.count("this unit always fails at the end") == 1, out
    assert "above)" in out.splitlines()[-3]  # the verdict's line points at the configuration's


def _unit(source: str):
    namespace: dict = {}
    exec(compile(source, "<unit>", "exec"), namespace)
    return namespace["reduce"]


def test_the_cut_keeps_its_local_witness_in_a_field_of_its_own():
    from vredmax.proofs.python.cutpoint import prove_unit_at_scale
    from vredmax.spec.config import Config

    result = prove_unit_at_scale(_unit(RARE_BUG), Config(128, 64, 8, "m1"), 20_000)
    assert result.witness.startswith("with ") and "it gives" in result.witness
    assert "it gives" not in result.detail and "is not a signed max of its inputs" in result.detail


def test_the_presentation_shows_the_witness_only_without_a_counterexample():
    from vredmax.presentation.check_impl import result_line
    from vredmax.proofs.engine.verdict import Verdict
    from vredmax.proofs.python.check_impl import Check, ConfigResult
    from vredmax.spec.config import Config

    cfg = Config(128, 64, 8, "m1")
    local = "with vs2[7] = 53, the seed = 0 it gives 0, which is no signed max of a choice of them"
    result = ConfigResult(
        cfg,
        "cut points",
        [
            Check(
                cfg,
                "any",
                "cut points",
                Verdict.UNKNOWN,
                1.0,
                "ops.ite at x.py:3 is not a signed max of its inputs",
                "",
                local,
            )
        ],
    )
    result.cut_witness = local
    assert result_line(result).count(local) == 2  # the check's and the replaced attempt's
    result.counterexample = object()  # a replayable counterexample is shown instead
    assert local not in result_line(result)
