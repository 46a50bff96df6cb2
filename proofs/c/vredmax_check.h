/* vredmax_check.h: the two C interfaces `vredmax check-c FILE.c[:FUNCTION]` checks against the
 * RISC-V vredmax.vs specification (README, "check-c"). Include it in your file; check-c passes
 * its folder with -I. Nothing here needs linking: the types are what check-c compiles against.
 *
 * Level 1, a reduction unit (default name `reduce`):
 *
 *     uint64_t reduce(unsigned sew, uint64_t seed, const void *elements,
 *                     const uint8_t *active, size_t n);
 *
 *   sew       8, 16, 32 or 64 (SEW).
 *   seed      vs1[0], the SEW-bit value zero-extended to 64 bits.
 *   elements  the n elements of the vs2 register group, each SEW/8 bytes, packed and
 *             little-endian, exactly as they lie in the register file (element i at byte
 *             i * sew / 8); read-only.
 *   active    n flags, each 0 or 1: 1 when element i takes part (i < vl and, for a masked
 *             instruction, bit i of v0 is set); read-only.
 *   n         VLMAX (LMUL * VLEN / SEW): every element of the group, active or not.
 *   returns   vd[0] in the low SEW bits: the signed maximum of the seed and the active
 *             elements. The bits above SEW are ignored (a sign-extended value is fine).
 *
 * Level 2, a whole instruction step (default name `step`):
 *
 *     int step(vredmax_state *s, uint32_t insn);
 *
 *   s         the architectural state, read and written in place (below).
 *   insn      the 32-bit instruction word of a vredmax.vs (funct6 000111, OPMVV): decode
 *             vd, vs1, vs2 and vm from it yourself (VREDMAX_VD(insn)... below).
 *   returns   VREDMAX_RETIRED, VREDMAX_ILLEGAL (an illegal-instruction exception: the state
 *             must be left as it was, mstatus.VS aside), or VREDMAX_RESERVED (the
 *             implementation treats a reserved encoding its own way: allowed only where the
 *             specification leaves the encoding reserved).
 *
 * Both must be plain C: no global state kept between calls, no I/O. check-c compiles your
 * file for this machine (cc, -O2 unless --cflags says otherwise) and also with
 * -fsanitize=address,undefined: undefined behaviour on a legal input is reported.
 */
#ifndef VREDMAX_CHECK_H
#define VREDMAX_CHECK_H

#include <stddef.h>
#include <stdint.h>

typedef uint64_t vredmax_reduce_fn(unsigned sew, uint64_t seed, const void *elements,
                                   const uint8_t *active, size_t n);

#define VREDMAX_NUM_VREGS 32

typedef struct vredmax_state {
    uint8_t *vregs;   /* 32 registers of vlen / 8 bytes each: v[r] starts at vregs + r * (vlen / 8);
                         element k (SEW bits) of a register at byte k * SEW / 8, little-endian;
                         mask bit i of v0 is bit i % 8 of byte i / 8 */
    uint64_t vtype;   /* the vtype CSR: vlmul bits 2:0, vsew 5:3, vta 6, vma 7, vill 63 */
    uint64_t vl;      /* the vl CSR */
    uint64_t vstart;  /* the vstart CSR */
    uint32_t vs;      /* mstatus.VS: 0 Off, 1 Initial, 2 Clean, 3 Dirty */
    uint32_t vlen;    /* VLEN in bits (128 .. 65536); read-only */
    uint32_t elen;    /* ELEN in bits (32 or 64); read-only */
} vredmax_state;

enum { VREDMAX_RETIRED = 0, VREDMAX_ILLEGAL = 1, VREDMAX_RESERVED = 2 };

typedef int vredmax_step_fn(vredmax_state *s, uint32_t insn);

/* The fields of an instruction word, and of vtype. */
#define VREDMAX_VD(insn)   (((insn) >> 7) & 31u)
#define VREDMAX_VS1(insn)  (((insn) >> 15) & 31u)
#define VREDMAX_VS2(insn)  (((insn) >> 20) & 31u)
#define VREDMAX_VM(insn)   (((insn) >> 25) & 1u)
#define VREDMAX_VLMUL(vtype) ((unsigned)((vtype) & 7u))
#define VREDMAX_VSEW(vtype)  ((unsigned)(((vtype) >> 3) & 7u))
#define VREDMAX_VTA(vtype)   ((unsigned)(((vtype) >> 6) & 1u))
#define VREDMAX_VMA(vtype)   ((unsigned)(((vtype) >> 7) & 1u))
#define VREDMAX_VILL(vtype)  ((unsigned)((vtype) >> 63))

#endif
