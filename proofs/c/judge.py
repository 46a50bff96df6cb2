"""Judging what the compiled code did on one concrete case, as a Counterexample (data).

The architecture's decision procedure (spec/profiles.py, profile "any") says whether the
outcome and post-state are allowed (the agnostic tail, a reserved encoding's anything, VS
turning Dirty); when they are not, the counterexample lists the values that differ from the
executable spec's (impl/execute.py, run with the tail policy the code's vd matches best).
An empty counterexample (nothing differing) means the case is allowed.

(proofs/python/check_impl.py `replay` compares a Python implementation the same way; the
two should share one function in proofs/engine once that module settles.)
"""

from __future__ import annotations

from vredmax.impl.execute import execute, operands
from vredmax.proofs.engine.counterexample import Counterexample
from vredmax.spec.bv import Concrete
from vredmax.spec.config import VTYPE_VTA_BIT, XLEN, Config
from vredmax.spec.encoding import Insn
from vredmax.spec.legality import RESERVED, RETIRED, ILLEGAL
from vredmax.spec.profiles import ANYTHING, Observed, allowed
from vredmax.spec.state import NUM_VREGS, VS_NAMES, ArchState

LABEL = "implementation"


def tail_of(cfg: Config, pre: ArchState, insn: Insn, post: ArchState) -> str:
    """The executable spec's tail policy closest to what the code wrote in vd."""
    if pre.vtype >> VTYPE_VTA_BIT & 1 and cfg.vlen > cfg.sew:
        tail = post.regs[insn.vd] >> cfg.sew
        if tail == (1 << (cfg.vlen - cfg.sew)) - 1:
            return "ones"
    return "undisturbed"


def judged(cfg: Config, pre: ArchState, insn: Insn, kind: str, post: ArchState, notes=()) -> Counterexample:
    tail = tail_of(cfg, pre, insn, post) if kind == RETIRED else "undisturbed"
    result = execute(pre, insn, "sequential", tail)
    notes = list(notes)
    architecture = allowed(pre, insn, "any")
    if post.vs not in range(len(VS_NAMES)):
        ok, reasons = False, (f"vs: {post.vs} is no mstatus.VS value",)
    elif kind == RESERVED:
        ok = ANYTHING in architecture.kinds
        reasons = () if ok else (f"outcome: allowed {' or '.join(sorted(architecture.kinds))}, returned reserved",)
    else:
        judgement = architecture.judge(Observed.of(kind, post))
        ok, reasons = judgement.allowed, judgement.rules + judgement.differences
    reason = result.reason if result.outcome != RETIRED else ""
    if ok:
        return Counterexample(cfg, pre, insn, tail, {}, {}, LABEL, reason, notes)
    spec_values, impl_values, widths = {}, {}, {}

    def compare(name, spec_value, impl_value, width=None):
        if name in ("vd[0]", "traps") or spec_value != impl_value:
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
            if (register == insn.vd and k > 0 and agnostic and written
                    and have[k] in (old[k], ones) and have[k] != want[k]):
                continue   # an agnostic tail element may be old or all ones
            compare(name, want[k], have[k])
    for name, width in (("vstart", XLEN), ("vl", XLEN), ("vtype", XLEN), ("vs", 2)):
        if name != "vs" or any(text.startswith("vs:") for text in reasons):   # VS may turn Dirty
            compare(name, getattr(expected, name), getattr(post, name), width)
    if all(spec_values[n] == impl_values[n] for n in spec_values):
        compare("allowed by the spec", True, False)   # the judge's reasons say why
    if written and spec_values.get("vd[0]") != impl_values.get("vd[0]"):
        notes += element_notes(cfg, pre, insn, spec_values["vd[0]"], impl_values["vd[0]"])
    notes += [f"spec: {_shortened(text)}" for text in reasons]
    return Counterexample(cfg, pre, insn, tail, spec_values, impl_values, LABEL, reason, notes, widths)


def undefined(cfg: Config, pre: ArchState, insn: Insn, kind: str | None, post: ArchState | None,
              what: str, report: list[str]) -> Counterexample:
    """A case on which the code has undefined behaviour (or crashed): whatever it computed
    here, another compiler or flag may make it compute anything."""
    base = (judged(cfg, pre, insn, kind, post) if kind is not None
            else Counterexample(cfg, pre, insn, "undisturbed", {}, {}, LABEL))
    spec_values = {"well-defined C": True, **base.spec}
    impl_values = {"well-defined C": False, **base.other}
    notes = [what] + [f"  {line}" for line in report] + base.notes
    return Counterexample(cfg, pre, insn, base.tail, spec_values, impl_values, LABEL, base.spec_reason,
                          notes, {**base.widths, "well-defined C": 1})


def _shortened(text: str, limit: int = 200) -> str:
    import re
    text = re.sub(r"0x0*([0-9a-f]{1,24})\b", lambda m: "0x" + m.group(1), text)
    text = re.sub(r"0x([0-9a-f]{12})[0-9a-f]{13,}", lambda m: f"0x{m.group(1)}...", text)
    return text if len(text) <= limit else text[:limit - 3] + "..."


def element_notes(cfg: Config, pre: ArchState, insn: Insn, want: int, got: int) -> list[str]:
    seed, elements, active = operands(Concrete, pre, insn, cfg)

    def which(value, active_only):
        found = [f"vs2[{i}]" for i, (x, a) in enumerate(zip(elements, active))
                 if x == value and (a or not active_only)]
        names = (["the seed vs1[0]"] if seed == value else []) + found[:3]
        more = len(found) - 3
        return " = ".join(names) + (f" (and {more} more)" if more > 0 else "") if names else "no input"

    lanes = [i for i, a in enumerate(active) if a]
    shown = ", ".join(map(str, lanes[:8])) + (", ..." if len(lanes) > 8 else "")
    return [f"active lanes: {shown or 'none'} ({len(lanes)} of vl={pre.vl})",
            f"the spec's vd[0] is {which(want, True)}",
            f"the implementation's vd[0] is {which(got, False)}"]
