"""Sweeps on a Dask cluster (vredmax/cluster.py): a real dask.distributed LocalCluster on
loopback gives the same results as local processes and as this process."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from vredmax.cluster import Workers
from vredmax.errors import UsageError

distributed = pytest.importorskip("distributed")

VREDMAX = Path(sys.executable).parent / "vredmax"
PROVE = ["prove", "--vlen", "128", "--sew", "8", "--lmul", "m1,mf2", "--json"]


@pytest.fixture(scope="module")
def scheduler():
    """Two worker processes on 127.0.0.1, shut down at the end of the module."""
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                  dashboard_address=None, memory_limit="2GiB") as cluster:
        yield cluster.scheduler_address


def _square(x: int) -> int:
    return x * x


def test_every_way_maps_the_same(scheduler):
    expected = [(i, i * i) for i in range(7)]
    for workers in (Workers(1), Workers(2), Workers(1, scheduler)):
        with workers as pool:
            assert sorted(pool.map_unordered(_square, range(7))) == expected


def _verdicts(argv) -> dict:
    done = subprocess.run([str(VREDMAX), *argv], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    document = json.loads(done.stdout)
    assert document["interrupted"] is False
    return {(r["id"], json.dumps(r["config"], sort_keys=True), r["method"]):
            (r["verdict"], [s["verdict"] for s in r["subjects"]]) for r in document["results"]}


def test_prove_on_the_cluster_gives_the_local_results(scheduler):
    local = _verdicts(PROVE + ["--jobs", "2"])
    remote = _verdicts(PROVE + ["--scheduler", scheduler])
    assert remote == local
    assert len(local) > 100 and {v for v, _ in local.values()} == {"PROVED"}


def test_an_unreachable_scheduler_is_one_line_and_exit_2():
    with pytest.raises(UsageError, match=r"^--scheduler: cannot connect to tcp://127\.0\.0\.1:9"):
        with Workers(1, "tcp://127.0.0.1:9", connect_timeout_s=1):
            pass


def _conform(argv) -> dict:
    done = subprocess.run([str(VREDMAX), "conform", "--cases", "600", "--seed", "11", "--json", *argv],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.skipif(not shutil.which("qemu-riscv64") or not shutil.which("riscv64-linux-gnu-gcc"),
                    reason="needs qemu-riscv64 and the riscv64 cross compiler")
def test_conform_on_the_cluster_gives_the_local_results(scheduler):
    import jsonschema
    from vredmax.schema import load_schema
    here, local, remote = _conform([]), _conform(["--jobs", "2"]), _conform(["--scheduler", scheduler])
    for document in (here, local, remote):
        jsonschema.validate(document, load_schema("conform-result"))
    assert here["cases"] == 600 and here["counts"]["agree"] > 300
    keys = ("counts", "details", "mismatches", "agreed")
    assert [{k: d[k] for k in keys} for d in (local, remote)] == [{k: here[k] for k in keys}] * 2
