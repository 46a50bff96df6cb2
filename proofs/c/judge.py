"""Judging what the compiled code did on one concrete case, as a Counterexample (data).

The judging itself is check-impl's too (proofs/engine/judging.py); here the spec's tail
policy is the one the code's vd matches best, and a case with undefined behaviour (or a
crash) is a counterexample of its own. An empty counterexample means the case is allowed.
"""

from __future__ import annotations

from vredmax.proofs.engine.counterexample import Counterexample
from vredmax.proofs.engine.judging import LABEL, judge_step
from vredmax.spec.config import VTYPE_VTA_BIT, Config
from vredmax.spec.encoding import Insn
from vredmax.spec.legality import RETIRED
from vredmax.spec.state import ArchState


def tail_of(cfg: Config, pre: ArchState, insn: Insn, post: ArchState) -> str:
    """The executable spec's tail policy closest to what the code wrote in vd."""
    if pre.vtype >> VTYPE_VTA_BIT & 1 and cfg.vlen > cfg.sew:
        tail = post.regs[insn.vd] >> cfg.sew
        if tail == (1 << (cfg.vlen - cfg.sew)) - 1:
            return "ones"
    return "undisturbed"


def judged(cfg: Config, pre: ArchState, insn: Insn, kind: str, post: ArchState, notes=()) -> Counterexample:
    tail = tail_of(cfg, pre, insn, post) if kind == RETIRED else "undisturbed"
    return judge_step(cfg, pre, insn, tail, kind, post, notes)


def undefined(
    cfg: Config,
    pre: ArchState,
    insn: Insn,
    kind: str | None,
    post: ArchState | None,
    what: str,
    report: list[str],
) -> Counterexample:
    """A case on which the code has undefined behaviour (or crashed): whatever it computed
    here, another compiler or flag may make it compute anything."""
    base = (
        judged(cfg, pre, insn, kind, post)
        if kind is not None
        else Counterexample(cfg, pre, insn, "undisturbed", {}, {}, LABEL)
    )
    spec_values = {"well-defined C": True, **base.spec}
    impl_values = {"well-defined C": False, **base.other}
    notes = [what] + [f"  {line}" for line in report] + base.notes
    return Counterexample(
        cfg,
        pre,
        insn,
        base.tail,
        spec_values,
        impl_values,
        LABEL,
        base.spec_reason,
        notes,
        {**base.widths, "well-defined C": 1},
    )
