"""Source lists from a project's manifest, as its own flow reads them: Bender and FuseSoC.

Each reader gives simulator arguments (files in order, `+incdir+DIR`, `+define+NAME=VALUE`) for
frontend.py. Nothing is fetched: the dependencies are where the user's own tool put them.

- Bender (`Bender.yml` and its `Bender.lock`): the locked packages' sources first (each after
  the packages it depends on), then the root package's; a source group's `include_dirs` and
  `defines`, the `export_include_dirs` of a package's dependencies, and groups whose `target`
  expression holds for the targets given. A dependency is found in the workspace's
  `checkout_dir` (`DIR/NAME`) or in bender's `.bender/git/checkouts/NAME-*`, or at the `Path:`
  the lock names.
- FuseSoC (`.core` files, CAPI2): fusesoc's own parser and dependency solver, one target's
  filesets (default `default`), include folders (`is_include_file`, `include_path`) and the
  target's Verilog defines.
"""

from __future__ import annotations

import os
import re

from vredmax.proofs.rtl.frontend import RtlInputError

VERILOG_SUFFIXES = (".sv", ".v", ".svh", ".vh", ".svp", ".vp")
HEADER_SUFFIXES = (".svh", ".vh")


def _yaml(path: str, field_name: str) -> dict:
    try:
        import yaml
    except ImportError:
        raise RtlInputError(field_name, "needs the pyyaml package: pip install 'vredmax[rtl]'") from None
    try:
        with open(path) as f:
            data = yaml.safe_load(f)
    except OSError as error:
        raise RtlInputError(field_name, f"cannot read {path}: {error.strerror}") from None
    except yaml.YAMLError as error:
        raise RtlInputError(field_name, f"{path}: not YAML ({str(error).splitlines()[0]})") from None
    if not isinstance(data, dict):
        raise RtlInputError(field_name, f"{path}: expected a mapping at the top")
    return data


# Bender ---------------------------------------------------------------------------------------------------


def target_holds(expression: str, targets: set[str]) -> bool:
    """Bender's target expression: NAME, `*`, all(...), any(...), not(...)."""
    tokens = re.findall(r"[A-Za-z0-9_.\-]+|\*|[(),]", expression)
    position = 0

    def parse() -> bool:
        nonlocal position
        if position >= len(tokens):
            raise RtlInputError("bender", f"target {expression!r}: unexpected end")
        token = tokens[position]
        position += 1
        if token == "*":
            return True
        if token in ("all", "any", "not") and position < len(tokens) and tokens[position] == "(":
            position += 1
            values = []
            while tokens[position] != ")":
                values.append(parse())
                if tokens[position] == ",":
                    position += 1
            position += 1
            if token == "not":
                return not values[0]
            return all(values) if token == "all" else any(values)
        return token.lower() in targets

    try:
        value = parse()
    except IndexError:
        raise RtlInputError("bender", f"target {expression!r}: unbalanced parentheses") from None
    return value


def _group(
    entries, root: str, targets: set[str], includes: list, defines: dict, out: list, where: str
) -> None:
    """Append the arguments of a Bender `sources` list (files and nested groups)."""
    if isinstance(entries, dict):
        entries = [entries]
    for entry in entries or ():
        if isinstance(entry, str):
            path = os.path.normpath(os.path.join(root, entry))
            if path.endswith(VERILOG_SUFFIXES):
                if not os.path.isfile(path):
                    raise RtlInputError("bender", f"{where}: no such file: {path}")
                if path.endswith(HEADER_SUFFIXES):  # included by the sources, not compiled alone
                    includes = includes + [os.path.dirname(path)]
                    continue
                out.append(("file", path, tuple(includes), tuple(defines.items())))
            continue
        if not isinstance(entry, dict):
            raise RtlInputError("bender", f"{where}: a source is a path or a group, got {entry!r}")
        if "target" in entry and not target_holds(str(entry["target"]), targets):
            continue
        inner_includes = includes + [
            os.path.normpath(os.path.join(root, d)) for d in entry.get("include_dirs") or ()
        ]
        inner_defines = dict(defines)
        for name, value in (entry.get("defines") or {}).items():
            inner_defines[name] = value
        _group(entry.get("files") or [], root, targets, inner_includes, inner_defines, out, where)


def _checkout(name: str, root: str, workspace: dict, lock_entry: dict) -> str:
    source = lock_entry.get("source") or {}
    if isinstance(source, dict) and "Path" in source:
        path = os.path.normpath(os.path.join(root, source["Path"]))
        if os.path.isdir(path):
            return path
    checkout_dir = (workspace or {}).get("checkout_dir")
    candidates = []
    if checkout_dir:
        candidates.append(os.path.join(root, checkout_dir, name))
    checkouts = os.path.join(root, ".bender", "git", "checkouts")
    if os.path.isdir(checkouts):
        candidates += sorted(
            os.path.join(checkouts, d) for d in os.listdir(checkouts) if d == name or d.startswith(name + "-")
        )
    for path in candidates:
        if os.path.isfile(os.path.join(path, "Bender.yml")):
            return path
    where = " or ".join(candidates) if candidates else os.path.join(checkouts, name + "-*")
    raise RtlInputError(
        "bender",
        f"dependency {name} (locked in Bender.lock) is not checked out at {where}: "
        "run `bender update` or `bender checkout` in the project first",
    )


def bender_arguments(folder: str, targets=()) -> list[str]:
    """Simulator arguments for the package in `folder` (its Bender.yml and Bender.lock)."""
    root = os.path.abspath(folder)
    manifest = os.path.join(root, "Bender.yml")
    if not os.path.isfile(manifest):
        raise RtlInputError("bender", f"no Bender.yml in {folder}")
    top = _yaml(manifest, "bender")
    lock_path = os.path.join(root, "Bender.lock")
    dependencies = top.get("dependencies") or {}
    if dependencies and not os.path.isfile(lock_path):
        raise RtlInputError(
            "bender",
            f"{folder} has dependencies but no Bender.lock: run `bender update` first "
            "(it resolves and locks the versions)",
        )
    locked = (_yaml(lock_path, "bender").get("packages") or {}) if os.path.isfile(lock_path) else {}
    active = {t.lower() for t in targets}
    packages = {}  # name -> (root, manifest)
    for name, entry in locked.items():
        path = _checkout(name, root, top.get("workspace"), entry or {})
        packages[name] = (path, _yaml(os.path.join(path, "Bender.yml"), "bender"))
    missing = sorted(set(dependencies) - set(locked))
    if missing:
        raise RtlInputError("bender", f"Bender.lock does not lock {', '.join(missing)}: run `bender update`")
    order, seen = [], set()

    def visit(name: str, trail=()):  # dependencies first (the lock's graph)
        if name in seen:
            return
        if name in trail:
            raise RtlInputError("bender", f"dependency cycle: {' -> '.join(trail + (name,))}")
        for dep in (locked[name] or {}).get("dependencies") or ():
            if dep in locked:
                visit(dep, trail + (name,))
        seen.add(name)
        order.append(name)

    for name in sorted(locked):
        visit(name)
    entries = []
    for name in order + [None]:
        path, data = (root, top) if name is None else packages[name]
        deps = (top if name is None else data).get("dependencies") or {}
        exported = [
            os.path.normpath(os.path.join(packages[d][0], e))
            for d in deps
            if d in packages
            for e in packages[d][1].get("export_include_dirs") or ()
        ]
        own = [os.path.normpath(os.path.join(path, e)) for e in data.get("export_include_dirs") or ()]
        where = os.path.join(path, "Bender.yml")
        _group(data.get("sources") or [], path, active, own + exported, {}, entries, where)
    arguments = []
    for _, path, includes, defines in entries:
        for directory in includes:
            arguments.append(f"+incdir+{directory}")
        for name, value in defines:
            arguments.append(f"+define+{name}" + ("" if value is None else f"={value}"))
    arguments = list(dict.fromkeys(a for a in arguments))  # include folders and defines apply to all
    return arguments + [path for _, path, _, _ in entries]


# FuseSoC --------------------------------------------------------------------------------------------------


def fusesoc_arguments(core: str, libraries, target: str = "default") -> list[str]:
    """Simulator arguments for the core named `core` (a VLNV, or a unique name) found in the
    library folders, at one target of its .core file."""
    for folder in libraries:
        if not os.path.isdir(folder):
            raise RtlInputError("fusesoc-lib", f"no such folder: {folder}")
    try:
        from fusesoc.config import Config
        from fusesoc.coremanager import CoreManager, DependencyError
        from fusesoc.librarymanager import Library
        from fusesoc.vlnv import Vlnv
    except ImportError:
        raise RtlInputError("core", "needs the fusesoc package: pip install 'vredmax[rtl]'") from None
    import logging

    class Rejected(logging.Handler):  # .core files fusesoc's parser ignores, with why
        def __init__(self):
            super().__init__(logging.WARNING)
            self.found = []

        def emit(self, record):
            text = record.getMessage()
            if "Parse error" in text:
                self.found.append(" ".join(text.replace("Parse error. Ignoring file", "").split()))

    rejected = Rejected()
    log = logging.getLogger("fusesoc")
    log.addHandler(rejected)
    log.propagate, log.level = False, logging.WARNING
    manager = CoreManager(Config())
    try:
        for folder in libraries:
            manager.add_library(
                Library(os.path.basename(os.path.abspath(folder)) or "lib", os.path.abspath(folder)), []
            )
    finally:
        log.removeHandler(rejected)
    names = [str(c) for c in manager.get_cores()]
    wanted = core
    if ":" not in core or core.count(":") < 2:
        matches = [n for n in names if n.split(":")[2:3] == [core.split(":")[-1]] or n == core]
        if len(matches) > 1:
            raise RtlInputError(
                "core", f"{core!r} names several cores ({', '.join(matches)}): give the whole VLNV"
            )
        if matches:
            wanted = matches[0]
    flags = {"is_toplevel": True, "target": target}
    try:
        vlnv = Vlnv(wanted)
        cores = manager.get_depends(vlnv, flags)
    except DependencyError:
        known = (
            f"cores: {', '.join(sorted(names)[:12])}{' ...' if len(names) > 12 else ''}"
            if names
            else "no cores"
        )
        refused = f"; fusesoc's parser refused {'; '.join(rejected.found)}" if rejected.found else ""
        raise RtlInputError(
            "core", f"no core {core!r} in {', '.join(libraries)} ({known}){refused}"
        ) from None
    except Exception as error:  # fusesoc's own parse errors
        raise RtlInputError(
            "core", f"{core}: {str(error).splitlines()[0] if str(error) else type(error).__name__}"
        ) from None
    arguments, files = [], []
    for found in cores:
        root = found.core_root
        core_flags = dict(flags, is_toplevel=(found is cores[-1]))
        for item in found.get_files(core_flags):
            name = item["name"] if isinstance(item, dict) else item.name
            kind = (item.get("file_type") if isinstance(item, dict) else getattr(item, "file_type", "")) or ""
            include = (
                item.get("is_include_file")
                if isinstance(item, dict)
                else getattr(item, "is_include_file", False)
            )
            include_path = (
                item.get("include_path") if isinstance(item, dict) else getattr(item, "include_path", None)
            )
            path = os.path.normpath(os.path.join(root, name))
            if include or kind.endswith("Header"):
                arguments.append(
                    f"+incdir+{os.path.normpath(os.path.join(root, include_path))}"
                    if include_path
                    else f"+incdir+{os.path.dirname(path)}"
                )
            elif "erilog" in kind or path.endswith(VERILOG_SUFFIXES):
                if not os.path.isfile(path):
                    raise RtlInputError("core", f"{found.name}: no such file: {path}")
                files.append(path)
        if found is cores[-1]:
            for name, value in (found.get_parameters(core_flags) or {}).items():
                if value.get("paramtype") == "vlogdefine" and "default" in value:
                    arguments.append(f"+define+{name}={value['default']}")
    return list(dict.fromkeys(arguments)) + list(dict.fromkeys(files))
