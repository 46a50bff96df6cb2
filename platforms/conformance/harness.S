# The vector part of the conformance harness (see harness.h and protocol.py).
#
# Order matters: the whole-register loads come first (they reset vstart to 0), then vsetvl
# sets vtype and vl, then vstart is written, then (in machine mode, HARNESS_MACHINE) mstatus.VS
# is set: writing vstart would make it Dirty, and at Off no vector CSR can be written. Nothing
# vector runs until the instruction under test. Afterwards VS and the CSRs are read before
# vstart is cleared for the whole-register stores (which would otherwise skip the elements
# below vstart). In user mode mstatus.VS cannot be read: its fields hold all ones.

        .option arch, +v
        .text

# Offsets into struct harness_io (harness.h).
        .equ IO_CODE, 0
        .equ IO_VTYPE, 8
        .equ IO_AVL, 16
        .equ IO_VSTART, 24
        .equ IO_VS, 32
        .equ IO_REGS_IN, 40
        .equ IO_REGS_OUT, 48
        .equ IO_PRE_VL, 56
        .equ IO_PRE_VTYPE, 64
        .equ IO_PRE_VSTART, 72
        .equ IO_PRE_VS, 80
        .equ IO_POST_VL, 88
        .equ IO_POST_VTYPE, 96
        .equ IO_POST_VSTART, 104
        .equ IO_POST_VS, 112
        .equ MSTATUS_VS, 3 << 9

        .globl harness_vlenb
harness_vlenb:
        csrr    a0, vlenb
        ret

# void harness_run(struct harness_io *io): set up the case's state and call the code page.
        .globl harness_run
harness_run:
        addi    sp, sp, -16
        sd      ra, 0(sp)
        sd      s0, 8(sp)
        mv      s0, a0
#ifdef HARNESS_MACHINE
        li      t0, MSTATUS_VS          # on (Dirty) for the set-up
        csrs    mstatus, t0
#endif
        ld      t0, IO_REGS_IN(s0)
        csrr    t1, vlenb
        .irp n, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31
        vl1r.v  v\n, (t0)
        add     t0, t0, t1
        .endr
        ld      t2, IO_VTYPE(s0)
        ld      t3, IO_AVL(s0)
        vsetvl  t4, t3, t2              # t3 is a register, never x0: AVL is its value
        csrr    t4, vl
        sd      t4, IO_PRE_VL(s0)
        csrr    t4, vtype
        sd      t4, IO_PRE_VTYPE(s0)
        ld      t5, IO_VSTART(s0)
        csrw    vstart, t5
        csrr    t4, vstart
        sd      t4, IO_PRE_VSTART(s0)
#ifdef HARNESS_MACHINE
        li      t0, MSTATUS_VS
        csrc    mstatus, t0
        ld      t5, IO_VS(s0)
        slli    t5, t5, 9
        and     t5, t5, t0
        csrs    mstatus, t5
        csrr    t4, mstatus
        srli    t4, t4, 9
        andi    t4, t4, 3
#else
        li      t4, -1
#endif
        sd      t4, IO_PRE_VS(s0)
        ld      t6, IO_CODE(s0)
        jalr    ra, t6                  # the word under test, then ret; a trap returns here too
        ld      ra, 0(sp)
        ld      s0, 8(sp)
        addi    sp, sp, 16
        ret

# void harness_save(struct harness_io *io): read back VS, the CSRs and all 32 registers.
        .globl harness_save
harness_save:
#ifdef HARNESS_MACHINE
        csrr    t4, mstatus
        srli    t4, t4, 9
        andi    t4, t4, 3
        li      t0, MSTATUS_VS          # on again, to read the vector state
        csrs    mstatus, t0
#else
        li      t4, -1
#endif
        sd      t4, IO_POST_VS(a0)
        csrr    t4, vl
        sd      t4, IO_POST_VL(a0)
        csrr    t4, vtype
        sd      t4, IO_POST_VTYPE(a0)
        csrr    t4, vstart
        sd      t4, IO_POST_VSTART(a0)
        csrw    vstart, zero
        ld      t0, IO_REGS_OUT(a0)
        csrr    t1, vlenb
        .irp n, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31
        vs1r.v  v\n, (t0)
        add     t0, t0, t1
        .endr
        ret
