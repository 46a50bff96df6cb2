"""A conformance run: seeded cases through the harness under an emulator, each compared with
the specification's executable semantics (impl.execute, sequential algorithm)."""

from __future__ import annotations

import time
from collections import Counter
from pathlib import Path
from dataclasses import dataclass, field

from vredmax.impl.execute import execute
from vredmax.platforms.conformance.cases import Case, random_cases
from vredmax.platforms.conformance.compare import AGREE, MISMATCH, RESERVED_EXECUTED, Verdict, compare
from vredmax.platforms.conformance.pipe import Harness

CHUNK = 256  # cases per streamed batch: bounds memory, gives progress


def detail(verdict: Verdict) -> str:
    """The sub-heading a verdict is counted under."""
    if verdict.kind == AGREE:
        why = verdict.rule or verdict.spec.reason
        return f"{verdict.spec.outcome} ({why})" if why else verdict.spec.outcome
    if verdict.kind == RESERVED_EXECUTED and verdict.plain is not None:
        return verdict.rule + (", as the plain reading" if verdict.plain else ", not as the plain reading")
    return verdict.rule


@dataclass
class Tally:
    """Counts by verdict and by (verdict, outcome or rule), the first mismatches, the time."""

    cases: int = 0
    kinds: Counter = field(default_factory=Counter)
    details: Counter = field(default_factory=Counter)
    mismatches: list[tuple[Case, Verdict]] = field(default_factory=list)
    seconds: float = 0.0

    def add(self, case: Case, verdict: Verdict, keep: int) -> None:
        self.cases += 1
        self.kinds[verdict.kind] += 1
        self.details[(verdict.kind, detail(verdict))] += 1
        if verdict.kind == MISMATCH and len(self.mismatches) < keep:
            self.mismatches.append((case, verdict))

    @property
    def agreed(self) -> bool:
        return self.cases > 0 and self.kinds[MISMATCH] == 0

    @property
    def rate(self) -> float:
        return self.cases / self.seconds if self.seconds else 0.0


def check_case(observation, case: Case, tail: str) -> Verdict:
    return compare(case, execute(case.pre, case.insn, "sequential", tail), observation, tail)


def check_batch(item) -> list[Verdict]:
    """One batch of cases on a harness of its own: the unit of work of `conform_on` (a worker
    process or a Dask worker runs it). `item` is (the Emulator, the harness path, the spec's
    tail policy, cases)."""
    emulator, harness_path, tail, batch = item
    with Harness(emulator, Path(harness_path)) as harness:
        return [
            check_case(observation, case, tail) for case, observation in zip(batch, harness.run_many(batch))
        ]


def conform_on(
    workers, emulator, harness_path, cases: int, seed: int, keep: int = 3, progress=None, tail=None
) -> Tally:
    """`conform` with the batches spread by vredmax/cli/cluster.py (`workers`, entered): the
    same cases from the same seed, the same tally (kept mismatches are the first ones in case
    order). Batches are made as workers take them and counted in order as they come back, so
    memory stays bounded. The emulator and the harness must be at the same paths on every
    worker."""
    tail = emulator.tail if tail is None else tail
    start, generator = time.monotonic(), random_cases(seed, cases, emulator.vlen, emulator.elen)
    waiting: dict = {}  # batch index -> its cases, until counted

    def items():
        for index, done in enumerate(range(0, cases, CHUNK)):
            waiting[index] = [next(generator) for _ in range(min(CHUNK, cases - done))]
            yield (emulator, str(harness_path), tail, waiting[index])

    tally, returned, next_index = Tally(), {}, 0
    for index, verdicts in workers.map_unordered(check_batch, items()):
        returned[index] = verdicts
        while next_index in returned:
            for case, verdict in zip(waiting.pop(next_index), returned.pop(next_index)):
                tally.add(case, verdict, keep)
            next_index += 1
        tally.seconds = time.monotonic() - start
        if progress:
            progress(tally.cases + sum(len(v) for v in returned.values()), cases, tally)
    return tally


def conform(harness: Harness, cases: int, seed: int, keep: int = 3, progress=None, tail=None) -> Tally:
    """Run `cases` seeded cases, keeping the first `keep` mismatches; `progress(done, total,
    tally)` is called after each batch. The spec uses the harness's tail policy unless `tail`
    says otherwise (the tests use that to check that a wrong policy is caught)."""
    tail = harness.tail if tail is None else tail
    tally, start = Tally(), time.monotonic()
    generator = random_cases(seed, cases, harness.vlen, harness.elen)
    while tally.cases < cases:
        batch = [next(generator) for _ in range(min(CHUNK, cases - tally.cases))]
        for case, observation in zip(batch, harness.run_many(batch)):
            tally.add(case, check_case(observation, case, tail), keep)
        tally.seconds = time.monotonic() - start
        if progress:
            progress(tally.cases, cases, tally)
    return tally
