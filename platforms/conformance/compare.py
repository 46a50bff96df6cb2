"""Compare what an emulator did with what the specification says, as far as it says.

The decision is the judge's (spec/profiles.py, `allowed(...).judge(...)`, the same as
`vredmax judge`) under the architecture's profile `any` with the harness's tail policy:

Verdicts:
- agree: the judge allows the outcome (retired, or a trap for an illegal instruction), vl,
  vtype, vstart, the 32 registers and mstatus.VS where the harness sees it (machine mode;
  in user mode it is not observable and not judged).
- reserved-trapped: the spec says reserved (no behaviour promised); the emulator trapped and,
  as any trap must, changed nothing.
- reserved-executed: the spec says reserved; the emulator executed it. Nothing to compare;
  for the v0 overlaps we note whether it did the plain reading (v0 both mask and data).
- mismatch: anything else, including a setup that did not reach the case's pre-state.
"""

from __future__ import annotations

from dataclasses import dataclass

from vredmax.impl.execute import Result, execute
from vredmax.spec.profiles import PROFILES, Observed, allowed
from vredmax.spec.bv import Concrete
from vredmax.spec.config import decode_vtype, group_registers
from vredmax.spec.encoding import Insn
from vredmax.spec.legality import ILLEGAL, RESERVED, RETIRED, V0_VS1_RULE, V0_VS2_RULE, trap_conditions
from vredmax.spec.state import NUM_VREGS, ArchState
from vredmax.platforms.conformance.cases import Case
from vredmax.platforms.conformance.protocol import Observation

AGREE, MISMATCH = "agree", "mismatch"
RESERVED_TRAPPED, RESERVED_EXECUTED = "reserved-trapped", "reserved-executed"


@dataclass(frozen=True)
class Verdict:
    kind: str
    spec: Result
    observed: Result  # the emulator's outcome and post-state, in the spec's terms
    rule: str = ""  # the spec rule that decided a trap or reserved outcome
    differences: tuple[str, ...] = ()
    note: str = ""
    plain: bool | None = None  # reserved-executed v0 overlap: did it do the plain reading?
    rules: tuple[str, ...] = ()  # a mismatch: the property ids the judge says are broken


def observed_result(case: Case, obs: Observation, vs: int) -> Result:
    """The emulator's outcome in the spec's terms; `vs` stands for mstatus.VS where not seen."""
    state = case.pre.with_(
        regs=obs.regs, vl=obs.vl, vtype=obs.vtype, vstart=obs.vstart, vs=vs if obs.vs is None else obs.vs
    )
    return Result(ILLEGAL if obs.trapped else RETIRED, "trapped" if obs.trapped else "", state)


def fired_rule(pre: ArchState, insn: Insn) -> str:
    """The id of the highest-priority trap rule that fires, or "" (the spec's own rules)."""
    vt = decode_vtype(pre.vtype, pre.elen)
    for rule, fired in trap_conditions(Concrete, pre, insn, vt.vill, vt.lmul):
        if fired:
            return rule.id
    return ""


def state_differences(expected: ArchState, got: ArchState, vs: bool = False) -> list[str]:
    """Names of the fields and registers that differ (mstatus.VS too when `vs`)."""
    fields = [
        name
        for name in ("vl", "vtype", "vstart", *(("vs",) if vs else ()))
        if getattr(expected, name) != getattr(got, name)
    ]
    return fields + [f"v{i}" for i in range(NUM_VREGS) if expected.regs[i] != got.regs[i]]


def judged(case: Case, obs: Observation, tail: str, reserved: str = "any"):
    """The judge's judgement of the emulator's outcome (mstatus.VS where it was seen)."""
    seen = Observed(
        ILLEGAL if obs.trapped else RETIRED, obs.vl, obs.vstart, obs.vtype, obs.vs, dict(enumerate(obs.regs))
    )
    profile = PROFILES["any"].with_(name=f"any+tail={tail}", tail=tail, reserved=reserved)
    return allowed(case.pre, case.insn, profile).judge(seen)


def model_allowed(case: Case, spec: Result, tail: str) -> bool:
    """The model's result (shown next to the emulator's) is itself one the judge allows."""
    profile = PROFILES["any"].with_(name=f"any+tail={tail}", tail=tail)
    return allowed(case.pre, case.insn, profile).judge(Observed.of(spec.outcome, spec.state)).allowed


def compare(case: Case, spec: Result, obs: Observation, tail: str) -> Verdict:
    observed = observed_result(case, obs, spec.state.vs)
    pre = case.pre
    wanted = (pre.vl, pre.vtype, pre.vstart, pre.vs)
    setup = [
        f"{name} before the word (wanted {want:#x}, got {got:#x})"
        for name, want, got in zip(("vl", "vtype", "vstart", "vs"), wanted, obs.before)
        if got is not None and want != got
    ]
    if setup:
        return Verdict(
            MISMATCH,
            spec,
            observed,
            differences=tuple(setup),
            note="the harness did not reach the case's pre-state",
        )
    rule = fired_rule(pre, case.insn)
    if spec.outcome == RESERVED:
        if observed.outcome == RETIRED:
            plain = plain_reading(case, tail)
            if plain is None:
                return Verdict(RESERVED_EXECUTED, spec, observed, rule)
            differences = state_differences(plain.state, observed.state)
            reading = "the plain reading (v0 both the mask and the data)"
            note = (
                f"differs from {reading} in {', '.join(differences)}"
                if differences
                else f"executed as {reading}"
            )
            return Verdict(RESERVED_EXECUTED, spec, observed, rule, note=note, plain=not differences)
        # Stricter than the architecture: a trap is judged as one (it must change nothing).
        judgement = judged(case, obs, tail, reserved="illegal")
        if not judgement.allowed:
            return Verdict(
                MISMATCH,
                spec,
                observed,
                rule,
                tuple(state_differences(pre, observed.state, obs.vs is not None)),
                "a trap must change nothing",
                rules=judgement.rules,
            )
        return Verdict(RESERVED_TRAPPED, spec, observed, rule)
    judgement = judged(case, obs, tail)
    seen_vs = obs.vs is not None
    if judgement.allowed and model_allowed(case, spec, tail):
        return Verdict(AGREE, spec, observed, rule)
    if judgement.allowed:  # the emulator is right, the model it is shown next to is not
        return Verdict(
            MISMATCH,
            spec,
            observed,
            rule,
            tuple(state_differences(spec.state, observed.state, seen_vs)),
            "the model's own outcome is not one the specification allows",
        )
    differences = [] if spec.outcome == observed.outcome else ["outcome"]
    differences += state_differences(spec.state, observed.state, seen_vs)
    return Verdict(
        MISMATCH, spec, observed, rule, tuple(differences) or judgement.differences, rules=judgement.rules
    )


def plain_reading(case: Case, tail: str) -> Result | None:
    """For a reserved v0 overlap with vm=0: the result of reading v0 as both the mask and
    the data, computed by the spec with the data operand moved to a copy of v0 in free
    registers. None for any other case."""
    pre, insn = case.pre, case.insn
    if fired_rule(pre, insn) not in (V0_VS2_RULE.id, V0_VS1_RULE.id):
        return None
    group = group_registers(decode_vtype(pre.vtype, pre.elen).lmul)
    used = {insn.vd, insn.vs1, *range(insn.vs2, insn.vs2 + group), *range(group)}
    regs, fields, copies = list(pre.regs), {"vd": insn.vd, "vs2": insn.vs2, "vs1": insn.vs1, "vm": 0}, set()
    if insn.vs2 == 0:
        start = next(k for k in range(0, NUM_VREGS, group) if used.isdisjoint(range(k, k + group)))
        regs[start : start + group] = pre.regs[:group]
        copies |= set(range(start, start + group))
        fields["vs2"] = start
    if insn.vs1 == 0:
        spare = next(k for k in range(NUM_VREGS) if k not in used | copies)
        regs[spare] = pre.regs[0]
        copies.add(spare)
        fields["vs1"] = spare
    result = execute(pre.with_(regs=tuple(regs)), Insn(**fields), tail=tail)
    restored = tuple(pre.regs[k] if k in copies else v for k, v in enumerate(result.state.regs))
    return Result(result.outcome, "v0 read as the mask and as data", result.state.with_(regs=restored))
