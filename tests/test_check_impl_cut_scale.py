"""The cut-point method on plain-Python emulator styles at large VLMAX (proofs/python/cutpoint.py,
cutstep.py, branches.py's dict reads), with the proof alone (`--random 0`, no directed states).

A register file kept in a dict and read at `vs2 + k` was a 31-way choice per element (the key's
bounds pass 31, so the dict was not seen to be the register file): UNKNOWN from VLMAX 32, and
at VLMAX 1024 the cone build recursed past Python's limit (ERROR: RecursionError). The slow
ones: -m check_impl_scale.
"""

import pytest

from vredmax.proofs.engine.verdict import Verdict
from vredmax.proofs.python import cutpoint as cp
from vredmax.proofs.python.check_impl import (
    INSTRUCTION,
    MONOLITHIC,
    UNIT,
    InProcess,
    check_implementation,
    load,
)
from vredmax.proofs.python.trace import Tracer
from vredmax.spec.config import Config

EMULATORS = "tests/buggy/emulators.py"
MORE = "tests/buggy/emulators_more.py"
GROUP = Config(128, 64, 8, "m2")  # VLMAX 32: element 16 on is in register vs2 + 1
VLMAX_1024 = Config(1024, 64, 8, "m8")


def _check(target, level, cfg):
    report = check_implementation(
        InProcess(load(target), level, random_states=0, directed=False), level, [cfg]
    )
    return report, report.results[0].checks


def test_a_dict_register_file_read_at_vs2_plus_k_is_cut():
    """tests/buggy/emulators.py's step_register_dict (`vrf[insn.vs2 + i // per]`); before:
    UNKNOWN, "ops.extract ...: a 9-bit input is used where only element values and conditions
    are understood"."""
    report, checks = _check(f"{EMULATORS}:step_register_dict", INSTRUCTION, GROUP)
    assert report.verdict == Verdict.PROVED, report.detail
    assert all(c.method != MONOLITHIC for c in checks)


def test_a_dict_read_at_the_wrong_group_register_is_still_refuted():
    """The array read at the key is the dict's value there: a wrong key stays wrong."""
    report, _ = _check(f"{MORE}:step_dict_group_in_2_bits", INSTRUCTION, Config(128, 64, 8, "m8"))
    assert report.verdict == Verdict.COUNTEREXAMPLE, report.detail


def test_a_dict_that_is_no_copy_of_the_register_file_is_read_by_choosing():
    """vd cleared in the dict first: no longer pre.regs[0..31], so a read at vs2 + k chooses
    among the dict's values (the cleared one included), and the bug shows."""
    report, _ = _check(f"{MORE}:step_dict_vd_cleared_first", INSTRUCTION, GROUP)
    assert report.verdict == Verdict.COUNTEREXAMPLE, report.detail


def test_a_deep_chain_that_is_no_maximum_builds_its_cone_without_recursion():
    """A chain of thousands of operations none of which is a maximum (a sum): its cone is
    refused as too large, not a RecursionError (the build used to recurse per node)."""
    tracer = Tracer(8, 3000)
    node = tracer.seed
    for element in tracer.elements:
        node = tracer.make("add", (node, element), None, 8)
    denoter = cp.Denoter(8, [], 1000)
    for leaf in [tracer.seed] + tracer.elements:
        denoter.den[id(leaf)] = denoter.denote(leaf, False)
    with pytest.raises(cp.ConeTooLarge, match="no guarded maxima for more than"):
        denoter.cone(node)


def test_the_cone_numbering_is_depth_first_left_to_right():
    """The shape key (which proofs are shared under) numbers steps and cut points as a
    depth-first walk, arguments left to right."""
    tracer = Tracer(8, 2)
    a, b = tracer.elements
    flag = tracer.flags[0]
    low = tracer.make("sgt", (a, b), None, 0)
    chosen = tracer.make("ite", (low, a, b), None, 8)
    top = tracer.make("ite", (flag, chosen, tracer.seed), None, 8)
    denoter = cp.Denoter(8, [], 1000)
    for leaf in (a, b, tracer.seed):
        denoter.den[id(leaf)] = denoter.denote(leaf, False)
    cone = denoter.cone(top)
    assert cone.key == (
        8,
        (
            ("sgt", None, 0, (("x", 0, 0), ("x", 1, 0))),
            ("ite", None, 8, (("n", 0), ("x", 0, 0), ("x", 1, 0))),
            ("ite", None, 8, (("b", 0), ("n", 1), ("x", 2, 0))),
        ),
        3,
        1,
    )
    assert cone.xs == [a, b, tracer.seed] and cone.bs == [flag]


def test_offset_binary_compare_is_a_signed_max_at_vlmax_1024():
    """`(x ^ top) > best` with best kept flipped: the xor-encoded shape, proved by the solver
    once per shape (cutshape.shape_of), at VLMAX 1024."""
    report, checks = _check(f"{MORE}:offset_binary", UNIT, VLMAX_1024)
    assert report.verdict == Verdict.PROVED, report.detail
    assert all(c.method != MONOLITHIC for c in checks)


@pytest.mark.check_impl_scale
@pytest.mark.parametrize("target", [f"{EMULATORS}:step_register_dict", f"{MORE}:step_dict_of_registers"])
def test_a_dict_register_file_at_vlmax_1024(target):
    """Before: ERROR "the cut-point method failed: RecursionError" (about 50 s now)."""
    report, checks = _check(target, INSTRUCTION, VLMAX_1024)
    assert report.verdict == Verdict.PROVED, report.detail
    assert all(c.method != MONOLITHIC for c in checks)


def test_an_op_the_cut_machine_lacks_is_the_checkers_error():
    """cutstep.CutMachine passes ops on to its base through `__getattr__`; only the checker holds
    it, so a missing op is an InternalError (an ERROR of check-impl), not an AttributeError that
    branches.internal_bug would take for the user's (a proxy's `__getattr__`) and that the user's
    `except AttributeError` could catch. Python's own probes still get AttributeError."""
    from vredmax.proofs.python.branches import InternalError
    from vredmax.proofs.python.cutstep import CutMachine
    from vredmax.spec import z3fast

    machine = CutMachine(z3fast.FastSymbolic, 8)
    with pytest.raises(InternalError, match="no op 'no_such_op'") as raised:
        machine.no_such_op
    assert not isinstance(raised.value, AttributeError)
    assert not hasattr(machine, "__deepcopy__")
    assert callable(machine.bit)


STEP_CATCHING = '''
from vredmax.spec.config import VTYPE_VILL_BIT
from vredmax.spec.legality import trap_conditions
from vredmax.spec.state import VS_DIRTY


def step(m, pre, insn, cfg, tail):
    """Correct, except that an AttributeError while writing vd leaves vd as it was."""
    traps = trap_conditions(m, pre, insn, m.bit(pre.vtype, VTYPE_VILL_BIT), cfg.lmul)
    if pre.vl == 0 or any(c for _, c in traps):
        return traps, pre
    sew, per, mask = cfg.sew, cfg.vlen // cfg.sew, (1 << cfg.sew) - 1
    regs = list(pre.regs)

    def signed(x):
        return x - (1 << sew) if x >> (sew - 1) else x
    acc = signed(regs[insn.vs1] & mask)
    for i in range(cfg.vlmax):
        if i < pre.vl and (insn.vm or regs[0] >> i & 1):
            acc = max(acc, signed(regs[insn.vs2 + i // per] >> (sew * (i % per)) & mask))
    try:
        regs[insn.vd] = regs[insn.vd] & ~mask | acc & mask
    except AttributeError:
        pass
    return traps, pre.with_(regs=tuple(regs), vstart=0, vs=VS_DIRTY)
'''


@pytest.mark.parametrize("target", ["emulators", "catching"])
def test_a_checker_bug_in_the_cut_machine_is_an_error_of_the_checker(target, tmp_path, monkeypatch):
    """The checker made to ask its cut machine for an op it lacks while the step runs (at the
    cut of vd's new value): ERROR naming check-impl's own code, also when the user's code
    catches AttributeError there (before: 'raised AttributeError', or swallowed by the user)."""
    from vredmax.proofs.python import cutstep

    monkeypatch.setattr(cutstep.CutMachine, "_cut", lambda self, value: self.no_such_op(value))
    if target == "catching":
        path = tmp_path / "catching.py"
        path.write_text(STEP_CATCHING)
        target = f"{path}:step"
    else:
        target = f"{EMULATORS}:step_plain"
    report, checks = _check(target, INSTRUCTION, Config(128, 64, 8, "m1"))
    assert report.verdict == Verdict.ERROR, report.detail
    assert all("check-impl's own code failed" in c.detail for c in checks), [c.detail for c in checks]
    assert not any("raised InternalError" in c.detail for c in checks), [
        c.detail for c in checks
    ]  # not the user's
