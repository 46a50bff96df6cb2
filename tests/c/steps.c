/* Whole vredmax.vs steps for tests/test_check_c.py, written as emulators write them: a byte
 * register file with pointer arithmetic, a per-SEW switch, memcpy. s_* are correct; bug_*
 * each have one planted bug, named in their comment. */
#include <string.h>
#include "vredmax_check.h"

#define VLENB(s) ((size_t)(s)->vlen / 8)
#define REG(s, r) ((s)->vregs + (size_t)(r) * VLENB(s))

/* log2 of LMUL by vlmul; 99: reserved */
static const int lmul_log2[8] = {0, 1, 2, 3, 99, -3, -2, -1};

/* -1 when the instruction may execute, else its outcome; *sew set when legal */
static int legality(const vredmax_state *s, uint32_t insn, unsigned *sew, int check_vstart)
{
    uint64_t vtype = s->vtype;
    unsigned vsew = VREDMAX_VSEW(vtype);
    int l = lmul_log2[VREDMAX_VLMUL(vtype)];
    if (s->vs == 0)
        return VREDMAX_ILLEGAL;
    if ((vtype >> 8) != 0 || vsew > 3 || l == 99)
        return VREDMAX_ILLEGAL;
    *sew = 8u << vsew;
    if (*sew > s->elen || (l < 0 && *sew > (s->elen >> -l)))
        return VREDMAX_ILLEGAL;
    if (check_vstart && s->vstart != 0)
        return VREDMAX_ILLEGAL;
    unsigned vs2 = VREDMAX_VS2(insn), vs1 = VREDMAX_VS1(insn);
    if (l > 0 && vs2 % (1u << l) != 0)
        return VREDMAX_RESERVED;
    if (!VREDMAX_VM(insn) && (vs2 == 0 || vs1 == 0))
        return VREDMAX_RESERVED;
    return -1;
}

static int64_t load(const uint8_t *p, unsigned sew)
{
    switch (sew) {
    case 8:  { int8_t x;  memcpy(&x, p, 1); return x; }
    case 16: { int16_t x; memcpy(&x, p, 2); return x; }
    case 32: { int32_t x; memcpy(&x, p, 4); return x; }
    default: { int64_t x; memcpy(&x, p, 8); return x; }
    }
}

static int mask_on(const vredmax_state *s, uint64_t i)
{
    return (s->vregs[i >> 3] >> (i & 7)) & 1;
}

/* The reduction over the group at vs2 with seed vs1[0]; `one_past` reads one element more
 * (and ignores it), `mask_bytes` reads the mask a byte per element. */
static int64_t reduce(const vredmax_state *s, uint32_t insn, unsigned sew, int one_past, int mask_bytes)
{
    const uint8_t *src = REG(s, VREDMAX_VS2(insn));
    int64_t acc = load(REG(s, VREDMAX_VS1(insn)), sew);
    int vm = VREDMAX_VM(insn);
    for (uint64_t i = 0; i < s->vl + (one_past ? 1 : 0); i++, src += sew / 8) {
        int64_t x = load(src, sew);
        int on = vm || (mask_bytes ? s->vregs[i] != 0 : mask_on(s, i));
        if (i < s->vl && on && x > acc)
            acc = x;
    }
    return acc;
}

static void store_element0(vredmax_state *s, unsigned vd, int64_t value, unsigned sew)
{
    memcpy(REG(s, vd), &value, sew / 8);   /* little-endian host: the low bytes */
}

/* correct */
int s_plain(vredmax_state *s, uint32_t insn)
{
    unsigned sew;
    int outcome = legality(s, insn, &sew, 1);
    if (outcome >= 0)
        return outcome;
    if (s->vl == 0)
        return VREDMAX_RETIRED;
    store_element0(s, VREDMAX_VD(insn), reduce(s, insn, sew, 0, 0), sew);
    s->vs = 3;
    return VREDMAX_RETIRED;
}

/* correct: the tail of vd set to ones when vta says agnostic */
int s_tail_ones(vredmax_state *s, uint32_t insn)
{
    unsigned sew;
    int outcome = legality(s, insn, &sew, 1);
    if (outcome >= 0)
        return outcome;
    if (s->vl == 0)
        return VREDMAX_RETIRED;
    int64_t r = reduce(s, insn, sew, 0, 0);
    if (VREDMAX_VTA(s->vtype))
        memset(REG(s, VREDMAX_VD(insn)), 0xff, VLENB(s));
    store_element0(s, VREDMAX_VD(insn), r, sew);
    s->vs = 3;
    return VREDMAX_RETIRED;
}

/* correct: vd built in a temporary copy, then copied back whole */
int s_temp_copy(vredmax_state *s, uint32_t insn)
{
    unsigned sew;
    int outcome = legality(s, insn, &sew, 1);
    if (outcome >= 0)
        return outcome;
    if (s->vl == 0)
        return VREDMAX_RETIRED;
    uint8_t temp[8192];
    unsigned vd = VREDMAX_VD(insn);
    memcpy(temp, REG(s, vd), VLENB(s));
    int64_t r = reduce(s, insn, sew, 0, 0);
    memcpy(temp, &r, sew / 8);
    memcpy(REG(s, vd), temp, VLENB(s));
    s->vs = 3;
    return VREDMAX_RETIRED;
}

/* correct: one loop per SEW from a macro, the element pointer recomputed each time */
#define LOOP(T) do { T acc, x; memcpy(&acc, REG(s, vs1), sizeof(T));                          \
        for (uint64_t i = 0; i < s->vl; i++) {                                                  \
            if (!vm && !mask_on(s, i)) continue;                                                \
            memcpy(&x, REG(s, vs2) + i * sizeof(T), sizeof(T));                                 \
            if (x > acc) acc = x; }                                                             \
        memcpy(REG(s, vd), &acc, sizeof(T)); } while (0)
int s_macro(vredmax_state *s, uint32_t insn)
{
    unsigned sew, vd = VREDMAX_VD(insn), vs1 = VREDMAX_VS1(insn), vs2 = VREDMAX_VS2(insn), vm = VREDMAX_VM(insn);
    int outcome = legality(s, insn, &sew, 1);
    if (outcome >= 0)
        return outcome;
    if (s->vl == 0)
        return VREDMAX_RETIRED;
    switch (sew) { case 8: LOOP(int8_t); break; case 16: LOOP(int16_t); break;
                   case 32: LOOP(int32_t); break; default: LOOP(int64_t); break; }
    s->vs = 3;
    return VREDMAX_RETIRED;
}

/* correct: VS is set Dirty even when vl = 0 (the architecture allows either) */
int s_dirty_always(vredmax_state *s, uint32_t insn)
{
    unsigned sew;
    int outcome = legality(s, insn, &sew, 1);
    if (outcome >= 0)
        return outcome;
    s->vs = 3;
    if (s->vl != 0)
        store_element0(s, VREDMAX_VD(insn), reduce(s, insn, sew, 0, 0), sew);
    return VREDMAX_RETIRED;
}

/* bug (QEMU 9.0's): vl = 0 is not special, so vd[0] is written with the seed */
int bug_vl0(vredmax_state *s, uint32_t insn)
{
    unsigned sew;
    int outcome = legality(s, insn, &sew, 1);
    if (outcome >= 0)
        return outcome;
    store_element0(s, VREDMAX_VD(insn), reduce(s, insn, sew, 0, 0), sew);
    s->vs = 3;
    return VREDMAX_RETIRED;
}

/* bug: vstart is not checked (a reduction with vstart != 0 must raise illegal-instruction) */
int bug_vstart(vredmax_state *s, uint32_t insn)
{
    unsigned sew;
    int outcome = legality(s, insn, &sew, 0);
    if (outcome >= 0)
        return outcome;
    if (s->vl == 0)
        return VREDMAX_RETIRED;
    store_element0(s, VREDMAX_VD(insn), reduce(s, insn, sew, 0, 0), sew);
    s->vs = 3;
    s->vstart = 0;
    return VREDMAX_RETIRED;
}

/* bug: the mask read a byte per element instead of a bit */
int bug_mask_bytes(vredmax_state *s, uint32_t insn)
{
    unsigned sew;
    int outcome = legality(s, insn, &sew, 1);
    if (outcome >= 0)
        return outcome;
    if (s->vl == 0)
        return VREDMAX_RETIRED;
    store_element0(s, VREDMAX_VD(insn), reduce(s, insn, sew, 0, 1), sew);
    s->vs = 3;
    return VREDMAX_RETIRED;
}

/* bug: vd's tail cleared to zero (the tail must keep its value, or be all ones under vta) */
int bug_tail_zero(vredmax_state *s, uint32_t insn)
{
    unsigned sew;
    int outcome = legality(s, insn, &sew, 1);
    if (outcome >= 0)
        return outcome;
    if (s->vl == 0)
        return VREDMAX_RETIRED;
    int64_t r = reduce(s, insn, sew, 0, 0);
    memset(REG(s, VREDMAX_VD(insn)), 0, VLENB(s));
    store_element0(s, VREDMAX_VD(insn), r, sew);
    s->vs = 3;
    return VREDMAX_RETIRED;
}

/* bug: one element past vl is read (and ignored): at vl = VLMAX of the last group, a read
 * past the register file; the result is right, the read is undefined behaviour */
int bug_read_past(vredmax_state *s, uint32_t insn)
{
    unsigned sew;
    int outcome = legality(s, insn, &sew, 1);
    if (outcome >= 0)
        return outcome;
    if (s->vl == 0)
        return VREDMAX_RETIRED;
    store_element0(s, VREDMAX_VD(insn), reduce(s, insn, sew, 1, 0), sew);
    s->vs = 3;
    return VREDMAX_RETIRED;
}

/* bug: SEW above ELEN is not an illegal instruction (the checks in another order, the ELEN
 * one forgotten): with ELEN=32, a vtype of SEW=64 executes */
int bug_no_elen(vredmax_state *s, uint32_t insn)
{
    uint64_t vtype = s->vtype;
    int l = lmul_log2[VREDMAX_VLMUL(vtype)];
    if (s->vs == 0 || s->vstart != 0 || (vtype >> 8) != 0 || VREDMAX_VSEW(vtype) > 3 || l == 99)
        return VREDMAX_ILLEGAL;
    unsigned sew = 8u << VREDMAX_VSEW(vtype);
    if (l > 0 && VREDMAX_VS2(insn) % (1u << l) != 0)
        return VREDMAX_RESERVED;
    if (!VREDMAX_VM(insn) && (VREDMAX_VS2(insn) == 0 || VREDMAX_VS1(insn) == 0))
        return VREDMAX_RESERVED;
    if (s->vl == 0)
        return VREDMAX_RETIRED;
    store_element0(s, VREDMAX_VD(insn), reduce(s, insn, sew, 0, 0), sew);
    s->vs = 3;
    return VREDMAX_RETIRED;
}

/* correct: each element read with a run-time element size, from an address computed from the
 * register numbers of the instruction word (no per-SEW code at all) */
int s_runtime_size(vredmax_state *s, uint32_t insn)
{
    unsigned sew;
    int outcome = legality(s, insn, &sew, 1);
    if (outcome >= 0)
        return outcome;
    if (s->vl == 0)
        return VREDMAX_RETIRED;
    size_t vlenb = s->vlen / 8, bytes = sew / 8;
    unsigned vs1 = VREDMAX_VS1(insn), vs2 = VREDMAX_VS2(insn), vd = VREDMAX_VD(insn);
    int64_t acc = 0, x;
    memcpy(&acc, s->vregs + vs1 * vlenb, bytes);
    acc = (int64_t)((uint64_t)acc << (64 - sew)) >> (64 - sew);
    for (uint64_t i = 0; i < s->vl; i++) {
        x = 0;
        memcpy(&x, s->vregs + vs2 * vlenb + i * bytes, bytes);
        x = (int64_t)((uint64_t)x << (64 - sew)) >> (64 - sew);
        if ((VREDMAX_VM(insn) || (s->vregs[i / 8] >> (i % 8) & 1)) && x > acc)
            acc = x;
    }
    memcpy(s->vregs + vd * vlenb, &acc, bytes);
    s->vs = 3;
    return VREDMAX_RETIRED;
}

/* bug: the run-time-size step with the element size taken as SEW/8 of the seed register's
 * width... of 8 bytes always: the elements are read 64 bits apart */
int bug_runtime_stride(vredmax_state *s, uint32_t insn)
{
    unsigned sew;
    int outcome = legality(s, insn, &sew, 1);
    if (outcome >= 0)
        return outcome;
    if (s->vl == 0)
        return VREDMAX_RETIRED;
    size_t vlenb = s->vlen / 8, bytes = sew / 8;
    unsigned vs1 = VREDMAX_VS1(insn), vs2 = VREDMAX_VS2(insn), vd = VREDMAX_VD(insn);
    int64_t acc = 0, x;
    memcpy(&acc, s->vregs + vs1 * vlenb, bytes);
    acc = (int64_t)((uint64_t)acc << (64 - sew)) >> (64 - sew);
    for (uint64_t i = 0; i < s->vl; i++) {
        x = 0;
        memcpy(&x, s->vregs + vs2 * vlenb + i * 8 % vlenb, bytes);
        x = (int64_t)((uint64_t)x << (64 - sew)) >> (64 - sew);
        if ((VREDMAX_VM(insn) || (s->vregs[i / 8] >> (i % 8) & 1)) && x > acc)
            acc = x;
    }
    memcpy(s->vregs + vd * vlenb, &acc, bytes);
    s->vs = 3;
    return VREDMAX_RETIRED;
}

/* correct (bench/generated_c.py, seed 6101, program 52): legality checks inline, one loop per
 * SEW, vd set to ones under vta, then vd[0] written a byte at a time. angr's merge of the
 * paths with and without the memset lost the merged accumulator at a later merge: vd[0] came
 * out as one path's value under the other's condition (a counterexample that did not replay) */
int s_vta_byte_loop(vredmax_state *s, uint32_t insn)
{
    unsigned vd = (insn >> 7) & 0x1f, vs1 = (insn >> 15) & 0x1f, vs2 = (insn >> 20) & 0x1f;
    unsigned vm = (insn >> 25) & 1;
    unsigned vsew = (unsigned)(s->vtype >> 3) & 7, vlmul = (unsigned)s->vtype & 7;
    size_t vlenb = s->vlen / 8;
    if (vsew > 3) return VREDMAX_ILLEGAL;
    if (vlmul > 4 && (8u << (vsew & 3)) > (s->elen >> (8 - vlmul))) return VREDMAX_ILLEGAL;
    if (vlmul == 4) return VREDMAX_ILLEGAL;
    if ((s->vtype >> 8) != 0) return VREDMAX_ILLEGAL;
    if (s->vs == 0) return VREDMAX_ILLEGAL;
    if ((8u << (vsew & 3)) > s->elen) return VREDMAX_ILLEGAL;
    if (s->vstart != 0) return VREDMAX_ILLEGAL;
    int l;
    switch (vlmul) {
    case 0: l = 0; break;
    case 1: l = 1; break;
    case 2: l = 2; break;
    case 3: l = 3; break;
    case 5: l = -3; break;
    case 6: l = -2; break;
    default: l = -1; break;
    }
    unsigned group = l > 0 ? 1u << l : 1u;
    unsigned sew = 8u << vsew;
    if (!vm && (vs2 == 0 || vs1 == 0)) return VREDMAX_RESERVED;
    if (group > 1 && vs2 % group != 0) return VREDMAX_RESERVED;
    s->vs = 3;
    if (s->vl == 0)
        return VREDMAX_RETIRED;
    int64_t acc = 0;
#define BYTE_LOOP(T) do { T a, x; memcpy(&a, s->vregs + vs1 * vlenb, sizeof(T));   \
        for (uint64_t i = 0; i < s->vl; i++) {                                   \
            if (!(vm || ((s->vregs[i / 8] & (1u << (i % 8))) != 0))) continue;                                               \
            memcpy(&x, s->vregs + vs2 * vlenb + i * sizeof(T), sizeof(T));            \
            if (x > a) a = x; }                                                   \
        acc = (int64_t)a; } while (0)
    switch (sew) { case 8: BYTE_LOOP(int8_t); break; case 16: BYTE_LOOP(int16_t); break;
                   case 32: BYTE_LOOP(int32_t); break; default: BYTE_LOOP(int64_t); break; }
#undef BYTE_LOOP
    if (VREDMAX_VTA(s->vtype))
        memset(s->vregs + vd * vlenb, 0xff, vlenb);
    for (unsigned b = 0; b < sew / 8; b++)
        s->vregs[vd * vlenb + b] = (uint8_t)((uint64_t)acc >> (8 * b));
    return VREDMAX_RETIRED;
}

/* bug: elements past 16 are skipped; right at every VLMAX up to 16 (the bounded method's
 * reach), so only a proof for every vl can refute it (tests/test_check_c.py, not a buggy step
 * of the concrete tests' list) */
#define PAST16_LOOP(T) do { T acc, x; memcpy(&acc, REG(s, vs1), sizeof(T));                    \
        for (uint64_t i = 0; i < s->vl; i++) {                                                  \
            if ((!vm && !mask_on(s, i)) || i >= 16) continue;                                   \
            memcpy(&x, REG(s, vs2) + i * sizeof(T), sizeof(T));                                 \
            if (x > acc) acc = x; }                                                             \
        memcpy(REG(s, vd), &acc, sizeof(T)); } while (0)
int bug_past_16(vredmax_state *s, uint32_t insn)
{
    unsigned sew, vd = VREDMAX_VD(insn), vs1 = VREDMAX_VS1(insn), vs2 = VREDMAX_VS2(insn), vm = VREDMAX_VM(insn);
    int outcome = legality(s, insn, &sew, 1);
    if (outcome >= 0)
        return outcome;
    if (s->vl == 0)
        return VREDMAX_RETIRED;
    switch (sew) { case 8: PAST16_LOOP(int8_t); break; case 16: PAST16_LOOP(int16_t); break;
                   case 32: PAST16_LOOP(int32_t); break; default: PAST16_LOOP(int64_t); break; }
    s->vs = 3;
    return VREDMAX_RETIRED;
}

/* v0's 64-bit word w, clipped to the register's bytes (as emulators read a mask a word at a
 * time) */
static uint64_t v0_word(const vredmax_state *s, uint64_t w)
{
    uint64_t word = 0;
    size_t left = VLENB(s) - w * 8;
    memcpy(&word, s->vregs + w * 8, left < 8 ? left : 8);
    return word;
}

/* correct: the mask read a v0 word at a time; the compiler rotates the loop so that the
 * block every trip passes comes after the element's update (the loop's head is first reached
 * with element 0 done) */
#define WORD_LOOP(T, LAST) do { T acc, x; memcpy(&acc, REG(s, vs1), sizeof(T));                 \
        for (uint64_t i = 0; i < s->vl; i++) {                                                  \
            if (!(vm || ((v0_word(s, i >> 6) >> (i & 63)) & 1)) || i > (LAST)) continue;        \
            memcpy(&x, REG(s, vs2) + i * sizeof(T), sizeof(T));                                 \
            if (x > acc) acc = x; }                                                             \
        memcpy(REG(s, vd), &acc, sizeof(T)); } while (0)
static int mask_words(vredmax_state *s, uint32_t insn, uint64_t last)
{
    unsigned sew, vd = VREDMAX_VD(insn), vs1 = VREDMAX_VS1(insn), vs2 = VREDMAX_VS2(insn), vm = VREDMAX_VM(insn);
    int outcome = legality(s, insn, &sew, 1);
    if (outcome >= 0)
        return outcome;
    s->vs = 3;
    if (s->vl == 0)
        return VREDMAX_RETIRED;
    switch (sew) { case 8: WORD_LOOP(int8_t, last); break; case 16: WORD_LOOP(int16_t, last); break;
                   case 32: WORD_LOOP(int32_t, last); break; default: WORD_LOOP(int64_t, last); break; }
    return VREDMAX_RETIRED;
}

int s_mask_words(vredmax_state *s, uint32_t insn)
{
    return mask_words(s, insn, ~0ull);
}

/* bug: as s_mask_words, elements past 16 skipped (right up to VLMAX 16) */
int bug_mask_words_past_16(vredmax_state *s, uint32_t insn)
{
    return mask_words(s, insn, 15);
}

/* correct: an inactive element skipped with `continue`; the element copied with a run-time
 * size the compiler knows is at most 8 (a memcpy inlined as code per size, laid out before the
 * loop's head: an active element's trip jumps back more often than an inactive one's) */
int s_skip_inline_copy(vredmax_state *s, uint32_t insn)
{
    unsigned sew, vd = VREDMAX_VD(insn), vs1 = VREDMAX_VS1(insn), vs2 = VREDMAX_VS2(insn), vm = VREDMAX_VM(insn);
    int outcome = legality(s, insn, &sew, 1);
    if (outcome >= 0)
        return outcome;
    if (s->vl == 0)
        return VREDMAX_RETIRED;
    unsigned bytes = 1u << (VREDMAX_VSEW(s->vtype) & 3);
    uint64_t raw = 0;
    memcpy(&raw, REG(s, vs1), bytes);
    int64_t acc = (int64_t)(raw << (64 - sew)) >> (64 - sew);
    for (uint64_t i = 0; i < s->vl; i++) {
        if (!(vm || ((s->vregs[i / 8] & (1u << (i % 8))) != 0)))
            continue;
        raw = 0;
        memcpy(&raw, REG(s, vs2) + i * bytes, bytes);
        int64_t x = (int64_t)(raw << (64 - sew)) >> (64 - sew);
        if (x > acc)
            acc = x;
    }
    for (unsigned b = 0; b < bytes; b++)
        REG(s, vd)[b] = (uint8_t)((uint64_t)acc >> (8 * b));
    s->vs = 3;
    return VREDMAX_RETIRED;
}

/* correct: the words reserved for v0 in the vs2 group or as vs1 while masked are executed, as
 * QEMU and Spike execute them (the spec promises nothing there); a misaligned group traps */
static int execute_reserved(vredmax_state *s, uint32_t insn, int check_vstart)
{
    uint64_t vtype = s->vtype;
    unsigned vsew = VREDMAX_VSEW(vtype);
    int l = lmul_log2[VREDMAX_VLMUL(vtype)];
    if (s->vs == 0 || (vtype >> 8) != 0 || vsew > 3 || l == 99)
        return VREDMAX_ILLEGAL;
    unsigned sew = 8u << vsew;
    if (sew > s->elen || (l < 0 && sew > (s->elen >> -l)) || (check_vstart && s->vstart != 0))
        return VREDMAX_ILLEGAL;
    if (l > 0 && VREDMAX_VS2(insn) % (1u << l) != 0)
        return VREDMAX_ILLEGAL;
    s->vs = 3;
    if (s->vl != 0)
        store_element0(s, VREDMAX_VD(insn), reduce(s, insn, sew, 0, 0), sew);
    return VREDMAX_RETIRED;
}

int s_reserved_executed(vredmax_state *s, uint32_t insn)
{
    return execute_reserved(s, insn, 1);
}

/* bug: as s_reserved_executed, but vstart != 0 executes instead of trapping */
int bug_reserved_vstart(vredmax_state *s, uint32_t insn)
{
    return execute_reserved(s, insn, 0);
}
