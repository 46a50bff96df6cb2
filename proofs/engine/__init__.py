"""The proof engine: what every proof capability uses to pose a query and read its verdict.

Imports `spec`, `impl` and `runtime` only; never a capability of `proofs` (obligations,
claims, python, rtl).
"""
