"""The layers of docs/ARCHITECTURE.md hold: import-linter checks the contracts that
pyproject.toml declares.

The top-level folders install inside the `vredmax` package (setuptools' package-dir), which an
editable install maps with an import hook that import-linter cannot walk; so the check runs
on a copy of the sources laid out as the installed package is.
"""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
MAPPED = ("spec", "impl", "proofs", "platforms", "presentation")   # pyproject's package-dir


def installed_layout(target: Path) -> Path:
    python_only = shutil.ignore_patterns("__pycache__", "*.pyc")
    shutil.copytree(ROOT / "vredmax", target / "vredmax", ignore=python_only)
    for folder in MAPPED:
        shutil.copytree(ROOT / folder, target / "vredmax" / folder, ignore=python_only)
    return target


def lint_imports(tree: Path) -> subprocess.CompletedProcess:
    lint = shutil.which("lint-imports", path=os.path.dirname(sys.executable)) or shutil.which("lint-imports")
    if lint is None:
        pytest.fail("lint-imports is not installed (it is in the test extras: pip install '.[test]')")
    env = {**os.environ, "PYTHONPATH": str(tree)}
    return subprocess.run([lint, str(ROOT / "pyproject.toml"), "--no-cache"],
                          cwd=tree, env=env, capture_output=True, text=True, timeout=300)


def test_the_layer_contracts_hold(tmp_path):
    run = lint_imports(installed_layout(tmp_path))
    assert run.returncode == 0, run.stdout + run.stderr
    assert "0 broken" in run.stdout


def test_a_module_that_imports_upwards_breaks_a_contract(tmp_path):
    """The check can fail: the engine importing the command line is reported."""
    tree = installed_layout(tmp_path)
    verdict = tree / "vredmax" / "proofs" / "engine" / "verdict.py"
    verdict.write_text(verdict.read_text() + "\nimport vredmax.cli.cmd_prove\n")
    run = lint_imports(tree)
    assert run.returncode != 0
    assert "vredmax.proofs.engine.verdict -> vredmax.cli.cmd_prove" in run.stdout
