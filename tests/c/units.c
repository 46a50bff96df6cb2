/* Reduction units for tests/test_check_c.py, written as emulator helpers are: macros over
 * the element type, a switch per SEW, pointer arithmetic and memcpy. u_* are correct;
 * bug_* each have one planted bug, named in their comment. */
#include <stdlib.h>
#include <string.h>
#include "vredmax_check.h"

/* Sign-extend the low `sew` bits of x. */
static int64_t sext(uint64_t x, unsigned sew)
{
    return sew == 64 ? (int64_t)x : (int64_t)(x << (64 - sew)) >> (64 - sew);
}

static int64_t element(const void *elements, size_t i, unsigned sew)
{
    uint64_t raw = 0;
    memcpy(&raw, (const uint8_t *)elements + i * (sew / 8), sew / 8);   /* little-endian host */
    return sext(raw, sew);
}

/* correct: a byte pointer walked with memcpy, every SEW through one 64-bit path */
uint64_t u_memcpy_walk(unsigned sew, uint64_t seed, const void *elements, const uint8_t *active, size_t n)
{
    const uint8_t *p = elements;
    int64_t acc = sext(seed, sew);
    for (size_t i = 0; i < n; i++, p += sew / 8) {
        uint64_t raw = 0;
        memcpy(&raw, p, sew / 8);
        int64_t x = sext(raw, sew);
        if (active[i] && x > acc)
            acc = x;
    }
    return (uint64_t)acc;
}

/* correct: from the last element down */
#define DOWN(T) do { const T *e = elements; T acc = (T)seed;                     \
        for (size_t i = n; i-- > 0;) if (active[i] && e[i] > acc) acc = e[i];     \
        return (uint64_t)acc; } while (0)
uint64_t u_reverse(unsigned sew, uint64_t seed, const void *elements, const uint8_t *active, size_t n)
{
    switch (sew) { case 8: DOWN(int8_t); case 16: DOWN(int16_t); case 32: DOWN(int32_t); default: DOWN(int64_t); }
}

/* correct: branch-free selects */
#define SELECT(T) do { const T *e = elements; T acc = (T)seed;                   \
        for (size_t i = 0; i < n; i++) { T m = e[i] > acc ? e[i] : acc;           \
            acc = active[i] ? m : acc; }                                          \
        return (uint64_t)acc; } while (0)
uint64_t u_select(unsigned sew, uint64_t seed, const void *elements, const uint8_t *active, size_t n)
{
    switch (sew) { case 8: SELECT(int8_t); case 16: SELECT(int16_t); case 32: SELECT(int32_t); default: SELECT(int64_t); }
}

/* correct: the active elements' maximum apart, the seed joined at the end */
uint64_t u_found_flag(unsigned sew, uint64_t seed, const void *elements, const uint8_t *active, size_t n)
{
    int found = 0;
    int64_t best = 0;
    for (size_t i = 0; i < n; i++) {
        if (!active[i])
            continue;
        int64_t x = element(elements, i, sew);
        if (!found || x > best)
            best = x;
        found = 1;
    }
    int64_t s = sext(seed, sew);
    return (uint64_t)(found && best > s ? best : s);
}

/* correct: two elements per iteration (pairs first, then the running maximum) */
#define PAIRS(T) do { const T *e = elements; T acc = (T)seed; size_t i = 0;                      \
        for (; i + 1 < n; i += 2) {                                                                \
            T a = e[i], b = e[i + 1];                                                              \
            if (active[i] && active[i + 1]) { T m = a > b ? a : b; if (m > acc) acc = m; }       \
            else if (active[i]) { if (a > acc) acc = a; }                                          \
            else if (active[i + 1]) { if (b > acc) acc = b; }                                     \
        }                                                                                          \
        if (i < n && active[i] && e[i] > acc) acc = e[i];                                          \
        return (uint64_t)acc; } while (0)
uint64_t u_pairs(unsigned sew, uint64_t seed, const void *elements, const uint8_t *active, size_t n)
{
    switch (sew) { case 8: PAIRS(int8_t); case 16: PAIRS(int16_t); case 32: PAIRS(int32_t); default: PAIRS(int64_t); }
}

/* bug: the elements compared as unsigned numbers */
#define UNS(T) do { const T *e = elements; T acc = (T)seed;                      \
        for (size_t i = 0; i < n; i++) if (active[i] && e[i] > acc) acc = e[i];   \
        return (uint64_t)acc; } while (0)
uint64_t bug_unsigned(unsigned sew, uint64_t seed, const void *elements, const uint8_t *active, size_t n)
{
    switch (sew) { case 8: UNS(uint8_t); case 16: UNS(uint16_t); case 32: UNS(uint32_t); default: UNS(uint64_t); }
}

/* bug: the loop stops one element short */
#define SHORT(T) do { const T *e = elements; T acc = (T)seed;                    \
        for (size_t i = 0; i + 1 < n; i++) if (active[i] && e[i] > acc) acc = e[i];  \
        return (uint64_t)acc; } while (0)
uint64_t bug_one_short(unsigned sew, uint64_t seed, const void *elements, const uint8_t *active, size_t n)
{
    switch (sew) { case 8: SHORT(int8_t); case 16: SHORT(int16_t); case 32: SHORT(int32_t); default: SHORT(int64_t); }
}

/* bug: the active flags are ignored (inactive elements take part) */
uint64_t bug_all_lanes(unsigned sew, uint64_t seed, const void *elements, const uint8_t *active, size_t n)
{
    (void)active;
    int64_t acc = sext(seed, sew);
    for (size_t i = 0; i < n; i++) {
        int64_t x = element(elements, i, sew);
        if (x > acc)
            acc = x;
    }
    return (uint64_t)acc;
}

/* bug: the running maximum starts at 0, not at the smallest value (all negative: 0) */
uint64_t bug_zero_start(unsigned sew, uint64_t seed, const void *elements, const uint8_t *active, size_t n)
{
    int64_t best = 0;
    for (size_t i = 0; i < n; i++)
        if (active[i] && element(elements, i, sew) > best)
            best = element(elements, i, sew);
    int64_t s = sext(seed, sew);
    return (uint64_t)(best > s ? best : s);
}

/* bug: compared by the sign of a difference, which overflows (undefined behaviour) for
 * 32- and 64-bit elements far apart; 8- and 16-bit ones are promoted to int and are right */
#define DIFF(T) do { const T *e = elements; T acc = (T)seed;                         \
        for (size_t i = 0; i < n; i++) if (active[i] && e[i] - acc > 0) acc = e[i];    \
        return (uint64_t)acc; } while (0)
uint64_t bug_difference(unsigned sew, uint64_t seed, const void *elements, const uint8_t *active, size_t n)
{
    switch (sew) { case 8: DIFF(int8_t); case 16: DIFF(int16_t); case 32: DIFF(int32_t); default: DIFF(int64_t); }
}

/* bug: a 16-bit trip count, 0 at n = 65536 (SEW=8, LMUL=8, VLEN=65536): nothing is visited
 * there; right at every smaller VLMAX */
uint64_t bug_narrow_counter(unsigned sew, uint64_t seed, const void *elements, const uint8_t *active, size_t n)
{
    int64_t acc = sext(seed, sew);
    uint16_t count = (uint16_t)n;
    for (uint16_t i = 0; i != count; i++) {
        int64_t x = element(elements, i, sew);
        if (active[i] && x > acc)
            acc = x;
    }
    return (uint64_t)acc;
}

/* correct: a branch-free select on the 64-bit sign-extended values (no compare-and-branch) */
uint64_t u_branchless(unsigned sew, uint64_t seed, const void *elements, const uint8_t *active, size_t n)
{
    int64_t acc = sext(seed, sew);
    for (size_t i = 0; i < n; i++) {
        int64_t x = element(elements, i, sew);
        acc ^= (acc ^ x) & -(int64_t)((x > acc) & (active[i] != 0));
    }
    return (uint64_t)acc;
}

/* bug: the branch-free select with the comparison made unsigned */
uint64_t bug_branchless_unsigned(unsigned sew, uint64_t seed, const void *elements, const uint8_t *active, size_t n)
{
    int64_t acc = sext(seed, sew);
    for (size_t i = 0; i < n; i++) {
        int64_t x = element(elements, i, sew);
        acc ^= (acc ^ x) & -(int64_t)(((uint64_t)x > (uint64_t)acc) & (active[i] != 0));
    }
    return (uint64_t)acc;
}

/* correct: the active elements first copied into a malloc'ed buffer at a running index, then
 * reduced (emulators that gather before they reduce) */
uint64_t u_compact(unsigned sew, uint64_t seed, const void *elements, const uint8_t *active, size_t n)
{
    int64_t *buf = malloc(n * sizeof *buf);
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (active[i])
            buf[m++] = element(elements, i, sew);
    int64_t acc = sext(seed, sew);
    for (size_t j = 0; j < m; j++)
        if (buf[j] > acc)
            acc = buf[j];
    free(buf);
    return (uint64_t)acc;
}

/* bug: the gathered buffer reduced one short (the last active element is left out) */
uint64_t bug_compact_short(unsigned sew, uint64_t seed, const void *elements, const uint8_t *active, size_t n)
{
    int64_t *buf = malloc(n * sizeof *buf);
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (active[i])
            buf[m++] = element(elements, i, sew);
    int64_t acc = sext(seed, sew);
    for (size_t j = 0; j + 1 < m; j++)
        if (buf[j] > acc)
            acc = buf[j];
    free(buf);
    return (uint64_t)acc;
}

/* an element read through a union after a memcpy of sew / 8 bytes (sign-extended by its type) */
typedef union { uint64_t u; int8_t b; int16_t h; int32_t w; int64_t d; } lane;
static int64_t lane_element(const uint8_t *p, unsigned sew)
{
    lane v;
    v.u = 0;
    memcpy(&v.u, p, sew / 8);
    switch (sew) {
    case 8: return v.b;
    case 16: return v.h;
    case 32: return v.w;
    default: return v.d;
    }
}

/* correct: the active elements gathered into a malloc'ed buffer through a pointer walk, the seed
 * folded in last (generated unit g6101_22_u: the paths that stored at buf[m] for different m
 * met, and angr read the merged slot back byte-reversed; its counterexample did not replay) */
uint64_t u_compact_walk(unsigned sew, uint64_t seed, const void *elements, const uint8_t *active, size_t n)
{
    int64_t acc = (int64_t)(~0ull << (sew - 1));
    int64_t *buf = malloc((n ? n : 1) * sizeof *buf);
    if (!buf)
        return 0;
    size_t m = 0;
    const uint8_t *p = elements;
    for (size_t i = 0; i < n; i++, p += sew / 8)
        if (active[i])
            buf[m++] = lane_element(p, sew);
    for (size_t j = 0; j < m; j++)
        acc = buf[j] > acc ? buf[j] : acc;
    free(buf);
    int64_t x = lane_element((const uint8_t *)&seed, sew);
    return (uint64_t)(x > acc ? x : acc);
}

/* bug: u_compact_walk comparing the gathered elements unsigned */
uint64_t bug_compact_walk_unsigned(unsigned sew, uint64_t seed, const void *elements, const uint8_t *active, size_t n)
{
    int64_t acc = (int64_t)(~0ull << (sew - 1));
    int64_t *buf = malloc((n ? n : 1) * sizeof *buf);
    if (!buf)
        return 0;
    size_t m = 0;
    const uint8_t *p = elements;
    for (size_t i = 0; i < n; i++, p += sew / 8)
        if (active[i])
            buf[m++] = lane_element(p, sew);
    for (size_t j = 0; j < m; j++)
        acc = (uint64_t)buf[j] > (uint64_t)acc ? buf[j] : acc;
    free(buf);
    int64_t x = lane_element((const uint8_t *)&seed, sew);
    return (uint64_t)(x > acc ? x : acc);
}

/* correct: each element assembled byte by byte in a loop of its own (a loop inside the loop
 * over the elements, run only for the active ones), the maximum kept by a branch-free mask */
static int64_t bytes_element(const uint8_t *p, unsigned sew)
{
    uint64_t raw = 0;
    for (unsigned b = sew / 8; b-- > 0;)
        raw = raw << 8 | p[b];
    return (int64_t)(raw << (64 - sew)) >> (64 - sew);
}
uint64_t u_bytes_inner(unsigned sew, uint64_t seed, const void *elements, const uint8_t *active, size_t n)
{
    int64_t acc = bytes_element((const uint8_t *)&seed, sew);
    for (size_t i = 0; i < n; i++) {
        if (!active[i])
            continue;
        int64_t x = bytes_element((const uint8_t *)elements + i * (sew / 8), sew);
        uint64_t take = -(uint64_t)(x > acc);
        acc = (int64_t)(((uint64_t)x & take) | ((uint64_t)acc & ~take));
    }
    return (uint64_t)acc;
}

/* bug: the byte loop one byte short (the top byte of each element is never read) */
static int64_t bytes_element_short(const uint8_t *p, unsigned sew)
{
    uint64_t raw = 0;
    for (unsigned b = sew / 8 - 1; b-- > 0;)
        raw = raw << 8 | p[b];
    return (int64_t)(raw << (64 - sew)) >> (64 - sew);
}
uint64_t bug_bytes_short(unsigned sew, uint64_t seed, const void *elements, const uint8_t *active, size_t n)
{
    int64_t acc = bytes_element((const uint8_t *)&seed, sew);
    for (size_t i = 0; i < n; i++) {
        if (!active[i])
            continue;
        int64_t x = bytes_element_short((const uint8_t *)elements + i * (sew / 8), sew);
        uint64_t take = -(uint64_t)(x > acc);
        acc = (int64_t)(((uint64_t)x & take) | ((uint64_t)acc & ~take));
    }
    return (uint64_t)acc;
}

/* correct: the union's element read (memcpy) for each element inside the loop and for the seed
 * after it, the maximum starting at the smallest value; the loop is entered at a block that is
 * no back edge's target (the targets lie after the memcpy of the element being read) */
uint64_t u_union_seed_last(unsigned sew, uint64_t seed, const void *elements, const uint8_t *active, size_t n)
{
    const uint8_t *base = elements;
    int64_t acc = (int64_t)(~0ull << (sew - 1));
    for (size_t i = 0; i < n; i++) {
        int64_t x = lane_element(base + i * (sew / 8), sew);
        if ((active[i] != 0) & (x > acc))
            acc = x;
    }
    int64_t x = lane_element((const uint8_t *)&seed, sew);
    return (uint64_t)(x > acc ? x : acc);
}

/* bug: u_union_seed_last with the seed compared unsigned */
uint64_t bug_union_seed_unsigned(unsigned sew, uint64_t seed, const void *elements, const uint8_t *active, size_t n)
{
    const uint8_t *base = elements;
    int64_t acc = (int64_t)(~0ull << (sew - 1));
    for (size_t i = 0; i < n; i++) {
        int64_t x = lane_element(base + i * (sew / 8), sew);
        if ((active[i] != 0) & (x > acc))
            acc = x;
    }
    int64_t x = lane_element((const uint8_t *)&seed, sew);
    return (uint64_t)((uint64_t)x > (uint64_t)acc ? x : acc);
}

/* correct: the element read through a table of loaders by SEW, from the last element down,
 * the seed folded last; at the loop head a register holds the index times the element size,
 * which at n = 6 (the mining run) looks like a sign-extended running value but at n = 2048
 * is not (the guess of the invariant too strong there: that location is havocked) */
static int64_t load8(const uint8_t *p) { int8_t x; memcpy(&x, p, 1); return x; }
static int64_t load16(const uint8_t *p) { int16_t x; memcpy(&x, p, 2); return x; }
static int64_t load32(const uint8_t *p) { int32_t x; memcpy(&x, p, 4); return x; }
static int64_t load64(const uint8_t *p) { int64_t x; memcpy(&x, p, 8); return x; }
static int64_t (*const loads[4])(const uint8_t *) = {load8, load16, load32, load64};
uint64_t u_table_reverse(unsigned sew, uint64_t seed, const void *elements, const uint8_t *active, size_t n)
{
    const uint8_t *base = elements;
    int64_t (*load)(const uint8_t *) = loads[__builtin_ctz(sew) - 3];
    int64_t acc = (int64_t)(~0ull << (sew - 1));
    for (size_t i = n; i-- > 0;) {
        if (!active[i])
            continue;
        int64_t x = load(base + i * (sew / 8));
        uint64_t sel = -(uint64_t)(x > acc);
        acc = (int64_t)(((uint64_t)x & sel) | ((uint64_t)acc & ~sel));
    }
    int64_t x = load((const uint8_t *)&seed);
    return (uint64_t)(x > acc ? x : acc);
}

/* bug: u_compact folding one entry past the buffer's end, buf[0..m] (an entry no element stored) */
uint64_t bug_compact_past_end(unsigned sew, uint64_t seed, const void *elements, const uint8_t *active, size_t n)
{
    int64_t *buf = malloc((n + 1) * sizeof *buf);
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (active[i])
            buf[m++] = element(elements, i, sew);
    int64_t acc = sext(seed, sew);
    for (size_t j = 0; j <= m; j++)
        if (buf[j] > acc)
            acc = buf[j];
    free(buf);
    return (uint64_t)acc;
}

/* bug: u_compact keeping every element, the inactive ones too (m counts them all) */
uint64_t bug_compact_keeps_all(unsigned sew, uint64_t seed, const void *elements, const uint8_t *active, size_t n)
{
    int64_t *buf = malloc((n ? n : 1) * sizeof *buf);
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        buf[m++] = active[i] ? element(elements, i, sew) : element(elements, i, sew);
    int64_t acc = sext(seed, sew);
    for (size_t j = 0; j < m; j++)
        if (buf[j] > acc)
            acc = buf[j];
    free(buf);
    return (uint64_t)acc;
}

/* the active elements compacted into a stack buffer by a pointer walk (the element's sign taken
   by xor and subtract), then folded, the seed last: a generated shape (bench/generated_c.py) */
static int64_t xor_sub_element(const uint8_t *p, unsigned sew)
{
    uint64_t raw = 0;
    memcpy(&raw, p, sew / 8);
    uint64_t sign = 1ull << (sew - 1);
    return (int64_t)(((sew == 64 ? raw : raw & ((1ull << sew) - 1)) ^ sign) - sign);
}
uint64_t u_compact_stack(unsigned sew, uint64_t seed, const void *elements, const uint8_t *active, size_t n)
{
    int64_t acc = (int64_t)(~0ull << (sew - 1));
    int64_t buf[65536];
    size_t m = 0;
    const uint8_t *p = elements;
    for (size_t i = 0; i < n; i++, p += sew / 8)
        if (active[i])
            buf[m++] = xor_sub_element(p, sew);
    for (size_t j = 0; j < m; j++)
        if (buf[j] > acc)
            acc = buf[j];
    int64_t x = xor_sub_element((const uint8_t *)&seed, sew);
    return (uint64_t)(x > acc ? x : acc);
}

/* bug: u_compact_stack folding one entry short, buf[0..m-1) */
uint64_t bug_compact_stack_short(unsigned sew, uint64_t seed, const void *elements, const uint8_t *active, size_t n)
{
    int64_t acc = (int64_t)(~0ull << (sew - 1));
    int64_t buf[65536];
    size_t m = 0;
    const uint8_t *p = elements;
    for (size_t i = 0; i < n; i++, p += sew / 8)
        if (active[i])
            buf[m++] = xor_sub_element(p, sew);
    for (size_t j = 0; j + 1 < m; j++)
        if (buf[j] > acc)
            acc = buf[j];
    int64_t x = xor_sub_element((const uint8_t *)&seed, sew);
    return (uint64_t)(x > acc ? x : acc);
}

/* the active elements read through a union (memcpy'd) compacted into a malloc'ed buffer, then
   folded by a branch-free select: a generated shape (memcpy's PLT stub is reached more often
   than the loop's head) */
typedef union { uint64_t u; int8_t b; int16_t h; int32_t w; int64_t d; } lane_union;
static int64_t union_element(const uint8_t *p, unsigned sew)
{
    lane_union v;
    v.u = 0;
    memcpy(&v.u, p, sew / 8);
    switch (sew) {
    case 8: return v.b;
    case 16: return v.h;
    case 32: return v.w;
    default: return v.d;
    }
}
uint64_t u_compact_union(unsigned sew, uint64_t seed, const void *elements, const uint8_t *active, size_t n)
{
    const uint8_t *base = elements;
    int64_t acc = union_element((const uint8_t *)&seed, sew);
    int64_t *buf = malloc((n ? n : 1) * sizeof *buf);
    if (!buf)
        return 0;
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (active[i])
            buf[m++] = union_element(base + i * (sew / 8), sew);
    for (size_t j = 0; j < m; j++) {
        int64_t x = buf[j];
        acc ^= (acc ^ x) & -(int64_t)(x > acc);
    }
    free(buf);
    return (uint64_t)acc;
}

/* bug: u_compact_union comparing unsigned */
uint64_t bug_compact_union_unsigned(unsigned sew, uint64_t seed, const void *elements, const uint8_t *active, size_t n)
{
    const uint8_t *base = elements;
    int64_t acc = union_element((const uint8_t *)&seed, sew);
    int64_t *buf = malloc((n ? n : 1) * sizeof *buf);
    if (!buf)
        return 0;
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (active[i])
            buf[m++] = union_element(base + i * (sew / 8), sew);
    for (size_t j = 0; j < m; j++) {
        int64_t x = buf[j];
        acc ^= (acc ^ x) & -(int64_t)((uint64_t)x > (uint64_t)acc);
    }
    free(buf);
    return (uint64_t)acc;
}

/* a generated shape (g31031_7_u): the active elements compacted into a stack buffer by a
   `while (++i < n)` loop, folded from the type's minimum, the seed folded last; the buffer lies
   below the frame's slots, one of which holds the spilled `sew` beside 4 bytes never written */
static int64_t seed_last_element(const uint8_t *p, unsigned sew)
{
    uint64_t raw = 0;
    memcpy(&raw, p, sew / 8);
    return (int64_t)(((sew == 64 ? raw : raw & ((1ull << sew) - 1)) ^ (1ull << (sew - 1))) - (1ull << (sew - 1)));
}
uint64_t u_compact_seed_last(unsigned sew, uint64_t seed, const void *elements, const uint8_t *active, size_t n)
{
    const uint8_t *base = elements;
    int64_t acc = (int64_t)(~0ull << (sew - 1));
    int64_t buf[65536];
    size_t m = 0;
    size_t i = (size_t)-1;
    while (++i < n)
        if (active[i])
            buf[m++] = seed_last_element(base + (i * sew >> 3), sew);
    for (size_t j = 0; j < m; j++)
        if (buf[j] > acc)
            acc = buf[j];
    int64_t x = seed_last_element((const uint8_t *)&seed, sew);
    if (x > acc)
        acc = x;
    return (uint64_t)acc;
}

/* bug: u_compact_seed_last folding the seed unsigned */
uint64_t bug_compact_seed_last_unsigned(unsigned sew, uint64_t seed, const void *elements, const uint8_t *active, size_t n)
{
    const uint8_t *base = elements;
    int64_t acc = (int64_t)(~0ull << (sew - 1));
    int64_t buf[65536];
    size_t m = 0;
    size_t i = (size_t)-1;
    while (++i < n)
        if (active[i])
            buf[m++] = seed_last_element(base + (i * sew >> 3), sew);
    for (size_t j = 0; j < m; j++)
        if (buf[j] > acc)
            acc = buf[j];
    uint64_t x = seed & (sew == 64 ? ~0ull : (1ull << sew) - 1);
    if ((int64_t)x > acc)
        acc = (int64_t)x;
    return (uint64_t)acc;
}

/* the flags packed first into a zeroed bit array, a bit a flag from bit 0 of byte 0 (not yet
   proved for every VLMAX: its byte-wide trip is refuted, see packed.py)
   (`bits[i / 8] |= 1 << (i % 8)`), then the elements whose bit is set folded (packed.py) */
uint64_t u_bits_bytes(unsigned sew, uint64_t seed, const void *elements, const uint8_t *active, size_t n)
{
    uint8_t bits[8192];
    memset(bits, 0, sizeof bits);
    for (size_t i = 0; i < n; i++)
        bits[i / 8] |= (uint8_t)((active[i] & 1) << (i % 8));
    int64_t acc = sext(seed, sew);
    for (size_t i = 0; i < n; i++) {
        int64_t x = element(elements, i, sew);
        if (((bits[i / 8] >> (i % 8)) & 1) && x > acc)
            acc = x;
    }
    return (uint64_t)acc;
}

/* the same in 64-bit words from the top bit (`bits[i / 64] |= 1ull << (63 - i % 64)`) */
uint64_t u_bits_words_top(unsigned sew, uint64_t seed, const void *elements, const uint8_t *active, size_t n)
{
    uint64_t bits[1024] = {0};
    for (size_t i = 0; i < n; i++)
        bits[i / 64] |= (uint64_t)(active[i] & 1) << (63 - i % 64);
    int64_t acc = sext(seed, sew);
    for (size_t i = 0; i < n; i++) {
        int64_t x = element(elements, i, sew);
        if ((bits[i / 64] >> (63 - i % 64)) & 1 && x > acc)
            acc = x;
    }
    return (uint64_t)acc;
}

/* bug: u_bits_bytes packing flag i at bit i + 1 (the fold reads bit i) */
uint64_t bug_bits_shifted(unsigned sew, uint64_t seed, const void *elements, const uint8_t *active, size_t n)
{
    uint8_t bits[8193];
    memset(bits, 0, sizeof bits);
    for (size_t i = 0; i < n; i++)
        bits[(i + 1) / 8] |= (uint8_t)((active[i] & 1) << ((i + 1) % 8));
    int64_t acc = sext(seed, sew);
    for (size_t i = 0; i < n; i++) {
        int64_t x = element(elements, i, sew);
        if (((bits[i / 8] >> (i % 8)) & 1) && x > acc)
            acc = x;
    }
    return (uint64_t)acc;
}

/* bug: u_bits_bytes with the array never zeroed */
uint64_t bug_bits_unzeroed(unsigned sew, uint64_t seed, const void *elements, const uint8_t *active, size_t n)
{
    uint8_t bits[8192];
    for (size_t i = 0; i < n; i++)
        bits[i / 8] |= (uint8_t)((active[i] & 1) << (i % 8));
    int64_t acc = sext(seed, sew);
    for (size_t i = 0; i < n; i++) {
        int64_t x = element(elements, i, sew);
        if (((bits[i / 8] >> (i % 8)) & 1) && x > acc)
            acc = x;
    }
    return (uint64_t)acc;
}

/* bug: u_bits_bytes packing only the first 16 flags (wrong only past element 16) */
uint64_t bug_bits_past_16(unsigned sew, uint64_t seed, const void *elements, const uint8_t *active, size_t n)
{
    uint8_t bits[8192];
    memset(bits, 0, sizeof bits);
    for (size_t i = 0; i < n && i < 16; i++)
        bits[i / 8] |= (uint8_t)((active[i] & 1) << (i % 8));
    int64_t acc = sext(seed, sew);
    for (size_t i = 0; i < n; i++) {
        int64_t x = element(elements, i, sew);
        if (((bits[i / 8] >> (i % 8)) & 1) && x > acc)
            acc = x;
    }
    return (uint64_t)acc;
}
