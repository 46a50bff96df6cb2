"""The public API for plug-in authors and scripts: everything here is kept stable.

Reduction units and whole-instruction steps for `vredmax check-impl` are written against the
element ops (`ConcreteElements` / `Z3Elements`) and the machine ops (`Concrete` / `Symbolic`).
`check_impl(function, ...)` checks one from Python (what `vredmax check-impl` does) and returns
a `CheckReport`; `assert_proved(function, ...)` is the same as a test assertion.
Anything not re-exported here is internal and may change. Documented in docs/reference/api.md.
"""

from vredmax import __version__
from vredmax.impl.execute import Result, execute, operands, step, written_vd
from vredmax.spec.bv import Concrete, ConcreteElements, Symbolic, Z3Elements
from vredmax.spec.config import Config, decode_vtype, encode_vtype, legal_configs, vlmax
from vredmax.spec.encoding import Insn
from vredmax.spec.legality import ILLEGAL, RESERVED, RETIRED, TrapRule, trap_conditions
from vredmax.spec.state import ArchState

# Cases, the spec's decision procedure, and claims (`vredmax ask` / `refute --emit-test` files use these)
from vredmax.impl.case import case_json, parse_case
from vredmax.proofs.claims.ask import claim_holds
from vredmax.proofs.claims.claim_language import ClaimError, check as check_claim
from vredmax.proofs.claims.refute import claimed_values
from vredmax.spec.profiles import (
    PROFILES,
    Allowed,
    Judgement,
    Observed,
    Profile,
    allowed,
    difference_table,
    get_profile,
)

# The step-by-step trace of one case (`vredmax explain`)
from vredmax.impl.trace import Trace, trace

# Test suites (`vredmax testgen`): cases with their allowed outcomes, the files, the build
from vredmax.platforms.testgen.build import build as build_suite
from vredmax.platforms.testgen.suite import make_suite, write_suite

# Checking an implementation from Python (`vredmax check-impl`)
from vredmax.proofs.engine.counterexample import Counterexample
from vredmax.proofs.engine.verdict import Verdict

__all__ = [
    "check_impl",
    "assert_proved",
    "CheckReport",
    "ConfigVerdict",
    "Counterexample",
    "Verdict",
    "__version__",
    "ArchState",
    "Concrete",
    "ConcreteElements",
    "Config",
    "ILLEGAL",
    "Insn",
    "RESERVED",
    "RETIRED",
    "Result",
    "Symbolic",
    "TrapRule",
    "Z3Elements",
    "decode_vtype",
    "encode_vtype",
    "execute",
    "legal_configs",
    "operands",
    "step",
    "trap_conditions",
    "vlmax",
    "written_vd",
    "case_json",
    "parse_case",
    "claim_holds",
    "ClaimError",
    "check_claim",
    "claimed_values",
    "Observed",
    "allowed",
    "Trace",
    "trace",
    "PROFILES",
    "Profile",
    "Allowed",
    "Judgement",
    "get_profile",
    "difference_table",
    "make_suite",
    "write_suite",
    "build_suite",
]


# check_impl ------------------------------------------------------------------------------------

import inspect as _inspect
import os as _os
import sys as _sys
from dataclasses import dataclass as _dataclass, field as _field

from vredmax.presentation.check_impl import report_json as _report_json, report_lines as _report_lines
from vredmax.presentation.counterexamples import (
    counterexample_lines as _counterexample_lines,
    replay_case as _replay_case,
)
from vredmax.proofs.python import session as _session
from vredmax.runtime.errors import UsageError as _UsageError


@_dataclass(frozen=True)
class ConfigVerdict:
    """One configuration's verdict in a CheckReport."""

    config: Config
    verdict: Verdict
    method: str  # "monolithic", "cut points", "concrete", ...
    seconds: float
    detail: str = ""  # why, when not PROVED


@_dataclass
class CheckReport:
    """What `check_impl` found: the same verdict, bounds and counterexample as `vredmax check-impl`.

    `verdict` is the worst over the configurations (COUNTEREXAMPLE, ERROR, UNKNOWN, PROVED);
    `bounds` names what each PROVED configuration covers; `counterexample` is the smallest one
    found (a `Counterexample`: configuration, pre-state, instruction, tail policy and each side's
    values), `case` the same as a `vredmax exec` case (a dict: `parse_case(case)` reads it)."""

    target: str
    level: str
    verdict: Verdict
    detail: str
    bounds: list[str]
    counterexample: Counterexample | None
    case: dict | None
    configurations: list[ConfigVerdict]
    coverage: str
    summary: str
    notes: list[str] = _field(default_factory=list)
    output: str = ""  # what the implementation printed (in child processes)
    report: object = _field(default=None, repr=False, compare=False)  # the internal Report
    function: object = _field(default=None, repr=False, compare=False)  # the function checked, if given

    @property
    def proved(self) -> bool:
        return self.verdict == Verdict.PROVED

    def lane_table(self) -> str:
        """The counterexample as `vredmax check-impl` shows it (inputs, lane table, each side), or ''."""
        return "" if self.counterexample is None else "\n".join(_counterexample_lines(self.counterexample))

    def text(self) -> str:
        """Everything `vredmax check-impl` prints after its progress lines."""
        return "\n".join(_report_lines(self.report)).strip("\n")

    def to_json(self) -> dict:
        """The object `vredmax check-impl --json` prints (without its schema tag)."""
        return _report_json(self.target, self.report)

    def replay(self, function=None) -> Counterexample:
        """Run the counterexample's case again on the spec and on `function` (default: the
        function checked): a Counterexample whose `differing` names the fields that differ."""
        if self.counterexample is None:
            raise ValueError("counterexample: the check found none to replay")
        from vredmax.proofs.python import check_impl as checker

        function = function if function is not None else self._function()
        cx = self.counterexample
        unit = self.level == checker.UNIT
        return checker.replay(
            checker.as_instruction(function) if unit else function, cx.cfg, cx.pre, cx.insn, cx.tail
        )

    def _function(self):
        from vredmax.proofs.python import check_impl as checker

        return self.function if self.function is not None else checker.load(self.target)


def _values(value, name: str) -> tuple:
    """A keyword's configurations: one value, a comma list ("128,256") or an iterable."""
    if value is None:
        return ()
    if isinstance(value, str):
        items = [v.strip() for v in value.split(",") if v.strip()]
    elif isinstance(value, int):
        items = [value]
    else:
        items = list(value)
    if name == "lmul":
        return tuple(str(v) for v in items)
    try:
        return tuple(int(v) for v in items)
    except (TypeError, ValueError):
        raise ValueError(f"{name}: expected integers, got {value!r}") from None


def _loadable_name(function) -> str | None:
    """FILE:NAME when a child process can load `function` by it (a module-level function of a
    file other than the main script), else None."""
    module = _sys.modules.get(getattr(function, "__module__", None) or "")
    name = getattr(function, "__qualname__", "")
    if (
        module is None
        or module.__name__ == "__main__"
        or "." in name
        or getattr(module, name, None) is not function
    ):
        return None
    try:
        path = _inspect.getsourcefile(function)
    except TypeError:
        return None
    return f"{_os.path.abspath(path)}:{name}" if path and _os.path.isfile(path) else None


def check_impl(
    function,
    *,
    level: str | None = None,
    vlen=None,
    sew=None,
    lmul=None,
    elen: int = 64,
    all_configurations: bool = False,
    timeout: float = 60,
    random_states: int = 500,
    seed: int = 0,
    solver: str | None = None,
    isolate: bool | None = None,
    on_result=None,
) -> CheckReport:
    """Check an implementation against the spec as `vredmax check-impl` does; a CheckReport.

    `function`: a reduction unit `reduce(ops, seed, elements, active)` or a whole instruction
    `step(m, pre, insn, cfg, tail) -> (traps, post)`, or its name "MODULE:FUNCTION".
    `level`: "unit" or "instruction" (default: from the parameters). `vlen`, `sew`, `lmul`:
    one value, a comma list or an iterable, as `--vlen/--sew/--lmul`; without them the
    default configurations (every SEW x LMUL at VLEN=128 and one at each VLEN up to 65536;
    `all_configurations`: every legal one). `timeout`: seconds per solver query and per call of
    the code; `random_states`, `seed`: the random concrete states run first.
    `isolate`: run the code in a child process per configuration (a crash, an exit or an
    endless loop there is an ERROR, not this process's; the default when `function` is a name
    or a module-level function of an importable file), or here (the default for a lambda or a
    nested function: a call that never returns is then not stopped). `on_result(result)` is
    called after each configuration. Bad arguments raise ValueError("field: message")."""
    try:
        options = _session.Options.parsed(timeout, solver, random_states, seed)
        if isinstance(function, str):
            name, in_process = function, None
        elif callable(function):
            name = _loadable_name(function)
            in_process = function if (isolate is False or (isolate is None and name is None)) else None
            if isolate and name is None:
                raise _UsageError(
                    "isolate: the function cannot be loaded by a child process (a lambda, a "
                    "nested function or one of the main script): pass isolate=False"
                )
        else:
            raise _UsageError(f"function: expected a function or 'MODULE:FUNCTION', got {function!r}")
        if isinstance(function, str) and isolate is False:
            raise _UsageError("isolate: a 'MODULE:FUNCTION' name is always run in a child process")
        target = _session.Target(function=in_process) if in_process is not None else _session.Target.of(name)
        if level is not None and level not in (_session.UNIT, _session.INSTRUCTION):
            raise _UsageError(f"level: must be unit or instruction, got {level!r}")
        vlens, sews, lmuls = _values(vlen, "vlen"), _values(sew, "sew"), _values(lmul, "lmul")
        _session.select_configs(level or _session.UNIT, vlens, sews, lmuls, elen, all_configurations)
        detected, load_output = _session.detect(target)
        level = level or detected
        if level is None:
            raise _UsageError(
                "level: cannot tell the plug-in level from the parameters; pass level='unit' "
                "or level='instruction'"
            )
        configs = _session.select_configs(level, vlens, sews, lmuls, elen, all_configurations)
        if not configs:
            raise _UsageError(
                "lmul: no legal configuration matches (VLEN >= ELEN, SEW <= ELEN and SEW <= LMUL*ELEN)"
            )
        report = _session.run(target, level, configs, options, on_result=on_result, load_output=load_output)
    except _UsageError as error:
        raise ValueError(str(error)) from None
    cx = report.counterexample
    shown = target.name or f"{getattr(function, '__module__', '?')}:{getattr(function, '__qualname__', '?')}"
    checked = CheckReport(
        shown,
        level,
        report.verdict,
        report.detail,
        report.bounds,
        cx,
        _replay_case(cx) if cx is not None else None,
        [ConfigVerdict(r.cfg, r.verdict, r.method, r.seconds, r.detail) for r in report.results],
        report.coverage(),
        report.summary(),
        list(report.notes),
        "".join([report.output] + [r.output for r in report.results]),
        report,
        function if callable(function) else None,
    )
    return checked


def assert_proved(function, **options) -> CheckReport:
    """`check_impl(function, **options)`, failing the test unless the verdict is PROVED: the
    AssertionError's message is the verdict, the counterexample's lane table and each side's
    values, and the case to replay it with `vredmax exec`."""
    __tracebackhide__ = True  # pytest: the failure points at the test's line
    report = check_impl(function, **options)
    if not report.proved:
        raise AssertionError(f"{report.target}: {report.verdict.value}\n{report.text()}")
    return report
