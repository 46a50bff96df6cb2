"""The user's function: loaded from MODULE:FUNCTION (a file rewritten so that its branches
on symbolic values can be merged or explored, proofs/python/rewrite.py), and its plug-in
level from its parameters."""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import os
import sys
import traceback

from vredmax.proofs.python import rewrite
from vredmax.proofs.python.runcontext import INTERNAL_FILES

UNIT, INSTRUCTION = "unit", "instruction"
LEVELS = (UNIT, INSTRUCTION)
UNIT_PARAMETERS = ("ops", "seed", "elements", "active")
INSTRUCTION_PARAMETERS = ("m", "pre", "insn", "cfg", "tail")


class LoadError(ValueError):
    """MODULE:FUNCTION cannot be loaded; the message says why."""


def load(target: str):
    """The function named by `MODULE:FUNCTION`; MODULE is a file path or a module name.

    A file is loaded from exactly that path under a name of its own (`vredmax_user_<name>`),
    so a user file called impl.py or spec.py is never confused with the project's packages;
    its directory goes first on sys.path, so its own `import helper` finds its neighbours, and
    the working directory last (its packages, as `python` would find them)."""
    module_name, sep, function_name = target.rpartition(":")
    if not sep or not module_name or not function_name:
        raise LoadError(f"expected MODULE:FUNCTION (a file path or a module name), got {target!r}")
    if ":" in module_name and not os.path.isfile(module_name):
        raise LoadError(
            f"expected MODULE:FUNCTION with one ':' (a file path or a module name, then the "
            f"function's name), got {target!r}"
        )
    try:
        if module_name.endswith(".py") or os.sep in module_name:
            if not os.path.isfile(module_name):
                raise LoadError(f"no such file: {module_name}")
            path = os.path.abspath(module_name)
            name = "vredmax_user_" + "".join(
                c if c.isalnum() else "_" for c in os.path.splitext(os.path.basename(path))[0]
            )
            # rewritten so that its branches on symbolic values can be merged or explored
            # (proofs/python/rewrite.py), its neighbours too when it imports them
            loader_spec, module = rewrite.module_from_file(name, path)
            folder = os.path.dirname(path)
            rewrite.user_folder(folder)
            if folder not in sys.path:
                sys.path.insert(0, folder)
            if os.getcwd() not in sys.path:  # as `python` does: packages of the working directory
                sys.path.append(os.getcwd())
            sys.modules[name] = module
            loader_spec.loader.exec_module(module)
        else:
            module = importlib.import_module(module_name)
    except LoadError:
        raise
    except BaseException as error:  # the user's module may raise anything while importing
        # the innermost frame outside importlib's machinery (a SyntaxError names its own place)
        frames = [
            f
            for f in traceback.extract_tb(error.__traceback__)
            if not f.filename.startswith("<frozen")
            and "importlib" not in f.filename
            and os.path.abspath(f.filename) != os.path.abspath(__file__)
            and os.path.abspath(f.filename) not in INTERNAL_FILES
        ]
        where = (
            f" (at {frames[-1].filename}:{frames[-1].lineno})"
            if frames and not isinstance(error, SyntaxError)
            else ""
        )
        raise LoadError(f"cannot load {module_name}: {type(error).__name__}: {error}{where}") from None
    function = getattr(module, function_name, None)
    if not callable(function):
        raise LoadError(f"{module_name} has no function {function_name!r}")
    return function


def detect_level(function) -> str | None:
    """UNIT or INSTRUCTION from the function's parameters (names, else their number)."""
    try:
        names = tuple(inspect.signature(function).parameters)
    except (TypeError, ValueError):
        return None
    if names == UNIT_PARAMETERS or len(names) == len(UNIT_PARAMETERS):
        return UNIT
    if names == INSTRUCTION_PARAMETERS or len(names) == len(INSTRUCTION_PARAMETERS):
        return INSTRUCTION
    return None
