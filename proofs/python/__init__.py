"""Checking a user's Python implementation against the spec (`vredmax check-impl`): the
driver (`check_impl`, with its parts `loading`, `configurations`, `running`,
`concrete_first`, `methods`, `shrink`, `results`), the child process that runs user code
(`isolation`), the refusal of truth tests of solver terms (`truth_guard`), and the cut-point
method (`trace`, `cutpoint`, `cutstep`). Uses the engine only."""
