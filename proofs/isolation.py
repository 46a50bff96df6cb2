"""Run a user's implementation in child processes: its crashes, exits, loops and prints stay there.

A worker is a fresh interpreter (multiprocessing "spawn") that loads MODULE:FUNCTION itself,
so nothing of the user's code runs in the parent. Its file descriptors 1 and 2 go to a file,
so whatever the user's code prints is captured and handed back with each result (shown apart
from the report, never mixed into --json). The worker ignores SIGINT: Ctrl-C reaches the
parent, which kills its workers.

The parent enforces real wall-clock limits: the worker says when it enters and leaves the
user's code (proofs/check_impl.py USER_CALL_HOOK); a call that runs longer than the limit
(--timeout) is killed and reported as an ERROR, and so is a worker that dies (os._exit, a
segfault). A whole configuration that runs past TASK_LIMIT_FACTOR x the limit is UNKNOWN.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import sys
import tempfile
import time
from multiprocessing.connection import wait

from vredmax.proofs.verdict import Verdict
from vredmax.spec.config import Config

TASK_LIMIT_FACTOR = 20
OUTPUT_LIMIT = 20_000      # characters of captured output kept per configuration
LOAD_LIMIT_S = 60.0


class LoadFailed(Exception):
    """The worker could not load MODULE:FUNCTION; the message says why."""


def _ignore_interrupts() -> None:
    """Ctrl-C reaches the whole process group: the parent alone handles it and kills the
    workers. On Linux the kernel also ends a worker whose parent dies."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if sys.platform.startswith("linux"):
        try:
            import ctypes
            ctypes.CDLL(None).prctl(1, signal.SIGTERM)   # PR_SET_PDEATHSIG
        except (OSError, AttributeError):
            pass


def _worker_main(conn, target: str, options: dict) -> None:
    _ignore_interrupts()
    capture = tempfile.TemporaryFile(mode="w+b")
    sys.stdout.flush()
    sys.stderr.flush()
    os.dup2(capture.fileno(), 1)
    os.dup2(capture.fileno(), 2)

    def captured() -> str:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:
                pass
        capture.seek(0)
        data = capture.read()
        capture.seek(0)
        capture.truncate()
        text = data.decode("utf-8", "replace")
        return text if len(text) <= OUTPUT_LIMIT else text[:OUTPUT_LIMIT] + f"\n... ({len(text)} characters)"

    from vredmax.proofs import check_impl
    try:
        function = check_impl.load(target)
    except check_impl.LoadError as error:
        conn.send(("load-error", str(error), captured()))
        return
    conn.send(("loaded", check_impl.detect_level(function), captured()))
    check_impl.USER_CALL_HOOK = lambda entering: conn.send(("user", entering))
    while True:
        task = conn.recv()
        if task is None:
            return
        level, cfg = task
        try:
            result = check_impl.check_config(function, level, cfg, **options)
        except BaseException as error:   # a fault of the checker itself: report it, keep going
            import traceback
            result = check_impl.ConfigResult(cfg, check_impl.method_for(level, cfg) or "none")
            result.checks.append(check_impl.Check(
                cfg, check_impl.ANY_TAIL, result.method, Verdict.ERROR, 0.0,
                f"checker fault: {type(error).__name__}: {error}\n{traceback.format_exc(limit=-3)}"))
        result.output = captured()
        conn.send(("result", result))


class _Worker:
    def __init__(self, context, target: str, options: dict):
        self.conn, child = context.Pipe()
        self.process = context.Process(target=_worker_main, args=(child, target, options), daemon=True)
        self.process.start()
        child.close()
        self.task = None
        self.task_since = self.user_since = 0.0
        self.in_user = False

    def kill(self) -> None:
        if self.process.is_alive():
            self.process.kill()
        self.process.join(5)
        self.conn.close()


class ProcessPool:
    """check_impl.check_config for each submitted configuration, in up to `jobs` workers.

    The interface of check_impl.InProcess: submit(cfg), results() (an iterator of
    ConfigResult, in completion order), cancel_all(); close() kills the workers."""

    def __init__(self, target: str, jobs: int, user_limit_s: float, options: dict):
        self.target, self.jobs, self.options = target, max(1, jobs), options
        self.user_limit_s = user_limit_s
        self.context = multiprocessing.get_context("spawn")
        self.queue: list = []
        self.workers: list[_Worker] = []
        self.level = None
        self.load_output = ""

    # starting ---------------------------------------------------------------------------------

    def _start_worker(self) -> _Worker:
        worker = _Worker(self.context, self.target, self.options)
        if not worker.conn.poll(LOAD_LIMIT_S):
            worker.kill()
            raise LoadFailed(f"loading {self.target} took more than {LOAD_LIMIT_S:g} s")
        try:
            kind, value, output = worker.conn.recv()
        except EOFError:
            code = worker.process.exitcode
            worker.kill()
            raise LoadFailed(f"loading {self.target} ended the process (exit code {code})") from None
        if kind == "load-error":
            worker.kill()
            raise LoadFailed(value)
        self.level = value
        self.load_output = self.load_output or output
        return worker

    def start(self) -> str | None:
        """Start the first worker (it loads the user's module); the level it detected."""
        if not self.workers:
            self.workers.append(self._start_worker())
        return self.level

    # the pool interface -----------------------------------------------------------------------

    def submit(self, cfg: Config) -> None:
        self.queue.append(cfg)

    def cancel_all(self) -> None:
        self.queue.clear()
        for worker in self.workers:
            if worker.task is not None:
                worker.kill()
        self.workers = [w for w in self.workers if w.task is None]

    def close(self) -> None:
        for worker in self.workers:
            if worker.process.is_alive():
                try:
                    worker.conn.send(None)
                except (OSError, BrokenPipeError):
                    pass
            worker.kill()
        self.workers = []

    def results(self):
        while self.queue or any(w.task is not None for w in self.workers):
            self._assign()
            busy = [w for w in self.workers if w.task is not None]
            ready = wait([w.conn for w in busy], timeout=0.2)
            now = time.perf_counter()
            for worker in busy:
                if worker.conn in ready:
                    result = self._receive(worker)
                    if result is not None:
                        yield result
                        continue
                if worker.task is None:
                    continue
                if worker.in_user and now - worker.user_since > self.user_limit_s:
                    yield self._lost(worker, Verdict.ERROR,
                                     f"the implementation did not return within {self.user_limit_s:g} s "
                                     "(--timeout): stopped (an endless loop?)")
                elif now - worker.task_since > TASK_LIMIT_FACTOR * self.user_limit_s:
                    yield self._lost(worker, Verdict.UNKNOWN,
                                     f"the check did not finish within {TASK_LIMIT_FACTOR * self.user_limit_s:g} s")

    def _assign(self) -> None:
        for worker in self.workers:
            if worker.task is None and self.queue:
                self._give(worker, self.queue.pop(0))
        while self.queue and len(self.workers) < self.jobs:
            try:
                worker = self._start_worker()
            except LoadFailed:
                if self.workers:       # it loaded before: go on with the workers there are
                    return
                raise
            self.workers.append(worker)
            self._give(worker, self.queue.pop(0))

    def _give(self, worker: _Worker, cfg: Config) -> None:
        worker.task = cfg
        worker.task_since = time.perf_counter()
        worker.in_user = False
        worker.conn.send((self.level, cfg))

    def _receive(self, worker: _Worker):
        try:
            while worker.conn.poll():
                message = worker.conn.recv()
                if message[0] == "user":
                    worker.in_user = message[1]
                    worker.user_since = time.perf_counter()
                elif message[0] == "result":
                    worker.task = None
                    return message[1]
        except (EOFError, OSError):
            code = worker.process.exitcode if not worker.process.is_alive() else None
            worker.process.join(1)
            code = worker.process.exitcode if code is None else code
            return self._lost(worker, Verdict.ERROR,
                              f"the process running the implementation ended (exit code {code}): "
                              "os._exit, a crash, or a signal")
        return None

    def _lost(self, worker: _Worker, verdict: Verdict, detail: str):
        """The worker is killed; its configuration gets `verdict` with `detail`."""
        from vredmax.proofs import check_impl
        cfg = worker.task
        worker.kill()
        self.workers.remove(worker)
        result = check_impl.ConfigResult(cfg, check_impl.method_for(self.level, cfg) or "none")
        result.checks.append(check_impl.Check(cfg, check_impl.ANY_TAIL, result.method, verdict, 0.0, detail))
        return result
