"""Certificates for the proofs' solver questions (`vredmax prove --certify DIR`).

`route` decides each question again by bit-blasting (`blast`), a SAT solver that logs a DRAT
proof (`sat`) and a proof checker that shares no code with either (`check`); `store` keeps the
CNFs, proofs and models and the manifest. `check` and `store` import no z3: `vredmax
certify-check DIR` re-checks a directory with them alone.
"""
