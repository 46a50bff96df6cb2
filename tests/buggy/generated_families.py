"""Small hand-written members of the families of generated programs
(tests/generated/python_programs.py) that the proof once stopped on, each correct one with a
wrong twin. Each carries `.expect` and `.where` (as tests/buggy/emulators_more.py);
tests/test_generated_families.py checks each with the proof alone (`--random 0`).

- a mask packed into an int (`bits |= 1 << k` for each active lane, then `bits >> i & 1`):
  the condition is computed from the flags alone through ints (proofs/python/flagbits.py);
- sorted() of more than 256 values read at an end (`sorted(vals)[-1]`,
  `sorted(vals, reverse=True)[0]`): only the ends are built (pybuiltins.SortedEnds).
"""

from vredmax.spec.config import Config

CUT = Config(128, 64, 8, "m1")  # VLMAX 16: cut points
WIDE = Config(128, 64, 8, "m8")  # VLMAX 128
LONG = Config(512, 64, 8, "m8")  # VLMAX 512: more than sorted()'s 256


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


UNITS = [
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
STEPS: list = []
