"""`vredmax testgen`: spec-derived test suites (cases.jsonl and self-checking RISC-V assembly)."""
