"""A suite: the cases for one machine and profile, numbered, with what each may do; and the
files it is written as (cases.jsonl, coverage.txt, cases.S and the environment sources)."""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from pathlib import Path

from vredmax.impl.case import case_json
from vredmax.spec.profiles import Allowed, Profile, allowed, check_pre, get_profile
from vredmax.platforms.testgen.allowed import Check, check_of, option_json
from vredmax.platforms.testgen.asm import ENV_FILES, cases_source, env_source
from vredmax.platforms.testgen.build import build_script
from vredmax.platforms.testgen.cases import TestCase, coverage, directed_cases, random_suite

JSONL_KEY = "testgen"  # the one key a cases.jsonl line adds to the exec case format


@dataclass(frozen=True)
class Entry:
    number: int  # 1-based: the line of cases.jsonl, the number the programs report
    case: TestCase
    allowed: Allowed
    check: Check


@dataclass(frozen=True)
class Suite:
    vlen: int
    elen: int
    profile: Profile
    entries: tuple[Entry, ...]
    hits: dict
    missing: tuple[str, ...]
    directed: int
    random: int
    seed: int


def make_suite(
    vlen: int,
    elen: int = 64,
    profile: str | Profile = "any",
    random_count: int = 0,
    seed: int = 1,
    tail: str | None = None,
) -> Suite:
    if isinstance(profile, str):
        profile = get_profile(profile, tail)
    elif tail is not None:
        profile = profile.with_(tail=tail)
    directed = directed_cases(vlen, elen)
    extra = random_suite(vlen, elen, random_count, seed) if random_count else []
    if profile.frac_sew == "vill":  # the profile says vsetvl refuses SEW > LMUL*ELEN: accepting it fails
        directed, extra = ([replace(c, setup_optional=False) for c in cases] for cases in (directed, extra))
    entries = []
    for number, case in enumerate(directed + extra, 1):
        check_pre(case.pre, profile)
        outcomes = allowed(case.pre, case.insn, profile)
        entries.append(Entry(number, case, outcomes, check_of(case.pre, case.insn, outcomes)))
    hits, missing = coverage(directed + extra, vlen, elen)
    return Suite(vlen, elen, profile, tuple(entries), hits, tuple(missing), len(directed), len(extra), seed)


def jsonl_line(entry: Entry, profile: Profile) -> dict:
    """An exec case plus "testgen": number, name, coverpoints, how the programs reach the
    pre-state (vsetvl's vtype and AVL), the profile and its allowed outcomes."""
    case = entry.case
    line = case_json(case.pre, case.insn)
    line.pop("tail", None)  # the allowed outcomes say what an agnostic tail may hold
    line[JSONL_KEY] = {
        "number": entry.number,
        "name": case.name,
        "coverpoints": list(case.coverpoints),
        "setup": {
            "vsetvl_vtype": case.requested_vtype,
            "avl": case.avl,
            "optional_vtype": case.setup_optional,
        },
        "profile": profile.name,
        "allowed": [option_json(case.pre, option) for option in entry.allowed.outcomes],
    }
    return line


def exec_case(line: dict) -> dict:
    """A cases.jsonl line as the exec / judge case format (without the testgen key)."""
    return {key: value for key, value in line.items() if key != JSONL_KEY}


def coverage_table(suite: Suite) -> list[str]:
    width = max(len(name) for name in suite.hits)
    lines = [f"{'coverpoint':<{width}}  cases"]
    lines += [f"{name:<{width}}  {count}" for name, count in sorted(suite.hits.items())]
    return lines


def write_suite(
    suite: Suite, out: Path, funct6: int | None = None, title: str = "", after_word: str = ""
) -> list[Path]:
    """Write the suite's files into `out`; `funct6` writes a mutant (the instruction word's
    operation replaced) and leaves cases.jsonl and the coverage out; `after_word` see
    asm.cases_source."""
    out.mkdir(parents=True, exist_ok=True)
    written = []
    if funct6 is None:
        with open(out / "cases.jsonl", "w") as stream:
            for entry in suite.entries:
                stream.write(json.dumps(jsonl_line(entry, suite.profile), separators=(",", ":")) + "\n")
        (out / "coverage.txt").write_text("\n".join(coverage_table(suite)) + "\n")
        written += [out / "cases.jsonl", out / "coverage.txt"]
    numbered = [(e.number, e.case, e.check) for e in suite.entries]
    title = title or (
        f"vredmax.vs suite, profile {suite.profile.name}"
        + (f", MUTANT funct6={funct6:06b}" if funct6 is not None else "")
    )
    (out / "cases.S").write_text(cases_source(suite.vlen, suite.elen, numbered, funct6, title, after_word))
    written.append(out / "cases.S")
    for name in ENV_FILES:
        (out / name).write_text(env_source(name))
        written.append(out / name)
    script = out / "build.sh"
    script.write_text(build_script())
    script.chmod(0o755)
    written.append(script)
    return written
