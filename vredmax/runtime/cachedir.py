"""The per-user cache folder: $VREDMAX_CACHE, else $XDG_CACHE_HOME/vredmax, else ~/.cache/vredmax.

It holds what can be rebuilt at any time (the conformance harness, solver answers): deleting
it only costs time.
"""

from __future__ import annotations

import os
from pathlib import Path


def cache_root() -> Path:
    explicit = os.environ.get("VREDMAX_CACHE")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "vredmax"
