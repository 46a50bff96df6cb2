# The vector part of the conformance harness (see harness.c and protocol.py).
#
# Order matters: the whole-register loads come first (they reset vstart to 0), then
# vsetvl sets vtype and vl, then vstart is written, and nothing vector runs until the
# instruction under test. Afterwards the CSRs are read before vstart is cleared for the
# whole-register stores (which would otherwise skip the elements below vstart).

        .option arch, +v
        .text

# Offsets into struct harness_io (harness.c).
        .equ IO_CODE, 0
        .equ IO_VTYPE, 8
        .equ IO_AVL, 16
        .equ IO_VSTART, 24
        .equ IO_REGS_IN, 32
        .equ IO_REGS_OUT, 40
        .equ IO_PRE_VL, 48
        .equ IO_PRE_VTYPE, 56
        .equ IO_PRE_VSTART, 64
        .equ IO_POST_VL, 72
        .equ IO_POST_VTYPE, 80
        .equ IO_POST_VSTART, 88

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
        ld      t6, IO_CODE(s0)
        jalr    ra, t6                  # the word under test, then ret; SIGILL longjmps
        ld      ra, 0(sp)
        ld      s0, 8(sp)
        addi    sp, sp, 16
        ret

# void harness_save(struct harness_io *io): read back the CSRs and all 32 registers.
        .globl harness_save
harness_save:
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
