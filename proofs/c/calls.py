"""Calling the compiled C code through ctypes on one concrete case.

A reduction unit is plugged into the project's instruction step (impl/execute.py), as
check-impl plugs a Python unit: the step reads the operands, the C function computes vd[0].
A whole instruction step gets the `vredmax_state` of vredmax_check.h, its register file a
buffer from the C allocator (so AddressSanitizer guards its bounds), and returns the outcome.
"""

from __future__ import annotations

import ctypes

from vredmax.impl.execute import execute
from vredmax.proofs.c.fast import pack
from vredmax.spec.bv import Concrete
from vredmax.spec.config import XLEN, decode_vtype
from vredmax.spec.legality import ILLEGAL, RESERVED, RETIRED, trap_conditions
from vredmax.spec.state import NUM_VREGS, ArchState

OUTCOMES = {0: RETIRED, 1: ILLEGAL, 2: RESERVED}
# The process's own malloc (the global namespace): under AddressSanitizer, its malloc with red
# zones around each block (a handle on libc itself would give libc's, unguarded).
_LIBC = ctypes.CDLL(None)
_LIBC.malloc.restype = ctypes.c_void_p
_LIBC.malloc.argtypes = [ctypes.c_size_t]
_LIBC.free.argtypes = [ctypes.c_void_p]


class State(ctypes.Structure):
    """struct vredmax_state of vredmax_check.h (the field order and types are the ABI)."""

    _fields_ = [
        ("vregs", ctypes.c_void_p),
        ("vtype", ctypes.c_uint64),
        ("vl", ctypes.c_uint64),
        ("vstart", ctypes.c_uint64),
        ("vs", ctypes.c_uint32),
        ("vlen", ctypes.c_uint32),
        ("elen", ctypes.c_uint32),
    ]


class BadResult(Exception):
    """The C step returned an outcome code that vredmax_check.h does not define."""


def load(path: str, level: str):
    library = ctypes.CDLL(path)
    entry = library.vredmax_entry
    if level == "unit":
        entry.restype = ctypes.c_uint64
        entry.argtypes = [ctypes.c_uint, ctypes.c_uint64, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t]
    else:
        entry.restype = ctypes.c_int
        entry.argtypes = [ctypes.POINTER(State), ctypes.c_uint32]
    return entry


class Buffer:
    """`size` bytes from malloc (an exact-size block: out-of-bounds accesses are caught)."""

    def __init__(self, data: bytes):
        self.size = len(data)
        self.address = _LIBC.malloc(max(self.size, 1))
        if not self.address:
            raise MemoryError("malloc failed")
        ctypes.memmove(self.address, data, self.size)

    def read(self) -> bytes:
        return ctypes.string_at(self.address, self.size)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        _LIBC.free(self.address)


def call_unit(entry, sew: int, seed: int, group: bytes, flags: bytes) -> int:
    """vd[0] as the C unit computes it (its low SEW bits), on packed elements and 0/1 flags."""
    with Buffer(group) as e, Buffer(flags) as a:
        return entry(sew, seed, e.address, a.address, len(flags)) & ((1 << sew) - 1)


def unit_as_reduce(entry):
    """The C unit in the shape impl.execute.step calls (concrete backend)."""

    def reduce(ops, seed, elements, active):
        return call_unit(entry, ops.width, seed, pack(elements, ops.width), bytes(map(bool, active)))

    return reduce


def call_step(entry, pre: ArchState, word: int) -> tuple[str, ArchState]:
    """(outcome kind, post-state) of the C step on a concrete pre-state."""
    vlenb = pre.vlen // 8
    data = b"".join(r.to_bytes(vlenb, "little") for r in pre.regs)
    with Buffer(data) as regs:
        state = State(regs.address, pre.vtype, pre.vl, pre.vstart, pre.vs, pre.vlen, pre.elen)
        code = entry(ctypes.byref(state), word)
        after = regs.read()
    if code not in OUTCOMES:
        raise BadResult(
            f"the step returned {code}, not VREDMAX_RETIRED (0), VREDMAX_ILLEGAL (1) or VREDMAX_RESERVED (2)"
        )
    post_regs = tuple(int.from_bytes(after[r * vlenb : (r + 1) * vlenb], "little") for r in range(NUM_VREGS))
    mask = (1 << XLEN) - 1
    post = ArchState(
        pre.vlen, pre.elen, post_regs, state.vtype & mask, state.vl & mask, state.vstart & mask, state.vs
    )
    return OUTCOMES[code], post


def retires_with_elements(pre: ArchState, insn) -> bool:
    """Whether the spec retires the case with vl > 0 (the only cases a unit is called on)."""
    vt = decode_vtype(pre.vtype, pre.elen)
    if vt.vill or pre.vl == 0:
        return False
    return not any(fired for _, fired in trap_conditions(Concrete, pre, insn, vt.vill, vt.lmul))


def run_c(entry, level: str, pre: ArchState, insn, word: int, tail: str) -> tuple[str, ArchState]:
    """The compiled code's outcome and post-state on a case, at either level."""
    if level == "unit":
        result = execute(pre, insn, tail=tail, reduce=unit_as_reduce(entry))
        return result.outcome, result.state
    return call_step(entry, pre, word)
