"""A node's local cone in the cut-point method (proofs/python/cutpoint.py) and its shape.

The cone of a node is the node and the operations under it down to the cut points (nodes
already known to be guarded maxima, and structural conditions), written canonically (`Cone.key`)
so that every node of the same shape shares one proof. A shape's `Shape` says which cut points
(and which constant) reach its value under each assignment of the conditions: guessed from
concrete probes, then proved for all values by the solver, once per shape and SEW for the
process. A value kept encoded (xor a constant: an accumulator with its sign bit flipped, or
sign-extended into a wider Python int) is tried as its encoded join.
"""

from __future__ import annotations

import itertools
import random
from dataclasses import dataclass

import z3

from vredmax.proofs.engine.verdict import Verdict, prove
from vredmax.proofs.python.trace import apply_op
from vredmax.spec.bv import ConcreteElements, Z3Elements

PROBES = 40  # random checks of a guessed guarded join before the solver's proof


class ConeTooLarge(Exception):
    """A cone past the limits, or over an input no cut point stands for: its node gets no
    denotation (the message says why)."""


@dataclass
class Cone:
    """A node's local cone: its shape (canonical up to renaming of the cut points), and the
    nodes its value cut points `xs` and Boolean cut points `bs` stand for."""

    key: tuple
    xs: list
    bs: list


def shape_value(ops, key, xvals, bvals):
    """A cone shape's value on a backend, given its cut points' values."""
    steps = key[1]
    values = []

    def ref(r):
        kind = r[0]
        if kind == "x":  # ("x", j, encoding): the cut node's value is its max, encoded
            return encoded(ops, xvals[r[1]], r[2])
        if kind == "b":
            return bvals[r[1]]
        if kind == "c":
            return apply_op(ops, r[1], r[2], r[3], [])
        return values[r[1]]

    for op, param, width, args in steps:
        values.append(apply_op(ops, op, param, width, [ref(a) for a in args]))
    return values[-1]


# An encoding of a denoted node: its value is its guarded join `j` xor an int constant (at
# SEW bits; 0: the join itself), or ("sext", W, c) the join xor c sign-extended to W bits (a
# running maximum kept as a signed Python int, one bit or more wider than an element), or
# ("zext", W, c) zero-extended (an element kept unsigned as its raw bits in a Python int,
# `x * on + TOP * (1 - on)` with TOP the raw bits of the signed minimum; `v ^ TOP`, its key
# for an unsigned comparison).
def encoded(ops, join, encoding):
    if isinstance(encoding, tuple):
        extension, width, flip = encoding
        return getattr(_at(ops, width), extension)(
            ops.xor(join, ops.const(flip)) if flip else join, ops.width
        )
    return join if not encoding else ops.xor(join, ops.const(encoding))


def _at(ops, width):
    return type(ops)(width)


def decoded(ops, value, encoding):
    """The join a value encodes, or None when it encodes none (a wide value whose high bits
    are not the sign extension of its low SEW bits)."""
    if isinstance(encoding, tuple):
        join = (value & ops.mask) ^ encoding[2]
        return join if encoded(ops, join, encoding) == value else None
    return value ^ encoding


@dataclass
class Shape:
    """What is known of a cone shape at one SEW: `table` maps each assignment of the
    Booleans to (the value cut points joined, a constant joined or None); None when the
    shape is no guarded join (`witness` says where) or its proof did not go through."""

    table: dict | None
    verdict: Verdict
    detail: str = ""
    witness: tuple | None = None
    recipe: list | None = None  # the table read as a guarded join (see Denoter.guarded_join)
    encoding: object = 0  # the node is its guarded join, encoded (see `encoded`)


def _probe(key, sew: int, rng: random.Random) -> Shape:
    """Guess the guarded join a shape is, from concrete values, and test the guess; first as
    the value itself, then as the value xor a constant (an accumulator kept with flipped sign
    bits, say, whose maximum is taken unsigned): the encodings of its cut points, the sign bit."""
    ops = ConcreteElements(sew)
    width = key[1][-1][2] if key[1] else sew
    flips = sorted(
        {r[2] if not isinstance(r[2], tuple) else r[2][2] for r in _refs(key) if r[0] == "x"}
        | {1 << (sew - 1), ops.mask}
    )
    if width != sew:  # a wider node: a sign-extended join (a signed Python int), or zero-extended
        first = None
        for extension in ("sext", "zext"):
            for flip in [0] + [f for f in flips if f]:
                shape = _probe_encoded(key, sew, rng, ops, (extension, width, flip))
                if shape.table is not None:
                    return shape
                first = first or shape
        return first
    # the complement (xor all ones) too: an accumulator kept as ~max, a min over complemented values
    encodings = [0] + [f for f in flips if f]
    first = None
    for encoding in encodings:
        shape = _probe_encoded(key, sew, rng, ops, encoding)
        if shape.table is not None:
            return shape
        first = first or shape
    return first


def _refs(key):
    return [r for step in key[1] for r in step[3]]


def ordered(key) -> tuple:
    """The order facts of a cone's cut points: pairs (i, j) with x_i >= x_j (signed), known of
    their denotations (x_j's guarded join is part of x_i's: proofs/python/cutpoint.py, `below`)."""
    return key[4] if len(key) > 4 else ()


def _raised(ops, key, xvals):
    """Values made to meet the cone's order facts, each raised to the largest it must be at
    least (signed); the values it already meets are kept."""
    order = ordered(key)
    if not order:
        return xvals
    values = list(xvals)
    changed = True
    while changed:
        changed = False
        for i, j in order:
            if ops.to_signed(values[i]) < ops.to_signed(values[j]):
                values[i], changed = values[j], True
    return values


def _probe_encoded(key, sew, rng, ops, encoding) -> Shape:
    k, m = key[2], key[3]
    smin, top = 1 << (sew - 1), (1 << (sew - 1)) - 1

    def value(xvals, bits):
        return decoded(ops, shape_value(ops, key, _raised(ops, key, xvals), bits), encoding)

    table = {}
    for bits in itertools.product((False, True), repeat=m):
        base = value([smin] * k, bits)
        constant = None if base == smin else base
        joined = set()
        for j in range(k):
            lows = [(smin + 1 + t) & ops.mask for t in range(k)]
            lows[j] = top
            if value(lows, bits) == top:
                joined.add(j)
        # x_j is no more than x_i: joined with it, it adds nothing
        # x_j under x_i (an order fact) is joined with it: kept, so that the node's join keeps
        # x_j's as a part (the order facts of the cones above it are found from the parts)
        table[bits] = (frozenset(joined), constant)
    edges = [0, 1, 2, top, smin, smin + 1, ops.mask, top - 1]
    for _ in range(PROBES):
        bits = tuple(rng.random() < 0.5 for _ in range(m))
        xvals = [rng.choice(edges) if rng.random() < 0.5 else rng.randrange(1 << sew) for _ in range(k)]
        xvals = _raised(ops, key, xvals)
        if value(xvals, bits) != _join_value(ops, table[bits], xvals):
            return Shape(None, Verdict.COUNTEREXAMPLE, "not a guarded signed max", (xvals, bits))
    return Shape(table, Verdict.UNKNOWN, encoding=encoding)


def _join_value(ops, entry, xvals):
    joined, constant = entry
    value = ops.smin() if constant is None else ops.const(constant)
    for j in sorted(joined):
        value = ops.smax(value, xvals[j])
    return value


def _prove_shape(key, shape: Shape, sew: int, timeout_ms: int) -> Shape:
    """The solver's proof that the shape equals its table's guarded join, for all values."""
    k, m = key[2], key[3]
    ops = Z3Elements(sew)
    xs = [z3.BitVec(f"cut_{j}", sew) for j in range(k)]
    bs = [z3.Bool(f"cond_{j}") for j in range(m)]

    def guarded(prefix):
        if len(prefix) == m:
            return _join_value(ops, shape.table[prefix], xs)
        return z3.If(bs[len(prefix)], guarded(prefix + (True,)), guarded(prefix + (False,)))

    claim = guarded(())
    if isinstance(shape.encoding, tuple):
        extension, width, flip = shape.encoding
        claim = (z3.SignExt if extension == "sext" else z3.ZeroExt)(
            width - sew, claim ^ flip if flip else claim
        )
    elif shape.encoding:
        claim = ops.xor(claim, ops.const(shape.encoding))
    facts = [xs[i] >= xs[j] for i, j in ordered(key)]  # signed, as the joins
    answer = prove(facts, shape_value(ops, key, xs, bs) == claim, timeout_ms)
    if answer.verdict == Verdict.PROVED:
        return Shape(shape.table, Verdict.PROVED, encoding=shape.encoding)
    if answer.verdict == Verdict.COUNTEREXAMPLE:
        model = answer.model
        witness = None
        if model is not None:  # the solver's case, as the probes' (cut values, conditions)
            xvals = [model.eval(x, model_completion=True).as_long() for x in xs]
            bits = tuple(z3.is_true(model.eval(b, model_completion=True)) for b in bs)
            witness = (xvals, bits)
        return Shape(None, Verdict.COUNTEREXAMPLE, "not a guarded signed max (the solver's case)", witness)
    return Shape(None, answer.verdict, f"the local proof: {answer.verdict.value} {answer.detail}".strip())


_SELECTIONS: dict = {}  # (key) -> the encoding of a selection, or None


def selection_of(key, sew: int, rng: random.Random, timeout_ms: int):
    """The encoding e when the shape's value is always one of its cut points (encoded by e:
    every cut point is used with that one encoding), under the order facts: a minimum, a
    compare-and-swap's low output; None when it is not, or not shown. Once per shape."""
    if key in _SELECTIONS:
        return _SELECTIONS[key]
    encodings = {r[2] for r in _refs(key) if r[0] == "x"}
    k, m = key[2], key[3]
    found = None
    width = key[1][-1][2] if key[1] else sew
    if len(encodings) == 1 and k >= 1:
        (encoding,) = encodings
        # the value is one of the cut points as encoded: as wide as they are
        if width != (encoding[1] if isinstance(encoding, tuple) else sew):
            encodings = set()
    if len(encodings) == 1 and k >= 1:
        ops = ConcreteElements(sew)
        edges = [0, 1, 2, ops.mask >> 1, ops.smin(), ops.smin() + 1, ops.mask, (ops.mask >> 1) - 1]
        probes_hold = True
        for _ in range(PROBES):
            bits = tuple(rng.random() < 0.5 for _ in range(m))
            xvals = [rng.choice(edges) if rng.random() < 0.5 else rng.randrange(1 << sew) for _ in range(k)]
            xvals = _raised(ops, key, xvals)
            if shape_value(ops, key, xvals, bits) not in {encoded(ops, x, encoding) for x in xvals}:
                probes_hold = False
                break
        if probes_hold:
            z = Z3Elements(sew)
            xs = [z3.BitVec(f"cut_{j}", sew) for j in range(k)]
            bs = [z3.Bool(f"cond_{j}") for j in range(m)]
            facts = [xs[i] >= xs[j] for i, j in ordered(key)]
            value = shape_value(z, key, xs, bs)
            claim = z3.Or(*[value == encoded(z, x, encoding) for x in xs])
            answer = prove(facts, claim, timeout_ms)
            if answer.verdict == Verdict.PROVED:
                found = encoding
            elif answer.verdict != Verdict.COUNTEREXAMPLE:
                return None  # a timeout may go through another time
    _SELECTIONS[key] = found
    return found


_SHAPES: dict = {}  # (key) -> Shape, for the process: a shape is proved once per SEW


def shape_of(key, sew: int, rng: random.Random, timeout_ms: int) -> Shape:
    """A cone shape's Shape: probed, then proved by the solver; once per shape and SEW."""
    shape = _SHAPES.get(key)
    if shape is None:
        shape = _probe(key, sew, rng)
        if shape.table is not None:
            shape = _prove_shape(key, shape, sew, timeout_ms)
        if shape.verdict != Verdict.UNKNOWN:  # a timeout may go through another time
            _SHAPES[key] = shape
    return shape
