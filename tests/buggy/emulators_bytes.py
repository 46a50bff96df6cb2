"""Implementations that keep values as bytes, as emulator authors write them: `int.to_bytes` /
`int.from_bytes` for a sign, `struct.pack`/`unpack` with the integer formats, `bytes([...])`, a
`bytearray` accumulator, a register file as a list of bytes per register sliced at `i * nb`.

Each carries `.expect` (the proof's verdict with `--random 0`) and `.where` (the configurations:
for a wrong one, where its bug lives). tests/test_check_impl_bytes.py checks each. Before
proofs/python/symbytes.py, every one of them was an ERROR ("bytes cannot hold symbolic values").
"""

import struct

from vredmax.spec.config import VTYPE_VILL_BIT, VTYPE_VTA_BIT, Config
from vredmax.spec.legality import trap_conditions
from vredmax.spec.state import VS_DIRTY

MONOLITHIC = Config(128, 64, 64, "m1")  # VLMAX 2, SEW=64: eight bytes per element
MONO16 = Config(128, 64, 16, "m1")  # VLMAX 8, SEW=16 (a unit: cut points)
CUT = Config(128, 64, 8, "m8")  # VLMAX 128: cut points
CUT16 = Config(128, 64, 16, "m8")  # VLMAX 64, SEW=16: two bytes per element
STEP_MONO = Config(128, 64, 64, "m1")  # a whole step: VLMAX 2, the monolithic query
STEP_CUT = Config(128, 64, 8, "m1")  # a whole step cut at its reduction, VLMAX 16
STEP_WIDE = Config(128, 64, 8, "m8")  # VLMAX 128: eight registers of bytes
STEP16 = Config(128, 64, 16, "m2")  # VLMAX 16, SEW=16: the result's two bytes written back


def case(expect: str, *where: Config):
    def mark(function):
        function.expect, function.where = expect, list(where) or [CUT]
        return function

    return mark


def s(x, w):
    """The signed value of a w-bit field, through its bytes."""
    return int.from_bytes(x.to_bytes(w // 8, "little"), "little", signed=True)


_CODES = {8: "b", 16: "h", 32: "i", 64: "q"}


# Units: correct ---------------------------------------------------------------------------------


@case("proved", MONOLITHIC, CUT)
def from_bytes_signed(ops, seed, elements, active):
    """The loop of an emulator, the sign taken by a round trip through bytes."""
    w = ops.width
    best = s(seed, w)
    for x, a in zip(elements, active):
        if a and s(x, w) > best:
            best = s(x, w)
    return best & ((1 << w) - 1)


@case("proved", MONOLITHIC, CUT)
def struct_signed(ops, seed, elements, active):
    """struct.pack unsigned, struct.unpack signed, of the element's width."""
    w = ops.width
    code = _CODES[w]

    def signed(x):
        return struct.unpack("<" + code, struct.pack("<" + code.upper(), x))[0]

    best = signed(seed)
    for x, a in zip(elements, active):
        if a:
            best = max(best, signed(x))
    return struct.unpack("<" + code.upper(), struct.pack("<" + code, best))[0]


@case("proved", MONOLITHIC, CUT)
def packed_register(ops, seed, elements, active):
    """The elements packed into one bytes value (b"".join), read back with one struct.unpack_from
    of n signed values, the result turned unsigned through its bytes."""
    w, n = ops.width, len(elements)
    raw = b"".join(x.to_bytes(w // 8, "little") for x in elements)
    values = struct.unpack_from(f"<{n}{_CODES[w]}", raw)
    best = s(seed, w)
    for v, a in zip(values, active):
        if a and v > best:
            best = v
    return int.from_bytes(best.to_bytes(w // 8, "little", signed=True), "little")


@case("proved", MONOLITHIC, CUT)
def big_endian_bytes_compare(ops, seed, elements, active):
    """Signed order as the order of byte strings: the sign bit flipped, big-endian bytes compared
    as bytes compare (lexicographically)."""
    nb, top = ops.width // 8, 1 << (ops.width - 1)
    best = (seed ^ top).to_bytes(nb, "big")
    for x, a in zip(elements, active):
        key = (x ^ top).to_bytes(nb, "big")
        best = key if a and key > best else best
    return int.from_bytes(best, "big") ^ top


@case("proved", MONOLITHIC, CUT)
def bytearray_accumulator(ops, seed, elements, active):
    """The accumulator kept in a bytearray, its bytes replaced byte by byte."""
    w, nb = ops.width, ops.width // 8
    acc = bytearray(seed.to_bytes(nb, "little"))
    for x, a in zip(elements, active):
        if a and s(x, w) > int.from_bytes(acc, "little", signed=True):
            new = x.to_bytes(nb, "little")
            for k in range(nb):
                acc[k] = new[k]
    return int.from_bytes(bytes(acc), "little")


# Units: wrong -------------------------------------------------------------------------------------


@case("counterexample", MONOLITHIC, CUT)
def from_bytes_unsigned(ops, seed, elements, active):
    """signed=False where the sign is needed: vredmaxu."""
    w = ops.width
    best = int.from_bytes(seed.to_bytes(w // 8, "little"), "little")
    for x, a in zip(elements, active):
        value = int.from_bytes(x.to_bytes(w // 8, "little"), "little")
        if a and value > best:
            best = value
    return best


@case("counterexample", MONOLITHIC, CUT16)
def byte_order_mixed(ops, seed, elements, active):
    """to_bytes little-endian, from_bytes big-endian: right at SEW=8 only."""
    w = ops.width

    def signed(x):
        return int.from_bytes(x.to_bytes(w // 8, "little"), "big", signed=True)

    best, result = signed(seed), seed
    for x, a in zip(elements, active):
        if a and signed(x) > best:
            best, result = signed(x), x
    return result


@case("counterexample", MONOLITHIC, CUT16)
def struct_wrong_width(ops, seed, elements, active):
    """The sign from a struct format of 8 bits ('<b' of the element's low byte) at every SEW."""
    best, result = struct.unpack("<b", struct.pack("<Q", seed)[:1])[0], seed
    for x, a in zip(elements, active):
        value = struct.unpack("<b", struct.pack("<Q", x)[:1])[0]
        if a and value > best:
            best, result = value, x
    return result


@case("counterexample", MONOLITHIC, CUT)
def bytes_big_endian_unsigned(ops, seed, elements, active):
    """Big-endian bytes compared without flipping the sign bit: vredmaxu."""
    nb = ops.width // 8
    best = seed
    for x, a in zip(elements, active):
        if a and x.to_bytes(nb, "big") > best.to_bytes(nb, "big"):
            best = x
    return best


@case("error", MONOLITHIC, CUT)
def to_bytes_signed_overflows(ops, seed, elements, active):
    """to_bytes(signed=True) of the unsigned element: OverflowError from 2^(SEW-1) on, on ints and
    on the path of the proof where the value does not fit (never assumed to fit)."""
    w = ops.width
    best = s(seed, w)
    for x, a in zip(elements, active):
        value = int.from_bytes(x.to_bytes(w // 8, "little", signed=True), "little", signed=True)
        if a and value > best:
            best = value
    return best & ((1 << w) - 1)


# Whole steps --------------------------------------------------------------------------------------


def _traps(m, pre, insn, cfg):
    return trap_conditions(m, pre, insn, m.bit(pre.vtype, VTYPE_VILL_BIT), cfg.lmul)


def _bytes_file_step(m, pre, insn, cfg, tail, order="little", signed=True):
    """The register file as a list of bytes per register; an element is a slice of its register,
    read with int.from_bytes; vd written back through a bytearray."""
    traps = _traps(m, pre, insn, cfg)
    if pre.vl == 0 or any(c for _, c in traps):
        return traps, pre
    vlenb, nb, per = cfg.vlen // 8, cfg.sew // 8, cfg.vlen // cfg.sew
    regs = [r.to_bytes(vlenb, "little") for r in pre.regs]
    acc = int.from_bytes(regs[insn.vs1][0:nb], "little", signed=True)
    for i in range(cfg.vlmax):
        if i < pre.vl and (insn.vm or regs[0][i // 8] >> (i % 8) & 1):
            reg = regs[insn.vs2 + i // per]
            k = i % per
            x = int.from_bytes(reg[k * nb : (k + 1) * nb], order, signed=signed)
            if x > acc:
                acc = x
    out = bytearray(regs[insn.vd])
    out[0:nb] = (acc & ((1 << cfg.sew) - 1)).to_bytes(nb, "little")
    value = int.from_bytes(out, "little")
    if tail == "ones" and pre.vtype >> VTYPE_VTA_BIT & 1:
        value |= ((1 << cfg.vlen) - 1) & ~((1 << cfg.sew) - 1)
    new = [int.from_bytes(r, "little") for r in regs]
    new[insn.vd] = value
    return traps, pre.with_(regs=tuple(new), vstart=0, vs=VS_DIRTY)


@case("proved", STEP_MONO, STEP_CUT, STEP_WIDE)
def step_bytes_file(m, pre, insn, cfg, tail):
    return _bytes_file_step(m, pre, insn, cfg, tail)


@case("counterexample", STEP_MONO, STEP16)
def step_bytes_file_big_endian(m, pre, insn, cfg, tail):
    """Reads each element's bytes big-endian."""
    return _bytes_file_step(m, pre, insn, cfg, tail, order="big")


@case("counterexample", STEP_MONO, STEP_CUT)
def step_bytes_file_unsigned(m, pre, insn, cfg, tail):
    """Reads the elements unsigned (the seed signed): wrong where an element is negative."""
    return _bytes_file_step(m, pre, insn, cfg, tail, signed=False)


@case("proved", STEP_MONO, STEP_CUT, STEP16)
def step_struct_file(m, pre, insn, cfg, tail):
    """Elements with struct.unpack_from at k * nb of their register's bytes; vd written back as
    bytes into the list of bytes (regs[vd] = ...), the post-state's registers read from it."""
    traps = _traps(m, pre, insn, cfg)
    if pre.vl == 0 or any(c for _, c in traps):
        return traps, pre
    vlenb, nb, per = cfg.vlen // 8, cfg.sew // 8, cfg.vlen // cfg.sew
    code = "<" + _CODES[cfg.sew]
    regs = [r.to_bytes(vlenb, "little") for r in pre.regs]
    acc = struct.unpack_from(code, regs[insn.vs1])[0]
    for i in range(cfg.vlmax):
        if i >= pre.vl:
            break
        if not insn.vm and not regs[0][i // 8] >> (i % 8) & 1:
            continue
        x = struct.unpack_from(code, regs[insn.vs2 + i // per], (i % per) * nb)[0]
        acc = max(acc, x)
    ones = tail == "ones" and pre.vtype >> VTYPE_VTA_BIT & 1
    rest = b"\xff" * (vlenb - nb) if ones else regs[insn.vd][nb:]
    regs[insn.vd] = struct.pack(code, acc) + rest
    new = tuple(int.from_bytes(r, "little") for r in regs)
    return traps, pre.with_(regs=new, vstart=0, vs=VS_DIRTY)


UNITS = (
    from_bytes_signed,
    struct_signed,
    packed_register,
    big_endian_bytes_compare,
    bytearray_accumulator,
    from_bytes_unsigned,
    byte_order_mixed,
    struct_wrong_width,
    bytes_big_endian_unsigned,
    to_bytes_signed_overflows,
)
STEPS = (step_bytes_file, step_bytes_file_big_endian, step_bytes_file_unsigned, step_struct_file)
