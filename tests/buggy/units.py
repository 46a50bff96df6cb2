"""Reduction units with the bugs people write, as they would write them.

Each is `reduce(ops, seed, elements, active)` against the element ops of spec/bv.py, the
reduction-unit plug-in level of `vredmax check-impl`. Every one must be caught
(tests/test_check_impl_quality.py).
"""

LANES = 4


def tree_zero_identity(ops, seed, elements, active):
    """A tree that pads inactive lanes with 0, not the signed minimum."""
    level = [ops.ite(a, x, ops.const(0)) for x, a in zip(elements, active)]
    while len(level) > 1:
        pairs = [ops.smax(level[i], level[i + 1]) for i in range(0, len(level) - 1, 2)]
        level = pairs + level[len(pairs) * 2 :]
    return ops.smax(seed, level[0])


def unsigned_compare(ops, seed, elements, active):
    """The sequential loop with the unsigned maximum (vredmaxu's)."""
    acc = seed
    for x, a in zip(elements, active):
        acc = ops.ite(a, ops.umax(acc, x), acc)
    return acc


def seed_dropped_when_active(ops, seed, elements, active):
    """Falls back to the seed only when nothing is active."""
    acc, any_active = ops.smin(), ops.false
    for x, a in zip(elements, active):
        acc = ops.ite(a, ops.smax(acc, x), acc)
        any_active = ops.or_(any_active, a)
    return ops.ite(any_active, acc, seed)


def odd_level_drops_last(ops, seed, elements, active):
    """The seed as leaf 0 of a tree whose odd-sized levels lose their last node."""
    level = [seed] + [ops.ite(a, x, ops.smin()) for x, a in zip(elements, active)]
    while len(level) > 1:
        level = [ops.smax(level[i], level[i + 1]) for i in range(0, len(level) - 1, 2)]
    return level[0]


def lanes_zero_identity(ops, seed, elements, active):
    """A four-lane unit whose lane accumulators start from 0, not the signed minimum."""
    accumulators = []
    for lane in range(min(LANES, len(elements))):
        acc = ops.const(0)
        for i in range(lane, len(elements), LANES):
            acc = ops.ite(active[i], ops.smax(acc, elements[i]), acc)
        accumulators.append(acc)
    result = seed
    for acc in accumulators:
        result = ops.smax(result, acc)
    return result


def compare_flipped(ops, seed, elements, active):
    """Copied from a vredmin unit: keeps the smaller value."""
    acc = seed
    for x, a in zip(elements, active):
        acc = ops.ite(a, ops.ite(ops.sgt(x, acc), acc, x), acc)
    return acc


BUGGY_UNITS = (
    tree_zero_identity,
    unsigned_compare,
    seed_dropped_when_active,
    odd_level_drops_last,
    lanes_zero_identity,
    compare_flipped,
)
