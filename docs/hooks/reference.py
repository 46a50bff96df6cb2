"""MkDocs hook: the pages that are generated at build time, so they cannot drift from the code.

- reference/commands/NAME.md for every `vredmax` command, from its argparse parser (usage,
  description, each option with its default, the epilog's examples and exit codes), and
  reference/commands/index.md listing them; the nav's "Commands" entry becomes that list.
- reference/schemas.md: every JSON Schema shipped in vredmax/schemas/.
- reference/api.md: every name `vredmax.api` exports, with its signature and docstring. (Not
  mkdocstrings: its static loader cannot follow the package-dir mapping that installs spec/,
  impl/, ... inside the vredmax package, so the page is built from the imported objects.)

`command_pages()`, `schemas_page()` and `api_page()` are plain functions (tests/test_docs_site.py uses them).
"""

from __future__ import annotations

import argparse
import json
from importlib import resources

COMMANDS_DIR = "reference/commands"


def _parsers() -> dict[str, argparse.ArgumentParser]:
    from vredmax.cli.main import build_parser

    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return {"vredmax": parser, **sub.choices}


def _summaries() -> dict[str, str]:
    from vredmax.cli.main import build_parser

    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return {choice.dest: choice.help or "" for choice in sub._choices_actions}


def _escape(text: str) -> str:
    return text.replace("|", "\\|").replace("<", "&lt;").replace(">", "&gt;")


def _option_rows(parser: argparse.ArgumentParser) -> list[str]:
    formatter = parser._get_formatter()
    rows = []
    for action in parser._actions:
        if (
            isinstance(action, (argparse._HelpAction, argparse._SubParsersAction))
            or action.help == argparse.SUPPRESS
        ):
            continue  # (a hidden alias: an earlier spelling, still accepted)
        if action.option_strings:
            metavar = formatter._format_args(action, action.dest.upper()) if action.nargs != 0 else ""
            names = ", ".join(f"`{name}{' ' + metavar if metavar else ''}`" for name in action.option_strings)
        else:
            names = f"`{formatter._format_args(action, action.dest)}`"
        help_text = formatter._expand_help(action) if action.help else ""
        if action.choices and not isinstance(action, argparse._SubParsersAction):
            help_text += (
                f" (one of: {', '.join(f'`{c}`' for c in action.choices)})"
                if "one of" not in help_text
                else ""
            )
        rows.append(f"| {names} | {_escape(help_text)} |")
    return rows


def command_page(name: str, parser: argparse.ArgumentParser, summary: str) -> str:
    """One command's reference page, in Markdown."""
    title = "vredmax" if name == "vredmax" else f"vredmax {name}"
    lines = [f"# `{title}`", "", "<!-- generated from the argument parser by docs/hooks/reference.py -->", ""]
    if summary:
        lines += [summary[:1].upper() + summary[1:] + ".", ""]
    lines += ["```text", parser.format_usage().strip(), "```", ""]
    if parser.description:
        lines += [_escape(" ".join(parser.description.split())), ""]
    rows = _option_rows(parser)
    if rows:
        lines += ["| argument | meaning |", "|---|---|", *rows, ""]
    if parser.epilog:
        lines += ["```text", parser.epilog.strip("\n"), "```", ""]
    return "\n".join(lines)


def command_pages() -> dict[str, str]:
    """reference/commands/*.md by file name."""
    parsers = _parsers()
    summaries = _summaries()
    pages = {
        f"{name}.md": command_page(name, parser, summaries.get(name, ""))
        for name, parser in parsers.items()
        if name != "vredmax"
    }
    index = [
        "# Commands",
        "",
        "<!-- generated from the argument parser by docs/hooks/reference.py -->",
        "",
        "Every command is `vredmax COMMAND [options]`; `vredmax COMMAND --help` prints the same text "
        "as these pages.",
        "",
        "| command | what it does |",
        "|---|---|",
    ]
    index += [
        f"| [`{name}`]({name}.md) | {_escape(summaries.get(name, ''))} |"
        for name in parsers
        if name != "vredmax"
    ]
    index += ["", command_page("vredmax", parsers["vredmax"], "").split("\n", 4)[4]]
    pages["index.md"] = "\n".join(index)
    return pages


def schema_kinds() -> list[str]:
    folder = resources.files("vredmax").joinpath("schemas")
    return sorted(
        p.name.removesuffix(".schema.json") for p in folder.iterdir() if p.name.endswith(".schema.json")
    )


def schemas_page() -> str:
    from vredmax.schema import load_schema, schema_id

    lines = [
        "# JSON schemas",
        "",
        "<!-- generated from vredmax/schemas/ by docs/hooks/reference.py -->",
        "",
        'Every JSON object the tool prints starts with `"schema": "vredmax/KIND/VERSION"`. The JSON '
        "Schema (draft 2020-12) of each kind ships in the package as `vredmax/schemas/KIND.schema.json` "
        "and is loaded by `vredmax.schema.load_schema(KIND)`; the tests validate real outputs against "
        "them. Which command prints which kind: [Exit codes and output](output.md#json-outputs).",
        "",
    ]
    lines += ["| kind | `schema` value | title |", "|---|---|---|"]
    schemas = {kind: load_schema(kind) for kind in schema_kinds()}
    lines += [
        f"| [`{kind}`](#{kind}) | `{schema_id(kind)}` | {_escape(s.get('title', ''))} |"
        for kind, s in schemas.items()
    ]
    for kind, schema in schemas.items():
        lines += ["", f"## {kind} {{#{kind}}}", ""]
        if schema.get("description"):
            lines += [_escape(schema["description"]), ""]
        lines += ["```json", json.dumps(schema, indent=2), "```"]
    return "\n".join(lines) + "\n"


def _signature(name: str, obj) -> str:
    import inspect

    try:
        signature = str(inspect.signature(obj))
    except (TypeError, ValueError):
        return name
    return f"{name}{signature}"


def _doc(obj) -> str:
    import inspect

    return inspect.cleandoc(obj.__doc__) if obj.__doc__ else ""


def _members(cls) -> list[str]:
    """A class's own public methods and properties that have a docstring."""
    import inspect

    lines = []
    for name, member in vars(cls).items():
        if name.startswith("_"):
            continue
        if isinstance(member, property):
            kind, target = "property", member.fget
        elif isinstance(member, (staticmethod, classmethod)):
            kind, target = "method", member.__func__
        elif inspect.isfunction(member):
            kind, target = "method", member
        else:
            continue
        if not target.__doc__:
            continue
        shown = name if kind == "property" else _signature(name, target)
        lines += [f"- `{shown}`: {' '.join(_doc(target).split())}"]
    return lines


def api_page() -> str:
    import inspect
    import vredmax.api as api

    lines = [
        "# Python API",
        "",
        "<!-- generated from vredmax.api by docs/hooks/reference.py -->",
        "",
        _doc(api),
        "",
        "Example (run by the tests):",
        "",
        "```python",
        "from vredmax.api import execute, parse_case",
        "",
        'pre, insn, tail = parse_case({"vlen": 128, "insn": "vredmax.vs v8, v12, v4",',
        '                              "vtype": {"sew": 8, "lmul": "m1"}, "vl": 4,',
        '                              "vregs": {"v4": "0xfe", "v12": "0x03028001"}})',
        "result = execute(pre, insn, tail=tail)",
        'assert result.outcome == "retired"',
        "assert result.state.regs[8] & 0xff == 3     # the signed maximum of -2 and 1, -128, 2, 3",
        "```",
        "",
    ]
    for name in api.__all__:
        obj = getattr(api, name)
        lines += [f"## `{name}`", ""]
        if inspect.isclass(obj) or inspect.isfunction(obj):
            where = f"{obj.__module__}.{obj.__qualname__}"
            lines += [
                "```python",
                ("class " if inspect.isclass(obj) else "def ") + _signature(name, obj),
                "```",
                "",
                f"Defined in `{where}`.",
                "",
            ]
            if _doc(obj):
                lines += [_doc(obj), ""]
            if inspect.isclass(obj):
                members = _members(obj)
                if members:
                    lines += ["Members:", "", *members, ""]
        else:
            text = repr(obj)
            lines += ["```python", f"{name} = {text if len(text) < 200 else text[:200] + ' ...'}", "```", ""]
    return "\n".join(lines)


# MkDocs events ---------------------------------------------------------------------------------


def on_config(config):
    """The nav's Commands entry becomes the overview and one page per command."""
    names = ["index.md", *sorted(n for n in command_pages() if n != "index.md")]

    def expand(items):
        for k, item in enumerate(items):
            if isinstance(item, dict):
                ((title, value),) = item.items()
                if value == f"{COMMANDS_DIR}/index.md":
                    items[k] = {
                        title: [
                            {"Overview" if n == "index.md" else n.removesuffix(".md"): f"{COMMANDS_DIR}/{n}"}
                            for n in names
                        ]
                    }
                elif isinstance(value, list):
                    expand(value)

    expand(config["nav"])
    return config


def on_files(files, config):
    from mkdocs.structure.files import File

    generated = {f"{COMMANDS_DIR}/{name}": text for name, text in command_pages().items()}
    generated["reference/schemas.md"] = schemas_page()
    generated["reference/api.md"] = api_page()
    for path, text in generated.items():
        files.append(File.generated(config, path, content=text))
    return files
