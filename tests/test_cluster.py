"""Sweeps on a Dask cluster (vredmax/cli/cluster.py): a real dask.distributed LocalCluster on
loopback gives the same results as local processes and as this process."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from vredmax.cli.cluster import Workers
from vredmax.runtime.errors import UsageError

# Under pytest-xdist (--dist loadgroup) the module runs on one worker: one local Dask cluster for the module.
pytestmark = pytest.mark.xdist_group("dask")

distributed = pytest.importorskip("distributed")

VREDMAX = Path(sys.executable).parent / "vredmax"
PROVE = ["prove", "--vlen", "128", "--sew", "8", "--lmul", "m1,mf2", "--json"]


@pytest.fixture(scope="module")
def scheduler():
    """Two worker processes on 127.0.0.1, shut down at the end of the module."""
    with distributed.LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",
        dashboard_address=None,
        memory_limit="2GiB",
    ) as cluster:
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
    return {
        (r["id"], json.dumps(r["config"], sort_keys=True), r["method"]): (
            r["verdict"],
            [s["verdict"] for s in r["subjects"]],
        )
        for r in document["results"]
    }


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
    done = subprocess.run(
        [str(VREDMAX), "conform", "--cases", "600", "--seed", "11", "--json", *argv],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.skipif(
    not shutil.which("qemu-riscv64") or not shutil.which("riscv64-linux-gnu-gcc"),
    reason="needs qemu-riscv64 and the riscv64 cross compiler",
)
def test_conform_on_the_cluster_gives_the_local_results(scheduler):
    import jsonschema
    from vredmax.schema import load_schema

    here, local, remote = _conform([]), _conform(["--jobs", "2"]), _conform(["--scheduler", scheduler])
    for document in (here, local, remote):
        jsonschema.validate(document, load_schema("conform-result"))
    assert here["cases"] == 600 and here["counts"]["agree"] > 300
    keys = ("counts", "details", "mismatches", "agreed")
    assert [{k: d[k] for k in keys} for d in (local, remote)] == [{k: here[k] for k in keys}] * 2


# check-impl: each configuration a job, the user's code in a child process on the worker ----------

CHECK_IMPL = ["check-impl", "--vlen", "128", "--sew", "8", "--random", "20", "--json"]
THREE = ["--lmul", "mf8,mf4,mf2"]  # VLMAX 2 and 4: monolithic; 8: cut points
# Right at VLMAX 2 and 8, wrong at VLMAX 4 only (a Python test of the length is no symbolic branch):
# whichever configurations finish first, the counterexample is the one at LMUL=mf4.
WRONG_AT_VLMAX_4 = """
def reduce(ops, seed, elements, active):
    acc = seed
    for x, a in zip(elements, active):
        acc = ops.ite(a, ops.smax(acc, x), acc)
    if len(elements) == 4:
        acc = ops.ite(active[0], elements[0], acc)
    return acc
"""


def _check_impl(argv, cwd=None) -> tuple[int, dict]:
    done = subprocess.run(
        [str(VREDMAX), *CHECK_IMPL, *argv], capture_output=True, text=True, timeout=300, cwd=cwd
    )
    assert done.returncode in (0, 1, 4), done.stderr
    return done.returncode, json.loads(done.stdout)


def _per_config(document) -> dict:
    return {
        json.dumps(r["config"], sort_keys=True): (
            r["verdict"],
            r["method"],
            r["random_states"],
            [(c["tail"], c["verdict"], c["detail"]) for c in r["checks"]],
        )
        for r in document["configurations"]
    }


def test_check_impl_on_the_cluster_gives_the_local_verdicts(scheduler):
    runs = [
        _check_impl(["examples/my_reduction.py:reduce", *THREE, *way], cwd=Path(__file__).parent.parent)
        for way in (["--jobs", "1"], ["--jobs", "2"], ["--scheduler", scheduler])
    ]
    for code, document in runs:
        assert code == 0 and document["verdict"] == "PROVED", document["detail"]
        assert _per_config(document) == _per_config(runs[0][1])
        assert (document["coverage"], document["summary"]) == (runs[0][1]["coverage"], runs[0][1]["summary"])
    assert runs[0][1]["summary"]["PROVED"] == 3


def test_check_impl_counterexample_on_the_cluster_is_the_local_one(scheduler, tmp_path):
    """A relative file path, from a directory that is not the workers' working directory."""
    (tmp_path / "wrong.py").write_text(WRONG_AT_VLMAX_4)
    runs = [
        _check_impl(["wrong.py:reduce", *THREE, *way], cwd=tmp_path)
        for way in (["--jobs", "1"], ["--jobs", "2"], ["--scheduler", scheduler])
    ]
    reference = runs[0][1]
    assert reference["counterexample"]["config"]["lmul"] == "mf4", reference["counterexample"]
    for code, document in runs:
        assert code == 1 and document["verdict"] == "COUNTEREXAMPLE"
        assert document["counterexample"] == reference["counterexample"]
        mine, theirs = _per_config(document), _per_config(reference)
        assert {k: mine[k] for k in mine.keys() & theirs.keys()} == {
            k: theirs[k] for k in mine.keys() & theirs.keys()
        }


def test_check_impl_limits_the_users_code_on_a_dask_worker(scheduler, tmp_path):
    """The wall-clock limit holds where the code runs (a Dask worker, itself a daemon process)."""
    (tmp_path / "loops.py").write_text(
        "def reduce(ops, seed, elements, active):\n    while True:\n        pass\n"
    )
    code, document = _check_impl(
        [f"{tmp_path / 'loops.py'}:reduce", "--lmul", "mf8", "--timeout", "2", "--scheduler", scheduler]
    )
    assert code == 4 and document["verdict"] == "ERROR"
    assert "did not return within 2 s (--timeout)" in document["detail"]


def test_check_impl_ctrl_c_with_a_scheduler_is_interrupted_and_130(scheduler, tmp_path):
    import signal
    import time

    marker = tmp_path / "started"
    (tmp_path / "slow.py").write_text(
        "import time\n\n"
        "def reduce(ops, seed, elements, active):\n"
        f"    open({str(marker)!r}, 'a').write('x')\n"
        "    time.sleep(4)\n"
        "    return seed\n"
    )
    process = subprocess.Popen(
        [
            str(VREDMAX),
            "check-impl",
            f"{tmp_path / 'slow.py'}:reduce",
            "--vlen",
            "128",
            "--sew",
            "64",
            "--scheduler",
            scheduler,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.time() + 60
    while not marker.exists() and time.time() < deadline:
        time.sleep(0.1)
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=30)
    assert process.returncode == 130, out + err
    assert "INTERRUPTED after 0 configurations" in out and "Summary" not in out


# local processes: leaving a map early -----------------------------------------------------------


def _nap(seconds: float) -> float:
    import time

    time.sleep(seconds)
    return seconds


def test_leaving_a_local_map_early_stops_the_workers_without_an_error_in_a_thread(monkeypatch):
    """Calls queued behind running ones, the loop left at the first result, then a worker dies
    (as one does when Ctrl-C reaches its QEMU): the executor's own thread must raise nothing.
    It raised InvalidStateError when the queued calls had been cancelled and the broken pool
    then failed them."""
    import os
    import signal
    import threading
    import time

    errors = []
    monkeypatch.setattr(threading, "excepthook", lambda hook: errors.append(hook.exc_value))
    started = time.monotonic()
    with Workers(2) as pool:
        for _index, _seconds in pool.map_unordered(_nap, [0.0] + [3.0] * 40, in_flight=40):
            break
        os.kill(next(iter(pool._executor._processes)), signal.SIGKILL)
        time.sleep(1)
    assert time.monotonic() - started < 3
    assert errors == []
