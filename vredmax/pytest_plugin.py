"""vredmax's pytest plugin (registered as a pytest11 entry point: active wherever vredmax is
installed): a failed `==` between two execution results (impl.execute.Result, as
`vredmax.api.execute` returns), two ArchStates or two vredmax.strategies.Cases shows the
fields that differ, each register by element, instead of two reprs with 65536-bit integers."""

from __future__ import annotations


def pytest_assertrepr_compare(config, op, left, right):
    if op != "==" or type(left) is not type(right) or type(left).__module__.split(".")[0] not in ("vredmax",):
        return None
    from vredmax.presentation.differences import differences  # here: pytest starts without z3

    found = differences(left, right)
    if not found:
        return None
    name = type(left).__name__
    count = f"{len(found)} field differs" if len(found) == 1 else f"{len(found)} fields differ"
    return [f"{name}(...) == {name}(...): {count} (left != right)"] + [f"  {line}" for line in found]
