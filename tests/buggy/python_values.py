"""Implementations that use Python's own operators and conversions on the values they get.

The concrete run hands them Python ints (unsigned, in range) and bools; a proof hands them
symbolic values that must mean exactly the same (proofs/python/values.py). Each case is one
construct whose meaning differs between Python ints and raw Z3 terms: before the symbolic
values, the wrong ones were PROVED with `--random 0` (the proof read `>` as a signed compare,
`>>` as an arithmetic shift, + as wrapping, let a caught TypeError take the correct path) and
the right ones were refused or judged wrong. `.where` is where each is checked and `.expect`
its verdict there (tests/test_check_impl_python.py), with or without random states.
"""

from vredmax.impl.execute import operands, written_vd
from vredmax.spec.config import VTYPE_VILL_BIT, VTYPE_VTA_BIT, XLEN, Config
from vredmax.spec.legality import trap_conditions
from vredmax.spec.state import VS_DIRTY

MONOLITHIC = Config(128, 64, 64, "m1")  # VLMAX 2: the monolithic query
CUT = Config(128, 64, 8, "m1")  # VLMAX 16: cut points


def case(expect: str, *where: Config):
    def mark(function):
        function.expect, function.where = expect, list(where) or [MONOLITHIC, CUT]
        return function

    return mark


# Units ------------------------------------------------------------------------------------


@case("counterexample")
def python_greater_than(ops, seed, elements, active):
    """`x > acc` on the ints it gets is unsigned: vredmaxu's compare, not vredmax's."""
    acc = seed
    for x, a in zip(elements, active):
        acc = ops.ite(ops.and_(a, x > acc), x, acc)
    return acc


@case("proved")
def python_biased_compare(ops, seed, elements, active):
    """Adding 2^(SEW-1) modulo 2^SEW maps the signed order onto the unsigned one: right on
    Python ints (and was judged wrong when `>` of the wrapped sums was a signed compare)."""
    top, mask = 1 << (ops.width - 1), (1 << ops.width) - 1
    acc = seed
    for x, a in zip(elements, active):
        acc = ops.ite(ops.and_(a, (x + top) & mask > (acc + top) & mask), x, acc)
    return acc


@case("counterexample")
def python_sign_by_shift(ops, seed, elements, active):
    """Takes the sign as `x >> (SEW-1) == -1`: an arithmetic shift of a term, but on a Python
    int (unsigned) the shift gives 0 or 1, never -1: every value counts as nonnegative."""
    w = ops.width
    acc = seed
    for x, a in zip(elements, active):
        x_negative, acc_negative = (x >> (w - 1)) == -1, (acc >> (w - 1)) == -1
        greater = ops.ite(x_negative == acc_negative, ops.ugt(x, acc), acc_negative)
        acc = ops.ite(ops.and_(a, greater), x, acc)
    return acc


@case("error")
def python_sum_past_the_width(ops, seed, elements, active):
    """Adds 2^SEW, which a SEW-bit term wraps away; on a Python int the result is out of range."""
    acc = seed
    for x, a in zip(elements, active):
        acc = ops.ite(a, ops.smax(acc, x), acc)
    return acc + (1 << ops.width)


@case("error")
def caught_int_fast_path(ops, seed, elements, active):
    """A fast path on Python ints (int() of each element) with a wrong unsigned max, and a
    fallback on ops when int() raises: the fallback must not be what is proved."""
    try:
        values = [int(x) for x in elements]
        best = seed
        for v, a in zip(values, active):
            best = ops.umax(best, v) if a else best
        return best
    except TypeError:
        acc = seed
        for x, a in zip(elements, active):
            acc = ops.ite(a, ops.smax(acc, x), acc)
        return acc


@case("error")
def caught_descriptor_fast_path(ops, seed, elements, active):
    """The same with int.to_bytes called unbound: its TypeError comes from C, not from the
    value, and is caught all the same."""
    try:
        raw = b"".join(int.to_bytes(x, ops.width // 8, "little") for x in elements)
        return max(raw[:: ops.width // 8], default=seed)
    except TypeError:
        acc = seed
        for x, a in zip(elements, active):
            acc = ops.ite(a, ops.smax(acc, x), acc)
        return acc


@case("error")
def all_equal_shortcut(ops, seed, elements, active):
    """Returns elements[0] when all elements are equal (forgetting the seed and the mask):
    a set of the values, which Z3 terms hashed by their structure never collapsed."""
    if len(set(elements)) == 1:
        return elements[0]
    acc = seed
    for x, a in zip(elements, active):
        acc = ops.ite(a, ops.smax(acc, x), acc)
    return acc


@case("error")
def caught_numpy_fast_path(ops, seed, elements, active):
    """numpy on the concrete path (a wrong unsigned maximum of every element), ops when
    numpy cannot take the values."""
    try:
        import numpy as np

        values = np.array(elements, dtype=np.uint64)
        return ops.smax(seed, int(values.max()))
    except Exception:
        acc = seed
        for x, a in zip(elements, active):
            acc = ops.ite(a, ops.smax(acc, x), acc)
        return acc


# A whole instruction ----------------------------------------------------------------------


@case("counterexample", MONOLITHIC)
def step_python_greater_than(m, pre, insn, cfg, tail):
    """An emulator step comparing the elements it split from the registers with `>`."""
    traps = trap_conditions(m, pre, insn, m.bit(pre.vtype, VTYPE_VILL_BIT), cfg.lmul)
    nothing = m.any_(m.eq(pre.vl, 0), *(cond for _, cond in traps))
    seed, elements, active = operands(m, pre, insn, cfg)
    ops = m.elements(cfg.sew)
    acc = seed
    for x, a in zip(elements, active):
        acc = ops.ite(ops.and_(a, x > acc), x, acc)
    vd = written_vd(m, m.read(pre.regs, insn.vd), acc, m.bit(pre.vtype, VTYPE_VTA_BIT), cfg, tail)
    return traps, pre.with_(
        regs=m.ite(nothing, pre.regs, m.write(pre.regs, insn.vd, vd)),
        vstart=m.ite(nothing, pre.vstart, m.const(0, XLEN)),
        vs=m.ite(nothing, pre.vs, m.const(VS_DIRTY, 2)),
    )


UNITS = (
    python_greater_than,
    python_biased_compare,
    python_sign_by_shift,
    python_sum_past_the_width,
    caught_int_fast_path,
    caught_descriptor_fast_path,
    all_equal_shortcut,
    caught_numpy_fast_path,
)
INSTRUCTIONS = (step_python_greater_than,)
