"""`vredmax ask "CLAIM"`: prove or refute your own claim about vredmax.vs against the spec.

The claim is a Python expression in the claim language (proofs/claims/claim_language.py), parsed
and never run. Verdicts and exit codes as `vredmax prove`: PROVED (0) with its bounds,
COUNTEREXAMPLE (1) minimised, shown Alive2-style and replayed on the executable model,
UNKNOWN (3), VACUOUS (4: the hypothesis of implies() holds at no configuration asked, so
nothing is proved) or ERROR (4); a claim that cannot be read exits 2 with one line naming
the column.
"""

from __future__ import annotations

import json
import textwrap

from vredmax.cli.options import hidden_alias
from vredmax.cli import configurations
from vredmax.proofs.claims.claim_language import NAMES_HELP
from vredmax.runtime.errors import EXIT_ERROR, EXIT_FAILED, EXIT_OK, EXIT_UNKNOWN, UsageError
from vredmax.schema import tagged
from vredmax.spec.config import LMUL_NAMES

EXIT_BY_VERDICT = {
    "PROVED": EXIT_OK,
    "COUNTEREXAMPLE": EXIT_FAILED,
    "UNKNOWN": EXIT_UNKNOWN,
    "ERROR": EXIT_ERROR,
}
DEFAULT_TEXT = "default: every SEW x LMUL at VLEN=128"


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "ask",
        help="prove or refute your own claim (a Python expression over pre, post, insn, ...)",
        description="Decide a claim about vredmax.vs against the spec relation: for every pre-state of each "
        "configuration (all registers, operands and overlaps symbolic) and every post-state the "
        f"spec allows. Configurations: {DEFAULT_TEXT}; --all: every legal one for the ELEN "
        '(VLEN up to 65536). Example: vredmax ask "implies(legal and pre.vl == 0, post.vd == pre.vd)". '
        f"Names: {NAMES_HELP}. Forms: and or not, == != < <= > >= (signed on elements), ult ule ugt "
        "uge, implies(a, b), smax smin umax umin, all(... for i in range(...) if ...), any(...), "
        "x if c else y, + -, integer literals.",
    )
    parser.add_argument("claim", help='the claim, e.g. "implies(legal and pre.vl > 0, post.vd[0] >= seed)"')
    parser.add_argument("--all", action="store_true", help="every legal configuration for the ELEN")
    configurations.add_options(parser)
    parser.add_argument(
        "--profile",
        default="any",
        metavar="P",
        help="narrow the spec to a profile: any (the architecture, default), sail, spike, qemu",
    )
    parser.add_argument("--timeout", default="60", metavar="SECONDS", help="per solver query (default 60)")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    hidden_alias(parser, "--emit-test", dest="emit_test")
    parser.add_argument(
        "--test-out",
        dest="emit_test",
        metavar="FILE",
        help="write a pytest file (public API only) replaying the counterexample, or "
        "sampling executions of a proved claim",
    )
    parser.set_defaults(run=run)


def select_configs(args):
    from vredmax.proofs.claims.ask import configurations as claim_configurations

    wanted = configurations.filters(args, one_elen=True)
    return configurations.chosen(
        claim_configurations(wanted.vlens, wanted.sews, wanted.lmuls, wanted.elen, args.all), wanted
    )


def run(args) -> int:
    from vredmax.runtime.outputs import check_writable_file, cut_short, write_text
    from vredmax.cli.terminal import progress, say
    from vredmax.proofs.claims import ask
    from vredmax.proofs.claims.claim_language import ClaimError, check

    try:
        check(args.claim)
    except ClaimError as error:
        raise UsageError(f"claim: {error}") from None
    configs = select_configs(args)
    if args.profile not in ask.PROFILE_NAMES:
        raise UsageError(f"--profile: must be one of {', '.join(ask.PROFILE_NAMES)}, got {args.profile!r}")
    try:
        timeout = float(args.timeout)
    except ValueError:
        raise UsageError(f"--timeout: expected seconds, got {args.timeout!r}") from None
    if not timeout > 0:
        raise UsageError(f"--timeout: expected a positive number of seconds, got {args.timeout!r}")
    if args.emit_test:
        check_writable_file(args.emit_test, "--test-out")

    decided = []
    try:
        with cut_short(), progress(len(configs), "ask", quiet=args.json) as bar:

            def decision_made(decision):
                decided.append(decision)
                if not args.json:
                    bar.log(decision_line(decision))
                bar.advance(str(decision.cfg))

            asked = ask.ask(args.claim, configs, args.profile, int(timeout * 1000), on_decision=decision_made)
    except ClaimError as error:
        raise UsageError(f"claim: {error}") from None
    except KeyboardInterrupt:
        say(f"INTERRUPTED after {len(decided)} of {len(configs)} configurations: no verdict")
        raise
    if args.emit_test:
        from vredmax.proofs.claims.emit_test import ask_file

        write_text(args.emit_test, ask_file(asked), "--test-out")
    if args.json:
        print(json.dumps(result_json(asked, configs), indent=2))
    else:
        say("\n".join(summary_lines(asked, configs)))
    return EXIT_BY_VERDICT[asked.verdict.value]


WIDTH = 80  # the lines of a terminal, wrapped here so that no line is wider


def _wrap(text: str, indent: str = "  ") -> list[str]:
    return textwrap.wrap(
        text, WIDTH, subsequent_indent=indent, break_long_words=False, break_on_hyphens=False
    )


def decision_line(decision) -> str:
    """One configuration's verdict in 80 columns: the verdict, the configuration, the time."""
    verdict = "VACUOUS" if decision.vacuous else decision.verdict.value
    text = f"{verdict:<16} {str(decision.cfg) + f' VLMAX={decision.cfg.vlmax}':<46} {decision.seconds:>7.2f}s"
    if decision.verdict.value != "PROVED" and decision.detail:
        text += "\n" + "\n".join(
            textwrap.wrap(
                decision.detail,
                WIDTH,
                initial_indent="    ",
                subsequent_indent="    ",
                break_long_words=False,
            )
        )
    return text


def summary_lines(asked, configs) -> list[str]:
    from vredmax.presentation.counterexamples import ask_counterexample_lines

    lines = []
    if asked.counterexample is not None:
        lines += [""] + ask_counterexample_lines(asked.counterexample)
        lines += [
            "",
            "Case for `vredmax exec` (save as case.json):",
            json.dumps(_case(asked.counterexample), indent=1),
        ]
    done = len(asked.decisions)
    counts = {v: sum(d.verdict.value == v for d in asked.decisions) for v in EXIT_BY_VERDICT}
    lines += ["", f"Claim: {asked.claim}", f"Profile: {asked.profile}"]
    verdict = asked.verdict.value
    if verdict == "PROVED":
        vacuous = sum(d.vacuous for d in asked.decisions)
        lines += _wrap(
            f"Bounds: {_bounds(configs)}; at each, vl 0..VLMAX and vd vs2 vs1 vm vta vma vill "
            "vstart VS and all 32 registers symbolic, every post-state the spec allows"
            + (f" ({vacuous} configurations vacuous: the hypothesis never holds there)" if vacuous else "")
        )
    elif verdict != "COUNTEREXAMPLE" and asked.detail and not asked.vacuous:
        lines += _wrap(f"Why: {asked.detail}")
    if asked.stopped_early:
        lines += _wrap(
            f"(stopped at the first counterexample: {done} of {len(configs)} configurations decided)"
        )
    if asked.vacuous:  # nothing is proved: not a proof, and not an error of the tool either
        lines += _wrap(
            f"Verdict: VACUOUS  (the hypothesis of implies() holds at none of the {done} "
            "configurations asked: the claim says nothing there; exit 4)"
        )
        return lines
    lines += _wrap(
        f"Verdict: {verdict}  ({counts['PROVED'] - sum(d.vacuous for d in asked.decisions)} proved"
        + (
            f", {sum(d.vacuous for d in asked.decisions)} vacuous"
            if any(d.vacuous for d in asked.decisions)
            else ""
        )
        + f", {counts['COUNTEREXAMPLE']} counterexample, {counts['UNKNOWN']} unknown, {counts['ERROR']} errors)"
    )
    return lines


def _bounds(configs) -> str:
    vlens = sorted({c.vlen for c in configs})
    elens = sorted({c.elen for c in configs})
    where = f"VLEN={vlens[0]}" if len(vlens) == 1 else f"VLEN {vlens[0]}..{vlens[-1]}"
    sews = sorted({c.sew for c in configs})
    lmuls = [name for name in LMUL_NAMES if any(c.lmul == name for c in configs)]
    return (
        f"{len(configs)} configurations ({where}, ELEN={'/'.join(map(str, elens))}, "
        f"SEW {'/'.join(map(str, sews))} x LMUL {'/'.join(lmuls)} where legal)"
    )


def _case(cx) -> dict:
    from vredmax.impl.case import case_json

    return case_json(cx.pre, cx.insn, cx.tail)


def result_json(asked, configs) -> dict:
    from vredmax.proofs.claims.ask import counterexample_json

    cx = asked.counterexample
    return tagged(
        "ask-result",
        {
            "claim": asked.claim,
            "profile": asked.profile,
            "verdict": asked.verdict.value,
            "vacuous": asked.vacuous,
            "detail": asked.detail,
            "exit_code": EXIT_BY_VERDICT[asked.verdict.value],
            "configurations": len(configs),
            "decided": len(asked.decisions),
            "results": [
                {
                    "config": {
                        "vlen": d.cfg.vlen,
                        "elen": d.cfg.elen,
                        "sew": d.cfg.sew,
                        "lmul": d.cfg.lmul,
                        "vlmax": d.cfg.vlmax,
                    },
                    "verdict": d.verdict.value,
                    "vacuous": d.vacuous,
                    "method": d.method,
                    "detail": d.detail,
                    "bounds": d.bounds,
                    "seconds": round(d.seconds, 3),
                }
                for d in asked.decisions
            ],
            "counterexample": counterexample_json(cx) if cx is not None else None,
        },
    )
