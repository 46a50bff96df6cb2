"""Hypothesis strategies for vredmax.vs: configurations, instructions, legal states and cases.

    from hypothesis import given
    from vredmax.strategies import cases

    @given(cases(vlens=(128, 256)))
    def test_my_emulator(case):
        assert my_emulator(case.pre, case.insn) == execute(case.pre, case.insn, tail=case.tail)

- `configurations(vlens, elen, sews, lmuls)`: a legal `Config`; shrinks to the smallest VLMAX.
- `instructions(cfg, masked=None, legal=True)`: an `Insn` the configuration does not reserve
  (vs2 aligned to the group; v0 neither in the vs2 group nor vs1 when masked); shrinks to
  `vredmax.vs v8, v16, v4` unmasked.
- `states(cfg)`: a legal `ArchState` for the configuration (vtype selects it, vl 0..VLMAX,
  vstart 0, mstatus.VS not Off); shrinks to zero registers and vl = 0.
- `cases(vlens, elen, sews, lmuls, traps=False, tails=...)`: a `Case` (pre, insn, tail).

What a case reads (the seed vs1[0], the active elements of the vs2 group, the mask bits
below vl when masked) is drawn value by value and shrinks to 0; everything else (the other
registers, the elements past vl or masked off, vd's old value and tail) is one choice, all
zeros or random bits, that shrinks to zeros: a shrunk failing example shows only what the
failure needs. The first LANES lanes are drawn one by one; past them (VLEN=65536 has up to
65536 lanes) a lane's value follows a drawn pattern (zeros, all ones, random) except at up
to 4 drawn spots (lane 37 of 64, element 4095, ...), so large cases fit in Hypothesis's buffer.
With `traps=True` a case may also be one that traps: mstatus.VS off, vill, vstart != 0, a
misaligned vs2 group, v0 in the vs2 group or as vs1 while masked (each shrinks away).

Hypothesis is a test dependency (`pip install vredmax[test]`), imported here only.
"""

from __future__ import annotations

import random
from typing import NamedTuple

from hypothesis import strategies as st

from vredmax.impl.execute import TAIL_POLICIES
from vredmax.spec.config import LMUL_NAMES, SEWS, VTYPE_VILL_BIT, Config, encode_vtype, legal_configs
from vredmax.spec.encoding import Insn
from vredmax.spec.state import NUM_VREGS, VS_NAMES, ArchState

LANES = 64  # lanes drawn one by one; the others follow a pattern and spots
PATTERNS = ("zeros", "ones", "random")
TRAPS = ("vs_off", "vill", "vstart", "misaligned", "v0_in_vs2", "vs1_is_v0")
CONVENTIONAL = (8, 16, 4)  # `vredmax.vs v8, v16, v4`: where registers shrink to


class Case(NamedTuple):
    """One case: the pre-state, the instruction and the tail policy of the executable model."""

    pre: ArchState
    insn: Insn
    tail: str


def configurations(vlens=(128,), elen: int = 64, sews=SEWS, lmuls=LMUL_NAMES) -> st.SearchStrategy:
    """A legal configuration of these VLENs, SEWs and LMULs (smallest VLMAX first)."""
    found = sorted(
        legal_configs(elen, list(vlens), list(sews), list(lmuls)),
        key=lambda c: (c.vlmax, c.vlen, c.sew, LMUL_NAMES.index(c.lmul)),
    )
    if not found:
        raise ValueError(
            f"configurations: no legal configuration for VLEN in {tuple(vlens)}, ELEN={elen}, "
            f"SEW in {tuple(sews)}, LMUL in {tuple(lmuls)}"
        )
    return st.sampled_from(found)


def _register(preferred: int, allowed) -> st.SearchStrategy:
    """A register number from `allowed`, shrinking to `preferred` (or the nearest allowed)."""
    allowed = sorted(allowed, key=lambda r: (abs(r - preferred), r))
    return st.sampled_from(allowed)


@st.composite
def instructions(draw, cfg: Config, masked: bool | None = None, legal: bool = True) -> Insn:
    """vredmax.vs vd, vs2, vs1[, v0.t] for `cfg`; `legal`: not a reserved encoding there."""
    masked = draw(st.booleans()) if masked is None else masked
    group = cfg.group_registers
    vs2_choices = (
        [r for r in range(0, NUM_VREGS, group) if not (legal and masked and r == 0)]
        if legal
        else range(NUM_VREGS)
    )
    vs2 = draw(_register(CONVENTIONAL[1], vs2_choices))
    vs1 = draw(_register(CONVENTIONAL[2], [r for r in range(NUM_VREGS) if not (legal and masked and r == 0)]))
    vd = draw(_register(CONVENTIONAL[0], range(NUM_VREGS)))
    return Insn(vd=vd, vs2=vs2, vs1=vs1, vm=0 if masked else 1)


def _pattern_bits(pattern: str, rng: random.Random, width: int) -> int:
    return (
        {"zeros": 0, "ones": (1 << width) - 1}.get(pattern) if pattern != "random" else rng.getrandbits(width)
    )


@st.composite
def states(draw, cfg: Config, vs_states=("initial", "clean", "dirty")) -> ArchState:
    """A legal pre-state for `cfg`: each register all zeros, all ones or random (shrinking to
    zeros), vl 0..VLMAX, vta and vma, mstatus.VS one of `vs_states`, vstart 0."""
    rng = random.Random(draw(st.integers(0, 2**32 - 1)))
    regs = tuple(_pattern_bits(draw(st.sampled_from(PATTERNS)), rng, cfg.vlen) for _ in range(NUM_VREGS))
    vtype = encode_vtype(cfg.sew, cfg.lmul, draw(st.booleans()), draw(st.booleans()))
    state = ArchState(
        cfg.vlen,
        cfg.elen,
        regs,
        vtype,
        draw(st.integers(0, cfg.vlmax)),
        0,
        VS_NAMES.index(draw(st.sampled_from(tuple(vs_states)))),
    )
    state.check()
    return state


@st.composite
def _lanes(draw, count: int, width: int, rng: random.Random, boolean: bool = False) -> list[int]:
    """`count` lane values: the first LANES drawn one by one, the rest a pattern with spots."""
    one = st.booleans().map(int) if boolean else st.integers(0, (1 << width) - 1)
    values = [draw(one) for _ in range(min(count, LANES))]
    if count > LANES:
        pattern = draw(st.sampled_from(PATTERNS))
        values += [_pattern_bits(pattern, rng, width) for _ in range(count - LANES)]
        for lane, value in draw(st.lists(st.tuples(st.integers(LANES, count - 1), one), max_size=4)):
            values[lane] = value
    return values


@st.composite
def cases(
    draw,
    vlens=(128,),
    elen: int = 64,
    sews=SEWS,
    lmuls=LMUL_NAMES,
    traps: bool = False,
    tails=TAIL_POLICIES,
    vs_states=("initial", "clean", "dirty"),
) -> Case:
    """A case (pre-state, instruction, tail policy) at a legal configuration of these VLENs,
    SEWs and LMULs; what it does not read is zero in a shrunk example (module docstring)."""
    cfg = draw(configurations(vlens, elen, sews, lmuls))
    trap = draw(st.sampled_from((None,) + TRAPS)) if traps else None
    if trap == "misaligned" and cfg.group_registers == 1:
        trap = None
    masked = True if trap in ("v0_in_vs2", "vs1_is_v0") else None
    insn = draw(instructions(cfg, masked, legal=True))
    if trap == "misaligned":
        insn = Insn(insn.vd, insn.vs2 + draw(st.integers(1, cfg.group_registers - 1)), insn.vs1, insn.vm)
    elif trap == "v0_in_vs2":
        insn = Insn(insn.vd, 0, insn.vs1, 0)
    elif trap == "vs1_is_v0":
        insn = Insn(insn.vd, insn.vs2, 0, 0)
    vill = trap == "vill"
    vl = 0 if vill else draw(st.integers(0, cfg.vlmax))
    vtype = (
        (1 << VTYPE_VILL_BIT)
        if vill
        else encode_vtype(cfg.sew, cfg.lmul, draw(st.booleans()), draw(st.booleans()))
    )
    vstart = draw(st.integers(1, cfg.vlen - 1)) if trap == "vstart" else 0
    vs = "off" if trap == "vs_off" else draw(st.sampled_from(tuple(vs_states)))

    rng = random.Random(draw(st.integers(0, 2**32 - 1)))
    noise = draw(st.booleans())  # the bits the case does not read: zeros, or random
    regs = [rng.getrandbits(cfg.vlen) if noise else 0 for _ in range(NUM_VREGS)]

    def put(register: int, offset: int, width: int, value: int) -> None:
        if 0 <= register < NUM_VREGS:
            regs[register] = regs[register] & ~(((1 << width) - 1) << offset) | value << offset

    mask = _lanes(count=vl, width=1, rng=rng, boolean=True) if insn.vm == 0 and vl else st.just([])
    mask_bits = draw(mask)
    for lane, bit in enumerate(mask_bits):
        put(0, lane, 1, bit)
    active = [bool(bit) for bit in mask_bits] if insn.vm == 0 else [True] * vl
    elements = draw(_lanes(count=vl, width=cfg.sew, rng=rng)) if vl else []
    per = cfg.elements_per_register
    for lane, (value, on) in enumerate(zip(elements, active)):
        if on:
            put(insn.vs2 + lane // per, (lane % per) * cfg.sew, cfg.sew, value)
    put(insn.vs1, 0, cfg.sew, draw(st.integers(0, (1 << cfg.sew) - 1)))
    pre = ArchState(cfg.vlen, elen, tuple(regs), vtype, vl, vstart, VS_NAMES.index(vs))
    pre.check()
    return Case(pre, insn, draw(st.sampled_from(tuple(tails))))


__all__ = ["Case", "LANES", "TRAPS", "cases", "configurations", "instructions", "states"]
