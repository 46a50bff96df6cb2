# vredmax testgen: the self-checking runner, shared by every environment.
#
# It walks the case table of cases.S (written by platforms/testgen/asm.py). For each case it
# builds the pre-state image of the 32 registers, loads them, reaches vtype and vl with
# vsetvl, writes vstart (and, where the environment can, mstatus.VS), runs the case's own
# stub (the instruction word under test, then ret), reads the CSRs and stores the registers,
# and checks them against the allowed outcomes: trap or retire, vl, vtype, vstart, VS, and
# every register (vd's agnostic tail elements: each its old value or all ones).
# The first failing case is reported on the output and in the exit code.
#
# An environment (linux.S, virt.S, htif.S) provides _start (which calls tg_main), tg_putc
# (a0 = byte), tg_exit (a0 = code, never returns), tg_has_mstatus (a dword, 1 when mstatus
# is readable: machine mode) and a trap handler that, when the trapping pc equals
# tg_expect_pc and the trap is an illegal instruction, sets tg_trapped and resumes at pc+4,
# and otherwise calls tg_unexpected_trap(pc, cause).

# Case record (asm.py writes it; 17 dwords).
        .equ C_NUMBER, 0
        .equ C_NAME, 8
        .equ C_STUB, 16
        .equ C_VTYPE, 24
        .equ C_AVL, 32
        .equ C_VSTART, 40
        .equ C_VS, 48
        .equ C_FLAGS, 56
        .equ C_PRE_VL, 64
        .equ C_PRE_VTYPE, 72
        .equ C_VD, 80
        .equ C_SEWB, 88
        .equ C_VS_RETIRE, 96
        .equ C_VS_TRAP, 104
        .equ C_NPRE, 112
        .equ C_PRE, 120
        .equ C_EXP, 128
        .equ C_SIZE, 136

        .equ F_RETIRE, 1        # retiring is allowed
        .equ F_TRAP, 2          # an illegal-instruction trap is allowed
        .equ F_SKIP, 4          # the profile allows anything: nothing to check
        .equ F_VSOFF, 8         # needs mstatus.VS = Off: only where mstatus is writable
        .equ F_OPTIONAL, 16     # vill only without an optional SEW/LMUL: skip if vsetvl took it
        .equ F_TAILFREE, 32     # each tail element of vd: old value or all ones

        .equ FIELD_OUTCOME, 1
        .equ FIELD_VL, 2
        .equ FIELD_VTYPE, 3
        .equ FIELD_VSTART, 4
        .equ FIELD_VS, 5
        .equ FIELD_SETUP, 6
        .equ FIELD_TRAP, 7
        .equ FIELD_VLENB, 8
        .equ FIELD_VREG, 10     # + register number

        .equ MSTATUS_VS, 3 << 9

        .text
        .globl tg_main
tg_main:
        csrr    s5, vlenb
        la      t0, tg_vlenb
        ld      t0, 0(t0)
        beq     s5, t0, 1f
        la      a0, msg_vlenb
        call    tg_puts
        la      t0, tg_vlenb
        ld      a0, 0(t0)
        slli    a0, a0, 3
        call    tg_putu
        la      a0, msg_got
        call    tg_puts
        slli    a0, s5, 3
        call    tg_putu
        li      a0, 10
        call    tg_putc
        li      a0, FIELD_VLENB
        call    tg_exit
1:      la      s0, tg_cases
        la      t0, tg_ncases
        ld      s1, 0(t0)
        la      s2, tg_pre
        la      s3, tg_post
        la      s4, tg_exp
        li      s6, 0                   # passed
        li      s7, 0                   # skipped
        la      t0, tg_has_mstatus
        ld      s9, 0(t0)
        la      t0, tg_current
        sd      zero, 0(t0)

.Lnext:
        beqz    s1, .Ldone
        la      t0, tg_current
        sd      s0, 0(t0)
        ld      t0, C_FLAGS(s0)
        andi    t1, t0, F_SKIP
        bnez    t1, .Lskip
        andi    t1, t0, F_VSOFF
        beqz    t1, 1f
        beqz    s9, .Lskip
1:      # The pre-state image: zero, then each listed register from its descriptor.
        mv      a0, s2
        slli    a1, s5, 5
        call    tg_zero
        ld      s10, C_NPRE(s0)
        ld      s11, C_PRE(s0)
2:      beqz    s10, 3f
        ld      t0, 0(s11)
        mul     a0, t0, s5
        add     a0, a0, s2
        ld      a1, 8(s11)
        mv      a2, s5
        call    tg_apply
        addi    s11, s11, 16
        addi    s10, s10, -1
        j       2b
3:      # The expected image after retiring: the pre-state with vd from its descriptor.
        mv      a0, s4
        mv      a1, s2
        slli    a2, s5, 5
        call    tg_copy
        ld      a1, C_EXP(s0)
        beqz    a1, 4f
        ld      t0, C_VD(s0)
        mul     a0, t0, s5
        add     a0, a0, s4
        mv      a2, s5
        call    tg_apply
4:      beqz    s9, 5f
        li      t0, MSTATUS_VS
        csrs    mstatus, t0             # Dirty: vector instructions allowed
5:      mv      t0, s2
        .irp n, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31
        vl1r.v  v\n, (t0)
        add     t0, t0, s5
        .endr
        ld      t1, C_AVL(s0)
        ld      t2, C_VTYPE(s0)
        vsetvl  t3, t1, t2              # t1 is a register, never x0: AVL is its value
        csrr    t3, vl
        ld      t4, C_PRE_VL(s0)
        bne     t3, t4, .Lsetup
        csrr    t3, vtype
        ld      t4, C_PRE_VTYPE(s0)
        bne     t3, t4, .Lsetup
        ld      t1, C_VSTART(s0)
        csrw    vstart, t1
        csrr    t3, vstart
        li      a0, FIELD_SETUP
        bne     t3, t1, .Lfail
        beqz    s9, 6f
        li      t0, MSTATUS_VS
        csrc    mstatus, t0
        ld      t1, C_VS(s0)
        slli    t1, t1, 9
        csrs    mstatus, t1             # the case's VS (Off too): no vector work until restored
6:      la      t0, tg_trapped
        sd      zero, 0(t0)
        ld      t1, C_STUB(s0)
        la      t0, tg_expect_pc
        sd      t1, 0(t0)
        jalr    ra, 0(t1)               # the word under test, then ret
        la      t0, tg_expect_pc
        sd      zero, 0(t0)
        li      s8, 0
        beqz    s9, 7f
        csrr    t1, mstatus
        srli    t1, t1, 9
        andi    s8, t1, 3               # VS after the instruction
        li      t0, MSTATUS_VS
        csrs    mstatus, t0
7:      la      t0, tg_obs
        csrr    t1, vl
        sd      t1, 0(t0)
        csrr    t1, vtype
        sd      t1, 8(t0)
        csrr    t1, vstart
        sd      t1, 16(t0)
        csrw    vstart, zero            # whole-register stores start at vstart
        mv      t0, s3
        .irp n, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31
        vs1r.v  v\n, (t0)
        add     t0, t0, s5
        .endr

        # Checks, in the order of the field codes.
        la      t0, tg_trapped
        ld      s10, 0(t0)              # 1 when the word trapped
        ld      t0, C_FLAGS(s0)
        li      a0, FIELD_OUTCOME
        beqz    s10, 1f
        andi    t1, t0, F_TRAP
        beqz    t1, .Lfail
        j       2f
1:      andi    t1, t0, F_RETIRE
        beqz    t1, .Lfail
2:      la      t0, tg_obs
        li      a0, FIELD_VL
        ld      t1, 0(t0)
        ld      t2, C_PRE_VL(s0)
        bne     t1, t2, .Lfail
        li      a0, FIELD_VTYPE
        ld      t1, 8(t0)
        ld      t2, C_PRE_VTYPE(s0)
        bne     t1, t2, .Lfail
        li      a0, FIELD_VSTART
        ld      t1, 16(t0)
        li      t2, 0
        beqz    s10, 3f
        ld      t2, C_VSTART(s0)        # a trap keeps vstart
3:      bne     t1, t2, .Lfail
        beqz    s9, 4f
        li      a0, FIELD_VS
        ld      t1, C_VS_RETIRE(s0)
        beqz    s10, 5f
        ld      t1, C_VS_TRAP(s0)
5:      srl     t1, t1, s8
        andi    t1, t1, 1
        beqz    t1, .Lfail
4:      li      s11, 0                  # register number
.Lreg:
        mul     t0, s11, s5
        add     a0, s3, t0              # observed
        add     a2, s2, t0              # before
        add     a1, s4, t0              # expected after retiring
        bnez    s10, 8f
        ld      t1, C_FLAGS(s0)
        andi    t1, t1, F_TAILFREE
        beqz    t1, 9f
        ld      t1, C_VD(s0)
        bne     t1, s11, 9f
        ld      a3, C_SEWB(s0)
        mv      a4, s5
        call    tg_check_tail
        j       .Lregdone
8:      mv      a1, a2                  # a trap changes nothing
9:      mv      a2, s5
        call    tg_compare
.Lregdone:
        addi    t0, s11, FIELD_VREG
        addi    a0, a0, -1              # 1 + the byte offset of a difference, or 0
        la      t1, tg_diff
        sd      a0, 0(t1)
        bgez    a0, .Lregfail
        addi    s11, s11, 1
        li      t0, 32
        bltu    s11, t0, .Lreg
        addi    s6, s6, 1
        j       .Lafter

.Lregfail:
        mv      a0, t0
        j       .Lfail

.Lsetup:
        ld      t0, C_FLAGS(s0)
        andi    t0, t0, F_OPTIONAL
        li      a0, FIELD_SETUP
        beqz    t0, .Lfail
.Lskip:
        addi    s7, s7, 1
.Lafter:
        addi    s0, s0, C_SIZE
        addi    s1, s1, -1
        j       .Lnext

.Ldone:
        la      a0, msg_pass
        call    tg_puts
        mv      a0, s6
        call    tg_putu
        la      a0, msg_passed
        call    tg_puts
        mv      a0, s7
        call    tg_putu
        la      a0, msg_skipped
        call    tg_puts
        li      a0, 0
        call    tg_exit

# a0 = field code: report the current case and exit with the code.
.Lfail:
        mv      s10, a0
        la      a0, msg_fail
        call    tg_puts
        ld      a0, C_NUMBER(s0)
        call    tg_putu
        la      a0, msg_open
        call    tg_puts
        ld      a0, C_NAME(s0)
        call    tg_puts
        la      a0, msg_field
        call    tg_puts
        mv      a0, s10
        call    tg_put_field
        la      t0, tg_obs              # the CSRs: what was observed, what was allowed
        li      t1, FIELD_VL
        bne     s10, t1, 1f
        ld      a0, 0(t0)
        ld      a1, C_PRE_VL(s0)
        j       3f
1:      li      t1, FIELD_VTYPE
        bne     s10, t1, 2f
        ld      a0, 8(t0)
        ld      a1, C_PRE_VTYPE(s0)
        j       3f
2:      li      t1, FIELD_VSTART
        bne     s10, t1, 4f
        ld      a0, 16(t0)
        li      a1, 0
        la      t1, tg_trapped
        ld      t1, 0(t1)
        beqz    t1, 3f
        ld      a1, C_VSTART(s0)
3:      call    tg_put_pair
        j       5f
4:      li      t1, FIELD_VS
        bne     s10, t1, 7f
        mv      a0, s8                  # observed VS; allowed as a mask over 0..3
        ld      a1, C_VS_RETIRE(s0)
        la      t1, tg_trapped
        ld      t1, 0(t1)
        beqz    t1, 6f
        ld      a1, C_VS_TRAP(s0)
6:      call    tg_put_vs
        j       5f
7:      li      t1, FIELD_VREG
        bltu    s10, t1, 5f
        call    tg_put_reg_detail
5:      li      a0, 10
        call    tg_putc
        la      t0, tg_failed_case
        ld      t1, C_NUMBER(s0)
        sd      t1, 0(t0)
        mv      a0, s10
        call    tg_exit

# tg_unexpected_trap(a0 = pc, a1 = cause): a trap anywhere but the word under test.
        .globl tg_unexpected_trap
tg_unexpected_trap:
        la      sp, tg_fault_stack_top
        mv      s10, a0
        mv      s11, a1
        la      a0, msg_fail
        call    tg_puts
        la      t0, tg_current
        ld      t0, 0(t0)
        li      a0, 0
        beqz    t0, 1f
        ld      a0, C_NUMBER(t0)
1:      call    tg_putu
        la      a0, msg_trap
        call    tg_puts
        mv      a0, s11
        call    tg_putu
        la      a0, msg_at
        call    tg_puts
        mv      a0, s10
        call    tg_puthex
        li      a0, 10
        call    tg_putc
        li      a0, FIELD_TRAP
        call    tg_exit

# Leaf helpers: they clobber a0-a7 and t0-t2 only.

# tg_zero(a0 = dst, a1 = bytes, a multiple of 4)
tg_zero:
        beqz    a1, 1f
        sw      zero, 0(a0)
        addi    a0, a0, 4
        addi    a1, a1, -4
        j       tg_zero
1:      ret

# tg_copy(a0 = dst, a1 = src, a2 = bytes, a multiple of 4)
tg_copy:
        beqz    a2, 1f
        lw      t0, 0(a1)
        sw      t0, 0(a0)
        addi    a0, a0, 4
        addi    a1, a1, 4
        addi    a2, a2, -4
        j       tg_copy
1:      ret

# tg_apply(a0 = register image, a1 = descriptor, a2 = vlenb): the descriptor's fill pair, then
# its runs. A descriptor is 32-bit words: fill (even words), fill (odd words), nruns, then per
# run: word offset, count, and count words; or word offset, count | 1 << 31, and a pair of
# words repeated by parity (word j gets the even one when j is even). Pairs keep 64-bit
# elements compact.
tg_apply:
        lw      t0, 0(a1)
        lw      a4, 4(a1)
        mv      t1, a0
        mv      t2, a2
1:      beqz    t2, 2f
        sw      t0, 0(t1)
        addi    t2, t2, -4
        beqz    t2, 2f
        sw      a4, 4(t1)
        addi    t1, t1, 8
        addi    t2, t2, -4
        j       1b
2:      lwu     a3, 8(a1)               # runs
        addi    a1, a1, 12
3:      beqz    a3, 5f
        lwu     t0, 0(a1)               # word offset
        lwu     t2, 4(a1)               # words; bit 31 set: a repeated pair
        addi    a1, a1, 8
        andi    a6, t0, 1               # parity of the word offset
        slli    t0, t0, 2
        add     t1, a0, t0
        srli    t0, t2, 31
        bnez    t0, 7f
4:      beqz    t2, 6f
        lw      t0, 0(a1)
        sw      t0, 0(t1)
        addi    a1, a1, 4
        addi    t1, t1, 4
        addi    t2, t2, -1
        j       4b
6:      addi    a3, a3, -1
        j       3b
7:      slli    t2, t2, 33
        srli    t2, t2, 33
        lw      a5, 0(a1)               # even words
        lw      a4, 4(a1)               # odd words
        addi    a1, a1, 8
8:      beqz    t2, 6b
        mv      t0, a5
        beqz    a6, 9f
        mv      t0, a4
9:      sw      t0, 0(t1)
        xori    a6, a6, 1
        addi    t1, t1, 4
        addi    t2, t2, -1
        j       8b
5:      ret

# tg_compare(a0 = observed, a1 = expected, a2 = bytes) -> a0 = 0 when equal, else 1 + the
# byte offset of the first differing 32-bit word
tg_compare:
        mv      a3, a0
3:      beqz    a2, 2f
        lw      t0, 0(a0)
        lw      t1, 0(a1)
        bne     t0, t1, 1f
        addi    a0, a0, 4
        addi    a1, a1, 4
        addi    a2, a2, -4
        j       3b
1:      sub     a0, a0, a3
        addi    a0, a0, 1
        ret
2:      li      a0, 0
        ret

# tg_check_tail(a0 = observed vd, a1 = expected vd, a2 = vd before, a3 = SEW/8, a4 = vlenb)
# -> a0 = 0 when element 0 is as expected and every other element is its old value or all ones;
# else 1 + the offset of a byte of the first bad element.
tg_check_tail:
        mv      t1, a0
        add     a4, a0, a4              # end of the register
        mv      a5, a3
1:      lbu     a6, 0(a0)
        lbu     a7, 0(a1)
        bne     a6, a7, .Ltail_bad0
        addi    a0, a0, 1
        addi    a1, a1, 1
        addi    a2, a2, 1
        addi    a5, a5, -1
        bnez    a5, 1b
2:      bgeu    a0, a4, .Ltail_good
        li      a1, 1                   # the element still equals its old value
        li      a7, 1                   # the element is still all ones
        mv      a5, a3
3:      lbu     a6, 0(a0)
        lbu     t0, 0(a2)
        beq     a6, t0, 4f
        li      a1, 0
4:      li      t0, 0xff
        beq     a6, t0, 5f
        li      a7, 0
5:      addi    a0, a0, 1
        addi    a2, a2, 1
        addi    a5, a5, -1
        bnez    a5, 3b
        or      a1, a1, a7
        beqz    a1, .Ltail_bad
        j       2b
.Ltail_good:
        li      a0, 0
        ret
.Ltail_bad0:
        addi    a0, a0, 1               # a0 - 1: the differing byte
.Ltail_bad:                             # a0 - 1: the bad element's last byte
        sub     a0, a0, t1
        ret

# Output (these call tg_putc, so they keep their state in saved registers on the stack).

# tg_puts(a0 = NUL-terminated string)
tg_puts:
        addi    sp, sp, -16
        sd      ra, 0(sp)
        sd      s0, 8(sp)
        mv      s0, a0
1:      lbu     a0, 0(s0)
        beqz    a0, 2f
        call    tg_putc
        addi    s0, s0, 1
        j       1b
2:      ld      ra, 0(sp)
        ld      s0, 8(sp)
        addi    sp, sp, 16
        ret

# tg_putu(a0 = unsigned): in decimal
tg_putu:
        addi    sp, sp, -48
        sd      ra, 0(sp)
        sd      s0, 8(sp)
        addi    s0, sp, 47
        sb      zero, 0(s0)
        li      t1, 10
1:      remu    t0, a0, t1
        divu    a0, a0, t1
        addi    t0, t0, '0'
        addi    s0, s0, -1
        sb      t0, 0(s0)
        bnez    a0, 1b
        mv      a0, s0
        call    tg_puts
        ld      ra, 0(sp)
        ld      s0, 8(sp)
        addi    sp, sp, 48
        ret

# tg_puthex(a0): 0x and 16 hex digits
tg_puthex:
        li      t1, 15                  # digits - 1
        j       .Lputhex
# tg_puthex32(a0): the low 32 bits as 0x and 8 hex digits
tg_puthex32:
        slli    a0, a0, 32
        li      t1, 7
.Lputhex:
        addi    sp, sp, -48
        sd      ra, 0(sp)
        sd      s0, 8(sp)
        addi    s0, sp, 16
        li      t0, '0'
        sb      t0, 0(s0)
        li      t0, 'x'
        sb      t0, 1(s0)
1:      srli    t0, a0, 60
        slli    a0, a0, 4
        li      t2, 10
        bltu    t0, t2, 2f
        addi    t0, t0, 'a' - '0' - 10
2:      addi    t0, t0, '0'
        sb      t0, 2(s0)
        addi    s0, s0, 1
        addi    t1, t1, -1
        bgez    t1, 1b
        sb      zero, 2(s0)
        addi    a0, sp, 16
        call    tg_puts
        ld      ra, 0(sp)
        ld      s0, 8(sp)
        addi    sp, sp, 48
        ret

# tg_put_pair(a0 = observed, a1 = allowed): ": observed 0x..., allowed 0x..."
tg_put_pair:
        addi    sp, sp, -32
        sd      ra, 0(sp)
        sd      a0, 8(sp)
        sd      a1, 16(sp)
        la      a0, msg_observed
        call    tg_puts
        ld      a0, 8(sp)
        call    tg_puthex
        la      a0, msg_allowed
        call    tg_puts
        ld      a0, 16(sp)
        call    tg_puthex
        ld      ra, 0(sp)
        addi    sp, sp, 32
        ret

# tg_put_reg_detail: for a failing register (field s10), the 32-bit word at the first
# difference (tg_diff): observed, expected (after retiring: agnostic tail elements may also be
# all ones) and before. Uses the runner's saved registers; s8 and s11 are free here.
tg_put_reg_detail:
        addi    sp, sp, -16
        sd      ra, 0(sp)
        addi    t0, s10, -FIELD_VREG
        mul     t0, t0, s5
        la      t1, tg_diff
        ld      s8, 0(t1)
        andi    s8, s8, -4
        add     s11, t0, s8
        la      a0, msg_word
        call    tg_puts
        mv      a0, s8
        call    tg_putu
        la      a0, msg_observed
        call    tg_puts
        add     t0, s3, s11
        lwu     a0, 0(t0)
        call    tg_puthex32
        la      a0, msg_expected
        call    tg_puts
        la      t0, tg_trapped
        ld      t0, 0(t0)
        mv      t1, s4
        beqz    t0, 1f
        mv      t1, s2
1:      add     t0, t1, s11
        lwu     a0, 0(t0)
        call    tg_puthex32
        la      a0, msg_before
        call    tg_puts
        add     t0, s2, s11
        lwu     a0, 0(t0)
        call    tg_puthex32
        ld      ra, 0(sp)
        addi    sp, sp, 16
        ret

# tg_put_vs(a0 = observed mstatus.VS, a1 = allowed values as a bit mask)
tg_put_vs:
        addi    sp, sp, -32
        sd      ra, 0(sp)
        sd      a0, 8(sp)
        sd      a1, 16(sp)
        la      a0, msg_observed
        call    tg_puts
        ld      a0, 8(sp)
        call    tg_put_vs_name
        la      a0, msg_allowed
        call    tg_puts
        sd      zero, 24(sp)            # the VS value being listed
1:      ld      t0, 24(sp)
        li      t1, 4
        bgeu    t0, t1, 3f
        ld      t1, 16(sp)
        srl     t1, t1, t0
        andi    t1, t1, 1
        beqz    t1, 2f
        mv      a0, t0
        call    tg_put_vs_name
        li      a0, ' '
        call    tg_putc
2:      ld      t0, 24(sp)
        addi    t0, t0, 1
        sd      t0, 24(sp)
        j       1b
3:      ld      ra, 0(sp)
        addi    sp, sp, 32
        ret

tg_put_vs_name:
        la      t0, vs_names
        slli    a0, a0, 3
        add     t0, t0, a0
        ld      a0, 0(t0)
        j       tg_puts

# tg_put_field(a0 = field code): its name ("v12" for a register)
tg_put_field:
        addi    sp, sp, -16
        sd      ra, 0(sp)
        li      t0, FIELD_VREG
        bltu    a0, t0, 1f
        sd      a0, 8(sp)
        li      a0, 'v'
        call    tg_putc
        ld      a0, 8(sp)
        addi    a0, a0, -FIELD_VREG
        call    tg_putu
        j       2f
1:      la      t0, field_names
        slli    a0, a0, 3
        add     t0, t0, a0
        ld      a0, 0(t0)
        call    tg_puts
2:      ld      ra, 0(sp)
        addi    sp, sp, 16
        ret

        .section .rodata
        .balign 8
field_names:
        .dword  f_none, f_outcome, f_vl, f_vtype, f_vstart, f_vs, f_setup, f_trap, f_vlenb
vs_names:
        .dword  vs_off, vs_initial, vs_clean, vs_dirty
vs_off:     .asciz "off"
vs_initial: .asciz "initial"
vs_clean:   .asciz "clean"
vs_dirty:   .asciz "dirty"
msg_observed: .asciz ": observed "
msg_allowed: .asciz ", allowed "
msg_word:   .asciz ": 32-bit word at byte "
msg_expected: .asciz ", expected "
msg_before: .asciz ", before "
f_none:     .asciz "none"
f_outcome:  .asciz "outcome"
f_vl:       .asciz "vl"
f_vtype:    .asciz "vtype"
f_vstart:   .asciz "vstart"
f_vs:       .asciz "vs"
f_setup:    .asciz "setup"
f_trap:     .asciz "trap"
f_vlenb:    .asciz "vlenb"
msg_vlenb:  .asciz "vredmax-testgen: FAIL case 0 (machine) field vlenb: built for VLEN="
msg_got:    .asciz ", running on VLEN="
msg_pass:   .asciz "vredmax-testgen: PASS "
msg_passed: .asciz " cases passed, "
msg_skipped: .asciz " skipped\n"
msg_fail:   .asciz "vredmax-testgen: FAIL case "
msg_open:   .asciz " ("
msg_field:  .asciz ") field "
msg_trap:   .asciz " (unexpected trap) field trap: cause "
msg_at:     .asciz " at pc "

        .data
        .balign 8
        .globl tg_trapped, tg_expect_pc, tg_failed_case
tg_trapped:     .dword 0
tg_expect_pc:   .dword 0
tg_failed_case: .dword 0        # for a debugger: the number of the first failing case
tg_current:     .dword 0
tg_diff:        .dword 0        # byte offset of the first difference in a failing register
tg_obs:         .dword 0, 0, 0

        .bss
        .balign 16
tg_fault_stack: .skip 1024
tg_fault_stack_top:
