"""The check the emulator-style case files share (tests/buggy/emulators_more.py, emulators_bytes.py):
a case's verdict from the proof alone (`--random 0`, no directed states) at one configuration.
A PROVED at a cut-point configuration is the cut's own (no monolithic fallback); a
COUNTEREXAMPLE shows its differing fields again when replayed. Returns the report."""

from vredmax.proofs.engine.verdict import Verdict
from vredmax.proofs.python.check_impl import (
    MONOLITHIC,
    SCALE,
    UNIT,
    InProcess,
    as_instruction,
    check_implementation,
    load,
    method_for,
    replay,
)

VERDICTS = {"proved": Verdict.PROVED, "counterexample": Verdict.COUNTEREXAMPLE, "error": Verdict.ERROR}


def cases(module):
    """(level, function, configuration) of each case of a case file."""
    from vredmax.proofs.python.check_impl import INSTRUCTION

    return [(UNIT, f, cfg) for f in module.UNITS for cfg in f.where] + [
        (INSTRUCTION, f, cfg) for f in module.STEPS for cfg in f.where
    ]


def case_id(case) -> str:
    _, function, cfg = case
    return f"{function.__name__}-VLMAX{cfg.vlmax}"


def check_proof_alone(file: str, level, function, cfg):
    target = load(f"{file}:{function.__name__}")
    report = check_implementation(InProcess(target, level, random_states=0, directed=False), level, [cfg])
    assert report.verdict == VERDICTS[function.expect], report.detail
    if report.verdict == Verdict.PROVED and method_for(level, cfg) == SCALE:  # by the cut, no fallback
        assert all(c.method != MONOLITHIC for c in report.results[0].checks), report.results[0].notes
    if report.verdict == Verdict.COUNTEREXAMPLE:
        cx = report.counterexample
        assert cx.differing
        instruction = as_instruction(target) if level == UNIT else target
        assert replay(instruction, cx.cfg, cx.pre, cx.insn, cx.tail).differing == cx.differing  # shown again
    return report
