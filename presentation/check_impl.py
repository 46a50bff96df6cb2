"""A check-impl run (proofs/python/check_impl.py's Report) as text and as JSON data: the lines
`vredmax check-impl` prints and `vredmax.api.CheckReport.text()` returns, and the JSON object of
`--json` (without its schema tag)."""

from __future__ import annotations

import json

from vredmax.presentation.counterexamples import counterexample_lines
from vredmax.proofs.engine.solvers import versions
from vredmax.proofs.engine.verdict import Verdict
from vredmax.proofs.python.check_impl import INSTRUCTION, UNIT

LEVEL_TEXT = {UNIT: "reduction unit reduce(ops, seed, elements, active), run inside impl.execute.step",
              INSTRUCTION: "whole instruction step(m, pre, insn, cfg, tail) -> (traps, post)"}


def result_line(result) -> str:
    cfg = result.cfg
    text = (f"{str(cfg):<37} VLMAX={cfg.vlmax:<6} {result.method:<11} {result.seconds:6.1f} s"
            + (f"  {result.random_states} random" if result.random_states else ""))
    for note in result.notes:
        text += f"\n    note: {note}"
    for check in result.checks:
        if check.verdict != Verdict.PROVED:
            text += f"\n    {check.verdict.value} (tail {check.tail}, {check.method}): {check.detail}"
    return text


INLINE_CASE_LIMIT = 400   # characters of a case shown inline (VLEN=65536 registers are not)


def report_lines(report, case_out: str | None = None) -> list[str]:
    lines = [""]
    if report.counterexample is not None:
        cx = report.counterexample
        lines += counterexample_lines(cx) + [""]
        case = json.dumps(cx_case(cx))
        if case_out:
            lines += ["Replay it:", f"  vredmax exec {case_out}    # the case, written there", ""]
        elif len(case) <= INLINE_CASE_LIMIT:
            lines += ["Replay it:", f"  vredmax exec case.json    # case.json: {case}", ""]
        else:
            lines += [f"Replay it: the case has {len(case)} characters; write it with --case-out FILE "
                      "(or take counterexample.case from --json), then vredmax exec FILE", ""]
    outputs: dict[str, list[str]] = {}    # the same output at many configurations: shown once
    for where, text in [("while loading", report.output)] + [(f"at {r.cfg}", r.output) for r in report.results]:
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
        lines.append(f"{verdict.value}: {report.detail}")
        if report.bounds:
            lines.append("proved:")
    lines += [f"  {b}" for b in report.bounds]
    if report.not_checked:
        lines.append(f"not checked (stopped at the counterexample): {len(report.not_checked)} configurations")
    lines.append(f"Covered: {report.coverage()}")
    lines.append(report.summary())
    return lines


def cx_case(cx) -> dict:
    from vredmax.impl.case import case_json
    return case_json(cx.pre, cx.insn, cx.tail)


def report_json(target: str, report) -> dict:
    cx = report.counterexample
    return {
        "target": target, "level": report.level, "verdict": report.verdict.value,
        "detail": report.detail, "bounds": report.bounds, "notes": report.notes,
        "coverage": report.coverage(),
        "summary": {v.value: report.count(v) for v in Verdict},
        "random_states": report.random_states,
        "not_checked": [str(c) for c in report.not_checked],
        "solvers": versions(),
        "configurations": [{
            "config": {"vlen": r.cfg.vlen, "elen": r.cfg.elen, "sew": r.cfg.sew, "lmul": r.cfg.lmul,
                       "vlmax": r.cfg.vlmax},
            "verdict": r.verdict.value, "method": r.method, "seconds": round(r.seconds, 3),
            "random_states": r.random_states, "output": r.output, "notes": r.notes,
            "checks": [{"tail": c.tail, "method": c.method, "verdict": c.verdict.value, "solver": c.solver,
                        "detail": c.detail, "seconds": round(c.seconds, 3)} for c in r.checks],
        } for r in report.results],
        "output": report.output,
        "counterexample": cx.to_json() if cx is not None else None,
    }
