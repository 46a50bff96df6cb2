"""The concrete cases of check-c's differential runs: directed ones, then seeded random ones.

Each configuration's cases are a pure function of (configuration, seed, index), so a child
process that dies on case k (a sanitizer's abort, a crash) is followed by the parent
rebuilding case k from its number.

Directed cases aim at the bugs emulators have: the largest element in the last lane (a
loop that stops one short), only there active or only there inactive (mask and vl handling),
signed extremes and -1 against 1 (an unsigned compare), a seed larger than every element,
vl = 0 and vl = 1, vd overlapping vs2 or vs1, agnostic tails, and every trap kind (a whole
instruction only: a unit never sees them).
"""

from __future__ import annotations

import random

from vredmax.spec.config import Config, VTYPE_VILL_BIT, encode_vtype
from vredmax.spec.encoding import Insn
from vredmax.proofs.c.fast import pack
from vredmax.spec.random_state import RandomChooser, Space, draw_case
from vredmax.spec.state import NUM_VREGS, ArchState

RANDOM_ELEMENT_BUDGET = 16_384  # elements per configuration for the random cases (at least MIN_RANDOM)
MIN_RANDOM = 3


def random_count(requested: int, cfg: Config) -> int:
    if requested <= 0:
        return 0
    return max(min(requested, MIN_RANDOM), min(requested, RANDOM_ELEMENT_BUDGET // max(cfg.vlmax, 1)))


def _layout(cfg: Config) -> tuple[int, int, int]:
    """(vd, vs2, vs1) clear of each other and of v0: vs2 at v8 (aligned for every LMUL)."""
    return 2, 8, 1


def _state(
    cfg: Config,
    elements,
    seed: int,
    vl: int,
    mask: int | None,
    vta=False,
    rng=None,
    vd=None,
    vs2=None,
    vs1=None,
    elen=None,
) -> tuple[ArchState, Insn]:
    d, s2, s1 = _layout(cfg)
    vd, vs2, vs1 = d if vd is None else vd, s2 if vs2 is None else vs2, s1 if vs1 is None else vs1
    rng = rng or random.Random(0)
    regs = [rng.getrandbits(cfg.vlen) for _ in range(NUM_VREGS)]
    group, full = int.from_bytes(pack(elements, cfg.sew), "little"), (1 << cfg.vlen) - 1
    for k in range(cfg.group_registers):  # a fractional group fills the low part of one register
        low = (1 << min(cfg.vlmax * cfg.sew - k * cfg.vlen, cfg.vlen)) - 1
        regs[vs2 + k] = regs[vs2 + k] & ~low & full | group >> (k * cfg.vlen) & low
    regs[vs1] = regs[vs1] >> cfg.sew << cfg.sew | seed
    if mask is not None:
        regs[0] = mask
    state = ArchState(
        cfg.vlen, elen or cfg.elen, tuple(regs), encode_vtype(cfg.sew, cfg.lmul, vta, False), vl, 0, 1
    )
    state.check()
    return state, Insn(vd, vs2, vs1, 0 if mask is not None else 1)


def directed(cfg: Config, level: str, elen: int = 64) -> list[tuple[ArchState, Insn]]:
    sew, n = cfg.sew, cfg.vlmax
    top = 1 << (sew - 1)
    smin, smax, minus1 = top, top - 1, (1 << sew) - 1
    rng = random.Random(f"directed/{cfg}")
    rand = lambda: [rng.getrandbits(sew) for _ in range(n)]
    last_big = [smin] * (n - 1) + [smax]
    all_on = (1 << cfg.vlen) - 1
    ascending = sorted(rand(), key=lambda v: v ^ top)  # in signed order: the largest is last
    cases = [
        _state(cfg, ascending, smin, n, None, rng=rng),
        _state(cfg, ascending[::-1], smin, n, None, rng=rng),
        _state(cfg, [smin] * n, smin, n, None, rng=rng),  # everything the minimum
        _state(cfg, rand(), smax, n, None, rng=rng),  # the seed is largest
        _state(cfg, last_big, smin, n, None, rng=rng),  # the last lane alone is large
        _state(cfg, last_big, smin, n - 1, None, rng=rng),  # ... but past vl
        _state(cfg, last_big, smin, n, all_on ^ (1 << (n - 1)), rng=rng),  # ... but masked off
        _state(cfg, [smax] + [smin] * (n - 1), smin, n, 1 << (n - 1) if n > 1 else 0, rng=rng),
        _state(cfg, [minus1 if i % 2 else 1 for i in range(n)], smin, n, None, rng=rng),  # -1 against 1
        _state(
            cfg, [top | (i & 1) for i in range(n)], minus1, n, None, rng=rng
        ),  # negative seed and elements
        _state(cfg, rand(), rng.getrandbits(sew), 0, None, rng=rng),  # vl = 0
        _state(cfg, rand(), rng.getrandbits(sew), 1, None, rng=rng),  # vl = 1
        _state(cfg, rand(), rng.getrandbits(sew), n, rng.getrandbits(cfg.vlen), rng=rng),  # a random mask
        _state(cfg, rand(), rng.getrandbits(sew), n, 0, rng=rng),  # every lane masked off
        _state(cfg, rand(), rng.getrandbits(sew), n, None, vta=True, rng=rng),  # agnostic tail
        _state(cfg, rand(), rng.getrandbits(sew), n, None, rng=rng, vd=8),  # vd = vs2
        _state(cfg, rand(), rng.getrandbits(sew), n, None, rng=rng, vd=1),  # vd = vs1
        _state(cfg, rand(), rng.getrandbits(sew), n, None, rng=rng, vs1=8),  # vs1 = vs2
        _state(
            cfg, rand(), rng.getrandbits(sew), n, rng.getrandbits(cfg.vlen), rng=rng, vd=0
        ),  # vd = v0, masked
        # the last register group, vl = VLMAX: an access past it leaves the register file
        _state(
            cfg, rand(), rng.getrandbits(sew), n, None, rng=rng, vs2=32 - cfg.group_registers, vd=2, vs1=1
        ),
    ]
    if n > 2:
        cases.append(
            _state(
                cfg, [smin] * (n // 2) + [smax] + [smin] * (n - n // 2 - 1), smin, n // 2 + 1, None, rng=rng
            )
        )  # the largest at vl - 1
    if level == "step":
        pre, insn = _state(cfg, rand(), rng.getrandbits(sew), n, None, rng=rng)
        cases += [
            (pre.with_(vs=0), insn),  # mstatus.VS off
            (pre.with_(vtype=1 << VTYPE_VILL_BIT, vl=0), insn),  # vill
            (pre.with_(vtype=pre.vtype | 1 << 8, vl=0), insn),  # a reserved vtype bit
            (pre.with_(vstart=1), insn),  # vstart != 0
            (pre.with_(vstart=1, vl=0), insn),
            (pre.with_(vl=0, vs=3), insn),
            (pre, Insn(insn.vd, 0, insn.vs1, 0)),  # masked, v0 in the vs2 group
            (pre, Insn(insn.vd, insn.vs2, 0, 0)),  # masked, vs1 = v0
        ]
        if cfg.elen < 64:  # SEW=64 above ELEN: vill
            cases.append((pre.with_(vtype=encode_vtype(64, "m1", False, False), vl=0), insn))
        if cfg.group_registers > 1:
            cases.append((pre, Insn(insn.vd, insn.vs2 + 1, insn.vs1, 1)))  # a misaligned vs2 group
    return cases


def random_cases(cfg: Config, level: str, seed: int, count: int, elen: int = 64):
    space = Space(vlens=(cfg.vlen,), elen=elen, sews=(cfg.sew,), lmuls=(cfg.lmul,), traps=level == "step")
    chooser = RandomChooser(f"{seed}/{cfg}")
    for _ in range(count):
        drawn = draw_case(chooser, space)
        yield drawn.pre, drawn.insn


def case(cfg: Config, level: str, seed: int, count: int, index: int, elen: int = 64):
    """Case number `index` of a configuration (directed first, then random)."""
    fixed = directed(cfg, level, elen)
    if index < len(fixed):
        return fixed[index]
    for k, found in enumerate(random_cases(cfg, level, seed, count, elen)):
        if k == index - len(fixed):
            return found
    raise IndexError(index)


def all_cases(cfg: Config, level: str, seed: int, count: int, elen: int = 64):
    yield from directed(cfg, level, elen)
    yield from random_cases(cfg, level, seed, count, elen)
