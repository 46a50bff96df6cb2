"""Small hand-written members of the families of generated programs
(tests/generated/python_programs.py) that the proof once stopped on, each correct one with a
wrong twin. Each carries `.expect` and `.where` (as tests/buggy/emulators_more.py);
tests/test_generated_families.py checks each with the proof alone (`--random 0`).

- a mask packed into an int (`bits |= 1 << k` for each active lane, then `bits >> i & 1`):
  the condition is computed from the flags alone through ints (proofs/python/flagbits.py);
- sorted() of more than 256 values read at an end (`sorted(vals)[-1]`,
  `sorted(vals, reverse=True)[0]`): only the ends are built (pybuiltins.SortedEnds).
- a register file of bytearrays read at `regs[vs2 + i // per]` and written back as
  `regs[vd] = new` (a bytearray into a list of bytes or of bytearrays): the object read or
  stored is a choice of objects (symbytes.Choice); read through a memoryview of bytes, as
  the bytes.
- a signed result brought back to an element value by a condition (`best + 2**W if best < 0
  else best`) after a running maximum of neutral-element values written as arithmetic
  (`x * on + MIN * (1 - on)`): the result's range is asked of the solver with the maximum one
  of its leaf shapes (proofs/python/selections.py), not a free value.
- a `while` loop that breaks at vl over a register file of bytes (`i` is `i + 1` where the
  round ran, `i` where it broke): inside a later round, which runs only where no break
  happened, the index is read as the round's own (branches._read_under_guards), so the bytes
  are sliced at a concrete `i * nb`; the loop ends where no input reaches another round.
  Each element then reaches the result under a disjunction over the round the loop broke in,
  the spec's `k < vl` in its normal form over vl (proofs/python/scalarpieces.py): at VLMAX
  1024 the one query comparing them timed out.
- sorted() of Python ints a step reads as two halves of bytes (signed by `(x ^ TOP) - TOP`,
  an inactive one made the minimum by `x * on + MIN * (1 - on)`): the compare-and-swaps of
  its sorting network compare a value sign-extended by the step (`sext(x)`, a cut point of
  the element) with one computed wide (a join encoded as sign-extended) as one encoding
  (cutpoint.Denoter.extended), and a deeper cone takes joins apart before a leaf written
  another way (`(x ^ TOP) - TOP`, whose inside is x xor'd).
"""

from vredmax.spec.config import VTYPE_VILL_BIT, VTYPE_VTA_BIT, Config
from vredmax.spec.legality import trap_conditions
from vredmax.spec.state import VS_DIRTY

CUT = Config(128, 64, 8, "m1")  # VLMAX 16: cut points
WIDE = Config(128, 64, 8, "m8")  # VLMAX 128
LONG = Config(512, 64, 8, "m8")  # VLMAX 512: more than sorted()'s 256
SCALE_1024 = Config(4096, 64, 16, "m4")  # VLMAX 1024, as the generated programs' bench
HALVES = Config(128, 64, 32, "m4")  # VLMAX 16 at SEW 32: cut points (the whole query is too slow)
SMALL = Config(128, 64, 32, "m1")  # VLMAX 4: the monolithic query (at the cut, a step that
# writes vd through bytes is still UNKNOWN: the reduction is seen joining vd's old element)


def case(expect: str, *where: Config):
    def mark(function):
        function.expect, function.where = expect, list(where) or [CUT]
        return function

    return mark


def _signed(x, w):
    return x - (1 << w) if x >> (w - 1) else x


# A mask packed into an int --------------------------------------------------------------------


def _packed_mask(ops, seed, elements, active, lane):
    W = ops.width
    bits = 0
    for k, a in enumerate(active):
        if a:
            bits |= 1 << k
    best = _signed(seed, W)
    for i in range(len(elements)):
        if bits >> lane(i) & 1:
            best = max(best, _signed(elements[i], W))
    return best & ((1 << W) - 1)


@case("proved", CUT, WIDE)
def mask_packed_in_an_int(ops, seed, elements, active):
    return _packed_mask(ops, seed, elements, active, lambda i: i)


@case("counterexample", CUT, WIDE)
def mask_packed_read_one_lane_off(ops, seed, elements, active):
    """Lane i read at bit i + 1 (the last lane at a bit never set)."""
    return _packed_mask(ops, seed, elements, active, lambda i: i + 1)


@case("proved", CUT)
def mask_counted_then_compared(ops, seed, elements, active):
    """Each flag as 0 or 1 summed into a count, the count compared: conditions over the flags
    through additions. (At VLMAX 128 still UNKNOWN: a cone of the count's widening.)"""
    W = ops.width
    best, seen = _signed(seed, W), 0
    for i in range(len(elements)):
        before = seen
        seen += 1 if active[i] else 0
        if seen != before:
            best = max(best, _signed(elements[i], W))
    return best & ((1 << W) - 1)


@case("counterexample", CUT, WIDE)
def mask_counted_skips_the_first_active(ops, seed, elements, active):
    W = ops.width
    best, seen = _signed(seed, W), 0
    for i in range(len(elements)):
        seen += 1 if active[i] else 0
        if active[i] and seen >= 2:
            best = max(best, _signed(elements[i], W))
    return best & ((1 << W) - 1)


# sorted() of many values -----------------------------------------------------------------------


def _values(seed, elements, active, W):
    return [_signed(seed, W)] + [_signed(e, W) if a else -(1 << (W - 1)) for e, a in zip(elements, active)]


@case("proved", LONG)
def sorted_long_last(ops, seed, elements, active):
    W = ops.width
    return sorted(_values(seed, elements, active, W))[-1] & ((1 << W) - 1)


@case("proved", LONG)
def sorted_long_reverse_first(ops, seed, elements, active):
    W = ops.width
    return sorted(_values(seed, elements, active, W), reverse=True)[0] & ((1 << W) - 1)


@case("proved", LONG)
def sorted_long_by_key_last_slice(ops, seed, elements, active):
    """The last of a slice of the end, by a key (the unsigned order of the biased values),
    indexed from the front."""
    W = ops.width
    top = 1 << (W - 1)
    vals = [seed] + [e if a else top for e, a in zip(elements, active)]
    ends = sorted(vals, key=lambda v: v ^ top)[len(vals) - 1 :]
    return ends[0]


@case("counterexample", LONG)
def sorted_long_second_last(ops, seed, elements, active):
    W = ops.width
    return sorted(_values(seed, elements, active, W))[-2] & ((1 << W) - 1)


@case("counterexample", LONG)
def sorted_long_first(ops, seed, elements, active):
    """The least, not the greatest."""
    W = ops.width
    return sorted(_values(seed, elements, active, W))[0] & ((1 << W) - 1)


# A register file of bytearrays ---------------------------------------------------------------


def _bytearray_step(m, pre, insn, cfg, tail, keep="bytearrays", order="little", write_at=0, view=False):
    traps = trap_conditions(m, pre, insn, m.bit(pre.vtype, VTYPE_VILL_BIT), cfg.lmul)
    if any(fired for _, fired in traps) or pre.vl == 0:
        return traps, pre
    sew, nb, per, vlenb = cfg.sew, cfg.sew // 8, cfg.vlen // cfg.sew, cfg.vlen // 8
    if keep == "bytes":
        regs = [r.to_bytes(vlenb, "little") for r in pre.regs]
    else:
        regs = [bytearray(r.to_bytes(vlenb, "little")) for r in pre.regs]

    def signed(x):
        return x - (1 << sew) if x >> (sew - 1) else x

    def read(reg):
        return memoryview(reg) if view else reg

    best = signed(int.from_bytes(read(regs[insn.vs1])[0:nb], "little"))
    for i in range(cfg.vlmax):
        if i < pre.vl and (insn.vm or (pre.regs[0] >> i) & 1):
            at = nb * (i % per)
            best = max(best, signed(int.from_bytes(read(regs[insn.vs2 + i // per])[at : at + nb], order)))
    new = bytearray(regs[insn.vd])
    new[write_at : write_at + nb] = (best & ((1 << sew) - 1)).to_bytes(nb, "little")
    if tail == "ones" and pre.vtype >> VTYPE_VTA_BIT & 1:
        new[nb:] = b"\xff" * (vlenb - nb)
    regs[insn.vd] = new
    post = tuple(int.from_bytes(r, "little") for r in regs)
    return traps, pre.with_(regs=post, vstart=0, vs=VS_DIRTY)


@case("proved", SMALL)
def step_bytearray_registers(m, pre, insn, cfg, tail):
    return _bytearray_step(m, pre, insn, cfg, tail)


@case("proved", SMALL)
def step_bytes_registers_bytearray_stored(m, pre, insn, cfg, tail):
    """A list of bytes, the new vd stored as a bytearray."""
    return _bytearray_step(m, pre, insn, cfg, tail, keep="bytes")


@case("counterexample", SMALL)
def step_bytearray_registers_big_endian(m, pre, insn, cfg, tail):
    return _bytearray_step(m, pre, insn, cfg, tail, order="big")


@case("counterexample", SMALL)
def step_bytearray_registers_written_at_element_1(m, pre, insn, cfg, tail):
    return _bytearray_step(m, pre, insn, cfg, tail, write_at=2)


@case("proved", SMALL)
def step_bytes_registers_read_through_memoryview(m, pre, insn, cfg, tail):
    """`int.from_bytes(memoryview(regs[vs2 + i // per])[at:at + nb], ...)` of a list of bytes."""
    return _bytearray_step(m, pre, insn, cfg, tail, keep="bytes", view=True)


@case("counterexample", SMALL)
def step_bytes_registers_read_through_memoryview_big_endian(m, pre, insn, cfg, tail):
    return _bytearray_step(m, pre, insn, cfg, tail, keep="bytes", order="big", view=True)


def _in_place_step(m, pre, insn, cfg, tail, write_at=0):
    """vd changed in place through the list (`regs[insn.vd][0:nb] = ...`), after a read of
    vs2 through it: the changes must reach the register that aliases vs2 when vd == vs2."""
    traps = trap_conditions(m, pre, insn, m.bit(pre.vtype, VTYPE_VILL_BIT), cfg.lmul)
    if any(fired for _, fired in traps) or pre.vl == 0:
        return traps, pre
    sew, nb, per, vlenb = cfg.sew, cfg.sew // 8, cfg.vlen // cfg.sew, cfg.vlen // 8
    regs = [bytearray(r.to_bytes(vlenb, "little")) for r in pre.regs]

    def signed(x):
        return x - (1 << sew) if x >> (sew - 1) else x

    first = regs[insn.vs2]  # the object: it would see a change of vd when vd == vs2
    best = signed(int.from_bytes(regs[insn.vs1][0:nb], "little"))
    for i in range(cfg.vlmax):
        if i < pre.vl and (insn.vm or (pre.regs[0] >> i) & 1):
            reg = first if i < per else regs[insn.vs2 + i // per]
            at = nb * (i % per)
            best = max(best, signed(int.from_bytes(reg[at : at + nb], "little")))
    regs[insn.vd][write_at : write_at + nb] = (best & ((1 << sew) - 1)).to_bytes(nb, "little")
    if tail == "ones" and pre.vtype >> VTYPE_VTA_BIT & 1:
        regs[insn.vd][nb:] = b"\xff" * (vlenb - nb)
    post = tuple(int.from_bytes(r, "little") for r in regs)
    return traps, pre.with_(regs=post, vstart=0, vs=VS_DIRTY)


@case("proved", SMALL)
def step_bytearray_changed_in_place(m, pre, insn, cfg, tail):
    """(Its twin writing element 1 in place is not PROVED, but Z3 gives no model in time at
    VLMAX 4: bitwuzla finds the counterexample.)"""
    return _in_place_step(m, pre, insn, cfg, tail)


# A while loop that breaks at vl ------------------------------------------------------------------


def _while_step(m, pre, insn, cfg, tail, past_vl=False):
    traps = trap_conditions(m, pre, insn, m.bit(pre.vtype, VTYPE_VILL_BIT), cfg.lmul)
    if any(fired for _, fired in traps) or pre.vl == 0:
        return traps, pre
    sew, nb, per, vlenb = cfg.sew, cfg.sew // 8, cfg.vlen // cfg.sew, cfg.vlen // 8
    regs = [r.to_bytes(vlenb, "little") for r in pre.regs]

    def signed(x):
        return x - (1 << sew) if x >> (sew - 1) else x

    best = signed(int.from_bytes(regs[insn.vs1][0:nb], "little"))
    i = 0
    while i < cfg.vlmax:
        if (i > pre.vl) if past_vl else (i >= pre.vl):
            break
        if insn.vm or (pre.regs[0] >> i) & 1:
            at = nb * (i % per)
            best = max(best, signed(int.from_bytes(regs[insn.vs2 + i // per][at : at + nb], "little")))
        i += 1
    new = bytearray(regs[insn.vd])
    new[0:nb] = (best & ((1 << sew) - 1)).to_bytes(nb, "little")
    if tail == "ones" and pre.vtype >> VTYPE_VTA_BIT & 1:
        new[nb:] = b"\xff" * (vlenb - nb)
    regs[insn.vd] = bytes(new)
    post = tuple(int.from_bytes(r, "little") for r in regs)
    return traps, pre.with_(regs=post, vstart=0, vs=VS_DIRTY)


@case("proved", CUT, SCALE_1024)
def step_while_breaks_at_vl_bytes_registers(m, pre, insn, cfg, tail):
    return _while_step(m, pre, insn, cfg, tail)


@case("counterexample", CUT)
def step_while_breaks_past_vl_bytes_registers(m, pre, insn, cfg, tail):
    """`if i > vl: break`: element vl joins the maximum."""
    return _while_step(m, pre, insn, cfg, tail, past_vl=True)


# sorted() of Python ints a step reads as halves ------------------------------------------------


def _sorted_halves_step(m, pre, insn, cfg, tail, neutral_zero=False):
    traps = trap_conditions(m, pre, insn, m.bit(pre.vtype, VTYPE_VILL_BIT), cfg.lmul)
    if any(fired for _, fired in traps) or pre.vl == 0:
        return traps, pre
    sew, nb, per, vlenb = cfg.sew, cfg.sew // 8, cfg.vlen // cfg.sew, cfg.vlen // 8
    top = 1 << (sew - 1)
    regs = [r.to_bytes(vlenb, "little") for r in pre.regs]

    def read(reg, k):  # the high half, then the low half, of element k: signed by xor
        at, half = nb * k, nb // 2
        high = int.from_bytes(regs[reg][at + half : at + nb], "little")
        x = high << (sew // 2) | int.from_bytes(regs[reg][at : at + half], "little")
        return (x ^ top) - top

    neutral = 0 if neutral_zero else -top
    vals = [read(insn.vs1, 0)]
    for i in range(cfg.vlmax):
        on = 1 if i < pre.vl and (insn.vm or pre.regs[0] >> i & 1) else 0
        vals.append(read(insn.vs2 + i // per, i % per) * on + neutral * (1 - on))
    best = sorted(vals, reverse=True)[0]
    new = bytearray(regs[insn.vd])
    new[0:nb] = (best & ((1 << sew) - 1)).to_bytes(nb, "little")
    if tail == "ones" and pre.vtype >> VTYPE_VTA_BIT & 1:
        new[nb:] = b"\xff" * (vlenb - nb)
    regs[insn.vd] = new
    post = tuple(int.from_bytes(r, "little") for r in regs)
    return traps, pre.with_(regs=post, vstart=0, vs=VS_DIRTY)


@case("proved", HALVES)
def step_sorted_of_halves_neutral_by_product(m, pre, insn, cfg, tail):
    return _sorted_halves_step(m, pre, insn, cfg, tail)


@case("counterexample", HALVES)
def step_sorted_of_halves_neutral_zero(m, pre, insn, cfg, tail):
    """0 for an inactive element: wrong when every active one and the seed are negative."""
    return _sorted_halves_step(m, pre, insn, cfg, tail, neutral_zero=True)


# A signed result brought back by a condition ---------------------------------------------------


def _brought_back(ops, seed, elements, active, tree, neutral):
    W = ops.width

    def signed(x):
        return x - ((x >> (W - 1)) << W)

    def largest(vals, lo, hi):
        if hi - lo == 1:
            return vals[lo]
        mid = (lo + hi) // 2
        a, b = largest(vals, lo, mid), largest(vals, mid, hi)
        return b if b > a else a

    NEUTRAL = neutral(W)
    vals = [signed(e) * (1 if a else 0) + NEUTRAL * (0 if a else 1) for e, a in zip(elements, active)]
    if tree:
        best = largest(vals, 0, len(vals))
    else:
        best = NEUTRAL
        for v in vals:
            best = v if v > best else best
    best = signed(seed) if signed(seed) > best else best
    return best + (1 << W) if best < 0 else best


@case("proved", WIDE)
def brought_back_after_a_tree_of_neutral_values(ops, seed, elements, active):
    return _brought_back(ops, seed, elements, active, True, lambda w: -(1 << (w - 1)))


@case("counterexample", WIDE)
def brought_back_after_a_tree_neutral_zero(ops, seed, elements, active):
    # 0 for an inactive element: wrong when the seed and every active element are negative
    return _brought_back(ops, seed, elements, active, True, lambda w: 0)


@case("proved", WIDE)
def brought_back_after_a_loop_of_neutral_values(ops, seed, elements, active):
    return _brought_back(ops, seed, elements, active, False, lambda w: -(1 << (w - 1)))


@case("counterexample", WIDE)
def brought_back_after_a_loop_neutral_one_above(ops, seed, elements, active):
    # MIN + 1 for an inactive element: wrong when the seed and every active element are MIN
    return _brought_back(ops, seed, elements, active, False, lambda w: 1 - (1 << (w - 1)))


UNITS = [
    brought_back_after_a_tree_of_neutral_values,
    brought_back_after_a_tree_neutral_zero,
    brought_back_after_a_loop_of_neutral_values,
    brought_back_after_a_loop_neutral_one_above,
    mask_packed_in_an_int,
    mask_packed_read_one_lane_off,
    mask_counted_then_compared,
    mask_counted_skips_the_first_active,
    sorted_long_last,
    sorted_long_reverse_first,
    sorted_long_by_key_last_slice,
    sorted_long_second_last,
    sorted_long_first,
]
STEPS = [
    step_sorted_of_halves_neutral_by_product,
    step_sorted_of_halves_neutral_zero,
    step_while_breaks_at_vl_bytes_registers,
    step_while_breaks_past_vl_bytes_registers,
    step_bytes_registers_read_through_memoryview,
    step_bytes_registers_read_through_memoryview_big_endian,
    step_bytearray_registers,
    step_bytes_registers_bytearray_stored,
    step_bytearray_registers_big_endian,
    step_bytearray_registers_written_at_element_1,
    step_bytearray_changed_in_place,
]
