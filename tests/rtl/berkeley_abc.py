#!/usr/bin/env python3
"""Debian's ABC (`berkeley-abc`) as sby's `yosys-abc`, for the tests of --emit-sby: yosys-abc's
`pdr -l` is dropped (Debian's ABC does not know it), and a counterexample's witness gets the
header yosys-abc writes (status 1, the failed property, `.` at the end), so sby reads it."""

import re
import subprocess
import sys

args = [re.sub(r"\bpdr -v -l\b", "pdr -v", a) for a in sys.argv[1:]]
done = subprocess.run(["berkeley-abc", *args], capture_output=True, text=True)
sys.stdout.write(done.stdout)
sys.stderr.write(done.stderr)
failed = re.search(r"Output (\d+) of miter .* was asserted in frame", done.stdout)
witness = re.search(r"write_cex -a (\S+?)'?(?:;|$)", " ".join(args))
if failed and witness:
    with open(witness.group(1).rstrip("'")) as f:
        lines = [line.split("#")[0].strip() for line in f.read().splitlines()]
    while lines and not lines[-1]:
        lines.pop()
    body = lines if lines[:1] != ["1"] else lines[2:]  # the latches' line, then a line per frame
    with open(witness.group(1).rstrip("'"), "w") as f:
        f.write("\n".join(["1", f"b{failed.group(1)}", *body, "."]) + "\n")
sys.exit(done.returncode)
