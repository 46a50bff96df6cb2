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

Register contents come from a PRNG seeded by one drawn integer (so VLEN=65536 states fit in
Hypothesis's buffer); the vs1 seed element and the mask pattern are drawn directly.
"""

from __future__ import annotations

import random

from hypothesis import strategies as st

from vredmax.impl.execute import TAIL_POLICIES
from vredmax.spec.config import (LMUL_NAMES, SEWS, VTYPE_VILL_BIT, encode_vtype, legal_configs,
                         sew_lmul_supported, vlmax)
from vredmax.spec.encoding import Insn
from vredmax.spec.state import NUM_VREGS, VS_NAMES, ArchState

VLENS = tuple(1 << k for k in range(5, 17))  # 32 .. 65536

TRAP_KINDS = ("vs_off", "vill_bit", "vill_reserved", "vill_unsupported", "vstart",
              "misaligned", "v0_in_vs2", "vs1_is_v0")
OVERLAPS = ("none", "vd=vs2", "vd in vs2 group", "vd=vs1", "vd=v0", "vs1=vs2", "vs1 in vs2 group")
MASKS = ("random", "all-off", "all-on")


def pack(elements, sew: int) -> int:
    """A register (or group) value from its elements, element 0 in the low bits."""
    nbytes = sew // 8
    return int.from_bytes(b"".join((e % (1 << sew)).to_bytes(nbytes, "little") for e in elements),
                          "little")


def interesting_elements(sew: int) -> tuple[int, ...]:
    """Edge values as unsigned SEW-bit ints: 0, 1, -1, the signed minimum and maximum."""
    top = 1 << (sew - 1)
    return (0, 1, (1 << sew) - 1, top, top - 1, top + 1, 2)


def make_state(vlen: int, sew: int, lmul: str = "m1", vl: int | None = None, regs=None, *,
               elen: int = 64, vta: bool = False, vma: bool = False, vstart: int = 0,
               vs: str = "initial", vtype: int | None = None) -> ArchState:
    """A concrete state for hand-written tests; regs maps register number -> value.

    vl defaults to VLMAX; vtype (raw) overrides sew/lmul/vta/vma.
    """
    raw = encode_vtype(sew, lmul, vta, vma) if vtype is None else vtype
    file = [0] * NUM_VREGS
    for number, value in (regs or {}).items():
        file[number] = value
    if vl is None:
        vl = vlmax(vlen, sew, lmul)
    state = ArchState(vlen=vlen, elen=elen, regs=tuple(file), vtype=raw, vl=vl, vstart=vstart,
                      vs=VS_NAMES.index(vs))
    state.check()
    return state


def _register(rng: random.Random, vlen: int, sew: int, style: str) -> int:
    if style == "zeros":
        return 0
    if style == "ones":
        return (1 << vlen) - 1
    if style == "edges":
        palette = interesting_elements(sew)
        return pack((rng.choice(palette) for _ in range(vlen // sew)), sew)
    return rng.getrandbits(vlen)


def _vill_vtype(draw, kind: str, elen: int, sew: int, lmul: str) -> int:
    low = encode_vtype(sew, lmul, draw(st.booleans()), draw(st.booleans()))
    if kind == "vill_bit":
        return low | 1 << VTYPE_VILL_BIT
    if kind == "vill_unsupported":
        pairs = [(s, m) for s in SEWS for m in LMUL_NAMES if not sew_lmul_supported(s, m, elen)]
        bad_sew, bad_lmul = draw(st.sampled_from(pairs))
        return encode_vtype(bad_sew, bad_lmul, low >> 6 & 1, low >> 7 & 1)
    # reserved encodings: vsew 1xx, vlmul 100, or a nonzero bit in 62:8
    which = draw(st.sampled_from(("vsew", "vlmul", "high")))
    if which == "vsew":
        return low & ~(0b111 << 3) | draw(st.integers(4, 7)) << 3
    if which == "vlmul":
        return low & ~0b111 | 0b100
    return low | 1 << draw(st.integers(8, VTYPE_VILL_BIT - 1))


def _registers(draw, group: int, kind: str | None, masked: bool):
    """(vd, vs2, vs1) for one overlap kind; legal unless kind names a reserved trap."""
    aligned = [r for r in range(0, NUM_VREGS, group) if not (masked and r == 0)]
    vs2 = draw(st.sampled_from(aligned))
    if kind == "misaligned":
        vs2 = draw(st.sampled_from(range(0, NUM_VREGS - group + 1, group))) + draw(st.integers(1, group - 1))
    elif kind == "v0_in_vs2":
        vs2 = 0
    sources = range(1 if masked else 0, NUM_VREGS)
    vs1 = 0 if kind == "vs1_is_v0" else draw(st.sampled_from(sources))
    vd = draw(st.integers(0, NUM_VREGS - 1))
    overlap = draw(st.sampled_from(OVERLAPS))
    if overlap == "vd=vs2":
        vd = vs2
    elif overlap == "vd in vs2 group":
        vd = vs2 + draw(st.integers(0, group - 1)) if vs2 + group <= NUM_VREGS else vs2
    elif overlap == "vd=vs1":
        vd = vs1
    elif overlap == "vd=v0":
        vd = 0
    elif overlap == "vs1=vs2" and kind != "vs1_is_v0" and not (masked and vs2 == 0):
        vs1 = vs2
    elif overlap == "vs1 in vs2 group" and kind != "vs1_is_v0" and vs2 + group <= NUM_VREGS:
        candidate = vs2 + draw(st.integers(0, group - 1))
        if not (masked and candidate == 0):
            vs1 = candidate
    return vd, vs2, vs1


@st.composite
def cases(draw, vlens=VLENS, elen: int = 64, sews=SEWS, lmuls=LMUL_NAMES,
          tails=TAIL_POLICIES, vs_states=VS_NAMES, traps: bool = True):
    """(ArchState, Insn, tail) over the legal configurations of the given VLENs and ELEN."""
    configs = legal_configs(elen, vlens, sews, lmuls)
    if not configs:
        raise ValueError(f"no legal configuration for VLEN in {vlens}, ELEN={elen}, SEW in {sews}, LMUL in {lmuls}")
    cfg = draw(st.sampled_from(configs))
    kind = None
    if traps and draw(st.integers(0, 3)) == 3:
        kinds = [k for k in TRAP_KINDS
                 if (k != "vs_off" or "off" in vs_states) and (k != "misaligned" or cfg.group_registers > 1)]
        kind = draw(st.sampled_from(kinds))
    vill = kind is not None and kind.startswith("vill")
    reserved_v0 = kind in ("v0_in_vs2", "vs1_is_v0")

    masked = reserved_v0 or draw(st.booleans())
    vd, vs2, vs1 = _registers(draw, cfg.group_registers, kind, masked)
    insn = Insn(vd=vd, vs2=vs2, vs1=vs1, vm=0 if masked else 1)

    rng = random.Random(draw(st.integers(0, 2**64 - 1)))
    vta, vma = draw(st.booleans()), draw(st.booleans())
    vtype = _vill_vtype(draw, kind, elen, cfg.sew, cfg.lmul) if vill else encode_vtype(cfg.sew, cfg.lmul, vta, vma)
    if vill:
        vl = 0
    else:
        # "uniform" comes from the PRNG: Hypothesis alone favours small integers.
        choice = draw(st.sampled_from(("random", "uniform", "zero", "one", "max")))
        vl = {"zero": 0, "one": 1, "max": cfg.vlmax, "uniform": rng.randint(0, cfg.vlmax)}.get(choice)
        if vl is None:
            vl = draw(st.integers(0, cfg.vlmax))
    vstart = draw(st.integers(1, cfg.vlen - 1)) if kind == "vstart" else 0
    if kind == "vs_off":
        vs = "off"
    else:
        vs = draw(st.sampled_from([v for v in vs_states if v != "off"] or ["initial"]))

    background = draw(st.sampled_from(("random", "zeros", "ones")))
    data = draw(st.sampled_from(("random", "edges")))
    regs = [_register(rng, cfg.vlen, cfg.sew, background) for _ in range(NUM_VREGS)]
    for k in range(cfg.group_registers):
        if vs2 + k < NUM_VREGS:
            regs[vs2 + k] = _register(rng, cfg.vlen, cfg.sew, data)
    seed = draw(st.sampled_from(interesting_elements(cfg.sew)) | st.integers(0, (1 << cfg.sew) - 1))
    regs[vs1] = regs[vs1] >> cfg.sew << cfg.sew | seed
    if masked:
        pattern = draw(st.sampled_from(MASKS))
        regs[0] = {"all-off": 0, "all-on": (1 << cfg.vlen) - 1}.get(pattern, rng.getrandbits(cfg.vlen))

    state = ArchState(vlen=cfg.vlen, elen=elen, regs=tuple(regs), vtype=vtype, vl=vl,
                      vstart=vstart, vs=VS_NAMES.index(vs))
    state.check()
    return state, insn, draw(st.sampled_from(tails))

