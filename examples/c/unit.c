/* A reduction unit for `vredmax check-c examples/c/unit.c:reduce` (PROVED), written the way
 * emulators write their helpers: one loop per SEW, made by a macro over the element type. */
#include "vredmax_check.h"

#define REDMAX(TYPE)                                                        \
    do {                                                                    \
        const TYPE *e = (const TYPE *)elements;                             \
        TYPE acc = (TYPE)seed;                                              \
        for (size_t i = 0; i < n; i++)                                      \
            if (active[i] && e[i] > acc)                                    \
                acc = e[i];                                                 \
        return (uint64_t)acc;                                               \
    } while (0)

uint64_t reduce(unsigned sew, uint64_t seed, const void *elements, const uint8_t *active, size_t n)
{
    switch (sew) {
    case 8:  REDMAX(int8_t);
    case 16: REDMAX(int16_t);
    case 32: REDMAX(int32_t);
    default: REDMAX(int64_t);
    }
}

/* The same with a planted bug: the elements are compared as unsigned numbers
 * (`vredmax check-c examples/c/unit.c:reduce_unsigned`: a COUNTEREXAMPLE, exit 1). */
#define REDMAXU(TYPE)                                                       \
    do {                                                                    \
        const TYPE *e = (const TYPE *)elements;                             \
        TYPE acc = (TYPE)seed;                                              \
        for (size_t i = 0; i < n; i++)                                      \
            if (active[i] && e[i] > acc)                                    \
                acc = e[i];                                                 \
        return (uint64_t)acc;                                               \
    } while (0)

uint64_t reduce_unsigned(unsigned sew, uint64_t seed, const void *elements, const uint8_t *active, size_t n)
{
    switch (sew) {
    case 8:  REDMAXU(uint8_t);
    case 16: REDMAXU(uint16_t);
    case 32: REDMAXU(uint32_t);
    default: REDMAXU(uint64_t);
    }
}
