"""The harness's wire format: little-endian binary over a pipe, many cases per process.

    hello     harness -> host   "VREDMAX1", u64 vlenb
    request   host -> harness   u32 word, u32 0, u64 vtype, u64 avl, u64 vstart,
                                32 registers of vlenb bytes (element 0 first)
    response  harness -> host   u32 status (0 retired, 1 SIGILL at the word), u32 0,
                                u64 vl, vtype, vstart read just before the word runs,
                                u64 vl, vtype, vstart afterwards, 32 registers
The harness exits at the end of its input.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

from vredmax.spec.state import NUM_VREGS

MAGIC = b"VREDMAX1"
HELLO = struct.Struct("<8sQ")
REQUEST = struct.Struct("<IIQQQ")
RESPONSE = struct.Struct("<II6Q")
RETIRED, SIGILL = 0, 1


@dataclass(frozen=True)
class Observation:
    """What the harness saw: the CSRs as set up, whether the word trapped, the state after."""

    trapped: bool
    before: tuple[int, int, int]  # (vl, vtype, vstart) just before the word ran
    vl: int
    vtype: int
    vstart: int
    regs: tuple[int, ...]


def pack_request(word: int, vtype: int, avl: int, vstart: int, regs, vlenb: int) -> bytes:
    return REQUEST.pack(word, 0, vtype, avl, vstart) + b"".join(r.to_bytes(vlenb, "little") for r in regs)


def response_size(vlenb: int) -> int:
    return RESPONSE.size + NUM_VREGS * vlenb


def unpack_response(data: bytes, vlenb: int) -> Observation:
    status, _, pre_vl, pre_vtype, pre_vstart, vl, vtype, vstart = RESPONSE.unpack_from(data)
    if status not in (RETIRED, SIGILL):
        raise ValueError(f"harness: unknown status {status}")
    body = data[RESPONSE.size:]
    regs = tuple(int.from_bytes(body[i * vlenb:(i + 1) * vlenb], "little") for i in range(NUM_VREGS))
    return Observation(status == SIGILL, (pre_vl, pre_vtype, pre_vstart), vl, vtype, vstart, regs)
