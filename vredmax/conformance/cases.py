"""Conformance cases: a pre-state and an instruction word, drawn over the interesting space.

One generator, two drivers: `draw_case` asks a chooser for every decision, so the same code
serves `vredmax conform` (a seeded `random.Random`) and the Hypothesis tests (which draw the
same decisions and can shrink them). The space: every SEW and LMUL, unsupported and
reserved vtypes (vsetvl then sets vill), vl in {0, 1, VLMAX, random}, vstart 0 or not (with
vl = 0 too), masks none / all on / all off / one bit / random, the register overlaps
(vd = vs2, vd inside the vs2 group, vd = vs1, vd = v0, vs1 = vs2, v0 in a source) and
misaligned vs2 groups.

mstatus.VS is never Off here: user-mode emulators cannot turn it off.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Protocol, Sequence

from vredmax.spec.config import (LMUL_NAMES, SEWS, VTYPE_VILL_BIT, decode_vtype, encode_vtype, group_registers,
                         sew_lmul_supported, vlmax)
from vredmax.spec.encoding import Insn
from vredmax.spec.state import NUM_VREGS, ArchState

VILL_VTYPE = 1 << VTYPE_VILL_BIT
VS_NOT_OFF = (1, 2, 3)  # initial, clean, dirty


class Chooser(Protocol):
    def integer(self, lo: int, hi: int) -> int: ...        # lo..hi inclusive
    def choice(self, options: Sequence): ...


class RandomChooser:
    """The chooser for seeded runs."""

    def __init__(self, seed: int):
        self.random = random.Random(seed)

    def integer(self, lo: int, hi: int) -> int:
        return self.random.randint(lo, hi)

    def choice(self, options: Sequence):
        return self.random.choice(options)


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


def draw_vtype(choose: Chooser, elen: int) -> int:
    """A raw vtype for vsetvl: mostly a supported SEW/LMUL pair, else one that sets vill."""
    kind = choose.choice(("supported",) * 20 + ("unsupported", "reserved vlmul", "reserved vsew",
                                               "vill bit", "reserved bits"))
    pairs = [(sew, lmul) for sew in SEWS for lmul in LMUL_NAMES
             if sew_lmul_supported(sew, lmul, elen) == (kind != "unsupported")]
    sew, lmul = choose.choice(pairs)
    raw = encode_vtype(sew, lmul, bool(choose.integer(0, 1)), bool(choose.integer(0, 1)))
    if kind == "reserved vlmul":
        raw = raw & ~0b111 | 0b100
    elif kind == "reserved vsew":
        raw = raw & ~0b111000 | choose.integer(4, 7) << 3
    elif kind == "vill bit":
        raw |= VILL_VTYPE
    elif kind == "reserved bits":
        raw |= 1 << choose.integer(8, VTYPE_VILL_BIT - 1)
    return raw


def draw_vl(choose: Chooser, limit: int) -> int:
    kind = choose.choice(("zero", "one", "vlmax", "random", "random"))
    if kind == "random":
        return choose.integer(0, limit)
    return {"zero": 0, "one": 1, "vlmax": limit}[kind]


def draw_insn(choose: Chooser, group: int) -> Insn:
    """Register numbers with the overlaps that matter; vs2 is sometimes misaligned."""
    if choose.choice(("aligned",) * 4 + ("any",)) == "aligned":
        vs2 = choose.choice(range(0, NUM_VREGS, group))
    else:
        vs2 = choose.integer(0, NUM_VREGS - 1)
    vs1_kind = choose.choice(("any",) * 5 + ("= vs2", "v0"))
    if vs1_kind == "any":
        vs1 = choose.integer(0, NUM_VREGS - 1)
    else:
        vs1 = vs2 if vs1_kind == "= vs2" else 0
    vd_kind = choose.choice(("any", "any", "= vs2", "in vs2 group", "= vs1", "v0"))
    if vd_kind == "any":
        vd = choose.integer(0, NUM_VREGS - 1)
    elif vd_kind == "in vs2 group":
        vd = min(vs2 + choose.integer(0, group - 1), NUM_VREGS - 1)
    else:
        vd = {"= vs2": vs2, "= vs1": vs1, "v0": 0}[vd_kind]
    return Insn(vd=vd, vs2=vs2, vs1=vs1, vm=choose.integer(0, 1))


PALETTE = ("zero", "one", "minus one", "min", "max", "min+1", "max-1", "small")


def element_value(rng: random.Random, sew: int) -> int:
    """An SEW-bit element, biased to the values where signed max goes wrong."""
    kind = rng.choice(PALETTE + ("random",) * 4)
    top = 1 << (sew - 1)
    value = {"zero": 0, "one": 1, "minus one": -1, "min": -top, "max": top - 1,
             "min+1": -top + 1, "max-1": top - 2}.get(kind)
    if value is None:
        value = rng.randint(-4, 4) if kind == "small" else rng.getrandbits(sew)
    return value & ((1 << sew) - 1)


def fill_registers(seed: int, vlen: int, sew: int, operands) -> list[int]:
    """All 32 registers: random bits, except that the operand registers are mostly built
    from palette elements (the others only have to stay unchanged)."""
    rng = random.Random(seed)
    regs = [rng.getrandbits(vlen) for _ in range(NUM_VREGS)]
    for number in sorted(operands):
        if rng.random() < 0.7:
            regs[number] = sum(element_value(rng, sew) << (i * sew) for i in range(vlen // sew))
    return regs


def draw_mask(choose: Chooser, vlen: int, old: int) -> int:
    kind = choose.choice(("random", "random", "all on", "all off", "one bit", "as is"))
    if kind == "all on":
        return (1 << vlen) - 1
    if kind == "all off":
        return 0
    if kind == "one bit":
        return 1 << choose.integer(0, vlen - 1)
    if kind == "random":
        return choose.integer(0, (1 << vlen) - 1)
    return old


def draw_vstart(choose: Chooser, vlen: int, vl: int) -> int:
    kind = choose.choice(("zero",) * 14 + ("below vl", "any"))
    if kind == "zero":
        return 0
    if kind == "below vl" and vl > 1:
        return choose.integer(1, vl - 1)
    return choose.integer(1, vlen - 1)


def draw_case(choose: Chooser, vlen: int, elen: int = 64) -> Case:
    requested = draw_vtype(choose, elen)
    vt = decode_vtype(requested, elen)
    if vt.vill:
        avl, group, sew = choose.integer(0, vlen), choose.choice((1, 2, 4, 8)), choose.choice(SEWS)
    else:
        avl, group, sew = draw_vl(choose, vlmax(vlen, vt.sew, vt.lmul)), group_registers(vt.lmul), vt.sew
    vtype, vl = configure(vlen, elen, requested, avl)
    insn = draw_insn(choose, group)
    operands = {insn.vd, insn.vs1, *range(insn.vs2, min(insn.vs2 + group, NUM_VREGS))}
    regs = fill_registers(choose.integer(0, 2**32 - 1), vlen, sew, operands)
    regs[0] = draw_mask(choose, vlen, regs[0])
    pre = ArchState(vlen=vlen, elen=elen, regs=tuple(regs), vtype=vtype, vl=vl,
                    vstart=draw_vstart(choose, vlen, vl), vs=choose.choice(VS_NOT_OFF))
    pre.check()
    return Case(pre, insn, requested, avl)


def random_cases(seed: int, count: int, vlen: int, elen: int = 64):
    """`count` cases from one seed, reproducibly."""
    choose = RandomChooser(seed)
    for _ in range(count):
        yield draw_case(choose, vlen, elen)



def case_strategy(vlen: int, elen: int = 64):
    """The same cases as a Hypothesis strategy (Hypothesis is a test dependency)."""
    from hypothesis import strategies as st

    class HypothesisChooser:
        def __init__(self, draw):
            self.draw = draw

        def integer(self, lo: int, hi: int) -> int:
            return self.draw(st.integers(lo, hi))

        def choice(self, options: Sequence):
            return self.draw(st.sampled_from(options))

    return st.composite(lambda draw: draw_case(HypothesisChooser(draw), vlen, elen))()
