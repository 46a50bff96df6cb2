"""A counterexample trace as a VCD waveform (GTKWave, Surfer): one clock period per cycle."""

from __future__ import annotations

import string

PERIOD = 10


def _code(k: int) -> str:
    chars = string.ascii_letters + string.digits + "!#$%&'()*+,-./:;<=>?@[]^_`{|}~"
    out = ""
    k += 1
    while k:
        k, r = divmod(k - 1, len(chars))
        out = chars[r] + out
    return out


def vcd_text(cycles: list[dict], widths: dict[str, int], module: str = "dut") -> str:
    """`cycles[t][signal]` is the value during cycle t; `clk` is drawn rising at each cycle."""
    names = ["clk"] + [name for name in widths if name != "clk"]
    codes = {name: _code(k) for k, name in enumerate(names)}
    width = {**widths, "clk": 1}
    lines = ["$timescale 1ns $end", f"$scope module {module} $end"]
    scopes: dict = {}
    for name in names:  # `reg.acc` goes into a scope `reg` (a dot would read as hierarchy)
        scope, _, leaf = name.rpartition(".") if name.startswith(("reg.", "spec.")) else ("", "", name)
        scopes.setdefault(scope, []).append((name, leaf))
    for scope, members in scopes.items():
        if scope:
            lines.append(f"$scope module {scope} $end")
        for name, leaf in members:
            safe = "".join(c if c.isalnum() or c in "_[]" else "_" for c in leaf)
            lines.append(f"$var wire {width[name]} {codes[name]} {safe} $end")
        if scope:
            lines.append("$upscope $end")
    lines += ["$upscope $end", "$enddefinitions $end"]

    def change(name, value):
        value = int(value)
        if width[name] == 1:
            return f"{value & 1}{codes[name]}"
        return f"b{value:b} {codes[name]}"

    previous: dict = {}
    for t, cycle in enumerate(cycles):
        lines.append(f"#{t * PERIOD}")
        lines.append(change("clk", 0))
        for name in names[1:]:
            value = cycle.get(name, 0)
            if previous.get(name) != value:
                lines.append(change(name, value))
                previous[name] = value
        lines.append(f"#{t * PERIOD + PERIOD // 2}")
        lines.append(change("clk", 1))
    lines.append(f"#{len(cycles) * PERIOD}")
    return "\n".join(lines) + "\n"


def write_vcd(path: str, cycles: list[dict], widths: dict[str, int], module: str = "dut") -> None:
    with open(path, "w") as f:
        f.write(vcd_text(cycles, widths, module))
