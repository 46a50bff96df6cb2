"""Judging what an implementation did on one concrete case, as a Counterexample (data).

check-impl (a Python implementation, proofs/python/check_impl.py `replay`) and check-c (the
compiled C code, proofs/c/judge.py) both run the code on a case and hand its outcome kind and
post-state here. The architecture's decision procedure (spec/profiles.py, profile "any") says
whether they are allowed: the outcome by kind, the agnostic tail, a reserved encoding's
anything, VS turning Dirty. When they are not, the counterexample lists the values that
differ from the executable spec's (impl/execute.py, run with the tail policy given) and the
judge's reasons as notes; when they are, nothing differs.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from vredmax.impl.execute import execute, operands
from vredmax.proofs.engine.counterexample import Counterexample
from vredmax.spec.bv import Concrete
from vredmax.spec.config import VTYPE_VTA_BIT, XLEN, Config
from vredmax.spec.encoding import Insn
from vredmax.spec.legality import ILLEGAL, RESERVED, RETIRED
from vredmax.spec.profiles import ANYTHING, Observed, allowed
from vredmax.spec.state import NUM_VREGS, VS_NAMES, ArchState

LABEL = "implementation"


def judge_step(
    cfg: Config,
    pre: ArchState,
    insn: Insn,
    tail: str,
    kind: str,
    post: ArchState,
    notes: Iterable[str] = (),
    label: str = LABEL,
) -> Counterexample:
    """The implementation's outcome `kind` (RETIRED, ILLEGAL or RESERVED) and post-state on
    (pre, insn), judged; the spec's side is run with the tail policy `tail`."""
    result = execute(pre, insn, "sequential", tail)
    notes = list(notes)
    architecture = allowed(pre, insn, "any")
    reasons: tuple[str, ...]
    if post.vs not in range(len(VS_NAMES)):
        ok, reasons = False, (f"vs: {post.vs} is no mstatus.VS value",)
    elif kind == RESERVED:
        ok = ANYTHING in architecture.kinds
        reasons = (
            () if ok else (f"outcome: allowed {' or '.join(sorted(architecture.kinds))}, observed reserved",)
        )
    else:
        judgement = architecture.judge(Observed.of(kind, post))
        ok, reasons = judgement.allowed, judgement.rules + judgement.differences
    reason = result.reason if result.outcome != RETIRED else ""
    if ok:
        if result.outcome == RESERVED:
            notes.append(f"the encoding is reserved ({result.reason}): the architecture allows any outcome")
        return Counterexample(cfg, pre, insn, tail, {}, {}, label, reason, notes)
    spec_values: dict[str, Any] = {}
    impl_values: dict[str, Any] = {}
    widths: dict[str, int] = {}

    def compare(name: str, spec_value: Any, impl_value: Any, width: int | None = None) -> None:
        if name in ("vd[0]", "traps") or spec_value != impl_value:  # these two always shown
            spec_values[name], impl_values[name] = spec_value, impl_value
            if width:
                widths[name] = width

    compare("traps", result.outcome != RETIRED, kind != RETIRED)
    compare("illegal instruction", result.outcome == ILLEGAL, kind == ILLEGAL)
    expected, sew = result.state, cfg.sew
    agnostic = bool(pre.vtype >> VTYPE_VTA_BIT & 1)
    ones = (1 << sew) - 1
    written = result.outcome == RETIRED and pre.vl != 0
    for register in range(NUM_VREGS):
        want_reg, have_reg = expected.regs[register], post.regs[register]
        if want_reg == have_reg and register != insn.vd:
            continue
        want = Concrete.split(want_reg, sew, cfg.elements_per_register)
        have = Concrete.split(have_reg, sew, cfg.elements_per_register)
        old = Concrete.split(pre.regs[register], sew, cfg.elements_per_register)
        for k in range(cfg.elements_per_register):
            name = f"vd[{k}]" if register == insn.vd else f"v{register}[{k}]"
            if (
                register == insn.vd
                and k > 0
                and agnostic
                and written
                and have[k] in (old[k], ones)
                and have[k] != want[k]
            ):
                continue  # an agnostic tail element may be old or all ones
            compare(name, want[k], have[k])
    for name, width in (("vstart", XLEN), ("vl", XLEN), ("vtype", XLEN), ("vs", 2)):
        if name != "vs" or any(text.startswith("vs:") for text in reasons):  # VS may turn Dirty
            compare(name, getattr(expected, name), getattr(post, name), width)
    if all(spec_values[n] == impl_values[n] for n in spec_values):
        compare("allowed by the spec", True, False)  # the judge's reasons say why
    if written and spec_values.get("vd[0]") != impl_values.get("vd[0]"):
        notes += element_notes(cfg, pre, insn, spec_values["vd[0]"], impl_values["vd[0]"])
    notes += [f"spec: {shortened(text)}" for text in reasons]
    return Counterexample(cfg, pre, insn, tail, spec_values, impl_values, label, reason, notes, widths)


def shortened(text: str, limit: int = 200) -> str:
    """A judge's reason with long hex numbers cut down (registers are VLEN bits wide)."""
    text = re.sub(r"0x0*([0-9a-f]{1,24})\b", lambda m: "0x" + m.group(1), text)
    text = re.sub(r"0x([0-9a-f]{12})[0-9a-f]{13,}", lambda m: f"0x{m.group(1)}...", text)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def element_notes(cfg: Config, pre: ArchState, insn: Insn, want: int, got: int) -> list[str]:
    """Which input each side's vd[0] is: the element that decides the case, by name (the
    lane table shows only the first lanes of a long group)."""
    seed, elements, active = operands(Concrete, pre, insn, cfg)

    def which(value: int, active_only: bool) -> str:
        found = [
            f"vs2[{i}]"
            for i, (x, a) in enumerate(zip(elements, active))
            if x == value and (a or not active_only)
        ]
        names = (["the seed vs1[0]"] if seed == value else []) + found[:3]
        more = len(found) - 3
        return " = ".join(names) + (f" (and {more} more)" if more > 0 else "") if names else "no input"

    lanes = [i for i, a in enumerate(active) if a]
    shown = ", ".join(map(str, lanes[:8])) + (", ..." if len(lanes) > 8 else "")
    return [
        f"active lanes: {shown or 'none'} ({len(lanes)} of vl={pre.vl})",
        f"the spec's vd[0] is {which(want, True)}",
        f"the implementation's vd[0] is {which(got, False)}",
    ]
