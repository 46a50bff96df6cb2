"""Correct whole instructions in shapes an emulator author writes, each with a wrong twin.

Each is `step(m, pre, insn, cfg, tail) -> (traps, post)` against the machine ops `m`, with vd
rebuilt element by element with the element ops (the tail elements chosen by `ops.ite` or made
all ones by `ops.bor`): the cut-point method sees more than one element-ops value come back to
the machine ops, only one of them the reduction. The shapes:

- `step_writes_vd_when_reserved`: vd written for a reserved encoding too (the spec allows it);
- `step_whole_registers`: every register read whole, at fractional LMUL too, the elements past
  VLMAX dropped afterwards;
- `step_tail_half_ones`: an agnostic tail filled partly with ones and partly left undisturbed;
- `step_gated_on_vl`: vd written unless vl = 0 or an illegal instruction traps, relying on
  vill implying vl = 0.

Each must be PROVED by cut points at VLEN=128 SEW=64 LMUL=m8 in seconds
(tests/test_check_impl_step_shapes.py); each `*_wrong` twin must be a COUNTEREXAMPLE.
"""

from vredmax.spec.config import VTYPE_VILL_BIT, VTYPE_VTA_BIT, XLEN, Config
from vredmax.spec.legality import ILLEGAL, trap_conditions
from vredmax.spec.state import VS_DIRTY
from tests.buggy.emulators_more import case

WIDE_ELEMENTS = Config(128, 64, 64, "m8")  # VLMAX 16, two elements per register: one in vd's tail
FRACTIONAL = Config(256, 64, 8, "mf2")  # VLMAX 16, half of vs2 read and dropped


def _group(m, pre, insn, cfg, whole=False):
    """The vs2 group's elements: per register the ones in VLMAX (or, `whole`, all of them)."""
    per = cfg.vlen // cfg.sew
    elements = []
    for k in range(max(1, cfg.group_registers)):
        register = m.read(pre.regs, m.add(insn.vs2, k, 5))
        elements += m.split(register, cfg.sew, per if whole else min(per, cfg.vlmax - len(elements)))
    return elements[: cfg.vlmax]


def _active(m, pre, insn, cfg):
    mask = m.bits(m.read(pre.regs, 0), cfg.vlmax)
    return [
        m.all_(m.ult(m.const(i, XLEN), pre.vl), m.any_(m.eq(insn.vm, 1), mask[i])) for i in range(cfg.vlmax)
    ]


def _reduce(ops, seed, elements, active, signed=True):
    acc = seed
    for x, a in zip(elements, active):
        bigger = ops.sgt(x, acc) if signed else ops.ugt(x, acc)
        acc = ops.ite(ops.and_(a, bigger), x, acc)
    return acc


def _new_vd(m, ops, pre, insn, cfg, tail, result, ones_from=1):
    """vd's elements: element 0 the result, tail elements from `ones_from` on all ones when
    the tail is agnostic and the policy fills it, the others as they were."""
    per = cfg.vlen // cfg.sew
    old = m.split(m.read(pre.regs, insn.vd), cfg.sew, per)
    fill = m.all_(m.eq(m.const(1 if tail == "ones" else 0, 1), 1), m.bit(pre.vtype, VTYPE_VTA_BIT))
    ones = ops.const((1 << cfg.sew) - 1)
    new = [ops.ite(fill, ones, x) if i >= ones_from else x for i, x in enumerate([result] + old[1:])]
    vd = new[-1]
    for x in reversed(new[:-1]):
        vd = m.concat(vd, x, cfg.sew)
    return vd


def _commit(m, pre, insn, traps, skip, vd):
    written = m.write(pre.regs, insn.vd, vd)
    return traps, pre.with_(
        regs=m.ite(skip, pre.regs, written),
        vstart=m.ite(skip, pre.vstart, m.const(0, XLEN)),
        vs=m.ite(skip, pre.vs, m.const(VS_DIRTY, 2)),
    )


def _traps(m, pre, insn, cfg):
    return trap_conditions(m, pre, insn, m.bit(pre.vtype, VTYPE_VILL_BIT), cfg.lmul)


def _seed(m, pre, insn, cfg):
    return m.extract(m.read(pre.regs, insn.vs1), cfg.sew - 1, 0)


def _reserved_too(m, pre, insn, cfg, tail, signed):
    traps = _traps(m, pre, insn, cfg)
    illegal = m.any_(*(cond for rule, cond in traps if rule.outcome == ILLEGAL))
    ops = m.elements(cfg.sew)
    result = _reduce(
        ops, _seed(m, pre, insn, cfg), _group(m, pre, insn, cfg), _active(m, pre, insn, cfg), signed
    )
    return _commit(
        m, pre, insn, traps, m.any_(illegal, m.eq(pre.vl, 0)), _new_vd(m, ops, pre, insn, cfg, tail, result)
    )


@case("proved", WIDE_ELEMENTS)
def step_writes_vd_when_reserved(m, pre, insn, cfg, tail):
    """Writes vd for a reserved encoding as well (only an illegal instruction or vl = 0 keeps
    the registers): the architecture allows anything there."""
    return _reserved_too(m, pre, insn, cfg, tail, signed=True)


@case("counterexample", WIDE_ELEMENTS)
def step_writes_vd_when_reserved_wrong(m, pre, insn, cfg, tail):
    """The same with an unsigned compare."""
    return _reserved_too(m, pre, insn, cfg, tail, signed=False)


def _whole(m, pre, insn, cfg, tail, last):
    traps = _traps(m, pre, insn, cfg)
    skip = m.any_(m.eq(pre.vl, 0), *(cond for _, cond in traps))
    ops = m.elements(cfg.sew)
    elements = _group(m, pre, insn, cfg, whole=True)
    active = _active(m, pre, insn, cfg)
    if last:
        active = active[:-1] + [m.false]
    result = _reduce(ops, _seed(m, pre, insn, cfg), elements, active)
    return _commit(m, pre, insn, traps, skip, _new_vd(m, ops, pre, insn, cfg, tail, result))


@case("proved", WIDE_ELEMENTS, FRACTIONAL)
def step_whole_registers(m, pre, insn, cfg, tail):
    """Reads each register of the group whole (at fractional LMUL too: all VLEN/SEW elements of
    vs2) and drops the elements past VLMAX afterwards."""
    return _whole(m, pre, insn, cfg, tail, last=False)


@case("counterexample", WIDE_ELEMENTS)
def step_whole_registers_wrong(m, pre, insn, cfg, tail):
    """The same with the last element never active."""
    return _whole(m, pre, insn, cfg, tail, last=True)


def _half_ones(m, pre, insn, cfg, tail, from_start):
    traps = _traps(m, pre, insn, cfg)
    skip = m.any_(m.eq(pre.vl, 0), *(cond for _, cond in traps))
    ops = m.elements(cfg.sew)
    result = _reduce(ops, _seed(m, pre, insn, cfg), _group(m, pre, insn, cfg), _active(m, pre, insn, cfg))
    per = cfg.vlen // cfg.sew
    return _commit(
        m,
        pre,
        insn,
        traps,
        skip,
        _new_vd(m, ops, pre, insn, cfg, tail, result, ones_from=0 if from_start else max(1, per // 2)),
    )


@case("proved", WIDE_ELEMENTS)
def step_tail_half_ones(m, pre, insn, cfg, tail):
    """An agnostic tail: its upper half all ones, its lower half left as it was (the
    architecture allows any mix)."""
    return _half_ones(m, pre, insn, cfg, tail, from_start=False)


@case("counterexample", WIDE_ELEMENTS)
def step_tail_half_ones_wrong(m, pre, insn, cfg, tail):
    """Ones from element 0 on: the result overwritten when the tail is agnostic."""
    return _half_ones(m, pre, insn, cfg, tail, from_start=True)


def _gated(m, pre, insn, cfg, tail, vl_bits):
    traps = _traps(m, pre, insn, cfg)
    illegal = m.any_(*(cond for rule, cond in traps if rule.outcome == ILLEGAL and rule.id != "vill"))
    reserved = m.any_(*(cond for rule, cond in traps if rule.outcome != ILLEGAL))
    vl = m.low_bits(pre.vl, vl_bits) if vl_bits else pre.vl
    ops = m.elements(cfg.sew)
    result = _reduce(ops, _seed(m, pre, insn, cfg), _group(m, pre, insn, cfg), _active(m, pre, insn, cfg))
    # vill needs no test of its own: vill implies vl = 0
    return _commit(
        m,
        pre,
        insn,
        traps,
        m.any_(m.eq(vl, 0), illegal, reserved),
        _new_vd(m, ops, pre, insn, cfg, tail, result),
    )


@case("proved", WIDE_ELEMENTS)
def step_gated_on_vl(m, pre, insn, cfg, tail):
    """vd written unless vl = 0 or a trap other than vill fires: vill implies vl = 0."""
    return _gated(m, pre, insn, cfg, tail, vl_bits=None)


@case("counterexample", WIDE_ELEMENTS)
def step_gated_on_vl_wrong(m, pre, insn, cfg, tail):
    """The same with vl read in 4 bits: vl = 16 taken for 0."""
    return _gated(m, pre, insn, cfg, tail, vl_bits=4)


# The same shapes in plain Python (an emulator's ints and ifs) ---------------------------------


def _signed(x, w):
    return x - (1 << w) if x >> (w - 1) & 1 else x


def _emulated(m, pre, insn, cfg, tail, *, reserved_writes=False, half=False, gate_vl=False, signed=True):
    traps = trap_conditions(m, pre, insn, m.bit(pre.vtype, VTYPE_VILL_BIT), cfg.lmul)
    if reserved_writes:
        stop = any(c for rule, c in traps if rule.outcome == ILLEGAL)
    elif gate_vl:  # vill implies vl = 0
        stop = any(c for rule, c in traps if rule.id != "vill")
    else:
        stop = any(c for _, c in traps)
    if stop or pre.vl == 0:
        return traps, pre
    sew, per = cfg.sew, cfg.vlen // cfg.sew
    mask = (1 << sew) - 1
    regs = list(pre.regs)
    elements = []
    for k in range(max(1, cfg.group_registers)):  # whole registers, at fractional LMUL too
        register = regs[(insn.vs2 + k) % 32]
        elements += [(register >> (sew * j)) & mask for j in range(per)]
    value = (lambda x: _signed(x, sew)) if signed else (lambda x: x)
    acc = value(regs[insn.vs1] & mask)
    for i in range(cfg.vlmax):
        if i < pre.vl and (insn.vm or (regs[0] >> i) & 1):
            x = value(elements[i])
            if x > acc:
                acc = x
    old = regs[insn.vd]
    out = [acc & mask] + [(old >> (sew * j)) & mask for j in range(1, per)]
    if tail == "ones" and (pre.vtype >> VTYPE_VTA_BIT) & 1:
        for j in range(max(1, per // 2) if half else 1, per):
            out[j] = mask
    vd = 0
    for j, e in enumerate(out):
        vd |= e << (sew * j)
    regs[insn.vd] = vd
    return traps, pre.with_(regs=tuple(regs), vstart=0, vs=VS_DIRTY)


@case("proved", WIDE_ELEMENTS)
def emulated_writes_vd_when_reserved(m, pre, insn, cfg, tail):
    """Plain Python: vd written for a reserved encoding too, every register read whole."""
    return _emulated(m, pre, insn, cfg, tail, reserved_writes=True)


@case("proved", WIDE_ELEMENTS)
def emulated_tail_half_ones(m, pre, insn, cfg, tail):
    """Plain Python: the agnostic tail's upper half all ones, its lower half undisturbed."""
    return _emulated(m, pre, insn, cfg, tail, half=True)


@case("proved", WIDE_ELEMENTS)
def emulated_gated_on_vl(m, pre, insn, cfg, tail):
    """Plain Python: no test of vill of its own, vill implies vl = 0."""
    return _emulated(m, pre, insn, cfg, tail, gate_vl=True)


@case("counterexample", WIDE_ELEMENTS)
def emulated_gated_on_vl_unsigned(m, pre, insn, cfg, tail):
    """The same comparing the raw (unsigned) element values."""
    return _emulated(m, pre, insn, cfg, tail, gate_vl=True, signed=False)


UNITS = ()
STEPS = (
    step_writes_vd_when_reserved,
    step_whole_registers,
    step_tail_half_ones,
    step_gated_on_vl,
    step_writes_vd_when_reserved_wrong,
    step_whole_registers_wrong,
    step_tail_half_ones_wrong,
    step_gated_on_vl_wrong,
    emulated_writes_vd_when_reserved,
    emulated_tail_half_ones,
    emulated_gated_on_vl,
    emulated_gated_on_vl_unsigned,
)
