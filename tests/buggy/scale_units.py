"""More reduction units with bugs, many of which live only at one place of the configuration
space: past element 4096, at one SEW, at a VLMAX, behind a comparator idiom. Each function
carries `.where`, the configuration (VLEN, SEW, LMUL) where its bug shows; each must be a
COUNTEREXAMPLE there (tests/test_check_impl_quality.py), whose case replays.

Written as users write them: Python control flow on *concrete* things (indices, the element
count, ops.width) is fine, a Python `if` on a value or a flag is not.
"""

from vredmax.spec.config import Config


def lives_at(vlen: int, sew: int, lmul: str):
    def mark(function):
        function.where = Config(vlen, 64, sew, lmul)
        return function

    return mark


def _seq(ops, acc, pairs):
    for x, a in pairs:
        acc = ops.ite(a, ops.smax(acc, x), acc)
    return acc


@lives_at(8192, 8, "m8")
def ignores_past_4096(ops, seed, elements, active):
    """A unit sized for VLEN <= 4096: elements from index 4096 on never reach it."""
    return _seq(ops, seed, list(zip(elements, active))[:4096])


@lives_at(1024, 8, "m1")
def mask_index_wraps_at_64(ops, seed, elements, active):
    """A 64-bit mask register reused for every block of 64 lanes."""
    return _seq(ops, seed, [(x, active[i % 64]) for i, x in enumerate(elements)])


@lives_at(2048, 8, "m1")
def seed_dropped_from_wide_tree(ops, seed, elements, active):
    """A wide tree (256 leaves and more) whose root forgets the seed."""
    leaves = [ops.ite(a, x, ops.smin()) for x, a in zip(elements, active)]
    while len(leaves) > 1:
        leaves = [ops.smax(leaves[i], leaves[i + 1]) for i in range(0, len(leaves), 2)]
    return leaves[0] if len(elements) >= 256 else ops.smax(seed, leaves[0])


@lives_at(128, 16, "m1")
def unsigned_at_sew16(ops, seed, elements, active):
    """Shares a comparator with vredmaxu at SEW=16 only."""
    acc = seed
    for x, a in zip(elements, active):
        acc = ops.ite(a, ops.umax(acc, x) if ops.width == 16 else ops.smax(acc, x), acc)
    return acc


@lives_at(128, 32, "m1")
def zero_identity_at_sew32(ops, seed, elements, active):
    """A tree padded with the signed minimum, except at SEW=32 where the constant is 0."""
    identity = ops.const(0) if ops.width == 32 else ops.smin()
    level = [ops.ite(a, x, identity) for x, a in zip(elements, active)]
    while len(level) > 1:
        level = [ops.smax(level[i], level[i + 1]) for i in range(0, len(level), 2)]
    return ops.smax(seed, level[0])


@lives_at(128, 8, "mf2")
def last_dropped_below_16(ops, seed, elements, active):
    """Unrolled by 16: a short group (fractional LMUL, VLMAX < 16) loses its last element."""
    count = len(elements) if len(elements) % 16 == 0 else len(elements) - 1
    return _seq(ops, seed, list(zip(elements, active))[:count])


@lives_at(128, 64, "m1")
def or_instead_of_and(ops, seed, elements, active):
    """Compare-and-select whose guard is `active OR greater`: an inactive larger element wins."""
    acc = seed
    for x, a in zip(elements, active):
        acc = ops.ite(ops.or_(a, ops.sgt(x, acc)), x, acc)
    return acc


@lives_at(128, 64, "m1")
def keeps_the_smaller(ops, seed, elements, active):
    """`ite(and_(a, slt(x, acc)), x, acc)`: the comparator of vredmin."""
    acc = seed
    for x, a in zip(elements, active):
        acc = ops.ite(ops.and_(a, ops.slt(x, acc)), x, acc)
    return acc


@lives_at(128, 64, "m1")
def strict_compare_swapped(ops, seed, elements, active):
    """`ite(sgt(acc, x), x, acc)`: the strict compare with its arms swapped."""
    acc = seed
    for x, a in zip(elements, active):
        acc = ops.ite(a, ops.ite(ops.sgt(acc, x), x, acc), acc)
    return acc


@lives_at(128, 16, "m1")
def sign_flip_one_side(ops, seed, elements, active):
    """Flips the sign bit of the element but not of the accumulator before the unsigned compare."""
    acc, smin = seed, ops.smin()
    for x, a in zip(elements, active):
        acc = ops.ite(ops.and_(a, ops.ugt(ops.xor(x, smin), acc)), x, acc)
    return acc


@lives_at(128, 16, "m1")
def flip_with_wrong_constant(ops, seed, elements, active):
    """Flips with the signed maximum (0x7f..) instead of the signed minimum (0x80..)."""
    acc, flip = seed, ops.const((1 << (ops.width - 1)) - 1)
    for x, a in zip(elements, active):
        acc = ops.ite(ops.and_(a, ops.ugt(ops.xor(x, flip), ops.xor(acc, flip))), x, acc)
    return acc


@lives_at(128, 16, "m1")
def compares_low_half(ops, seed, elements, active):
    """Compares only the sign-extended low half of each element (a narrow comparator)."""
    half = ops.width // 2
    low = lambda v: ops.sext(ops.extract(v, half - 1, 0), half)
    acc = seed
    for x, a in zip(elements, active):
        acc = ops.ite(ops.and_(a, ops.sgt(low(x), low(acc))), x, acc)
    return acc


@lives_at(128, 64, "m1")
def last_lane_always_active(ops, seed, elements, active):
    """The loop's epilogue ignores the last element's flag."""
    flags = list(active[:-1]) + [ops.true]
    return _seq(ops, seed, list(zip(elements, flags)))


@lives_at(128, 64, "m2")
def three_lanes_drop_the_rest(ops, seed, elements, active):
    """Three lanes over the first multiple of three elements; the remainder is dropped."""
    usable = len(elements) - len(elements) % 3
    lanes = [ops.smin()] * 3
    for i in range(usable):
        lanes[i % 3] = ops.ite(active[i], ops.smax(lanes[i % 3], elements[i]), lanes[i % 3])
    return ops.smax(seed, ops.smax(lanes[0], ops.smax(lanes[1], lanes[2])))


@lives_at(512, 8, "m1")
def pairs_past_32_joined_unmasked(ops, seed, elements, active):
    """Pre-reduces pairs; from element 32 on the pair's flags are not looked at."""
    acc = seed
    for i in range(0, len(elements) - 1, 2):
        x, y = elements[i], elements[i + 1]
        if i < 32:
            x, y = ops.ite(active[i], x, ops.smin()), ops.ite(active[i + 1], y, ops.smin())
        acc = ops.smax(acc, ops.smax(x, y))
    return acc


@lives_at(128, 8, "m1")
def subtract_compare_overflows(ops, seed, elements, active):
    """Compares by the sign of x - acc, which overflows for far-apart values."""
    acc, width = seed, ops.width
    for x, a in zip(elements, active):
        negative = ops.extract(ops.sub(x, acc), width - 1, width - 1)
        greater = ops.and_(ops.eq(negative, ops.extract(ops.const(0), 0, 0)), ops.not_(ops.eq(x, acc)))
        acc = ops.ite(ops.and_(a, greater), x, acc)
    return acc


BUGGY_SCALE_UNITS = (
    ignores_past_4096,
    mask_index_wraps_at_64,
    seed_dropped_from_wide_tree,
    unsigned_at_sew16,
    zero_identity_at_sew32,
    last_dropped_below_16,
    or_instead_of_and,
    keeps_the_smaller,
    strict_compare_swapped,
    sign_flip_one_side,
    flip_with_wrong_constant,
    compares_low_half,
    last_lane_always_active,
    three_lanes_drop_the_rest,
    pairs_past_32_joined_unmasked,
    subtract_compare_overflows,
)
