"""A certificate directory: per query its CNFs, DRAT proof and model (gzip), and a manifest.

    DIR/manifest.json                 schema vredmax/certify-manifest/1: every query, every verdict
    DIR/queries/ID.cnf.gz             the CNF that must be unsatisfiable (DIMACS)
    DIR/queries/ID.drat.gz            its refutation (text DRAT, as the SAT solver wrote it)
    DIR/queries/ID.sat.cnf.gz         the CNF that must be satisfiable, its model on a line
                                      `c model: LITERALS 0` before the header

ID is a hash of the query's CNFs, so the same query is stored once. Each file's SHA-256 is in
the manifest. Imports no z3 (`vredmax certify-check` reads a directory with this alone).
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
from pathlib import Path

from vredmax.runtime.outputs import write_text

MANIFEST = "manifest.json"
QUERIES = "queries"
MODEL_PREFIX = "model: "


def query_id(*texts: str) -> str:
    digest = hashlib.sha256()
    for text in texts:
        digest.update(text.encode())
        digest.update(b"\0")
    return digest.hexdigest()[:20]


def write_gz(path: Path, text: str) -> str:
    """Write `text` gzip-compressed, whole or not at all; its SHA-256 (of the compressed bytes)."""
    data = gzip.compress(text.encode(), compresslevel=6, mtime=0)
    partial = path.with_name(path.name + f".{os.getpid()}.part")
    partial.write_bytes(data)
    os.replace(partial, path)
    return hashlib.sha256(data).hexdigest()


def read_gz(path: Path) -> tuple[str, str]:
    """(text, SHA-256 of the compressed bytes)."""
    data = path.read_bytes()
    return gzip.decompress(data).decode(), hashlib.sha256(data).hexdigest()


def query_folder(directory) -> Path:
    folder = Path(directory) / QUERIES
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def write_manifest(directory, manifest: dict, field: str) -> None:
    write_text(os.path.join(directory, MANIFEST), json.dumps(manifest, indent=1) + "\n", field)


def read_manifest(directory) -> dict:
    with open(os.path.join(directory, MANIFEST), encoding="utf-8") as stream:
        return json.load(stream)
