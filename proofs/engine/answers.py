"""A content-addressed store of solver answers, shared by runs and processes.

A question's answer cannot change while the question, the solver and its version stay the
same, so it is kept under the SHA-256 of exactly that: the query's SMT-LIB2 text (what
`--smt2-out` writes), the solver asked and the versions of z3, bitwuzla and cvc5. An entry
holds the verdict, and for a counterexample the model's values. A second digest of the
same material (BLAKE2b) and a checksum of the entry are checked on every read: an entry that
does not match (a truncated write, an edited or corrupted file, a file under the wrong name)
is ignored, never trusted. UNKNOWN (a timeout, the solver gave up, Ctrl-C) is never kept, so
a timeout is asked again and the timeout need not be part of the key.

Two kinds of entries:
- a query's answer (proofs/engine/verdict.py): keyed by the query text as above;
- a part's verdict (proofs/obligations/runner.py, PROVED only): keyed by the part's name in
  the catalogue and a fingerprint of every source file of spec/, impl/ and proofs/ (the code
  that builds the part's queries, a deterministic function of them) with the solvers'
  versions, so that a warm `prove` need not build its terms at all. Any change to that code
  changes the fingerprint.

Files: FOLDER/ab/abcdef....json, written to a temporary file and renamed (atomic: several
processes may write the same entry, a reader sees a whole file or none). FOLDER is
$VREDMAX_ANSWERS, else answers/ in the per-user cache folder (vredmax/runtime/cachedir.py).
The store is off until a command turns it on (`using`); `--no-cache` leaves it off.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from pathlib import Path

from vredmax.runtime import interrupts
from vredmax.runtime.cachedir import cache_root

FORMAT = "vredmax-answers/2"
FOLDER_ENV = "VREDMAX_ANSWERS"
KEPT = ("PROVED", "COUNTEREXAMPLE", "ERROR")  # never UNKNOWN
# A query answered faster than this is kept in memory only (for this process): writing its
# file costs about as much as asking again (measured: a third of a millisecond a file, where
# the small queries of the default `prove` take one to five).
DURABLE_S = 0.02


def default_folder() -> Path:
    explicit = os.environ.get(FOLDER_ENV)
    return Path(explicit) if explicit else cache_root() / "answers"


class Store:
    """The entries under one folder, with the ones read or written in this process in memory."""

    def __init__(self, folder: str | os.PathLike[str]) -> None:
        self.folder = Path(folder)
        self._root = str(self.folder)
        self._folders: set[str] = set()  # the entry folders known to exist
        self._serials = itertools.count()
        self._memory: dict[str, dict[str, Any]] = {}
        self.hits = self.misses = self.ignored = self.written = 0

    def get(self, material: str) -> dict[str, Any] | None:
        """The entry kept for exactly this material (a string), or None."""
        key, check = _digests(material)
        entry = self._memory.get(key)
        if entry is None:
            entry = self._read(key, check)
            if entry is not None:
                self._memory[key] = entry
        if entry is None:
            self.misses += 1
        else:
            self.hits += 1
        return entry

    def put(self, material: str, entry: dict[str, Any], durable: bool = True) -> None:
        """Keep an answer: in memory, and unless `durable` is false in the folder too."""
        if entry.get("verdict") not in KEPT:
            return
        key, check = _digests(material)
        self._memory[key] = entry
        if not durable or interrupts.interrupted():  # no file is written after Ctrl-C
            return
        body = {"format": FORMAT, "key": key, "check": check, "entry": entry}
        text = json.dumps(dict(body, sum=_sum(body)), sort_keys=True)
        folder, path = self._path(key)
        try:
            if folder not in self._folders:
                os.makedirs(folder, exist_ok=True)
                self._folders.add(folder)
            # a name of this process's own (pid and a counter; O_EXCL: never another's file)
            temporary = os.path.join(folder, f".{os.getpid()}.{next(self._serials)}.tmp")
            descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
            try:
                with os.fdopen(descriptor, "w", encoding="utf-8") as stream:
                    stream.write(text)
                os.replace(temporary, path)
            except BaseException:
                os.unlink(temporary)
                raise
            self.written += 1
        except OSError:  # a cache that cannot be written only costs time
            pass

    def forget(self, material: str) -> None:
        """Drop an entry that turned out not to serve (e.g. a model that does not replay)."""
        key, _ = _digests(material)
        self._memory.pop(key, None)
        self.ignored += 1

    def _path(self, key: str) -> tuple[str, str]:
        """(folder, file) of an entry (as strings: pathlib's objects cost more than the read)."""
        folder = os.path.join(self._root, key[:2])
        return folder, os.path.join(folder, f"{key[2:]}.json")

    def _read(self, key: str, check: str) -> dict[str, Any] | None:
        try:
            with open(self._path(key)[1], encoding="utf-8") as stream:
                text = stream.read()
        except (OSError, UnicodeDecodeError):
            return None
        try:
            body = json.loads(text)
            valid = (
                isinstance(body, dict)
                and body.get("format") == FORMAT
                and body.get("key") == key
                and body.get("check") == check
                and isinstance(body.get("entry"), dict)
                and body.pop("sum", None) == _sum(body)
                and body["entry"].get("verdict") in KEPT
            )
        except (ValueError, TypeError, KeyError):
            valid = False
        if not valid:
            self.ignored += 1
            return None
        entry: dict[str, Any] = body["entry"]
        return entry


def _digests(material: str) -> tuple[str, str]:
    data = material.encode("utf-8")
    return hashlib.sha256(data).hexdigest(), hashlib.blake2b(data, digest_size=32).hexdigest()


def _sum(body: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(body, sort_keys=True).encode("utf-8")).hexdigest()


_CURRENT: list[Store | None] = [None]


def current() -> Store | None:
    """The store in use, or None when answers are not kept (the default)."""
    return _CURRENT[0]


@contextmanager
def using(folder: str | os.PathLike[str] | None) -> Iterator[Store | None]:
    """Keep and reuse answers in `folder` (None: not at all) inside the block."""
    previous = _CURRENT[0]
    _CURRENT[0] = Store(folder) if folder is not None else None
    try:
        yield _CURRENT[0]
    finally:
        _CURRENT[0] = previous


def query_material(kind: str, solver: str, text: str) -> str:
    """What a query's answer is keyed by: its kind (prove/satisfiable), the solver, the
    solvers' versions and its SMT-LIB2 text."""
    return "\n".join([FORMAT, kind, solver, _versions_line(), text])


_FINGERPRINT: list[str] = []


def part_material(text: str) -> str:
    """What a part's verdict is keyed by: its name in the catalogue (`text`), the fingerprint
    of the code that builds its queries and the solvers' versions."""
    if not _FINGERPRINT:
        _FINGERPRINT.append(_code_fingerprint())
    return "\n".join([FORMAT, "part", _FINGERPRINT[0], _versions_line(), text])


_VERSIONS: list[str] = []


def _versions_line() -> str:
    """The solvers' versions and the term constructors in use (found once: a package's
    metadata takes milliseconds to read)."""
    if not _VERSIONS:
        from vredmax.proofs.engine.solvers import versions
        from vredmax.spec.z3fast import BACKEND

        _VERSIONS.append(
            " ".join(f"{name}={value}" for name, value in sorted(versions().items())) + f" terms={BACKEND}"
        )
    return _VERSIONS[0]


def _code_fingerprint() -> str:
    """SHA-256 of every Python source of spec/, impl/ and proofs/ (path and content) and the
    Python version."""
    import vredmax.impl
    import vredmax.proofs
    import vredmax.spec

    digest = hashlib.sha256(sys.version.encode())
    for package in (vredmax.spec, vredmax.impl, vredmax.proofs):
        root = Path(package.__path__[0])
        for path in sorted(root.rglob("*.py")):
            digest.update(f"{package.__name__}/{path.relative_to(root).as_posix()}\0".encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()
