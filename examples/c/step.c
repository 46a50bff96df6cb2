/* A whole vredmax.vs step for `vredmax check-c examples/c/step.c:step` (PROVED), written as
 * emulators write them: a register file of bytes addressed with pointer arithmetic, the
 * legality checks first, one loop per SEW from a macro, memcpy for the result. */
#include <string.h>
#include "vredmax_check.h"

/* The element of register group `base` at index i, as a pointer into the register file. */
#define ELEM_PTR(s, base, i, bytes) ((s)->vregs + (size_t)(base) * ((s)->vlen / 8) + (size_t)(i) * (bytes))
#define MASK_BIT(s, i) (((s)->vregs[(i) / 8] >> ((i) % 8)) & 1)

#define REDUCE(TYPE)                                                            \
    do {                                                                        \
        TYPE acc, x;                                                            \
        memcpy(&acc, ELEM_PTR(s, vs1, 0, sizeof(TYPE)), sizeof(TYPE));          \
        for (uint64_t i = 0; i < s->vl; i++) {                                  \
            if (!vm && !MASK_BIT(s, i))                                         \
                continue;                                                       \
            memcpy(&x, ELEM_PTR(s, vs2, i, sizeof(TYPE)), sizeof(TYPE));        \
            if (x > acc)                                                        \
                acc = x;                                                        \
        }                                                                       \
        memcpy(ELEM_PTR(s, vd, 0, sizeof(TYPE)), &acc, sizeof(TYPE));           \
    } while (0)

static int lmul_registers(unsigned vlmul)   /* 0 for fractional LMUL, -1 reserved */
{
    return vlmul < 4 ? 1 << vlmul : vlmul == 4 ? -1 : 0;
}

static int reduction_step(vredmax_state *s, uint32_t insn, int vl0_writes)
{
    unsigned vd = VREDMAX_VD(insn), vs1 = VREDMAX_VS1(insn), vs2 = VREDMAX_VS2(insn), vm = VREDMAX_VM(insn);
    uint64_t vtype = s->vtype;
    unsigned vsew = VREDMAX_VSEW(vtype), vlmul = VREDMAX_VLMUL(vtype);
    unsigned sew = 8u << vsew;
    if (s->vs == 0)
        return VREDMAX_ILLEGAL;
    /* vill, reserved bits, SEW > ELEN, and SEW > LMUL * ELEN at fractional LMUL */
    if (VREDMAX_VILL(vtype) || (vtype >> 8) != 0 || vsew > 3 || sew > s->elen || vlmul == 4
        || (vlmul > 4 && sew > (s->elen >> (8 - vlmul))))
        return VREDMAX_ILLEGAL;
    if (s->vstart != 0)
        return VREDMAX_ILLEGAL;
    int group = lmul_registers(vlmul);
    if (group > 1 && vs2 % group != 0)
        return VREDMAX_RESERVED;
    if (!vm && (vs2 == 0 || vs1 == 0))
        return VREDMAX_RESERVED;
    if (s->vl == 0 && !vl0_writes)
        return VREDMAX_RETIRED;
    switch (sew) {
    case 8:  REDUCE(int8_t);  break;
    case 16: REDUCE(int16_t); break;
    case 32: REDUCE(int32_t); break;
    default: REDUCE(int64_t); break;
    }
    s->vs = 3;   /* Dirty */
    return VREDMAX_RETIRED;
}

int step(vredmax_state *s, uint32_t insn)
{
    return reduction_step(s, insn, 0);
}

/* The same with a planted bug, QEMU 9.0's: vl = 0 is not special, so the loop runs no
 * element and vd[0] is written with the seed (`vredmax check-c examples/c/step.c:step_vl0`:
 * a COUNTEREXAMPLE, exit 1). */
int step_vl0(vredmax_state *s, uint32_t insn)
{
    return reduction_step(s, insn, 1);
}
