"""An example of your own vredmax.vs implementation, checked with `vredmax check-impl`.

Two plug-in levels; this file has one function of each:

    vredmax check-impl examples/my_reduction.py:reduce          # a reduction unit
    vredmax check-impl examples/my_reduction.py:compare_select  # the same, written as RTL does
    vredmax check-impl examples/my_reduction.py:step            # a whole instruction

A reduction unit gets the element ops `ops` (spec/bv.py: ops.smax, ops.smin, ops.ite,
ops.const, ops.and_, ...), the seed vs1[0], the VLMAX elements of the vs2 group and their
active flags, and returns vd[0]. The same code runs on Python ints and on symbolic values
with the ints' meaning; `ops` is the cheapest way to combine them, but plain Python (`if`,
`max(..., key=...)`, `sorted`) is proved too (docs/guide/check-impl.md; tests/buggy/emulators.py).

A whole instruction gets the machine ops `m` (spec/bv.py), the pre-state (spec/state.py
ArchState), the instruction fields (vd, vs2, vs1, vm), the configuration (spec/config.py
Config) and the tail policy ("undisturbed" or "ones", how to resolve an agnostic tail), and
returns (traps, post-state) exactly as impl.execute.step does.
"""

from vredmax.impl.execute import operands, written_vd
from vredmax.spec.config import VTYPE_VILL_BIT, VTYPE_VTA_BIT, XLEN
from vredmax.spec.legality import trap_conditions
from vredmax.spec.state import VS_DIRTY


def reduce(ops, seed, elements, active):
    """Two lanes, even and odd elements, each from the signed minimum; then the seed."""
    even, odd = ops.smin(), ops.smin()
    for i, (value, is_active) in enumerate(zip(elements, active)):
        if i % 2 == 0:
            even = ops.ite(is_active, ops.smax(even, value), even)
        else:
            odd = ops.ite(is_active, ops.smax(odd, value), odd)
    return ops.smax(seed, ops.smax(even, odd))


def compare_select(ops, seed, elements, active):
    """One accumulator, a compare and a select per element: `acc = (a && x > acc) ? x : acc`."""
    acc = seed
    for value, is_active in zip(elements, active):
        acc = ops.ite(ops.and_(is_active, ops.sgt(value, acc)), value, acc)
    return acc


def step(m, pre, insn, cfg, tail):
    """The whole instruction around `reduce`: traps, vl=0, the write of vd, vstart and VS."""
    traps = trap_conditions(m, pre, insn, m.bit(pre.vtype, VTYPE_VILL_BIT), cfg.lmul)
    nothing = m.any_(m.eq(pre.vl, 0), *(cond for _, cond in traps))
    seed, elements, active = operands(m, pre, insn, cfg)  # every source read first
    result = reduce(m.elements(cfg.sew), seed, elements, active)
    vd = written_vd(m, m.read(pre.regs, insn.vd), result, m.bit(pre.vtype, VTYPE_VTA_BIT), cfg, tail)
    return traps, pre.with_(
        regs=m.ite(nothing, pre.regs, m.write(pre.regs, insn.vd, vd)),
        vstart=m.ite(nothing, pre.vstart, m.const(0, XLEN)),
        vs=m.ite(nothing, pre.vs, m.const(VS_DIRTY, 2)),
    )
