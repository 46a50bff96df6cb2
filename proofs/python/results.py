"""A check-impl run's results as data: a Check per (configuration, tail policy), a
ConfigResult per configuration, the Report of the whole run; the worst verdict decides, and
the presentation layer (presentation/check_impl.py) turns them into text."""

from __future__ import annotations

from dataclasses import dataclass, field

from vredmax.proofs.engine.counterexample import Counterexample
from vredmax.proofs.engine.verdict import Verdict
from vredmax.proofs.python.configurations import ANY_TAIL, CONCRETE, INSTRUCTION_MAX_VLEN
from vredmax.proofs.python.loading import INSTRUCTION
from vredmax.spec.config import Config


@dataclass
class Check:
    """One (configuration, tail policy) proof."""

    cfg: Config
    tail: str
    method: str
    verdict: Verdict
    seconds: float
    detail: str = ""
    solver: str = ""
    witness: str = ""  # the cut-point method's local case (cutpoint.ScaleResult.witness)


@dataclass
class ConfigResult:
    """Everything checked at one configuration."""

    cfg: Config
    method: str
    checks: list[Check] = field(default_factory=list)
    counterexample: Counterexample | None = None
    random_states: int = 0  # random concrete states run, before the proofs
    directed_states: int = 0  # directed concrete states run (proofs/python/concrete.py)
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0
    output: str = ""  # what the user's code printed (proofs/python/isolation.py)
    # the local case of the cut-point attempt the monolithic query replaced (see Check.witness)
    cut_witness: str = ""

    @property
    def verdict(self) -> Verdict:
        return worst([c.verdict for c in self.checks]) if self.checks else Verdict.ERROR

    @property
    def detail(self) -> str:
        bad = [c for c in self.checks if c.verdict != Verdict.PROVED]
        if not bad:
            return ""
        c = bad[0]
        return f"{c.cfg}, tail {c.tail}, {c.method}" + (f": {c.detail}" if c.detail else "")


SEVERITY = (Verdict.COUNTEREXAMPLE, Verdict.ERROR, Verdict.UNKNOWN, Verdict.PROVED)


def worst(verdicts) -> Verdict:
    return min(verdicts, key=SEVERITY.index, default=Verdict.PROVED)


def bounds_text(result: ConfigResult) -> str:
    cfg = result.cfg
    tails = sorted({c.tail for c in result.checks if c.method != CONCRETE})
    tail_text = "tail undisturbed and ones" if ANY_TAIL in tails or len(tails) == 2 else f"tail {tails[0]}"
    methods = sorted({c.method for c in result.checks if c.method != CONCRETE})
    solvers = sorted({c.solver for c in result.checks if c.solver})
    return (
        f"{cfg}, VLMAX={cfg.vlmax}: vl 0..{cfg.vlmax}, every register and overlap symbolic, "
        f"{tail_text}; {', '.join(methods)}"
        + (f" ({', '.join(solvers)})" if solvers else "")
        + f"; {result.directed_states} directed and {result.random_states} random concrete states agree"
    )


@dataclass
class Report:
    """The whole run: each configuration's result, and the counterexample to show."""

    level: str
    results: list[ConfigResult] = field(default_factory=list)
    not_checked: list[Config] = field(default_factory=list)
    counterexample: Counterexample | None = None
    notes: list[str] = field(default_factory=list)
    output: str = ""  # what the user's code printed while loading

    @property
    def verdict(self) -> Verdict:
        if not self.results:
            return Verdict.ERROR
        return worst([r.verdict for r in self.results])

    @property
    def detail(self) -> str:
        shown = [
            r
            for r in self.results
            if self.counterexample is not None and r.counterexample is self.counterexample
        ]
        bad = shown or [r for r in self.results if r.verdict == self.verdict and r.verdict != Verdict.PROVED]
        return bad[0].detail if bad else ""

    def count(self, verdict: Verdict) -> int:
        return sum(r.verdict == verdict for r in self.results)

    @property
    def bounds(self) -> list[str]:
        return [bounds_text(r) for r in self.results if r.verdict == Verdict.PROVED]

    @property
    def random_states(self) -> int:
        return sum(r.random_states for r in self.results)

    def coverage(self) -> str:
        """What was checked, in one sentence."""
        checked = [r.cfg for r in self.results]
        if not checked:
            return "nothing was checked"
        vlens = sorted({c.vlen for c in checked})
        methods = {}
        for r in self.results:
            methods[r.method] = methods.get(r.method, 0) + 1
        text = (
            f"{len(checked)} configurations (VLEN {vlens[0]}..{vlens[-1]}: {len(vlens)} VLENs; "
            f"SEW {', '.join(map(str, sorted({c.sew for c in checked})))}; "
            f"{len({(c.sew, c.lmul) for c in checked})} SEW x LMUL pairs; ELEN="
            f"{', '.join(map(str, sorted({c.elen for c in checked})))}); "
            + ", ".join(f"{n} {m}" for m, n in sorted(methods.items()))
            + f"; {sum(r.directed_states for r in self.results)} directed and {self.random_states} random "
            "concrete states"
        )
        if self.level == INSTRUCTION:
            text += f"; a whole instruction is checked up to VLEN={INSTRUCTION_MAX_VLEN}"
        return text

    def summary(self) -> str:
        return (
            f"Summary: {self.count(Verdict.PROVED)} proved, {self.count(Verdict.COUNTEREXAMPLE)} "
            f"counterexamples, {self.count(Verdict.UNKNOWN)} unknown, {self.count(Verdict.ERROR)} errors"
            + (f", {len(self.not_checked)} not checked" if self.not_checked else "")
        )
