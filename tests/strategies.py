"""Hypothesis strategies for concrete vredmax.vs cases: (ArchState, Insn, tail policy).

    from tests.strategies import cases      # under `python -m pytest` from the project root
    @given(cases(vlens=(128, 256, 512, 1024), elen=64, vs_states=("initial", "clean", "dirty")))
    def test_something(case):
        state, insn, tail = case

cases(vlens=VLENS, elen=64, sews=SEWS, lmuls=LMUL_NAMES, tails=TAIL_POLICIES, vs_states=VS_NAMES,
      traps=True): vlens are the VLENs to draw from (powers of two, 32..65536); the others
restrict SEW, LMUL, the tail policy and mstatus.VS; traps=False gives only cases that retire.
make_state(...) builds one state by hand; pack(elements, sew) builds a register value.

Each case is a state that `ArchState.check()` accepts. The strategy mixes:
- every legal SEW/LMUL of the chosen VLENs and ELEN; vl = 0, 1, VLMAX or random;
- unmasked, all-off, all-on and random masks;
- overlaps: vd = vs2, vd in the vs2 group, vd = vs1, vd = v0, vs1 = vs2, vs1 in the vs2 group;
- with traps=True also the traps: mstatus.VS off (only if "off" is in vs_states), vill
  (the raw vill bit, reserved vsew/vlmul/bits 62:8, an unsupported SEW/LMUL pair), vstart != 0
  (vl = 0 too), misaligned vs2, and the reserved v0 overlaps with vm=0.
A vill state has vl = 0 and keeps the raw vtype the case describes (a harness that sets vtype
with vsetvl will read back vtype = 1 << 63 instead).

The cases come from the project's one generator of random states, spec/random_state.py
(`vredmax conform` and `testgen` draw theirs from it too): Hypothesis makes every decision
(so it can shrink them) and register contents come from a PRNG seeded by one drawn integer
(so VLEN=65536 states fit in Hypothesis's buffer).
"""

from __future__ import annotations

from hypothesis import strategies as st

from vredmax.impl.execute import TAIL_POLICIES
from vredmax.spec.config import LMUL_NAMES, SEWS, encode_vtype, vlmax
from vredmax.spec.random_state import (
    MASKS,
    OVERLAPS,
    TRAP_KINDS,
    Space,
    draw_case,
    hypothesis_chooser,
    interesting_elements,
    pack,
)
from vredmax.spec.state import NUM_VREGS, VS_NAMES, ArchState

VLENS = tuple(1 << k for k in range(5, 17))  # 32 .. 65536
__all__ = ["MASKS", "OVERLAPS", "TRAP_KINDS", "VLENS", "cases", "interesting_elements", "make_state", "pack"]


def make_state(
    vlen: int,
    sew: int,
    lmul: str = "m1",
    vl: int | None = None,
    regs=None,
    *,
    elen: int = 64,
    vta: bool = False,
    vma: bool = False,
    vstart: int = 0,
    vs: str = "initial",
    vtype: int | None = None,
) -> ArchState:
    """A concrete state for hand-written tests; regs maps register number -> value.

    vl defaults to VLMAX; vtype (raw) overrides sew/lmul/vta/vma.
    """
    raw = encode_vtype(sew, lmul, vta, vma) if vtype is None else vtype
    file = [0] * NUM_VREGS
    for number, value in (regs or {}).items():
        file[number] = value
    if vl is None:
        vl = vlmax(vlen, sew, lmul)
    state = ArchState(
        vlen=vlen, elen=elen, regs=tuple(file), vtype=raw, vl=vl, vstart=vstart, vs=VS_NAMES.index(vs)
    )
    state.check()
    return state


@st.composite
def cases(
    draw,
    vlens=VLENS,
    elen: int = 64,
    sews=SEWS,
    lmuls=LMUL_NAMES,
    tails=TAIL_POLICIES,
    vs_states=VS_NAMES,
    traps: bool = True,
):
    """(ArchState, Insn, tail) over the legal configurations of the given VLENs and ELEN."""
    space = Space(
        vlens=tuple(vlens),
        elen=elen,
        sews=tuple(sews),
        lmuls=tuple(lmuls),
        vs_states=tuple(vs_states),
        traps=traps,
    )
    drawn = draw_case(hypothesis_chooser(draw), space)
    return drawn.pre, drawn.insn, draw(st.sampled_from(tails))
