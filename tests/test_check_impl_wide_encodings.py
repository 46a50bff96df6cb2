"""A value kept wider than an element, unsigned: its raw bits zero-extended in a Python int,
perhaps xor a constant (proofs/python/cutshape.py, the ("zext", W, c) encoding).

In the raw domain an inactive element is blended with the raw bits of the signed minimum,
`x * on + TOP * (1 - on)`: a 9-bit value for SEW=8, the zero extension of `If(on, x, smin)`,
and `heapq.nlargest(1, vals, key=lambda v: v ^ TOP)` keeps the running key `v ^ TOP`, the zero
extension of the join with its sign bit flipped. Only sign-extended wide values were tried:
every such node was inlined into its parents until a cone passed 48 operations (UNKNOWN, "the
values it depends on are no guarded maxima for more than 48 operations").
"""

import pytest

from vredmax.proofs.engine.verdict import Verdict
from vredmax.proofs.python.check_impl import INSTRUCTION, check_at_scale, load
from vredmax.spec.config import Config
from tests.generated.python_programs import Program, write_source

RAW_HEAPQ_BLEND = {
    "kind": INSTRUCTION,
    "domain": "raw",
    "greater": "hilo",
    "shape": "heapq",
    "inactive": "mul",
    "pick": "ternary",
    "heapq": "nlargest",
    "seed": "last",
    "regfile": "bytes",
    "maskreg": "bools",
    "bound": "cond",
    "traps": "loop",
    "write": "int",
    "store": "bytearray",
}
CFG = Config(128, 64, 8, "m1")  # VLMAX 16


def _checked(tmp_path, recipe, mutation, tail):
    program = Program(
        INSTRUCTION, mutation or "right", recipe, CFG, mutation, write_source(recipe, CFG, mutation)
    )
    program.write(str(tmp_path))
    return check_at_scale(load(program.target), INSTRUCTION, CFG, tail, 60_000)


@pytest.mark.parametrize("greater", ["hilo", "signbits", "via_signed"])
def test_a_raw_domain_blend_with_a_keyed_heap_is_proved_by_the_cut(tmp_path, greater):
    check, _ = _checked(tmp_path, dict(RAW_HEAPQ_BLEND, greater=greater), None, "ones")
    assert check.verdict == Verdict.PROVED, check.detail


@pytest.mark.parametrize("mutation", ["unsigned", "lane_width", "neutral_zero", "mask_inverted", "min"])
def test_its_wrong_twins_are_caught(tmp_path, mutation):
    check, cx = _checked(tmp_path, RAW_HEAPQ_BLEND, mutation, "ones")
    assert check.verdict == Verdict.COUNTEREXAMPLE, check.detail
    assert cx is not None and cx.differing
