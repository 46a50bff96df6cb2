# vredmax testgen environment: Linux user mode (qemu-riscv64, or a riscv64 Linux with V).
#
# Output on stdout (write), the exit status is the runner's field code. The word under test
# traps as SIGILL: the handler checks that the pc is the word's, sets tg_trapped and resumes
# after it. mstatus is not readable in user mode: VS is neither set nor checked here.

        .equ SYS_WRITE, 64
        .equ SYS_EXIT_GROUP, 94
        .equ SYS_RT_SIGACTION, 134
        .equ SIGILL, 4
        .equ SA_SIGINFO, 4
        .equ UC_PC, 176                 # offsetof(ucontext_t, uc_mcontext.__gregs[0]) on riscv64

        .text
        .globl _start
_start:
        la      a1, tg_sigaction        # struct sigaction (kernel): handler, flags, mask
        la      t0, tg_on_sigill
        sd      t0, 0(a1)
        li      t0, SA_SIGINFO
        sd      t0, 8(a1)
        sd      zero, 16(a1)
        li      a0, SIGILL
        li      a2, 0
        li      a3, 8                   # sizeof(sigset_t) for the kernel
        li      a7, SYS_RT_SIGACTION
        ecall
        call    tg_main

tg_on_sigill:                           # a0 = signal, a1 = siginfo, a2 = ucontext
        ld      t0, UC_PC(a2)
        la      t1, tg_expect_pc
        ld      t1, 0(t1)
        bne     t0, t1, 1f
        la      t1, tg_trapped
        li      t2, 1
        sd      t2, 0(t1)
        addi    t0, t0, 4
        sd      t0, UC_PC(a2)
        ret                             # to the signal return trampoline
1:      mv      a0, t0
        li      a1, 2                   # illegal instruction
        j       tg_unexpected_trap

        .globl tg_putc
tg_putc:
        addi    sp, sp, -16
        sb      a0, 0(sp)
        li      a0, 1
        mv      a1, sp
        li      a2, 1
        li      a7, SYS_WRITE
        ecall
        addi    sp, sp, 16
        ret

        .globl tg_exit
tg_exit:
        li      a7, SYS_EXIT_GROUP
        ecall
1:      j       1b

        .data
        .balign 8
        .globl tg_has_mstatus
tg_has_mstatus: .dword 0
tg_sigaction:   .dword 0, 0, 0
