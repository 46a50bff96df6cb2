# vredmax testgen environment: bare metal, machine mode, HTIF (Spike, or QEMU's spike board:
# qemu-system-riscv64 -machine spike -bios none -kernel tests-htif.elf).
#
# Output through the HTIF console (device 1, command 1), one character at a time, each taken by
# the host before the next; exit by writing (code << 1) | 1 to tohost. Traps and mstatus.VS as
# in virt.S.

        .section .text.init, "ax"
        .globl _start
_start:
        la      sp, tg_stack_top
        la      t0, tg_trap_entry
        csrw    mtvec, t0
        li      t0, 3 << 9
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
        li      t1, 2
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
        andi    a0, a0, 0xff
        li      t0, 0x0101
        slli    t0, t0, 48              # device 1 (console), command 1 (write)
        or      t0, t0, a0
        la      t1, tohost
        sd      t0, 0(t1)
1:      ld      t2, 0(t1)               # the host clears tohost when it takes a command (the
        bnez    t2, 1b                  # riscv-pk/OpenSBI protocol): Spike's console never
        la      t1, fromhost            # answers a write; QEMU's spike board does, in fromhost,
        sd      zero, 0(t1)             # which is taken here
        ret

        .globl tg_exit
tg_exit:
        slli    a0, a0, 1
        ori     a0, a0, 1
        la      t0, tohost
1:      sd      a0, 0(t0)
        j       1b

        .section .tohost, "aw", @progbits
        .balign 64
        .globl tohost, fromhost
        .type tohost, @object
        .size tohost, 8
tohost:   .dword 0
        .balign 64
        .type fromhost, @object
        .size fromhost, 8
fromhost: .dword 0

        .data
        .balign 8
        .globl tg_has_mstatus
tg_has_mstatus: .dword 1
