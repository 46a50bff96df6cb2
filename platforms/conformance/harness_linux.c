/*
 * The harness's environment in Linux user mode (qemu-riscv64): stdin and stdout, an
 * executable page for the word, and SIGILL at the word caught with siglongjmp.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "harness.h"

static sigjmp_buf trap_return;
static volatile uint32_t *code_page;

void env_fail(const char *message)
{
    write(2, message, strlen(message));
    _exit(3);
}

void env_end(void)
{
    exit(0);
}

static void on_sigill(int sig, siginfo_t *info, void *context)
{
    (void)sig; (void)context;
    if (info->si_addr != (void *)code_page)
        env_fail("harness: SIGILL outside the instruction under test\n");
    siglongjmp(trap_return, 1);
}

int64_t env_read(void *buffer, uint64_t n)
{
    return read(0, buffer, n);
}

int64_t env_write(const void *buffer, uint64_t n)
{
    return write(1, buffer, n);
}

volatile uint32_t *env_code(void)
{
    return code_page;
}

void env_sync_code(void)
{
    __asm__ volatile("fence.i" ::: "memory");
}

void *env_alloc(uint64_t size)
{
    return malloc(size);
}

int env_run(struct harness_io *io)
{
    if (sigsetjmp(trap_return, 1) == 0) {
        harness_run(io);
        return 0;
    }
    return 1;
}

int main(void)
{
    struct sigaction action;

    code_page = mmap(0, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (code_page == MAP_FAILED)
        code_page = 0;
    memset(&action, 0, sizeof action);
    action.sa_sigaction = on_sigill;
    action.sa_flags = SA_SIGINFO;
    sigemptyset(&action.sa_mask);
    sigaction(SIGILL, &action, 0);
    harness_loop();
    return 0;
}
