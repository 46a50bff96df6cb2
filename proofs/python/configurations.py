"""Which configurations check-impl checks, and by which method: the defaults (every SEW x LMUL
at VLEN=128, one configuration per larger VLEN), every legal one, their order, the method
of each (a monolithic query at small VLMAX, the cut-point method beyond), the solver."""

from __future__ import annotations

from vredmax.proofs.engine.solvers import available, versions
from vredmax.proofs.python.loading import UNIT
from vredmax.spec.config import Config, legal_configs

# The monolithic query grows fast (measured with bitwuzla on this machine, two at a time:
# VLMAX x SEW = 128 bits 6-26 s, 256 bits 12-35 s or a 60 s timeout, 512 bits 9 s to a
# timeout); the cut-point method proves a unit at VLMAX 8..128 in 1-3 s. So a unit gets the
# monolithic query (an independent cross-check, with the solver's smallest counterexample)
# only at VLMAX <= 4; a whole instruction, until a cut-point method for it is there, up to
# VLMAX 8 and 256 bits (every register group at VLEN=128 needs 256).
MONOLITHIC_MAX_VLMAX = {"unit": 4, "instruction": 8}
MONOLITHIC_MAX_BITS = {"unit": 256, "instruction": 256}
FALLBACK_MAX_VLMAX = 16  # code the cut cannot take apart gets the whole query up to here
MONOLITHIC_MAX_VLEN = 1024  # whole-register terms wider than this: the cut-point method
INSTRUCTION_MAX_VLEN = 4096  # a whole instruction is checked up to here
MONOLITHIC, SCALE = "monolithic", "cut points"
ANY_TAIL = "any"  # a unit's cut-point proof does not depend on the tail policy
VLENS = tuple(1 << k for k in range(7, 17))
CONCRETE = "concrete"  # a configuration decided by the concrete states


def default_solver() -> str:
    """bitwuzla when installed: on these whole-instruction queries it is 3 to 20 times faster
    than Z3 (measured at VLEN=128: SEW=32 LMUL=m2 1.4-2.5 s against 5-15 s)."""
    return "bitwuzla" if available("bitwuzla") else "z3"


def solver_text(solver: str) -> str:
    found = versions()
    if solver == "auto":  # proofs/engine/verdict.py: Z3 briefly, then bitwuzla
        return f"auto: z3 {found['z3']}, then bitwuzla {found.get('bitwuzla', '(absent)')}"
    return f"{solver} {found.get(solver, '(absent)')}"


# One configuration per VLEN beyond 128, chosen so that every SEW and LMUL shows up at scale
# (the seed's VLEN=4096 SEW=16 m1 among them) and the last is the largest VLMAX there is.
SCALE_PICKS = {
    256: (16, "m2"),
    512: (32, "m4"),
    1024: (8, "m8"),
    2048: (64, "m8"),
    4096: (16, "m1"),
    8192: (32, "m2"),
    16384: (8, "mf2"),
    32768: (64, "m1"),
    65536: (8, "m8"),
}


def max_vlen(level: str) -> int:
    return VLENS[-1] if level == UNIT else INSTRUCTION_MAX_VLEN


def default_configs(level: str, elen: int = 64) -> list[Config]:
    """Every SEW x LMUL at VLEN=128 and one configuration at each larger VLEN (up to 65536
    for a unit, 4096 for a whole instruction)."""
    configs = legal_configs(elen, [128])
    for vlen, (sew, lmul) in SCALE_PICKS.items():
        if vlen <= max_vlen(level):
            legal = legal_configs(elen, [vlen], [sew], [lmul])
            configs += legal or legal_configs(elen, [vlen], [min(sew, elen)], ["m1"])
    return order(configs)


def all_configs(level: str, elen: int = 64) -> list[Config]:
    """Every legal configuration (for a whole instruction: with VLEN <= 4096)."""
    return order(legal_configs(elen, [v for v in VLENS if v <= max_vlen(level)]))


def order(configs) -> list[Config]:
    """Smallest first (so a first counterexample is a small one), without duplicates."""
    return sorted(set(configs), key=lambda c: (c.vlmax, c.vlen, -c.sew, c.lmul))


def method_for(level: str, cfg: Config) -> str | None:
    """The method that checks a configuration, or None when the level does not go there."""
    if cfg.vlen > max_vlen(level):
        return None
    if (
        cfg.vlmax <= MONOLITHIC_MAX_VLMAX[level]
        and cfg.vlmax * cfg.sew <= MONOLITHIC_MAX_BITS[level]
        and cfg.vlen <= MONOLITHIC_MAX_VLEN
    ):
        return MONOLITHIC
    return SCALE
