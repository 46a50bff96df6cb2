"""Running vredmax.vs on real platforms and comparing with the spec: generated test suites
that run anywhere (`testgen`) and conformance runs against GNU binutils and QEMU
(`conformance`).

May import `spec`, `impl` and `runtime`; not `proofs`, `presentation` or the CLI.
"""
