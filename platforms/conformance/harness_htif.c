/*
 * The harness's environment in machine mode on Spike: input and output through HTIF system
 * calls (the host's read and write on Spike's own stdin and stdout), the word in a static
 * code buffer, and an illegal-instruction trap at the word skipped by harness_htif.S.
 * Built freestanding (no C library).
 */
#include "harness.h"

enum { SYS_READ = 63, SYS_WRITE = 64 };
enum { HEAP = 2 * (40 + 72 + 32 * 8192) };      /* both buffers at VLEN 65536 */

/* HTIF: the host takes a command from tohost (and clears it) and answers in fromhost. */
volatile uint64_t tohost __attribute__((aligned(64)));
volatile uint64_t fromhost __attribute__((aligned(64)));

volatile uint32_t harness_code[2] __attribute__((aligned(8)));   /* harness_htif.S reads it */
volatile uint64_t harness_trapped;                               /* set by the trap entry */
static unsigned char heap[HEAP] __attribute__((aligned(64)));
static uint64_t heap_used;

static int64_t syscall3(uint64_t number, uint64_t a0, uint64_t a1, uint64_t a2)
{
    static volatile uint64_t magic[8] __attribute__((aligned(64)));
    magic[0] = number;
    magic[1] = a0;
    magic[2] = a1;
    magic[3] = a2;
    __sync_synchronize();
    tohost = (uint64_t)(uintptr_t)magic;    /* device 0, command 0: a system call at this address */
    while (fromhost == 0)
        ;
    fromhost = 0;
    __sync_synchronize();
    return (int64_t)magic[0];
}

static void __attribute__((noreturn)) htif_exit(uint64_t code)
{
    for (;;)
        tohost = code << 1 | 1;
}

void env_fail(const char *message)
{
    uint64_t n = 0;
    while (message[n])
        n++;
    syscall3(SYS_WRITE, 2, (uint64_t)(uintptr_t)message, n);
    htif_exit(3);
}

void env_end(void)
{
    htif_exit(0);
}

void harness_unexpected_trap(void)
{
    env_fail("harness: a trap outside the instruction under test\n");
}

int64_t env_read(void *buffer, uint64_t n)
{
    return syscall3(SYS_READ, 0, (uint64_t)(uintptr_t)buffer, n);
}

int64_t env_write(const void *buffer, uint64_t n)
{
    return syscall3(SYS_WRITE, 1, (uint64_t)(uintptr_t)buffer, n);
}

volatile uint32_t *env_code(void)
{
    return harness_code;
}

void env_sync_code(void)
{
    __asm__ volatile("fence.i" ::: "memory");
}

void *env_alloc(uint64_t size)
{
    size = (size + 63) & ~(uint64_t)63;
    if (size > HEAP - heap_used)
        return 0;
    heap_used += size;
    return heap + heap_used - size;
}

int env_run(struct harness_io *io)
{
    harness_trapped = 0;
    harness_run(io);
    return harness_trapped != 0;
}

void harness_main(void)
{
    harness_loop();
    htif_exit(0);
}
