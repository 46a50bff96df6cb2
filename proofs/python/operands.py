"""Which of the spec's operands each value a step's reduction joins is: equal, not only identical.

At the cut (proofs/python/cutstep.py) a leaf of the traced reduction is a Z3 term over the
pre-state: the element as the step read it. The spec's operands are `vs1[0]` and `vs2[i]`
(spec/relation.py). A leaf is matched to an operand

1. when it is the same term, or the same after `z3.simplify` (bytes put together in order
   simplify to the element's extract);
2. else by value: the operand it equals on a few concrete legal states (a guess, which the
   solver then proves or not), under the assumptions where the result is written (`written`);
3. or as a *blend* of element i: the element when it is active and the signed minimum (the
   neutral element of max) when not, however the step wrote it (`x & -on | MIN & ~-on`,
   `x * on + MIN * (1 - on)`, a select): guessed when the term is element i with every
   element active and the signed minimum on the same states with none active, then
   `term == If(active_i, vs2[i], MIN)` proved as for 2. Joining it is joining vs2[i] where
   it is active (the caller's inclusion condition), nothing otherwise.

The proof of `leaf == operand` is taken apart by congruence: where the two terms apply the
same function (same declaration and parameters) their equality follows from their
arguments' equality, so what is asked is only where they differ (the register number
`vs2 | k` against `vs2 + k`: one question per register of the group, whatever the number
of elements). These questions are the leaf shapes: every leaf that differs from its operand
in the same places is covered by the same answer, since the implication holds term by term.
When a question taken apart fails (the arguments need not be equal for the wholes to be),
the whole equality is asked, a batch of leaves per query. A leaf left unproved is no operand:
the caller looks for a concrete case (a wrong lane, register, byte order or sign). The
queries go through `verdict.prove`, so with the store of answers on they are kept.
"""

from __future__ import annotations

import random

import z3

from vredmax.proofs.engine.verdict import Verdict, prove
from vredmax.spec import z3fast as fast
from vredmax.spec.config import Config

STATES = 3  # concrete states the guess of an operand must hold on
CHUNK = 512  # equalities per solver query
# blends per solver query: each is a whole equality, and a batch's time grows faster than its
# size (measured at VLEN=1024 SEW=8: 16 in 0.07 s, 32 in 0.16 s, 128 in 7 s, 512 past 60 s)
BLENDS = 16
DIFFERENCES = 8  # differing places of one leaf past which the whole equality is asked


class Matcher:
    """Operands of one configuration's symbolic pre-state; `match(terms)` labels each term
    "seed", an element index, ("blend", i) (element i when active, the signed minimum
    otherwise), or None (not shown to be any)."""

    def __init__(self, cfg: Config, seed, elements, written: list, pre, insn, timeout_ms: int):
        self.cfg, self.seed, self.elements = cfg, seed, elements
        self.written, self.pre, self.insn = written, pre, insn
        self.timeout_ms = timeout_ms
        self.by_id = {seed.get_id(): "seed", **{e.get_id(): i for i, e in enumerate(elements)}}
        self._simplified: dict | None = None
        # (id a, id b) -> bool: the questions asked, with their answers; the terms are kept in
        # `_alive` (a freed term's id is given to the next one made: a key must not outlive it)
        self.proved: dict = {}
        self._alive: list = []
        self.asked = 0  # solver queries
        self.by_value = 0  # leaves matched by value and proved
        self._activity: list | None = None
        self._made: dict = {}  # every element active or none -> the guesses' states

    def operand(self, label):
        if isinstance(label, tuple):  # ("blend", i)
            i, smin = label[1], 1 << (self.cfg.sew - 1)
            if self._activity is None:
                from vredmax.spec.relation import activity

                self._activity = activity(self.cfg, self.pre, self.insn)
            return z3.If(self._activity[i], self.elements[i], z3.BitVecVal(smin, self.cfg.sew))
        return self.seed if label == "seed" else self.elements[label]

    def active(self, i):
        """Element i's active flag (the spec's)."""
        self.operand(("blend", i))
        assert self._activity is not None
        return self._activity[i]

    def _by_term(self, term):
        which = self.by_id.get(term.get_id())
        if which is None:
            if self._simplified is None:  # both sides simplified, once, only when needed
                simplified = [z3.simplify(self.seed)] + [z3.simplify(e) for e in self.elements]
                self._alive += simplified
                labels = ["seed", *range(len(self.elements))]
                self._simplified = {t.get_id(): label for t, label in zip(simplified, labels)}
            plain = z3.simplify(term)
            self._alive.append(plain)
            which = self._simplified.get(plain.get_id())
        return which

    def match(self, terms: list) -> list:
        labels = [self._by_term(t) for t in terms]
        todo = [k for k, label in enumerate(labels) if label is None]
        if not todo:
            return labels
        guesses = self._guesses([terms[k] for k in todo])
        pending = [(k, g) for k, g in zip(todo, guesses) if g is not None]
        proved = self._prove([(terms[k], self.operand(g)) for k, g in pending if not isinstance(g, tuple)])
        blends = self._prove(
            [(terms[k], self.operand(g)) for k, g in pending if isinstance(g, tuple)], BLENDS
        )
        plain, blended = iter(proved), iter(blends)
        proved = [next(blended) if isinstance(g, tuple) else next(plain) for _, g in pending]
        for (k, g), ok in zip(pending, proved):
            if ok:
                labels[k] = g
                self.by_value += 1
        return labels

    # the guess: equal values on concrete legal states ------------------------------------------
    def _guesses(self, terms: list) -> list:
        """Each term's operand on states with every element active, ("blend", i) when it is
        element i there and the signed minimum with none active; None for none."""
        found = self._operands(terms)
        if any(isinstance(g, int) and not isinstance(g, bool) for g in found):
            smin = 1 << (self.cfg.sew - 1)
            inactive = self._values(terms, active=False)
            found = [
                ("blend", g) if isinstance(g, int) and values == {smin} else g
                for g, values in zip(found, inactive)
            ]
        return found

    def _values(self, terms: list, active: bool) -> list:
        """The set of values each term takes on the states (None: the states are not legal)."""
        states = self._states(active)
        if states is None:
            return [None] * len(terms)
        values: list = [set() for _ in terms]
        for _, _, _, model in states:
            for k, term in enumerate(terms):
                got = model.eval(term, model_completion=True)
                values[k].add(got.as_long() if z3.is_bv_value(got) else None)
        return values

    def _operands(self, terms: list) -> list:
        """The operand each term equals on every state with every element active, or None."""
        cfg = self.cfg
        per, sew, mask = cfg.elements_per_register, cfg.sew, (1 << cfg.sew) - 1
        states = self._states(True)
        if states is None:
            return [None] * len(terms)
        candidates: list = [None] * len(terms)
        for n, (regs, vs2, vs1, model) in enumerate(states):
            values: dict = {regs[vs1] & mask: ["seed"]}
            for i in range(cfg.vlmax):
                values.setdefault(regs[vs2 + i // per] >> (sew * (i % per)) & mask, []).append(i)
            for k, term in enumerate(terms):
                got = model.eval(term, model_completion=True)
                found = set(values.get(got.as_long(), ())) if z3.is_bv_value(got) else set()
                candidates[k] = found if n == 0 else candidates[k] & found
        return [min(c, key=lambda x: -1 if x == "seed" else x) if c else None for c in candidates]

    def _states(self, active: bool):
        """[(registers, vs2, vs1, model)]: the concrete states of the guesses, made once (None
        when one is not legal)."""
        if active not in self._made:
            rng = random.Random(0)
            states: list | None = []
            # register numbers aligned for every LMUL, apart from each other and from v0
            for vd, vs2, vs1 in [(24, 8, 16), (8, 16, 24), (16, 24, 8)][:STATES]:
                regs = [rng.getrandbits(self.cfg.vlen) for _ in range(32)]
                if not active:
                    regs[0] = 0
                model = self._model(regs, vd, vs2, vs1, active)
                if model is None or states is None:
                    states = None
                else:
                    states.append((regs, vs2, vs1, model))
            self._made[active] = states
        return self._made[active]

    def _model(self, regs, vd, vs2, vs1, active=True):
        """A legal state where the result is written, with these registers and every element
        active (vm = 1), or none (vm = 0, v0 = 0); vl = VLMAX."""
        solver = z3.Solver()
        solver.set("timeout", self.timeout_ms)
        solver.add(*self.written)
        insn, pre = self.insn, self.pre
        solver.add(
            insn.vd == vd, insn.vs2 == vs2, insn.vs1 == vs1, insn.vm == int(active), pre.vl == self.cfg.vlmax
        )
        solver.add(*[z3.Select(pre.regs, k) == z3.BitVecVal(r, self.cfg.vlen) for k, r in enumerate(regs)])
        return solver.model() if solver.check() == z3.sat else None

    # the proof: by congruence where it can, whole equalities where it cannot -------------------
    def _prove(self, pairs: list, chunk: int = CHUNK) -> list:
        parts = [_differences(a, b) for a, b in pairs]
        questions = {}
        for found in parts:
            for a, b in found or ():
                questions.setdefault((a.get_id(), b.get_id()), (a, b))
        self._ask(questions, chunk)
        whole = {}
        for (a, b), found in zip(pairs, parts):
            if found is None or not all(self.proved[(x.get_id(), y.get_id())] for x, y in found):
                whole.setdefault((a.get_id(), b.get_id()), (a, b))
        self._ask(whole, chunk)
        return [
            (found is not None and all(self.proved[(x.get_id(), y.get_id())] for x, y in found))
            or self.proved[(a.get_id(), b.get_id())]
            for (a, b), found in zip(pairs, parts)
        ]

    def _ask(self, questions: dict, chunk: int = CHUNK) -> None:
        todo = [(key, a, b) for key, (a, b) in questions.items() if key not in self.proved]
        self._alive += [t for _, a, b in todo for t in (a, b)]
        for start in range(0, len(todo), chunk):
            self._ask_chunk(todo[start : start + chunk])

    def _ask_chunk(self, chunk) -> None:
        self.asked += 1
        answer = prove(self.written, fast.and_(*[a == b for _, a, b in chunk]), self.timeout_ms)
        if answer.verdict == Verdict.PROVED:
            for key, _, _ in chunk:
                self.proved[key] = True
        elif len(chunk) == 1 or answer.verdict != Verdict.COUNTEREXAMPLE or answer.model is None:
            for key, _, _ in chunk:  # a timeout is no proof: each unproved, asked alone if batched
                self.proved[key] = False if len(chunk) == 1 else self._alone(key, chunk)
        else:  # some are wrong: the rest asked again without them
            wrong = {
                key for key, a, b in chunk if not z3.is_true(answer.model.eval(a == b, model_completion=True))
            }
            for key in wrong:
                self.proved[key] = False
            rest = [c for c in chunk if c[0] not in wrong]
            if rest and wrong:
                self._ask_chunk(rest)
            elif rest:
                for key, _, _ in rest:
                    self.proved[key] = self._alone(key, chunk)

    def _alone(self, key, chunk) -> bool:
        a, b = next((a, b) for k, a, b in chunk if k == key)
        self.asked += 1
        return prove(self.written, a == b, self.timeout_ms).verdict == Verdict.PROVED


def _differences(a, b):
    """The pairs of subterms where `a` and `b` differ under the same functions (a == b follows
    from each pair being equal); None when there are more than DIFFERENCES."""
    found, stack, seen = [], [(a, b)], set()
    while stack:
        x, y = stack.pop()
        if x.eq(y):
            continue
        key = (x.get_id(), y.get_id())
        if key in seen:
            continue
        seen.add(key)
        if (
            x.num_args()
            and x.num_args() == y.num_args()
            and x.decl().eq(y.decl())
            and not z3.is_quantifier(x)
            and not z3.is_quantifier(y)
        ):
            stack.extend(zip(x.children(), y.children()))
        else:
            found.append((x, y))
            if len(found) > DIFFERENCES:
                return None
    return found
