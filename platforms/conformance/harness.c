/*
 * Conformance harness: runs one 32-bit instruction word per case on a given vector state and
 * reports the state afterwards, many cases per process over the environment's input and
 * output (harness.h; the protocol is described in protocol.py).
 *
 * This file is compiled without the V extension so that no C code touches vector state; all
 * vector work is in harness.S. It uses no C library: the environment gives what it needs.
 */
#include "harness.h"

enum { RETIRED = 0, TRAPPED_AT_WORD = 1 };
enum { REQUEST_HEADER = 40, RESPONSE_HEADER = 72 };
static const uint32_t RET = 0x00008067;    /* jalr x0, 0(ra) */

static void copy(void *to, const void *from, uint64_t n)
{
    for (uint64_t i = 0; i < n; i++)
        ((unsigned char *)to)[i] = ((const unsigned char *)from)[i];
}

/* Read exactly n bytes; 0 at a clean end of input, 1 when done. */
static int read_all(unsigned char *buffer, uint64_t n)
{
    uint64_t done = 0;
    while (done < n) {
        int64_t got = env_read(buffer + done, n - done);
        if (got <= 0) {
            if (got == 0 && done == 0)
                return 0;
            env_fail("harness: truncated request\n");
        }
        done += (uint64_t)got;
    }
    return 1;
}

static void write_all(const unsigned char *buffer, uint64_t n)
{
    uint64_t done = 0;
    while (done < n) {
        int64_t put = env_write(buffer + done, n - done);
        if (put <= 0)
            env_end();
        done += (uint64_t)put;
    }
}

static uint64_t get64(const unsigned char *p)
{
    uint64_t value;
    copy(&value, p, 8);         /* riscv64 is little-endian, as the protocol */
    return value;
}

void harness_loop(void)
{
    uint64_t vlenb = harness_vlenb();
    uint64_t regs_size = 32 * vlenb;
    unsigned char *request = env_alloc(REQUEST_HEADER + regs_size);
    unsigned char *response = env_alloc(RESPONSE_HEADER + regs_size);
    volatile uint32_t *code = env_code();
    static struct harness_io io;   /* static: intact across a trap */

    if (!request || !response || !code)
        env_fail("harness: out of memory\n");
    write_all((const unsigned char *)"VREDMAX2", 8);
    write_all((const unsigned char *)&vlenb, 8);
    while (read_all(request, REQUEST_HEADER + regs_size)) {
        uint32_t word, status;
        copy(&word, request, 4);
        code[0] = word;
        code[1] = RET;
        env_sync_code();
        io.code = (uint64_t)(uintptr_t)code;
        io.vs = get64(request + 8);
        io.vtype = get64(request + 16);
        io.avl = get64(request + 24);
        io.vstart = get64(request + 32);
        io.regs_in = (uint64_t)(uintptr_t)(request + REQUEST_HEADER);
        io.regs_out = (uint64_t)(uintptr_t)(response + RESPONSE_HEADER);
        status = env_run(&io) ? TRAPPED_AT_WORD : RETIRED;
        harness_save(&io);
        for (int i = 0; i < 8; i++)
            response[i] = 0;
        copy(response, &status, 4);
        copy(response + 8, &io.pre_vl, 64);  /* pre_vl .. post_vs, in order */
        write_all(response, RESPONSE_HEADER + regs_size);
    }
}
