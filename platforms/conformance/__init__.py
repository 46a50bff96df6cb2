"""Conformance against independent implementations: GNU binutils for the encoding
(gnu.py), a user-mode emulator running a small riscv64 harness for execution (harness.c,
harness.S, build.py, protocol.py, qemu.py), with seeded or Hypothesis-drawn cases
(cases.py) compared with the specification (compare.py, run.py)."""
