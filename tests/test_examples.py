"""Every shell and Python example in README.md and docs/ runs, and shows what it prints.

The rules (also in docs/contributing.md#examples):

- A ```console block is a shell session: `$ COMMAND` lines, each followed by the output it
  prints (stdout and stderr together). The command runs under bash in a fresh folder that
  holds links to the repository's `examples/` and `tests/`, with the project's `vredmax` first
  on PATH and COLUMNS=80. It must exit 0, or the code its trailing comment names (`# exit 1`).
  A command with no output lines below it is checked for its exit code only.
- Shown output is compared line by line after two normalisations: runs of spaces count as one,
  and a time (`2.55s`, `1.8 s`) matches any time. `...` matches anything: alone on a line, any
  number of lines; inside a line, any text in that line.
- A ```python block runs (a fresh namespace, the same kind of folder); a ```pycon block is a
  doctest (its `>>>` lines run and their output is compared, `...` as above).
- An HTML comment on the line before a block changes how it is run:
  `<!-- example: slow -->` (only with `-m slow_examples`), `<!-- example: needs TOOL... -->`
  (skipped without the tools, a failure in CI), `<!-- example: skip REASON -->` (not run; the
  reason is required), `<!-- example: file NAME -->` (the block's text is written to NAME in
  the folder of every later block of the same page).
- ```sh, ```bash and ```shell blocks are not allowed: write a console block.

Generated pages (docs/SEMANTICS.md, docs/vredmax.vs.md) are checked by tests/test_report.py.
"""

from __future__ import annotations

import doctest
import os
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.conftest import require_tools

ROOT = Path(__file__).resolve().parent.parent
GENERATED = {"docs/SEMANTICS.md", "docs/vredmax.vs.md"}
SHELLS = {"sh", "bash", "shell", "zsh"}
FENCE = re.compile(r"^(?P<indent> *)(?P<fence>```+|~~~+)(?P<info>[^\n`]*)$")
DIRECTIVE = re.compile(r"^\s*<!--\s*example:\s*(?P<kind>\w+)\s*(?P<arg>.*?)\s*-->\s*$")
TIME = re.compile(r"\d+\.\d+ ?(?:s|ms)\b")


def markdown_files() -> list[Path]:
    files = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    return [
        f
        for f in files
        if f.relative_to(ROOT).as_posix() not in GENERATED and "hooks" not in f.relative_to(ROOT).parts
    ]


@dataclass
class Block:
    path: Path
    line: int  # of the opening fence, 1-based
    language: str
    text: str
    directives: list = field(default_factory=list)  # (kind, arg)

    @property
    def where(self) -> str:
        return f"{self.path.relative_to(ROOT).as_posix()}:{self.line}"

    def directive(self, kind: str):
        return next((arg for k, arg in self.directives if k == kind), None)


def blocks(path: Path) -> list[Block]:
    """The fenced blocks of a Markdown file, with the example directives just above each."""
    lines = path.read_text(encoding="utf-8").splitlines()
    found, k = [], 0
    while k < len(lines):
        opening = FENCE.match(lines[k])
        if not opening:
            k += 1
            continue
        fence, indent = opening["fence"], len(opening["indent"])
        language = opening["info"].strip().split(" ")[0].lower() if opening["info"].strip() else ""
        directives, j = [], k - 1
        while j >= 0 and DIRECTIVE.match(lines[j]):
            match = DIRECTIVE.match(lines[j])
            directives.append((match["kind"], match["arg"]))
            j -= 1
        body, k = [], k + 1
        while k < len(lines) and not (
            lines[k].strip().startswith(fence) and lines[k].strip().strip(fence[0]) == ""
        ):
            body.append(lines[k][indent:] if lines[k][:indent].strip() == "" else lines[k])
            k += 1
        found.append(Block(path, k - len(body), language, "\n".join(body) + "\n", directives))
        k += 1
    return found


def examples() -> list[Block]:
    """Every block that is an example: console, Python, a shell block (refused), and any other
    block that shows `$ ` commands (refused: it would not run)."""
    return [
        b
        for path in markdown_files()
        for b in blocks(path)
        if b.language in ("console", "python", "pycon") or b.language in SHELLS or b.text.startswith("$ ")
    ]


def _param(block: Block):
    marks = [pytest.mark.slow_examples] if block.directive("slow") is not None else []
    return pytest.param(block, id=block.where, marks=marks)


# Running ----------------------------------------------------------------------------------------


def _folder(tmp_path: Path, block: Block) -> Path:
    for name in ("examples", "tests"):
        (tmp_path / name).symlink_to(ROOT / name, target_is_directory=True)
    for earlier in blocks(block.path):  # files that earlier blocks of the page declare
        if earlier.line >= block.line:
            break
        name = earlier.directive("file")
        if name:
            (tmp_path / name).write_text(earlier.text, encoding="utf-8")
    return tmp_path


def _environment() -> dict:
    env = dict(os.environ)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env.update(COLUMNS="80", NO_COLOR="1", TERM="dumb", PYTHONPATH=str(ROOT))
    return env


@dataclass
class Command:
    line: int
    text: str
    exit_code: int
    expected: list[str]


# The exit code a command's trailing comment names: `# exit 1`, `# a counterexample, exit 1`.
EXIT_COMMENT = re.compile(r" #[^#]*\bexit (\d+)\b[^#]*$")


def commands(block: Block) -> list[Command]:
    """The `$ ` commands of a console block, with their shown output."""
    made: list[Command] = []
    lines = block.text.splitlines()
    k = 0
    while k < len(lines):
        line = lines[k]
        if not line.startswith("$ "):
            if made:
                made[-1].expected.append(line)
            elif line.strip():
                raise AssertionError(f"{block.where}: output before the first `$ ` command: {line!r}")
            k += 1
            continue
        text, start = line[2:], k
        while text.endswith("\\") and k + 1 < len(lines):  # continuation lines
            k += 1
            text = text[:-1] + " " + lines[k].strip()
        match = EXIT_COMMENT.search(text)
        made.append(Command(block.line + 1 + start, text, int(match[1]) if match else 0, []))
        k += 1
    for command in made:
        while command.expected and not command.expected[-1].strip():
            command.expected.pop()
    return made


def _normal(line: str) -> str:
    return " ".join(TIME.sub("<time>", line).split())


def matches(expected: list[str], actual: list[str]) -> bool:
    """Shown output against printed output: `...` lines skip any lines, `...` in a line any text."""
    pattern = []
    for line in expected:
        if line.strip() == "...":
            pattern.append(r"(?:[^\n]*\n)*?")
        else:
            parts = _normal(line).split("...")  # the spaces around `...` are part of what it skips
            parts = [p.rstrip() if k < len(parts) - 1 else p for k, p in enumerate(parts)]
            parts = [p.lstrip() if k > 0 else p for k, p in enumerate(parts)]
            pattern.append("[^\n]*".join(map(re.escape, parts)) + r"\n")
    text = "".join(_normal(line) + "\n" for line in actual)
    return re.fullmatch("".join(pattern), text) is not None


def run_console(block: Block, folder: Path) -> None:
    for command in commands(block):
        done = subprocess.run(
            ["bash", "-o", "pipefail", "-c", command.text],
            cwd=folder,
            env=_environment(),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            timeout=900,
        )
        actual = done.stdout.rstrip("\n").splitlines()
        where = f"{block.path.relative_to(ROOT).as_posix()}:{command.line}: $ {command.text}"
        assert done.returncode == command.exit_code, (
            f"{where}\nexit code {done.returncode}, the example says {command.exit_code}\n{done.stdout}"
        )
        if command.expected:
            assert matches(command.expected, actual), (
                f"{where}\nthe example shows:\n"
                + "\n".join(command.expected)
                + "\n\nit printed:\n"
                + "\n".join(actual)
            )


def run_python(block: Block, folder: Path) -> None:
    old = os.getcwd()
    os.chdir(folder)
    try:
        if block.language == "python":
            exec(compile(block.text, block.where, "exec"), {"__name__": "__example__"})
        else:
            test = doctest.DocTestParser().get_doctest(
                block.text, {}, block.where, str(block.path), block.line
            )
            runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
            runner.run(test, out=lambda text: pytest.fail(text, pytrace=False))
    finally:
        os.chdir(old)


@pytest.mark.parametrize("block", [_param(b) for b in examples()])
def test_example(block: Block, tmp_path):
    assert block.language in ("console", "python", "pycon"), (
        f"{block.where}: a ```{block.language} block of commands: write it as ```console "
        "with `$ ` prompts and their output, so that it runs"
    )
    skip = block.directive("skip")
    if skip is not None:
        assert skip, f"{block.where}: `<!-- example: skip -->` needs a reason"
        pytest.skip(f"{block.where}: {skip}")
    needs = block.directive("needs")
    if needs:
        require_tools(*needs.split())
    folder = _folder(tmp_path, block)
    if block.language == "console":
        run_console(block, folder)
    else:
        run_python(block, folder)


# The collector itself ---------------------------------------------------------------------------


def test_matching_rules():
    assert matches(
        ["PROVED  VLEN=128  2.55s", "...", "Summary: 1 proved"],
        ["PROVED VLEN=128 10.1s", "a", "b", "Summary: 1 proved"],
    )
    assert matches(["at .../units.py:24"], ["at /tmp/x/units.py:24"])
    assert not matches(["Summary: 1 proved"], ["Summary: 2 proved"])
    assert not matches(["a"], ["a", "b"])  # nothing unshown at the end
    assert not matches(["... x"], ["y", "x"])  # `...` inside a line stays on that line
    assert matches(["...", "x"], ["y", "x"])


def test_the_collector_finds_blocks_and_directives(tmp_path):
    page = tmp_path / "page.md"
    page.write_text(
        "text\n<!-- example: needs qemu-riscv64 -->\n```console\n$ vredmax asm x  # exit 2\n"
        "vredmax: error: x\n```\n\n   ```python\n   print(1)\n   ```\n",
        encoding="utf-8",
    )
    found = blocks(page)
    assert [(b.language, b.line) for b in found] == [("console", 3), ("python", 8)]
    assert found[0].directive("needs") == "qemu-riscv64" and found[1].text == "print(1)\n"
    (command,) = commands(found[0])
    assert (command.exit_code, command.expected, command.line) == (2, ["vredmax: error: x"], 4)


def test_there_are_examples_in_the_readme_and_the_docs():
    where = {b.path.name for b in examples()}
    assert "README.md" in where and len(where) > 3
