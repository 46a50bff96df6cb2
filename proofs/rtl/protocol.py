"""The protocol of a multi-cycle unit and the ghost that follows it (the spec's side of the proof).

The environment (what the proofs assume of the unit's inputs), from cycle 0 where `rst` is
high: `rst` may rise in any cycle (it aborts the reduction); otherwise `start` comes only when no
reduction is running, and not with a chunk (or, with `start_with_chunk`, always with the first
chunk, as units that take the seed and the first element in one cycle do); `in_valid` only
during a reduction; `last` only with `in_valid`. After the last chunk nothing is offered until
`done`. Every other input is free. The active masks are any (`mask`), all ones (`all`: a unit
without a mask), or the elements below vl (`below-vl`: once a lane is inactive, every later one
of the reduction is).

`done` is a pulse (one cycle; the default) or a level (`done="level"`: it stays high, with the
result, until the next `start` or `rst`).

The ghost, updated in step with the unit, tracks the phase (idle, busy, waiting for `done`,
finished for a level `done`), the seed taken at `start`, for each lane position the running
maximum of its active elements fed since `start` (from the signed minimum), the cycles waited
since `last`, and whether an inactive lane was fed (below-vl). The running maximum of a group
of lanes, with or without the seed, is the smax of those atoms. It is written once against
the element ops of spec/bv.py and runs both concretely (simulation) and on Z3 terms (proofs).
"""

from __future__ import annotations

from dataclasses import dataclass

import z3

from vredmax.spec.bv import Z3Elements

SEED = "seed"
DONE_MODES = ("pulse", "level")


@dataclass(frozen=True)
class Protocol:
    start_with_chunk: bool = False
    done: str = "pulse"
    active: str = "mask"  # mask, all, below-vl (ports.ACTIVE_MODES)
    # How the ghost folds a chunk into the running maximum (the same value either way): one
    # lane after the other from it, or smax(it, the chunk's own fold from the signed minimum),
    # which matches units whose chunk tree abstraction.py replaced by that fold
    tree: bool = False
    in_ready: bool = False  # a chunk is taken only when the unit's in_ready is high
    out_ready: bool = False  # done is taken only when out_ready is high; till then it stays

    @property
    def level(self) -> bool:
        return self.done == "level"

    def assumptions(self) -> list[str]:
        start = (
            "start only when no reduction is running (after reset or after done), always with "
            "the first chunk (in_valid)"
            if self.start_with_chunk
            else "start only when no reduction is running (after reset or after done), never with in_valid"
        )
        lines = [
            "cycle 0 has rst high (the state before it is arbitrary); rst may rise in any later cycle",
            start,
            "in_valid only between start and the chunk with last; last only with in_valid",
            "after the last chunk nothing is offered until done; data inputs are free when not valid",
        ]
        if self.level:
            lines.append(
                "done is a level: once high it stays high, with the result, until the next start or rst"
            )
        if self.in_ready:
            lines.append(
                "a chunk (and last) is taken in a cycle with in_valid and in_ready; in_valid may be "
                "offered while in_ready is low (the chunk is then not taken)"
            )
        if self.out_ready:
            lines.append(
                "done is taken in a cycle with out_ready (free); until then done stays high with the "
                "same result"
            )
        if self.active == "all":
            lines.append("every lane of every chunk is active (the unit has no mask)")
        elif self.active == "below-vl":
            lines.append(
                "active = the elements below vl: in a reduction, once a lane is inactive every later lane is"
            )
        return lines


def lane_groups(lanes: int) -> list[tuple[frozenset, bool]]:
    """The groups of lanes the invariant may speak of (with or without the seed): every
    lane, each single lane, aligned power-of-two blocks, and the seed alone."""
    groups = []
    size = 1
    while size < lanes:
        for lo in range(0, lanes, size):
            groups.append(frozenset(range(lo, min(lo + size, lanes))))
        size *= 2
    groups.append(frozenset(range(lanes)))
    found = []
    for g in dict.fromkeys(groups):
        found += [(g, True), (g, False)]
    found.append((frozenset(), True))
    return found


def group_name(group) -> str:
    lanes, with_seed = group
    if not lanes:
        return "seed"
    body = "lanes " + ",".join(map(str, sorted(lanes)))
    return ("seed+" if with_seed else "") + body


@dataclass
class Ghost:
    busy: object
    waiting: object
    wait: object  # cycles waited since `last` (SEW bits, saturating)
    atoms: dict  # SEED -> the seed taken; lane j -> running max of lane j
    acc: object  # running max of the seed and every active element fed
    finished: object = False  # level done: after done, until the next start
    ended: object = False  # below-vl: an inactive lane was fed in this reduction
    offered: object = False  # out_ready: done was high and not taken in the last cycle


def fold_chunk(ops, acc, lanes, elements, active, tree: bool = False):
    if tree:
        return ops.smax(acc, fold_chunk(ops, ops.smin(), lanes, elements, active))
    for lane in sorted(lanes):
        acc = ops.ite(active[lane], ops.smax(acc, elements[lane]), acc)
    return acc


def fed_now(ops, inp: dict, protocol: Protocol):
    """Is a chunk taken in this cycle? (in_valid, and in_ready when the unit has one)"""
    return ops.and_(inp["in_valid"], inp["in_ready"]) if protocol.in_ready else inp["in_valid"]


def taken_now(ops, inp: dict, done, protocol: Protocol):
    """Is done taken in this cycle? (done, and out_ready when the unit has one)"""
    return ops.and_(done, inp["out_ready"]) if protocol.out_ready else done


def ghost_step(ops, g: Ghost, inp: dict, done, limit: int, protocol: Protocol) -> Ghost:
    """The ghost after one cycle. `inp` holds rst, start, seed, in_valid, last (booleans or
    values), the unit's in_ready and the environment's out_ready when the unit has them, and
    the chunk as lists `elements`, `active`; `done` is the unit's output."""
    rst, start, last = inp["rst"], inp["start"], inp["last"]
    fed, taken = fed_now(ops, inp, protocol), taken_now(ops, inp, done, protocol)
    and_, or_, not_ = ops.and_, ops.or_, ops.not_
    live = not_(rst)
    finishing = and_(live, and_(fed, last))
    busy = and_(live, and_(or_(start, g.busy), not_(and_(fed, last))))
    waiting = and_(and_(live, not_(taken)), or_(finishing, and_(g.waiting, not_(start))))
    grow = ops.ite(ops.ult(g.wait, ops.const(limit + 1)), g.wait + ops.const(1), g.wait)
    wait = ops.ite(and_(and_(live, not_(start)), and_(g.waiting, not_(done))), grow, ops.const(0))
    offered = False
    if protocol.out_ready:
        offered = and_(and_(live, not_(start)), and_(and_(done, not_(taken)), or_(g.waiting, finishing)))
    finished = False
    if protocol.level:
        finished = and_(and_(live, not_(start)), or_(g.finished, and_(done, or_(g.waiting, finishing))))
    atoms = {SEED: ops.ite(and_(live, start), inp["seed"], g.atoms[SEED])}
    # Without start_with_chunk, start never comes with a chunk: the smaller terms (the smax of
    # the register, not of an ite of start) keep the induction queries several times faster.
    lanes = range(len(inp["active"]))
    for lane in lanes:
        value = g.atoms[lane]
        base = ops.ite(start, ops.smin(), value) if protocol.start_with_chunk else value
        grown = ops.ite(and_(fed, inp["active"][lane]), ops.smax(base, inp["elements"][lane]), base)
        if not protocol.start_with_chunk:
            grown = ops.ite(start, ops.smin(), grown)
        atoms[lane] = ops.ite(rst, value, grown)
    acc = None
    if g.acc is not None:
        base = ops.ite(start, inp["seed"], g.acc) if protocol.start_with_chunk else g.acc
        fed_acc = ops.ite(
            fed, fold_chunk(ops, base, lanes, inp["elements"], inp["active"], protocol.tree), base
        )
        if not protocol.start_with_chunk:
            fed_acc = ops.ite(start, inp["seed"], fed_acc)
        acc = ops.ite(rst, g.acc, fed_acc)
    ended = False
    if protocol.active == "below-vl":
        base = and_(not_(start), g.ended)
        ended = ops.ite(rst, g.ended, or_(base, and_(fed, not_(inp["active"][-1]))))
    return Ghost(busy, waiting, wait, atoms, acc, finished, ended, offered)


def group_value(ops, g: Ghost, group):
    """The running max of a group of lanes (and the seed if it has it): smax of its atoms."""
    lanes, with_seed = group
    if with_seed and len(lanes) == len(g.atoms) - 1 and g.acc is not None:
        return g.acc  # the whole reduction: its own ghost (same value; cheaper queries)
    parts = ([g.atoms[SEED]] if with_seed else []) + [g.atoms[lane] for lane in sorted(lanes)]
    if not parts:
        return ops.smin()
    value = parts[0]
    for part in parts[1:]:
        value = ops.smax(value, part)
    return value


def environment(ops, g: Ghost, inp: dict, protocol: Protocol):
    """Do these inputs keep to the protocol? (a bool, or a Z3 Bool; with in_ready, this speaks
    of the unit's output in the same cycle too)"""
    and_, or_, not_ = ops.and_, ops.or_, ops.not_
    rst, start, valid, last = inp["rst"], inp["start"], inp["in_valid"], inp["last"]
    fed = fed_now(ops, inp, protocol)
    idle = and_(not_(g.busy), not_(g.waiting))
    with_chunk = fed if protocol.start_with_chunk else not_(valid)
    rules = [
        _implies(ops, start, and_(idle, with_chunk)),
        _implies(ops, valid, or_(g.busy, start)),
        _implies(ops, last, valid),
    ]
    active = inp["active"]
    fed = valid
    if protocol.active == "all":
        rules += [_implies(ops, fed, a) for a in active]
    elif protocol.active == "below-vl":
        ended = and_(not_(start), g.ended)
        rules += [_implies(ops, and_(fed, active[i + 1]), active[i]) for i in range(len(active) - 1)]
        rules.append(_implies(ops, and_(fed, ended), not_(active[0])))
    ok = rules[0]
    for rule in rules[1:]:
        ok = and_(ok, rule)
    return or_(rst, ok)


def _implies(ops, a, b):
    return ops.or_(ops.not_(a), b)


def violation(ops, g: Ghost, inp: dict, result, done, limit: int, full, protocol: Protocol) -> dict:
    """The property's failure conditions in a cycle without rst (name -> condition)."""
    and_, or_, not_ = ops.and_, ops.or_, ops.not_
    live = not_(inp["rst"])
    start = inp["start"]
    chunk_now = and_(and_(or_(g.busy, start), fed_now(ops, inp, protocol)), inp["last"])
    allowed = or_(g.waiting, chunk_now)
    checked = allowed
    if protocol.level:
        allowed = or_(allowed, g.finished)
        checked = or_(checked, and_(g.finished, not_(start)))
    expected = expected_result(ops, g, inp, full, protocol.tree)
    late_at = ops.const(limit)
    next_wait = g.wait + ops.const(1)
    late = and_(
        and_(g.waiting, not_(g.offered)),
        or_(ops.ugt(next_wait, late_at), and_(ops.eq(next_wait, late_at), not_(done))),
    )
    found = {
        "done without a finished reduction": and_(live, and_(done, not_(allowed))),
        "result differs from the spec's reduction": and_(
            live, and_(and_(done, checked), not_(ops.eq(result, expected)))
        ),
        f"done did not come within {limit} cycles of the last chunk": and_(live, late),
    }
    if protocol.out_ready:
        found["done fell before out_ready took it"] = and_(live, and_(g.offered, not_(done)))
    if protocol.level:
        found["done (a level) fell before the next start"] = and_(
            live, and_(and_(g.finished, not_(start)), not_(done))
        )
    return found


def expected_result(ops, g: Ghost, inp: dict, full, tree: bool = False):
    so_far = group_value(ops, g, full)
    base = ops.ite(inp["start"], inp["seed"], so_far)
    everything = fold_chunk(ops, base, full[0], inp["elements"], inp["active"], tree)
    return ops.ite(ops.or_(g.waiting, g.finished), so_far, everything)


def idle_ghost(ops, lanes: int):
    return Ghost(
        False, False, 0, {SEED: ops.smin(), **{lane: ops.smin() for lane in range(lanes)}}, ops.smin()
    )


def fresh_ghost(sew: int, lanes: int, tag: str, whole: bool = True, protocol: Protocol = Protocol()) -> Ghost:
    atoms = {SEED: z3.BitVec(f"ghost_seed@{tag}", sew)}
    atoms.update({lane: z3.BitVec(f"ghost_lane{lane}@{tag}", sew) for lane in range(lanes)})
    return Ghost(
        z3.Bool(f"ghost_busy@{tag}"),
        z3.Bool(f"ghost_waiting@{tag}"),
        z3.BitVec(f"ghost_wait@{tag}", sew),
        atoms,
        z3.BitVec(f"ghost_acc@{tag}", sew) if whole else None,
        z3.Bool(f"ghost_finished@{tag}") if protocol.level else z3.BoolVal(False),
        z3.Bool(f"ghost_ended@{tag}") if protocol.active == "below-vl" else z3.BoolVal(False),
        z3.Bool(f"ghost_offered@{tag}") if protocol.out_ready else z3.BoolVal(False),
    )


def ghost_variables(g: Ghost) -> list:
    """The Z3 variables of a fresh ghost (for the PDR engine's state), in a fixed order."""
    return [v for v, _ in _ghost_pairs(g, g)]


def ghost_values(g: Ghost, after: Ghost) -> list:
    """The next values of ghost_variables(g), from the ghost after the step."""
    return [v for _, v in _ghost_pairs(g, after)]


def _ghost_pairs(g: Ghost, after: Ghost):
    pairs = [(g.busy, after.busy), (g.waiting, after.waiting), (g.wait, after.wait)]
    pairs += [(g.atoms[k], after.atoms[k]) for k in g.atoms]
    if g.acc is not None:
        pairs.append((g.acc, after.acc))
    for v, w in ((g.finished, after.finished), (g.ended, after.ended), (g.offered, after.offered)):
        if z3.is_const(v) and not z3.is_true(v) and not z3.is_false(v):
            pairs.append((v, w))
    return [(v, w if isinstance(w, z3.ExprRef) else z3.BoolVal(bool(w))) for v, w in pairs]


def z3_ops(sew: int) -> Z3Elements:
    return Z3Elements(sew)
