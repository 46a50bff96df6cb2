"""Rendering for people: values (`#xfe (254, -2)`), lane tables, counterexample blocks, the
human view of one execution, and the generated documents (`documents/`: the semantics
document and the manual page).

Verdict code below returns data; this layer turns it into text and pages. May import `proofs`,
`platforms`, `impl`, `spec` and `runtime`; not the CLI.
"""
