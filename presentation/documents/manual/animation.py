"""The decode-and-execute animation of one case, from its trace (impl/trace.py).

`steps(trace)` is the list of teaching steps (decode, checks, vl, seed, one per lane, the
write of vd[0], the tail, the CSRs); `text_lines` prints them for a terminal with the lane
table in place of the per-lane steps; `figure_html` builds the figure: the fields
of the word, the checks that apply, a lane table, and the steps as text; it opens in this
reading view (scripts on or off), and its "Step through it" button starts the animation (cells
appear as the steps reach them, a step panel, keyboard-operable controls). Steps are teaching
stages, not processor cycles.
"""

from __future__ import annotations

import html
import json
from dataclasses import dataclass, field

from vredmax.impl.trace import Trace
from vredmax.presentation.documents.manual.blocks import inline_html
from vredmax.spec import profiles
from vredmax.spec.legality import RESERVED
from vredmax.spec.state import VS_NAMES

MAX_LANES = 32  # lanes animated one by one; the rest are folded into one step
MAX_TAIL_CELLS = 7  # tail elements of vd drawn in the table

FIELD_MEANING = {"funct6": "vredmax", "funct3": "OPMVV", "opcode": "OP-V"}


@dataclass
class Step:
    title: str
    text: str  # inline Markdown
    focus: list = field(default_factory=list)  # keys of the highlighted parts


def hex_text(value: int, width: int) -> str:
    return f"0x{value:0{(width + 3) // 4}x}"


def signed(value: int, width: int) -> int:
    return value - (1 << width) if value >> (width - 1) & 1 else value


def value_text(value: int, width: int) -> str:
    """`0xfffd (-3)`: hex, and the signed value the comparison uses."""
    return f"{hex_text(value, width)} ({signed(value, width)})"


def _register_fields(trace: Trace) -> str:
    insn = trace.insn
    mask = (
        "vm=0: masked, v0.t supplies the mask"
        if insn.vm == 0
        else "vm=1: unmasked, every element below vl is active"
    )
    return (
        f"{mask}; vs2={insn.vs2:05b}: **v{insn.vs2}** is the vector group; vs1={insn.vs1:05b}: "
        f"**v{insn.vs1}**[0] is the seed; vd={insn.vd:05b}: **v{insn.vd}**[0] receives the result."
    )


MASK_ONLY = ("v0_mask_in_vs2", "v0_mask_is_vs1")
GROUPS = ("m2", "m4", "m8")


def applies(trace: Trace, check) -> bool:
    """Whether a check means anything for this instruction: the two v0 checks only when it is
    masked (vm=0: unmasked, v0 is not read), the alignment of vs2 only for a group of several
    registers (LMUL > 1). A check that fired always applies."""
    if check.fired:
        return True
    if check.rule.id in MASK_ONLY:
        return trace.insn.vm == 0
    if check.rule.id == "vs2_misaligned":
        return trace.vtype.lmul in GROUPS
    return True


def _checks_text(trace: Trace) -> str:
    pre, insn, vt = trace.pre, trace.insn, trace.vtype
    said = {
        "vs_off": f"mstatus.VS is {VS_NAMES[pre.vs].capitalize()}, not Off",
        "vill": (f"vtype is valid (SEW={vt.sew}, LMUL={vt.lmul})" if not vt.vill else vt.why_vill),
        "vstart_nonzero": f"vstart = {pre.vstart}",
        "vs2_misaligned": f"vs2=v{insn.vs2} is aligned to LMUL={trace.lmul}",
        "v0_mask_in_vs2": "v0 is not in the vs2 group",
        "v0_mask_is_vs1": "vs1 is not v0",
    }
    parts = []
    for check in trace.checks:
        if check.fired:
            parts.append(f"**{trace.result.outcome}**: {trace.result.reason}")
        elif applies(trace, check):
            parts.append(f"{said[check.rule.id]} ✓")
    return "; ".join(parts) + "."


def steps(trace: Trace) -> list[Step]:
    insn, pre = trace.insn, trace.pre
    made = [
        Step(
            "Decode the fixed fields",
            f"`{trace.word:#010x}`: opcode 1010111 is OP-V, funct3 010 is OPMVV (integer "
            f"reductions among others), funct6 000111 is **vredmax**: signed maximum reduction.",
            ["f-opcode", "f-funct3", "f-funct6"],
        ),
        Step("Decode the operand fields", _register_fields(trace), ["f-vm", "f-vs2", "f-vs1", "f-vd"]),
        Step("Check that it may execute", _checks_text(trace), ["checks"]),
    ]
    if trace.trapped and trace.result.outcome == RESERVED:
        made.append(
            Step(
                "Reserved: no promise",
                "A reserved encoding: the architecture promises nothing, so an implementation may trap "
                f"or execute it ({_profiles_text(trace)}). The executable model stops here and changes "
                "nothing; the specification allows every outcome.",
                ["outcome"],
            )
        )
        return made
    if trace.trapped:
        made.append(
            Step(
                "Trap: nothing changes",
                f"The instruction raises an exception ({trace.result.outcome}) before reading "
                "any element: no register, vtype, vl or vstart changes (vstart keeps its value).",
                ["outcome"],
            )
        )
        return made
    cfg, sew = trace.cfg, trace.cfg.sew
    if pre.vl == 0:
        made.append(
            Step(
                "vl = 0: no operation",
                f"vl = 0 of VLMAX = {cfg.vlmax}: no element is read or written. v{insn.vd} keeps all "
                "its elements (not even an agnostic tail is written) and the seed is **not** "
                f"copied to vd[0]. mstatus.VS stays {VS_NAMES[pre.vs].capitalize()} here (Dirty "
                "would be allowed too).",
                ["vl", "outcome"],
            )
        )
        return made
    past = (
        f"; elements {pre.vl} .. {cfg.vlmax - 1} of the group are past vl and take no part"
        if pre.vl < cfg.vlmax
        else ""
    )
    made.append(
        Step(
            "The body: elements below vl",
            f"vl = {pre.vl} of VLMAX = {cfg.vlmax} (VLEN={cfg.vlen}, SEW={sew}, LMUL={trace.lmul}): "
            f"lanes 0 .. {pre.vl - 1} are the body{past}.",
            ["vl"],
        )
    )
    made.append(
        Step(
            "Start from the seed",
            f"acc = vs1[0] = v{insn.vs1}[0] = `{value_text(trace.seed, sew)}`. The seed always takes "
            "part, whatever the mask.",
            ["seed"],
        )
    )
    acc = trace.seed
    for lane in trace.lanes[:MAX_LANES]:
        made.append(Step(f"Lane {lane.index}", _lane_text(trace, lane, acc), [f"lane-{lane.index}"]))
        acc = lane.acc
    if len(trace.lanes) > MAX_LANES:
        rest = trace.lanes[MAX_LANES:]
        count = sum(lane.active for lane in rest)
        made.append(
            Step(
                f"Lanes {MAX_LANES} .. {rest[-1].index}",
                f"{len(rest)} more lanes, {count} of them active, fold in the same way: "
                f"acc = `{value_text(rest[-1].acc, sew)}`.",
                ["lane-rest"],
            )
        )
    made.append(
        Step(
            "Write vd[0]",
            f"v{insn.vd}[0] = acc = `{value_text(trace.written, sew)}`: the signed maximum of the seed "
            "and the active elements.",
            ["vd0"],
        )
    )
    made.append(Step("The tail of vd", _tail_text(trace), ["tail"]))
    made.append(
        Step(
            "Retire",
            f"vstart = 0 and mstatus.VS = {VS_NAMES[trace.result.state.vs].capitalize()}; no register "
            f"other than v{insn.vd} changes, nor vtype or vl.",
            ["outcome"],
        )
    )
    return made


def _profiles_text(trace: Trace) -> str:
    """What the implementation profiles do with this case (spec/profiles.py)."""
    said = []
    for name in ("sail", "spike", "qemu"):
        kinds = sorted(profiles.allowed(trace.pre, trace.insn, name).kinds)
        said.append(f"{name}: {' or '.join('executes' if k == 'retired' else k for k in kinds)}")
    return "; ".join(said)


def _lane_text(trace: Trace, lane, acc: int) -> str:
    sew, insn = trace.cfg.sew, trace.insn
    value = (
        f"v{insn.vs2 + lane.index // trace.cfg.elements_per_register}"
        f"[{lane.index % trace.cfg.elements_per_register}] = `{value_text(lane.value, sew)}`"
    )
    if lane.mask is None:
        why = "unmasked: active"
    elif lane.active:
        why = "mask bit 1: active"
    else:
        why = "mask bit 0: **masked off**"
    if not lane.active:
        return f"vs2[{lane.index}] = {value}, {why}. It takes no part: acc stays `{hex_text(acc, sew)}`."
    relation = "≥" if signed(lane.value, sew) >= signed(acc, sew) else "<"
    return (
        f"vs2[{lane.index}] = {value}, {why}. Signed: {signed(lane.value, sew)} {relation} "
        f"{signed(acc, sew)}, so acc = max = `{hex_text(lane.acc, sew)}`."
    )


def _tail_text(trace: Trace) -> str:
    cfg, insn = trace.cfg, trace.insn
    count = cfg.elements_per_register - 1
    if count == 0:
        return f"VLEN = SEW: v{insn.vd} holds only element 0, there is no tail."
    where = f"elements 1 .. {count} of v{insn.vd}, one register whatever LMUL is"
    if not trace.vtype.vta:
        return f"The tail ({where}) is undisturbed (vta=0): every tail element keeps its value."
    if trace.tail_changed:
        return (
            f"The tail ({where}) is agnostic (vta=1), and this run sets it to all ones; keeping the old "
            "values would be allowed too (each element independently)."
        )
    return (
        f"The tail ({where}) is agnostic (vta=1); this run keeps the old values (as Sail and Spike do); "
        "all ones would be allowed too (each element independently)."
    )


# The terminal form ------------------------------------------------------------------------


def text_lines(trace: Trace, max_rows: int = 64) -> list[str]:
    """The animation as text: the header, then each step; the lane steps as a lane table
    (its first `max_rows` lanes, then the running maximum after the last)."""
    pre = trace.pre
    fields = "  ".join(f"{name} {bits}" for name, bits, _ in trace.fields)
    lines = [f"{trace.asm}    ({trace.word:#010x})", f"  {fields}"]
    vt = trace.vtype
    config = (
        f"VLEN={pre.vlen} ELEN={pre.elen} "
        + (
            f"vtype={pre.vtype:#x} (vill)"
            if vt.vill
            else f"SEW={vt.sew} LMUL={vt.lmul} VLMAX={trace.cfg.vlmax}"
        )
        + f" vl={pre.vl} vstart={pre.vstart} vta={int(vt.vta)} vma={int(vt.vma)} "
        f"VS={VS_NAMES[pre.vs]} tail={trace.tail}"
    )
    lines += [config, ""]
    number = 0
    table_done = False
    for step in steps(trace):
        if step.focus and step.focus[0].startswith("lane-"):
            if not table_done:
                lines += ["       " + row for row in lane_table(trace, max_rows)]
                table_done = True
            continue
        number += 1
        lines.append(f"{number:>2}. {step.title}: {_plain(step.text)}")
    result = trace.result
    lines += ["", f"outcome: {result.outcome}" + (f" ({result.reason})" if result.reason else "")]
    if trace.writes:
        lines.append(f"vd[0] = v{trace.insn.vd}[0] = {value_text(trace.written, trace.cfg.sew)}")
    return lines


def _plain(text: str) -> str:
    return text.replace("**", "").replace("`", "")


def lane_table(trace: Trace, max_rows: int = 64) -> list[str]:
    sew = trace.cfg.sew
    digits = (sew + 3) // 4 + 2
    width = max(len(str(-(1 << (sew - 1)))), 6)
    lines = [f"{'lane':>5}  {'vs2[i]':<{digits}}  {'signed':>{width}}  v0.t  active  running max"]
    lines.append(
        f"{'seed':>5}  {hex_text(trace.seed, sew):<{digits}}  {signed(trace.seed, sew):>{width}}"
        f"  {'':>4}  {'':<6}  {value_text(trace.seed, sew)}"
    )
    for lane in trace.lanes[:max_rows]:
        bit = "-" if lane.mask is None else str(int(lane.mask))
        lines.append(
            f"{lane.index:>5}  {hex_text(lane.value, sew):<{digits}}  {signed(lane.value, sew):>{width}}"
            f"  {bit:>4}  {'yes' if lane.active else 'no':<6}  {value_text(lane.acc, sew)}"
        )
    rest = trace.lanes[max_rows:]
    if rest:
        lines.append(
            f"  ... {len(rest)} more lanes ({sum(lane.active for lane in rest)} active; raise "
            f"--max-rows to see them), running max after lane {rest[-1].index}: "
            f"{value_text(rest[-1].acc, sew)}"
        )
    return lines


# The HTML figure ----------------------------------------------------------------------------


class _Marks:
    """Which steps focus each part (`data-at`), and the step that first reaches it (`data-from`)."""

    def __init__(self, made: list[Step]):
        self.at: dict = {}
        for k, step in enumerate(made):
            for key in step.focus:
                self.at.setdefault(key, []).append(k)

    def start(self, key: str) -> int | None:
        return self.at[key][0] if key in self.at else None

    def __call__(self, key: str, reveal: bool = True) -> str:
        if key not in self.at:
            return ""
        out = f' data-at="{" ".join(map(str, self.at[key]))}"'
        return out + (f' data-from="{self.start(key)}"' if reveal else "")


def figure_html(trace: Trace, anim_id: str, caption: str) -> str:
    made = steps(trace)
    attrs = _Marks(made)
    parts = [
        f'<figure class="anim" id="{anim_id}" tabindex="-1" aria-labelledby="{anim_id}-cap">',
        f'<figcaption id="{anim_id}-cap">{inline_html(caption)}</figcaption>',
        f'<p class="anim-asm">word <span class="word">{trace.word:#010x}</span></p>',
        '<div class="enc" role="img" aria-label="encoding fields">',
    ]
    for name, bits, value in trace.fields:
        meaning = FIELD_MEANING.get(name) or (
            f"v{value}" if name in ("vs2", "vs1", "vd") else ("v0.t" if value == 0 else "unmasked")
        )
        parts.append(
            f'<div class="fld f-{name}"{attrs("f-" + name, False)}><span class="fname">{name}</span>'
            f'<span class="fbits">{bits}</span><span class="fmean">{meaning}</span></div>'
        )
    parts.append("</div>")
    parts.append(_checks_html(trace, attrs))
    if trace.writes:
        parts.append(_lanes_html(trace, attrs))
        parts.append(
            '<p class="legend"><span class="key now">current step</span> <span class="key acc">'
            'running maximum</span> <span class="key off">masked off: takes no part</span> '
            '<span class="key vd">vd[0], the result</span>; values in hex, signed below</p>'
        )
    parts.append(_outcome_html(trace, attrs))
    parts += [
        f'<button type="button" class="start" data-act="animate">Step through it: {len(made)} steps</button>',
        f'<div class="panel" aria-live="polite"><p class="count">Step 1 of {len(made)}</p>',
        f'<p class="stitle">{inline_html(made[0].title)}</p><p class="stext">{inline_html(made[0].text)}</p></div>',
        f'<div class="controls" role="group" aria-label="Animation controls for {html.escape(trace.asm)}">',
        '<button type="button" data-act="first" aria-label="First step">« First</button>',
        '<button type="button" data-act="prev" aria-label="Previous step">◀ Back</button>',
        '<button type="button" data-act="play" aria-label="Play" aria-pressed="false">Play</button>',
        '<button type="button" data-act="next" aria-label="Next step">Next ▶</button>',
        '<button type="button" data-act="last" aria-label="Last step">Last »</button>',
        '<button type="button" data-act="read" aria-label="Back to the reading view">Reading view</button>',
        '<span class="hint">or ← → Home End</span></div>',
        f'<details class="all" open><summary>All {len(made)} steps as text</summary><ol>',
    ]
    parts += [f"<li><strong>{inline_html(s.title)}.</strong> {inline_html(s.text)}</li>" for s in made]
    parts.append("</ol></details>")
    data = [{"title": inline_html(s.title), "text": inline_html(s.text)} for s in made]
    parts.append(f'<script type="application/json" class="anim-data">{_json_for_script(data)}</script>')
    parts.append("</figure>")
    return "\n".join(parts)


def _json_for_script(data) -> str:
    return json.dumps(data, ensure_ascii=False).replace("</", "<\\/")


# How each trap rule's check reads when it passes, and when it fires.
CHECK_LABELS = {
    "vs_off": ("VS not Off", "VS is Off"),
    "vill": ("vtype valid", "vtype.vill"),
    "vstart_nonzero": ("vstart = 0", "vstart ≠ 0"),
    "vs2_misaligned": ("vs2 aligned", "vs2 misaligned"),
    "v0_mask_in_vs2": ("v0 not in vs2", "v0 in the vs2 group"),
    "v0_mask_is_vs1": ("vs1 ≠ v0", "vs1 = v0"),
}


def _checks_html(trace: Trace, attrs) -> str:
    items = []
    for check in filter(lambda check: applies(trace, check), trace.checks):
        passed, fired = CHECK_LABELS.get(check.rule.id, (check.rule.id, check.rule.id))
        if check.fired:
            items.append(f'<li class="bad">✗ {html.escape(fired)}: {trace.result.outcome}</li>')
        else:
            items.append(f'<li class="ok">✓ {html.escape(passed)}</li>')
    return f'<ul class="checks"{attrs("checks")} aria-label="legality checks">{"".join(items)}</ul>'


def _lanes_html(trace: Trace, attrs) -> str:
    cfg, sew, insn = trace.cfg, trace.cfg.sew, trace.insn
    shown = trace.lanes[:MAX_LANES]
    folded = trace.lanes[MAX_LANES:]

    def cell(key: str, content: str, css: str = "") -> str:
        klass = f' class="{css}"' if css else ""
        return f"<td{klass}{attrs(key)}>{content}</td>"

    def value(v: int) -> str:
        return f"{hex_text(v, sew)}<small>{signed(v, sew)}</small>"

    header = ['<th scope="row">lane</th>', f"<td{attrs('seed', False)}>seed</td>"]
    header += [f"<td{attrs(f'lane-{lane.index}', False)}>{lane.index}</td>" for lane in shown]
    group = (
        f"v{insn.vs2}" if cfg.group_registers == 1 else f"v{insn.vs2}..v{insn.vs2 + cfg.group_registers - 1}"
    )
    values = ['<th scope="row">vs2 = ' + group + "</th>", "<td></td>"]
    values += [cell(f"lane-{lane.index}", value(lane.value)) for lane in shown]
    masks = ['<th scope="row">v0.t</th>', "<td></td>"]
    masks += [cell(f"lane-{lane.index}", "–" if lane.mask is None else str(int(lane.mask))) for lane in shown]
    active = ['<th scope="row">active</th>', "<td></td>"]
    active += [
        cell(f"lane-{lane.index}", "yes" if lane.active else "no", "" if lane.active else "off")
        for lane in shown
    ]
    accs = ['<th scope="row">running max</th>', cell("seed", value(trace.seed), "acc")]
    accs += [cell(f"lane-{lane.index}", value(lane.acc), "acc") for lane in shown]
    if folded:
        header.append(f"<td{attrs('lane-rest', False)}>{folded[0].index}..{folded[-1].index}</td>")
        values.append(cell("lane-rest", "…"))
        masks.append(cell("lane-rest", "…"))
        active.append(cell("lane-rest", f"{sum(l.active for l in folded)} active"))
        accs.append(cell("lane-rest", value(folded[-1].acc), "acc"))
    old = trace.elements(trace.vd_before)
    new = trace.elements(trace.vd_after)
    # vd's element k sits under column k (lane k), as in the lanes above
    vd = [
        f'<th scope="row">vd = v{insn.vd}</th>',
        "<td></td>",
        f'<td class="vd0"{attrs("vd0", False)}><span class="old" data-until="{attrs.start("vd0")}">'
        f'{value(old[0])}<small>(old)</small></span><span class="anim-vd0" data-from="{attrs.start("vd0")}">'
        f"{value(new[0])}</span>"
        "<small>vd[0]</small></td>",
    ]
    tail_cells = []
    for k in range(1, min(len(new), MAX_TAIL_CELLS + 1)):
        text = "ones" if new[k] != old[k] else "kept"
        tail_cells.append(f'<td class="tail"{attrs("tail")}>{text}<small>[{k}]</small></td>')
    if len(new) > MAX_TAIL_CELLS + 1:
        tail_cells.append(
            f'<td class="tail"{attrs("tail")}>…<small>[{MAX_TAIL_CELLS + 1}..{len(new) - 1}]</small></td>'
        )
    vd += tail_cells
    rows = [header, values, masks, active, accs, vd]
    body = "".join(f"<tr>{''.join(row)}</tr>" for row in rows)
    return (
        f'<div class="lanes-wrap" role="region" aria-label="lane table" tabindex="0">'
        f'<table class="lanes">{body}</table></div>'
    )


def _outcome_html(trace: Trace, attrs) -> str:
    result = trace.result
    if trace.trapped and result.outcome == RESERVED:
        text = f"Outcome: reserved: {result.reason}. Any outcome is allowed; the model changes nothing."
    elif trace.trapped:
        text = f"Outcome: {result.outcome}: {result.reason}. Nothing changes."
    elif not trace.writes:
        text = f"Outcome: retired, {result.reason}."
    else:
        text = (
            f"Outcome: retired; v{trace.insn.vd}[0] = {value_text(trace.written, trace.cfg.sew)}; "
            f"vstart = 0; VS = {VS_NAMES[result.state.vs].capitalize()}."
        )
    return f'<p class="outcome"{attrs("outcome")}>{html.escape(text)}</p>'
