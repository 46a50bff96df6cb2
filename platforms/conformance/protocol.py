"""The harness's wire format: little-endian binary over a pipe, many cases per process.

    hello     harness -> host   "VREDMAX2", u64 vlenb
    request   host -> harness   u32 word, u32 0, u64 mstatus.VS to set (machine mode only),
                                u64 vtype, u64 avl, u64 vstart,
                                32 registers of vlenb bytes (element 0 first)
    response  harness -> host   u32 status (0 retired, 1 an illegal-instruction trap at the word), u32 0,
                                u64 vl, vtype, vstart, VS read just before the word runs,
                                u64 vl, vtype, vstart, VS afterwards, 32 registers
VS reads as all ones where the harness cannot see it (user mode). The harness exits at the end
of its input.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

from vredmax.spec.state import NUM_VREGS

MAGIC = b"VREDMAX2"
HELLO = struct.Struct("<8sQ")
REQUEST = struct.Struct("<IIQQQQ")
RESPONSE = struct.Struct("<II8Q")
RETIRED, TRAPPED = 0, 1
NOT_VISIBLE = (1 << 64) - 1


@dataclass(frozen=True)
class Observation:
    """What the harness saw: the CSRs as set up, whether the word trapped, the state after.
    `vs` (and the fourth value of `before`) is None where mstatus.VS is not visible."""

    trapped: bool
    before: tuple  # (vl, vtype, vstart, vs) just before the word ran
    vl: int
    vtype: int
    vstart: int
    regs: tuple[int, ...]
    vs: int | None = None


def pack_request(word: int, vs: int, vtype: int, avl: int, vstart: int, regs, vlenb: int) -> bytes:
    return REQUEST.pack(word, 0, vs, vtype, avl, vstart) + b"".join(r.to_bytes(vlenb, "little") for r in regs)


def response_size(vlenb: int) -> int:
    return RESPONSE.size + NUM_VREGS * vlenb


def _vs(value: int) -> int | None:
    return None if value == NOT_VISIBLE else value


def unpack_response(data: bytes, vlenb: int) -> Observation:
    status, _, pre_vl, pre_vtype, pre_vstart, pre_vs, vl, vtype, vstart, vs = RESPONSE.unpack_from(data)
    if status not in (RETIRED, TRAPPED):
        raise ValueError(f"harness: unknown status {status}")
    body = data[RESPONSE.size :]
    regs = tuple(int.from_bytes(body[i * vlenb : (i + 1) * vlenb], "little") for i in range(NUM_VREGS))
    return Observation(
        status == TRAPPED, (pre_vl, pre_vtype, pre_vstart, _vs(pre_vs)), vl, vtype, vstart, regs, _vs(vs)
    )
