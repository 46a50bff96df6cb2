"""`check-c`: the driver. Concrete runs first, then the symbolic method; one verdict.

1. The differential runs (proofs/c/concrete.py) at every chosen configuration, smallest first:
   the plain library against the spec. A disagreement is a COUNTEREXAMPLE at once, whatever
   the proof would say; a hang or a bad outcome code is an ERROR.
2. The same cases on the sanitized library: undefined behaviour on a legal input is a
   COUNTEREXAMPLE (the case, and the sanitizer's words).
3. The symbolic method (proofs/c/symbolic.py), up to a VLMAX bound:
   - a unit: every SEW, every n = 2, 4, 8, ... up to the bound (n is VLMAX: the unit's whole
     input); the first n that is not proved ends that SEW's climb;
   - a step: each configuration at VLEN=128 whose VLMAX is within the bound, for each of a set
     of instruction words that covers every register relation the spec tells apart; then the
     configurations at VLEN=128 above the bound, every vl, by induction over the step's loop
     over the elements (proofs/c/step_loop.py; when that is not proved, a note).
   A counterexample of the solver is replayed on the compiled code (and judged by the spec).

PROVED: every concrete case agreed, nothing undefined, and every symbolic check within the
bound was proved (the bounds are printed: the proof says nothing of larger VLMAX, where only
the concrete runs speak). UNKNOWN: the symbolic method did not finish (or angr is missing).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from vredmax.proofs.c import cases as case_source
from vredmax.proofs.c import concrete, step_loop, symbolic, unit_loop
from vredmax.proofs.c.build import Built
from vredmax.proofs.engine.counterexample import Counterexample, read_registers
from vredmax.proofs.engine.verdict import Verdict
from vredmax.spec.config import SEWS, Config, legal_configs
from vredmax.spec.encoding import Insn
from vredmax.runtime import limits

SEVERITY = (Verdict.COUNTEREXAMPLE, Verdict.ERROR, Verdict.UNKNOWN, Verdict.PROVED)
DEFAULT_UNIT_VLMAX = 16
DEFAULT_STEP_VLMAX = 4
STEP_VLEN = 128
# vd, vs2, vs1, vm: apart and unmasked, masked, vd = vs2, vd = vs1, vd = v0 masked, vs1 = vs2,
# and the reserved ones (v0 in the vs2 group or as vs1 while masked; a misaligned group)
STEP_WORDS = (
    Insn(2, 8, 1, 1),
    Insn(2, 8, 1, 0),
    Insn(8, 8, 1, 1),
    Insn(1, 8, 1, 1),
    Insn(0, 8, 1, 0),
    Insn(3, 8, 8, 1),
    Insn(2, 0, 1, 0),
    Insn(2, 8, 0, 0),
    Insn(2, 9, 1, 1),
)


def worst(verdicts) -> Verdict:
    return min(verdicts, key=SEVERITY.index, default=Verdict.PROVED)


@dataclass
class SymbolicCheck:
    what: str  # "SEW=8 VLMAX=16" or "VLEN=128 ... vredmax.vs v2, v8, v1"
    sew: int
    vlmax: int
    verdict: Verdict
    detail: str
    seconds: float
    paths: int = 0
    solver: str = ""
    every: bool = False  # proved for every VLMAX (induction over the unit's loop), not one VLMAX

    @classmethod
    def of(cls, what: str, sew: int, vlmax: int, result, every: bool = False, detail: str = "{}"):
        """The check of one symbolic result (`detail` wraps the result's)."""
        return cls(
            what,
            sew,
            vlmax,
            result.verdict,
            detail.format(result.detail),
            result.seconds,
            result.paths,
            result.solver,
            every,
        )


@dataclass
class Options:
    random: int = 50
    seed: int = 0
    timeout_s: float = 120.0
    limit_s: float = 60.0  # one concrete call
    symbolic_vlmax: int | None = None
    solver: str = "auto"
    engine_python: str | None = None
    elens: tuple = (32, 64)  # both ELENs, as `prove` (--elen narrows)
    sews: tuple = ()  # the SEWs the symbolic method covers (empty: every one)
    memory_mb: int | None = limits.DEFAULT_MEMORY_MB  # each child running the compiled code


@dataclass
class CReport:
    level: str
    concrete: list = field(default_factory=list)  # ConcreteResult, plain pass
    sanitized: list = field(default_factory=list)  # ConcreteResult, sanitized pass
    symbolic: list[SymbolicCheck] = field(default_factory=list)
    counterexample: Counterexample | None = None
    errors: list[str] = field(default_factory=list)
    unknowns: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0
    every_sews: set = field(default_factory=set)  # a step's SEWs proved at every vl (VLEN=128)

    @property
    def verdict(self) -> Verdict:
        if self.counterexample is not None:
            return Verdict.COUNTEREXAMPLE
        found = [c.verdict for c in self.symbolic]
        if self.errors:
            found.append(Verdict.ERROR)
        if self.unknowns or not self.symbolic:
            found.append(Verdict.UNKNOWN)
        return worst(found)

    @property
    def detail(self) -> str:
        if self.counterexample is not None:
            return self.counterexample_source
        for text in self.errors + self.unknowns:
            return text
        bad = [c for c in self.symbolic if c.verdict != Verdict.PROVED]
        return f"{bad[0].what}: {bad[0].detail}" if bad else ""

    counterexample_source: str = ""

    def cases(self, which: str = "plain") -> int:
        return sum(r.cases for r in (self.concrete if which == "plain" else self.sanitized))

    @property
    def every_vlmax(self) -> bool:
        """The proof covers every VLMAX at each SEW checked (no bound)."""
        sews = {c.sew for c in self.symbolic}
        if self.level != "unit":
            return bool(sews) and sews <= self.every_sews and self.verdict == Verdict.PROVED
        return bool(sews) and all(
            any(c.every and c.verdict == Verdict.PROVED for c in self.symbolic if c.sew == sew)
            for sew in sews
        )

    def bounds(self) -> list[str]:
        """What the symbolic method proved, per SEW: the largest VLMAX reached."""
        lines = []
        for sew in sorted({c.sew for c in self.symbolic}):
            proved = [
                c
                for c in self.symbolic
                if c.sew == sew
                and c.verdict == Verdict.PROVED
                and (self.level == "unit" or not c.every or sew in self.every_sews)
            ]
            if not proved:
                lines.append(f"SEW={sew}: nothing proved symbolically")
                continue
            vlmaxes = sorted({c.vlmax for c in proved})
            every = [c for c in proved if c.every]
            if every and self.level == "unit":
                lines.append(
                    f"SEW={sew}: every input at every VLMAX (up to {vlmaxes[-1]}): {every[0].detail}"
                )
            elif self.level == "unit":
                lines.append(
                    f"SEW={sew}: every input at VLMAX {', '.join(map(str, vlmaxes))} "
                    f"(up to {vlmaxes[-1]} elements; {sum(c.seconds for c in proved):.0f} s)"
                )
            elif sew in self.every_sews:
                bounded = [c for c in proved if not c.every]
                induction = [c for c in every if "induction" in c.detail]
                lines.append(
                    f"SEW={sew}: every vl at VLEN={STEP_VLEN}, every LMUL and ELEN (VLMAX up to "
                    f"{vlmaxes[-1]}; {len(bounded)} checks to VLMAX {max(c.vlmax for c in bounded) if bounded else 0} "
                    f"by exploration, {len(every)} above by induction over the loop over the elements, "
                    f"{len(STEP_WORDS)} instruction words: {induction[0].detail if induction else ''})"
                )
            else:
                configs = sorted({c.what.split(": ")[0] for c in proved if not c.every})
                lines.append(
                    f"SEW={sew}: VLMAX up to {vlmaxes[-1]} ({'; '.join(configs)}; "
                    f"{len(proved)} checks over {len(STEP_WORDS)} instruction words)"
                )
        return lines


def unit_config(sew: int, n: int, elen: int = 64) -> Config | None:
    """The smallest-VLEN configuration whose VLMAX at this SEW is n."""
    for cfg in sorted(legal_configs(elen), key=lambda c: (c.vlen, c.lmul)):
        if cfg.sew == sew and cfg.vlmax == n:
            return cfg
    return None


def unit_vlmaxes(sew: int, bound: int, elen: int = 64) -> list[int]:
    return sorted({c.vlmax for c in legal_configs(elen) if c.sew == sew and c.vlmax <= bound})


def unit_case(cfg: Config, inputs: dict):
    """A case whose operands are the unit inputs (all lanes within vl; the flags as v0)."""
    flags = inputs["flags"]
    mask = None if all(flags) else sum(1 << i for i, f in enumerate(flags) if f)
    return case_source._state(cfg, inputs["elements"], inputs["seed"], cfg.vlmax, mask, elen=cfg.elen)


def check_c(built: Built, configs: list[Config], options: Options, say=None) -> CReport:
    say = say or (lambda text: None)
    start = time.perf_counter()
    report = CReport(built.level)
    for which, results, requested in (
        (concrete.PLAIN, report.concrete, options.random),
        (concrete.SANITIZED, report.sanitized, max(1, options.random // 4)),
    ):

        def on_config(result, which=which):
            if result.counterexample is not None or result.error:
                say(f"{which}: {result.cfg}: {'counterexample' if result.counterexample else 'error'}")

        try:
            results += concrete.run_pass(
                built, which, configs, options.seed, requested, options.limit_s, on_config, options.memory_mb
            )
        except concrete.CheckerFault as fault:
            report.errors.append(f"checker fault in the {which} runs (please report it): {fault}")
            break
        say(f"{which} runs: {sum(r.cases for r in results)} cases at {len(results)} configurations")
        failed = [r for r in results if r.counterexample is not None or r.error]
        if failed:
            first = failed[0]
            if first.counterexample is not None:
                report.counterexample = with_plain_values(built, tidied(built, first.counterexample))
                report.counterexample_source = f"{first.cfg}: the {which} build on a concrete case"
            else:
                report.errors.append(f"{first.cfg}: {first.error}")
            report.seconds = time.perf_counter() - start
            return report
    try:
        python = symbolic.engine_python(options.engine_python)
    except symbolic.EngineMissing as missing:
        report.unknowns.append(f"no symbolic proof: {missing}")
        report.seconds = time.perf_counter() - start
        return report
    if built.level == "unit":
        _symbolic_unit(built, python, options, report, say)
    else:
        _symbolic_step(built, python, options, report, say)
    if not report.symbolic:
        report.unknowns.append(
            f"no symbolic check is within the bound (--symbolic-vlmax {options.symbolic_vlmax}, "
            "the SEWs chosen): the concrete runs found nothing, but nothing is proved"
        )
    report.seconds = time.perf_counter() - start
    return report


def _symbolic_unit(built, python, options, report, say) -> None:
    bound = options.symbolic_vlmax if options.symbolic_vlmax is not None else DEFAULT_UNIT_VLMAX
    elen = max(options.elens)  # a unit has no ELEN of its own: every SEW some ELEN allows
    for sew in (s for s in (options.sews or SEWS) if s <= elen):
        if bound > 0 and _every_vlmax(built, python, options, report, say, sew, elen):
            continue
        for n in unit_vlmaxes(sew, bound, elen):
            result, inputs = symbolic.prove_unit(
                python, built.plain, sew, n, options.timeout_s, options.solver
            )
            check = SymbolicCheck.of(f"SEW={sew} VLMAX={n}", sew, n, result)
            report.symbolic.append(check)
            say(f"symbolic {check.what}: {check.verdict.value} ({check.seconds:.1f} s)")
            if result.verdict == Verdict.COUNTEREXAMPLE:
                cfg = unit_config(sew, n, elen)
                pre, insn = unit_case(cfg, inputs)
                _replayed(built, report, cfg, pre, insn, check, result.model_from)
                return
            if result.verdict != Verdict.PROVED:
                break


def _every_vlmax(built, python, options, report, say, sew: int, elen: int) -> bool:
    """The unit at SEW for every VLMAX by induction over its loop (proofs/c/unit_loop.py);
    False (with a note saying why) when that did not prove it: then the bounded climb."""
    vlmaxes = unit_vlmaxes(sew, 1 << 20, elen)
    result = unit_loop.prove_unit_loop(python, built.plain, sew, vlmaxes, options.timeout_s, options.solver)
    say(f"symbolic SEW={sew} every VLMAX: {result.verdict.value} ({result.seconds:.1f} s)")
    if result.verdict != Verdict.PROVED:
        report.notes.append(
            f"SEW={sew}: not proved for every VLMAX ({result.detail}); the bounded method instead"
        )
        return False
    report.symbolic.append(SymbolicCheck.of(f"SEW={sew} every VLMAX", sew, vlmaxes[-1], result, every=True))
    return True


def step_solver(solver: str) -> str:
    """Bitwuzla for the step's queries when it is installed (the register file's bit-vectors:
    about half Z3's time on them, and "auto" spends its first seconds in Z3 on each)."""
    if solver != "auto":
        return solver
    from vredmax.proofs.engine.solvers import available

    return "bitwuzla" if available("bitwuzla") else "z3"


def _symbolic_step(built, python, options, report, say) -> None:
    solver = step_solver(options.solver)
    bound = options.symbolic_vlmax if options.symbolic_vlmax is not None else DEFAULT_STEP_VLMAX
    configs = sorted(
        (
            c
            for elen in options.elens
            for c in legal_configs(elen, [STEP_VLEN], options.sews or SEWS)
            if c.vlmax <= bound
        ),
        key=lambda c: (c.vlmax, -c.sew, -c.elen),
    )
    for cfg in configs:
        for fields in STEP_WORDS:
            result, case = symbolic.prove_step(python, built.plain, cfg, options.timeout_s, solver, fields)
            what = f"{cfg}: vd=v{fields.vd} vs2=v{fields.vs2} vs1=v{fields.vs1} vm={fields.vm}"
            check = SymbolicCheck.of(what, cfg.sew, cfg.vlmax, result)
            report.symbolic.append(check)
            say(f"symbolic {what}: {check.verdict.value} ({check.seconds:.1f} s)")
            if result.verdict == Verdict.COUNTEREXAMPLE:
                _replayed(built, report, cfg, case[0], case[1], check, result.model_from)
                return
            if result.verdict != Verdict.PROVED:
                return
    sews = {c.sew for elen in options.elens for c in legal_configs(elen, [STEP_VLEN], options.sews or SEWS)}
    for sew in sorted(sews) if bound > 0 else ():
        if not _every_vl_step(built, python, options, report, say, solver, sew, bound):
            return


def _every_vl_step(built, python, options, report, say, solver: str, sew: int, bound: int) -> bool:
    """The configurations at VLEN=128 of SEW above the bound, every vl, for each instruction
    word: by induction over the loop over the elements (step_loop.py) where the word is legal
    and VLMAX allows mining, else by exploration (a small VLMAX). A word reserved at some
    configurations (the spec then asks nothing unless it traps) is tried by induction there
    too, since emulators execute it (QEMU's and Spike's loops run with v0 both mask and data),
    and explored where that does not prove it (a word the code rejects has no loop). False when
    a check was not PROVED: a counterexample or an error is the report's; an induction not
    proved is a note (those configurations then rest on the concrete runs, as before)."""
    above = [c for elen in options.elens for c in legal_configs(elen, [STEP_VLEN], [sew]) if c.vlmax > bound]
    if not above:
        report.every_sews.add(sew)  # the bounded checks reached every VLMAX at VLEN=128
        return True
    done = []  # kept for the report only when the whole SEW is proved (a partial one is no bound)
    for fields in STEP_WORDS:
        word = f"vd=v{fields.vd} vs2=v{fields.vs2} vs1=v{fields.vs1} vm={fields.vm}"
        legal = [c for c in above if not step_loop.reserved(c, fields)]
        explored = [c for c in above if c not in legal]
        if legal and max(c.vlmax for c in legal) < step_loop.MINE_VLMAX:
            explored, legal = above, []
        if legal:
            check = _by_induction(python, built, options, solver, legal, fields, f"{bound}: {word}")
            say(f"symbolic {check.what}: every vl: {check.verdict.value} ({check.seconds:.1f} s)")
            if check.verdict != Verdict.PROVED:
                report.notes.append(f"{check.what}: not proved for every vl ({check.detail})")
                return False
            done.append(check)
        if explored and max(c.vlmax for c in explored) >= step_loop.MINE_VLMAX:
            what = f"{bound} where the word is reserved: {word}"
            check = _by_induction(python, built, options, solver, explored, fields, what)
            if check.verdict == Verdict.PROVED:
                say(f"symbolic {check.what}: every vl: {check.verdict.value} ({check.seconds:.1f} s)")
                done.append(check)
                explored = []
        for cfg in explored:
            result, case = symbolic.prove_step(python, built.plain, cfg, options.timeout_s, solver, fields)
            check = SymbolicCheck.of(
                f"{cfg}: {word}", cfg.sew, cfg.vlmax, result, every=True, detail="every vl by exploration: {}"
            )
            say(f"symbolic {check.what}: {check.verdict.value} ({check.seconds:.1f} s)")
            if result.verdict == Verdict.COUNTEREXAMPLE:
                report.symbolic.append(check)
                _replayed(built, report, cfg, case[0], case[1], check, result.model_from)
                return False
            if result.verdict != Verdict.PROVED:
                report.notes.append(f"{check.what}: not proved for every vl ({result.detail})")
                return False
            done.append(check)
    report.symbolic += done
    report.every_sews.add(sew)
    return True


def _by_induction(python, built, options, solver: str, configs, fields, what: str) -> SymbolicCheck:
    """One instruction word at `configs` (one SEW at VLEN=128) proved for every vl by induction."""
    result = step_loop.prove_step_loop(python, built.plain, configs, fields, options.timeout_s, solver)
    what = f"VLEN={STEP_VLEN} SEW={configs[0].sew}, {len(configs)} configurations with VLMAX above {what}"
    return SymbolicCheck.of(what, configs[0].sew, max(c.vlmax for c in configs), result, every=True)


def with_plain_values(built: Built, cx: Counterexample) -> Counterexample:
    """An undefined-behaviour case with what the plain build computed there, judged."""
    if "well-defined C" not in cx.spec or len(cx.spec) > 1:
        return cx
    plain = concrete.replay(built, cx.cfg, cx.pre, cx.insn)
    if "well-defined C" in plain.spec:  # the plain build crashed too
        return cx
    if not plain.differing:
        plain = judged_values(cx.cfg, cx.pre, cx.insn, plain)
    return Counterexample(
        cx.cfg,
        cx.pre,
        cx.insn,
        plain.tail,
        {**cx.spec, **plain.spec},
        {**cx.other, **plain.other},
        cx.other_label,
        plain.spec_reason,
        cx.notes + plain.notes,
        {**plain.widths, **cx.widths},
    )


def judged_values(cfg, pre, insn, plain: Counterexample) -> Counterexample:
    """The plain build's case was allowed: show the spec's vd[0] on both sides all the same."""
    from vredmax.impl.execute import execute

    result = execute(pre, insn, tail=plain.tail)
    value = result.state.regs[insn.vd] & ((1 << cfg.sew) - 1)
    return Counterexample(
        cfg,
        pre,
        insn,
        plain.tail,
        {"vd[0]": value},
        {"vd[0]": value},
        plain.other_label,
        result.reason,
        plain.notes
        + [
            "the plain build's outcome here is allowed by the spec: "
            "only the sanitizer sees the undefined behaviour"
        ],
    )


def tidied(built: Built, cx: Counterexample) -> Counterexample:
    """The same counterexample with every register the instruction does not read set to zero
    (a shorter case to read and replay), when it still fails that way on the compiled code."""
    read = read_registers(cx.cfg, cx.insn, cx.insn.vm)
    regs = tuple(r if k in read else 0 for k, r in enumerate(cx.pre.regs))
    if regs == cx.pre.regs or "well-defined C" in cx.spec:
        return cx
    smaller = concrete.replay(built, cx.cfg, cx.pre.with_(regs=regs), cx.insn)
    return smaller if smaller.differing and "well-defined C" not in smaller.spec else cx


def _replayed(built, report, cfg, pre, insn, check, model_from: str = "z3") -> None:
    """A solver's counterexample, run on the compiled code: a COUNTEREXAMPLE if it fails there.
    Z3's model that does not fail there is a fault of the checker (angr's model of the code and
    the code disagree); bitwuzla's (taken when Z3 could not rebuild one) is only UNKNOWN."""
    cx = concrete.replay(built, cfg, pre, insn)
    if cx.differing:
        report.counterexample = tidied(built, cx)
        report.counterexample_source = (
            f"{check.what}: the symbolic method ({model_from}'s model), replayed on the compiled code"
        )
        return
    if model_from == "bitwuzla":
        check.verdict = Verdict.UNKNOWN
        check.detail = (
            "bitwuzla refuted the property, but its model, replayed on the compiled code, shows "
            "no difference (and Z3 gave no model)"
        )
        return
    check.verdict = Verdict.ERROR
    check.detail = (
        "checker fault: the solver's counterexample does not replay on the compiled code "
        "(angr's model of the code and the code disagree; please report it)"
    )
