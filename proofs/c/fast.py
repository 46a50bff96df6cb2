"""Fast concrete operands and results for the differential runs at large VLEN.

impl/execute.py reads the operands element by element (it is the one source the solver also
proves), about half a second per case at VLMAX = 65536. The differential runs need thousands
of cases, so here the same operands come from bytes and typed arrays at C speed. They only
ever *accept* a case quickly: anything they do not recognise as allowed goes to the full
judge (proofs/c/judge.py), which decides and explains.
"""

from __future__ import annotations

from array import array
from itertools import compress

from vredmax.spec.config import VTYPE_VTA_BIT, Config
from vredmax.spec.state import VS_DIRTY, ArchState

SIGNED = {8: "b", 16: "h", 32: "i", 64: "q"}
UNSIGNED = {8: "B", 16: "H", 32: "I", 64: "Q"}
# byte value -> its eight bits as eight 0/1 bytes, least significant first
_BITS = [bytes((b >> k) & 1 for k in range(8)) for b in range(256)]


def pack(elements, sew: int) -> bytes:
    return array(UNSIGNED[sew], elements).tobytes()


def operands(pre: ArchState, insn, cfg: Config) -> tuple[int, bytes, bytes]:
    """(seed, the vs2 group's elements as bytes, the active flags as 0/1 bytes), as
    impl.execute.operands reads them (registers past v31 wrap around)."""
    vlenb = cfg.vlen // 8
    group = b"".join(
        pre.regs[(insn.vs2 + k) % 32].to_bytes(vlenb, "little") for k in range(cfg.group_registers)
    )
    group = group[: cfg.vlmax * cfg.sew // 8]
    seed = pre.regs[insn.vs1] & ((1 << cfg.sew) - 1)
    n, vl = cfg.vlmax, min(pre.vl, cfg.vlmax)
    if insn.vm:
        flags = b"\x01" * vl
    else:
        mask = (pre.regs[0] & ((1 << vl) - 1)).to_bytes((vl + 7) // 8 or 1, "little")
        flags = b"".join(_BITS[b] for b in mask)[:vl]
    return seed, group, flags + b"\x00" * (n - vl)


def signed_max(seed: int, group: bytes, flags: bytes, sew: int) -> int:
    """The spec's vd[0]: the signed maximum of the seed and the active elements (unsigned form)."""
    values = array(SIGNED[sew], group)
    top = 1 << (sew - 1)
    best = max(compress(values, flags), default=None)
    signed_seed = seed - (1 << sew) if seed & top else seed
    result = signed_seed if best is None else max(best, signed_seed)
    return result % (1 << sew)


def plainly_allowed(cfg: Config, pre: ArchState, insn, kind: str, post: ArchState, expected: int) -> bool:
    """True only when a retired vl > 0 post-state is clearly what the architecture allows:
    vd[0] the expected value, vd's tail kept (or all ones under vta), nothing else changed,
    vstart 0, VS Dirty. False means: ask the full judge."""
    if (
        kind != "retired"
        or post.vl != pre.vl
        or post.vtype != pre.vtype
        or post.vstart != 0
        or post.vs != VS_DIRTY
    ):
        return False
    vd, sew = insn.vd, cfg.sew
    if post.regs[vd] & ((1 << sew) - 1) != expected:
        return False
    tail, old_tail = post.regs[vd] >> sew, pre.regs[vd] >> sew
    ones = (1 << (cfg.vlen - sew)) - 1
    if tail != old_tail and not (pre.vtype >> VTYPE_VTA_BIT & 1 and tail == ones):
        return False
    return all(post.regs[r] == pre.regs[r] for r in range(32) if r != vd)
