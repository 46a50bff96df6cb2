"""An implication first asked with the deep subterms its two sides share made fresh variables.

A loop's stop flag is asked about at every round (paths.ProofContext.implies: does the flag
before the round imply the one after it? does a round's guard fix a merged index?), and both
sides mention the loop's running value so far: a term one round deeper each time, so the full
query grows with the loop and each is slower than the last (a loop of 1024 rounds at SEW=64
ran out of time in them). Such implications mostly hold whatever that value is:
`best == L` implies `(best if best == L else max(best, v)) == L` for every `best`. So the
implication is first asked of its generalisation: each outermost bit-vector subterm at least
DEEP levels deep that both sides contain replaced by a fresh variable of its width
(proofs/engine/compositional.generalize). Sound: an implication that holds for every value of
the variables holds for the subterms' values. Only a proof is used; a generalisation that
fails (a counterexample, unknown) says nothing, and the full query is asked.
"""

from __future__ import annotations

import z3

from vredmax.proofs.engine.compositional import generalize
from vredmax.proofs.python import values as V
from vredmax.proofs.python.terms import facts

V.internal(__file__)

DEEP = 8  # a shared subterm less deep than this is cheap for the solver: left in
WALK_LIMIT = 4096  # nodes looked at per implication to find the shared ones (else not tried)


class SharedTerms:
    """The depth of each term seen, kept for a run (a loop's terms grow by a round at a
    time: each node's depth is computed once)."""

    def __init__(self):
        self._depths: dict = {}  # term id -> (term, depth): the term kept, its id stays its own

    def generalised(self, a, b):
        """`Implies(a, b)` with the deep subterms both share made variables, or None when
        they share none (or finding them would take too long)."""
        ours, theirs = self._outermost_deep(a), self._outermost_deep(b)
        if not ours or not theirs:  # (None: past the budget)
            return None
        shared = self._within(b, ours) | self._within(a, theirs)
        if not shared or None in shared:
            return None
        return generalize(z3.Implies(a, b), [ours.get(k, theirs.get(k)) for k in sorted(shared)])

    def _outermost_deep(self, term):
        """{id: subterm} of the deep bit-vector subterms of `term` with no deep bit-vector
        subterm above them (None past the budget)."""
        found = {}

        def expand(t):
            if self.depth(t) < DEEP:
                return ()
            f = facts(t)
            if f.width is not None:
                found[t.get_id()] = t
                return ()
            return f.children()

        return found if _walk(term, expand) else None

    def _within(self, term, targets) -> set:
        """The ids of `targets` that occur in `term` ({None} past the budget). A subterm less
        deep than every target cannot contain one: not looked into."""
        floor = min(self.depth(t) for t in targets.values())
        found = set()

        def expand(t):
            if t.get_id() in targets:
                found.add(t.get_id())
                return ()
            return facts(t).children() if self.depth(t) > floor else ()

        return found if _walk(term, expand) else {None}

    def depth(self, term) -> int:
        """1 for a leaf, else 1 + its deepest argument's (iteratively: a loop's chain of
        rounds is deeper than Python's recursion)."""
        known = self._depths.get(term.get_id())
        if known is not None:
            return known[1]
        stack = [term]
        while stack:
            t = stack[-1]
            if t.get_id() in self._depths:
                stack.pop()
                continue
            children = facts(t).children()
            missing = [c for c in children if c.get_id() not in self._depths]
            if missing:
                stack.extend(missing)
                continue
            stack.pop()
            below = max((self._depths[c.get_id()][1] for c in children), default=0)
            self._depths[t.get_id()] = (t, 1 + below)
        return self._depths[term.get_id()][1]


def _walk(term, expand) -> bool:
    """Each node of `term`'s DAG reached through `expand` (a node's children to look into)
    visited once; False when that took more than WALK_LIMIT nodes."""
    seen, stack = set(), [term]
    while stack:
        t = stack.pop()
        if t.get_id() in seen:
            continue
        seen.add(t.get_id())
        if len(seen) > WALK_LIMIT:
            return False
        stack.extend(expand(t))
    return True
