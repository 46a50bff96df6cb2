/*
 * Conformance harness: runs one 32-bit instruction word per case on a given vector state
 * and reports the state afterwards. Many cases per process, over stdin/stdout; the
 * protocol is described in protocol.py. Built static for riscv64 by build.py, run under
 * an emulator such as qemu-riscv64.
 *
 * This file is compiled without the V extension so that no C code touches vector state;
 * all vector work is in harness.S.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

struct harness_io {             /* offsets are mirrored in harness.S */
    uint64_t code, vtype, avl, vstart, regs_in, regs_out;
    uint64_t pre_vl, pre_vtype, pre_vstart;
    uint64_t post_vl, post_vtype, post_vstart;
};

uint64_t harness_vlenb(void);
void harness_run(struct harness_io *io);
void harness_save(struct harness_io *io);

enum { RETIRED = 0, SIGILL_AT_WORD = 1 };
enum { REQUEST_HEADER = 32, RESPONSE_HEADER = 56 };
static const uint32_t RET = 0x00008067;    /* jalr x0, 0(ra) */

static sigjmp_buf trap_return;
static volatile uint32_t *code_page;

static void fail(const char *message)
{
    write(2, message, strlen(message));
    _exit(3);
}

static void on_sigill(int sig, siginfo_t *info, void *context)
{
    (void)sig; (void)context;
    if (info->si_addr != (void *)code_page)
        fail("harness: SIGILL outside the instruction under test\n");
    siglongjmp(trap_return, 1);
}

/* Read exactly n bytes; 0 at a clean end of input, 1 when done. */
static int read_all(void *buffer, size_t n)
{
    size_t done = 0;
    while (done < n) {
        ssize_t got = read(0, (char *)buffer + done, n - done);
        if (got <= 0) {
            if (got == 0 && done == 0)
                return 0;
            fail("harness: truncated request\n");
        }
        done += (size_t)got;
    }
    return 1;
}

static void write_all(const void *buffer, size_t n)
{
    size_t done = 0;
    while (done < n) {
        ssize_t put = write(1, (const char *)buffer + done, n - done);
        if (put <= 0)
            exit(0);            /* the reader went away */
        done += (size_t)put;
    }
}

static uint64_t get64(const unsigned char *p)
{
    uint64_t value;
    memcpy(&value, p, 8);       /* riscv64 is little-endian, as the protocol */
    return value;
}

int main(void)
{
    uint64_t vlenb = harness_vlenb();
    size_t regs_size = 32 * vlenb;
    unsigned char *request = malloc(REQUEST_HEADER + regs_size);
    unsigned char *response = malloc(RESPONSE_HEADER + regs_size);
    struct sigaction action;
    static struct harness_io io;   /* static: intact across siglongjmp */

    code_page = mmap(0, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (!request || !response || code_page == MAP_FAILED)
        fail("harness: out of memory\n");
    memset(&action, 0, sizeof action);
    action.sa_sigaction = on_sigill;
    action.sa_flags = SA_SIGINFO;
    sigemptyset(&action.sa_mask);
    sigaction(SIGILL, &action, 0);

    write_all("VREDMAX1", 8);
    write_all(&vlenb, 8);
    while (read_all(request, REQUEST_HEADER + regs_size)) {
        volatile uint32_t status = RETIRED;
        uint32_t word;
        memcpy(&word, request, 4);
        code_page[0] = word;
        code_page[1] = RET;
        __asm__ volatile("fence.i" ::: "memory");
        io.code = (uint64_t)code_page;
        io.vtype = get64(request + 8);
        io.avl = get64(request + 16);
        io.vstart = get64(request + 24);
        io.regs_in = (uint64_t)(request + REQUEST_HEADER);
        io.regs_out = (uint64_t)(response + RESPONSE_HEADER);
        if (sigsetjmp(trap_return, 1) == 0)
            harness_run(&io);
        else
            status = SIGILL_AT_WORD;
        harness_save(&io);
        memset(response, 0, 8);
        memcpy(response, (const void *)&status, 4);
        memcpy(response + 8, &io.pre_vl, 48);  /* pre_vl .. post_vstart, in order */
        write_all(response, RESPONSE_HEADER + regs_size);
    }
    return 0;
}
