"""One execution shown to a person: the instruction, the configuration, the seed, the lane
table and the outcome (`human_view`, for `vredmax exec` and a conformance mismatch), and the
outcomes a profile allows (`allowed_view`, for `vredmax exec --profile`)."""

from __future__ import annotations

from vredmax.impl.execute import operands
from vredmax.presentation.values import lane_table, value_text
from vredmax.spec.bv import Concrete
from vredmax.spec.config import Config, decode_vtype
from vredmax.spec.encoding import encode, format_asm
from vredmax.spec.legality import RETIRED
from vredmax.spec.profiles import ANYTHING, readings
from vredmax.spec.state import VS_NAMES


def human_view(pre, insn, tail, impl, result, max_rows) -> list[str]:
    vt = decode_vtype(pre.vtype, pre.elen)
    lines = [f"{format_asm(insn)}    ({encode(insn):#010x})"]
    machine = f"VLEN={pre.vlen} ELEN={pre.elen}"
    if vt.vill:
        lines.append(f"{machine} vtype={pre.vtype:#x} (vill) vl={pre.vl} vstart={pre.vstart}")
    else:
        cfg = Config(pre.vlen, pre.elen, vt.sew, vt.lmul)
        lines.append(
            f"{machine} SEW={vt.sew} LMUL={vt.lmul} VLMAX={cfg.vlmax} vl={pre.vl} "
            f"vstart={pre.vstart} vta={int(vt.vta)} vma={int(vt.vma)} "
            f"VS={VS_NAMES[pre.vs]} tail={tail} impl={impl}"
        )
    if result.outcome != RETIRED:
        lines += ["", f"outcome: {result.outcome}: {result.reason}", "nothing changed"]
        return lines
    seed, elements, active = operands(Concrete, pre, insn, cfg)
    lines.append(f"seed vs1[0] = v{insn.vs1}[0] = {value_text(seed, vt.sew)}")
    if pre.vl == 0:
        lines += ["", f"outcome: retired ({result.reason})"]
        return lines
    mask = None if insn.vm else Concrete.bits(pre.regs[0], pre.vl)
    lines.append("")
    lines += lane_table(seed, elements[: pre.vl], mask, active[: pre.vl], vt.sew, max_rows)
    written = Concrete.extract(result.state.regs[insn.vd], vt.sew - 1, 0)
    tail_changed = result.state.regs[insn.vd] >> vt.sew != pre.regs[insn.vd] >> vt.sew
    lines += [
        "",
        f"result vd[0] = v{insn.vd}[0] = {value_text(written, vt.sew)}",
        f"tail of v{insn.vd}: {'set to all ones' if tail_changed else 'unchanged'}",
        f"outcome: retired; vstart=0, VS={VS_NAMES[result.state.vs]}",
    ]
    return lines


def allowed_view(answer, max_rows: int) -> list[str]:
    """The human view: the lane table of the spec's reading, then each allowed outcome."""
    pre, insn = answer.pre, answer.insn
    lines = [f"{format_asm(insn)}    ({encode(insn):#010x})", f"profile: {answer.profile.name}"]
    for option in answer.outcomes:
        lines.append("")
        if option.kind == ANYTHING:
            lines.append(f"allowed: anything ({option.reason}): every outcome and every post-state")
            continue
        if option.kind != RETIRED:
            vs = " or ".join(VS_NAMES[v] for v in sorted(option.vs))
            lines.append(f"allowed: {option.kind}: {option.reason}; nothing changes (VS {vs})")
            continue
        vs = " or ".join(VS_NAMES[v] for v in sorted(option.vs))
        if pre.vl == 0:
            lines.append(f"allowed: retired ({option.reason}); VS {vs}")
            continue
        vt = next(v for v in readings(pre, answer.profile.frac_sew) if not v.vill)
        cfg = Config(pre.vlen, pre.elen, vt.sew, vt.lmul)
        seed, elements, active = operands(Concrete, pre, insn, cfg)
        mask = None if insn.vm else Concrete.bits(pre.regs[0], pre.vl)
        lines.append(
            f"SEW={vt.sew} LMUL={vt.lmul} VLMAX={cfg.vlmax} vl={pre.vl} vta={int(vt.vta)}"
            + (f" ({option.rule}: v0 read as the mask and as data)" if option.rule else "")
        )
        lines.append(f"seed vs1[0] = v{insn.vs1}[0] = {value_text(seed, vt.sew)}")
        lines += lane_table(seed, elements[: pre.vl], mask, active[: pre.vl], vt.sew, max_rows)
        written = option.post.regs[insn.vd] & ((1 << vt.sew) - 1)
        tail = (
            "each element keeps its value or becomes all ones"
            if option.tail
            else "unchanged"
            if option.post.regs[insn.vd] >> vt.sew == pre.regs[insn.vd] >> vt.sew
            else "all ones"
        )
        lines += [
            f"allowed: retired; vd[0] = v{insn.vd}[0] = {value_text(written, vt.sew)}",
            f"tail of v{insn.vd}: {tail}",
            f"vstart=0, VS {vs}",
        ]
    return lines
