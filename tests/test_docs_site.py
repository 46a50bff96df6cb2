"""The documentation site (mkdocs.yml, docs/) builds with warnings as errors, and its generated
pages follow the code: a page per command from the argument parser, every shipped JSON schema,
every name of vredmax.api.
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from vredmax.cli.main import COMMANDS, build_parser

ROOT = Path(__file__).resolve().parent.parent
MKDOCS = Path(sys.executable).parent / "mkdocs"


def _hook():
    spec = importlib.util.spec_from_file_location(
        "docs_reference_hook", ROOT / "docs" / "hooks" / "reference.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_site_builds_strictly(tmp_path):
    if not MKDOCS.exists():
        pytest.fail(
            "mkdocs is not installed: pip install -e '.[docs]' (the test extra has it)", pytrace=False
        )
    done = subprocess.run(
        [str(MKDOCS), "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "WARNING" not in done.stderr, done.stderr
    site = tmp_path / "site"
    for page in (
        "index.html",
        "tutorials/python-model/index.html",
        "reference/commands/check-impl/index.html",
        "reference/schemas/index.html",
        "reference/api/index.html",
        "vredmax.vs/index.html",
        "SEMANTICS/index.html",
        "ARCHITECTURE/index.html",
    ):
        assert (site / page).is_file(), page
    assert (site / "vredmax.vs.html").is_file()  # the manual page with its animations, as it is


def test_a_reference_page_per_command():
    pages = _hook().command_pages()
    parser = build_parser()
    commands = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction").choices
    assert sorted(pages) == sorted(["index.md", *(f"{name}.md" for name in commands)])
    assert len(commands) >= len(COMMANDS)
    exec_page = pages["exec.md"]
    for option in ("--json", "--jsonl FILE", "--profile", "--max-rows N"):  # every option is listed
        assert f"`{option}" in exec_page, option
    assert commands["exec"].format_usage().strip() in exec_page
    for name in commands:
        assert f"[`{name}`]({name}.md)" in pages["index.md"]


def test_the_schema_page_has_every_schema():
    hook = _hook()
    page = hook.schemas_page()
    shipped = sorted(
        p.name.removesuffix(".schema.json") for p in (ROOT / "vredmax" / "schemas").glob("*.schema.json")
    )
    assert hook.schema_kinds() == shipped and len(shipped) >= 14
    for kind in shipped:
        assert f"## {kind} {{#{kind}}}" in page and f"`vredmax/{kind}/1`" in page


def test_the_api_page_has_every_export_and_its_example_runs(tmp_path):
    import vredmax.api as api

    page = _hook().api_page()
    for name in api.__all__:
        assert f"## `{name}`" in page
    assert "def execute(pre" in page
    code = re.search(r"```python\n(.*?)```", page, re.S)[1]
    exec(compile(code, "docs/reference/api.md", "exec"), {"__name__": "__example__"})


def test_the_makefile_has_the_targets_the_docs_name():
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert re.search(r"^prove:", makefile, re.M) and re.search(r"^test:", makefile, re.M)
