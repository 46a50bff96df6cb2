"""Held-out correct implementations in idioms emulator authors use, each with a wrong twin
(issue 33): plain Python, not the project's element ops.

- a unit loop that stops once the running maximum is the type's largest value (a flag carried
  across iterations);
- a compare-and-swap network (odd-even transposition sort) whose top output is the maximum;
- a whole step replacing the inactive elements by the type's minimum (the semilattice's
  bottom, written `-(1 << (w - 1))` or `-2 ** (w - 1)`), then a maximum over all elements;
- a whole step at SEW=64 over a register file of bytes, an element compared as two 32-bit
  halves: high (signed) first, then low (unsigned);
- a whole step over a register file in a class holding a dict;
- four whole steps that write vd for a reserved encoding too, read whole registers at
  fractional LMUL, fill an agnostic tail partly with ones, gate vd's write on vl alone (vill
  implies vl = 0).

Each carries `.expect` and `.where` (tests/buggy/emulators_more.py's `case`);
tests/test_check_impl_idioms.py checks each with the proof alone (`--random 0`).
"""

from vredmax.spec.config import VTYPE_VILL_BIT, VTYPE_VTA_BIT, Config
from vredmax.spec.legality import ILLEGAL, trap_conditions
from vredmax.spec.state import VS_DIRTY
from tests.buggy.emulators_more import case

UNIT16 = Config(128, 64, 8, "m1")  # VLMAX 16
UNIT128 = Config(128, 64, 8, "m8")  # VLMAX 128
UNIT1024 = Config(1024, 64, 8, "m8")  # VLMAX 1024
UNIT65536 = Config(65536, 64, 8, "m8")  # VLMAX 65536
STEP16 = Config(128, 64, 8, "m1")  # VLMAX 16
STEP128 = Config(128, 64, 8, "m8")  # VLMAX 128
STEP1024 = Config(1024, 64, 8, "m8")  # VLMAX 1024
HALVES = Config(2048, 64, 64, "m8")  # VLMAX 256, SEW=64
HALVES_SMALL = Config(256, 64, 64, "m8")  # VLMAX 32, SEW=64
WIDE_ELEMENTS = Config(128, 64, 64, "m8")  # VLMAX 16, SEW=64: one element in vd's tail
FRACTIONAL8 = Config(256, 64, 8, "mf2")  # VLMAX 16, half of vs2 read and dropped


def _signed(x, w):
    return x - (1 << w) if x >> (w - 1) & 1 else x


# Units: a flag carried across iterations -------------------------------------------------------


def _stops_at_top(ops, seed, elements, active, stop_at):
    w = ops.width
    top = stop_at(w)
    acc = _signed(seed, w)
    stopped = False
    for x, a in zip(elements, active):
        if stopped:
            continue
        if a:
            v = _signed(x, w)
            if v > acc:
                acc = v
        if acc == top:
            stopped = True  # nothing can be larger
    return acc & ((1 << w) - 1)


@case("proved", UNIT16, UNIT128)
def stops_at_type_max(ops, seed, elements, active):
    """Stops reading once the running maximum is the largest signed value."""
    return _stops_at_top(ops, seed, elements, active, lambda w: (1 << (w - 1)) - 1)


@case("counterexample", UNIT16, UNIT128)
def stops_one_below_type_max(ops, seed, elements, active):
    """Stops one below the largest value: a larger element after it is missed."""
    return _stops_at_top(ops, seed, elements, active, lambda w: (1 << (w - 1)) - 2)


def _early_return(ops, seed, elements, active, stop_at):
    w = ops.width
    top = stop_at(w)
    acc = _signed(seed, w)
    for i in range(len(elements)):
        if acc == top:
            break
        if active[i] and _signed(elements[i], w) > acc:
            acc = _signed(elements[i], w)
    return acc & ((1 << w) - 1)


@case("proved", UNIT16, UNIT128)
def breaks_at_type_max(ops, seed, elements, active):
    """Leaves the loop once the running maximum is 2**(w-1) - 1."""
    return _early_return(ops, seed, elements, active, lambda w: 2 ** (w - 1) - 1)


@case("counterexample", UNIT16, UNIT128)
def breaks_at_zero(ops, seed, elements, active):
    """Leaves the loop once the running maximum is 0 (a positive element after it is missed)."""
    return _early_return(ops, seed, elements, active, lambda w: 0)


# Units: compare-and-swap networks ----------------------------------------------------------------


def _transposition_sort(values, skip=None):
    """Odd-even transposition sort in place: n rounds of compare-and-swap of neighbours."""
    n = len(values)
    for r in range(n):
        for i in range(r % 2, n - 1, 2):
            if (r, i) == skip:
                continue
            if values[i] > values[i + 1]:
                values[i], values[i + 1] = values[i + 1], values[i]
    return values


def _network(ops, seed, elements, active, skip=None):
    w = ops.width
    lowest = -(1 << (w - 1))
    values = [_signed(seed, w)] + [_signed(x, w) if a else lowest for x, a in zip(elements, active)]
    return _transposition_sort(values, skip)[-1] & ((1 << w) - 1)


@case("proved", UNIT16)
def transposition_sort_top(ops, seed, elements, active):
    """Sorts the seed and the elements (inactive ones as the smallest value) by odd-even
    transposition, takes the last output."""
    return _network(ops, seed, elements, active)


@case("counterexample", UNIT16)
def transposition_sort_missing_comparator(ops, seed, elements, active):
    """The same network without its first comparator: a largest seed ends one short of the top."""
    return _network(ops, seed, elements, active, skip=(0, 0))


def _bubble_top(ops, seed, elements, active, rounds):
    """A bubble pass (compare-and-swap of neighbours, left to right) carries the largest value
    to the end; `rounds` passes."""
    w = ops.width
    lowest = -(1 << (w - 1))
    values = [_signed(seed, w)] + [_signed(x, w) if a else lowest for x, a in zip(elements, active)]
    n = len(values)
    for _ in range(rounds):
        for i in range(n - 1):
            lo, hi = min(values[i], values[i + 1]), max(values[i], values[i + 1])
            values[i], values[i + 1] = lo, hi
    return values[-1] & ((1 << w) - 1)


@case("proved", UNIT16, UNIT1024)
def bubble_pass_top(ops, seed, elements, active):
    """One bubble pass of min/max pairs: the last output is the maximum."""
    return _bubble_top(ops, seed, elements, active, 1)


@case("counterexample", UNIT16)
def bubble_pass_top_first(ops, seed, elements, active):
    """A bubble pass but the first output taken (the minimum's neighbour, not the maximum)."""
    w = ops.width
    lowest = -(1 << (w - 1))
    values = [_signed(seed, w)] + [_signed(x, w) if a else lowest for x, a in zip(elements, active)]
    for i in range(len(values) - 1):
        lo, hi = min(values[i], values[i + 1]), max(values[i], values[i + 1])
        values[i], values[i + 1] = lo, hi
    return values[-2] & ((1 << w) - 1)


def _insertion_sorted(values):
    """A hand-written insertion sort (each new value swapped down while smaller)."""
    out = []
    for v in values:
        out.append(v)
        j = len(out) - 1
        while j > 0:
            if out[j] < out[j - 1]:
                out[j], out[j - 1] = out[j - 1], out[j]
            j -= 1
    return out


def _values(ops, seed, elements, active):
    w = ops.width
    lowest = -(1 << (w - 1))
    return [_signed(seed, w)] + [_signed(x, w) if a else lowest for x, a in zip(elements, active)]


@case("proved", UNIT16)
def insertion_sort_last(ops, seed, elements, active):
    """A hand-written insertion sort of the seed and the elements (inactive: the minimum); the last."""
    return _insertion_sorted(_values(ops, seed, elements, active))[-1] & ((1 << ops.width) - 1)


@case("counterexample", UNIT16)
def insertion_sort_second_last(ops, seed, elements, active):
    """The same taking the second largest."""
    return _insertion_sorted(_values(ops, seed, elements, active))[-2] & ((1 << ops.width) - 1)


def _pairs_then_max(ops, seed, elements, active, keep_lows=True):
    values = _values(ops, seed, elements, active)
    if len(values) % 2:
        values.append(values[0])
    lows, highs = [], []
    for a, b in zip(values[::2], values[1::2]):
        lows.append(min(a, b))
        highs.append(max(a, b))
    return max(highs + (lows if keep_lows else [])) & ((1 << ops.width) - 1)


@case("proved", UNIT16, UNIT1024)
def pairs_min_max_then_max(ops, seed, elements, active):
    """Each pair split into its min and max, then the max of all mins and maxes."""
    return _pairs_then_max(ops, seed, elements, active)


@case("counterexample", UNIT16)
def pairs_mins_only(ops, seed, elements, active):
    """The max of the pairs' mins only."""
    values = _values(ops, seed, elements, active)
    if len(values) % 2:
        values.append(values[0])
    return max(min(a, b) for a, b in zip(values[::2], values[1::2])) & ((1 << ops.width) - 1)


# Whole steps ---------------------------------------------------------------------------------------


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


def _neutral_step(m, pre, insn, cfg, tail, neutral):
    traps = _traps(m, pre, insn, cfg)
    if pre.vl == 0 or any(c for _, c in traps):
        return traps, pre
    sew, per, regs = cfg.sew, cfg.vlen // cfg.sew, list(pre.regs)
    lowest = neutral(sew)
    acc = _signed(regs[insn.vs1] & ((1 << sew) - 1), sew)
    for i in range(cfg.vlmax):
        x = _signed((regs[insn.vs2 + i // per] >> (sew * (i % per))) & ((1 << sew) - 1), sew)
        if not (i < pre.vl and (insn.vm or (regs[0] >> i) & 1)):
            x = lowest  # the identity of max: changes nothing
        if x > acc:
            acc = x
    return _finish(pre, regs, insn.vd, acc, cfg, tail, traps)


@case("proved", STEP16, STEP128, STEP1024)
def step_neutral_shift(m, pre, insn, cfg, tail):
    """Inactive elements replaced by -(1 << (sew - 1)), then a running maximum of all."""
    return _neutral_step(m, pre, insn, cfg, tail, lambda sew: -(1 << (sew - 1)))


@case("proved", STEP16, STEP128, STEP1024)
def step_neutral_power(m, pre, insn, cfg, tail):
    """Inactive elements replaced by -2 ** (sew - 1), then a running maximum of all."""
    return _neutral_step(m, pre, insn, cfg, tail, lambda sew: -(2 ** (sew - 1)))


@case("counterexample", STEP16, STEP128)
def step_neutral_zero(m, pre, insn, cfg, tail):
    """Inactive elements replaced by 0: wrong when every active element and the seed are negative."""
    return _neutral_step(m, pre, insn, cfg, tail, lambda sew: 0)


def _max_of_all_step(m, pre, insn, cfg, tail, neutral):
    traps = _traps(m, pre, insn, cfg)
    if pre.vl == 0 or any(c for _, c in traps):
        return traps, pre
    sew, per, regs = cfg.sew, cfg.vlen // cfg.sew, list(pre.regs)
    mask = (1 << sew) - 1
    values = [
        _signed((regs[insn.vs2 + i // per] >> (sew * (i % per))) & mask, sew)
        if i < pre.vl and (insn.vm or (regs[0] >> i) & 1)
        else neutral(sew)
        for i in range(cfg.vlmax)
    ]
    acc = max(_signed(regs[insn.vs1] & mask, sew), max(values))
    return _finish(pre, regs, insn.vd, acc, cfg, tail, traps)


@case("proved", STEP16, STEP1024)
def step_neutral_max_builtin(m, pre, insn, cfg, tail):
    """A comprehension with `-2 ** (sew - 1)` for the inactive elements, max() of it, then the seed."""
    return _max_of_all_step(m, pre, insn, cfg, tail, lambda sew: -(2 ** (sew - 1)))


@case("counterexample", STEP16)
def step_neutral_max_builtin_off_by_one(m, pre, insn, cfg, tail):
    """The same with -2 ** (sew - 1) + 1: wrong when the seed and every active element are the minimum."""
    return _max_of_all_step(m, pre, insn, cfg, tail, lambda sew: -(2 ** (sew - 1)) + 1)


def _and_mask_step(m, pre, insn, cfg, tail, neutral_bits):
    """Each lane's raw bits kept by an and-mask of all ones (active) or zero, the mask's
    complement filled with `neutral_bits` (the minimum's sign bit: 1 << (sew - 1))."""
    traps = _traps(m, pre, insn, cfg)
    if pre.vl == 0 or any(c for _, c in traps):
        return traps, pre
    sew, per, regs = cfg.sew, cfg.vlen // cfg.sew, list(pre.regs)
    mask = (1 << sew) - 1
    best = _signed(regs[insn.vs1] & mask, sew)
    for i in range(cfg.vlmax):
        on = (i < pre.vl) & (insn.vm | ((regs[0] >> i) & 1))
        keep = -on & mask
        raw = ((regs[insn.vs2 + i // per] >> (sew * (i % per))) & keep) | (neutral_bits(sew) & ~keep & mask)
        if _signed(raw, sew) > best:
            best = _signed(raw, sew)
    return _finish(pre, regs, insn.vd, best, cfg, tail, traps)


@case("proved", STEP16, STEP1024)
def step_neutral_by_and_mask(m, pre, insn, cfg, tail):
    """Inactive lanes made the minimum's bit pattern through an and-mask, then a running maximum."""
    return _and_mask_step(m, pre, insn, cfg, tail, lambda sew: 1 << (sew - 1))


@case("counterexample", STEP16)
def step_zero_by_and_mask(m, pre, insn, cfg, tail):
    """The same with inactive lanes made 0."""
    return _and_mask_step(m, pre, insn, cfg, tail, lambda sew: 0)


def _halves_step(m, pre, insn, cfg, tail, low_signed=False):
    """SEW=64 elements read from a register file of bytes as two 32-bit halves."""
    traps = _traps(m, pre, insn, cfg)
    if pre.vl == 0 or any(c for _, c in traps):
        return traps, pre
    vlenb = cfg.vlen // 8
    vrf = [r.to_bytes(vlenb, "little") for r in pre.regs]
    per = vlenb // 8

    def halves(reg, j):
        b = reg[8 * j : 8 * j + 8]
        return int.from_bytes(b[4:], "little", signed=True), int.from_bytes(
            b[:4], "little", signed=low_signed
        )

    hi, lo = halves(vrf[insn.vs1], 0)
    for i in range(cfg.vlmax):
        if i >= pre.vl:
            break
        if not insn.vm and not (pre.regs[0] >> i) & 1:
            continue
        h, low = halves(vrf[insn.vs2 + i // per], i % per)
        if h > hi or (h == hi and low > lo):
            hi, lo = h, low
    acc = ((hi & 0xFFFFFFFF) << 32) | (lo & 0xFFFFFFFF)
    return _finish(pre, list(pre.regs), insn.vd, acc, cfg, tail, traps)


@case("proved", HALVES_SMALL, HALVES)
def step_bytes_as_halves(m, pre, insn, cfg, tail):
    """Registers as bytes; an element's high half compared signed, then its low half unsigned."""
    return _halves_step(m, pre, insn, cfg, tail)


@case("counterexample", HALVES_SMALL)
def step_bytes_as_halves_low_signed(m, pre, insn, cfg, tail):
    """The same with the low half compared signed."""
    return _halves_step(m, pre, insn, cfg, tail, low_signed=True)


class _RegisterFile:
    """Vector registers in a dict by number, with element accessors."""

    def __init__(self, regs, cfg):
        self.regs = {n: r for n, r in enumerate(regs)}
        self.sew, self.per = cfg.sew, cfg.vlen // cfg.sew

    def element(self, group, i):
        return (self.regs[group + i // self.per] >> (self.sew * (i % self.per))) & ((1 << self.sew) - 1)

    def set_element(self, reg, i, value):
        shift = self.sew * i
        self.regs[reg] = (self.regs[reg] & ~(((1 << self.sew) - 1) << shift)) | (
            (value & ((1 << self.sew) - 1)) << shift
        )

    def fill_tail(self, reg, start, vlen):
        self.regs[reg] |= ((1 << vlen) - 1) & ~((1 << (self.sew * start)) - 1)

    def as_tuple(self):
        return tuple(self.regs[n] for n in range(32))


def _class_dict_step(m, pre, insn, cfg, tail, target=lambda insn: insn.vd):
    traps = _traps(m, pre, insn, cfg)
    if pre.vl == 0 or any(c for _, c in traps):
        return traps, pre
    rf, sew = _RegisterFile(pre.regs, cfg), cfg.sew
    acc = _signed(rf.element(insn.vs1, 0), sew)
    for i in range(cfg.vlmax):
        if i < pre.vl and (insn.vm or (rf.regs[0] >> i) & 1):
            x = _signed(rf.element(insn.vs2, i), sew)
            if x > acc:
                acc = x
    vd = target(insn)
    rf.set_element(vd, 0, acc)
    if tail == "ones" and (pre.vtype >> VTYPE_VTA_BIT) & 1:
        rf.fill_tail(vd, 1, cfg.vlen)
    return traps, pre.with_(regs=rf.as_tuple(), vstart=0, vs=VS_DIRTY)


@case("proved", STEP16, STEP1024)
def step_class_dict(m, pre, insn, cfg, tail):
    """A class holding the registers in a dict; vd's element 0 set, its tail filled by the class."""
    return _class_dict_step(m, pre, insn, cfg, tail)


@case("counterexample", STEP16)
def step_class_dict_writes_vs1(m, pre, insn, cfg, tail):
    """The same writing the result into vs1 instead of vd."""
    return _class_dict_step(m, pre, insn, cfg, tail, target=lambda insn: insn.vs1)


def _with_min_of_two(m, pre, insn, cfg, tail, guarded):
    traps = _traps(m, pre, insn, cfg)
    if pre.vl == 0 or any(c for _, c in traps):
        return traps, pre
    sew, per, regs = cfg.sew, cfg.vlen // cfg.sew, list(pre.regs)

    def element(i):
        return _signed((regs[insn.vs2 + i // per] >> (sew * (i % per))) & ((1 << sew) - 1), sew)

    def active(i):
        return i < pre.vl and (insn.vm or (regs[0] >> i) & 1)

    acc = _signed(regs[insn.vs1] & ((1 << sew) - 1), sew)
    for i in range(cfg.vlmax):
        if active(i) and element(i) > acc:
            acc = element(i)
    low = min(element(0), element(1))  # the smaller of the first two lanes
    if not guarded or (active(0) and active(1)):
        acc = max(acc, low)  # nothing new when both are active: it is below them
    return _finish(pre, regs, insn.vd, acc, cfg, tail, traps)


@case("proved", STEP16)
def step_joins_a_minimum_of_active_lanes(m, pre, insn, cfg, tail):
    """Joins min(vs2[0], vs2[1]) again when both lanes are active: it changes nothing."""
    return _with_min_of_two(m, pre, insn, cfg, tail, guarded=True)


@case("counterexample", STEP16)
def step_joins_a_minimum_of_any_lanes(m, pre, insn, cfg, tail):
    """Joins min(vs2[0], vs2[1]) whether or not they are active: wrong when both are inactive
    and larger than the result (the result is then between two guarded maxima, the lower one
    the spec's: it must not be taken for the result)."""
    return _with_min_of_two(m, pre, insn, cfg, tail, guarded=False)


# Whole steps around the reduction: reserved encodings, whole registers, tails, vill -------------


def _emulator(
    m,
    pre,
    insn,
    cfg,
    tail,
    *,
    stop,
    whole=False,
    half_ones=False,
    last_inactive=False,
    signed=True,
    vl_bits=None,
):
    """An emulator's step; `stop(traps)` says which traps keep the registers."""
    traps = _traps(m, pre, insn, cfg)
    vl = pre.vl if vl_bits is None else pre.vl & ((1 << vl_bits) - 1)
    if stop(traps) or vl == 0:
        return traps, pre
    sew = cfg.sew
    per = cfg.vlen // sew
    emask = (1 << sew) - 1
    regs = list(pre.regs)
    read = (lambda x: _signed(x, sew)) if signed else (lambda x: x)
    group = []
    for k in range(cfg.group_registers if cfg.group_registers >= 1 else 1):
        r = regs[(insn.vs2 + k) % 32]  # a reserved encoding may run past v31
        count = per if whole else min(per, cfg.vlmax)
        for j in range(count):
            group.append((r >> (j * sew)) & emask)
    acc = read(regs[insn.vs1] & emask)
    for i in range(cfg.vlmax):
        if last_inactive and i == cfg.vlmax - 1:
            break
        if i < pre.vl and (insn.vm == 1 or (regs[0] >> i) & 1 == 1):
            x = read(group[i])
            if x > acc:
                acc = x
    # vd as signed elements too, the result put in, the agnostic tail's elements made -1
    elements = [read((regs[insn.vd] >> (j * sew)) & emask) for j in range(per)]
    elements[0] = acc
    if tail == "ones" and (pre.vtype >> VTYPE_VTA_BIT) & 1:
        for j in range(per // 2 if half_ones else 1, per):
            elements[j] = -1
    value = 0
    for j in reversed(range(per)):
        value = (value << sew) | (elements[j] & emask)
    regs[insn.vd] = value
    return traps, pre.with_(regs=tuple(regs), vstart=0, vs=VS_DIRTY)


def _illegal_only(traps):
    return any(c for rule, c in traps if rule.outcome == ILLEGAL)


def _all_traps(traps):
    return any(c for _, c in traps)


def _all_but_vill(traps):
    return any(c for rule, c in traps if rule.id != "vill")


@case("proved", WIDE_ELEMENTS)
def emulator_writes_when_reserved(m, pre, insn, cfg, tail):
    """(a) vd written for a reserved encoding too: only an illegal instruction keeps the registers."""
    return _emulator(m, pre, insn, cfg, tail, stop=_illegal_only)


@case("counterexample", WIDE_ELEMENTS)
def emulator_writes_when_reserved_unsigned(m, pre, insn, cfg, tail):
    """The same comparing raw (unsigned) element values."""
    return _emulator(m, pre, insn, cfg, tail, stop=_illegal_only, signed=False)


@case("proved", WIDE_ELEMENTS, FRACTIONAL8)
def emulator_whole_registers(m, pre, insn, cfg, tail):
    """(b) every register of the group read whole (at fractional LMUL, elements past VLMAX too)."""
    return _emulator(m, pre, insn, cfg, tail, stop=_all_traps, whole=True)


@case("counterexample", WIDE_ELEMENTS)
def emulator_whole_registers_last_dropped(m, pre, insn, cfg, tail):
    """The same stopping one element short."""
    return _emulator(m, pre, insn, cfg, tail, stop=_all_traps, whole=True, last_inactive=True)


@case("proved", WIDE_ELEMENTS)
def emulator_tail_half_ones(m, pre, insn, cfg, tail):
    """(c) an agnostic tail's upper half all ones, its lower half undisturbed."""
    return _emulator(m, pre, insn, cfg, tail, stop=_all_traps, half_ones=True)


@case("counterexample", WIDE_ELEMENTS)
def emulator_tail_half_ones_unsigned(m, pre, insn, cfg, tail):
    """The same comparing raw (unsigned) element values."""
    return _emulator(m, pre, insn, cfg, tail, stop=_all_traps, half_ones=True, signed=False)


@case("proved", WIDE_ELEMENTS)
def emulator_gated_on_vl(m, pre, insn, cfg, tail):
    """(d) no test of vill of its own: vill implies vl = 0."""
    return _emulator(m, pre, insn, cfg, tail, stop=_all_but_vill)


@case("counterexample", WIDE_ELEMENTS)
def emulator_gated_on_vl_in_4_bits(m, pre, insn, cfg, tail):
    """The same with vl read in 4 bits: vl = 16 taken for 0."""
    return _emulator(m, pre, insn, cfg, tail, stop=_all_but_vill, vl_bits=4)


UNITS = (
    stops_at_type_max,
    stops_one_below_type_max,
    breaks_at_type_max,
    breaks_at_zero,
    transposition_sort_top,
    transposition_sort_missing_comparator,
    bubble_pass_top,
    bubble_pass_top_first,
    insertion_sort_last,
    insertion_sort_second_last,
    pairs_min_max_then_max,
    pairs_mins_only,
)
STEPS = (
    step_neutral_shift,
    step_neutral_power,
    step_neutral_zero,
    step_neutral_max_builtin,
    step_neutral_max_builtin_off_by_one,
    step_neutral_by_and_mask,
    step_zero_by_and_mask,
    step_bytes_as_halves,
    step_bytes_as_halves_low_signed,
    step_class_dict,
    step_class_dict_writes_vs1,
    step_joins_a_minimum_of_active_lanes,
    step_joins_a_minimum_of_any_lanes,
    emulator_writes_when_reserved,
    emulator_writes_when_reserved_unsigned,
    emulator_whole_registers,
    emulator_whole_registers_last_dropped,
    emulator_tail_half_ones,
    emulator_tail_half_ones_unsigned,
    emulator_gated_on_vl,
    emulator_gated_on_vl_in_4_bits,
)
