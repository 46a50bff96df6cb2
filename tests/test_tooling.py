"""The contributors' tools walk the project: an editor resolves every module statically, and
the linter, the formatter and the type checker find nothing (docs/contributing.md)."""

import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import jedi
import pytest

import vredmax

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent


def tool(name: str) -> str:
    found = shutil.which(name, path=str(BIN)) or shutil.which(name)
    if found is None:
        pytest.fail(f"{name} is not installed (it is in the test extras: pip install -e '.[test]')")
    return found


def run(*command: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(command, cwd=ROOT, input=stdin, capture_output=True, text=True, timeout=600)


# Static resolution: what an editor's go-to-definition (jedi) finds, no code run -------------

RESOLVED = {
    "from vredmax.proofs.engine import verdict": "proofs/engine/verdict.py",
    "from vredmax.spec.bv import Concrete": "spec/bv.py",
    "import vredmax.impl.tree": "impl/tree.py",
    "from vredmax.platforms.testgen import suite": "platforms/testgen/suite.py",
    "from vredmax.cli.main import main": "vredmax/cli/main.py",
}


@pytest.mark.parametrize("project", ["repository", "elsewhere"])
def test_an_editor_resolves_the_modules_statically(project, tmp_path):
    """With the editor's project at the repository's root (its vredmax/ folder holds only part
    of the package) and anywhere else (only the installed package is seen)."""
    folder = ROOT if project == "repository" else tmp_path
    source = "\n".join(RESOLVED) + "\n"
    script = jedi.Script(
        source, path=folder / "scratch.py", project=jedi.Project(folder, environment_path=sys.prefix)
    )
    for line, (statement, expected) in enumerate(RESOLVED.items(), start=1):
        found = script.goto(line, len(statement), follow_imports=True)
        paths = [Path(d.module_path).resolve() for d in found if d.module_path]
        assert paths == [ROOT / expected], f"{statement}: {paths} (a strict editable install: make setup)"


def test_the_editable_install_links_every_file_of_the_package():
    """The strict editable install (`make setup`) is a tree of links made at install time: a
    module added since is not importable until the next install."""
    installed = [Path(folder) for folder in vredmax.__path__ if (Path(folder) / "spec").is_dir()]
    assert installed, "vredmax is not installed in strict editable mode: run make setup"
    tree = installed[0]
    mapping = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-dir"]
    sources = {
        f"vredmax/{path.relative_to(ROOT / 'vredmax')}": path for path in (ROOT / "vredmax").rglob("*.py")
    }
    for package, folder in mapping.items():
        for path in (ROOT / folder).rglob("*.py"):
            sources[f"{package.replace('.', '/')}/{path.relative_to(ROOT / folder)}"] = path
    missing = sorted(name for name in sources if not (tree.parent / name).exists())
    assert not missing, f"not in the installed link tree (run make setup): {missing}"
    assert (tree / "spec" / "bv.py").resolve() == ROOT / "spec" / "bv.py"


# The linter, the formatter, the type checker --------------------------------------------------


def test_ruff_finds_nothing():
    check = run(tool("ruff"), "check", ".")
    assert check.returncode == 0, check.stdout + check.stderr


def test_ruff_finds_an_unused_import_and_an_undefined_name():
    """The check can fail: the project's rules catch the classic mistakes."""
    check = run(
        tool("ruff"),
        "check",
        "--stdin-filename",
        "spec/example.py",
        "-",
        stdin="import os\n\n\ndef f():\n    return undefined_name\n",
    )
    assert check.returncode == 1
    assert "F401" in check.stdout and "F821" in check.stdout


def test_the_tree_is_formatted():
    check = run(tool("ruff"), "format", "--check", ".")
    assert check.returncode == 0, (check.stdout + check.stderr)[-3000:]


def test_the_types_check():
    """mypy, as pyproject.toml configures it: strict on spec/, impl/ and proofs/engine/."""
    check = run(tool("mypy"))
    assert check.returncode == 0, check.stdout + check.stderr


def test_the_type_checker_tells_a_term_from_an_int(tmp_path):
    """The check can fail: a generic reduction unit that passes an int where an element goes
    (Z3's `>` is signed, Python's on the concrete unsigned value is not: no mixing) is refused,
    and so is a truth test of a z3 term."""
    unit = tmp_path / "unit.py"
    unit.write_text(
        "import z3\n"
        "from vredmax.spec.bv import B, ElementOps, V\n\n"
        "def reduce(ops: ElementOps[V, B], seed: V, elements: list[V], active: list[B]) -> V:\n"
        "    return ops.smax(seed, 0)\n\n"
        "def decide(x: z3.BitVecRef) -> int:\n"
        "    bigger = x > 0\n"
        "    return 1 if bigger else 0\n"
    )
    config = tmp_path / "mypy.ini"
    config.write_text(f"[mypy]\nmypy_path = {ROOT / 'stubs'}\nenable_error_code = truthy-bool\n")
    check = subprocess.run(
        [tool("mypy"), "--config-file", str(config), "--no-incremental", str(unit)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert check.returncode == 1, check.stdout + check.stderr
    assert 'Argument 2 to "smax" of "ElementOps" has incompatible type "int"' in check.stdout
    assert '"bigger" has type "BoolRef" which does not implement __bool__' in check.stdout


def test_pre_commit_runs_the_same_checks():
    config = (ROOT / ".pre-commit-config.yaml").read_text()
    for command in ("ruff check", "ruff format", "mypy"):
        assert command in config
