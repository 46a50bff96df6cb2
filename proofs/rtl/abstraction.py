"""Cut points inside a multi-cycle unit: a chunk's tree replaced by what it was proved to compute.

A multi-cycle unit with a wide tree per chunk (16 lanes of 32 bits, say) makes every induction
query carry the tree at the bit level: proving that the accumulator's next value is the running
maximum means proving the tree equal to the spec's fold, which SAT solvers do not do in time
(the combinational monolithic query gives up from 16 lanes too). The combinational method of
combinational.py does it in small steps: the SEW-bit nets of the next-state logic get
denotations by probing (the set of lanes whose maximum they hold, inactive lanes as the
identity), one small query per net proves it, and the semilattice lemmas glue them. A net
proved to be the maximum of every lane of the chunk is then replaced, in the unit's terms, by
the spec's own fold of the chunk from the signed minimum: equal for every input, so the
induction on the rewritten unit proves the unit; and the ghost folds a chunk the same way
(smax(acc, fold of the chunk)), so the two sides match term for term.
"""

from __future__ import annotations

import random
import sys
import time
from dataclasses import dataclass

import z3

from vredmax.proofs.rtl.combinational import CombUnit, denotations, net_names, node_queries, sew_nets, _shape
from vredmax.proofs.rtl.ports import Interface
from vredmax.proofs.rtl.yosys import Design
from vredmax.proofs.engine.verdict import Verdict, prove
from vredmax.spec.bv import Z3Elements


class ChunkView(CombUnit):
    """The next-state logic seen as a function of one chunk (elements, active); registers and
    other inputs are free leaves (0 while probing)."""

    def __init__(self, design: Design, iface: Interface):
        self.design, self.sew, self.lanes = design, iface.sew, iface.lanes
        self.elements_var = iface.var(design, "elements")
        self.active_var = iface.var(design, "active")
        self.seed = z3.BitVec("vredmax_no_seed", self.sew)  # nothing reads it: no net holds the seed
        self.result = None
        self.extra = {}
        self.names = net_names(design)
        # any mask: the protocol's restriction of the mask (--active) holds only in the cycles a
        # chunk is fed, and the replaced net may be read in the others too
        self.active_mode = "mask"

    def random_case(self, rng: random.Random):
        seed, elements, active = super().random_case(rng)
        return 0, elements, active


def chunk_fold(sew: int, elements: list, active: list):
    """The spec's fold of a chunk from the signed minimum, inactive lanes skipped (the same
    terms as the ghost's, protocol.chunk_max)."""
    ops = Z3Elements(sew)
    value = ops.smin()
    for e, a in zip(elements, active):
        value = ops.ite(a, ops.smax(value, e), value)
    return value


@dataclass
class Abstraction:
    design: Design
    nets: int  # chunk nets replaced
    queries: int  # node queries proved
    detail: str
    seconds: float = 0.0


def abstract_chunk_trees(design: Design, iface: Interface, timeout_ms: int) -> Abstraction | None:
    """The design with each net proved to be the maximum of the whole chunk replaced by
    chunk_fold; None when there is no such net or a node query is not proved."""
    start = time.perf_counter()
    view = ChunkView(design, iface)
    terms = list(design.next_state.values()) + list(design.outputs.values())
    nets = []
    seen = set()
    for term in terms:
        for net in sew_nets(term, iface.sew):
            if net.get_id() not in seen:
                seen.add(net.get_id())
                nets.append(net)
    if not nets:
        return None
    found = denotations(view, nets)
    everything = frozenset(range(iface.lanes))
    tops = [key for key, lanes in found.padded.items() if lanes == everything]
    if not tops or iface.lanes < 2:
        return None
    padded_only = type(found)(found.padded, {})
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 100_000))
    try:
        queries, why = node_queries(view, nets, [], padded_only)
    finally:
        sys.setrecursionlimit(limit)
    if queries is None:
        return None
    proved = set()
    for _, goal in queries:
        shape = _shape(goal)
        if shape in proved:
            continue
        if prove([view.assumption()], goal, timeout_ms).verdict != Verdict.PROVED:
            return None
        proved.add(shape)
    sew = iface.sew
    elements = [z3.Extract(i * sew + sew - 1, i * sew, view.elements_var) for i in range(iface.lanes)]
    active = [z3.Extract(i, i, view.active_var) == 1 for i in range(iface.lanes)]
    folded = chunk_fold(sew, elements, active)
    by_id = {n.get_id(): n for n in nets}
    pairs = [(by_id[key], folded) for key in tops]

    def rewrite(term):
        return z3.substitute(term, *pairs)

    rewritten = Design(
        design.top,
        design.params,
        design.ports,
        design.inputs,
        design.state,
        {n: rewrite(t) for n, t in design.outputs.items()},
        {n: rewrite(t) for n, t in design.next_state.items()},
    )
    return Abstraction(
        rewritten,
        len(tops),
        len(proved),
        f"{len(tops)} net(s) of the next-state logic proved to be the chunk's maximum "
        f"({len(found.padded)} cut points, {len(proved)} distinct node queries) and replaced by "
        "the spec's fold of the chunk",
        time.perf_counter() - start,
    )
