"""One whole `check-impl` run as data: the options checked, the configurations chosen, the
implementation loaded and checked at each. Shared by `vredmax check-impl` (vredmax/cli) and
`vredmax.api.check_impl`, which only present what `run` returns.

    options = Options.parsed(timeout="60", random_states="500", seed="0", solver=None)
    configs = select_configs(UNIT, vlens=(128,), sews=(8,))
    report = run(Target.of("my_impl.py:reduce"), None, configs, options)

A target is a MODULE:FUNCTION (run in a child process per configuration, as the CLI does:
proofs/python/isolation.py), or a function object run in this process (`InProcess`: its
prints and crashes are this process's, and a call that never returns is not stopped).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from vredmax.proofs.engine.solvers import SOLVERS, available
from vredmax.proofs.python import check_impl, isolation
from vredmax.proofs.python.check_impl import (
    DEFAULT_RANDOM,
    DEFAULT_TIMEOUT_MS,
    INSTRUCTION,
    INSTRUCTION_MAX_VLEN,
    UNIT,
    Report,
)
from vredmax.runtime import limits
from vredmax.runtime.errors import UsageError
from vredmax.spec.config import ELENS, LMUL_NAMES, MAX_VLEN, MIN_VLEN, SEWS, legal_configs

MAX_TIMEOUT_S = 1_000_000  # solvers take milliseconds as a 32-bit number


def _int(value, field: str, minimum: int = 0) -> int:
    if isinstance(value, bool):
        raise UsageError(f"{field}: expected an integer, got {value!r}")
    try:
        number = int(value) if not isinstance(value, float) else None
    except (TypeError, ValueError):
        number = None
    if number is None:
        raise UsageError(f"{field}: expected an integer, got {value!r}")
    if number < minimum:
        raise UsageError(f"{field}: must be at least {minimum}, got {number}")
    return number


@dataclass(frozen=True)
class Options:
    """check_impl.check_config's options, checked: bad values are UsageErrors naming the field."""

    timeout_s: float = DEFAULT_TIMEOUT_MS / 1000  # per solver query and per call of the user's code
    solver: str | None = None
    random_states: int = DEFAULT_RANDOM
    seed: int = 0
    memory_mb: int | None = limits.DEFAULT_MEMORY_MB  # of each child running the user's code

    @classmethod
    def parsed(
        cls,
        timeout=DEFAULT_TIMEOUT_MS / 1000,
        solver=None,
        random_states=DEFAULT_RANDOM,
        seed=0,
        prefix: str = "",
        memory_mb=limits.DEFAULT_MEMORY_MB,
    ) -> "Options":
        """`prefix`: "--" for the CLI's field names in errors."""
        try:
            seconds = float(timeout)
        except (TypeError, ValueError):
            raise UsageError(f"{prefix}timeout: expected seconds, got {timeout!r}") from None
        if not 0 < seconds <= MAX_TIMEOUT_S:  # also nan and inf
            raise UsageError(
                f"{prefix}timeout: must be positive and at most {MAX_TIMEOUT_S} seconds, got {timeout}"
            )
        if solver and solver not in SOLVERS:
            raise UsageError(f"{prefix}solver: must be one of {', '.join(SOLVERS)}, got {solver!r}")
        if solver and not available(solver):
            raise UsageError(f"{prefix}solver: {solver} is not installed")
        return cls(
            seconds,
            solver or None,
            _int(random_states, f"{prefix}random"),
            _int(seed, f"{prefix}seed"),
            limits.memory_mb_value(memory_mb, f"{prefix}memory-limit"),
        )

    def pairs(self) -> tuple:
        """check_config's keyword arguments as (name, value) pairs (a picklable Job field)."""
        return (
            ("timeout_ms", int(self.timeout_s * 1000)),
            ("solver", self.solver),
            ("random_states", self.random_states),
            ("seed", self.seed),
        )


def select_configs(
    level: str, vlens=(), sews=(), lmuls=(), elen: int = 64, everything: bool = False, prefix: str = ""
) -> list:
    """The configurations to check, smallest first: the VLENs asked (else every legal one with
    `everything`, else the defaults, check_impl.default_configs) narrowed to the SEWs and LMULs
    asked. Empty when nothing matches (the caller says so). `prefix`: "--" for the CLI's
    field names in errors."""
    checks = (
        ("elen", [elen], lambda v: v in ELENS, f"one of {', '.join(map(str, ELENS))}"),
        (
            "vlen",
            vlens,
            lambda v: v & (v - 1) == 0 and MIN_VLEN <= v <= MAX_VLEN,
            f"a power of two from {MIN_VLEN} to {MAX_VLEN}",
        ),
        ("sew", sews, lambda v: v in SEWS, f"one of {', '.join(map(str, SEWS))}"),
        ("lmul", lmuls, lambda v: v in LMUL_NAMES, f"one of {', '.join(LMUL_NAMES)}"),
    )
    for name, values, good, wanted in checks:
        for value in values:
            if (
                isinstance(value, bool)
                or not isinstance(value, str if name == "lmul" else int)
                or not good(value)
            ):
                raise UsageError(f"{prefix}{name}: must be {wanted}, got {value!r}")
    for vlen in vlens:
        if level == INSTRUCTION and vlen > INSTRUCTION_MAX_VLEN:
            raise UsageError(
                f"{prefix}vlen: a whole instruction is checked up to VLEN={INSTRUCTION_MAX_VLEN}, got {vlen}"
            )
    if vlens:
        configs = legal_configs(elen, list(vlens))
    else:
        configs = (check_impl.all_configs if everything else check_impl.default_configs)(level, elen)
    return check_impl.order(
        [c for c in configs if (not sews or c.sew in sews) and (not lmuls or c.lmul in lmuls)]
    )


@dataclass(frozen=True)
class Target:
    """What to check: `name` (MODULE:FUNCTION, a file MODULE absolute) run in child processes,
    or `function` run in this process."""

    name: str | None = None
    function: object = None

    @classmethod
    def of(cls, name: str) -> "Target":
        if ":" not in name or name.startswith(":") or name.endswith(":"):
            raise UsageError(f"impl: expected MODULE:FUNCTION (a file path or a module name), got {name!r}")
        return cls(name=isolation.portable_target(name))


def detect(
    target: Target, cwd: str | None = None, memory_mb: int | None = limits.DEFAULT_MEMORY_MB
) -> tuple[str | None, str]:
    """(the level the function's parameters tell, what loading it printed); a target that
    cannot be loaded is a UsageError."""
    if target.function is not None:
        return check_impl.detect_level(target.function), ""
    try:
        return isolation.probe(target.name, cwd or os.getcwd(), memory_mb)
    except isolation.LoadFailed as error:
        raise UsageError(f"impl: {error}") from None


class SerialWorkers:
    """vredmax/cli/cluster.py's worker interface (`map_unordered`), one job at a time here:
    each job still runs the user's code in a child process of its own."""

    in_process = True
    where = "this machine"

    def map_unordered(self, function, items):
        def mapped():
            for item in items:
                yield item, function(item)

        return mapped()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def run(
    target: Target,
    level: str,
    configs,
    options: Options,
    workers=None,
    on_result=None,
    load_output: str = "",
    cwd: str | None = None,
) -> Report:
    """Check every configuration (check_impl.check_implementation: stop at the first
    counterexample, then look for the smallest VLEN that shows it). `workers`: an entered
    cluster.Workers for a name target (default: one at a time here)."""
    if target.function is not None:
        pool = check_impl.InProcess(target.function, level, **dict(options.pairs()))
    else:
        cwd = cwd or os.getcwd()
        pool = isolation.Jobs(
            workers or SerialWorkers(),
            lambda cfg: isolation.Job(
                target.name, cwd, level, cfg, options.timeout_s, options.pairs(), options.memory_mb
            ),
        )
    try:
        report = check_impl.check_implementation(pool, level, configs, on_result=on_result)
    except isolation.LoadFailed as error:  # a worker could not load it (a Dask worker: no such file?)
        raise UsageError(f"impl: {error}") from None
    report.output = load_output
    return report


__all__ = [
    "INSTRUCTION",
    "MAX_TIMEOUT_S",
    "Options",
    "SerialWorkers",
    "Target",
    "UNIT",
    "detect",
    "run",
    "select_configs",
]
