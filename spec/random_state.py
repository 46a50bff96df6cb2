"""Random vredmax.vs cases (a pre-state and an instruction): the one generator behind
`vredmax conform`, `vredmax testgen` and the Hypothesis strategies of the tests.

`draw_case(choose, space)` asks a chooser for every decision, so the same code serves a
seeded run (`RandomChooser(seed)`, over `random.Random`) and Hypothesis (`hypothesis_chooser
(draw)`, which can shrink the decisions). Register bits come from a PRNG seeded by one drawn
integer: a VLEN=65536 register file would not fit in Hypothesis's buffer.

The space (`Space`): the legal configurations of the given VLENs, ELEN, SEWs and LMULs;
vl = 0, 1, VLMAX or random; vta, vma; masks unmasked, all off, all on, one bit or random;
register overlaps (vd = vs2, vd in the vs2 group, vd = vs1, vd = v0, vs1 = vs2, vs1 in the
vs2 group); register values random, all zeros, all ones, or built from the elements where
signed max goes wrong (0, 1, -1, the signed minimum and maximum and their neighbours); and
with `traps` one state in four of a trap kind: mstatus.VS off (if "off" is in `vs_states`),
vill (the raw vill bit, a reserved vsew/vlmul/bit 62:8, an unsupported SEW/LMUL pair), vstart
not 0 (with vl = 0 too), a misaligned vs2 group, v0 in the vs2 group or as vs1 with vm = 0.

A vill state has vl = 0. With `vsetvl=True` (a harness that reaches the state through vsetvl)
its vtype is what vsetvl leaves, `1 << 63`; otherwise the raw vtype drawn. The requested vtype
and AVL are returned with the state either way.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from collections.abc import Callable, Iterable
from typing import Any, Protocol, Sequence, TypeVar

from vredmax.spec.config import (
    LMUL_NAMES,
    SEWS,
    VTYPE_VILL_BIT,
    Config,
    encode_vtype,
    legal_configs,
    sew_lmul_supported,
)
from vredmax.spec.encoding import Insn
from vredmax.spec.state import NUM_VREGS, VS_NAMES, ArchState

VILL_VTYPE = 1 << VTYPE_VILL_BIT
TRAP_KINDS = (
    "vs_off",
    "vill_bit",
    "vill_reserved",
    "vill_unsupported",
    "vstart",
    "misaligned",
    "v0_in_vs2",
    "vs1_is_v0",
)
OVERLAPS = ("none", "vd=vs2", "vd in vs2 group", "vd=vs1", "vd=v0", "vs1=vs2", "vs1 in vs2 group")
MASKS = ("random", "random", "all-off", "all-on", "one bit")
BACKGROUNDS = ("random", "zeros", "ones")
T = TypeVar("T")
DATA = ("random", "edges", "palette")


class Chooser(Protocol):
    def integer(self, lo: int, hi: int) -> int: ...  # lo..hi inclusive
    def choice(self, options: Sequence[T]) -> T: ...


class RandomChooser:
    """The chooser of seeded runs."""

    def __init__(self, seed: int) -> None:
        self.random = random.Random(seed)

    def integer(self, lo: int, hi: int) -> int:
        return self.random.randint(lo, hi)

    def choice(self, options: Sequence[T]) -> T:
        return self.random.choice(options)


def hypothesis_chooser(draw: Callable[[Any], Any]) -> Chooser:
    """The chooser over a Hypothesis `draw` (Hypothesis is a test dependency: imported here)."""
    from hypothesis import strategies as st

    class HypothesisChooser:
        def integer(self, lo: int, hi: int) -> int:
            return int(draw(st.integers(lo, hi)))

        def choice(self, options: Sequence[T]) -> T:
            chosen: T = draw(st.sampled_from(options))
            return chosen

    return HypothesisChooser()


@dataclass(frozen=True)
class Space:
    vlens: tuple[int, ...] = tuple(1 << k for k in range(5, 17))  # 32 .. 65536
    elen: int = 64
    sews: tuple[int, ...] = SEWS
    lmuls: tuple[str, ...] = LMUL_NAMES
    vs_states: tuple[str, ...] = VS_NAMES
    traps: bool = True
    vsetvl: bool = False

    def configs(self) -> list[Config]:
        found = legal_configs(self.elen, self.vlens, self.sews, self.lmuls)
        if not found:
            raise ValueError(
                f"no legal configuration for VLEN in {self.vlens}, ELEN={self.elen}, "
                f"SEW in {self.sews}, LMUL in {self.lmuls}"
            )
        return found


@dataclass(frozen=True)
class Drawn:
    pre: ArchState
    insn: Insn
    requested_vtype: int  # the vtype and AVL a harness gives vsetvl to reach `pre`
    avl: int


def interesting_elements(sew: int) -> tuple[int, ...]:
    """Edge values as unsigned SEW-bit ints: 0, 1, -1, the signed minimum and maximum, ..."""
    top = 1 << (sew - 1)
    return (0, 1, (1 << sew) - 1, top, top - 1, top + 1, 2)


def pack(elements: Iterable[int], sew: int) -> int:
    """A register (or group) value from its elements, element 0 in the low bits."""
    nbytes = sew // 8
    return int.from_bytes(b"".join((e % (1 << sew)).to_bytes(nbytes, "little") for e in elements), "little")


def _palette_element(rng: random.Random, sew: int) -> int:
    """An element biased to the values where signed max goes wrong, else random."""
    if rng.random() < 0.4:
        return rng.getrandbits(sew)
    if rng.random() < 0.2:
        return rng.randint(-4, 4) & ((1 << sew) - 1)
    return rng.choice(interesting_elements(sew))


def _register(rng: random.Random, vlen: int, sew: int, style: str) -> int:
    if style == "zeros":
        return 0
    if style == "ones":
        return (1 << vlen) - 1
    if style == "edges":
        palette = interesting_elements(sew)
        return pack((rng.choice(palette) for _ in range(vlen // sew)), sew)
    if style == "palette":
        return pack((_palette_element(rng, sew) for _ in range(vlen // sew)), sew)
    return rng.getrandbits(vlen)


def _vill_vtype(choose: Chooser, kind: str, elen: int, sew: int, lmul: str) -> int:
    low = encode_vtype(sew, lmul, bool(choose.integer(0, 1)), bool(choose.integer(0, 1)))
    if kind == "vill_bit":
        return low | VILL_VTYPE
    if kind == "vill_unsupported":
        pairs = [(s, m) for s in SEWS for m in LMUL_NAMES if not sew_lmul_supported(s, m, elen)]
        bad_sew, bad_lmul = choose.choice(pairs)
        return encode_vtype(bad_sew, bad_lmul, bool(low >> 6 & 1), bool(low >> 7 & 1))
    which = choose.choice(("vsew", "vlmul", "high"))  # reserved: vsew 1xx, vlmul 100, bits 62:8
    if which == "vsew":
        return low & ~(0b111 << 3) | choose.integer(4, 7) << 3
    if which == "vlmul":
        return low & ~0b111 | 0b100
    return low | 1 << choose.integer(8, VTYPE_VILL_BIT - 1)


def _registers(choose: Chooser, group: int, kind: str | None, masked: bool) -> tuple[int, int, int]:
    """(vd, vs2, vs1) for one overlap; legal unless `kind` names a reserved trap."""
    aligned = [r for r in range(0, NUM_VREGS, group) if not (masked and r == 0)]
    vs2 = choose.choice(aligned)
    if kind == "misaligned":
        vs2 = choose.choice(range(0, NUM_VREGS - group + 1, group)) + choose.integer(1, group - 1)
    elif kind == "v0_in_vs2":
        vs2 = 0
    vs1 = 0 if kind == "vs1_is_v0" else choose.integer(1 if masked else 0, NUM_VREGS - 1)
    vd = choose.integer(0, NUM_VREGS - 1)
    overlap = choose.choice(OVERLAPS)
    if overlap == "vd=vs2":
        vd = vs2
    elif overlap == "vd in vs2 group":
        vd = vs2 + choose.integer(0, group - 1) if vs2 + group <= NUM_VREGS else vs2
    elif overlap == "vd=vs1":
        vd = vs1
    elif overlap == "vd=v0":
        vd = 0
    elif overlap == "vs1=vs2" and kind != "vs1_is_v0" and not (masked and vs2 == 0):
        vs1 = vs2
    elif overlap == "vs1 in vs2 group" and kind != "vs1_is_v0" and vs2 + group <= NUM_VREGS:
        candidate = vs2 + choose.integer(0, group - 1)
        if not (masked and candidate == 0):
            vs1 = candidate
    return vd, vs2, vs1


def draw_case(choose: Chooser, space: Space = Space()) -> Drawn:
    """One case of `space` (see the module docstring); `pre.check()` accepts it."""
    cfg = choose.choice(space.configs())
    kind = None
    if space.traps and choose.integer(0, 3) == 3:
        kinds = [
            k
            for k in TRAP_KINDS
            if (k != "vs_off" or "off" in space.vs_states) and (k != "misaligned" or cfg.group_registers > 1)
        ]
        kind = choose.choice(kinds)
    vill = kind is not None and kind.startswith("vill")
    masked = kind in ("v0_in_vs2", "vs1_is_v0") or bool(choose.integer(0, 1))
    vd, vs2, vs1 = _registers(choose, cfg.group_registers, kind, masked)
    insn = Insn(vd=vd, vs2=vs2, vs1=vs1, vm=0 if masked else 1)

    vta, vma = bool(choose.integer(0, 1)), bool(choose.integer(0, 1))
    requested = (
        _vill_vtype(choose, kind, space.elen, cfg.sew, cfg.lmul)
        if vill and kind is not None
        else encode_vtype(cfg.sew, cfg.lmul, vta, vma)
    )
    rng = random.Random(choose.integer(0, 2**64 - 1))
    if vill:
        vl, avl, vtype = 0, choose.integer(0, cfg.vlen), VILL_VTYPE if space.vsetvl else requested
    else:
        # "uniform" comes from the PRNG: Hypothesis alone favours small integers
        how = choose.choice(("random", "uniform", "zero", "one", "max"))
        chosen = {"zero": 0, "one": 1, "max": cfg.vlmax, "uniform": rng.randint(0, cfg.vlmax)}.get(how)
        vl = choose.integer(0, cfg.vlmax) if chosen is None else chosen
        avl, vtype = vl, requested
    vstart = 0
    if kind == "vstart":
        vstart = (
            choose.integer(1, vl - 1) if vl > 1 and choose.integer(0, 1) else choose.integer(1, cfg.vlen - 1)
        )
    vs = (
        "off"
        if kind == "vs_off"
        else choose.choice([v for v in space.vs_states if v != "off"] or ["initial"])
    )

    background, data = choose.choice(BACKGROUNDS), choose.choice(DATA)
    regs = [_register(rng, cfg.vlen, cfg.sew, background) for _ in range(NUM_VREGS)]
    for k in range(cfg.group_registers):
        if vs2 + k < NUM_VREGS:
            regs[vs2 + k] = _register(rng, cfg.vlen, cfg.sew, data)
    seed = (
        choose.choice(interesting_elements(cfg.sew))
        if choose.integer(0, 1)
        else choose.integer(0, (1 << cfg.sew) - 1)
    )
    regs[vs1] = regs[vs1] >> cfg.sew << cfg.sew | seed
    if masked:
        pattern = choose.choice(MASKS)
        regs[0] = {
            "all-off": 0,
            "all-on": (1 << cfg.vlen) - 1,
            "one bit": 1 << choose.integer(0, cfg.vlen - 1),
        }.get(pattern, rng.getrandbits(cfg.vlen))

    pre = ArchState(
        vlen=cfg.vlen,
        elen=space.elen,
        regs=tuple(regs),
        vtype=vtype,
        vl=vl,
        vstart=vstart,
        vs=VS_NAMES.index(vs),
    )
    pre.check()
    return Drawn(pre, insn, requested, avl)
