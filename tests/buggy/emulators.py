"""Implementations written as emulator authors write them: plain Python on the values they get.

`if` and `continue` on mask bits and comparisons, `max()`/`min()` with and without `key=`,
`sorted(...)[-1]`, `heapq`, `functools.reduce`, early exits, sorting networks, numpy, bytes;
whole steps with `if` on the fields, vl and vtype, the register file in a list, a dict or a
class. Each carries `.expect` (its verdict) and `.where` (the configurations where it gets it:
for a wrong one, where its bug lives). tests/test_check_impl_emulators.py checks each with the
proof alone (`--random 0`), and the wrong ones with the concrete states too.

Before the branches were merged or explored (proofs/python/branches.py, paths.py), every one
of them was an ERROR ("use ops.ite"), the wrong ones included.
"""

import functools
import heapq

from vredmax.spec.config import VTYPE_VILL_BIT, VTYPE_VTA_BIT, Config
from vredmax.spec.legality import trap_conditions
from vredmax.spec.state import VS_DIRTY

MONOLITHIC = Config(128, 64, 64, "m1")  # VLMAX 2: the monolithic query
CUT = Config(128, 64, 8, "m1")  # VLMAX 16: cut points
WIDE = Config(128, 64, 8, "m4")  # VLMAX 64: cut points, lanes past 37 and 63
SLOW_CUT = Config(128, 64, 16, "m2")  # VLMAX 16 where the proof takes tens of seconds (-m check_impl_scale)


def case(expect: str, *where: Config, proof: str | None = None):
    """`expect`: the verdict of a default run (concrete states first, then the proof);
    `proof`: the proof's own verdict, without any concrete state, when it differs (code the
    symbolic run refuses: ERROR, the concrete states find the bug)."""

    def mark(function):
        function.expect, function.where = expect, list(where) or [CUT]
        function.proof = proof or expect
        return function

    return mark


def _signed(x, w):
    return x - (1 << w) if x >> (w - 1) else x


def _active_values(seed, elements, active):
    return [seed] + [x for x, a in zip(elements, active) if a]


# Units: correct ------------------------------------------------------------------------------


@case("proved", MONOLITHIC, CUT)
def if_continue(ops, seed, elements, active):
    """The loop of an emulator: skip the inactive lanes, keep the greater signed value."""
    w = ops.width
    best = _signed(seed, w)
    for x, a in zip(elements, active):
        if not a:
            continue
        value = _signed(x, w)
        if value > best:
            best = value
    return best & ((1 << w) - 1)


@case("proved", MONOLITHIC, CUT)
def max_with_key(ops, seed, elements, active):
    """max() of the seed and the active elements, compared as signed values."""
    w = ops.width
    return max(_active_values(seed, elements, active), key=lambda v: _signed(v, w))


@case("proved")
def max_biased_key(ops, seed, elements, active):
    """The key flips the sign bit: the unsigned order of the flipped values is the signed order."""
    top = 1 << (ops.width - 1)
    return max(_active_values(seed, elements, active), key=lambda v: v ^ top)


@case("proved")
def sorted_last(ops, seed, elements, active):
    """The last of the values sorted by their signed value."""
    w = ops.width
    return sorted(_active_values(seed, elements, active), key=lambda v: _signed(v, w))[-1]


@case("proved")
def heapq_largest(ops, seed, elements, active):
    w = ops.width
    return heapq.nlargest(1, _active_values(seed, elements, active), key=lambda v: _signed(v, w))[0]


@case("proved", MONOLITHIC, CUT, WIDE)
def heapq_smallest_of_negated(ops, seed, elements, active):
    """The maximum as the negated smallest of the negated signed values."""
    w = ops.width
    negated = [-_signed(seed, w)] + [-_signed(x, w) for x, a in zip(elements, active) if a]
    return -heapq.nsmallest(1, negated)[0] & ((1 << w) - 1)


@case("proved", MONOLITHIC, CUT, WIDE)
def heapq_smallest_negated_key(ops, seed, elements, active):
    w = ops.width
    return heapq.nsmallest(1, _active_values(seed, elements, active), key=lambda v: -_signed(v, w))[0]


@case("proved", MONOLITHIC, CUT, WIDE)
def heapq_smallest_of_negated_lanes(ops, seed, elements, active):
    """Every lane negated, an inactive one holding the negation of the smallest value (which
    no negated value exceeds), then the negated smallest against the seed."""
    w = ops.width
    top = 1 << (w - 1)
    negated = [-_signed(x, w) if a else top for x, a in zip(elements, active)]
    return max(-heapq.nsmallest(1, negated)[0], _signed(seed, w)) & ((1 << w) - 1)


@case("proved", MONOLITHIC, CUT)
def heapq_largest_of_three(ops, seed, elements, active):
    """The first of the three largest, inactive lanes holding the smallest value."""
    w = ops.width
    smallest = -(1 << (w - 1))
    values = [_signed(x, w) if a else smallest for x, a in zip(elements, active)] + [_signed(seed, w)]
    return heapq.nlargest(3, values)[0] & ((1 << w) - 1)


@case("proved")
def reduce_builtin_max(ops, seed, elements, active):
    """functools.reduce with the builtin max over signed Python ints."""
    w = ops.width
    values = [_signed(x, w) for x, a in zip(elements, active) if a]
    return functools.reduce(max, values, _signed(seed, w)) & ((1 << w) - 1)


@case("proved", MONOLITHIC, SLOW_CUT)
def early_exit_at_the_top(ops, seed, elements, active):
    """Stops as soon as the maximum is the largest signed value: nothing can beat it."""
    w = ops.width
    top = (1 << (w - 1)) - 1
    best = _signed(seed, w)
    for x, a in zip(elements, active):
        if best == top:
            break
        if a and _signed(x, w) > best:
            best = _signed(x, w)
    return best & ((1 << w) - 1)


@case("proved")
def tournament_network(ops, seed, elements, active):
    """A compare-exchange network whose last lane ends with the maximum (inactive lanes hold
    the smallest value), then the seed."""
    w = ops.width
    smallest = -(1 << (w - 1))
    values = [_signed(x, w) if a else smallest for x, a in zip(elements, active)]
    n, gap = len(values), 1
    while gap < n:
        for i in range(gap - 1, n - gap, 2 * gap):
            if values[i] > values[i + gap]:
                values[i], values[i + gap] = values[i + gap], values[i]
        gap *= 2
    return max(values[n - 1], _signed(seed, w)) & ((1 << w) - 1)


@case("proved")
def seed_unless_any_active(ops, seed, elements, active):
    """No active lane: the seed, at once; else a conditional expression per lane."""
    if not any(active):
        return seed
    w = ops.width
    best = seed
    for x, a in zip(elements, active):
        best = x if a and _signed(x, w) > _signed(best, w) else best
    return best


@case("proved")
def while_over_the_lanes(ops, seed, elements, active):
    """A while loop with an index, the mask tested as `a == True`."""
    w = ops.width
    best, i = seed, 0
    while i < len(elements):
        if active[i] == True and _signed(elements[i], w) >= _signed(best, w):  # noqa: E712
            best = elements[i]
        i += 1
    return best


@case("proved", MONOLITHIC, CUT)
def elif_by_sign(ops, seed, elements, active):
    """if/elif on the signs: a non-negative value beats a negative one; with equal signs the
    raw (unsigned) compare is the signed order."""
    w = ops.width
    best = seed
    for x, a in zip(elements, active):
        if not a:
            continue
        x_negative, best_negative = x >> (w - 1), best >> (w - 1)
        if not x_negative and best_negative:
            best = x
        elif x_negative and not best_negative:
            pass
        elif x > best:
            best = x
    return best


@case("proved", MONOLITHIC, CUT)
def min_of_negated(ops, seed, elements, active):
    """The maximum as the negated minimum of the negated signed values."""
    w = ops.width
    negated = [-_signed(seed, w)] + [-_signed(x, w) for x, a in zip(elements, active) if a]
    return (-min(negated)) & ((1 << w) - 1)


@case("proved", MONOLITHIC, SLOW_CUT)
def while_to_the_first_active(ops, seed, elements, active):
    """A while loop on the mask (a symbolic test) to the first active lane, then the rest
    (the loop stops where no input reaches another round; at cut points its proof takes
    tens of seconds: -m check_impl_scale)."""
    w = ops.width
    i, n = 0, len(elements)
    while i < n and not active[i]:
        i += 1
    best = _signed(seed, w)
    for j in range(n):
        if j >= i and active[j]:
            best = max(best, _signed(elements[j], w))
    return best & ((1 << w) - 1)


@case("counterexample", MONOLITHIC, CUT)
def elif_by_sign_swapped(ops, seed, elements, active):
    """The same if/elif with the two sign arms swapped: a negative value beats a positive one."""
    w = ops.width
    best = seed
    for x, a in zip(elements, active):
        if not a:
            continue
        x_negative, best_negative = x >> (w - 1), best >> (w - 1)
        if x_negative and not best_negative:
            best = x
        elif not x_negative and best_negative:
            pass
        elif x > best:
            best = x
    return best


@case("counterexample")
def min_without_negation(ops, seed, elements, active):
    """min() where max() was meant."""
    w = ops.width
    return min(_active_values(seed, elements, active), key=lambda v: _signed(v, w))


# Units: wrong ----------------------------------------------------------------------------------


@case("counterexample", MONOLITHIC, CUT)
def max_without_key(ops, seed, elements, active):
    """max() of the raw element values: Python ints are unsigned, so this is vredmaxu."""
    return max(_active_values(seed, elements, active))


@case("counterexample")
def max_key_negated(ops, seed, elements, active):
    """A key meant to order by magnitude that orders backwards: the signed minimum."""
    w = ops.width
    return max(_active_values(seed, elements, active), key=lambda v: -_signed(v, w))


@case("counterexample")
def sorted_first(ops, seed, elements, active):
    """sorted(...)[0]: the smallest, not the largest."""
    w = ops.width
    return sorted(_active_values(seed, elements, active), key=lambda v: _signed(v, w))[0]


@case("counterexample")
def heapq_smallest(ops, seed, elements, active):
    w = ops.width
    return heapq.nsmallest(1, _active_values(seed, elements, active), key=lambda v: _signed(v, w))[0]


@case("counterexample", MONOLITHIC, CUT)
def heapq_largest_unsigned_key(ops, seed, elements, active):
    """nlargest with the raw (unsigned) value as its key: vredmaxu."""
    return heapq.nlargest(1, _active_values(seed, elements, active), key=lambda v: v)[0]


@case("counterexample", MONOLITHIC, CUT)
def heapq_smallest_not_negated(ops, seed, elements, active):
    """nsmallest of the signed values, the negation forgotten: the signed minimum."""
    w = ops.width
    values = [_signed(seed, w)] + [_signed(x, w) for x, a in zip(elements, active) if a]
    return heapq.nsmallest(1, values)[0] & ((1 << w) - 1)


@case("counterexample", MONOLITHIC, CUT)
def heapq_smallest_negated_unsigned(ops, seed, elements, active):
    """The negated smallest of the negated raw values: the unsigned maximum."""
    negated = [-seed] + [-x for x, a in zip(elements, active) if a]
    return -heapq.nsmallest(1, negated)[0]


@case("counterexample", MONOLITHIC, CUT)
def heapq_negated_lanes_off_by_one(ops, seed, elements, active):
    """The same with inactive lanes holding 2**(w-1) - 1: an all-inactive vector gives
    -(2**(w-1)) + 1, above a seed of the smallest value."""
    w = ops.width
    top = (1 << (w - 1)) - 1
    negated = [-_signed(x, w) if a else top for x, a in zip(elements, active)]
    return max(-heapq.nsmallest(1, negated)[0], _signed(seed, w)) & ((1 << w) - 1)


@case("counterexample", MONOLITHIC, CUT)
def heapq_second_largest(ops, seed, elements, active):
    """The last of the two largest: the second largest value, not the largest."""
    w = ops.width
    smallest = -(1 << (w - 1))
    values = [_signed(x, w) if a else smallest for x, a in zip(elements, active)] + [_signed(seed, w)]
    return heapq.nlargest(2, values)[-1] & ((1 << w) - 1)


@case("counterexample", MONOLITHIC, CUT)
def continue_inverted(ops, seed, elements, active):
    """Skips the active lanes instead of the inactive ones."""
    w = ops.width
    best = _signed(seed, w)
    for x, a in zip(elements, active):
        if a:
            continue
        best = max(best, _signed(x, w))
    return best & ((1 << w) - 1)


@case("counterexample", MONOLITHIC, CUT)
def early_exit_when_positive(ops, seed, elements, active):
    """Stops at the first positive maximum, as if no later element could be greater."""
    w = ops.width
    best = _signed(seed, w)
    for x, a in zip(elements, active):
        if best > 0:
            break
        if a and _signed(x, w) > best:
            best = _signed(x, w)
    return best & ((1 << w) - 1)


@case("counterexample")
def network_wrong_stride(ops, seed, elements, active):
    """A tournament network whose later rounds compare the wrong lanes (the losers)."""
    w = ops.width
    smallest = -(1 << (w - 1))
    values = [_signed(x, w) if a else smallest for x, a in zip(elements, active)]
    n, gap = len(values), 1
    while gap < n:
        for i in range(0, n - gap, 2 * gap):
            if values[i] > values[i + gap]:
                values[i], values[i + gap] = values[i + gap], values[i]
        gap *= 2
    return max(values[n - 1], _signed(seed, w)) & ((1 << w) - 1)


@case("counterexample", WIDE)
def skips_lane_37(ops, seed, elements, active):
    """`if i == 37: continue`, a leftover of debugging: only VLMAX 38 and above show it."""
    w = ops.width
    best = _signed(seed, w)
    for i, (x, a) in enumerate(zip(elements, active)):
        if i == 37 or not a:
            continue
        best = max(best, _signed(x, w))
    return best & ((1 << w) - 1)


@case("counterexample")
def magnitude_compare(ops, seed, elements, active):
    """Compares absolute values."""
    w = ops.width
    best = _signed(seed, w)
    for x, a in zip(elements, active):
        if a and abs(_signed(x, w)) > abs(best):
            best = _signed(x, w)
    return best & ((1 << w) - 1)


@case("counterexample", MONOLITHIC, CUT)
def zero_when_none_active(ops, seed, elements, active):
    """Returns 0, not the seed, when no lane is active."""
    if not any(active):
        return 0
    w = ops.width
    return max(_active_values(seed, elements, active), key=lambda v: _signed(v, w))


@case("counterexample", proof="error")
def reduce_without_the_seed(ops, seed, elements, active):
    """functools.reduce from the first active element: the seed never takes part (the
    symbolic run refuses a reduce of a filtered list without an initial value; the concrete
    states find the bug)."""
    w = ops.width
    values = [_signed(x, w) for x, a in zip(elements, active) if a]
    if not values:
        return seed
    return functools.reduce(max, values) & ((1 << w) - 1)


@case("counterexample", MONOLITHIC, CUT, proof="error")
def numpy_unsigned(ops, seed, elements, active):
    """numpy's max of unsigned 64-bit values: vredmaxu (refused while proving, naming numpy;
    the concrete states find the bug)."""
    import numpy as np

    values = np.array(_active_values(seed, elements, active), dtype=np.uint64)
    return int(values.max())


# Units: refused (correct code the proof cannot take, each with a one-line message) -----------


@case("error")
def numpy_signed(ops, seed, elements, active):
    """Correct on ints; numpy cannot hold symbolic values: refused, naming numpy."""
    import numpy as np

    w = ops.width
    values = np.array(_active_values(seed, elements, active), dtype=np.int64)
    values = np.where(values >> (w - 1) == 1, values - (1 << w), values)
    return int(values.max()) & ((1 << w) - 1)


@case("error", MONOLITHIC, CUT)
def caught_symbolic_exception(ops, seed, elements, active):
    """A fast path through a memoryview of a bytearray (right on ints) inside the user's own
    try/except, a correct fallback: the TypeError memoryview raised on the symbolic bytes is
    recorded, so the verdict is ERROR, never PROVED (the proof covered the fallback, the
    concrete run takes the fast path)."""
    w, nb = ops.width, ops.width // 8
    try:
        signed = [
            int.from_bytes(memoryview(bytearray(x.to_bytes(nb, "little"))), "little", signed=True)
            for x in elements
        ]
        values = [v for v, a in zip(signed, active) if a]
    except Exception:
        values = [_signed(x, w) for x, a in zip(elements, active) if a]
    return max([_signed(seed, w)] + values) & ((1 << w) - 1)


@case("error", MONOLITHIC, CUT)
def attribute_of_a_name_bound_on_one_path(ops, seed, elements, active):
    """`first` is bound only where lane 0 is active, and an int has no `.value`: the user's
    AttributeError (as on ints) wherever lane 0 is active (its error names the line in a
    traceback: tests/test_check_impl_paths.py checks it)."""
    w = ops.width
    if active[0]:
        first = elements[0]
    best = _signed(seed, w)
    for x, a in zip(elements, active):
        if a and _signed(x, w) > best:
            best = _signed(x, w)
    if active[0] and first.value:
        best = -best
    return best & ((1 << w) - 1)


@case("proved", MONOLITHIC, CUT)
def attribute_read_where_no_input_goes(ops, seed, elements, active):
    """The same read, under conditions no input meets: never run, as on ints."""
    w = ops.width
    if active[0]:
        first = elements[0]
    best = _signed(seed, w)
    for x, a in zip(elements, active):
        if a and _signed(x, w) > best:
            best = _signed(x, w)
    if active[0]:
        if not active[0]:
            best = first.value
    return best & ((1 << w) - 1)


@case("counterexample", MONOLITHIC)
def while_past_the_first_active(ops, seed, elements, active):
    """The same while loop, then the lanes after the first active one: the first is lost."""
    w = ops.width
    i, n = 0, len(elements)
    while i < n and not active[i]:
        i += 1
    best = _signed(seed, w)
    for j in range(n):
        if j > i and active[j]:
            best = max(best, _signed(elements[j], w))
    return best & ((1 << w) - 1)


@case("error", CUT)
def append_under_if(ops, seed, elements, active):
    """list.append inside an `if` on a mask bit: the list's length depends on the inputs, so
    the branch cannot be merged and its paths double at every lane. Right, but refused at
    once with what to write instead, a filtered comprehension (at VLMAX 2 its four paths are
    explored: PROVED)."""
    w = ops.width
    values = [_signed(seed, w)]
    for x, a in zip(elements, active):
        if a:
            values.append(_signed(x, w))
    return max(values) & ((1 << w) - 1)


@case("counterexample", CUT, proof="error")
def append_under_if_unsigned(ops, seed, elements, active):
    """The same list.append, the elements compared unsigned: refused while proving at VLMAX
    16 (the concrete states find the bug; at VLMAX 2 the proof refutes it)."""
    values = [seed]
    for x, a in zip(elements, active):
        if a:
            values.append(x)
    return max(values)


@case("counterexample", MONOLITHIC, CUT)
def elif_chain_by_sign_bits(ops, seed, elements, active):
    """if/elif/else on the sign bits with `and`/`or` in the tests; wrong when both are negative
    (the raw compare taken the wrong way round)."""
    w = ops.width
    top = 1 << (w - 1)
    best = seed
    for x, a in zip(elements, active):
        if not a or x == best:
            continue
        if x & top and not best & top:
            continue
        elif best & top and not x & top:
            best = x
        elif x & top and best & top and x < best:
            best = x
        elif not x & top and not best & top and x > best:
            best = x
    return best


@case("proved", MONOLITHIC, CUT)
def elif_chain_by_sign_bits_right(ops, seed, elements, active):
    """The same if/elif chain, both-negative compared the right way round."""
    w = ops.width
    top = 1 << (w - 1)
    best = seed
    for x, a in zip(elements, active):
        if not a or x == best:
            continue
        if x & top and not best & top:
            continue
        elif best & top and not x & top:
            best = x
        elif x > best:
            best = x
    return best


@case("proved", MONOLITHIC, CUT)
def filtered_then_appended(ops, seed, elements, active):
    """The active values gathered by a filtered comprehension, the seed appended, max() of them."""
    w = ops.width
    values = [_signed(x, w) for x, a in zip(elements, active) if a]
    values.append(_signed(seed, w))
    return max(values) & ((1 << w) - 1)


@case("counterexample", MONOLITHIC, CUT)
def filtered_then_zero_appended(ops, seed, elements, active):
    """The same with 0 appended where the seed belongs: wrong when every value is negative."""
    w = ops.width
    values = [_signed(x, w) for x, a in zip(elements, active) if a]
    values += [0]
    return max(values) & ((1 << w) - 1)


UNITS = (
    while_to_the_first_active,
    while_past_the_first_active,
    append_under_if,
    append_under_if_unsigned,
    filtered_then_appended,
    filtered_then_zero_appended,
    elif_chain_by_sign_bits,
    elif_chain_by_sign_bits_right,
    elif_by_sign,
    min_of_negated,
    elif_by_sign_swapped,
    min_without_negation,
    if_continue,
    max_with_key,
    max_biased_key,
    sorted_last,
    heapq_largest,
    heapq_smallest_of_negated,
    heapq_smallest_negated_key,
    heapq_smallest_of_negated_lanes,
    heapq_largest_of_three,
    reduce_builtin_max,
    early_exit_at_the_top,
    tournament_network,
    seed_unless_any_active,
    while_over_the_lanes,
    max_without_key,
    max_key_negated,
    sorted_first,
    heapq_smallest,
    heapq_largest_unsigned_key,
    heapq_smallest_not_negated,
    heapq_smallest_negated_unsigned,
    heapq_negated_lanes_off_by_one,
    heapq_second_largest,
    continue_inverted,
    early_exit_when_positive,
    network_wrong_stride,
    skips_lane_37,
    magnitude_compare,
    zero_when_none_active,
    reduce_without_the_seed,
    numpy_unsigned,
    numpy_signed,
    caught_symbolic_exception,
    attribute_read_where_no_input_goes,
)


# Whole steps ------------------------------------------------------------------------------------
# An emulator's step: the traps from the spec's own table (trap_conditions), everything else in
# plain Python on the fields, vl, vtype and the registers (VLEN-bit ints).

STEP_CUT = Config(128, 64, 8, "m1")  # VLMAX 16: the step cut at its reduction
GROUP = Config(128, 64, 8, "m2")  # VLMAX 32, two registers per group


def _traps(m, pre, insn, cfg):
    return trap_conditions(m, pre, insn, m.bit(pre.vtype, VTYPE_VILL_BIT), cfg.lmul)


def _written(old, acc, pre, cfg, tail):
    """vd: element 0 the result, the rest kept, or all ones for an agnostic tail."""
    mask = (1 << cfg.sew) - 1
    new = (old & ~mask) | (acc & mask)
    if pre.vtype >> VTYPE_VTA_BIT & 1 and tail == "ones":
        new |= ((1 << cfg.vlen) - 1) & ~mask
    return new


def _emulate(
    pre,
    insn,
    cfg,
    *,
    signed=True,
    sign_sew=None,
    vl_bits=None,
    mask_register=0,
    inverted_mask=False,
    one_register=False,
):
    """The reduction as an emulator loop, with the knobs the wrong steps below turn."""
    sew, per = cfg.sew, cfg.vlen // cfg.sew
    mask = (1 << sew) - 1
    regs = list(pre.regs)
    vl = pre.vl if vl_bits is None else pre.vl & ((1 << vl_bits) - 1)
    width = sign_sew or sew

    def value(x):
        return (x - (1 << width) if x >> (width - 1) & 1 else x) if signed else x

    acc = value(regs[insn.vs1] & mask)
    for i in range(cfg.vlmax):
        if i >= vl:
            break
        bit = (regs[mask_register] >> i) & 1
        if not insn.vm and (bit if inverted_mask else not bit):
            continue
        register = regs[insn.vs2] if one_register else regs[insn.vs2 + i // per]
        x = value((register >> (sew * (i % per))) & mask)
        if x > acc:
            acc = x
    return regs, acc


def _plain(m, pre, insn, cfg, tail, **knobs):
    traps = _traps(m, pre, insn, cfg)
    if pre.vl == 0 or any(c for _, c in traps):
        return traps, pre
    regs, acc = _emulate(pre, insn, cfg, **knobs)
    regs[insn.vd] = _written(regs[insn.vd], acc, pre, cfg, tail)
    return traps, pre.with_(regs=tuple(regs), vstart=0, vs=VS_DIRTY)


@case("proved", MONOLITHIC, STEP_CUT)
def step_plain(m, pre, insn, cfg, tail):
    """`if pre.vl == 0 or any trap: return`, a loop with `break` at vl, `continue` on the
    mask, `if x > acc`, the register file as a list of ints."""
    return _plain(m, pre, insn, cfg, tail)


@case("proved", MONOLITHIC)
def step_sorted(m, pre, insn, cfg, tail):
    """The active values gathered by a filtered comprehension, the result sorted(...)[-1]."""
    traps = _traps(m, pre, insn, cfg)
    if pre.vl == 0 or any(c for _, c in traps):
        return traps, pre
    sew, per = cfg.sew, cfg.vlen // cfg.sew
    regs = list(pre.regs)

    def element(group, i):
        return (regs[group + i // per] >> (sew * (i % per))) & ((1 << sew) - 1)

    def signed(x):
        return x - (1 << sew) if x >> (sew - 1) else x

    values = [element(insn.vs2, i) for i in range(cfg.vlmax) if i < pre.vl and (insn.vm or regs[0] >> i & 1)]
    acc = sorted([element(insn.vs1, 0)] + values, key=signed)[-1]
    regs[insn.vd] = _written(regs[insn.vd], acc, pre, cfg, tail)
    return traps, pre.with_(regs=tuple(regs), vstart=0, vs=VS_DIRTY)


@case("proved", MONOLITHIC, STEP_CUT)
def step_vd_is_vs1(m, pre, insn, cfg, tail):
    """A special case for vd == vs1 (the seed read before vd is written, as the general case)."""
    traps = _traps(m, pre, insn, cfg)
    if pre.vl == 0 or any(c for _, c in traps):
        return traps, pre
    regs, acc = _emulate(pre, insn, cfg)
    if insn.vd == insn.vs1:
        old = pre.regs[insn.vs1]
    else:
        old = regs[insn.vd]
    regs[insn.vd] = _written(old, acc, pre, cfg, tail)
    return traps, pre.with_(regs=tuple(regs), vstart=0, vs=VS_DIRTY)


class _RegisterFile:
    """A register file object as emulators keep one: read and write elements."""

    def __init__(self, regs, cfg):
        self.regs, self.sew, self.per = list(regs), cfg.sew, cfg.vlen // cfg.sew

    def element(self, group, i):
        return (self.regs[group + i // self.per] >> (self.sew * (i % self.per))) & ((1 << self.sew) - 1)

    def mask_bit(self, i):
        return (self.regs[0] >> i) & 1 == 1


@case("proved", MONOLITHIC)
def step_register_class(m, pre, insn, cfg, tail):
    """The registers in a class; max() with a key over the active elements."""
    traps = _traps(m, pre, insn, cfg)
    if pre.vl == 0 or any(c for _, c in traps):
        return traps, pre
    rf, sew = _RegisterFile(pre.regs, cfg), cfg.sew

    def signed(x):
        return x - (1 << sew) if x >> (sew - 1) else x

    active = [rf.element(insn.vs2, i) for i in range(cfg.vlmax) if i < pre.vl and (insn.vm or rf.mask_bit(i))]
    acc = max([rf.element(insn.vs1, 0)] + active, key=signed)
    rf.regs[insn.vd] = _written(rf.regs[insn.vd], acc, pre, cfg, tail)
    return traps, pre.with_(regs=tuple(rf.regs), vstart=0, vs=VS_DIRTY)


def _dict_step(m, pre, insn, cfg, tail, vd_of=lambda insn: insn.vd):
    """The registers in a dict keyed by register number, elements cut out with shifts."""
    traps = _traps(m, pre, insn, cfg)
    if pre.vl == 0 or any(c for _, c in traps):
        return traps, pre
    vrf = {number: value for number, value in enumerate(pre.regs)}
    sew, per = cfg.sew, cfg.vlen // cfg.sew
    mask = (1 << sew) - 1

    def signed(x):
        return x - (1 << sew) if x >> (sew - 1) & 1 else x

    acc = signed(vrf[insn.vs1] & mask)
    for i in range(cfg.vlmax):
        if i >= pre.vl:
            break
        if not insn.vm and not (vrf[0] >> i) & 1:
            continue
        x = signed((vrf[insn.vs2 + i // per] >> (sew * (i % per))) & mask)
        if x > acc:
            acc = x
    vd = vd_of(insn)
    vrf[vd] = _written(vrf[vd], acc, pre, cfg, tail)
    return traps, pre.with_(regs=tuple(vrf[n] for n in range(32)), vstart=0, vs=VS_DIRTY)


@case("proved", MONOLITHIC, STEP_CUT)
def step_register_dict(m, pre, insn, cfg, tail):
    """The register file in a dict, read and written at the decoded register numbers."""
    return _dict_step(m, pre, insn, cfg, tail)


@case("counterexample", STEP_CUT)
def step_register_dict_vd_in_4_bits(m, pre, insn, cfg, tail):
    """The dict register file written at vd & 15: wrong for v16..v31 only."""
    return _dict_step(m, pre, insn, cfg, tail, vd_of=lambda insn: insn.vd & 15)


@case("counterexample", MONOLITHIC, STEP_CUT)
def step_unsigned(m, pre, insn, cfg, tail):
    """Compares the raw element values: unsigned."""
    return _plain(m, pre, insn, cfg, tail, signed=False)


@case("counterexample", MONOLITHIC, STEP_CUT)
def step_mask_inverted(m, pre, insn, cfg, tail):
    """Skips the lanes whose mask bit is set."""
    return _plain(m, pre, insn, cfg, tail, inverted_mask=True)


@case("counterexample", MONOLITHIC, STEP_CUT)
def step_mask_from_v1(m, pre, insn, cfg, tail):
    """Reads the mask from v1."""
    return _plain(m, pre, insn, cfg, tail, mask_register=1)


@case("counterexample", MONOLITHIC)
def step_sign_at_32_bits(m, pre, insn, cfg, tail):
    """Takes the sign at bit 31 whatever the SEW: wrong at SEW=64 only."""
    return _plain(m, pre, insn, cfg, tail, sign_sew=min(cfg.sew, 32))


@case("counterexample", GROUP)
def step_first_register_only(m, pre, insn, cfg, tail):
    """Reads every element from the group's first register: wrong with LMUL >= 2 only."""
    return _plain(m, pre, insn, cfg, tail, one_register=True)


@case("counterexample", WIDE)
def step_vl_in_6_bits(m, pre, insn, cfg, tail):
    """Keeps vl in 6 bits: vl = 64 counts as 0 (VLMAX 64 and above only)."""
    return _plain(m, pre, insn, cfg, tail, vl_bits=6)


@case("counterexample", MONOLITHIC, STEP_CUT)
def step_writes_when_vl_is_0(m, pre, insn, cfg, tail):
    """No early return at vl == 0: vd[0] gets the seed, vstart and VS change."""
    traps = _traps(m, pre, insn, cfg)
    if any(c for _, c in traps):
        return traps, pre
    regs, acc = _emulate(pre, insn, cfg)
    regs[insn.vd] = _written(regs[insn.vd], acc, pre, cfg, tail)
    return traps, pre.with_(regs=tuple(regs), vstart=0, vs=VS_DIRTY)


@case("counterexample", MONOLITHIC, STEP_CUT)
def step_vd_is_vs1_shortcut(m, pre, insn, cfg, tail):
    """Believes vd == vs1 leaves vd as it is."""
    traps = _traps(m, pre, insn, cfg)
    if pre.vl == 0 or any(c for _, c in traps) or insn.vd == insn.vs1:
        return traps, pre
    regs, acc = _emulate(pre, insn, cfg)
    regs[insn.vd] = _written(regs[insn.vd], acc, pre, cfg, tail)
    return traps, pre.with_(regs=tuple(regs), vstart=0, vs=VS_DIRTY)


@case("counterexample", MONOLITHIC, STEP_CUT)
def step_vs_left_clean(m, pre, insn, cfg, tail):
    """Forgets to mark the vector state dirty."""
    traps = _traps(m, pre, insn, cfg)
    if pre.vl == 0 or any(c for _, c in traps):
        return traps, pre
    regs, acc = _emulate(pre, insn, cfg)
    regs[insn.vd] = _written(regs[insn.vd], acc, pre, cfg, tail)
    return traps, pre.with_(regs=tuple(regs), vstart=0)


@case("counterexample", MONOLITHIC, STEP_CUT, proof="error")
def step_bytes_register_file(m, pre, insn, cfg, tail):
    """The register file as one bytearray, elements read with int.from_bytes unsigned
    (refused while proving; the concrete states find the bug)."""
    traps = _traps(m, pre, insn, cfg)
    if pre.vl == 0 or any(c for _, c in traps):
        return traps, pre
    vlenb, nb = cfg.vlen // 8, cfg.sew // 8
    memory = bytearray(b"".join(r.to_bytes(vlenb, "little") for r in pre.regs))
    acc = int.from_bytes(memory[insn.vs1 * vlenb : insn.vs1 * vlenb + nb], "little")
    for i in range(cfg.vlmax):
        if i < pre.vl and (insn.vm or memory[i // 8] >> (i % 8) & 1):
            start = insn.vs2 * vlenb + i * nb
            acc = max(acc, int.from_bytes(memory[start : start + nb], "little"))
    memory[insn.vd * vlenb : insn.vd * vlenb + nb] = acc.to_bytes(nb, "little")
    regs = tuple(int.from_bytes(memory[k * vlenb : (k + 1) * vlenb], "little") for k in range(32))
    return traps, pre.with_(regs=regs, vstart=0, vs=VS_DIRTY)


STEPS = (
    step_plain,
    step_sorted,
    step_vd_is_vs1,
    step_register_class,
    step_unsigned,
    step_mask_inverted,
    step_mask_from_v1,
    step_sign_at_32_bits,
    step_first_register_only,
    step_vl_in_6_bits,
    step_writes_when_vl_is_0,
    step_vd_is_vs1_shortcut,
    step_vs_left_clean,
    step_bytes_register_file,
)
