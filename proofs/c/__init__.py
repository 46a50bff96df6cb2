"""check-c: checking emulator code in C (a reduction unit or a whole step) against the spec."""
