"""Concrete states for check-impl, run before any proof: what the user's code does on real states.

Random states (`random_state`, seeded) and directed ones (`directed_states`: the cases where
the usual bugs show, whatever the code looks like: the largest element first, last, on an
inactive lane, past vl; a negative and a positive element, the seed largest; vd over a source;
each trap; vl = 0 and vl = VLMAX) go through the implementation and the executable spec.
A disagreement is a counterexample whatever a proof would say, so code the symbolic run cannot
take (a construct it refuses) still gets one when it is wrong.
"""

from __future__ import annotations

import random

from vredmax.spec.config import Config, encode_vtype
from vredmax.spec.encoding import Insn
from vredmax.spec.state import NUM_VREGS, VS_DIRTY, ArchState

RANDOM_ELEMENT_BUDGET_FACTOR = 1024  # the full --random count up to this VLMAX (see random_count)
DIRECTED_ELEMENT_BUDGET = 1 << 17  # directed states: at most this many elements in all, past 8 states


def random_count(requested: int, cfg: Config) -> int:
    """How many random states at a configuration: the requested number up to VLMAX 1024,
    fewer beyond (requested x 1024 / VLMAX, at least 20), so that a configuration's concrete
    runs take seconds (each state runs the instruction twice, about 10 ms per 1000 elements)."""
    if requested <= 0:
        return 0
    return max(
        min(requested, 20), min(requested, requested * RANDOM_ELEMENT_BUDGET_FACTOR // max(cfg.vlmax, 1))
    )


def random_state(rng: random.Random, cfg: Config) -> tuple[ArchState, Insn]:
    """A concrete state in the domain (spec/state.py): mostly legal and retiring, with every
    kind of overlap, masks, vl at its edges; sometimes a trap."""
    group = cfg.group_registers
    vs2 = rng.randrange(0, 32, group)
    vm = rng.choice((0, 1))
    choices = [rng.randrange(32) for _ in range(2)]
    vd = rng.choice([choices[0], vs2, vs2 + group - 1, 0])
    vs1 = rng.choice([choices[1], vs2, vd])
    if rng.random() < 0.9 and vm == 0:  # keep most masked cases clear of reserved overlaps
        if vs2 == 0:
            vs2 = group * rng.randrange(1, 32 // group)
        if vs1 == 0:
            vs1 = rng.randrange(1, 32)
    sew_mask = (1 << cfg.sew) - 1
    top = 1 << (cfg.sew - 1)
    palette = [0, 1, sew_mask, top, top - 1, top + 1]

    nbytes = cfg.sew // 8

    def register():
        if rng.random() < 0.5:
            return rng.getrandbits(cfg.vlen)
        # edge values: a random block of eight, repeated (no per-element loop at VLEN=65536)
        block = b"".join(rng.choice(palette).to_bytes(nbytes, "little") for _ in range(8))
        return int.from_bytes((block * (cfg.vlen // (8 * cfg.sew) + 1))[: cfg.vlen // 8], "little")

    regs = tuple(register() for _ in range(NUM_VREGS))
    vlmax = cfg.vlmax
    vl = rng.choice([0, 1, vlmax, rng.randint(0, vlmax), rng.randint(0, vlmax)])
    vtype = encode_vtype(cfg.sew, cfg.lmul, rng.random() < 0.5, rng.random() < 0.5)
    vstart, vs = 0, rng.choice((1, 2, 3))
    trap = rng.random()
    if trap < 0.03:
        vtype, vl = 1 << 63, 0
    elif trap < 0.06:
        vstart = rng.randrange(1, cfg.vlen)
    elif trap < 0.08:
        vs = 0
    state = ArchState(cfg.vlen, cfg.elen, regs, vtype, vl, vstart, vs)
    state.check()
    return state, Insn(vd % 32, vs2 % 32, vs1 % 32, vm)


# Directed states ------------------------------------------------------------------------------

VS2, VS1, VD = 8, 16, 24  # aligned for every LMUL, apart from each other and from v0


def directed_states(cfg: Config) -> list[tuple[ArchState, Insn]]:
    """The states where the usual bugs show (module docstring), the cheapest first; fewer of
    them at large VLMAX (each runs VLMAX elements)."""
    sew, count = cfg.sew, cfg.vlmax
    smin, top, ones = 1 << (sew - 1), (1 << (sew - 1)) - 1, (1 << sew) - 1
    rng = random.Random(f"directed/{cfg}")
    background = [rng.getrandbits(cfg.vlen) for _ in range(NUM_VREGS)]
    last = count - 1
    cases = []

    def add(seed, values, vl, mask=None, registers=(VD, VS2, VS1), flags=(0, 0), trap=None):
        elements = [values.get(i, smin) for i in range(count)] if isinstance(values, dict) else values
        cases.append(_state(cfg, background, seed, elements, vl, mask, registers, flags, trap))

    # signed, not unsigned: a negative element below a positive seed, and the reverse
    add(1, {0: smin}, 1)
    add(smin, {0: 1}, 1)
    add(ones, {0: 0}, 1, flags=(1, 1))  # -1 and 0, agnostic tail and mask
    add(0, {last: top}, count)  # the largest element last
    add(smin, {0: top, last: 1}, count, flags=(1, 0))  # the largest first
    add(top, {0: 1}, count)  # the seed largest
    add(0, {last: top}, last if last else 1)  # the largest just past vl
    add(0, {1 % count: top}, count, mask=1)  # the largest on an inactive lane
    add(smin, {last: 1}, count, mask=(1 << count) - 1 ^ 1)  # every lane but 0 active
    add(0, {0: top}, 0)  # vl = 0: nothing written
    add(0, {0: top}, 1, registers=(VS2, VS2, VS1))  # vd over vs2 and vs1
    add(1, {0: top}, 1, registers=(VS1, VS2, VS1))
    add(0, {0: top}, 1, trap="vstart")
    add(0, {0: top}, 1, trap="vill")
    add(0, {0: top}, 1, trap="vs_off")
    if count > 2:
        add(0, {count // 2: top, count // 2 - 1: smin + 1}, count)
    limit = max(8, DIRECTED_ELEMENT_BUDGET // max(count, 1))
    return cases[:limit]


def _state(cfg, background, seed, elements, vl, mask, registers, flags, trap):
    vd, vs2, vs1 = registers
    regs = list(background)
    per, nbytes = cfg.elements_per_register, cfg.sew // 8
    for k in range(cfg.group_registers):
        chunk = elements[k * per : (k + 1) * per]
        if chunk:
            value = int.from_bytes(b"".join(v.to_bytes(nbytes, "little") for v in chunk), "little")
            keep = regs[vs2 + k] >> (len(chunk) * cfg.sew) << (len(chunk) * cfg.sew)
            regs[vs2 + k] = keep | value
    regs[vs1] = regs[vs1] >> cfg.sew << cfg.sew | seed
    vm = 1 if mask is None else 0
    if mask is not None:
        regs[0] = regs[0] >> cfg.vlmax << cfg.vlmax | mask
    vta, vma = flags
    vtype, vstart, vs = encode_vtype(cfg.sew, cfg.lmul, bool(vta), bool(vma)), 0, VS_DIRTY
    if trap == "vstart":
        vstart = 1
    elif trap == "vill":
        vtype, vl = 1 << 63, 0
    elif trap == "vs_off":
        vs = 0
    state = ArchState(cfg.vlen, cfg.elen, tuple(regs), vtype, min(vl, cfg.vlmax), vstart, vs)
    state.check()
    return state, Insn(vd, vs2, vs1, vm)


DIRECTED, RANDOM = "directed", "random"


def concrete_states(cfg: Config, tails, count: int, seed: int, directed: bool = True):
    """(kind, pre, insn, tail) to run: the directed states with every tail policy, then `count`
    seeded random ones."""
    if directed:
        for pre, insn in directed_states(cfg):
            for tail in tails:
                yield DIRECTED, pre, insn, tail
    rng = random.Random(f"{seed}/{cfg}")
    for n in range(count):
        pre, insn = random_state(rng, cfg)
        yield RANDOM, pre, insn, tails[n % len(tails)]
