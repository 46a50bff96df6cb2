"""Write the queries of proofs as SMT-LIB2 scripts (`vredmax prove --smt2-out DIR`).

Every script asserts the assumptions, names the negated goal and asks
`(check-sat)` (expect sat: not vacuous) then `(check-sat-assuming (vredmax_negated_goal))`
(expect unsat: proved). A part shared by several obligations is written once; the
manifest (manifest.jsonl) lists, for each obligation, configuration and subject, its files.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import z3

from vredmax.runtime.outputs import append_line, write_text
from vredmax.proofs.engine.compositional import Batch, Cases, Generalized, Query, Witnessed
from vredmax.proofs.engine.solvers import smt2_script
from vredmax.spec import z3fast as fast
from vredmax.spec.config import Config


def slug(value: object) -> str:
    text = re.sub(r"[^A-Za-z0-9_.=-]+", "-", str(value)).strip("-")
    return text[:150]


def config_slug(cfg: Config) -> str:
    return f"vlen{cfg.vlen}-elen{cfg.elen}-sew{cfg.sew}-{cfg.lmul}"


def scripts(
    work: Query | Batch | Cases | Witnessed | Generalized, comments: list[str]
) -> list[tuple[str, str]]:
    """(suffix, script) for each solver question a piece of work asks."""
    if isinstance(work, Generalized):  # the claim itself; the generalization is a shortcut
        return scripts(work.work(), comments)
    if isinstance(work, Query):
        return [("", smt2_script(work.assumptions, work.goal, comments))]
    if isinstance(work, Cases):
        return [
            (
                f"-case-{slug(name)}",
                smt2_script(work.assumptions + [when], goal, comments + [f"case: {name}"]),
            )
            for name, when, goal in work.cases
        ]
    if isinstance(work, Batch):
        if work.problem:
            return []
        goal = fast.and_(*[a == b for a, b in work.pairs])
        return [("", smt2_script(work.assumptions, goal, comments))]
    if isinstance(work, Witnessed):
        # the witness narrows the search; the conditions it decided as built are left out
        return [("", smt2_script(work.core + work.witness + work.rest, z3.BoolVal(True), comments))]
    raise TypeError(type(work).__name__)


class Exporter:
    def __init__(self, directory: str):
        self.root = Path(directory)
        self.root.mkdir(parents=True, exist_ok=True)
        self.written: dict[tuple[Any, ...], list[str]] = {}

    def has(self, key: tuple[Any, ...]) -> bool:
        return key in self.written

    def write(
        self,
        cfg: Config,
        key: tuple[Any, ...],
        text: str,
        work: Query | Batch | Cases | Witnessed | Generalized | None,
    ) -> list[str]:
        if key in self.written or work is None:
            return self.written.get(key, [])
        folder = self.root / config_slug(cfg)
        folder.mkdir(exist_ok=True)
        name = slug("_".join(str(k) for k in key if not callable(k)))
        paths = []
        for suffix, script in scripts(work, [text, str(cfg)]):
            path = folder / f"{name}{suffix}.smt2"
            write_text(path, script, "--smt2-out")  # whole or not at all; none after Ctrl-C
            paths.append(str(path.relative_to(self.root)))
        self.written[key] = paths
        return paths

    def manifest(self, record: dict[str, Any]) -> None:
        append_line(self.root / "manifest.jsonl", json.dumps(record), "--smt2-out")
