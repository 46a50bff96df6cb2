"""The full sweep: every obligation for all 422 legal configurations (slow: -m sweep)."""

from __future__ import annotations

import pytest

from vredmax.spec.config import every_config, legal_configs
from vredmax.cli.main import main

pytestmark = pytest.mark.sweep


def test_the_configuration_space_has_422_points():
    assert len(legal_configs(64)) == 220  # the V extension's VLEN 128..65536
    assert len(every_config()) == 422  # with ELEN=32 from VLEN=32 and ELEN=64 from 64


def test_everything_is_proved_for_every_configuration(capsys):
    code = main(["prove", "--all", "--jobs", "2"])
    out, _ = capsys.readouterr()
    assert code == 0, "\n".join(line for line in out.splitlines() if not line.startswith("PROVED"))
    assert out.splitlines()[-1].endswith("0 counterexamples, 0 unknown, 0 errors")
