"""A generator of C implementations of vredmax.vs for check-c, written as emulator authors
write them, and of wrong ones (mutants), so a seed reproduces a set of programs.

Two levels (proofs/c/vredmax_check.h): reduction units and whole steps. A program is drawn
as a set of idiom choices (`Program.idioms`): how an element is read (per-SEW macros over a
typed pointer, a function-pointer table, a run-time-size memcpy sign-extended by shifts, a
union, bytes assembled by hand), how the loop walks (forward, backward, a pointer walk, a
compaction of the active elements into a buffer first, the flags packed into bit words), how
the running maximum is updated (a branch, a ternary, a branchless select) and, for a step, the
legality checks in a shuffled order, the mask read from v0, the tail and mstatus.VS handling.
A mutant is the same choices with one mutation (`MUTATIONS`), each a bug emulators have had.

`screen` runs a program concretely (check-c's differential runs, a seed and configurations of
its own, both ELENs, plain and sanitized builds): a correct program must pass (else the
generator has a bug), a mutant is kept only when a concrete run shows it wrong.

    from tests.generated.c_programs import generate
    for program in generate(seed=7, count=20): print(program.name, program.idioms, program.mutation)
"""

from __future__ import annotations

import itertools
import random
from dataclasses import dataclass

UNIT_SIGNATURE = (
    "uint64_t {name}(unsigned sew, uint64_t seed, const void *elements, const uint8_t *active, size_t n)"
)
STEP_SIGNATURE = "int {name}(vredmax_state *s, uint32_t insn)"

# Unit idioms (each program draws one of each)
ACCESS = ("sew_macro", "fn_table", "memcpy_shift", "union", "bytes_shift", "xor_sub")
WALK = ("forward", "reverse", "pointer_walk", "while_loop")
ACTIVE = ("skip_inactive", "and_active", "compact_malloc", "compact_stack", "bit_packed")
UPDATE = ("branch", "ternary", "branchless_xor", "branchless_mask")
SEED = ("seed_first", "seed_last")
# Step idioms
DECODE = ("macros", "shifts")
LMUL_DECODE = ("table", "switch", "arithmetic")
ELEMENTS = ("runtime_memcpy", "per_sew_loop", "via_unit")
MASK = ("bit_shift", "byte_and_bit", "packed_words")
VL0 = ("early_return", "guarded_write", "dirty_always")
WRITE = ("memcpy_low", "temp_copy", "byte_loop")
TAIL = ("undisturbed", "ones_if_vta")

UNIT_MUTATIONS = (
    "bound_short",
    "unsigned_compare",
    "seed_dropped",
    "zero_start",
    "mask_inverted",
    "lane_width",
    "past_16",
    "sign_width",
)
STEP_MUTATIONS = (
    "vl0_writes",
    "no_vstart_check",
    "no_elen_check",
    "no_vs_off_check",
    "no_vill_check",
    "mask_inverted",
    "mask_ignored",
    "mask_bytes",
    "tail_zero",
    "seed_from_vs2",
    "vd_written_first",
    "no_dirty",
    "bound_short",
    "unsigned_compare",
    "past_16",
)
MUTATIONS = UNIT_MUTATIONS + STEP_MUTATIONS


@dataclass(frozen=True)
class Program:
    name: str  # the C function's name (and the file's stem)
    level: str  # "unit" or "step"
    source: str  # the whole C file
    idioms: tuple  # (idiom, choice) pairs
    mutation: str | None  # None: correct

    @property
    def correct(self) -> bool:
        return self.mutation is None

    def idiom_text(self) -> str:
        return ",".join(f"{k}={v}" for k, v in self.idioms)


# ---- units -------------------------------------------------------------------------------

SEXT = {
    # sign extension of the low `sew` bits of raw (uint64_t) into an int64_t
    "shift": "(int64_t)((raw) << (64 - (sew))) >> (64 - (sew))",
    "xor_sub": "(int64_t)((((sew) == 64 ? (raw) : (raw) & ((1ull << (sew)) - 1)) ^ (1ull << ((sew) - 1))) "
    "- (1ull << ((sew) - 1)))",
}


def _loader(access: str, m: str | None) -> str:
    """A static `load_elem(p, sew)`: the element at byte pointer p as an int64_t."""
    width = "sew / 8" if m != "lane_width" else "(sew > 8 ? sew / 16 : 1)"
    ext_bits = "sew" if m != "sign_width" else "(sew > 8 ? sew - 8 : 8)"
    if access in ("memcpy_shift", "sew_macro"):
        return (
            "static int64_t load_elem(const uint8_t *p, unsigned sew)\n{\n"
            f"    uint64_t raw = 0;\n    memcpy(&raw, p, {width});\n"
            f"    return {SEXT['shift'].replace('(sew)', '(' + ext_bits + ')')};\n}}\n"
        )
    if access == "xor_sub":
        return (
            "static int64_t load_elem(const uint8_t *p, unsigned sew)\n{\n"
            f"    uint64_t raw = 0;\n    memcpy(&raw, p, {width});\n"
            f"    return {SEXT['xor_sub'].replace('(sew)', '(' + ext_bits + ')')};\n}}\n"
        )
    if access == "bytes_shift":
        return (
            "static int64_t load_elem(const uint8_t *p, unsigned sew)\n{\n"
            f"    uint64_t raw = 0;\n    for (unsigned b = {width}; b-- > 0;)\n        raw = raw << 8 | p[b];\n"
            f"    unsigned up = 64 - {ext_bits};\n    return (int64_t)(raw << up) >> up;\n}}\n"
        )
    if access == "union":
        types = ["int8_t", "int16_t", "int32_t", "int64_t"]
        if m == "sign_width":
            types = ["int8_t", "int8_t", "int16_t", "int32_t"]
        return (
            "typedef union { uint64_t u; int8_t b; int16_t h; int32_t w; int64_t d; } lane;\n"
            "static int64_t load_elem(const uint8_t *p, unsigned sew)\n{\n"
            f"    lane v;\n    v.u = 0;\n    memcpy(&v.u, p, {width});\n"
            "    switch (sew) {\n"
            f"    case 8: return v.{_field(types[0])};\n    case 16: return v.{_field(types[1])};\n"
            f"    case 32: return v.{_field(types[2])};\n    default: return v.{_field(types[3])};\n    }}\n}}\n"
        )
    if access == "fn_table":
        types = ["int8_t", "int16_t", "int32_t", "int64_t"]
        sizes = ["1", "2", "4", "8"]
        if m == "sign_width":
            types = ["int8_t", "int8_t", "int16_t", "int32_t"]
        if m == "lane_width":
            sizes = ["1", "1", "2", "4"]
        out = []
        for k, (t, size) in enumerate(zip(types, sizes)):
            out.append(
                f"static int64_t ld{8 << k}(const uint8_t *p) {{ {t} x = 0; memcpy(&x, p, {size} < sizeof x ? "
                f"{size} : sizeof x); return x; }}\n"
            )
        out.append(
            "static int64_t (*const loaders[4])(const uint8_t *) = {ld8, ld16, ld32, ld64};\n"
            "static int64_t load_elem(const uint8_t *p, unsigned sew)\n{\n"
            "    return loaders[__builtin_ctz(sew) - 3](p);\n}\n"
        )
        return "".join(out)
    raise ValueError(access)


def _field(t: str) -> str:
    return {"int8_t": "b", "int16_t": "h", "int32_t": "w", "int64_t": "d"}[t]


def _update(update: str, take: str, m: str | None) -> str:
    """Statements that set acc to x when `take` (an int 0/1 expression)."""
    if update == "branch":
        return f"if ({take}) acc = x;"
    if update == "ternary":
        return f"acc = ({take}) ? x : acc;"
    if update == "branchless_xor":
        return f"acc ^= (acc ^ x) & -(int64_t)({take});"
    return (
        f"{{ uint64_t sel = -(uint64_t)({take}); "
        "acc = (int64_t)(((uint64_t)x & sel) | ((uint64_t)acc & ~sel)); }"
    )


def _greater(m: str | None) -> str:
    return "(uint64_t)x > (uint64_t)acc" if m == "unsigned_compare" else "x > acc"


def _start(seed_style: str, m: str | None) -> str:
    if m == "zero_start":
        return "0"
    if m == "seed_dropped":
        return "(int64_t)(~0ull << (sew - 1))"  # the smallest SEW value: the seed never counts
    if seed_style == "seed_last":
        return "(int64_t)(~0ull << (sew - 1))"
    return "load_elem((const uint8_t *)&seed, sew)"


def _finish(seed_style: str, m: str | None) -> str:
    if seed_style == "seed_last" and m not in ("seed_dropped", "zero_start"):
        return (
            "    { int64_t x = load_elem((const uint8_t *)&seed, sew);\n"
            f"      {_update('branch', _greater(m), m)} }}\n"
        )
    return ""


def _generic_unit(name: str, c: dict, m: str | None) -> str:
    """Every SEW through one 64-bit path: load_elem by byte address."""
    access, walk, active, update, seed_style = c["access"], c["walk"], c["active"], c["update"], c["seed"]
    inv = "!" if m == "mask_inverted" else ""
    n_eff = "n - 1" if m == "bound_short" else ("(n < 16 ? n : 16)" if m == "past_16" else "n")
    body = [
        _loader(access, m),
        UNIT_SIGNATURE.format(name=name) + "\n{\n",
        "    const uint8_t *base = elements;\n    size_t size = sew / 8;\n",
        f"    int64_t acc = {_start(seed_style, m)};\n",
    ]
    if active in ("compact_malloc", "compact_stack"):
        # the active elements copied first into a buffer at a running index, then reduced
        if active == "compact_malloc":
            body.append("    int64_t *buf = malloc((n ? n : 1) * sizeof *buf);\n    if (!buf) return 0;\n")
        else:
            body.append("    int64_t buf[65536];\n")
        body.append("    size_t m = 0;\n")
        body.append(_walk_lines(walk, n_eff, f"if ({inv}active[i]) buf[m++] = load_elem(PTR, sew);"))
        body.append(
            "    for (size_t j = 0; j < m; j++) {\n        int64_t x = buf[j];\n"
            f"        {_update(update, _greater(m), m)}\n    }}\n"
        )
        if active == "compact_malloc":
            body.append("    free(buf);\n")
    elif active == "bit_packed":
        body.append(
            "    uint64_t bits[1024] = {0};\n"
            "    for (size_t i = 0; i < n; i++)\n"
            f"        bits[i >> 6] |= (uint64_t)({inv}active[i] & 1) << (i & 63);\n"
        )
        body.append(
            _walk_lines(
                walk,
                n_eff,
                "int64_t x = load_elem(PTR, sew);\n"
                f"        {_update(update, '((bits[i >> 6] >> (i & 63)) & 1) & (' + _greater(m) + ')', m)}",
            )
        )
    elif active == "skip_inactive":
        body.append(
            _walk_lines(
                walk,
                n_eff,
                f"if ({'' if inv else '!'}active[i]) continue;\n"
                "        int64_t x = load_elem(PTR, sew);\n"
                f"        {_update(update, _greater(m), m)}",
                continue_ok=True,
            )
        )
    else:
        body.append(
            _walk_lines(
                walk,
                n_eff,
                "int64_t x = load_elem(PTR, sew);\n"
                f"        {_update(update, f'({inv}active[i] != 0) & ({_greater(m)})', m)}",
            )
        )
    body.append(_finish(seed_style, m))
    body.append("    return (uint64_t)acc;\n}\n")
    return "".join(body)


def _walk_lines(walk: str, n_eff: str, statement: str, continue_ok: bool = False) -> str:
    """A loop over i in [0, n_eff) in the chosen shape; PTR in `statement` is element i's address."""
    if walk == "forward":
        return f"    for (size_t i = 0; i < {n_eff}; i++) {{\n        {statement.replace('PTR', 'base + i * size')}\n    }}\n"
    if walk == "reverse":
        return f"    for (size_t i = {n_eff}; i-- > 0;) {{\n        {statement.replace('PTR', 'base + i * size')}\n    }}\n"
    if walk == "pointer_walk":
        return (
            f"    const uint8_t *p = base;\n    for (size_t i = 0; i < {n_eff}; i++, p += size) {{\n"
            f"        {statement.replace('PTR', 'p')}\n    }}\n"
        )
    # while loop: the increment first, so `continue` cannot skip it
    return (
        f"    size_t i = (size_t)-1;\n    while (++i < {n_eff}) {{\n"
        f"        {statement.replace('PTR', '(base + (i * sew >> 3))')}\n    }}\n"
    )


def _typed_unit(name: str, c: dict, m: str | None) -> str:
    """Per-SEW macros over a typed pointer: a switch on SEW or a function-pointer table."""
    walk, update, table = c["walk"], c["update"], c["dispatch"] == "fn_table"
    inv = "!" if m == "mask_inverted" else ""
    signed = ["int8_t", "int16_t", "int32_t", "int64_t"]
    types = [t.replace("int", "uint") for t in signed] if m == "unsigned_compare" else list(signed)
    if m == "lane_width":
        types = [types[0], types[0], types[1], types[2]]
    if m == "sign_width":
        types = [types[0], "uint16_t", types[2], types[3]]
    bound = "n - 1" if m == "bound_short" else ("(n < 16 ? n : 16)" if m == "past_16" else "n")
    start = (
        "(T)seed"
        if m not in ("zero_start", "seed_dropped")
        else ("(T)0" if m == "zero_start" else "(T)((uint64_t)1 << (sizeof(T) * 8 - 1))")
    )
    take = f"{inv}active[i] && e[i] > acc"
    if update == "branch":
        step = f"if ({take}) acc = e[i];"
    elif update == "ternary":
        step = f"acc = ({take}) ? e[i] : acc;"
    else:
        step = f"{{ T cand = e[i]; T sel = (T)-(T)({take}); acc = (T)((cand & sel) | (acc & (T)~sel)); }}"
    if walk == "reverse":
        loop = f"for (size_t i = {bound}; i-- > 0;)"
    elif walk == "while_loop":
        loop = f"for (size_t i = 0, end_ = {bound}; i != end_; ++i)"
    else:
        loop = f"for (size_t i = 0; i < {bound}; i++)"
    macro = (
        "#define REDUCE_BODY(T) do { const T *e = (const T *)elements; T acc = " + start + ";   \\\n"
        f"        {loop} {{ {step} }}   \\\n"
        "        return (uint64_t)acc; } while (0)\n"
    )
    out = [macro]
    if table:
        args = "uint64_t seed, const void *elements, const uint8_t *active, size_t n"
        for k, t in enumerate(types):
            out.append(f"static uint64_t red{8 << k}({args}) {{ REDUCE_BODY({t}); }}\n")
        out.append(
            f"typedef uint64_t (*reducer)({args});\n"
            "static const reducer reducers[] = {red8, red16, red32, red64};\n"
        )
        out.append(
            UNIT_SIGNATURE.format(name=name) + "\n{\n"
            "    unsigned k = sew == 8 ? 0 : sew == 16 ? 1 : sew == 32 ? 2 : 3;\n"
            "    return reducers[k](seed, elements, active, n);\n}\n"
        )
    else:
        out.append(
            UNIT_SIGNATURE.format(name=name) + "\n{\n    switch (sew) {\n"
            f"    case 8: REDUCE_BODY({types[0]});\n    case 16: REDUCE_BODY({types[1]});\n"
            f"    case 32: REDUCE_BODY({types[2]});\n    default: REDUCE_BODY({types[3]});\n    }}\n}}\n"
        )
    return "".join(out)


def draw_unit(rng: random.Random) -> dict:
    access = rng.choice(ACCESS)
    if access == "sew_macro":
        return {
            "access": access,
            "dispatch": rng.choice(("switch", "fn_table")),
            "walk": rng.choice(("forward", "reverse", "while_loop")),
            "update": rng.choice(("branch", "ternary", "branchless_mask")),
        }
    return {
        "access": access,
        "walk": rng.choice(WALK),
        "active": rng.choice(ACTIVE),
        "update": rng.choice(UPDATE),
        "seed": rng.choice(SEED),
    }


def unit_function(name: str, choices: dict, mutation: str | None) -> str:
    if choices["access"] == "sew_macro":
        return _typed_unit(name, choices, mutation)
    return _generic_unit(name, choices, mutation)


def unit_mutations(choices: dict) -> tuple:
    """The mutations that change this unit's text."""
    return UNIT_MUTATIONS


HEADER = '#include <stdlib.h>\n#include <string.h>\n#include "vredmax_check.h"\n\n'


def unit_program(name: str, choices: dict, mutation: str | None = None) -> Program:
    source = (
        f"/* generated unit {name}: {_idioms_text(choices)}"
        + (f"; mutation {mutation}" if mutation else "")
        + " */\n"
        + HEADER
        + unit_function(name, choices, mutation)
    )
    return Program(name, "unit", source, tuple(sorted(choices.items())), mutation)


def _idioms_text(choices: dict) -> str:
    return ", ".join(f"{k}={v}" for k, v in sorted(choices.items()))


# ---- steps -------------------------------------------------------------------------------


def _legality_checks(c: dict, m: str | None) -> tuple[list[str], list[str]]:
    """The illegal-instruction checks and the reserved-encoding checks, each a C statement."""
    illegal = {
        "vs_off": "if (s->vs == 0) return VREDMAX_ILLEGAL;",
        "vill": (
            "if ((s->vtype >> 8) != 0) return VREDMAX_ILLEGAL;"
            if c["vill_style"] == "high_bits"
            else "if (VREDMAX_VILL(s->vtype) || ((s->vtype >> 8) & ((1ull << 55) - 1)) != 0) return VREDMAX_ILLEGAL;"
        ),
        "vsew": "if (vsew > 3) return VREDMAX_ILLEGAL;",
        "vlmul": "if (vlmul == 4) return VREDMAX_ILLEGAL;",
        "elen": "if ((8u << (vsew & 3)) > s->elen) return VREDMAX_ILLEGAL;",
        "frac": ("if (vlmul > 4 && (8u << (vsew & 3)) > (s->elen >> (8 - vlmul))) return VREDMAX_ILLEGAL;"),
        "vstart": "if (s->vstart != 0) return VREDMAX_ILLEGAL;",
    }
    drop = {
        "no_vstart_check": "vstart",
        "no_elen_check": "elen",
        "no_vs_off_check": "vs_off",
        "no_vill_check": "vill",
    }.get(m)
    if drop:
        del illegal[drop]
    order = list(illegal)
    random.Random(c["order"]).shuffle(order)
    reserved = [
        "if (group > 1 && vs2 % group != 0) return VREDMAX_RESERVED;",
        "if (!vm && (vs2 == 0 || vs1 == 0)) return VREDMAX_RESERVED;",
    ]
    if c["order"] % 2:
        reserved.reverse()
    return [illegal[k] for k in order], reserved


def _lmul_lines(c: dict) -> str:
    """log2 LMUL as `l` and the register group size `group`, from vlmul (not reserved here)."""
    if c["lmul_decode"] == "table":
        return (
            "    static const int lmul_log2[8] = {0, 1, 2, 3, 0, -3, -2, -1};\n"
            "    int l = lmul_log2[vlmul];\n"
        )
    if c["lmul_decode"] == "switch":
        return (
            "    int l;\n    switch (vlmul) {\n    case 0: l = 0; break;\n    case 1: l = 1; break;\n"
            "    case 2: l = 2; break;\n    case 3: l = 3; break;\n    case 5: l = -3; break;\n"
            "    case 6: l = -2; break;\n    default: l = -1; break;\n    }\n"
        )
    return "    int l = (vlmul & 4) ? (int)vlmul - 8 : (int)vlmul;\n"


def _mask_expr(c: dict, m: str | None) -> str:
    """Whether element i is active by the mask (v0), as an int expression."""
    if m == "mask_bytes":
        bit = "(s->vregs[i] != 0)"
    elif c["mask"] == "bit_shift":
        bit = "((s->vregs[i >> 3] >> (i & 7)) & 1)"
    elif c["mask"] == "byte_and_bit":
        bit = "((s->vregs[i / 8] & (1u << (i % 8))) != 0)"
    else:
        bit = "((int)(v0word(s, i >> 6) >> (i & 63)) & 1)"
    if m == "mask_ignored":
        return "1"
    return f"(vm || {'!' if m == 'mask_inverted' else ''}{bit})"


def _step_reduce(c: dict, m: str | None) -> str:
    """Statements computing `int64_t acc` over the active elements (vl, mask) from vs1[0]."""
    n = "s->vl - 1" if m == "bound_short" else ("(s->vl < 16 ? s->vl : 16)" if m == "past_16" else "s->vl")
    greater = "(uint64_t)x > (uint64_t)acc" if m == "unsigned_compare" else "x > acc"
    seed_reg = "vs2" if m == "seed_from_vs2" else "vs1"
    mask = _mask_expr(c, m)
    if c["elements"] == "runtime_memcpy":
        # the element address with a run-time element size, as the issue's shape
        return (
            f"    uint64_t raw = 0;\n    memcpy(&raw, s->vregs + {seed_reg} * vlenb, sew / 8);\n"
            "    int64_t acc = (int64_t)(raw << (64 - sew)) >> (64 - sew);\n"
            f"    for (uint64_t i = 0; i < {n}; i++) {{\n"
            f"        if (!{mask}) continue;\n"
            "        raw = 0;\n        memcpy(&raw, s->vregs + vs2 * vlenb + i * (sew / 8), sew / 8);\n"
            "        int64_t x = (int64_t)(raw << (64 - sew)) >> (64 - sew);\n"
            f"        if ({greater}) acc = x;\n    }}\n"
        )
    if c["elements"] == "per_sew_loop":
        types = (
            ("uint8_t", "uint16_t", "uint32_t", "uint64_t")
            if m == "unsigned_compare"
            else ("int8_t", "int16_t", "int32_t", "int64_t")
        )
        cmp = "x > a"
        return (
            "    int64_t acc = 0;\n"
            "#define SEW_LOOP(T) do { T a, x; memcpy(&a, s->vregs + "
            + seed_reg
            + " * vlenb, sizeof(T));   \\\n"
            f"        for (uint64_t i = 0; i < {n}; i++) {{                                   \\\n"
            f"            if (!{mask}) continue;                                               \\\n"
            "            memcpy(&x, s->vregs + vs2 * vlenb + i * sizeof(T), sizeof(T));            \\\n"
            f"            if ({cmp}) a = x; }}                                                   \\\n"
            "        acc = (int64_t)a; } while (0)\n"
            f"    switch (sew) {{ case 8: SEW_LOOP({types[0]}); break; case 16: SEW_LOOP({types[1]}); break;\n"
            f"                   case 32: SEW_LOOP({types[2]}); break; default: SEW_LOOP({types[3]}); break; }}\n"
            "#undef SEW_LOOP\n"
        )
    # via a unit: the flags built in a buffer, then the generated reduction unit called
    return (
        "    uint8_t *flags = malloc(s->vl ? s->vl : 1);\n    if (!flags) return VREDMAX_ILLEGAL;\n"
        f"    for (uint64_t i = 0; i < s->vl; i++) flags[i] = {mask} != 0;\n"
        f"    uint64_t seed = 0;\n    memcpy(&seed, s->vregs + {seed_reg} * vlenb, sew / 8);\n"
        f"    int64_t acc = (int64_t)unit_reduce(sew, seed, s->vregs + vs2 * vlenb, flags, {n});\n"
        "    free(flags);\n"
    )


def _step_write(c: dict) -> str:
    if c["write"] == "memcpy_low":
        return "    memcpy(s->vregs + vd * vlenb, &acc, sew / 8);   /* little-endian host: the low bytes */\n"
    if c["write"] == "temp_copy":
        return (
            "    uint8_t temp[8192];\n    memcpy(temp, s->vregs + vd * vlenb, vlenb);\n"
            "    memcpy(temp, &acc, sew / 8);\n    memcpy(s->vregs + vd * vlenb, temp, vlenb);\n"
        )
    return "    for (unsigned b = 0; b < sew / 8; b++)\n        s->vregs[vd * vlenb + b] = (uint8_t)((uint64_t)acc >> (8 * b));\n"


def step_function(name: str, c: dict, m: str | None) -> str:
    illegal, reserved = _legality_checks(c, m)
    out = []
    if c["elements"] == "via_unit":
        out.append(
            unit_function("unit_reduce", c["unit"], None).replace(
                "uint64_t unit_reduce(", "static uint64_t unit_reduce("
            )
            + "\n"
        )
    if c["mask"] == "packed_words":
        out.append(
            "static uint64_t v0word(const vredmax_state *s, uint64_t w)\n{\n"
            "    uint64_t word = 0;\n    size_t left = s->vlen / 8 - w * 8;\n"
            "    memcpy(&word, s->vregs + w * 8, left < 8 ? left : 8);\n    return word;\n}\n\n"
        )
    out.append(STEP_SIGNATURE.format(name=name) + "\n{\n")
    if c["decode"] == "macros":
        out.append(
            "    unsigned vd = VREDMAX_VD(insn), vs1 = VREDMAX_VS1(insn), vs2 = VREDMAX_VS2(insn);\n"
            "    unsigned vm = VREDMAX_VM(insn);\n"
            "    unsigned vsew = VREDMAX_VSEW(s->vtype), vlmul = VREDMAX_VLMUL(s->vtype);\n"
        )
    else:
        out.append(
            "    unsigned vd = (insn >> 7) & 0x1f, vs1 = (insn >> 15) & 0x1f, vs2 = (insn >> 20) & 0x1f;\n"
            "    unsigned vm = (insn >> 25) & 1;\n"
            "    unsigned vsew = (unsigned)(s->vtype >> 3) & 7, vlmul = (unsigned)s->vtype & 7;\n"
        )
    out.append("    size_t vlenb = s->vlen / 8;\n")
    out += [f"    {line}\n" for line in illegal]
    out.append(_lmul_lines(c))
    out.append("    unsigned group = l > 0 ? 1u << l : 1u;\n    unsigned sew = 8u << vsew;\n")
    out += [f"    {line}\n" for line in reserved]
    if m == "vd_written_first":
        out.append("    memset(s->vregs + vd * vlenb, 0xff, vlenb);   /* the tail made agnostic first */\n")
    if m == "tail_zero":
        out.append("    if (s->vl != 0) memset(s->vregs + vd * vlenb, 0, vlenb);\n")
    if c["vl0"] == "dirty_always" and m != "no_dirty":
        out.append("    s->vs = 3;\n")
    if m != "vl0_writes":
        if c["vl0"] in ("early_return", "dirty_always"):
            out.append("    if (s->vl == 0)\n        return VREDMAX_RETIRED;\n")
    guarded = c["vl0"] == "guarded_write" and m != "vl0_writes"
    if guarded:
        out.append("    if (s->vl != 0) {\n")
    out.append(_step_reduce(c, m))
    if c["tail"] == "ones_if_vta":
        out.append("    if (VREDMAX_VTA(s->vtype))\n        memset(s->vregs + vd * vlenb, 0xff, vlenb);\n")
    out.append(_step_write(c))
    if c["vl0"] != "dirty_always" and m != "no_dirty":
        out.append("    s->vs = 3;\n")
    if guarded:
        out.append("    }\n")
    out.append("    return VREDMAX_RETIRED;\n}\n")
    return "".join(out)


def draw_step(rng: random.Random) -> dict:
    c = {
        "decode": rng.choice(DECODE),
        "lmul_decode": rng.choice(LMUL_DECODE),
        "elements": rng.choice(ELEMENTS),
        "mask": rng.choice(MASK),
        "vl0": rng.choice(VL0),
        "write": rng.choice(WRITE),
        "tail": rng.choice(TAIL),
        "vill_style": rng.choice(("high_bits", "vill_and_reserved")),
        "order": rng.randrange(1 << 16),
    }
    if c["elements"] == "via_unit":
        c["unit"] = draw_unit(rng)
    return c


def step_mutations(choices: dict) -> tuple:
    found = list(STEP_MUTATIONS)
    if choices["elements"] == "via_unit":
        found.remove("unsigned_compare")
    return tuple(found)


def step_program(name: str, choices: dict, mutation: str | None = None) -> Program:
    flat = {k: v for k, v in choices.items() if k not in ("unit", "order")}
    flat.update({f"unit.{k}": v for k, v in choices.get("unit", {}).items()})
    source = (
        f"/* generated step {name}: {_idioms_text(flat)}; check order {choices['order']}"
        + (f"; mutation {mutation}" if mutation else "")
        + " */\n"
        + HEADER
        + step_function(name, choices, mutation)
    )
    return Program(name, "step", source, tuple(sorted(flat.items())), mutation)


# ---- sets --------------------------------------------------------------------------------


def candidates(seed: int, step_share: float = 0.4, wrong_share: float = 0.5):
    """An endless stream of programs from `seed` alone: about `wrong_share` of them mutants,
    `step_share` whole steps. Mutants are not screened here (see `screen`)."""
    rng = random.Random(seed)
    for k in itertools.count():
        step = rng.random() < step_share
        wrong = rng.random() < wrong_share
        choices = draw_step(rng) if step else draw_unit(rng)
        mutation = None
        if wrong:
            mutation = rng.choice(step_mutations(choices) if step else unit_mutations(choices))
        name = f"g{seed}_{k}_{'s' if step else 'u'}" + (f"_{mutation}" if mutation else "")
        yield step_program(name, choices, mutation) if step else unit_program(name, choices, mutation)


def generate(seed: int, count: int, step_share: float = 0.4, wrong_share: float = 0.5) -> list[Program]:
    """The first `count` candidates of `seed`."""
    return list(itertools.islice(candidates(seed, step_share, wrong_share), count))


def write(program: Program, folder: str) -> str:
    import os

    path = os.path.join(folder, f"{program.name}.c")
    with open(path, "w") as handle:
        handle.write(program.source)
    return path


# ---- concrete screening ------------------------------------------------------------------

SCREEN_VLENS = (128, 1024)


def screen(program: Program, folder: str, seed: int = 1, random_cases: int = 10):
    """Run the program concretely (check-c's differential runs, at SCREEN_VLENS and both ELENs,
    plain then sanitized, with its own seed). Returns None when every case agreed, else a
    one-line reason (the configuration and what differed)."""
    from vredmax.proofs.c import concrete
    from vredmax.proofs.c.build import build
    from vredmax.spec.config import legal_configs

    built = build(write(program, folder), program.name, (), folder)
    elens = (64, 32) if program.level == "step" else (64,)
    configs = sorted(
        (c for elen in elens for c in legal_configs(elen, list(SCREEN_VLENS))),
        key=lambda c: (c.vlmax, c.vlen, -c.elen),
    )
    for which, count in ((concrete.PLAIN, random_cases), (concrete.SANITIZED, max(1, random_cases // 4))):
        for r in concrete.run_pass(built, which, configs, seed, count, 60.0):
            if r.error:
                return f"{r.cfg} ({which}): {r.error}"
            if r.counterexample is not None:
                return f"{r.cfg} ({which}): {', '.join(sorted(r.counterexample.differing))}"
    return None
