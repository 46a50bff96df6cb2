"""What each case may do, from spec/profiles.py, in the two forms testgen writes: the JSON of
cases.jsonl and the check record of the assembly runner.

A profile's `allowed(pre, insn)` gives one Option per allowed outcome. The runner checks
one retired and/or one trap outcome per case: vl, vtype, vstart, mstatus.VS (a set of
values) and the registers, where vd's agnostic tail may be free per element (each its old
value or all ones). An outcome of kind "anything" (a reserved encoding under reserved=any)
leaves nothing to check: the case is skipped.
"""

from __future__ import annotations

from dataclasses import dataclass

from vredmax.impl.case import register_hex
from vredmax.spec.legality import ILLEGAL, RETIRED
from vredmax.spec.profiles import ANYTHING, Allowed, Option
from vredmax.spec.state import NUM_VREGS, VS_NAMES, ArchState


class UncheckableOutcome(ValueError):
    """The allowed outcomes have a shape the runner cannot check (never for the shipped profiles)."""


@dataclass(frozen=True)
class Check:
    """What the runner checks for one case (see platforms/testgen/env/runner.S)."""

    skip: bool  # anything allowed: nothing to check
    may_retire: bool
    may_trap: bool
    vd: int
    sew_bytes: int
    expected_vd: int | None  # vd after retiring, when it differs from before
    tail_free: bool  # vd's tail elements: each old or all ones
    vs_retire: int  # bit v set: mstatus.VS = v allowed after retiring
    vs_trap: int  # the same after a trap
    reason: str


def _vs_mask(values) -> int:
    return sum(1 << v for v in values)


def check_of(pre: ArchState, insn, allowed: Allowed) -> Check:
    """The runner's check for one case; raises UncheckableOutcome for shapes it cannot check."""
    options = allowed.outcomes
    if any(option.kind == ANYTHING for option in options):
        return Check(
            True, False, False, insn.vd, 1, None, False, 0, 0, "; ".join(option.reason for option in options)
        )
    retire = [option for option in options if option.kind == RETIRED]
    trap = [option for option in options if option.kind == ILLEGAL]
    if len(retire) > 1 or len(trap) > 1:
        raise UncheckableOutcome("more than one allowed outcome of one kind")
    expected_vd, tail_free, sew_bytes = None, False, 1
    for option in retire:
        post = option.post
        if (post.vl, post.vtype, post.vstart) != (pre.vl, pre.vtype, 0):
            raise UncheckableOutcome("a retired outcome that changes vl or vtype")
        changed = [r for r in range(NUM_VREGS) if post.regs[r] != pre.regs[r]]
        if any(r != insn.vd for r in changed):
            raise UncheckableOutcome("a retired outcome that writes a register other than vd")
        if option.tail is not None:
            vd, sew, tail_bits = option.tail
            if vd != insn.vd or set(option.free) - {vd} or option.free.get(vd, 0) & ~tail_bits:
                raise UncheckableOutcome("free bits outside vd's tail")
            tail_free, sew_bytes = True, sew // 8
        elif option.free:
            raise UncheckableOutcome("free bits without a tail")
        if changed:
            expected_vd = post.regs[insn.vd]
    for option in trap:
        if option.post != pre:
            raise UncheckableOutcome("a trap that changes the state")
    reason = "; ".join(option.reason for option in options if option.reason)
    return Check(
        False,
        bool(retire),
        bool(trap),
        insn.vd,
        sew_bytes,
        expected_vd,
        tail_free,
        _vs_mask(retire[0].vs) if retire else 0,
        _vs_mask(trap[0].vs) if trap else 0,
        reason,
    )


def option_json(pre: ArchState, option: Option) -> dict:
    """One allowed outcome, in the field names of `exec --profile` (exec-allowed), except that
    `vregs` lists only the registers that differ from the case's (the others keep their values)."""
    if option.kind == ANYTHING:
        return {
            "outcome": ANYTHING,
            "reason": option.reason,
            "rule": option.rule,
            "dont_care": "everything: a reserved encoding",
        }
    post = option.post
    return {
        "outcome": option.kind,
        "reason": option.reason,
        "rule": option.rule,
        "vl": post.vl,
        "vstart": post.vstart,
        "vtype": post.vtype,
        "vs_allowed": [VS_NAMES[v] for v in sorted(option.vs)],
        "vregs": {
            f"v{r}": register_hex(post.regs[r], pre.vlen)
            for r in range(NUM_VREGS)
            if post.regs[r] != pre.regs[r]
        },
        "dont_care": {
            f"v{r}": register_hex(bits, pre.vlen) for r, bits in sorted(option.free.items()) if bits
        },
        "tail_elements": "each old or all ones" if option.tail else "as shown",
    }
