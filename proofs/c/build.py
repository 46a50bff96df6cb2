"""Compiling a user's C file for `vredmax check-c`: the level, a plain and a sanitized library.

The user's file is compiled inside a small wrapper translation unit that includes it and
exports one entry point, `vredmax_entry`, calling FUNCTION (which may be `static`). The
wrapper also assigns FUNCTION to a pointer of the level's type from vredmax_check.h, compiled
with -Werror=incompatible-pointer-types: the compiler itself checks the signature, and so
tells the level (a reduction unit or a whole instruction step).

Two libraries: `plain` (the user's flags, -O2 unless they say otherwise) is the code that is
run concretely and executed symbolically; `sanitized` adds -fsanitize=address,undefined
(every report fatal), for the concrete runs that look for undefined behaviour.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
from dataclasses import dataclass

UNIT, STEP = "unit", "step"
LEVELS = (UNIT, STEP)
DEFAULT_FUNCTION = {UNIT: "reduce", STEP: "step"}
HEADER_DIR = os.path.dirname(os.path.abspath(__file__))
HEADER = os.path.join(HEADER_DIR, "vredmax_check.h")
DEFAULT_CFLAGS = ("-O2",)
SANITIZE = ("-g", "-fsanitize=address,undefined", "-fno-sanitize-recover=all", "-fno-omit-frame-pointer")
TYPES = {UNIT: "vredmax_reduce_fn", STEP: "vredmax_step_fn"}
ENTRY = {
    UNIT: (
        "VREDMAX_ENTRY uint64_t vredmax_entry(unsigned sew, uint64_t seed, const void *elements, "
        "const uint8_t *active, size_t n) {{ return {f}(sew, seed, elements, active, n); }}"
    ),
    STEP: "VREDMAX_ENTRY int vredmax_entry(vredmax_state *s, uint32_t insn) {{ return {f}(s, insn); }}",
}
COMPILE_LIMIT_S = 120


class BuildError(ValueError):
    """The file does not compile, has no such function, or a function of another type."""


@dataclass(frozen=True)
class Built:
    source: str  # absolute path of the user's file
    function: str
    level: str
    plain: str  # the library that is run and executed symbolically
    sanitized: str  # the same with AddressSanitizer and UBSan
    cflags: tuple[str, ...]
    compiler: str


def compiler() -> str:
    for name in ("cc", "gcc", "clang"):
        found = shutil.which(name)
        if found:
            return found
    raise BuildError("cc: no C compiler found (install gcc)")


def parse_cflags(text: str | None) -> tuple[str, ...]:
    try:
        return tuple(shlex.split(text or ""))
    except ValueError as error:
        raise BuildError(f"cflags: {error}") from None


def _wrapper(source: str, function: str, level: str) -> str:
    quoted = source.replace("\\", "\\\\").replace('"', '\\"')
    return (
        f'#include "{quoted}"\n#include "vredmax_check.h"\n'
        '#define VREDMAX_ENTRY __attribute__((visibility("default")))\n'
        f"static {TYPES[level]} *const vredmax_type_check __attribute__((unused)) = {function};\n"
        + ENTRY[level].format(f=function)
        + "\n"
    )


def _run(cc: str, args: list[str], workdir: str) -> subprocess.CompletedProcess:
    try:
        return subprocess.run(
            [cc, *args], cwd=workdir, capture_output=True, text=True, timeout=COMPILE_LIMIT_S
        )
    except subprocess.TimeoutExpired:
        raise BuildError(f"cc: the compiler ran past {COMPILE_LIMIT_S} s") from None


def first_error(stderr: str, source: str) -> str:
    """The compiler's first error as `file:line: message` (the file as the user named it)."""
    for line in stderr.splitlines():
        match = re.match(r"(.*?):(\d+):(?:\d+:)? (?:fatal )?error: (.*)", line)
        if match:
            where = match.group(1)
            if os.path.abspath(where) == source:
                where = os.path.relpath(source) if not os.path.relpath(source).startswith("..") else source
            return f"{where}:{match.group(2)}: {match.group(3)}"
    lines = [line for line in stderr.splitlines() if line.strip()]
    return lines[-1] if lines else "the compiler failed"


def _mentions_function(stderr: str, function: str) -> bool:
    return bool(
        re.search(
            rf"'{re.escape(function)}' undeclared|undeclared identifier '{re.escape(function)}'", stderr
        )
    )


def build(
    path: str, function: str | None, cflags: tuple[str, ...], workdir: str, level: str | None = None
) -> Built:
    """Compile `path`; find FUNCTION's level (or check the given one); both libraries in workdir."""
    source = os.path.abspath(path)
    if not os.path.isfile(source):
        raise BuildError(f"c: no such file: {path}")
    cc = compiler()
    flags = (*DEFAULT_CFLAGS, *cflags)
    common = [*flags, "-I", HEADER_DIR, "-I", os.path.dirname(source)]
    alone = _run(cc, [*common, "-fsyntax-only", "-x", "c", source], workdir)
    if alone.returncode != 0:
        raise BuildError(first_error(alone.stderr, source))
    candidates = [(level or lv, function or DEFAULT_FUNCTION[lv]) for lv in ((level,) if level else LEVELS)]
    if function and not level:
        candidates = [(lv, function) for lv in LEVELS]
    missing = []
    for lv, name in candidates:
        wrapper = os.path.join(workdir, f"vredmax_{lv}.c")
        with open(wrapper, "w") as out:
            out.write(_wrapper(source, name, lv))
        probe = _run(cc, [*common, "-fsyntax-only", "-Werror=incompatible-pointer-types", wrapper], workdir)
        if probe.returncode != 0:
            if _mentions_function(probe.stderr, name):
                missing.append(name)
            continue
        plain, sanitized = os.path.join(workdir, "plain.so"), os.path.join(workdir, "sanitized.so")
        # -g: the lines an UNKNOWN names (debug information does not change the code made)
        for output, extra in ((plain, ("-g",)), (sanitized, SANITIZE)):
            # hidden: FUNCTION binds inside the library (a `step` must not resolve to libc's)
            done = _run(
                cc,
                [*common, *extra, "-fPIC", "-shared", "-fvisibility=hidden", "-o", output, wrapper],
                workdir,
            )
            if done.returncode != 0:
                raise BuildError(first_error(done.stderr, source))
        return Built(source, name, lv, plain, sanitized, flags, cc)
    shown = os.path.relpath(source) if not os.path.relpath(source).startswith("..") else source
    names = sorted({name for _, name in candidates})
    if len(missing) == len(candidates):
        raise BuildError(f"function: {shown} has no function {' or '.join(names)}")
    wanted = " or ".join(
        f"{TYPES[lv]} ({'a reduction unit' if lv == UNIT else 'a whole instruction step'})"
        for lv, _ in candidates
    )
    raise BuildError(f"function: {' / '.join(names)} in {shown} is not of type {wanted}; see vredmax_check.h")
