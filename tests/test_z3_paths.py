"""spec/z3fast.py: the fast path (z3 internals) and the public-API fallback give the same
verdicts, the fallback is taken (with one line on stderr) when z3's shape differs, and
VREDMAX_Z3_PUBLIC_API=1 forces it. Each run is its own process: the path is chosen at import."""

from __future__ import annotations

import json
import os
import subprocess
import sys


# A small sweep: every obligation compositionally at one configuration, a few monolithically,
# and the refutation of the first few wrong claims (COUNTEREXAMPLE verdicts must agree too).
SWEEP = r"""
import json
from vredmax.spec import z3fast
from vredmax.spec.config import Config
from vredmax.proofs.obligations import catalogue
from vredmax.proofs.obligations import runner
from vredmax.proofs.claims.claims import CLAIMS
from vredmax.proofs.claims.refute import refute
cfg = Config(128, 64, 8, "mf2")
verdicts = {}
for ob in catalogue.obligations(None, cfg):
    for subject in ob.subjects:
        verdicts[f"{ob.name}|{subject}"] = runner.run(ob, cfg, subject, "compositional", 30).answer.verdict.value
for name in ("vl0_preserves_vd", "frame", "seed_included"):
    ob = catalogue.by_name(name)
    verdicts[f"{name}|spec|monolithic"] = runner.run(ob, cfg, "spec", "monolithic", 30).answer.verdict.value
for claim in CLAIMS[:3]:
    verdicts[f"claim|{claim.id}"] = refute(claim, 20_000, minimise=False).status
print(json.dumps({"backend": z3fast.BACKEND, "verdicts": verdicts}))
"""


def _run(code: str, **env):
    environment = {k: v for k, v in os.environ.items() if k != "VREDMAX_Z3_PUBLIC_API"}
    environment.update(env)
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=600, env=environment
    )


def test_both_paths_give_the_same_verdicts():
    fast, public = _run(SWEEP), _run(SWEEP, VREDMAX_Z3_PUBLIC_API="1")
    assert fast.returncode == 0, fast.stderr
    assert public.returncode == 0, public.stderr
    fast, public = json.loads(fast.stdout), json.loads(public.stdout)
    assert fast["backend"] == "native" and public["backend"] == "public"
    assert fast["verdicts"] == public["verdicts"]
    assert len(fast["verdicts"]) > 100
    assert "PROVED" in fast["verdicts"].values() and "refuted" in fast["verdicts"].values()


BROKEN_SHAPE = r"""
import z3.z3core as C
original = C.Z3_mk_and
def Z3_mk_and(a0, a1, a2, _call=original):   # as if a z3-solver release changed its wrappers
    return _call(a0, a1, a2)
C.Z3_mk_and = Z3_mk_and
from vredmax.spec import z3fast
import z3
p, q = z3.Bool("p"), z3.Bool("q")
assert z3fast.and_(p, q, p).eq(z3.And(p, q, p))
print(z3fast.BACKEND)
"""


def test_a_different_z3_shape_falls_back_with_one_line():
    out = _run(BROKEN_SHAPE)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "public"
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("vredmax: note: z3 ") and "Z3_mk_and" in lines[0]


WRONG_TERMS = r"""
import z3
from vredmax.spec import z3native
z3native.ult = lambda a, b: z3.ULE(a, b)   # a constructor that builds another term
print(z3native.self_test())
"""


def test_the_self_test_notices_a_wrong_term():
    out = _run(WRONG_TERMS)
    assert out.returncode == 0, out.stderr
    assert "ult" in out.stdout


def test_forced_public_path_is_quiet():
    out = _run("from vredmax.spec import z3fast; print(z3fast.BACKEND)", VREDMAX_Z3_PUBLIC_API="1")
    assert out.stdout.strip() == "public" and out.stderr == ""
