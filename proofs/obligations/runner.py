"""Running the catalogue's obligations: one obligation, one subject, one configuration, by
the compositional method (its parts, each one query, answers shared across configurations
that pose the same formula) or by one monolithic query; the configuration's `Setting` is
built once and kept while it is in use."""

from __future__ import annotations

import gc
import json
import time
from contextlib import contextmanager
from dataclasses import dataclass, field

from vredmax.proofs.engine import answers
from vredmax.proofs.engine import compositional as comp
from vredmax.proofs.engine.setting import Setting, bounds_text
from vredmax.proofs.engine.verdict import Answer, Verdict, about, judging
from vredmax.proofs.obligations.catalogue import METHODS, MONOLITHIC_LIMIT, Obligation
from vredmax.spec import relation as spec
from vredmax.spec import z3fast as fast
from vredmax.spec.config import Config


@dataclass
class Result:
    obligation: Obligation
    cfg: Config
    subject: str
    method: str
    answer: Answer
    parts: list = field(default_factory=list)  # (part text, Answer), in order
    files: list = field(default_factory=list)  # SMT-LIB2 files written for it (with an exporter)
    # where each part's answer came from: "asked" (for this configuration, in this process),
    # "reused" (asked for another configuration: the ELEN twin) or "kept" (the answer store)
    origins: list = field(default_factory=list)

    @property
    def id(self) -> str:
        return self.obligation.id(self.cfg.sew)

    @property
    def bounds(self) -> str:
        if self.obligation.kind == "lemma":
            return f"SEW={self.cfg.sew}, all bit patterns (any VLEN, LMUL, VLMAX)"
        if self.obligation.kind == "vtype":
            return f"VLEN={self.cfg.vlen} ELEN={self.cfg.elen}, every 64-bit vtype value"
        return bounds_text(self.cfg)


_SETTINGS: dict = {}
_ANSWERS: dict = {}
_ANSWERED_AT: dict = {}  # a key of _ANSWERS -> the configuration whose proof put it there


def _answer_key(obligation: Obligation, key: tuple) -> tuple:
    """The key an answer is kept under. ELEN decides which configurations are legal and which
    vtype values are vill, but no query about a configuration mentions it (the pre-state's vill
    bit is free): the queries of (VLEN, 32, SEW, LMUL) and (VLEN, 64, SEW, LMUL) are the same
    formula (tests/test_small_machines.py compares their SMT-LIB2 text), so one answer serves
    both. The vtype obligations are about ELEN itself and keep it."""
    if obligation.kind == "vtype":
        return key
    found = _WITHOUT_ELEN.get(key)
    if found is None:
        found = _WITHOUT_ELEN[key] = _without_elen(key)
    return found


_WITHOUT_ELEN: dict = {}  # a part's key -> the same without ELEN (asked for every part of every run)


def _without_elen(item):
    if isinstance(item, Config):
        return ("config", item.vlen, item.sew, item.lmul)
    if isinstance(item, tuple):
        return tuple(_without_elen(x) for x in item)
    return item


def setting_for(cfg: Config) -> Setting:
    """One Setting per configuration, the last few kept (a big one holds large terms)."""
    if cfg not in _SETTINGS:
        if len(_SETTINGS) >= 2:
            _SETTINGS.pop(next(iter(_SETTINGS)))
            _forget_terms()
        _SETTINGS[cfg] = Setting(cfg)
    return _SETTINGS[cfg]


def run(
    obligation: Obligation,
    cfg: Config,
    subject: str,
    method: str = "compositional",
    timeout_s: float = 60,
    setting: Setting | None = None,
    exporter=None,
) -> Result:
    """Prove one obligation of one subject for one configuration.

    `setting` overrides the shared one (e.g. with a user's reduction unit: answers are then
    not cached); `exporter` (proofs/engine/export.py) writes each query as SMT-LIB2.
    """
    if method not in METHODS:
        raise ValueError(f"method: must be one of {', '.join(METHODS)}, got {method!r}")
    if subject not in obligation.subjects:
        raise ValueError(
            f"subject: {obligation.name} is proved of {', '.join(obligation.subjects)}, not {subject!r}"
        )
    s = setting if setting is not None else setting_for(cfg)
    timeout_ms = int(timeout_s * 1000)
    start = time.perf_counter()
    files: list = []
    if method == "monolithic":
        work = obligation.monolithic(s, subject)
        if exporter is not None:
            files += exporter.write(cfg, ("monolithic", obligation.name, subject), obligation.sentence, work)
        with about(part="one query over the whole instruction"):
            answer = comp.check(work, timeout_ms)
        answer.seconds = time.perf_counter() - start
        result = Result(
            obligation, cfg, subject, method, answer, [("one query over the whole instruction", answer)]
        )
        result.files = files
        return result
    parts, origins = [], []
    verdict_answer = None
    # kept parts (proofs/engine/answers.py) carry no second opinion: unused while a judge decides
    store = answers.current() if setting is None and _built_in_units() and judging() is None else None
    for part in obligation.compositional(s, subject):
        key = _answer_key(obligation, part.key)
        answer = _ANSWERS.get(key) if setting is None else None
        if answer is not None and answer.judged is not judging():  # judged by another judge, or none
            answer = None
        origin = "reused" if answer is not None and _ANSWERED_AT.get(key) != cfg else "asked"
        material = None
        if answer is None and store is not None:
            material = _part_material(key)
            answer = _kept_part(store, material)
            if answer is not None:
                _ANSWERS[key], _ANSWERED_AT[key] = answer, cfg
                origin = "kept"
        origins.append(origin)
        work = None
        if answer is None or (exporter is not None and not exporter.has(part.key)):
            work = part.build()
        if exporter is not None:
            files += exporter.write(cfg, part.key, part.text, work)
        if answer is None:
            with about(part=part.text):
                answer = comp.check(work, timeout_ms)
            if setting is None and answer.verdict != Verdict.UNKNOWN:
                _ANSWERS[key], _ANSWERED_AT[key] = answer, cfg
            if material is not None and answer.verdict == Verdict.PROVED:
                store.put(material, {"verdict": "PROVED", "detail": answer.detail, "solver": answer.solver})
        parts.append((part.text, answer))
        if answer.verdict != Verdict.PROVED:
            verdict_answer = _failed(obligation, cfg, subject, s, part, answer, timeout_s)
            break
    if verdict_answer is None:
        solvers = sorted({a.solver for _, a in parts})
        verdict_answer = Answer(Verdict.PROVED, 0.0, f"{len(parts)} parts", solver="+".join(solvers))
    verdict_answer.seconds = time.perf_counter() - start
    result = Result(obligation, cfg, subject, method, verdict_answer, parts, origins=origins)
    result.files = files
    return result


def _built_in_units() -> bool:
    """The algorithms are the ones in impl/ (a plugin may swap one in: then no part's verdict
    is taken from the store, since the code fingerprint would not cover it)."""
    from vredmax.impl import ALGORITHMS, lanes, sequential, tree

    return (
        ALGORITHMS.get("sequential") is sequential.reduce_sequential
        and ALGORITHMS.get("tree") is tree.reduce_tree
        and ALGORITHMS.get("lanes") is lanes.reduce_lanes
        and len(ALGORITHMS) == 3
    )


def _part_material(key: tuple) -> str | None:
    """The store's key material for a part's verdict: its key in the catalogue as text (None
    when an item has no stable text)."""

    def text(item):
        if isinstance(item, tuple):
            inner = [text(x) for x in item]
            return None if None in inner else "(" + " ".join(inner) + ")"
        if isinstance(item, (bool, int)) or item is None:
            return repr(item)
        if isinstance(item, str):
            return json.dumps(item)
        if isinstance(item, Config):
            return f"(config {item.vlen} {item.elen} {item.sew} {item.lmul})"
        if callable(item) and getattr(item, "__module__", "").startswith("vredmax.impl."):
            return f"<{item.__module__}.{item.__qualname__} {item.__name__}>"
        return None

    shown = text(key)
    return None if shown is None else answers.part_material(shown)


def _kept_part(store, material: str | None) -> Answer | None:
    entry = store.get(material) if material is not None else None
    if entry is None or entry.get("verdict") != "PROVED":
        return None
    return Answer(Verdict.PROVED, 0.0, str(entry.get("detail", "")), solver=str(entry.get("solver", "z3")))


def _failed(obligation, cfg, subject, s, part, answer, timeout_s) -> Answer:
    """The obligation's verdict when one part of its compositional proof is not proved."""
    where = f"{part.text}: {answer.detail}".rstrip(": ")
    if answer.verdict != Verdict.COUNTEREXAMPLE or part.decisive:
        return Answer(answer.verdict, 0.0, where, answer.model, answer.solver)
    if cfg.vlmax <= MONOLITHIC_LIMIT and obligation.monolithic is not None:
        direct = comp.check(obligation.monolithic(s, subject), int(timeout_s * 1000))
        return Answer(
            direct.verdict,
            0.0,
            f"decided by the monolithic query, since the compositional proof does not go through ({where})",
            direct.model,
            direct.solver,
        )
    return Answer(
        Verdict.UNKNOWN,
        0.0,
        f"the compositional proof does not go through: {where}",
        answer.model,
        answer.solver,
    )


_UNCOLLECTED: list = []  # objects made by the blocks whose garbage waits for the next block
_PAUSED: list = []  # the blocks open now (nested blocks are one)
# A block that made fewer objects than this leaves its garbage for later (a collection walks
# every live object: 0.1 s each, 60 of them in a warm `prove` that builds hardly any terms).
FEW_OBJECTS = 200_000


@contextmanager
def collector_paused():
    """Pause Python's cycle collector while proving a configuration: it would walk the
    millions of live Z3 references over and over (measured: a quarter of the time at
    VLEN=65536, LMUL=8). The block's objects are then frozen (no automatic collection walks
    them) and its garbage is collected when the next block starts, not at its end: after the
    last one the process ends (measured: 1-2 s saved at VLEN=65536)."""
    outermost = not _PAUSED
    was_enabled = gc.isenabled()
    gc.disable()
    if outermost and _UNCOLLECTED:
        gc.unfreeze()
        if sum(_UNCOLLECTED) > FEW_OBJECTS:
            _UNCOLLECTED.clear()
            gc.collect()
    _PAUSED.append(True)
    try:
        yield
    finally:
        _PAUSED.pop()
        if outermost:
            _UNCOLLECTED.append(gc.get_count()[0])
            gc.freeze()
        if was_enabled:
            gc.enable()


def _forget_terms() -> None:
    """Drop the tables of terms kept across queries (a sweep would otherwise keep every
    configuration's terms alive)."""
    fast.clear_memo()
    comp._INCLUSION.clear()
    spec._TAILS.clear()


def clear_caches() -> None:
    _SETTINGS.clear()
    _ANSWERS.clear()
    _ANSWERED_AT.clear()
    _forget_terms()
