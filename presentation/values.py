"""Human views: values as `#xfe (254, -2)` and the lane table of the seed's animation."""

from __future__ import annotations

from vredmax.impl.sequential import running_max
from vredmax.spec.bv import ConcreteElements


def value_text(value: int, width: int) -> str:
    """Hex, unsigned and signed, as Alive2 prints values."""
    signed = value - (1 << width) if value >> (width - 1) & 1 else value
    return f"#x{value:0{(width + 3) // 4}x} ({value}, {signed})"


def lane_table(seed, elements, mask, active, width: int, max_rows: int = 64) -> list[str]:
    """One row per lane: vs2[i] in hex and signed, the mask bit, active, and the running max.

    `mask` is a list of mask bits, or None when the instruction is unmasked.
    """
    ops = ConcreteElements(width)
    digits = (width + 3) // 4
    signed_width = len(str(-(1 << (width - 1))))
    header = f"{'lane':>5}  {'vs2[i]':<{digits + 2}}  {'signed':>{signed_width}}  v0.t  active  running max"
    lines = [header]
    for i, acc in enumerate(running_max(ops, seed, elements, active)):
        if i == max_rows:
            lines.append(f"  ... {len(elements) - max_rows} more lanes (raise --max-rows to see them)")
            break
        bit = "-" if mask is None else str(int(mask[i]))
        lines.append(
            f"{i:>5}  0x{elements[i]:0{digits}x}  {ops.to_signed(elements[i]):>{signed_width}}  "
            f"{bit:>4}  {'yes' if active[i] else 'no':<6}  0x{acc:0{digits}x}"
        )
    return lines
