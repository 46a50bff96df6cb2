"""Counterexamples shown as Alive2 does: the inputs (instruction, configuration, seed, the lane
table of the seed's animation), then each side's value, every value as `#xfe (254, -2)`.

The verdict code returns the data (proofs/engine/counterexample.py, proofs/claims/ask.py,
proofs/rtl/trace.py); this module is the one place that turns it into lines of text, for the
command line and the generated documents alike.
"""

from __future__ import annotations

import json

import textwrap

from vredmax.impl.execute import operands
from vredmax.presentation.values import lane_table, value_text
from vredmax.proofs.claims.ask import AskCounterexample, outcome_text
from vredmax.proofs.engine.counterexample import TRAPS, Counterexample, element_place
from vredmax.proofs.rtl.trace import RtlCounterexample
from vredmax.spec.bv import Concrete
from vredmax.spec.config import VTYPE_VMA_BIT, VTYPE_VTA_BIT
from vredmax.spec.encoding import encode, format_asm
from vredmax.spec.state import NUM_VREGS, VS_NAMES


def show_value(value, width: int) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    return value_text(value, width)


def _register_name(cx: Counterexample, name: str) -> str:
    if name.startswith("vd["):
        return f"{name} = v{cx.insn.vd}{name[2:]}"
    return name


def input_lines(cx: Counterexample) -> list[str]:
    cfg, pre, insn, sew = cx.cfg, cx.pre, cx.insn, cx.cfg.sew
    seed, elements, active = operands(Concrete, pre, insn, cfg)
    lines = [
        f"  {format_asm(insn)}    ({encode(insn):#010x})",
        f"  {cfg}  VLMAX={cfg.vlmax}  vl={pre.vl}  vstart={pre.vstart}  "
        f"vta={pre.vtype >> VTYPE_VTA_BIT & 1}  vma={pre.vtype >> VTYPE_VMA_BIT & 1}  "
        f"VS={VS_NAMES[pre.vs]}",
        f"  seed vs1[0] = v{insn.vs1}[0] = {value_text(seed, sew)}",
    ]
    vs1 = Concrete.split(pre.regs[insn.vs1], sew, cfg.elements_per_register)
    shown = [k for k in range(1, min(pre.vl, len(vs1))) if vs1[k]]
    for k in shown:
        lines.append(f"  vs1[{k}] = v{insn.vs1}[{k}] = {value_text(vs1[k], sew)}")
    for name in cx.spec:
        place = element_place(name, insn)
        if place is not None:
            register, k = place
            old = Concrete.extract(pre.regs[register], k * sew + sew - 1, k * sew)
            lines.append(f"  old {_register_name(cx, name)} = {value_text(old, sew)}")
    lines += [f"  note: {text}" for text in cx.overlaps()]
    if pre.vl:
        mask = None if insn.vm else Concrete.bits(pre.regs[0], pre.vl)
        lines.append("")
        lines += ["  " + row for row in lane_table(seed, elements[: pre.vl], mask, active[: pre.vl], sew)]
    return lines


def side_lines(cx: Counterexample, label: str, values: dict) -> list[str]:
    lines = [f"{label}:"]
    for name in cx.spec:
        value = values.get(name)
        mark = "" if value == cx.spec[name] else "    <- differs"
        if value is None:
            text = "?"
        elif name == "vs":
            text = VS_NAMES[value]
        else:
            text = show_value(value, cx.width(name))
        if name == TRAPS and values is cx.spec and value and cx.spec_reason:
            text += f" ({cx.spec_reason})"
        lines.append(f"  {_register_name(cx, name)} = {text}{mark if values is not cx.spec else ''}")
    return lines


def counterexample_lines(cx: Counterexample, limit: int = 8) -> list[str]:
    """Inputs, then the spec's values, then the other side's (only differing names when
    there are more than `limit` compared values)."""
    shown = cx.spec
    if len(cx.spec) > limit:
        keep = cx.differing[:limit]
        shown = {name: cx.spec[name] for name in keep}
    trimmed = Counterexample(
        cx.cfg,
        cx.pre,
        cx.insn,
        cx.tail,
        shown,
        {n: cx.other.get(n) for n in shown},
        cx.other_label,
        cx.spec_reason,
        cx.notes,
        cx.widths,
    )
    lines = [f"Counterexample ({cx.summary()}):"] + input_lines(trimmed) + [""]
    lines += side_lines(trimmed, "Spec", trimmed.spec)
    lines += side_lines(trimmed, cx.other_label.capitalize(), trimmed.other)
    hidden = len(cx.differing) - len([n for n in shown if n in cx.differing])
    equal = len(cx.spec) - len(cx.differing)
    if shown is not cx.spec:
        lines.append(f"  ({hidden} more differing and {equal} equal values not shown)")
    lines += [f"note: {text}" for text in cx.notes]
    return lines


INLINE_CASE_LIMIT = 400  # characters of a case shown inline (VLEN=65536 registers are not)


def replay_case(cx: Counterexample) -> dict:
    """The counterexample as a `vredmax exec` case."""
    from vredmax.impl.case import case_json

    return case_json(cx.pre, cx.insn, cx.tail)


def replay_lines(cx: Counterexample, case_out: str | None = None) -> list[str]:
    """How to replay the counterexample: the file it was written to, the case inline, or how
    to get it when it is too long to show."""
    case = json.dumps(replay_case(cx))
    if case_out:
        return ["Replay it:", f"  vredmax exec {case_out}    # the case, written there", ""]
    if len(case) <= INLINE_CASE_LIMIT:
        return [
            "Replay it: save the case below as case.json, then run vredmax exec case.json",
            f"  {case}",
            "",
        ]
    return [
        f"Replay it: the case has {len(case)} characters; write it with --case-out FILE "
        "(or take counterexample.case from --json), then vredmax exec FILE",
        "",
    ]


def _shown_value(kind: str, value, sew: int, vlen: int) -> str:
    if kind == "bool":
        return "yes" if value else "no"
    if kind == "vs":
        return VS_NAMES[value]
    if kind == "element":
        return value_text(value, sew)
    if kind == "register":
        digits = f"{value:0{vlen // 4}x}"
        if vlen <= 512:
            return "0x" + digits
        return f"0x…{digits[-32:]} (low 128 bits of {vlen}; all of it with --json)"
    return str(value)


def _wrapped(text: str) -> list[str]:
    """A sentence in 80 columns, its continuation lines indented."""
    return textwrap.wrap(text, 80, subsequent_indent="  ", break_long_words=False, break_on_hyphens=False)


def ask_counterexample_lines(cx: AskCounterexample) -> list[str]:
    """Alive2-style: the inputs and lane table, the post-state the solver chose, the claim's
    values there, the replay on the executable model, and the spec's freedoms."""
    sew, vlen = cx.cfg.sew, cx.cfg.vlen
    lines = [f"Counterexample ({cx.shown.summary()}):"] + input_lines(cx.shown) + [""]
    post = cx.post
    lines += [
        "Post-state chosen by the solver (the spec allows it):",
        f"  outcome = {outcome_text(cx.trapped, cx.illegal_trap)}",
        f"  vd = v{cx.insn.vd} = {_shown_value('register', post.regs[cx.insn.vd], sew, vlen)}",
        f"  vl = {post.vl}  vstart = {post.vstart}  vtype = {post.vtype:#x}  VS = {VS_NAMES[post.vs]}",
    ]
    changed = [r for r in range(NUM_VREGS) if r != cx.insn.vd and post.regs[r] != cx.pre.regs[r]]
    if changed:
        lines.append(f"  also changed: {', '.join(f'v{r}' for r in changed)}")
    if cx.shown.spec and cx.shown.other != cx.shown.spec:
        lines += (
            [""] + side_lines(cx.shown, "Spec", cx.shown.spec) + side_lines(cx.shown, "Claim", cx.shown.other)
        )
    lines += ["", "Values in the claim:"]
    lines += [
        f"  {name} = {_shown_value(kind, value, sew, vlen)}" for name, (kind, value) in cx.values.items()
    ]
    if cx.hypothesis is not None:
        lines.append(
            f"  the hypothesis of implies() holds: {'yes' if cx.hypothesis else 'no'}; the claim is false"
        )
    else:
        lines.append("  the claim is false")
    executable = f"the executable model (sequential, tail {cx.tail})"
    if cx.replays:
        lines += ["", *_wrapped(f"Replay: {executable} on this pre-state: the claim is false there too.")]
    else:
        lines += [
            "",
            *_wrapped(
                f"Replay: {executable} on this pre-state gives another allowed post-state, "
                "where the claim holds: the counterexample uses a freedom of the spec "
                "(below). There:"
            ),
        ]
        lines += [
            f"  {name} = {_shown_value(kind, value, sew, vlen)}"
            for name, (kind, value) in cx.replay_values.items()
            if cx.values.get(name) != (kind, value)
        ]
    lines += _wrapped(
        "Free in the spec for this pre-state: " + ("; ".join(cx.free) if cx.free else "nothing")
    )
    lines += [f"note: {text}" for text in cx.notes]
    return lines


def rtl_counterexample_lines(cx: RtlCounterexample) -> list[str]:
    sew = cx.sew
    r = cx.reduction
    active = sum(map(bool, r.active)) if r else 0
    head = f"SEW={sew}, LANES={cx.lanes}"
    if cx.cycles:
        head += f", {len(cx.cycles)} cycles, {len(cx.chunks)} chunk{'s' * (len(cx.chunks) != 1)}"
    lines = [f"Counterexample ({head}, {active} active element{'s' * (active != 1)}):", f"  {cx.problem}"]
    for name, value in cx.ports.items():
        lines.append(f"  port {name} = {value:#x}")
    if cx.chunks:
        for k, (values, flags, last) in enumerate(cx.chunks):
            if cx.MAX_CHUNK_ROWS // 2 <= k < len(cx.chunks) - cx.MAX_CHUNK_ROWS // 2:
                if k == cx.MAX_CHUNK_ROWS // 2:  # a long reduction: its middle is in the JSON and VCD
                    lines.append(f"  ... {len(cx.chunks) - cx.MAX_CHUNK_ROWS} chunks more ...")
                continue
            text = " ".join(f"{v:#0{sew // 4 + 2}x}{'' if a else '(off)'}" for v, a in zip(values, flags))
            lines.append(f"  chunk {k}: {text}{'  last' if last else ''}")
    if r is not None:
        lines.append(f"  seed = {value_text(r.seed, sew)}")
        lines.append("")
        lines += ["  " + row for row in lane_table(r.seed, r.elements, None, r.active, sew)]
        lines += ["", "Spec:", f"  result = {value_text(r.spec_result(), sew)}"]
        unit = "?" if cx.unit_result is None else value_text(cx.unit_result, sew)
        mark = "" if cx.unit_result is None or cx.unit_result == r.spec_result() else "    <- differs"
        lines += ["Unit:", f"  result = {unit}{mark}"]
    if cx.cycles:
        lines += [
            "",
            "  cycle  " + "  ".join(f"{cx.column_names.get(name, name):>8}" for name in cx.CYCLE_COLUMNS),
        ]
        for t, cycle in enumerate(
            cx.cycles[-cx.MAX_CYCLE_ROWS :], max(0, len(cx.cycles) - cx.MAX_CYCLE_ROWS)
        ):
            values = [cycle.get(cx.column_names.get(name, name), 0) for name in cx.CYCLE_COLUMNS]
            lines.append(
                f"  {t:>5}  "
                + "  ".join(
                    f"{v:>8}" if name != "result" else f"{v:>#8x}"
                    for name, v in zip(cx.CYCLE_COLUMNS, values)
                )
            )
    if cx.vcd_path:
        lines.append(f"waveform: {cx.vcd_path}")
    lines += [f"note: {note}" for note in cx.notes]
    return lines
