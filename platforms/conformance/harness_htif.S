# Start-up and trap entry of the harness in machine mode on Spike (see harness_htif.c).

        .section .text.init, "ax"
        .globl _start
_start:
        la      sp, harness_stack_top
        la      t0, harness_trap_entry
        csrw    mtvec, t0
        li      t0, (3 << 9) | (3 << 13)        # mstatus.VS and FS on
        csrs    mstatus, t0
        call    harness_main
1:      j       1b

# An illegal-instruction trap at the word under test: note it and go on after the word (its
# ret). Anything else is reported. Only temporaries are used: the word was called.
        .text
        .balign 4
harness_trap_entry:
        csrr    t0, mcause
        li      t1, 2
        bne     t0, t1, 1f
        csrr    t0, mepc
        la      t1, harness_code
        bne     t0, t1, 1f
        addi    t0, t0, 4
        csrw    mepc, t0
        la      t1, harness_trapped
        li      t2, 1
        sd      t2, 0(t1)
        mret
1:      la      sp, harness_stack_top
        call    harness_unexpected_trap

        .bss
        .balign 16
        .space  65536
harness_stack_top:
