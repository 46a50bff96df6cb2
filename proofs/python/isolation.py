"""Run a user's implementation in a child process: its crashes, exits, loops and prints stay there.

    level, output = probe(target)                  # load it once in a child: its level, its prints
    job = Job(portable_target(target), os.getcwd(), level, cfg, user_limit_s, options)
    result = check_job(job)                        # check_impl.check_config in a child: a ConfigResult

`check_job` is a module-level function of one picklable argument: vredmax/cli/cluster.py runs it in
this process, in local worker processes or on Dask workers, and `Jobs` gives check_impl's pool
interface (submit, results, cancel_all) over such workers. Wherever it runs, it starts a fresh
interpreter (subprocess, so a daemonic worker process may start it too) that loads
MODULE:FUNCTION itself from its path (a file, made absolute here; a Dask worker needs it at the
same path) or by module name, in the caller's working directory when that exists there. The
child's file descriptors 1 and 2 go to a file, so whatever the user's code prints is handed back
with the result (shown apart from the report, never mixed into --json). The child ignores SIGINT
and, on Linux, dies with the process that started it.

The process running `check_job` enforces real wall-clock limits: the child says when it enters
and leaves the user's code (proofs/python/running.py USER_CALL_HOOK); a call that runs longer than
the limit (--timeout; a run on symbolic values beyond VLMAX 8192: VLMAX/8192 times it) is killed
and reported as an ERROR, and so is a child that dies (os._exit, a segfault). A whole
configuration that runs past TASK_LIMIT_FACTOR x the limit is UNKNOWN.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from multiprocessing.connection import Connection

from vredmax.proofs.engine import answers
from vredmax.proofs.engine.verdict import Verdict
from vredmax.spec.config import Config
from vredmax.runtime import limits

TASK_LIMIT_FACTOR = 20
# Beyond this VLMAX a run of the user's code on symbolic values gets VLMAX / this times the
# limit: the checker does work per element in it (a plain-Python unit at VLMAX 65536 took 40
# to 100 s on the project's 2-core machine, busy or not), where a concrete call does not.
SYMBOLIC_VLMAX_PER_LIMIT = 8192


def symbolic_allowance(cfg: Config) -> float:
    return max(1.0, cfg.vlmax / SYMBOLIC_VLMAX_PER_LIMIT)


OUTPUT_LIMIT = 20_000  # characters of captured output kept per configuration
LOAD_LIMIT_S = 60.0
POLL_S = 0.2
# The child moves the working directory ('' that -c puts first on sys.path) to the end: a file
# there named like a module the checker imports (z3.py) must not replace it, yet a MODULE given
# by name may be a package of the working directory (check_impl.load puts a file's own folder
# first).
CHILD_CODE = (
    "import os, sys; del sys.path[0]; sys.path.append(os.getcwd()); "
    "from vredmax.proofs.python.isolation import _child_main; _child_main()"
)


class LoadFailed(Exception):
    """The child could not load MODULE:FUNCTION; the message says why."""


@dataclass(frozen=True)
class Job:
    """One configuration to check: everything a worker on another machine needs."""

    target: str  # MODULE:FUNCTION, MODULE an absolute file path or a module name
    cwd: str  # the caller's working directory (used where it exists)
    level: str
    cfg: Config
    user_limit_s: float  # wall-clock limit per call of the user's code
    options: tuple  # check_impl.check_config's keyword arguments, as (name, value) pairs
    memory_mb: int | None = limits.DEFAULT_MEMORY_MB  # the child's memory limit (None: none)


def portable_target(target: str) -> str:
    """MODULE:FUNCTION with a file MODULE made absolute (a worker's working directory differs)."""
    module, _, function = target.rpartition(":")
    if module.endswith(".py") or os.sep in module:
        module = os.path.abspath(module)
    return f"{module}:{function}"


def probe(
    target: str, cwd: str | None = None, memory_mb: int | None = limits.DEFAULT_MEMORY_MB
) -> tuple[str | None, str]:
    """Load MODULE:FUNCTION in a child: (the level its parameters tell, what it printed)."""
    child = _Child(target, cwd or os.getcwd(), (), memory_mb)
    try:
        return child.loaded()
    finally:
        child.kill()


def check_job(job: Job):
    """check_impl.check_config(job...) in a fresh child, under the wall-clock limits."""
    previous = _reap_children_on_sigterm()
    child = _Child(job.target, job.cwd, job.options, job.memory_mb)
    try:
        child.loaded()
        return child.check(job.level, job.cfg, job.user_limit_s)
    finally:
        child.kill()
        if previous is not _UNCHANGED:
            signal.signal(signal.SIGTERM, signal.SIG_DFL if previous is None else previous)


_LIVE: set = set()  # the children this process has started and not yet reaped
_UNCHANGED = object()


def _reap_children_on_sigterm():
    """A local worker process is ended by SIGTERM (vredmax/cli/cluster.py, on Ctrl-C): it kills
    and reaps its child first. (The child would die with it anyway, but as an orphan it stays
    a zombie wherever PID 1 does not reap, as in many containers.) Only the main thread may set
    a handler (a Dask worker runs jobs in other threads); the previous handler, or _UNCHANGED."""
    if threading.current_thread() is not threading.main_thread():
        return _UNCHANGED
    previous = signal.getsignal(signal.SIGTERM)

    def on_sigterm(signum, frame):
        signal.signal(signal.SIGTERM, signal.SIG_IGN)  # the pool may send it twice: once is enough
        for child in list(_LIVE):
            try:  # not through Popen: the interrupted code may hold its lock
                os.kill(child.process.pid, signal.SIGKILL)
                os.waitpid(child.process.pid, 0)
            except (ProcessLookupError, ChildProcessError):
                pass
        if callable(previous):
            signal.signal(signal.SIGTERM, previous)
            previous(signum, frame)
        else:
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            os.kill(os.getpid(), signal.SIGTERM)

    signal.signal(signal.SIGTERM, on_sigterm)
    return previous


class Jobs:
    """check_impl's pool interface over vredmax/cli/cluster.py's workers (an entered Workers):
    submit(cfg), results() (ConfigResults in completion order), cancel_all(). Each submitted
    configuration becomes a Job, handed out as workers take work."""

    def __init__(self, workers, job_for):
        self.workers, self.job_for = workers, job_for
        self.queue: list[Config] = []

    def submit(self, cfg: Config) -> None:
        self.queue.append(cfg)

    def cancel_all(self) -> None:
        """Nothing more is started (a job already running finishes unread on a Dask worker; local
        workers are terminated when the `with` block of Workers ends)."""
        self.queue.clear()

    def results(self):
        def jobs():
            while self.queue:
                yield self.job_for(self.queue.pop(0))

        mapped = self.workers.map_unordered(check_job, jobs())
        try:
            for _, result in mapped:
                yield result
        finally:
            mapped.close()  # pending jobs are cancelled now, not when this is collected


# The child process -------------------------------------------------------------------------------


class _Child:
    def __init__(self, target: str, cwd: str, options: tuple, memory_mb: int | None):
        self.target, self.memory_mb = target, memory_mb
        self.max_rss_kb = 0
        self.output = tempfile.TemporaryFile()  # the child's stdout and stderr
        self.conn, child_end = multiprocessing.Pipe()
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-c",
                CHILD_CODE,
                str(child_end.fileno()),
                str(os.getpid()),
                str(memory_mb or 0),
            ],
            pass_fds=(child_end.fileno(),),
            stdin=subprocess.DEVNULL,
            stdout=self.output,
            stderr=self.output,
            cwd=cwd if os.path.isdir(cwd) else None,
        )
        child_end.close()
        _LIVE.add(self)
        store = answers.current()  # the child keeps its solver answers where this process does
        self.conn.send((target, dict(options), str(store.folder) if store is not None else None))

    def loaded(self) -> tuple[str | None, str]:
        """(level, output while loading) once the child has loaded the user's code."""
        if not self.conn.poll(LOAD_LIMIT_S):
            raise LoadFailed(f"loading {self.target} took more than {LOAD_LIMIT_S:g} s")
        try:
            kind, value, output = self.conn.recv()
        except (EOFError, OSError):
            code = self._exit_code()
            last = self.leftover_output().strip().split("\n")[-1]
            raise LoadFailed(
                f"loading {self.target} ended the process (exit code {code}"
                f"{self._memory_note()})" + (f": {last}" if last else "")
            ) from None
        if kind == "load-error":
            raise LoadFailed(value)
        return value, output

    def check(self, level: str, cfg: Config, user_limit_s: float):
        self.conn.send((level, cfg))
        task_since = user_since = time.perf_counter()
        in_user, limit_s = False, user_limit_s
        while True:
            try:
                while self.conn.poll(POLL_S):
                    message = self.conn.recv()
                    if message[0] == "result":
                        return message[1]
                    in_user, user_since = message[1], time.perf_counter()
                    limit_s = user_limit_s * (symbolic_allowance(cfg) if message[2] else 1)
            except (EOFError, OSError):
                return self._lost(
                    level,
                    cfg,
                    Verdict.ERROR,
                    f"the process running the implementation ended (exit code {self._exit_code()}"
                    f"{self._memory_note()}): "
                    "os._exit, a crash, or a signal",
                )
            now = time.perf_counter()
            if in_user and now - user_since > limit_s:
                return self._lost(
                    level,
                    cfg,
                    Verdict.ERROR,
                    f"the implementation did not return within {limit_s:g} s "
                    f"({'--timeout' if limit_s == user_limit_s else 'VLMAX/8192 x --timeout'}): "
                    "stopped (an endless loop?)",
                )
            if now - task_since > TASK_LIMIT_FACTOR * user_limit_s:
                return self._lost(
                    level,
                    cfg,
                    Verdict.UNKNOWN,
                    f"the check did not finish within {TASK_LIMIT_FACTOR * user_limit_s:g} s",
                )

    def _lost(self, level: str, cfg: Config, verdict: Verdict, detail: str):
        """The child is killed; its configuration gets `verdict` with `detail`, and whatever
        the user's code printed."""
        from vredmax.proofs.python import check_impl

        self.kill()
        result = check_impl.ConfigResult(cfg, check_impl.method_for(level, cfg) or "none")
        result.checks.append(check_impl.Check(cfg, check_impl.ANY_TAIL, result.method, verdict, 0.0, detail))
        result.output = _limited(self.leftover_output())
        return result

    def _memory_note(self) -> str:
        note = limits.died_note(self.memory_mb, self.max_rss_kb)
        return f"; {note}" if note else ""

    def _exit_code(self):
        """The ended child's exit code (reaped here with os.wait4 for its peak memory), or None."""
        deadline = time.monotonic() + 1
        while self.process.returncode is None and time.monotonic() < deadline:
            try:
                pid, status, usage = os.wait4(self.process.pid, os.WNOHANG)
            except ChildProcessError:  # reaped already
                break
            if pid:
                self.process.returncode = os.waitstatus_to_exitcode(status)
                self.max_rss_kb = usage.ru_maxrss
                break
            time.sleep(0.02)
        try:
            return self.process.wait(0.01)
        except subprocess.TimeoutExpired:
            return None

    def leftover_output(self) -> str:
        """What the child wrote that it did not hand back (read once it has ended)."""
        self.output.seek(0)
        return self.output.read().decode("utf-8", "replace")

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()
        self.conn.close()
        _LIVE.discard(self)


def _limited(text: str) -> str:
    return text if len(text) <= OUTPUT_LIMIT else text[:OUTPUT_LIMIT] + f"\n... ({len(text)} characters)"


def _child_main() -> None:
    """The child: load MODULE:FUNCTION, then check the one configuration it is sent."""
    fd, parent = int(sys.argv[1]), int(sys.argv[2])
    from vredmax.runtime.interrupts import ignore_in_worker

    ignore_in_worker()  # SIGINT ignored (the parent stops it), die with the parent
    if os.getppid() != parent:  # the parent died before that was asked
        os._exit(1)
    memory_mb = int(sys.argv[3]) or None
    limits.fence(memory_mb)  # before the user's code: a memory limit, no new processes
    conn = Connection(fd)
    capture = open(1, "r+b", buffering=0, closefd=False)  # the parent's file: stdout and stderr

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
        return _limited(data.decode("utf-8", "replace"))

    target, options, answers_folder = conn.recv()
    from vredmax.proofs.python import check_impl

    try:
        function = check_impl.load(target)
    except check_impl.LoadError as error:
        conn.send(("load-error", str(error), captured()))
        os._exit(0)
    conn.send(("loaded", check_impl.detect_level(function), captured()))
    from vredmax.proofs.python import running

    running.USER_CALL_HOOK = lambda entering, symbolic: conn.send(("user", entering, symbolic))
    running.LIMIT_NOTE = lambda error: limits.note(error, memory_mb)
    try:
        task = conn.recv()
    except EOFError:
        os._exit(0)
    level, cfg = task
    try:
        with answers.using(answers_folder):
            result = check_impl.check_config(function, level, cfg, **options)
    except BaseException as error:  # a fault of the checker itself: reported as an ERROR
        import traceback

        result = check_impl.ConfigResult(cfg, check_impl.method_for(level, cfg) or "none")
        result.checks.append(
            check_impl.Check(
                cfg,
                check_impl.ANY_TAIL,
                result.method,
                Verdict.ERROR,
                0.0,
                f"checker fault: {type(error).__name__}: {error}\n{traceback.format_exc(limit=-3)}",
            )
        )
    result.output = captured()
    conn.send(("result", result))
    os._exit(0)  # no interpreter teardown (freeing deep Z3 terms can take long)
