"""A failing concrete case made smaller by replaying it (each candidate kept only if it still
fails, within a time budget): the smallest vl, the deciding element moved to a low lane, as
few active lanes as a mask leaves, the bits nothing reads cleared."""

from __future__ import annotations

import time

from vredmax.impl.execute import execute, operands
from vredmax.proofs.python.running import replay
from vredmax.spec.bv import Concrete
from vredmax.spec.encoding import Insn
from vredmax.spec.state import NUM_VREGS, ArchState

MINIMISE_BUDGET_S = 30.0


def minimise_concretely(function, cfg, pre, insn, tail, budget_s: float = MINIMISE_BUDGET_S):
    """A smaller failing case from a failing one, by replaying: the smallest vl found by
    bisection (checked), then as few active lanes as a mask can leave (delta debugging over
    the mask bits). Each candidate is kept only if it still fails; within a time budget."""
    deadline = time.perf_counter() + budget_s
    fails = lambda p, i: bool(replay(function, cfg, p, i, tail).differing)
    if not fails(pre, insn):
        return pre, insn
    pre = _smallest_vl(pre, insn, fails, deadline)
    moved = _decisive_element_lower(cfg, pre, insn, tail, fails, deadline)
    if moved is not None:
        pre = _smallest_vl(moved, insn, fails, deadline)
    # active lanes: mask off as many of the first vl lanes as still fails
    masked = _masked_version(cfg, pre, insn)
    if masked is not None and pre.vl > 1:
        candidate_pre, candidate_insn = masked
        if fails(candidate_pre, candidate_insn):
            pre, insn = candidate_pre, candidate_insn
    if insn.vm == 0 and insn.vd != 0 and pre.vl > 1:
        on = [i for i in range(pre.vl) if pre.regs[0] >> i & 1]
        chunk = max(1, len(on) // 2)
        while chunk >= 1 and time.perf_counter() < deadline:
            i = 0
            while i < len(on) and time.perf_counter() < deadline:
                removed = on[i : i + chunk]
                mask = pre.regs[0]
                for lane in removed:
                    mask &= ~(1 << lane)
                candidate = pre.with_(regs=(mask,) + tuple(pre.regs[1:]))
                if fails(candidate, insn):
                    pre, on = candidate, on[:i] + on[i + chunk :]
                else:
                    i += chunk
            if chunk == 1:
                break
            chunk //= 2
    return _fewer_bits(cfg, pre, insn, fails, deadline), insn


def _smallest_vl(pre, insn, fails, deadline):
    """Bisection for the smallest failing vl (not necessarily monotone: each step checked)."""
    if pre.vl > 1 and not _is_vill(pre):
        low, high = 1, pre.vl
        while low < high and time.perf_counter() < deadline:
            middle = (low + high) // 2
            if fails(pre.with_(vl=middle), insn):
                high = middle
            else:
                low = middle + 1
        if high < pre.vl and fails(pre.with_(vl=high), insn):
            pre = pre.with_(vl=high)
    return pre


def _decisive_element_lower(cfg, pre, insn, tail, fails, deadline):
    """The case with the element that decides the spec's result (the last active one equal to
    it) swapped into the lowest lane where the case still fails (bisection, each step
    checked), so that vl can shrink: a bug past element 4096 shows at lane 4096, not at the
    last lane where a search put the largest value. None when that is not lower."""
    if _is_vill(pre) or pre.vl < 2 or insn.vm == 0:
        return None
    want = execute(pre, insn, "sequential", tail).state.regs[insn.vd] & ((1 << cfg.sew) - 1)
    _, elements, active = operands(Concrete, pre, insn, cfg)
    lanes = [i for i, (x, a) in enumerate(zip(elements, active)) if a and x == want]
    if not lanes or insn.vd in {(insn.vs2 + k) % NUM_VREGS for k in range(cfg.group_registers)}:
        return None
    j = lanes[-1]

    def swapped(k):
        values = list(elements)
        values[j], values[k] = values[k], values[j]
        regs = list(pre.regs)
        per, nbytes = cfg.elements_per_register, cfg.sew // 8
        for g in range(cfg.group_registers):
            register = (insn.vs2 + g) % NUM_VREGS
            chunk = values[g * per : (g + 1) * per]
            if chunk and register not in (insn.vs1,):
                data = int.from_bytes(b"".join(v.to_bytes(nbytes, "little") for v in chunk), "little")
                regs[register] = regs[register] >> (len(chunk) * cfg.sew) << (len(chunk) * cfg.sew) | data
        return pre.with_(regs=tuple(regs))

    low, high, found = 0, j, None
    while low < high and time.perf_counter() < deadline:
        middle = (low + high) // 2
        candidate = swapped(middle)
        if fails(candidate, insn):
            high, found = middle, candidate
        else:
            low = middle + 1
    return found


def _fewer_bits(cfg, pre, insn, fails, deadline):
    """The case with what does not matter cleared: every register the instruction does not
    read at once, then vd's old value, then the bits of the operands past what they hold
    (vs1 above its element 0, v0 above VLMAX, the vs2 group past vl); each kept if it still
    fails."""
    group = {(insn.vs2 + k) % NUM_VREGS for k in range(cfg.group_registers)}
    operands_ = group | {insn.vs1} | ({0} if insn.vm == 0 else set())
    used = (1 << (pre.vl * cfg.sew)) - 1 if not _is_vill(pre) else 0

    def regs_with(changes):
        return tuple(changes.get(r, value) for r, value in enumerate(pre.regs))

    steps = [
        {r: 0 for r in range(NUM_VREGS) if r not in operands_ and pre.regs[r]},
        {insn.vd: 0} if insn.vd not in operands_ else {},
        {insn.vs1: pre.regs[insn.vs1] & ((1 << cfg.sew) - 1)} if insn.vs1 not in group else {},
        {0: pre.regs[0] & ((1 << cfg.vlmax) - 1)} if 0 not in group and insn.vs1 != 0 else {},
    ]
    per = cfg.elements_per_register
    for k in range(cfg.group_registers):
        register = (insn.vs2 + k) % NUM_VREGS
        keep = (used >> (k * per * cfg.sew)) & ((1 << cfg.vlen) - 1)
        if register != insn.vs1 and register != 0:
            steps.append({register: pre.regs[register] & keep})
    for changes in steps:
        if time.perf_counter() > deadline:
            break
        changes = {r: v for r, v in changes.items() if pre.regs[r] != v}
        if changes:
            candidate = pre.with_(regs=regs_with(changes))
            if fails(candidate, insn):
                pre = candidate
    return pre


def _is_vill(pre: ArchState) -> bool:
    return bool(pre.vtype >> 63 & 1)


def _masked_version(cfg, pre, insn):
    """The same case masked by v0 with every one of the first vl lanes on, when masking is
    legal here (v0 neither vs1 nor in the vs2 group, nor vd) and the case is unmasked."""
    group = {(insn.vs2 + k) % 32 for k in range(cfg.group_registers)}
    if insn.vm == 0 or insn.vs1 == 0 or 0 in group or insn.vd == 0:
        return None
    mask = (1 << pre.vl) - 1
    regs = (mask | pre.regs[0] & ~((1 << cfg.vlmax) - 1),) + tuple(pre.regs[1:])
    return pre.with_(regs=regs), Insn(insn.vd, insn.vs2, insn.vs1, 0)
