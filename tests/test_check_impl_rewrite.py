"""On concrete values the rewritten user code (proofs/python/rewrite.py) does what the original
does: every unit of tests/buggy/emulators.py, imported plainly and loaded rewritten, gives the
same result (or raises the same exception) on the same random inputs. check-impl's concrete
states run the rewritten code; this is what lets them stand for the user's program."""

import importlib
import random
from pathlib import Path

import pytest

from vredmax.proofs.python.rewrite import module_from_file
from vredmax.spec.bv import ConcreteElements

EMULATORS = Path(__file__).parent / "buggy" / "emulators.py"
plain = importlib.import_module("tests.buggy.emulators")


@pytest.fixture(scope="module")
def rewritten():
    spec, module = module_from_file("emulators_rewritten", str(EMULATORS))
    spec.loader.exec_module(module)
    return module


def _outcome(function, *args):
    try:
        return "returned", function(*args)
    except Exception as error:  # the same exception type on both sides counts as the same outcome
        return "raised", type(error).__name__


@pytest.mark.parametrize("name", [f.__name__ for f in plain.UNITS])
def test_a_rewritten_unit_computes_what_the_original_does(rewritten, name):
    if name.startswith("numpy"):
        pytest.importorskip("numpy")
    rng = random.Random(name)
    for trial in range(60):
        sew = rng.choice((8, 16, 32, 64))
        n = rng.choice((0, 1, 2, 3, 16, 38, 64))
        seed = rng.getrandbits(sew)
        elements = [rng.choice((0, 1 << (sew - 1), (1 << sew) - 1, rng.getrandbits(sew))) for _ in range(n)]
        active = [rng.random() < 0.6 for _ in range(n)] if trial % 7 else [False] * n
        ops = ConcreteElements(sew)
        expected = _outcome(getattr(plain, name), ops, seed, elements, active)
        got = _outcome(getattr(rewritten, name), ops, seed, list(elements), list(active))
        assert got == expected, (sew, seed, elements, active)


def test_the_rewriting_is_really_applied(rewritten):
    """The comparison above would be empty if the loader ran the original code."""
    assert rewritten.__dict__.get("__vx__") is not None
    assert plain.__dict__.get("__vx__") is None
