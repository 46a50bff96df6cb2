/*
 * The conformance harness's parts: the case loop (harness.c), the vector code (harness.S) and
 * an environment that gives input, output and trap catching (harness_linux.c for a user-mode
 * emulator, harness_htif.c for machine mode on Spike). The wire format is in protocol.py.
 */
#ifndef HARNESS_H
#define HARNESS_H

#include <stdint.h>

struct harness_io {             /* offsets are mirrored in harness.S */
    uint64_t code, vtype, avl, vstart, vs, regs_in, regs_out;
    uint64_t pre_vl, pre_vtype, pre_vstart, pre_vs;
    uint64_t post_vl, post_vtype, post_vstart, post_vs;
};

/* harness.S */
uint64_t harness_vlenb(void);
void harness_run(struct harness_io *io);
void harness_save(struct harness_io *io);

/* harness.c: the case loop, until the end of input */
void harness_loop(void);

/* The environment. */
int64_t env_read(void *buffer, uint64_t n);        /* bytes read, 0 at the end, < 0 on error */
int64_t env_write(const void *buffer, uint64_t n); /* bytes written, <= 0 when the reader went away */
void env_fail(const char *message);                 /* a message on stderr, exit status 3 */
void env_end(void);                                 /* the reader went away: exit 0 */
volatile uint32_t *env_code(void);                  /* where the word under test and a ret go */
void env_sync_code(void);                           /* the code was written: fence.i */
int env_run(struct harness_io *io);                 /* harness_run; 1 if the word trapped */
void *env_alloc(uint64_t size);                     /* 0 when out of memory */

#endif
