"""Concrete cases for the cut-point method (proofs/python/cutpoint.py): a legal pre-state and
instruction that hand a unit chosen operands, a case confirmed by running the unit in the
project's instruction against the executable spec, and a search of small cases at the edges of
the signed and unsigned orders (a failed local check is no bug until a case confirms it)."""

from __future__ import annotations

import itertools
import random
import time

from vredmax.impl.execute import TAIL_POLICIES, execute
from vredmax.spec.bv import ConcreteElements
from vredmax.spec.config import Config, encode_vtype
from vredmax.spec.encoding import Insn
from vredmax.spec.state import VS_DIRTY, ArchState

VS2, VS1, VD = 8, 16, 24  # aligned for every LMUL, apart from each other and from v0


def make_case(
    cfg: Config, seed: int, elements: list, active: set, registers=(VD, VS2, VS1)
) -> tuple[ArchState, Insn]:
    """A legal pre-state and instruction handing the unit these operands: vl is one past the
    last active element (at least 1), masked by v0 unless the active ones are a prefix.
    `registers` (vd, vs2, vs1): vs2 aligned; vd may overlap a source (written last)."""
    vd_reg, vs2_reg, vs1_reg = registers
    sew, count = cfg.sew, cfg.vlmax
    vl = max(active) + 1 if active else 1
    vm = 1 if active == set(range(vl)) else 0
    regs = [0] * 32
    per = cfg.elements_per_register
    nbytes = sew // 8
    for k in range(cfg.group_registers):
        chunk = elements[k * per : min((k + 1) * per, count)]
        if chunk:
            regs[vs2_reg + k] = int.from_bytes(
                b"".join(v.to_bytes(nbytes, "little") for v in chunk), "little"
            )
    regs[vs1_reg] = seed
    if vm == 0:
        regs[0] = sum(1 << i for i in active)
    pre = ArchState(cfg.vlen, cfg.elen, tuple(regs), encode_vtype(sew, cfg.lmul), vl, 0, VS_DIRTY)
    return pre, Insn(vd=vd_reg, vs2=vs2_reg, vs1=vs1_reg, vm=vm)


def confirmed(unit, pre: ArchState, insn: Insn) -> bool:
    """The unit, in the project's instruction, differs from the executable spec on the case
    (for every tail policy the two runs are compared; vta is 0, so they coincide)."""
    try:
        for tail in TAIL_POLICIES:
            got = execute(pre, insn, tail=tail, reduce=unit)
            want = execute(pre, insn, "sequential", tail)
            if got.outcome != want.outcome or got.state != want.state:
                return True
    except Exception:
        return False
    return False


def spec_result(ops, seed, elements, active):
    result = seed
    for i in active:
        result = ops.smax(result, elements[i])
    return result


def differs(unit, ops, seed, elements, active_set, count) -> bool:
    flags = [False] * count
    for i in active_set:
        flags[i] = True
    try:
        got = unit(ops, seed, list(elements), flags)
    except Exception:
        return False
    return got != spec_result(ops, seed, elements, active_set)


def search_case(unit, cfg: Config, hints, deadline: float):
    """Look for a concrete case where the unit differs from the spec: few active elements at
    the indices the failed local check involves, values at the edges of the signed and
    unsigned orders; the smallest vl first. A confirmed case, or None."""
    sew, count = cfg.sew, cfg.vlmax
    ops = ConcreteElements(sew)
    smin, top, ones = 1 << (sew - 1), (1 << (sew - 1)) - 1, (1 << sew) - 1
    edges = [0, 1, top, smin, ones, 2, smin + 1, top - 1]
    sharp = [
        (1, smin),
        (smin, 1),
        (0, top),
        (top, 0),
        (ones, 1),
        (1, ones),
        (0, 1),
        (1, 0),
        (smin, top),
        (top, smin),
        (smin + 1, smin),
    ]
    hints = sorted({h for h in hints if 0 <= h < count} | {0})[:8]
    sets = [set()] + [{h} for h in hints] + [{a, b} for a, b in itertools.combinations(hints, 2)]
    sets.sort(key=lambda s: (max(s, default=-1), len(s)))
    rng = random.Random(1)

    def patterns(size):
        if size == 0:
            return [(s, ()) for s in edges]
        if size == 1:
            return [(s, (e,)) for s, e in sharp] + [(s, (e,)) for s in edges for e in edges]
        first = [
            (s, (e1, e2))
            for s, e1, e2 in [
                (0, 1, smin),
                (0, smin, 1),
                (1, top, smin),
                (smin, 0, top),
                (smin, top, 0),
                (1, ones, 0),
                (1, 0, ones),
            ]
        ]
        return first + [(rng.choice(edges), (rng.choice(edges), rng.choice(edges))) for _ in range(24)]

    for level in (0, 1):
        for active in sets:
            order = sorted(active)
            todo = patterns(len(order))
            todo = todo[: len(sharp) if len(order) == 1 else 8] if level == 0 else todo
            for seed, values in todo:
                for inactive in (smin, top, 0):
                    if time.perf_counter() > deadline:
                        return None
                    elements = [inactive] * count
                    for i, v in zip(order, values):
                        elements[i] = v
                    if differs(unit, ops, seed, elements, active, count):
                        pre, insn = make_case(cfg, seed, elements, active)
                        if confirmed(unit, pre, insn):
                            return pre, insn
    return None
