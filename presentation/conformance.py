"""What a conformance run prints: the tally, and each mismatch in the counterexample format."""

from __future__ import annotations

import json

from vredmax.spec.config import decode_vtype
from vredmax.spec.legality import ILLEGAL
from vredmax.spec.state import VS_NAMES
from vredmax.impl.case import case_json
from vredmax.presentation.execution import human_view
from vredmax.platforms.conformance.cases import Case
from vredmax.platforms.conformance.compare import (
    AGREE,
    MISMATCH,
    RESERVED_EXECUTED,
    RESERVED_TRAPPED,
    Verdict,
)
from vredmax.presentation.values import value_text

VS_NOTE = (
    "not compared: mstatus.VS (user-mode emulators keep it on and do not show it; "
    "cases use VS=initial/clean/dirty)"
)
VS_MACHINE_NOTE = (
    "compared: mstatus.VS too (machine mode: each case sets it, initial/clean/dirty, "
    "and reads it back after the word)"
)


def vs_note(machine_mode: bool) -> str:
    return VS_MACHINE_NOTE if machine_mode else VS_NOTE


HEADINGS = {
    AGREE: "agree",
    RESERVED_TRAPPED: "reserved, the emulator trapped and changed nothing",
    RESERVED_EXECUTED: "reserved, the emulator executed it (not compared: the spec promises nothing)",
    MISMATCH: "mismatch",
}


def tally_lines(tally) -> list[str]:
    lines = []
    for kind in (AGREE, RESERVED_TRAPPED, RESERVED_EXECUTED, MISMATCH):
        lines.append(f"{tally.kinds[kind]:>8}  {HEADINGS[kind]}")
        for (detail_kind, detail), count in sorted(tally.details.items()):
            if detail_kind == kind and detail:
                lines.append(f"{count:>14}  {detail}")
    return lines


def summary_line(tally) -> str:
    reserved = tally.kinds[RESERVED_TRAPPED] + tally.kinds[RESERVED_EXECUTED]
    return (
        f"Summary: {tally.cases} cases, {tally.kinds[AGREE]} agree, {reserved} reserved, "
        f"{tally.kinds[MISMATCH]} mismatches ({tally.rate:.0f} cases/s)"
    )


def _register_lines(number: int, want: int, got: int, vlen: int, sew: int, limit: int = 8) -> list[str]:
    """The elements of one register that differ, as `#x.. (unsigned, signed)`."""
    mask = (1 << sew) - 1
    differing = [i for i in range(vlen // sew) if (want >> (i * sew) ^ got >> (i * sew)) & mask]
    lines = [f"  v{number}: {len(differing)} of {vlen // sew} SEW={sew} elements differ"]
    for i in differing[:limit]:
        lines.append(
            f"    v{number}[{i}]: spec {value_text(want >> (i * sew) & mask, sew)}, "
            f"emulator {value_text(got >> (i * sew) & mask, sew)}"
        )
    if len(differing) > limit:
        lines.append(f"    ... {len(differing) - limit} more")
    return lines


def mismatch_lines(case: Case, verdict: Verdict, tail: str, max_rows: int) -> list[str]:
    pre, spec, observed = case.pre, verdict.spec, verdict.observed
    lines = [
        f"differs in: {', '.join(verdict.differences)}" + (f" ({verdict.note})" if verdict.note else ""),
        *([f"properties broken (vredmax judge): {', '.join(verdict.rules)}"] if verdict.rules else []),
        "case, for `vredmax exec`:",
        "  " + json.dumps(case_json(pre, case.insn, tail)),
        f"requested vtype {case.requested_vtype:#x}, AVL {case.avl}",
        "",
        "specification:",
    ]
    lines += ["  " + line for line in human_view(pre, case.insn, tail, "sequential", spec, max_rows)]
    lines += [
        "",
        f"emulator: {'trapped (illegal instruction)' if observed.outcome == ILLEGAL else 'retired'}",
    ]
    expected = spec.state
    for name in ("vl", "vtype", "vstart"):
        want, got = getattr(expected, name), getattr(observed.state, name)
        if want != got:
            lines.append(f"  {name}: spec {want:#x}, emulator {got:#x}")
    if "vs" in verdict.differences and expected.vs != observed.state.vs:
        lines.append(f"  mstatus.VS: spec {VS_NAMES[expected.vs]}, emulator {VS_NAMES[observed.state.vs]}")
    vt = decode_vtype(pre.vtype, pre.elen)
    sew = 64 if vt.vill else vt.sew
    for number, (want, got) in enumerate(zip(expected.regs, observed.state.regs)):
        if want != got:
            lines += _register_lines(number, want, got, pre.vlen, sew)
    return lines
