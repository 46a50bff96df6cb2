"""Implementations of the vredmax.vs reduction unit, and the instruction step around them.

A reduction unit is `reduce(ops, seed, elements, active) -> result`, written against the
element ops of spec/bv.py so that it runs concretely and symbolically.
"""

from vredmax.impl.lanes import reduce_lanes
from vredmax.impl.sequential import reduce_sequential
from vredmax.impl.tree import reduce_tree
from vredmax.spec.bv import ReductionUnit

ALGORITHMS: dict[str, ReductionUnit] = {
    "sequential": reduce_sequential,
    "tree": reduce_tree,
    "lanes": reduce_lanes,
}
