"""Two results or states side by side, field by field: what a failed `==` between
impl.execute.Results (or ArchStates, or strategies.Cases) shows under pytest
(vredmax/pytest_plugin.py), each register by SEW element as `#xfe (254, -2)`."""

from __future__ import annotations

from dataclasses import fields, is_dataclass

from vredmax.presentation.values import value_text
from vredmax.spec.config import decode_vtype
from vredmax.spec.state import VS_NAMES, ArchState

MAX_ELEMENTS = 8  # differing elements listed per register


def _element_width(state: ArchState) -> int:
    vt = decode_vtype(state.vtype, state.elen)
    return state.elen if vt.vill else vt.sew


def register_differences(name: str, a: int, b: int, vlen: int, sew: int) -> list[str]:
    """The differing SEW-bit elements of one register, at most MAX_ELEMENTS of them."""
    mask = (1 << sew) - 1
    differing = [k for k in range(vlen // sew) if (a >> (k * sew)) & mask != (b >> (k * sew)) & mask]
    lines = [
        f"{name}[{k}]: {value_text(a >> (k * sew) & mask, sew)} != {value_text(b >> (k * sew) & mask, sew)}"
        for k in differing[:MAX_ELEMENTS]
    ]
    if len(differing) > MAX_ELEMENTS:
        lines.append(f"{name}: and {len(differing) - MAX_ELEMENTS} more elements differ (of {vlen // sew})")
    return lines


def state_differences(a: ArchState, b: ArchState, prefix: str = "") -> list[str]:
    """Each field of two concrete states that differs (registers by element of the SEW that
    the left state's vtype selects)."""
    lines = []
    for name in ("vlen", "elen", "vtype", "vl", "vstart"):
        if getattr(a, name) != getattr(b, name):
            lines.append(f"{prefix}{name}: {getattr(a, name)!r} != {getattr(b, name)!r}")
    if a.vs != b.vs:
        shown = lambda vs: VS_NAMES[vs] if isinstance(vs, int) and 0 <= vs < len(VS_NAMES) else repr(vs)  # noqa: E731
        lines.append(f"{prefix}vs: {shown(a.vs)} != {shown(b.vs)}")
    if len(a.regs) != len(b.regs) or a.vlen != b.vlen:
        return lines + (
            [f"{prefix}regs: {len(a.regs)} registers != {len(b.regs)}"] if len(a.regs) != len(b.regs) else []
        )
    width = _element_width(a)
    for number, (x, y) in enumerate(zip(a.regs, b.regs)):
        if x != y:
            lines += register_differences(f"{prefix}v{number}", x, y, a.vlen, width)
    return lines


def differences(a, b, prefix: str = "") -> list[str] | None:
    """Field by field, for two values of the same dataclass type holding ArchStates (an
    execution Result, a Case) or two ArchStates; None for anything else."""
    if type(a) is not type(b):
        return None
    if isinstance(a, ArchState):
        return state_differences(a, b, prefix)
    if not (is_dataclass(a) or hasattr(a, "_fields")):
        return None
    names = [f.name for f in fields(a)] if is_dataclass(a) else list(a._fields)
    lines = []
    for name in names:
        x, y = getattr(a, name), getattr(b, name)
        if isinstance(x, ArchState) and isinstance(y, ArchState):
            lines += state_differences(x, y, f"{prefix}{name}.")
        elif x != y:
            lines.append(f"{prefix}{name}: {x!r} != {y!r}")
    return lines
