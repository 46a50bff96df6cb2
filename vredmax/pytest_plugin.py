"""vredmax's pytest plugin (registered as a pytest11 entry point: active wherever vredmax is
installed): a failed `==` between two execution results (impl.execute.Result, as
`vredmax.api.execute` returns), two ArchStates or two vredmax.strategies.Cases shows the
fields that differ, each register by element, instead of two reprs with 65536-bit integers."""

from __future__ import annotations

from vredmax.presentation.differences import differences


def pytest_assertrepr_compare(config, op, left, right):
    if op != "==":
        return None
    found = differences(left, right)
    if not found:
        return None
    return [f"{type(left).__name__} differs in {len(found)} fields (left != right):"] + [f"  {line}" for line in found]
