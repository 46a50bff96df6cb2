"""A whole step's symbolic run stays linear in VLMAX, and a result written next to constant
bytes is cut as the result (generated steps, tests/generated/python_programs.py).

- a loop that asks a question of its running value at every round (`if best == LARGEST:
  break`) had each round's term turned into Z3 from scratch: quadratic in VLMAX (a step at
  VLMAX 1024 did not return within the time limit); the Z3 values of the trace's nodes are now
  kept for the run (proofs/python/trace.py: evaluate's memo);
- a register file of bytes read one element at a time took the register apart into its VLENB
  bytes at every read (VLMAX x VLENB); a register's bytes are now kept per register term
  (proofs/python/symbytes.py: _read_as_bytes);
- vd's bytes written as the result's bytes then an agnostic tail of 0xff bytes made the result
  part of a register-wide traced value (cut whole, the reduction lost in it): UNKNOWN, "the
  instruction with the reduction's result as a free r does not meet the spec"
  (proofs/python/symbytes.py: _value_of).
"""

import pytest

from vredmax.proofs.engine.verdict import Verdict
from vredmax.proofs.python import symbytes, trace
from vredmax.proofs.python.check_impl import INSTRUCTION, check_at_scale, load
from vredmax.spec.config import Config
from tests.generated.python_programs import Program, write_source

EARLY_BREAK = {
    "kind": INSTRUCTION,
    "domain": "signed",
    "conv": "struct",
    "neutral": "power",
    "back": "add",
    "shape": "loop",
    "inactive": "neutral",
    "pick": "max",
    "order": "backward",
    "early": "break",
    "seed": "init",
    "regfile": "bytearray",
    "maskreg": "bools",
    "bound": "cond",
    "traps": "loop",
    "write": "int",
    "store": "bytes",
    "read": "whole",
    "signed_read": True,
}
BYTES_TAIL_OF_ONES = {
    "kind": INSTRUCTION,
    "domain": "signed",
    "conv": "struct",
    "neutral": "power",
    "back": "add",
    "shape": "heapq",
    "inactive": "mul",
    "pick": "ternary",
    "heapq": "nlargest",
    "seed": "last",
    "regfile": "struct",
    "maskreg": "bools",
    "bound": "cond",
    "traps": "any",
    "write": "bytes",
    "store": "bytes",
    "signed_read": True,
}


def _written(tmp_path, recipe: dict, cfg: Config, mutation=None, name="g"):
    program = Program(INSTRUCTION, name, recipe, cfg, mutation, write_source(recipe, cfg, mutation))
    program.write(str(tmp_path))
    return load(program.target)


def _counted(monkeypatch, module, name):
    calls = [0]
    real = getattr(module, name)

    def counting(*args, **kwargs):
        calls[0] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, counting)
    return calls


def _calls_at_two_vlens(tmp_path, monkeypatch, module, name, run, prefix):
    """The calls of module.name that `run(step, cfg)` makes on EARLY_BREAK at VLEN 128 and 256
    (SEW=16 m4): a run linear in VLMAX makes twice the calls, at most, at the larger."""
    counts = []
    for vlen in (128, 256):
        cfg = Config(vlen, 64, 16, "m4")
        step = _written(tmp_path, EARLY_BREAK, cfg, name=f"{prefix}{vlen}")
        calls = _counted(monkeypatch, module, name)
        run(step, cfg)
        monkeypatch.undo()
        counts.append(calls[0])
    return counts


def _proved(step, cfg: Config):
    check, _ = check_at_scale(step, INSTRUCTION, cfg, "undisturbed", 60_000)
    assert check.verdict == Verdict.PROVED, check.detail


def test_a_loop_that_breaks_on_its_running_value_is_evaluated_once_per_node(tmp_path, monkeypatch):
    """The Z3 operations made to answer the loop's questions grow linearly with VLMAX (they
    grew quadratically: each round's question re-made the whole running maximum)."""
    counts = _calls_at_two_vlens(tmp_path, monkeypatch, trace, "apply_op", _proved, "brk")
    assert counts[1] < 2.6 * counts[0], counts


def test_a_register_of_bytes_is_taken_apart_once_per_register(tmp_path, monkeypatch):
    """Reading VLMAX elements out of bytes registers converts each register to bytes a bounded
    number of times, whatever VLMAX (it was once per element read)."""
    counts = _calls_at_two_vlens(tmp_path, monkeypatch, symbytes, "_bytes_of", _proved, "rd")
    assert counts[1] <= counts[0] + 8, counts


@pytest.mark.parametrize("tail", ["ones", "undisturbed"])
def test_a_result_written_as_bytes_before_a_tail_of_ones_is_cut_as_the_result(tmp_path, tail):
    cfg = Config(256, 64, 16, "m4")
    check, _ = check_at_scale(_written(tmp_path, BYTES_TAIL_OF_ONES, cfg), INSTRUCTION, cfg, tail, 60_000)
    assert check.verdict == Verdict.PROVED, check.detail


@pytest.mark.parametrize("mutation", ["tail_ignores_vta", "vl_inclusive"])
def test_its_wrong_twins_are_caught(tmp_path, mutation):
    cfg = Config(256, 64, 16, "m4")
    step = _written(tmp_path, BYTES_TAIL_OF_ONES, cfg, mutation, name=mutation)
    check, cx = check_at_scale(step, INSTRUCTION, cfg, "ones", 60_000)
    assert check.verdict == Verdict.COUNTEREXAMPLE, check.detail
    assert cx is not None and cx.differing


def _run(step, cfg: Config):
    from vredmax.proofs.python.check_impl import run_instruction
    from vredmax.proofs.python.cutstep import CutMachine
    from vredmax.spec import relation as spec
    from vredmax.spec import z3fast as fast

    pre, insn = spec.symbolic_state(cfg, "_cut"), spec.symbolic_insn("_cut")
    return run_instruction(step, CutMachine(fast.FastSymbolic, cfg.sew), pre, insn, cfg, "ones")


def test_a_bytearray_register_read_compares_its_register_number_once(tmp_path, monkeypatch):
    """Reading an element out of a list of bytearrays at `vs2 + i // PER` chose among the 32
    registers with 32 comparisons at every read; now once per register number term."""
    from vredmax.proofs.python import values

    counts = _calls_at_two_vlens(tmp_path, monkeypatch, values.SymInt, "__eq__", _run, "eq")
    extra = Config(256, 64, 16, "m4").vlmax // 2  # the elements the bigger configuration has more
    assert counts[1] - counts[0] < 16 * extra, counts


def test_a_blend_mask_term_is_taken_apart_once_on_every_path(tmp_path, monkeypatch):
    """A step explored on several paths (a trap's return inside a loop) is run again per path,
    on the same Z3 terms: each blend's mask is worked out as a choice of constants once."""
    from vredmax.proofs.python import conditionvalues

    recipe = dict(EARLY_BREAK, inactive="mul", early="none")
    cfg = Config(128, 64, 16, "m4")
    asked = []
    real = conditionvalues._conditions
    monkeypatch.setattr(
        conditionvalues, "_conditions", lambda term: asked.append(term.get_id()) or real(term)
    )
    _run(_written(tmp_path, recipe, cfg, name="blend"), cfg)
    assert asked and len(asked) == len(set(asked))
