"""A check-impl run (proofs/python/check_impl.py's Report) as text and as JSON data: the lines
`vredmax check-impl` prints and `vredmax.api.CheckReport.text()` returns, and the JSON object of
`--json` (without its schema tag)."""

from __future__ import annotations

from vredmax.presentation.counterexamples import counterexample_lines, replay_lines
from vredmax.proofs.engine.solvers import versions
from vredmax.proofs.engine.verdict import Verdict
from vredmax.proofs.python.check_impl import INSTRUCTION, UNIT

LEVEL_TEXT = {
    UNIT: "reduction unit reduce(ops, seed, elements, active), run inside impl.execute.step",
    INSTRUCTION: "whole instruction step(m, pre, insn, cfg, tail) -> (traps, post)",
}


def result_line(result) -> str:
    cfg = result.cfg
    # 80 columns: verdict 15, configuration 35, VLMAX 12, method 11, time (the random states are
    # counted in the Covered line)
    text = f"{str(cfg):<34} VLMAX={cfg.vlmax:<5} {result.method:<10} {result.seconds:5.1f}s"
    # one witness per counterexample: the replayable one, shown below; the cut-point method's
    # local case (values at one node) only when there is none
    shown = result.counterexample is None
    for note in result.notes:
        text += f"\n    note: {note}"
    if shown and result.cut_witness:
        text += f"\n    note: at the cut, {result.cut_witness}"
    for check in result.checks:
        if check.verdict != Verdict.PROVED:
            text += f"\n    {check.verdict.value} (tail {check.tail}, {check.method})" + (
                f": {check.detail}" if check.detail else ""
            )
            if shown and check.witness:
                text += f"\n      at the cut, {check.witness}"
    return text


def report_lines(report, case_out: str | None = None) -> list[str]:
    lines = [""]
    if report.counterexample is not None:
        cx = report.counterexample
        lines += counterexample_lines(cx) + [""]
        lines += replay_lines(cx, case_out)
    outputs: dict[str, list[str]] = {}  # the same output at many configurations: shown once
    for where, text in [("while loading", report.output)] + [
        (f"at {r.cfg}", r.output) for r in report.results
    ]:
        if text.strip():
            outputs.setdefault(text, []).append(where)
    for text, places in outputs.items():
        more = f" and {len(places) - 1} more" if len(places) > 1 else ""
        lines.append(f"output of the implementation ({places[0]}{more}):")
        lines += ["  | " + line for line in text.rstrip("\n").split("\n")]
    lines += [f"note: {note}" for note in report.notes]
    verdict = report.verdict
    if verdict == Verdict.PROVED:
        lines.append("PROVED: the implementation refines the spec at every configuration checked:")
    else:
        lines.append(f"{verdict.value}: {_once(report)}")
        if report.bounds:
            lines.append("proved:")
    lines += [f"  {b}" for b in report.bounds]
    if report.not_checked:
        lines.append(f"not checked (stopped at the counterexample): {len(report.not_checked)} configurations")
    lines.append(f"Covered: {report.coverage()}")
    lines.append(report.summary())
    return lines


def _once(report) -> str:
    """The verdict's detail, unless a configuration's line above printed it already: then where
    it was (each error is printed once)."""
    for result in report.results:
        for check in result.checks:
            if check.verdict != Verdict.PROVED and check.detail and report.detail.endswith(check.detail):
                where = report.detail[: -len(check.detail)].rstrip(": ")
                return f"{where} (the {check.verdict.value} under that configuration above)"
    return report.detail


def report_json(target: str, report) -> dict:
    cx = report.counterexample
    return {
        "target": target,
        "level": report.level,
        "verdict": report.verdict.value,
        "detail": report.detail,
        "bounds": report.bounds,
        "notes": report.notes,
        "coverage": report.coverage(),
        "summary": {v.value: report.count(v) for v in Verdict},
        "random_states": report.random_states,
        "not_checked": [str(c) for c in report.not_checked],
        "solvers": versions(),
        "configurations": [
            {
                "config": {
                    "vlen": r.cfg.vlen,
                    "elen": r.cfg.elen,
                    "sew": r.cfg.sew,
                    "lmul": r.cfg.lmul,
                    "vlmax": r.cfg.vlmax,
                },
                "verdict": r.verdict.value,
                "method": r.method,
                "seconds": round(r.seconds, 3),
                "random_states": r.random_states,
                "output": r.output,
                "notes": r.notes,
                "cut_witness": r.cut_witness,
                "checks": [
                    {
                        "tail": c.tail,
                        "method": c.method,
                        "verdict": c.verdict.value,
                        "solver": c.solver,
                        "detail": c.detail,
                        "witness": c.witness,
                        "seconds": round(c.seconds, 3),
                    }
                    for c in r.checks
                ],
            }
            for r in report.results
        ],
        "output": report.output,
        "counterexample": cx.to_json() if cx is not None else None,
    }
