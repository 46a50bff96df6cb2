"""The catalogue of wrong assumptions about vredmax.vs, each with its formal encoding.

A claim is a statement people make about the architecture. Most are universal ("for every
state, ..."): the claim names some values of the outcome (`vd[k]`, `traps`) and says what
they are; the solver refutes it by finding a legal pre-state and a post-state the spec
allows where they are something else. One is existential ("there is a state where vma
matters"): the solver refutes it by proving that no such state exists.

Claims are written once against a `View`, over the machine ops of spec/bv.py. With the
symbolic backend the spec side is the declarative relation of spec/relation.py (a fresh
post-state it constrains); with the concrete backend it is the executable model
(impl/execute.py), which replays a counterexample. So every counterexample is found against
the declarative spec and confirmed by running the executable one.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import z3

from vredmax.impl.execute import operands
from vredmax.impl.sequential import reduce_sequential
from vredmax.spec import relation
from vredmax.spec.config import VTYPE_VMA_BIT, XLEN, Config
from vredmax.proofs.engine.outcome import View

# The configurations the claims are checked at: small, so that every query is fast.
M1 = Config(128, 64, 8, "m1")  # VLMAX = 16
M2 = Config(128, 64, 32, "m2")  # VLMAX = 8, four elements per register: a two-register group


@dataclass(frozen=True)
class Claim:
    """One wrong assumption.

    `text`: the claim in the claim language (proofs/claims/claim_language.py), decided by the same
    engine as `vredmax ask` (proofs/claims/ask.py); the claims it cannot say have a model of their own:
    `when(view)`: the states the claim speaks of (a list of conditions).
    `claimed(view)`: for a universal claim, the values it says the outcome has, by name.
    `witness(view)`: for an existential claim, the condition it says some state meets.
    """

    id: str
    sentence: str
    source: str
    statement: str
    configs: tuple[Config, ...]
    when: Callable[[View], list] | None = None
    claimed: Callable[[View], dict] | None = None
    witness: Callable[[View], object] | None = None
    tags: tuple[str, ...] = field(default=())
    text: str = ""  # the claim in the claim language of `vredmax ask`, when it can be said there

    @property
    def universal(self) -> bool:
        return self.witness is None

    def mismatches(self, view: View) -> dict:
        """name -> condition that the claimed value differs from the spec's."""
        return {
            name: view.m.not_(view.m.eq(value, view.observed(name)))
            for name, value in self.claimed(view).items()
        }

    def holds(self, view: View):
        if not self.universal:
            return self.witness(view)
        return view.m.not_(view.m.any_(*self.mismatches(view).values()))


# The claims -----------------------------------------------------------------------------


def _retires_with_elements(v: View) -> list:
    return [v.retires, v.vl_positive]


def _vd_written_first(v: View) -> dict:
    """Keep the accumulator in vd[0]: write the seed there, then read vs2 and fold
    (the mask was read before, so only the vs2 overlap matters)."""
    m, sew = v.m, v.cfg.sew
    old = m.read(v.pre.regs, v.insn.vd)
    seeded = m.concat(m.extract(old, v.cfg.vlen - 1, sew), v.seed, sew)
    after_write = v.pre.with_(regs=m.write(v.pre.regs, v.insn.vd, seeded))
    _, elements, _ = operands(m, after_write, v.insn, v.cfg)
    return {"vd[0]": reduce_sequential(v.e, v.seed, elements, v.active)}


def _vma_flip_allowed(v: View):
    """The same outcome stays allowed when only vma differs (before and after)."""
    flip = z3.BitVecVal(1 << VTYPE_VMA_BIT, XLEN)
    pre, post = v.pre.with_(vtype=v.pre.vtype ^ flip), v.post.with_(vtype=v.post.vtype ^ flip)
    return z3.Not(relation.relation(v.cfg, pre, v.insn, v.outcome, post))


# Where the claims come from: the seed document the project started from (its pitfalls,
# FAQ and worked examples), and the reference notes on the V 1.0 text, Sail, Spike and QEMU,
# including bugs seen in the wild.
SEED = "seed document"
REF = "reference notes"
ACTIVE_ANY = "any(active[i] for i in range(VLMAX))"

CLAIMS: tuple[Claim, ...] = (
    Claim(
        "vredmax.wrong.masked_count_as_zero",
        "Masked-off elements count as zero.",
        f"{SEED}, pitfalls: masked-off vs2 elements do not take part; the seed stays the start value",
        "∀ legal, vl > 0, vm = 0:  vd'[0] = max(vs1[0], max_{i<vl} (mask[i] ? vs2[i] : 0))",
        (M1,),
        text="implies(legal and pre.vl > 0 and not insn.vm, "
        "post.vd[0] == smax(seed, smax((vs2[i] if mask[i] else 0) for i in range(pre.vl))))",
    ),
    Claim(
        "vredmax.wrong.masked_count_as_themselves",
        "The mask does not matter for a reduction: every element below vl takes part.",
        f"{SEED}, pitfalls: masked-off vs2 elements do not take part",
        "∀ legal, vl > 0, vm = 0:  vd'[0] = max(vs1[0], max_{i<vl} vs2[i])",
        (M1,),
        text="implies(legal and pre.vl > 0 and not insn.vm, "
        "post.vd[0] == smax(seed, smax(vs2[i] for i in range(pre.vl))))",
    ),
    Claim(
        "vredmax.wrong.vl0_writes_seed",
        "With vl = 0 the seed vs1[0] is still copied to vd[0].",
        f"{SEED}, pitfalls: with vl = 0 a distinct vd does not receive the seed; {REF}: "
        "QEMU 9.0 to 9.2 did write it (a regression fixed upstream in early 2025)",
        "∀ legal, vl = 0:  vd'[0] = vs1[0]",
        (M1,),
        text="implies(legal and pre.vl == 0, post.vd[0] == seed)",
    ),
    Claim(
        "vredmax.wrong.all_masked_same_as_vl0",
        "All elements masked off is the same as vl = 0: vd is left alone.",
        f"{SEED}, FAQ: all-masked-off writes the seed to vd[0], vl = 0 writes nothing",
        "∀ legal, vl > 0, no active element:  vd'[0] = vd[0] (what vl = 0 leaves)",
        (M1,),
        text=f"implies(legal and pre.vl > 0 and not {ACTIVE_ANY}, post.vd[0] == pre.vd[0])",
    ),
    Claim(
        "vredmax.wrong.result_broadcast",
        "The result is written to every element of vd.",
        f"{SEED}, pitfalls: a reduction is not element-wise; only vd[0] holds the result",
        "∀ legal, vl > 0, k ≥ 1:  vd'[k] = vd'[0]",
        (M1,),
        text="implies(legal and pre.vl > 0, all(post.vd[k] == post.vd[0] for k in range(1, VLEN // SEW)))",
    ),
    Claim(
        "vredmax.wrong.vs1_elementwise",
        "vs1 is an element-wise source: vs1[i] takes part together with vs2[i].",
        f"{SEED}, pitfalls: only vs1[0] is read (the seed), not the whole register",
        "∀ legal, vl > 0:  vd'[0] = max(vs1[0], max_{i active} max(vs2[i], vs1[i]))",
        (M1,),
        text="implies(legal and pre.vl > 0, post.vd[0] == smax(seed, smax(smax(vs2[i], vs1[i]) "
        "for i in range(min(VLMAX, VLEN // SEW)) if active[i])))",
    ),
    Claim(
        "vredmax.wrong.seed_dropped_when_active",
        "When some element is active the seed can be left out.",
        f"{SEED}: always include vs1[0], whatever the mask",
        "∀ legal, some element active:  vd'[0] = max_{i active} vs2[i]",
        (M1,),
        text=f"implies(legal and {ACTIVE_ANY}, post.vd[0] == smax(vs2[i] for i in range(VLMAX) if active[i]))",
    ),
    Claim(
        "vredmax.wrong.unsigned_same",
        "Unsigned comparison gives the same result (vredmaxu and vredmax agree).",
        f"{SEED}, worked example 1: the signed max of -2 and 1, -128, 2, 3 is 3; {REF}: unsigned "
        "max gives 0xFE, a classic mistake",
        "∀ legal, vl > 0:  vd'[0] = maxu(vs1[0], maxu_{i active} vs2[i])",
        (M1,),
        text="implies(legal and pre.vl > 0, "
        "post.vd[0] == umax(seed, umax(vs2[i] for i in range(VLMAX) if active[i])))",
    ),
    Claim(
        "vredmax.wrong.restart_from_vstart",
        "A reduction can restart from a nonzero vstart (after a trap), resuming at element vstart.",
        f"{SEED}, pitfalls: integer reductions require vstart = 0; a nonzero vstart is illegal",
        "∀ VS on, not vill, not reserved, 0 < vstart < vl:  the instruction does not trap",
        (M1,),
        text="implies(pre.vs != OFF and not pre.vill and not reserved and pre.vstart != 0 "
        "and pre.vstart < pre.vl, not trapped)",
    ),
    Claim(
        "vredmax.wrong.vl0_ignores_vstart",
        "With vl = 0 there is nothing to do, so a nonzero vstart does not trap.",
        f"{REF}: vstart != 0 is an illegal instruction whatever vl is, vl = 0 too",
        "∀ VS on, not vill, not reserved, vl = 0, vstart ≠ 0:  the instruction does not trap",
        (M1,),
        text="implies(pre.vs != OFF and not pre.vill and not reserved and pre.vl == 0 "
        "and pre.vstart != 0, not trapped)",
    ),
    Claim(
        "vredmax.wrong.agnostic_tail_all_ones",
        "With vta = 1 (tail agnostic) the tail of vd always becomes all ones.",
        f"{REF}: an agnostic tail element may keep its value or become all ones; Sail and "
        "Spike keep it, QEMU writes ones only with rvv_ta_all_1s",
        "∀ legal, vl > 0, vta = 1, k ≥ 1:  vd'[k] = all ones",
        (M1,),
        text="implies(legal and pre.vl > 0 and pre.vta, all(post.vd[k] == -1 for k in range(1, VLEN // SEW)))",
    ),
    Claim(
        "vredmax.wrong.vma_changes_result",
        "The mask-agnostic bit vma changes what vredmax.vs may write.",
        f"{REF}: vma has no effect, vd[0] is never a masked-off element; {SEED}, pitfalls: "
        "a reduction is not an element-wise instruction",
        "∃ pre, post allowed by the spec:  (pre, post) with vma flipped in both is not allowed",
        (M1,),
        lambda v: [],
        witness=_vma_flip_allowed,
    ),
    Claim(
        "vredmax.wrong.lmul_first_register_only",
        "With LMUL > 1 only the first register of the vs2 group is read.",
        f"{REF}: vs2 is a register group of EMUL = LMUL; every element below vl takes part",
        "∀ legal, vl > 0:  vd'[0] = max(vs1[0], max_{i active, i < VLEN/SEW} vs2[i])",
        (M2,),
        text="implies(legal and pre.vl > 0, post.vd[0] == smax(seed, smax(vs2[i] "
        "for i in range(min(VLMAX, VLEN // SEW)) if active[i])))",
    ),
    Claim(
        "vredmax.wrong.tree_pads_with_zero",
        "A reduction tree may pad its inactive leaves with zero.",
        f"{REF}, hardware reduction trees seen in the wild: trees that pad must pad with the "
        "signed minimum, not zero",
        "∀ legal, vl > 0:  vd'[0] = tree over (active[i] ? vs2[i] : 0), joined with vs1[0]",
        (M1,),
        text="implies(legal and pre.vl > 0, "
        "post.vd[0] == smax(seed, smax((vs2[i] if active[i] else 0) for i in range(VLMAX))))",
    ),
    Claim(
        "vredmax.wrong.vd_written_before_vs2_read",
        "vd may be written before vs2 is read, even when they overlap.",
        f"{REF}: sources are read before vd is written, so vd may overlap vs2, vs1 and v0; "
        f"{SEED}: vd may overlap sources",
        "∀ legal, vl > 0:  vd'[0] = max(vs1[0], active vs2[i] read after vd[0] := vs1[0])",
        (M1,),
        _retires_with_elements,
        _vd_written_first,
    ),
    Claim(
        "vredmax.wrong.agnostic_tail_written_at_vl0",
        "With vl = 0 and vta = 1 the tail of vd may be set to all ones.",
        f"{REF}: with vl = 0 no element is written, not even agnostic tail elements; QEMU "
        "could still write agnostic ones at vl = 0 after its 2025 fix",
        "∀ legal, vl = 0, vta = 1, k ≥ 1:  vd'[k] = all ones is allowed (the spec keeps vd)",
        (M1,),
        text="implies(legal and pre.vl == 0 and pre.vta, all(post.vd[k] == -1 for k in range(1, VLEN // SEW)))",
    ),
    Claim(
        "vredmax.wrong.vl0_must_dirty_vs",
        "With vl = 0 mstatus.VS must become Dirty (from Initial or Clean), as Spike and QEMU make it.",
        f"{REF}: RVV 1.0 lets an implementation set VS Dirty at any time, so Spike and QEMU may; "
        "it does not require it where no vector state changes, and Sail keeps VS at vl = 0",
        "∀ legal, vl = 0, VS ∈ {Initial, Clean}:  VS' = Dirty",
        (M1,),
        text="implies(legal and pre.vl == 0 and (pre.vs == INITIAL or pre.vs == CLEAN), post.vs == DIRTY)",
    ),
)

CLAIMS_BY_ID = {claim.id: claim for claim in CLAIMS}


def select(pattern: str | None) -> list[Claim]:
    """Claims whose id contains the pattern (all when None)."""
    return [c for c in CLAIMS if pattern is None or pattern in c.id]
