"""Render the formal statement of a proof obligation readably, from its actual encoding.

The obligation's monolithic query is built at a tiny configuration (VLMAX = 2 or 4) and
printed after replacing the spec's named sub-terms by names a reader knows: `vs1[0]`,
`vs2[i]`, `active[i]`, `vd'[0]`, `legal`, `retires_with_elements`, `spec_allows(...)`...
So the text shown in docs/SEMANTICS.md is the formula the solver was given, not a paraphrase.
"""

from __future__ import annotations

import io
from typing import Any, Callable, Protocol

import z3
from z3 import z3printer

from vredmax.proofs.engine.compositional import Query
from vredmax.proofs.engine.setting import IMPLEMENTATIONS, SPEC, Run, Setting
from vredmax.spec import relation as spec
from vredmax.spec.config import Config

# Tiny configurations to render at, the first one the obligation applies to.
RENDER_CONFIGS = (Config(128, 64, 64, "m1"), Config(128, 64, 64, "m2"), Config(128, 64, 32, "mf2"))
MAX_CHARS = 2000


class Obligation(Protocol):
    """What is read of a proof obligation (proofs/obligations/catalogue.py; the engine does not
    import it)."""

    @property
    def monolithic(self) -> Callable[[Setting, str], object] | None: ...
    @property
    def subjects(self) -> tuple[str, ...]: ...
    def applies(self, cfg: Config) -> bool: ...


def render_config(obligation: Obligation) -> Config | None:
    return next((cfg for cfg in RENDER_CONFIGS if obligation.applies(cfg)), None)


def _names(s: Setting, runs: dict[str, Run], twin: str = "") -> list[tuple[z3.ExprRef, z3.ExprRef]]:
    """(term, readable constant) pairs, bigger terms first. `twin` marks the names of a
    second pre-state (two-run properties): vs1_b[0], vs2_b[i], ..."""
    cfg, pre, insn = s.cfg, s.pre, s.insn
    pairs: list[tuple[z3.ExprRef, z3.ExprRef]] = []
    for label, run in runs.items():
        mark = f"{twin}'" if label == SPEC else f"{twin}'[{label}]"
        pairs.append((s.relation(run), z3.Bool(f"spec_allows{twin}{'' if label == SPEC else f'[{label}]'}")))
        pairs.append((spec.result_of(cfg, run.post, insn), z3.BitVec(f"vd{mark}[0]", cfg.sew)))
        pairs.append((z3.Select(run.post.regs, insn.vd), z3.BitVec(f"vd{mark}", cfg.vlen)))
        for field in ("vtype", "vl", "vstart"):
            value = getattr(run.post, field)
            pairs.append((value, z3.BitVec(f"{field}{mark}", value.size())))
        pairs.append((run.post.vs, z3.BitVec(f"VS{mark}", 2)))
        pairs.append((run.post.regs, z3.Array(f"regs{mark}", z3.BitVecSort(5), z3.BitVecSort(cfg.vlen))))
        pairs.append((run.outcome.trapped, z3.Bool(f"trapped{mark}")))
        pairs.append((run.outcome.illegal, z3.Bool(f"illegal_trap{mark}")))
    t = twin
    pairs += [
        (s.writes_vd, z3.Bool(f"retires_with_elements{t}")),
        (spec.defined(cfg, pre, insn), z3.Bool(f"defined{t}")),
        (s.legal, z3.Bool(f"legal{t}")),
        (s.illegal, z3.Bool(f"illegal{t}")),
        (s.reserved, z3.Bool(f"reserved{t}")),
        (spec.vta(pre), z3.Bool(f"vta{t}")),
        (s.seed, z3.BitVec(f"vs1{t}[0]", cfg.sew)),
        (z3.Extract(cfg.sew - 1, 0, z3.Select(pre.regs, insn.vd)), z3.BitVec(f"vd{t}[0]", cfg.sew)),
        (z3.Select(pre.regs, insn.vd), z3.BitVec(f"vd{t}", cfg.vlen)),
    ]
    pairs += [(a, z3.Bool(f"active{t}[{i}]")) for i, a in enumerate(s.activity)]
    pairs += [(e, z3.BitVec(f"vs2{t}[{i}]", cfg.sew)) for i, e in enumerate(s.elements)]
    pairs += [(spec.mask_bit(pre, i), z3.Bool(f"mask{t}[{i}]")) for i in range(cfg.vlmax)]
    pairs += [(pre.vs, z3.BitVec(f"VS{t}", 2))]
    seen, unique = set(), []
    for term, name in pairs:
        if term.get_id() not in seen and term.sort() == name.sort():
            seen.add(term.get_id())
            unique.append((term, name))
    return unique


def _mentions(term: z3.ExprRef, names: set[str]) -> bool:
    stack, visited = [term], set()
    while stack:
        t = stack.pop()
        if t.get_id() in visited:
            continue
        visited.add(t.get_id())
        if z3.is_const(t) and t.decl().name() in names:
            return True
        stack.extend(t.children())
    return False


def _text(term: z3.ExprRef) -> str:
    """One line, untruncated (a printer of our own: the global one cuts long terms)."""
    printer, formatter = z3printer.PP(), z3printer.Formatter()
    printer.max_lines = printer.max_width = 1 << 30
    formatter.max_args = formatter.max_depth = formatter.max_visited = 1 << 30
    out = io.StringIO()
    printer(out, formatter(term))
    return " ".join(out.getvalue().split())


SPEC_ALLOWS = "spec_allows"  # named_query's stand-in for "the free post-state is one the spec allows"


def render(obligation: Obligation) -> dict[str, Any]:
    """{"config", "assume": [...], "prove": ...} for the obligation's monolithic query."""
    named = named_query(obligation)
    if isinstance(named, str):
        return {
            "config": None if named == NO_MONOLITHIC else str(render_config(obligation)),
            "assume": [],
            "prove": named,
        }
    cfg, assumptions, goal = named
    assume = [
        "spec_allows (the post-state, primed ', is one the spec allows)"
        if isinstance(term, str)
        else _shorten(_text(term))
        for term in assumptions
    ]
    return {"config": str(cfg), "assume": assume, "prove": _shorten(_text(goal))}


NO_MONOLITHIC, NOT_SINGLE = "(no monolithic form)", "(not a single query)"


def named_query(obligation: Obligation) -> str | tuple[Config, list[z3.ExprRef | str], z3.ExprRef]:
    """(config, assumptions, goal) of the obligation's monolithic query at its render
    configuration, with readable names substituted (an assumption that is the spec relation
    of the free post-state is SPEC_ALLOWS); or NO_MONOLITHIC / NOT_SINGLE."""
    cfg = render_config(obligation)
    if cfg is None or obligation.monolithic is None:
        return NO_MONOLITHIC
    s = Setting(cfg, "")
    subject = SPEC if SPEC in obligation.subjects else obligation.subjects[0]
    query = obligation.monolithic(s, subject)
    if not isinstance(query, Query):
        return NOT_SINGLE
    runs = {SPEC: s.free_run}
    runs.update({subj: s.implementation_run(subj) for subj in IMPLEMENTATIONS})
    pairs = _names(s, runs)
    for tag, twin in s.__dict__.get("_twins", {}).items():  # the second pre-state, if any
        twin_runs = {SPEC: twin.free_run}
        twin_runs.update({subj: twin.implementation_run(subj) for subj in IMPLEMENTATIONS})
        known = {term.get_id() for term, _ in pairs}
        pairs += [
            (term, name)
            for term, name in _names(twin, twin_runs, tag.replace("_", "") and "_" + tag.strip("_"))
            if term.get_id() not in known
        ]
    wf_ids = {term.get_id() for term in s.wf}
    free = s.free_run
    assume: list[z3.ExprRef | str] = []
    for term in query.assumptions:
        if term.get_id() in wf_ids:
            continue  # "the state is one of this configuration": said once for all
        if subject == SPEC and term.eq(s.relation(free)):
            assume.append(SPEC_ALLOWS)
            continue
        assume.append(z3.substitute(term, *pairs))
    return cfg, assume, z3.substitute(query.goal, *pairs)


def _shorten(text: str) -> str:
    if len(text) <= MAX_CHARS:
        return text
    return text[:MAX_CHARS] + f" ... ({len(text)} characters in all)"
