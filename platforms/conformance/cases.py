"""Conformance cases: a pre-state and an instruction word, and how a harness reaches them.

The cases come from the project's one generator of random states, spec/random_state.py (the
tests' Hypothesis strategies use it too), over one VLEN and ELEN, with vill states as vsetvl
leaves them (vtype = 1 << 63, vl = 0): every SEW and LMUL, unsupported and reserved vtypes, vl
in {0, 1, VLMAX, random}, vstart 0 or not (with vl = 0 too), masks, the register overlaps and
misaligned vs2 groups. A seed gives the same cases on every machine (`random_cases`).

mstatus.VS is never Off here: user-mode emulators cannot turn it off.
"""

from __future__ import annotations

from dataclasses import dataclass

from vredmax.spec.config import decode_vtype, vlmax
from vredmax.spec.encoding import Insn
from vredmax.spec.random_state import (
    VILL_VTYPE,
    RandomChooser,
    Space,
    draw_case as draw_state,
    hypothesis_chooser,
)
from vredmax.spec.state import ArchState

VS_NOT_OFF = ("initial", "clean", "dirty")


@dataclass(frozen=True)
class Case:
    """`pre` is the state the instruction runs on; the harness reaches it with vsetvl given
    `requested_vtype` and `avl`, then writes vstart."""

    pre: ArchState
    insn: Insn
    requested_vtype: int
    avl: int


def configure(vlen: int, elen: int, requested_vtype: int, avl: int) -> tuple[int, int]:
    """(vtype, vl) after `vsetvl` with this vtype and AVL.

    An unsupported or reserved vtype sets vill, clears the other vtype bits and sets vl = 0.
    Otherwise vl = AVL; we only use AVL <= VLMAX, where the architecture fixes vl exactly.
    """
    vt = decode_vtype(requested_vtype, elen)
    if vt.vill:
        return VILL_VTYPE, 0
    limit = vlmax(vlen, vt.sew, vt.lmul)
    if avl > limit:
        raise ValueError(f"avl: {avl} exceeds VLMAX={limit}, where vsetvl may choose vl")
    return requested_vtype, avl


def draw_case(choose, vlen: int, elen: int = 64) -> Case:
    """One case at this VLEN and ELEN, reachable by a harness (vsetvl, then vstart)."""
    drawn = draw_state(choose, Space(vlens=(vlen,), elen=elen, vs_states=VS_NOT_OFF, vsetvl=True))
    return Case(drawn.pre, drawn.insn, drawn.requested_vtype, drawn.avl)


def random_cases(seed: int, count: int, vlen: int, elen: int = 64):
    """`count` cases from one seed, reproducibly."""
    choose = RandomChooser(seed)
    for _ in range(count):
        yield draw_case(choose, vlen, elen)


def case_strategy(vlen: int, elen: int = 64):
    """The same cases as a Hypothesis strategy (Hypothesis is a test dependency)."""
    from hypothesis import strategies as st

    return st.composite(lambda draw: draw_case(hypothesis_chooser(draw), vlen, elen))()
