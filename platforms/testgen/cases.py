"""The cases of a test suite: directed cases from the spec's case structure, seeded random ones.

A case is a pre-state, an instruction and how a program reaches the pre-state (vsetvl with
`requested_vtype` and `avl`, then `csrw vstart`). Register contents are structured (a base
value, a value past vl, a few special elements), so that the programs stay compact at
VLEN=65536: every register not read by the case holds a distinct 64-bit background value in
its lowest bits.

Coverage is computed from the data, not from the builder's intent: `coverpoints_of(case)`
inspects the state; `required_coverpoints(vlen, elen)` says which must be hit. Names follow
the riscv-arch-test Vx testplan where one fits (cr_vl_lmul, cp_vl_0, cp_masking_edges,
cr_vtype_agnostic, cp_vs1_edges, cp_vs2_edges, cmp_vd_vs1, cmp_vd_vs2, cp_custom_red).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import compress

from vredmax.platforms.conformance.cases import VILL_VTYPE, configure, random_cases
from vredmax.spec.config import (
    LMUL_CODE,
    LMUL_NAMES,
    SEWS,
    VTYPE_VILL_BIT,
    decode_vtype,
    encode_vtype,
    group_registers,
    legal_configs,
    sew_lmul_supported,
    vlmax,
)
from vredmax.spec.encoding import Insn
from vredmax.spec.legality import (
    MISALIGNED_RULE,
    V0_VS1_RULE,
    V0_VS2_RULE,
    VILL_RULE,
    VS_OFF_RULE,
    VSTART_RULE,
)
from vredmax.spec.state import NUM_VREGS, VS_NAMES, ArchState
from vredmax.platforms.conformance.compare import fired_rule

VS_OFF, VS_INITIAL, VS_CLEAN, VS_DIRTY = range(4)
WORD = (1 << 64) - 1


@dataclass(frozen=True)
class TestCase:
    name: str
    pre: ArchState
    insn: Insn
    requested_vtype: int
    avl: int
    # The vtype is vill only on platforms that lack an optional SEW/LMUL pair (SEW > LMUL*ELEN
    # at fractional LMUL): a platform whose vsetvl accepts it skips the case.
    setup_optional: bool = False
    coverpoints: tuple[str, ...] = field(default=(), compare=False)


def background(number: int, vlen: int) -> int:
    """A distinct nonzero value for register `number` (lowest 64 bits only: compact)."""
    return (0x9E3779B97F4A7C15 * (number + 1)) & WORD & ((1 << vlen) - 1) | 1


def signed_limits(sew: int) -> tuple[int, int]:
    return -(1 << (sew - 1)), (1 << (sew - 1)) - 1


def element_registers(
    vlen: int, sew: int, count: int, base: int, beyond: int, vl: int, specials: dict[int, int]
) -> list[int]:
    """`count` registers of SEW-bit elements: index < vl is `base`, the rest `beyond`, with
    `specials` overriding single indices (values are signed or unsigned, reduced to SEW)."""
    size, mask = sew // 8, (1 << sew) - 1
    total = vlen // sew * count
    vl = min(vl, total)
    data = bytearray(
        (base & mask).to_bytes(size, "little") * vl + (beyond & mask).to_bytes(size, "little") * (total - vl)
    )
    for index, value in specials.items():
        if not 0 <= index < total:
            raise ValueError(f"element {index} is outside {count} registers of SEW={sew}")
        data[index * size : (index + 1) * size] = (value & mask).to_bytes(size, "little")
    step = vlen // 8
    return [int.from_bytes(data[k * step : (k + 1) * step], "little") for k in range(count)]


def mask_register(vlen: int, kind: str, vl: int, position: int = 0) -> int:
    if kind == "all_off":
        return 0
    if kind == "all_on":
        return (1 << vlen) - 1
    if kind == "one":
        return 1 << position
    if kind == "alternating":
        return int.from_bytes(b"\x55" * (vlen // 8), "little")
    raise ValueError(kind)


class Builder:
    """Directed cases for one machine; `add` checks each state as the spec defines it."""

    def __init__(self, vlen: int, elen: int):
        self.vlen, self.elen = vlen, elen
        self.cases: list[TestCase] = []

    def add(
        self,
        name: str,
        regs: list[int],
        insn: Insn,
        requested_vtype: int,
        avl: int,
        vstart: int = 0,
        vs: int = VS_INITIAL,
        setup_optional: bool = False,
    ) -> None:
        vtype, vl = configure(self.vlen, self.elen, requested_vtype, avl)
        pre = ArchState(self.vlen, self.elen, tuple(regs), vtype, vl, vstart, vs)
        pre.check()
        self.cases.append(TestCase(name, pre, insn, requested_vtype, avl, setup_optional))

    def reduction(
        self,
        name: str,
        sew: int,
        lmul: str,
        vl: int,
        *,
        seed: int,
        base: int,
        beyond: int | None = None,
        specials: dict | None = None,
        vm: int = 1,
        mask: int | None = None,
        vd: int = 4,
        vs2: int = 8,
        vs1: int = 20,
        vta: bool = False,
        vma: bool = False,
        vstart: int = 0,
        vs: int = VS_INITIAL,
        requested_vtype: int | None = None,
        setup_optional: bool = False,
    ) -> None:
        """One case. Elements past vl (and past VLMAX in the registers) hold `beyond`,
        by default the largest value, so that reading them changes the result."""
        smin, smax = signed_limits(sew)
        beyond = smax if beyond is None else beyond
        group = group_registers(lmul)
        regs = [background(k, self.vlen) for k in range(NUM_VREGS)]
        regs[vd] = int.from_bytes(b"\x5a" * (self.vlen // 8), "little")  # old vd: tail changes show
        last = self.vlen // sew - 1  # vs1[1] and vs1[last] hold the largest value: only vs1[0] is read
        seeds = {i: smax for i in (1, last) if 0 < i <= last} | {0: seed}
        regs[vs1] = element_registers(self.vlen, sew, 1, 0, 0, 0, seeds)[0]
        # Small machines have fewer elements than some cases name: those specials drop out
        # (coverage is read off the data, so it stays honest).
        total = self.vlen // sew * group
        specials = {i: v for i, v in (specials or {}).items() if i < total}
        for k, value in enumerate(element_registers(self.vlen, sew, group, base, beyond, vl, specials)):
            if vs2 + k < NUM_VREGS:
                regs[vs2 + k] = value
        if vm == 0:
            regs[0] = mask_register(self.vlen, "all_on", vl) if mask is None else mask
        elif vd != 0 and vs2 != 0 and vs1 != 0:
            regs[0] = mask_register(self.vlen, "alternating", vl) & WORD  # must be ignored: vm=1
        if requested_vtype is None:
            requested_vtype = encode_vtype(sew, lmul, vta, vma)
        self.add(
            name, regs, Insn(vd=vd, vs2=vs2, vs1=vs1, vm=vm), requested_vtype, vl, vstart, vs, setup_optional
        )


def odd_vl(n: int) -> int | None:
    """An odd vl strictly between 1 and VLMAX-1, if there is one."""
    for vl in (n // 2 + 1, n // 2, n - 3):
        if vl % 2 == 1 and 1 < vl < n - 1:
            return vl
    return None


def config_cases(b: Builder, sew: int, lmul: str) -> None:
    """The value and length cases for one SEW x LMUL."""
    n = vlmax(b.vlen, sew, lmul)
    smin, smax = signed_limits(sew)
    tag = f"e{sew}{lmul}"
    mid = n // 2
    big, small = min(100, smax - 1), -3
    b.reduction(f"{tag}.vl_vlmax", sew, lmul, n, seed=-50, base=small, specials={mid: big, 0: -1})
    b.reduction(f"{tag}.vl_1", sew, lmul, 1, seed=-1, base=7, vta=True)
    odd = odd_vl(n)
    if odd:
        b.reduction(f"{tag}.vl_odd", sew, lmul, odd, seed=-9, base=small, specials={odd - 1: 11}, vma=True)
    if n - 1 > 1:
        b.reduction(
            f"{tag}.vl_vlmax_minus_1",
            sew,
            lmul,
            n - 1,
            seed=-9,
            base=small,
            specials={n - 2: 12},
            vta=True,
            vma=True,
        )
    b.reduction(f"{tag}.vl_0", sew, lmul, 0, seed=smax, base=smax)
    # vl=0 writes nothing, not even an agnostic tail (QEMU 9.x wrote the seed and ones here).
    b.reduction(
        f"{tag}.vl_0_tail_agnostic",
        sew,
        lmul,
        0,
        seed=smax,
        base=smax,
        vta=True,
        vma=True,
        vm=0,
        mask=mask_register(b.vlen, "all_on", n),
    )
    b.reduction(f"{tag}.max_first", sew, lmul, n, seed=-20, base=small, specials={0: 21})
    b.reduction(f"{tag}.max_last", sew, lmul, n, seed=-20, base=small, specials={n - 1: 22}, vta=True)
    b.reduction(f"{tag}.seed_above_all", sew, lmul, n, seed=smax, base=small, specials={mid: smax - 1})
    b.reduction(f"{tag}.seed_below_all", sew, lmul, n, seed=smin, base=smin + 1, specials={0: -2})
    b.reduction(f"{tag}.ties", sew, lmul, n, seed=9, base=9)
    b.reduction(
        f"{tag}.ties_in_elements", sew, lmul, n, seed=-9, base=small, specials={0: 13, n - 1: 13}, vma=True
    )
    b.reduction(f"{tag}.all_smin", sew, lmul, n, seed=smin, base=smin)
    b.reduction(f"{tag}.smax_present", sew, lmul, n, seed=smin, base=smin, specials={mid: smax})
    b.reduction(f"{tag}.minus1_vs_0", sew, lmul, n, seed=0, base=-1)  # unsigned max would give -1
    b.reduction(f"{tag}.zero_vs_minus1", sew, lmul, n, seed=-1, base=-1, specials={mid: 0, 0: 1})
    # Masked: masked-off lanes hold the largest value, which must not win.
    b.reduction(
        f"{tag}.all_masked", sew, lmul, n, seed=-7, base=smax, vm=0, mask=mask_register(b.vlen, "all_off", n)
    )
    b.reduction(
        f"{tag}.all_on_masked",
        sew,
        lmul,
        n,
        seed=-7,
        base=small,
        vm=0,
        specials={mid: 33},
        mask=mask_register(b.vlen, "all_on", n),
        vta=True,
    )
    positions = {"first": 0, "middle": mid, "last": n - 1}
    for where, p in positions.items():
        if where == "middle" and not 0 < p < n - 1:
            continue
        b.reduction(
            f"{tag}.one_active_{where}",
            sew,
            lmul,
            n,
            seed=-100,
            base=smax,
            specials={p: 5},
            vm=0,
            mask=mask_register(b.vlen, "one", n, p),
            vma=where == "middle",
        )
    b.reduction(
        f"{tag}.alternating_mask",
        sew,
        lmul,
        n,
        seed=-30,
        base=small,
        specials={k: (smax if k % 2 else 40 + k % 7) for k in range(min(n, 16))},
        vm=0,
        mask=mask_register(b.vlen, "alternating", n),
    )


def overlap_cases(b: Builder, sew: int, lmul: str) -> None:
    """vd = vs2, vd inside the vs2 group, vd = vs1, vd = v0, vs1 = vs2 (all legal)."""
    n = vlmax(b.vlen, sew, lmul)
    group = group_registers(lmul)
    tag = f"e{sew}{lmul}"
    common = dict(seed=-5, base=-3, specials={n // 2: 17})
    b.reduction(f"{tag}.vd_eq_vs2", sew, lmul, n, vd=8, vta=True, **common)
    if group > 1:
        b.reduction(f"{tag}.vd_in_vs2_group", sew, lmul, n, vd=8 + group - 1, vta=True, **common)
    b.reduction(f"{tag}.vd_eq_vs1", sew, lmul, n, vd=20, **common)
    b.reduction(f"{tag}.vd_eq_v0", sew, lmul, n, vd=0, vta=True, **common)
    b.reduction(
        f"{tag}.vd_eq_v0_masked",
        sew,
        lmul,
        n,
        vd=0,
        vm=0,
        mask=mask_register(b.vlen, "alternating", n),
        seed=-5,
        base=-3,
        specials={0: 19, 1: 100},
    )
    b.reduction(f"{tag}.vs1_eq_vs2", sew, lmul, n, vs1=8, seed=-5, base=-3, specials={n - 1: 15})
    b.reduction(f"{tag}.vd_unaligned", sew, lmul, n, vd=3, vta=True, **common)


def agnostic_cases(b: Builder, sew: int) -> None:
    """vta x vma x vm at LMUL=1 (ACT's cr_vtype_agnostic)."""
    n = vlmax(b.vlen, sew, "m1")
    for vta in (False, True):
        for vma in (False, True):
            for vm in (0, 1):
                b.reduction(
                    f"e{sew}m1.agnostic_vta{int(vta)}_vma{int(vma)}_vm{vm}",
                    sew,
                    "m1",
                    max(1, n - 1),
                    seed=-8,
                    base=-4,
                    specials={1: 6, 2: 50},
                    vm=vm,
                    mask=mask_register(b.vlen, "alternating", n),
                    vta=vta,
                    vma=vma,
                )


def vs_cases(b: Builder) -> None:
    """mstatus.VS: Off traps (bare metal only), Clean and Dirty retire."""
    n = vlmax(b.vlen, 32, "m1")
    for vs, name in ((VS_CLEAN, "clean"), (VS_DIRTY, "dirty"), (VS_INITIAL, "initial")):
        b.reduction(f"vs_{name}", 32, "m1", n, seed=1, base=-2, specials={3: 4}, vs=vs)
    b.reduction("vs_clean_vl_0", 32, "m1", 0, seed=1, base=-2, vs=VS_CLEAN)
    b.reduction("trap.vs_off", 32, "m1", n, seed=1, base=-2, specials={3: 4}, vs=VS_OFF)
    b.reduction("trap.vs_off_vl_0", 32, "m1", 0, seed=1, base=-2, vs=VS_OFF)


def trap_cases(b: Builder) -> None:
    """Every trap reason and reserved encoding."""
    good = encode_vtype(16, "m1")
    vill_vtypes = {
        "vill_bit": good | VILL_VTYPE,
        "reserved_bits": good | 1 << 8,
        "reserved_bits_high": good | 1 << 62,
        "reserved_vsew": good & ~0b111000 | 0b100 << 3,
        "reserved_vsew_7": good & ~0b111000 | 0b111 << 3,
        "reserved_vlmul": good & ~0b111 | 0b100,
    }
    for why, raw in vill_vtypes.items():
        b.reduction(f"trap.vill.{why}", 16, "m1", 0, seed=1, base=2, requested_vtype=raw)
    for sew in SEWS:
        for lmul in LMUL_NAMES:
            if not sew_lmul_supported(sew, lmul, b.elen):
                optional = sew <= b.elen  # SEW > LMUL*ELEN: optional to support
                why = "sew_gt_lmul_elen" if optional else "sew_gt_elen"
                b.reduction(
                    f"trap.vill.{why}.e{sew}{lmul}",
                    min(sew, b.elen),
                    "m1",
                    0,
                    seed=1,
                    base=2,
                    requested_vtype=encode_vtype(sew, lmul),
                    setup_optional=optional,
                )
    for sew in SEWS:
        if sew > b.elen:
            continue
        n = vlmax(b.vlen, sew, "m1")
        b.reduction(f"trap.e{sew}.vstart_nonzero", sew, "m1", n, seed=1, base=2, vstart=1)
        b.reduction(f"trap.e{sew}.vstart_last", sew, "m1", n, seed=1, base=2, vstart=n - 1)
        b.reduction(f"trap.e{sew}.vstart_nonzero_vl_0", sew, "m1", 0, seed=1, base=2, vstart=3)
        b.reduction(
            f"trap.e{sew}.vstart_above_vl",
            sew,
            "m1",
            min(2, n),
            seed=1,
            base=2,
            vstart=min(min(2, n) + 3, b.vlen - 1),
            vta=True,
        )
    for lmul in ("m2", "m4", "m8"):
        group = group_registers(lmul)
        for offset in sorted({1, group // 2, group - 1}):
            b.reduction(
                f"reserved.e8{lmul}.vs2_misaligned_{8 + offset}",
                8,
                lmul,
                5,
                seed=1,
                base=2,
                vs2=8 + offset,
                vs1=20 if 8 + offset + group <= 20 else 2,
                vd=4 if offset != 1 else 5,
            )
    for lmul in ("mf2", "m1", "m2", "m8"):
        n = vlmax(b.vlen, 8, lmul)
        b.reduction(
            f"reserved.e8{lmul}.v0_in_vs2",
            8,
            lmul,
            n,
            seed=-1,
            base=3,
            specials={1: 9},
            vs2=0,
            vs1=20,
            vm=0,
            mask=mask_register(b.vlen, "alternating", n),
        )
        b.reduction(
            f"reserved.e8{lmul}.v0_is_vs1",
            8,
            lmul,
            n,
            seed=-1,
            base=3,
            specials={1: 9},
            vs1=0,
            vm=0,
            mask=mask_register(b.vlen, "alternating", n),
        )


def directed_cases(vlen: int, elen: int = 64) -> list[TestCase]:
    """The directed suite for one machine, tagged with coverpoints."""
    b = Builder(vlen, elen)
    for cfg in legal_configs(elen, vlens=[vlen]):
        config_cases(b, cfg.sew, cfg.lmul)
    for sew in SEWS:
        if sew > elen:
            continue
        agnostic_cases(b, sew)
        for lmul in ("m1", "m2", "m8") if sew < 64 else ("m1", "m4"):
            overlap_cases(b, sew, lmul)
    vs_cases(b)
    trap_cases(b)
    return [tagged(case) for case in b.cases]


def random_suite(vlen: int, elen: int, count: int, seed: int) -> list[TestCase]:
    """`count` seeded random cases (the conformance generator); registers the case does not
    read get their background value, so that big VLENs stay compact."""
    out = []
    for number, case in enumerate(random_cases(seed, count, vlen, elen)):
        vt = decode_vtype(case.requested_vtype, elen)
        group = 8 if vt.vill else group_registers(vt.lmul)
        insn = case.insn
        read = {0, insn.vd, insn.vs1, *range(insn.vs2, min(insn.vs2 + group, NUM_VREGS))}
        regs = tuple(value if k in read else background(k, vlen) for k, value in enumerate(case.pre.regs))
        pre = case.pre.with_(regs=regs)
        pre.check()
        out.append(
            tagged(
                TestCase(
                    f"random.{seed}.{number}",
                    pre,
                    insn,
                    case.requested_vtype,
                    case.avl,
                    setup_optional=optional_pair(case.requested_vtype, elen),
                )
            )
        )
    return out


def optional_pair(requested_vtype: int, elen: int) -> bool:
    """The vtype is vill only because SEW > LMUL*ELEN at a fractional LMUL (optional)."""
    raw = requested_vtype
    if raw >> 8:
        return False
    vsew, vlmul = raw >> 3 & 7, raw & 7
    if vsew >= len(SEWS) or vlmul == 0b100:
        return False
    sew = SEWS[vsew]
    lmul = next(name for name, code in LMUL_CODE.items() if code == vlmul)
    return sew <= elen and not sew_lmul_supported(sew, lmul, elen)


# ---------------------------------------------------------------------------------------------
# Coverage


EDGE_NAMES = ("smin", "smax", "minus1", "zero", "one")


def edge_values(sew: int) -> dict[str, int]:
    """The edge values, signed."""
    smin, smax = signed_limits(sew)
    return {"smin": smin, "smax": smax, "minus1": -1, "zero": 0, "one": 1}


def to_signed(value: int, sew: int) -> int:
    return value - (1 << sew) if value >> (sew - 1) else value


def vill_reason(requested_vtype: int, elen: int) -> str:
    raw = requested_vtype
    if raw >> VTYPE_VILL_BIT & 1:
        return "vill_bit"
    if raw >> 8:
        return "reserved_bits"
    if raw >> 3 & 7 >= len(SEWS):
        return "reserved_vsew"
    if raw & 7 == 0b100:
        return "reserved_vlmul"
    return "sew_gt_lmul_elen" if optional_pair(raw, elen) else "sew_gt_elen"


def coverpoints_of(case: TestCase) -> tuple[str, ...]:
    """The coverpoints a case hits, read off its state and instruction."""
    pre, insn = case.pre, case.insn
    rule = fired_rule(pre, insn)
    hits = []
    if rule == VS_OFF_RULE.id:
        return ("trap.vs_off",)
    if rule == VILL_RULE.id:
        return (f"trap.vill.{vill_reason(case.requested_vtype, pre.elen)}",)
    vt = decode_vtype(pre.vtype, pre.elen)
    sew, lmul, vl = vt.sew, vt.lmul, pre.vl
    if rule == VSTART_RULE.id:
        return (
            f"trap.vstart_nonzero.{'vl_zero' if vl == 0 else 'vl_nonzero'}",
            *(["trap.vstart_nonzero.vstart_ge_vl"] if pre.vstart >= vl > 0 else []),
        )
    if rule == MISALIGNED_RULE.id:
        return (f"reserved.vs2_misaligned.{lmul}",)
    if rule in (V0_VS2_RULE.id, V0_VS1_RULE.id):
        return ("reserved." + ("v0_in_vs2" if rule == V0_VS2_RULE.id else "v0_is_vs1"),)
    n = vlmax(pre.vlen, sew, lmul)
    es = f"e{sew}"
    if vl == 0:
        hits.append(f"cp_vl_0.{es}")
        if vt.vta:
            hits.append(f"cp_vl_0.{es}.vta1")
    else:
        for label, hit in (
            ("one", vl == 1),
            ("odd", vl % 2 == 1 and 1 < vl < n - 1),
            ("vlmax_minus_1", vl == n - 1 and vl > 1),
            ("vlmax", vl == n),
        ):
            if hit:
                hits.append(f"cr_vl_lmul.{es}{lmul}.vl_{label}")
    hits.append(f"vs.{VS_NAMES[pre.vs]}")
    group = group_registers(lmul)
    sources = set(range(insn.vs2, insn.vs2 + group))
    overlap = []
    if insn.vd == insn.vs2:
        overlap.append("cmp_vd_vs2")
    elif insn.vd in sources:
        overlap.append("vd_in_vs2_group")
    if insn.vd == insn.vs1:
        overlap.append("cmp_vd_vs1")
    if insn.vd == 0:
        overlap.append(f"vd_eq_v0.vm{insn.vm}")
    if insn.vs1 == insn.vs2:
        overlap.append("cmp_vs1_vs2")
    if group > 1 and insn.vd % group:
        overlap.append("cp_custom_red.vd_unaligned")
    hits += [f"{name}.{es}" for name in overlap]
    if vl == 0:
        return tuple(hits)
    hits.append(f"cr_vtype_agnostic.{es}.vta{int(vt.vta)}.vma{int(vt.vma)}.vm{insn.vm}")
    elements = group_elements(pre, insn.vs2, sew, group, vl)  # signed
    if insn.vm:
        selected = elements
    else:
        selector = format(pre.regs[0] & ((1 << vl) - 1), f"0{vl}b")[::-1].encode().translate(BITS)
        selected = list(compress(elements, selector))
        masked_off = list(compress(elements, selector.translate(FLIP)))
        active_at = list(compress(range(vl), selector))
    seed = to_signed(pre.regs[insn.vs1] & ((1 << sew) - 1), sew)
    edges = edge_values(sew)
    hits += [f"cp_vs1_edges.{es}.{name}" for name, value in edges.items() if seed == value]
    present = set(selected)
    hits += [f"cp_vs2_edges.{es}.{name}" for name, value in edges.items() if value in present]
    if insn.vm == 0:
        if not selected:
            hits.append(f"cp_masking_edges.{es}.all_off")
        elif len(selected) == vl:
            hits.append(f"cp_masking_edges.{es}.all_on")
        elif len(selected) == 1:
            hits.append(f"cp_masking_edges.{es}.one")
        elif vl >= 4 and active_at[:2] == [0, 2] and (len(active_at) < 3 or active_at[2] == 4):
            hits.append(f"cp_masking_edges.{es}.alternating")
    if selected:
        top = max(selected)
        if seed > top:
            hits.append(f"seed.{es}.above_all")
        if seed < min(selected):
            hits.append(f"seed.{es}.below_all")
        winners = selected.count(top)
        if winners > 1 or top == seed:
            hits.append(f"ties.{es}")
        if winners == 1 and top > seed:
            index = selected.index(top)
            index = index if insn.vm else active_at[index]
            where = "first" if index == 0 else "last" if index == vl - 1 else "middle"
            hits.append(f"max_position.{es}.{where}")
            if len(selected) == 1 and insn.vm == 0:
                hits.append(f"one_active_max.{es}.{where}")
        if insn.vm == 0 and masked_off and max(masked_off) > top:
            hits.append(f"masked_off_larger.{es}")
    return tuple(hits)


BITS = bytes.maketrans(b"01", b"\x00\x01")
FLIP = bytes.maketrans(b"\x00\x01", b"\x01\x00")
SIGNED_FORMATS = {8: "b", 16: "h", 32: "i", 64: "q"}


def group_elements(pre: ArchState, vs2: int, sew: int, group: int, count: int) -> list[int]:
    """Elements 0 .. count-1 of the vs2 group, as signed integers."""
    value = 0
    for k in range(group):
        value |= pre.regs[vs2 + k] << (k * pre.vlen)
    data = value.to_bytes(group * pre.vlen // 8, "little")[: count * sew // 8]
    return memoryview(data).cast(SIGNED_FORMATS[sew]).tolist()


def tagged(case: TestCase) -> TestCase:
    return TestCase(
        case.name,
        case.pre,
        case.insn,
        case.requested_vtype,
        case.avl,
        case.setup_optional,
        coverpoints_of(case),
    )


def required_coverpoints(vlen: int, elen: int = 64) -> list[str]:
    """The coverpoints every suite for this machine must hit."""
    need = [
        "trap.vs_off",
        "trap.vill.vill_bit",
        "trap.vill.reserved_bits",
        "trap.vill.reserved_vsew",
        "trap.vill.reserved_vlmul",
        "trap.vill.sew_gt_lmul_elen",
        "trap.vstart_nonzero.vl_zero",
        "trap.vstart_nonzero.vl_nonzero",
        "trap.vstart_nonzero.vstart_ge_vl",
        "reserved.vs2_misaligned.m2",
        "reserved.vs2_misaligned.m4",
        "reserved.vs2_misaligned.m8",
        "reserved.v0_in_vs2",
        "reserved.v0_is_vs1",
        "vs.initial",
        "vs.clean",
        "vs.dirty",
    ]
    if elen == 32:
        need.append("trap.vill.sew_gt_elen")
    for cfg in legal_configs(elen, vlens=[vlen]):
        n = cfg.vlmax
        tag = f"cr_vl_lmul.e{cfg.sew}{cfg.lmul}"
        need += [f"{tag}.vl_one", f"{tag}.vl_vlmax"]
        if n - 1 > 1:
            need.append(f"{tag}.vl_vlmax_minus_1")
        if odd_vl(n):
            need.append(f"{tag}.vl_odd")
    for sew in SEWS:
        if sew > elen:
            continue
        es = f"e{sew}"
        need += [f"cp_vl_0.{es}", f"cp_vl_0.{es}.vta1"]
        need += [
            f"cr_vtype_agnostic.{es}.vta{a}.vma{b}.vm{m}" for a in (0, 1) for b in (0, 1) for m in (0, 1)
        ]
        need += [f"cp_vs1_edges.{es}.{name}" for name in ("smin", "smax", "minus1", "zero")]
        need += [f"cp_vs2_edges.{es}.{name}" for name in EDGE_NAMES]
        need += [f"cp_masking_edges.{es}.{kind}" for kind in ("all_off", "all_on", "one", "alternating")]
        need += [f"seed.{es}.above_all", f"seed.{es}.below_all", f"ties.{es}", f"masked_off_larger.{es}"]
        need += [f"max_position.{es}.{where}" for where in ("first", "middle", "last")]
        need += [f"one_active_max.{es}.{where}" for where in ("first", "middle", "last")]
        need += [
            f"{name}.{es}"
            for name in (
                "cmp_vd_vs2",
                "vd_in_vs2_group",
                "cmp_vd_vs1",
                "vd_eq_v0.vm0",
                "vd_eq_v0.vm1",
                "cmp_vs1_vs2",
                "cp_custom_red.vd_unaligned",
            )
        ]
    return need


def coverage(cases: list[TestCase], vlen: int, elen: int = 64) -> tuple[dict[str, int], list[str]]:
    """(hits per coverpoint, the required ones with no case), required ones first."""
    hits = {name: 0 for name in required_coverpoints(vlen, elen)}
    for case in cases:
        for name in case.coverpoints:
            hits[name] = hits.get(name, 0) + 1
    missing = [name for name in required_coverpoints(vlen, elen) if hits[name] == 0]
    return hits, missing
