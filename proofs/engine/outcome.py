"""The operands and the outcome of one vredmax.vs, for either backend (`View`).

Claims, `ask` and `check-impl` state what they compare against a `View`, over the machine ops
of spec/bv.py. With the symbolic backend the spec side is the declarative relation of
spec/relation.py (a fresh post-state it constrains); with the concrete backend it is the
executable model (impl/execute.py), which replays a counterexample.
"""

from __future__ import annotations

from typing import Any, Iterable

import z3

from vredmax.impl.execute import execute, operands
from vredmax.spec import relation
from vredmax.spec.bv import Concrete, Machine, Symbolic
from vredmax.spec.config import VTYPE_VILL_BIT, VTYPE_VTA_BIT, XLEN, Config
from vredmax.spec.legality import ILLEGAL, RESERVED, RETIRED, trap_conditions
from vredmax.spec.state import ArchState

TRAPS = "traps"  # the name of the compared value "the instruction traps"


class View:
    """The operands and the outcome of one vredmax.vs, for either backend.

    `constraints` are what the symbolic spec side needs to hold (the relation); the
    concrete side has none.
    """

    # Values are the backend's (ints or Z3 terms): Any, as the ops interface's `Machine`.
    def __init__(
        self,
        m: Machine,
        cfg: Config,
        pre: ArchState,
        insn: Any,
        post: ArchState,
        trapped: Any,
        constraints: Iterable[Any] = (),
        tail: str = "undisturbed",
    ) -> None:
        self.m, self.cfg, self.pre, self.insn = m, cfg, pre, insn
        self.post, self.trapped = post, trapped
        self.constraints = list(constraints)
        self.tail = tail
        self.e = m.elements(cfg.sew)
        self.seed, self.elements, self.active = operands(m, pre, insn, cfg)
        self.outcome: Any = None  # the spec's outcome terms, for a symbolic view

    @classmethod
    def symbolic(cls, cfg: Config, tag: str = "") -> "View":
        pre, insn = relation.symbolic_state(cfg, tag), relation.symbolic_insn(tag)
        post, outcome, allowed = _symbolic_spec(cfg, pre, insn, tag + "_post")
        view = cls(
            Symbolic, cfg, pre, insn, post, outcome.trapped, relation.in_configuration(cfg, pre) + [allowed]
        )
        view.outcome = outcome
        return view

    @classmethod
    def concrete(cls, cfg: Config, pre: ArchState, insn: Any, tail: str = "undisturbed") -> "View":
        result = execute(pre, insn, "sequential", tail)
        return cls(Concrete, cfg, pre, insn, result.state, result.outcome != RETIRED, tail=tail)

    def spec_of(self, pre: ArchState) -> "View":
        """The spec's outcome for another pre-state with the same instruction."""
        if self.m is Concrete:
            return View.concrete(self.cfg, pre, self.insn, self.tail)
        post, outcome, allowed = _symbolic_spec(self.cfg, pre, self.insn, f"_other{len(self.constraints)}")
        self.constraints.append(allowed)
        return View(Symbolic, self.cfg, pre, self.insn, post, outcome.trapped)

    # the pre-state ---------------------------------------------------------------------
    def flag(self, bit: int) -> Any:
        return self.m.bit(self.pre.vtype, bit)

    @property
    def vta(self) -> Any:
        return self.flag(VTYPE_VTA_BIT)

    @property
    def vill(self) -> Any:
        return self.flag(VTYPE_VILL_BIT)

    @property
    def vl_zero(self) -> Any:
        return self.m.eq(self.pre.vl, 0)

    @property
    def vl_positive(self) -> Any:
        return self.m.not_(self.vl_zero)

    @property
    def masked_insn(self) -> Any:
        return self.m.eq(self.insn.vm, 0)

    def below_vl(self, i: int) -> Any:
        return self.m.ult(self.m.const(i, XLEN), self.pre.vl)

    def masked_off(self, i: int) -> Any:
        """Element i is in the body (i < vl) but its mask bit is clear."""
        return self.m.all_(self.below_vl(i), self.m.not_(self.active[i]))

    def _fired(self, outcome: str) -> Any:
        vill = self.vill
        rules = trap_conditions(self.m, self.pre, self.insn, vill, self.cfg.lmul)
        return self.m.any_(*(cond for rule, cond in rules if rule.outcome == outcome))

    @property
    def illegal(self) -> Any:
        return self._fired(ILLEGAL)

    @property
    def reserved(self) -> Any:
        return self._fired(RESERVED)

    @property
    def retires(self) -> Any:
        """Neither illegal nor reserved: the architecture says exactly what happens."""
        return self.m.all_(self.m.not_(self.illegal), self.m.not_(self.reserved))

    def register_elements(self, state: ArchState, register: Any) -> list[Any]:
        return self.m.split(self.m.read(state.regs, register), self.cfg.sew, self.cfg.elements_per_register)

    @property
    def old_vd(self) -> Any:
        return self.register_elements(self.pre, self.insn.vd)

    @property
    def new_vd(self) -> Any:
        return self.register_elements(self.post, self.insn.vd)

    @property
    def vs1_elements(self) -> Any:
        return self.register_elements(self.pre, self.insn.vs1)

    def body(self) -> list[Any]:
        return [self.below_vl(i) for i in range(self.cfg.vlmax)]

    # the outcome -----------------------------------------------------------------------
    def observed(self, name: str) -> Any:
        """A compared value of the spec's outcome: `traps` or `vd[k]`."""
        if name == TRAPS:
            return self.trapped
        return self.new_vd[vd_index(name)]

    def ones(self) -> Any:
        return self.e.const(-1)


def _symbolic_spec(
    cfg: Config, pre: ArchState, insn: relation.SymbolicInsn, tag: str
) -> tuple[ArchState, relation.Outcome, z3.BoolRef]:
    post, outcome = relation.symbolic_state(cfg, tag), relation.symbolic_outcome(tag)
    return post, outcome, relation.relation(cfg, pre, insn, outcome, post)


def vd_index(name: str) -> int:
    if not (name.startswith("vd[") and name.endswith("]")):
        raise ValueError(f"not a compared value: {name!r}")
    return int(name[3:-1])
