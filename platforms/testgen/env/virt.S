# vredmax testgen environment: bare metal, machine mode, QEMU's virt board
# (qemu-system-riscv64 -machine virt -bios none -kernel tests-baremetal.elf).
#
# Output on the NS16550A UART at 0x10000000; exit through the SiFive test finisher at
# 0x100000 (0x5555 passes, code << 16 | 0x3333 fails with that exit code). Traps go to
# mtvec: an illegal instruction at the word under test sets tg_trapped and resumes after it.
# mstatus is readable here: the runner sets each case's mstatus.VS and checks it afterwards.

        .equ UART, 0x10000000
        .equ FINISHER, 0x100000

        .section .text.init, "ax"
        .globl _start
_start:
        la      sp, tg_stack_top
        la      t0, tg_trap_entry
        csrw    mtvec, t0
        li      t0, 3 << 9              # mstatus.VS = Dirty: vector instructions allowed
        csrs    mstatus, t0
        call    tg_main

        .text
        .balign 4
tg_trap_entry:
        csrr    a0, mepc
        csrr    a1, mcause
        la      t0, tg_expect_pc
        ld      t0, 0(t0)
        bne     a0, t0, 1f
        li      t1, 2                   # illegal instruction
        bne     a1, t1, 1f
        la      t0, tg_trapped
        li      t1, 1
        sd      t1, 0(t0)
        addi    a0, a0, 4
        csrw    mepc, a0
        mret
1:      j       tg_unexpected_trap

        .globl tg_putc
tg_putc:
        li      t0, UART
1:      lbu     t1, 5(t0)               # line status: transmitter holding register empty
        andi    t1, t1, 0x20
        beqz    t1, 1b
        sb      a0, 0(t0)
        ret

        .globl tg_exit
tg_exit:
        li      t0, FINISHER
        li      t1, 0x5555
        beqz    a0, 1f
        slli    t1, a0, 16
        li      t2, 0x3333
        or      t1, t1, t2
1:      sw      t1, 0(t0)
2:      wfi
        j       2b

        .data
        .balign 8
        .globl tg_has_mstatus
tg_has_mstatus: .dword 1
