"""The layers of docs/ARCHITECTURE.md hold: import-linter checks the contracts that
pyproject.toml declares, on the installed package (the strict editable install of `make setup`
is a tree of links that grimp walks like any package)."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import vredmax

ROOT = Path(__file__).resolve().parent.parent
# the installed package's folder (run from the root, vredmax.__path__ lists the root's partial vredmax/ too)
INSTALLED = next(Path(folder) for folder in vredmax.__path__ if (Path(folder) / "spec").is_dir())


def lint_imports(folder: Path, pythonpath: Path | None = None) -> subprocess.CompletedProcess:
    """Run in `folder`, not in the repository: import-linter puts the working folder on the
    path, and the repository's vredmax/ holds only part of the package."""
    lint = shutil.which("lint-imports", path=os.path.dirname(sys.executable)) or shutil.which("lint-imports")
    if lint is None:
        pytest.fail("lint-imports is not installed (it is in the test extras: pip install '.[test]')")
    env = dict(os.environ)
    if pythonpath is not None:
        env["PYTHONPATH"] = str(pythonpath)
    return subprocess.run(
        [lint, str(ROOT / "pyproject.toml"), "--no-cache"],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_the_layer_contracts_hold(tmp_path):
    run = lint_imports(tmp_path)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "0 broken" in run.stdout


def test_a_module_that_imports_upwards_breaks_a_contract(tmp_path):
    """The check can fail: the engine importing the command line is reported (on a copy of
    the installed package's links, one of them replaced by a changed file)."""
    shutil.copytree(
        INSTALLED, tmp_path / "vredmax", symlinks=True, ignore=shutil.ignore_patterns("__pycache__")
    )
    verdict = tmp_path / "vredmax" / "proofs" / "engine" / "verdict.py"
    text = verdict.read_text()
    verdict.unlink()
    verdict.write_text(text + "\nimport vredmax.cli.cmd_prove\n")
    run = lint_imports(tmp_path, tmp_path)
    assert run.returncode != 0
    assert "vredmax.proofs.engine.verdict -> vredmax.cli.cmd_prove" in run.stdout
