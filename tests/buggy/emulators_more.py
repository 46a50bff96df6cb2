"""More implementations as emulator authors write them (see tests/buggy/emulators.py).

Whole steps whose operands are the spec's by value but not the same terms (an element put
together from its bytes, the group's register as `vs2 | k`, the inactive elements replaced
before the reduction, the register file in a class), and units and steps with a bug where a
real author would put it: a lane far from 0, SEW=64 only, LMUL=m8 only, a byte order slip, a
sign extension from the wrong bit, the wrong register. Each carries `.expect` and `.where` (the
configurations where it gets that verdict; for a wrong one, where the bug lives).
tests/test_check_impl_more.py checks each with the proof alone (`--random 0`).
"""

from vredmax.spec.config import VTYPE_VILL_BIT, VTYPE_VTA_BIT, Config
from vredmax.spec.legality import trap_conditions
from vredmax.spec.state import VS_DIRTY

MONOLITHIC = Config(128, 64, 64, "m1")  # VLMAX 2: the monolithic query
CUT = Config(128, 64, 8, "m1")  # VLMAX 16: cut points
STEP16 = Config(128, 64, 16, "m2")  # VLMAX 16, SEW=16 (elements of two bytes), two registers
STEP64 = Config(256, 64, 64, "m8")  # VLMAX 32, SEW=64 m8: the widest elements, 8 registers
WIDE = Config(128, 64, 8, "m8")  # VLMAX 128, m8
GROUP = Config(128, 64, 8, "m2")  # VLMAX 32, m2: vs2 + 1 read


def case(expect: str, *where: Config):
    def mark(function):
        function.expect, function.where = expect, list(where) or [CUT]
        return function

    return mark


# Units ----------------------------------------------------------------------------------------


def _signed(x, w):
    return x - (1 << w) if x >> (w - 1) else x


@case("proved", CUT, WIDE)
def max_with_default(ops, seed, elements, active):
    """max() of the active lanes' signed values with the seed as its default, then with the seed."""
    w = ops.width
    best = max((_signed(x, w) for x, a in zip(elements, active) if a), default=_signed(seed, w))
    return max(best, _signed(seed, w)) & ((1 << w) - 1)


@case("proved", CUT, WIDE)
def offset_binary(ops, seed, elements, active):
    """Signed order as unsigned order after flipping the sign bit (offset binary)."""
    w = ops.width
    flip = 1 << (w - 1)
    best = seed ^ flip
    for x, a in zip(elements, active):
        if a and (x ^ flip) > best:
            best = x ^ flip
    return best ^ flip


@case("counterexample", WIDE)
def stops_at_lane_100(ops, seed, elements, active):
    """A loop bound left from a test with 100 lanes: lanes 100 and above are never read."""
    w = ops.width
    best = _signed(seed, w)
    for i, (x, a) in enumerate(zip(elements, active)):
        if i >= 100:
            break
        if a and _signed(x, w) > best:
            best = _signed(x, w)
    return best & ((1 << w) - 1)


@case("counterexample", MONOLITHIC)
def sign_from_bit_31(ops, seed, elements, active):
    """Takes the sign from bit 31: right at SEW <= 32, wrong at SEW=64 only."""
    w = ops.width
    bit = min(w, 32) - 1
    best = seed
    for x, a in zip(elements, active):
        if a and (x ^ (1 << bit)) > (best ^ (1 << bit)):
            best = x
    return best


@case("counterexample", WIDE)
def lane_77_reads_78(ops, seed, elements, active):
    """An unrolled loop with a typo: lane 77 reads element 78 (VLMAX 79 and above only)."""
    w = ops.width
    best = _signed(seed, w)
    for i, a in enumerate(active):
        x = elements[78] if i == 77 else elements[i]
        if a and _signed(x, w) > best:
            best = _signed(x, w)
    return best & ((1 << w) - 1)


def _back_to_unsigned(ops, seed, elements, active, below):
    w = ops.width
    best = _signed(seed, w)
    for x, a in zip(elements, active):
        if a and _signed(x, w) > best:
            best = _signed(x, w)
    return best + (1 << w) if best < below else best


@case("proved", CUT, Config(128, 64, 8, "mf4"))
def back_to_unsigned_by_hand(ops, seed, elements, active):
    """`best + 2**w if best < 0 else best`: in range, though the interval of each branch says
    -128..383 (the range is proved of the result's top operations, the rest free)."""
    return _back_to_unsigned(ops, seed, elements, active, 0)


@case("error", CUT, Config(128, 64, 8, "mf4"))
def back_to_unsigned_from_minus_2(ops, seed, elements, active):
    """The same from -2 down: -1 is returned as it is, outside 0..255 (refused: the contract)."""
    return _back_to_unsigned(ops, seed, elements, active, -1)


def _on_flags(ops, seed, elements, active, wrong):
    w = ops.width
    best = _signed(seed, w)
    for x, a in zip(elements, active):
        on = bool(a or (x | 1)) if wrong else bool(a and (x | 1))  # a bool or an int, then its truth
        if on and _signed(x, w) > best:
            best = _signed(x, w)
    return best & ((1 << w) - 1)


@case("proved", CUT)
def flag_as_bool_of_and(ops, seed, elements, active):
    """`on = bool(a and (x | 1))`: the `and` gives a bool or an int, bool() only its truth (merged
    as a test's; taken as a value it could not be merged: a path per lane, refused past 64)."""
    return _on_flags(ops, seed, elements, active, wrong=False)


@case("counterexample", CUT)
def flag_as_bool_of_or(ops, seed, elements, active):
    """The same with `or`: every element counts."""
    return _on_flags(ops, seed, elements, active, wrong=True)


# Whole steps ----------------------------------------------------------------------------------


def _traps(m, pre, insn, cfg):
    return trap_conditions(m, pre, insn, m.bit(pre.vtype, VTYPE_VILL_BIT), cfg.lmul)


def _finish(pre, regs, vd, acc, cfg, tail, traps):
    """vd[0] = acc, the rest of vd kept (or all ones for an agnostic tail)."""
    mask = (1 << cfg.sew) - 1
    new = (regs[vd] & ~mask) | (acc & mask)
    if tail == "ones" and pre.vtype >> VTYPE_VTA_BIT & 1:
        new |= ((1 << cfg.vlen) - 1) & ~mask
    regs[vd] = new
    return traps, pre.with_(regs=tuple(regs), vstart=0, vs=VS_DIRTY)


def _retires(m, pre, insn, cfg):
    traps = _traps(m, pre, insn, cfg)
    return traps, not (pre.vl == 0 or any(c for _, c in traps))


def _element_from_bytes(regs, group, i, cfg, order="little"):
    """Element i of a group, put together from its bytes (as an emulator reading memory)."""
    nb, per = cfg.sew // 8, cfg.vlen // cfg.sew
    reg = regs[group + i // per]
    base = (i % per) * nb
    places = range(nb) if order == "little" else range(nb - 1, -1, -1)
    parts = [(reg >> (8 * (base + j))) & 0xFF for j in places]
    value = 0
    for j, byte in enumerate(parts):
        value |= byte << (8 * j)
    return value


def _bytes_step(m, pre, insn, cfg, tail, order="little"):
    traps, retires = _retires(m, pre, insn, cfg)
    if not retires:
        return traps, pre
    sew, regs = cfg.sew, list(pre.regs)

    def signed(x):
        return x - (1 << sew) if x >> (sew - 1) else x

    acc = signed(_element_from_bytes(regs, insn.vs1, 0, cfg))
    for i in range(cfg.vlmax):
        if i < pre.vl and (insn.vm == 1 or (regs[0] >> i) & 1 == 1):
            x = signed(_element_from_bytes(regs, insn.vs2, i, cfg, order))
            if x > acc:
                acc = x
    return _finish(pre, regs, insn.vd, acc, cfg, tail, traps)


@case("proved", STEP16)
def step_bytes_concat(m, pre, insn, cfg, tail):
    """Each element put together from its bytes, lowest byte first."""
    return _bytes_step(m, pre, insn, cfg, tail)


@case("counterexample", STEP16)
def step_bytes_big_endian(m, pre, insn, cfg, tail):
    """Puts each element together from its bytes in the wrong (big-endian) order."""
    return _bytes_step(m, pre, insn, cfg, tail, order="big")


def _or_step(m, pre, insn, cfg, tail, sign_bits=None, group_or=True, per=None, group_bits=None):
    traps, retires = _retires(m, pre, insn, cfg)
    if not retires:
        return traps, pre
    sew, regs = cfg.sew, list(pre.regs)
    per = per or cfg.vlen // cfg.sew
    top = sign_bits or sew

    def signed(x):
        return x - (1 << top) if x >> (top - 1) & 1 else x

    acc = signed(regs[insn.vs1] & ((1 << sew) - 1))
    for i in range(cfg.vlmax):
        if i >= pre.vl:
            break
        if not insn.vm and not (regs[0] >> i) & 1:
            continue
        k = i // per if group_bits is None else (i // per) % (1 << group_bits)
        reg = regs[insn.vs2 | k] if group_or else regs[insn.vs2 + k]
        x = signed((reg >> (sew * (i % per))) & ((1 << sew) - 1))
        if x > acc:
            acc = x
    return _finish(pre, regs, insn.vd, acc, cfg, tail, traps)


@case("proved", STEP16, STEP64)
def step_group_or(m, pre, insn, cfg, tail):
    """The group's register k as `vs2 | k` (vs2 is aligned to the group, so it is vs2 + k)."""
    return _or_step(m, pre, insn, cfg, tail)


@case("counterexample", STEP64)
def step_sign_at_bit_31(m, pre, insn, cfg, tail):
    """Sign-extends from bit 31: right at SEW <= 32, wrong at SEW=64 only."""
    return _or_step(m, pre, insn, cfg, tail, sign_bits=min(cfg.sew, 32))


@case("counterexample", STEP16)
def step_per_register_in_bytes(m, pre, insn, cfg, tail):
    """Counts the elements of a register as VLEN/8 (bytes): right at SEW=8, wrong from SEW=16
    with LMUL >= 2 (the second register of the group is never reached)."""
    return _or_step(m, pre, insn, cfg, tail, group_or=False, per=cfg.vlen // 8)


@case("counterexample", WIDE)
def step_group_index_in_2_bits(m, pre, insn, cfg, tail):
    """Keeps the register of the group in 2 bits (written when LMUL stopped at 4): wrong at m8 only."""
    return _or_step(m, pre, insn, cfg, tail, group_bits=2)


def _ite_step(m, pre, insn, cfg, tail, smallest_fn=None, last=None):
    traps, retires = _retires(m, pre, insn, cfg)
    if not retires:
        return traps, pre
    sew, per, regs = cfg.sew, cfg.vlen // cfg.sew, list(pre.regs)
    smallest = -(1 << (sew - 1)) if smallest_fn is None else smallest_fn(sew)

    def signed(x):
        return x - (1 << sew) if x >> (sew - 1) else x

    values = []
    for i in range(cfg.vlmax if last is None else min(last, cfg.vlmax)):
        x = signed((regs[insn.vs2 + i // per] >> (sew * (i % per))) & ((1 << sew) - 1))
        active = i < pre.vl and (insn.vm == 1 or (regs[0] >> i) & 1 == 1)
        values.append(x if active else smallest)
    acc = max([signed(regs[insn.vs1] & ((1 << sew) - 1))] + values)
    return _finish(pre, regs, insn.vd, acc, cfg, tail, traps)


@case("proved", CUT, WIDE)
def step_inactive_replaced(m, pre, insn, cfg, tail):
    """The inactive elements replaced by the smallest value, then max() of them all."""
    return _ite_step(m, pre, insn, cfg, tail)


@case("counterexample", CUT)
def step_inactive_as_zero(m, pre, insn, cfg, tail):
    """The inactive elements replaced by 0 (not the smallest value): wrong when all are negative."""
    return _ite_step(m, pre, insn, cfg, tail, smallest_fn=lambda sew: 0)


@case("counterexample", WIDE)
def step_last_lanes_dropped(m, pre, insn, cfg, tail):
    """Reads 120 lanes at most (a constant of a test configuration): wrong at VLMAX 128 only."""
    return _ite_step(m, pre, insn, cfg, tail, last=120)


class _VectorUnit:
    """A register file object: a list of registers, element and mask accessors."""

    def __init__(self, regs, cfg):
        self.regs, self.sew, self.per = list(regs), cfg.sew, cfg.vlen // cfg.sew

    def element(self, group, i):
        return (self.regs[group + i // self.per] >> (self.sew * (i % self.per))) & ((1 << self.sew) - 1)

    def mask_bit(self, i):
        return (self.regs[0] >> i) & 1 == 1


def _object_step(m, pre, insn, cfg, tail, seed_register=None):
    traps, retires = _retires(m, pre, insn, cfg)
    if not retires:
        return traps, pre
    vu, sew = _VectorUnit(pre.regs, cfg), cfg.sew

    def signed(x):
        return x - (1 << sew) if x >> (sew - 1) else x

    active = [
        vu.element(insn.vs2, i) for i in range(cfg.vlmax) if i < pre.vl and (insn.vm == 1 or vu.mask_bit(i))
    ]
    seed = vu.element(insn.vs1 if seed_register is None else seed_register(insn), 0)
    acc = max([seed] + active, key=signed)
    return _finish(pre, vu.regs, insn.vd, acc, cfg, tail, traps)


@case("proved", CUT, WIDE)
def step_register_object(m, pre, insn, cfg, tail):
    """The registers in an object; max() with a key over the active elements, filtered by
    `i < pre.vl and (insn.vm == 1 or mask bit)`."""
    return _object_step(m, pre, insn, cfg, tail)


@case("counterexample", CUT)
def step_seed_from_vs2(m, pre, insn, cfg, tail):
    """Reads the seed from vs2[0] (the wrong register)."""
    return _object_step(m, pre, insn, cfg, tail, seed_register=lambda insn: insn.vs2)


def _dict_step(m, pre, insn, cfg, tail, group_of=lambda k: k, clear_vd=False):
    """The register file as dict(enumerate(regs)), read at `vs2 + k` (a key whose bounds pass
    31: before the whole register file was recognised there, a 31-way choice per element)."""
    traps, retires = _retires(m, pre, insn, cfg)
    if not retires:
        return traps, pre
    vrf, sew, per = dict(enumerate(pre.regs)), cfg.sew, cfg.vlen // cfg.sew
    if clear_vd:
        vrf[insn.vd] = 0

    def element(group, i):
        return (vrf[group + group_of(i // per)] >> (sew * (i % per))) & ((1 << sew) - 1)

    def signed(x):
        return x - (1 << sew) if x >> (sew - 1) else x

    acc = signed(element(insn.vs1, 0))
    for i in range(min(pre.vl, cfg.vlmax)):
        if insn.vm or vrf[0] >> i & 1:
            acc = max(acc, signed(element(insn.vs2, i)))
    regs = [vrf[n] for n in range(32)]
    return _finish(pre, regs, insn.vd, acc, cfg, tail, traps)


@case("proved", GROUP, WIDE)
def step_dict_of_registers(m, pre, insn, cfg, tail):
    """The registers in dict(enumerate(pre.regs)), elements of register vs2 + i // per."""
    return _dict_step(m, pre, insn, cfg, tail)


@case("counterexample", WIDE)
def step_dict_group_in_2_bits(m, pre, insn, cfg, tail):
    """The dict register file read at vs2 + (i // per) % 4: wrong with LMUL=m8 only."""
    return _dict_step(m, pre, insn, cfg, tail, group_of=lambda k: k % 4)


@case("counterexample", GROUP)
def step_dict_vd_cleared_first(m, pre, insn, cfg, tail):
    """Clears vd in the dict before the loop: wrong when vd is vs1 or in vs2's group (the dict
    is then no copy of the register file, read at vs2 + k by choosing among its values)."""
    return _dict_step(m, pre, insn, cfg, tail, clear_vd=True)


UNITS = (
    max_with_default,
    offset_binary,
    stops_at_lane_100,
    sign_from_bit_31,
    lane_77_reads_78,
    back_to_unsigned_by_hand,
    back_to_unsigned_from_minus_2,
    flag_as_bool_of_and,
    flag_as_bool_of_or,
)
STEPS = (
    step_bytes_concat,
    step_bytes_big_endian,
    step_group_or,
    step_sign_at_bit_31,
    step_per_register_in_bytes,
    step_group_index_in_2_bits,
    step_inactive_replaced,
    step_inactive_as_zero,
    step_last_lanes_dropped,
    step_register_object,
    step_seed_from_vs2,
    step_dict_of_registers,
    step_dict_group_in_2_bits,
    step_dict_vd_cleared_first,
)
