"""Every JSON object the tool prints carries `"schema"`: which document it is, and its version.

The JSON Schema of each kind ships in `vredmax/schemas/KIND.schema.json`; a kind's version
changes when a field changes meaning or goes away (adding a field keeps it).
"""

from __future__ import annotations

import json
from importlib import resources

SCHEMA_BASE = "vredmax"


def schema_id(kind: str, version: int = 1) -> str:
    """The value of the `schema` field, e.g. "vredmax/exec-result/1"."""
    return f"{SCHEMA_BASE}/{kind}/{version}"


def tagged(kind: str, obj: dict, version: int = 1) -> dict:
    """The object with `schema` as its first key."""
    return {"schema": schema_id(kind, version), **obj}


def load_schema(kind: str) -> dict:
    """The shipped JSON Schema of a kind."""
    return json.loads(resources.files("vredmax").joinpath("schemas", f"{kind}.schema.json").read_text())
