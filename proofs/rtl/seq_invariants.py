"""The induction of check-rtl's sequential method: Z3 views of the unit and its ghost at one cycle,
candidate invariants mined from simulated states, and Houdini's filter that keeps the inductive ones."""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import z3

from vredmax.proofs.rtl.protocol import (
    SEED,
    Ghost,
    environment,
    fresh_ghost,
    ghost_step,
    group_name,
    group_value,
    lane_groups,
    violation,
)
from vredmax.proofs.rtl.seq_unit import SeqUnit, register_name, state_name
from vredmax.proofs.engine import solvers
from vredmax.proofs.engine.verdict import Verdict, prove
from vredmax.spec.bv import ConcreteElements, Z3Elements


# Symbolic: the step, the environment, the candidates -----------------------------------------------------


class Symbolic:
    """Z3 views of the unit and the ghost at one cycle."""

    def __init__(self, unit: SeqUnit, limit: int, tag: str):
        d, names, sew = unit.design, unit.names, unit.sew
        self.unit, self.limit = unit, limit
        self.ops = Z3Elements(sew)
        self.inputs = {
            var.decl().name(): z3.Const(f"{var.decl().name()}@{tag}", var.sort()) for var in d.inputs.values()
        }
        self.inp = self._roles(lambda role: self.inputs[d.inputs[names[role]].decl().name()])

    def _roles(self, port):
        unit, sew = self.unit, self.unit.sew
        elements, active = port("elements"), port("active")

        def on(role):
            return port(role) == unit.iface.level(role, True)

        found = {
            "rst": on("rst"),
            "start": on("start"),
            "in_valid": on("in_valid"),
            "last": on("last"),
            "seed": port("seed"),
            "elements": [z3.Extract(i * sew + sew - 1, i * sew, elements) for i in range(unit.lanes)],
            "active": [z3.Extract(i, i, active) == 1 for i in range(unit.lanes)],
        }
        if unit.protocol.out_ready:
            found["out_ready"] = port("out_ready") == 1
        return found

    def env(self, g: Ghost):
        return environment(self.ops, g, self.inp, self.unit.protocol)


@dataclass
class Candidate:
    text: str
    holds: object  # (state dict, ghost) -> bool / Z3 Bool; the state maps register -> value


def _guards(limit: int, flags=()):
    """(text, guard(state, ghost), more general guards), most general first: the phases, the
    first cycles of waiting, and the phases busy/waiting with a flag's value (a 1-bit register
    or one bit of a small one: a pipeline's valid bit, say). A fact mined under a guard is not
    mined again under a more specific one (it would follow)."""
    phase = {
        "idle": lambda g: _and(_not(g.busy), _not(g.waiting)),
        "busy": lambda g: g.busy,
        "waiting": lambda g: g.waiting,
        "busy or waiting": lambda g: _or(g.busy, g.waiting),
        "finished": lambda g: g.finished,
    }
    guards = [
        ("always", lambda st, g: True, ()),
        ("busy or waiting", lambda st, g: phase["busy or waiting"](g), ("always",)),
    ]
    for name in ("busy", "waiting", "idle", "finished"):
        parents = ("always",) if name in ("idle", "finished") else ("always", "busy or waiting")
        guards.append((name, lambda st, g, p=phase[name]: p(g), parents))
    for k in range(min(limit, 8)):
        guards.append(
            (
                f"waiting with {k} cycles waited",
                lambda st, g, k=k: _and(g.waiting, _eq(g.wait, k)),
                ("always", "busy or waiting", "waiting"),
            )
        )
    for name in ("busy or waiting", "busy", "waiting"):
        for label, get in flags:
            for value in (1, 0):
                parents = ("always", "busy or waiting", name) + (
                    (f"busy or waiting and {label} = {value}",) if name != "busy or waiting" else ()
                )
                guards.append(
                    (
                        f"{name} and {label} = {value}",
                        lambda st, g, p=phase[name], get=get, value=value: _and(p(g), _eq(get(st), value)),
                        parents,
                    )
                )
    # a cycle of waiting with a flag's value: which of several done paths is running, when
    # the latency depends on the data
    for k in range(min(limit, 8)):
        for label, get in flags:
            for value in (1, 0):
                parents = (
                    "always",
                    "busy or waiting",
                    "waiting",
                    f"waiting with {k} cycles waited",
                    f"busy or waiting and {label} = {value}",
                    f"waiting and {label} = {value}",
                )
                guards.append(
                    (
                        f"waiting with {k} cycles waited and {label} = {value}",
                        lambda st, g, k=k, get=get, value=value: _and(
                            _and(g.waiting, _eq(g.wait, k)), _eq(get(st), value)
                        ),
                        parents,
                    )
                )
    return guards


SMALL_REGISTER = 4  # the bits of registers this narrow are flags too (a shift register of valid bits)


def flags_of(registers: dict) -> list:
    """(label, value(state)) for the 1-bit registers and each bit of the small ones."""
    found = []
    for reg, width in sorted(registers.items()):
        if width == 1:
            found.append((register_name(reg), lambda st, reg=reg: st[reg]))
        elif width <= SMALL_REGISTER:
            found += [
                (f"{register_name(reg)}[{i}]", lambda st, reg=reg, i=i, w=width: _slice(st[reg], i, i, w))
                for i in range(width)
            ]
    return found


def _and(a, b):
    return z3.And(a, b) if isinstance(a, z3.ExprRef) or isinstance(b, z3.ExprRef) else (a and b)


def _or(a, b):
    return z3.Or(a, b) if isinstance(a, z3.ExprRef) or isinstance(b, z3.ExprRef) else (a or b)


def _not(a):
    return z3.Not(a) if isinstance(a, z3.ExprRef) else (not a)


def _eq(a, b):
    return a == b if isinstance(a, z3.ExprRef) or isinstance(b, z3.ExprRef) else a == b


def _implies(a, b):
    return z3.Implies(a, b) if isinstance(a, z3.ExprRef) or isinstance(b, z3.ExprRef) else ((not a) or b)


def mine(unit: SeqUnit, samples: list, limit: int, accumulator: str | None) -> list[Candidate]:
    """Candidate invariants that hold in every simulated state (non-vacuously)."""
    found = []
    regs = unit.registers
    flags = flags_of(regs)
    guards = _guards(limit, flags)
    singles = data_terms(unit, accumulator)
    groups = lane_groups(unit.lanes)
    if accumulator is not None and regs[state_name(unit, accumulator)] == unit.sew:
        groups = [unit.full]
    ops = ConcreteElements(unit.sew)
    values = [{group: group_value(ops, s.ghost, group) for group in groups} for s in samples]
    mined: dict = {}  # guard -> the facts mined under it
    settled: set = set()  # data terms that always hold a running maximum (not pipeline stages)

    def new(fact, gname, parents):
        if any(fact in mined.get(p, ()) for p in parents):
            return False
        mined.setdefault(gname, set()).add(fact)
        return True

    for gname, guard, parents in guards:
        chosen = [k for k, s in enumerate(samples) if guard(s.state, s.ghost)]
        if not chosen:
            continue
        for reg in regs:
            seen = {samples[k].state[reg] for k in chosen}
            if gname.endswith((f" and {register_name(reg)} = 0", f" and {register_name(reg)} = 1")):
                continue  # the guard says it already
            if len(seen) == 1 and new((reg, min(seen)), gname, parents):
                c = seen.pop()
                found.append(
                    Candidate(
                        f"{gname}: {register_name(reg)} = {c:#x}",
                        lambda st, g, guard=guard, reg=reg, c=c: _implies(guard(st, g), _eq(st[reg], c)),
                    )
                )
        for label, get in flags:
            if "[" not in label or gname.endswith((f" and {label} = 0", f" and {label} = 1")):
                continue
            seen = {get(samples[k].state) for k in chosen}
            if len(seen) == 1 and new((label, min(seen)), gname, parents):
                c = seen.pop()
                found.append(
                    Candidate(
                        f"{gname}: {label} = {c}",
                        lambda st, g, guard=guard, get=get, c=c: _implies(guard(st, g), _eq(get(st), c)),
                    )
                )
        # a register, or the smax of two (a value and the one still in a pipeline stage),
        # holds the running max of a group of lanes
        low = [t for t in singles if t[2]][:MAX_PAIRED]
        terms = [((name,), term) for name, term, _ in singles]
        terms += [
            ((a, b), lambda st, f=f, h=h: _smax(unit.sew, f(st), h(st)))
            for i, (a, f, _) in enumerate(low)
            for b, h, _ in low[i + 1 :]
        ]
        for names, term in terms:
            for group in groups:
                if all(term(samples[k].state) == values[k][group] for k in chosen) and new(
                    (names, group), gname, parents
                ):
                    if len(names) == 1 and gname in ("always", "busy or waiting"):
                        settled.add(names[0])
                    shown = names[0] if len(names) == 1 else f"smax({names[0]}, {names[1]})"
                    found.append(
                        Candidate(
                            f"{gname}: {shown} = running max of {group_name(group)} fed since start",
                            lambda st, g, guard=guard, term=term, group=group: _implies(
                                guard(st, g), _eq(term(st), _group(g, group))
                            ),
                        )
                    )
        if gname in ("always", "busy or waiting"):
            for reg, width in regs.items():
                if width <= unit.sew:
                    continue
                for kind in ("sign", "zero"):
                    fact = _extension(unit.sew, width, kind)
                    if all(fact(samples[k].state[reg]) for k in chosen) and new((reg, kind), gname, parents):
                        found.append(
                            Candidate(
                                f"{gname}: {register_name(reg)} is the {kind} extension of its low "
                                f"{unit.sew} bits",
                                lambda st, g, guard=guard, reg=reg, fact=fact: _implies(
                                    guard(st, g), fact(st[reg])
                                ),
                            )
                        )
        if gname != "always" and " = " not in gname:
            for label, get in flags:
                if all((get(s.state) == 1) == bool(guard(s.state, s.ghost)) for s in samples):
                    found.append(
                        Candidate(
                            f"{label} = 1 exactly when {gname}",
                            lambda st, g, guard=guard, get=get: _eq(_bit(get(st)), guard(st, g)),
                        )
                    )
    found += in_flight(unit, samples, flags, [t for t in singles if t[0] not in settled])
    found.append(
        Candidate("not waiting: cycles waited = 0", lambda st, g: _implies(_not(g.waiting), _eq(g.wait, 0)))
    )
    found.append(
        Candidate(f"waiting: cycles waited < {limit}", lambda st, g: _implies(g.waiting, _ult(g.wait, limit)))
    )
    found.append(Candidate("never busy and waiting at once", lambda st, g: _not(_and(g.busy, g.waiting))))
    return found


MAX_FLAGS_IN_KEY = 8  # pipelines: the valid bits that together say which stages hold data
MAX_SUBSET = 5  # and at most this many registers holding parts of the running maximum


def in_flight(unit: SeqUnit, samples: list, flags: list, singles: list) -> list:
    """Pipelines with valid bits: under each combination of the flags seen while a reduction
    runs, the smallest set of data registers whose smax is the running maximum of everything
    fed (the accumulator and the stages holding valid data). A 3-stage pipeline needs four.
    Registers that always hold a running maximum (per-lane accumulators) are left out: their
    own invariants say it, and a wide smax of them is an expensive query for nothing."""
    flags = flags[:MAX_FLAGS_IN_KEY]
    terms = [(name, term) for name, term, _ in singles][:12]
    if not flags or len(terms) < 2:
        return []
    ops = ConcreteElements(unit.sew)
    by_key: dict = {}
    for s in samples:
        if s.ghost.busy or s.ghost.waiting:
            key = tuple(get(s.state) for _, get in flags)
            by_key.setdefault(key, []).append((s, group_value(ops, s.ghost, unit.full)))
    found = []
    for key, cases in sorted(by_key.items()):
        values = [[term(s.state) for _, term in terms] for s, _ in cases]
        chosen = None
        for size in range(1, MAX_SUBSET + 1):
            for subset in itertools.combinations(range(len(terms)), size):
                if all(
                    _smax_all(unit.sew, [v[i] for i in subset]) == want for v, (_, want) in zip(values, cases)
                ):
                    chosen = subset
                    break
            if chosen:
                break
        if not chosen:
            continue
        label = ", ".join(f"{name} = {value}" for (name, _), value in zip(flags, key))
        shown = ", ".join(terms[i][0] for i in chosen)

        def holds(st, g, key=key, chosen=chosen):
            match = _and_all([_eq(get(st), value) for (_, get), value in zip(flags, key)])
            value = _smax_all(unit.sew, [terms[i][1](st) for i in chosen])
            return _implies(_and(_or(g.busy, g.waiting), match), _eq(value, _group(g, unit.full)))

        found.append(
            Candidate(
                f"busy or waiting and {label}: smax({shown}) = running max of "
                f"{group_name(unit.full)} fed since start",
                holds,
            )
        )
    return found


def _smax_all(sew: int, values: list):
    value = values[0]
    for other in values[1:]:
        value = _smax(sew, value, other)
    return value


def _and_all(conditions: list):
    value = True
    for c in conditions:
        value = _and(value, c)
    return value


MAX_DATA_TERMS = 64  # SEW-bit slices of registers the miner relates to running maxima
MAX_PAIRED = 12  # of which the low slices taken two at a time (smax of a pipeline stage and an accumulator)


def data_terms(unit: SeqUnit, accumulator: str | None) -> list:
    """(name, value(state), low) for every SEW-bit slice of the registers at least SEW bits wide
    (an accumulator wider than SEW holds the running maximum in its low bits; per-lane
    accumulators packed into one register, one in each slice), or of the named accumulator."""
    sew, found = unit.sew, []
    for reg, width in sorted(unit.registers.items(), key=lambda item: (item[1] != sew, item[0])):
        if width < sew or (accumulator is not None and register_name(reg) != accumulator):
            continue
        for k in range(width // sew):
            lo, hi = k * sew, k * sew + sew - 1
            name = register_name(reg) if width == sew else f"{register_name(reg)}[{hi}:{lo}]"
            found.append(
                (name, lambda st, reg=reg, hi=hi, lo=lo, width=width: _slice(st[reg], hi, lo, width), k == 0)
            )
    return found[:MAX_DATA_TERMS]


def _slice(value, hi: int, lo: int, width: int):
    if isinstance(value, z3.ExprRef):
        return value if (hi, lo) == (width - 1, 0) else z3.Extract(hi, lo, value)
    return value >> lo & ((1 << (hi - lo + 1)) - 1)


def _extension(sew: int, width: int, kind: str):
    """value -> is it the sign (zero) extension of its low SEW bits?"""

    def holds(value):
        low = _slice(value, sew - 1, 0, width)
        if isinstance(value, z3.ExprRef):
            return value == (z3.SignExt if kind == "sign" else z3.ZeroExt)(width - sew, low)
        top = low >> (sew - 1) if kind == "sign" else 0
        return value >> sew == (((1 << (width - sew)) - 1) if top else 0)

    return holds


def _smax(sew: int, a, b):
    if isinstance(a, z3.ExprRef) or isinstance(b, z3.ExprRef):
        return Z3Elements(sew).smax(a, b)
    return ConcreteElements(sew).smax(a, b)


def _group(g: Ghost, group):
    """A group's running max from the (symbolic) ghost's atoms."""
    return group_value(Z3Elements(g.atoms[SEED].size()), g, group)


def _bit(value):
    return value == 1 if isinstance(value, z3.ExprRef) else value == 1


def _ult(a, b):
    return z3.ULT(a, b) if isinstance(a, z3.ExprRef) else a < b


def as_bool(value, sew):
    return value if isinstance(value, z3.ExprRef) else z3.BoolVal(bool(value))


def houdini(unit: SeqUnit, candidates: list[Candidate], limit: int, timeout_ms: int, whole: bool = True):
    """The candidates that hold after reset and are preserved by every allowed step."""
    d, sew = unit.design, unit.sew
    cur = Symbolic(unit, limit, "t")
    g = fresh_ghost(sew, unit.lanes, "t", whole, unit.protocol)
    st = dict(d.state)
    sub_inputs = [(d.inputs[n], cur.inputs[d.inputs[n].decl().name()]) for n in d.inputs]
    outputs = {n: z3.substitute(t, *sub_inputs) for n, t in d.outputs.items()}
    nxt = {n: z3.substitute(t, *sub_inputs) for n, t in d.next_state.items()}
    done_now = outputs[unit.names["done"]] == 1
    unit.symbolic_outputs(cur.inp, outputs)
    g_next = ghost_step(cur.ops, g, cur.inp, done_now, limit, unit.protocol)
    # Base: right after the reset cycle, from any state.
    reset_ghost = Ghost(
        z3.BoolVal(False),
        z3.BoolVal(False),
        z3.BitVecVal(0, sew),
        g_next.atoms,
        g_next.acc,
        z3.BoolVal(False),
        g_next.ended,
        z3.BoolVal(False),
    )
    alive = []
    for c in candidates:
        base = prove([cur.inp["rst"]], c.holds(nxt, reset_ghost), timeout_ms)
        if base.verdict == Verdict.PROVED:
            alive.append(c)
    # Step: drop what some allowed step from a state satisfying all of them breaks.
    rounds = 0
    while True:
        rounds += 1
        before = [cur.env(g)] + [as_bool(c.holds(st, g), sew) for c in alive]
        after = [as_bool(c.holds(nxt, g_next), sew) for c in alive]
        # bitwuzla first for the "all kept" answer (measured: 4-8x faster than Z3 on the
        # per-lane unit's step at SEW=64); Z3 for a model that says what to drop
        if not after:
            return alive, rounds, (cur, g, st, outputs)
        quick = solvers.check_text("bitwuzla", solvers.smt2_script(before, z3.And(*after)), timeout_ms)
        if quick.assumptions == "unsat":
            return None, rounds, "vacuous: the environment and the candidates cannot hold together"
        if quick.negated_goal == "unsat":
            return alive, rounds, (cur, g, st, outputs)
        solver = z3.Solver()
        solver.set(timeout=timeout_ms)
        solver.add(*before)
        solver.add(z3.Or(*[z3.Not(a) for a in after]))
        answer = solver.check()
        if answer == z3.unsat:
            return alive, rounds, (cur, g, st, outputs)
        if answer != z3.sat:
            return None, rounds, "a Houdini step query: " + solver.reason_unknown()
        model = solver.model()
        keep = [c for c, a in zip(alive, after) if z3.is_true(model.eval(a, model_completion=True))]
        if len(keep) == len(alive):
            return None, rounds, "Houdini made no progress"
        alive = keep


def prove_property(unit: SeqUnit, invariants, limit: int, context, timeout_ms: int):
    cur, g, st, outputs = context
    result = outputs[unit.names["result"]]
    done = outputs[unit.names["done"]] == 1
    bad = violation(cur.ops, g, cur.inp, result, done, limit, unit.full, unit.protocol)
    assumptions = [cur.env(g)] + [as_bool(c.holds(st, g), unit.sew) for c in invariants]
    return prove(assumptions, z3.Not(z3.Or(*bad.values())), timeout_ms)
