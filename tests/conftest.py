"""Shared fixtures.

Conformance tests need the Debian cross tools and QEMU. Locally a test that needs an absent
tool skips and says which; in CI (the environment variable CI=true) it fails instead, so a
broken CI image cannot pass by skipping.
"""

from __future__ import annotations

import os
import shutil

import pytest

INSTALL_HINT = ("apt-get install binutils-riscv64-linux-gnu gcc-riscv64-linux-gnu "
                "libc6-dev-riscv64-cross qemu-user")
GNU_TOOLS = ("riscv64-linux-gnu-as", "riscv64-linux-gnu-objdump")
HARNESS_TOOLS = ("riscv64-linux-gnu-gcc", "qemu-riscv64")


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() in ("true", "1", "yes")


def require_tools(*tools: str) -> None:
    """Skip (locally) or fail (in CI) unless every tool is on PATH."""
    missing = [tool for tool in tools if shutil.which(tool) is None]
    if not missing:
        return
    message = f"needs {', '.join(missing)} ({INSTALL_HINT})"
    if in_ci():
        pytest.fail(f"CI=true, so a missing tool is a failure: {message}", pytrace=False)
    pytest.skip(message)


@pytest.fixture(scope="session")
def gnu_tools() -> None:
    require_tools(*GNU_TOOLS)


@pytest.fixture(scope="session")
def harness_binary():
    """The built riscv64 harness (needs the cross compiler and QEMU)."""
    require_tools(*HARNESS_TOOLS)
    from vredmax.platforms.conformance.build import build_harness
    return build_harness()


@pytest.fixture(scope="session")
def harnesses(harness_binary):
    """`harnesses(vlen, tail[, elen])`: one QEMU process per VLEN, tail policy and ELEN, kept
    for the session."""
    from vredmax.platforms.conformance.qemu import Harness
    running = {}

    def get(vlen: int, tail: str, elen: int = 64) -> Harness:
        if (vlen, tail, elen) not in running:
            running[vlen, tail, elen] = Harness("qemu-riscv64", harness_binary, vlen, tail, elen)
        return running[vlen, tail, elen]

    yield get
    for harness in running.values():
        harness.close()
