"""Solver queries and their verdicts.

- `engine/`: the proof engine every capability uses: verdicts and the vacuity guard
  (`verdict`), the solvers (`solvers`), the setting of one configuration (`setting`,
  `statement`), the compositional method (`compositional`, `semilattice`, `lemmas`, `folding`),
  counterexamples as data (`counterexample`), SMT-LIB export (`export`).
- `obligations/`: the project's own proofs: the catalogue of obligations and how each is run.
- `claims/`: wrong beliefs refuted (`claims`, `refute`), the claim language and `ask`.
- `python/`: checking a user's Python implementation (`check-impl`).
- `rtl/`: checking a user's RTL unit through Yosys (`check-rtl`).

May import `spec`, `impl` and `runtime`. A capability imports the engine, never another
capability (checked by import-linter: tests/test_architecture.py).
"""
