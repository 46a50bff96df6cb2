"""Map jobs over local worker processes or a Dask cluster: the one place sweeps are spread.

    from vredmax.cli.cluster import Workers, add_arguments, workers_from_args

    add_arguments(parser)                        # --jobs N and --scheduler ADDRESS
    with workers_from_args(args) as pool:        # or Workers(jobs=2, scheduler=None)
        for index, result in pool.map_unordered(function, items):
            ...                                  # results in completion order, with the
                                                 # index of their item in `items`

- `function` must be a module-level function (it is sent by reference) and `items` must be
  picklable; each call should be a sizeable unit of work (a configuration, a batch of cases).
- `jobs=1` without a scheduler runs every call in this process, one after the other
  (`pool.in_process` is then true: a caller may pass callbacks that cannot cross processes).
- `jobs>1`: a pool of local processes. Workers ignore SIGINT and die with their parent; on
  Ctrl-C or any exception in the loop, every worker is terminated at once and nothing more
  is started. A crashed worker raises `WorkerLost`. A `map_unordered` left before its end
  (a `break`) drops the calls not finished: they are not waited for, and the workers are
  terminated at the end of the `with` block.
- `scheduler="tcp://HOST:PORT"`: the calls run on that dask.distributed cluster (the `dask`
  extra). The workers must import the same vredmax version (and any file a job names must be
  at the same path on them). On Ctrl-C the pending calls are cancelled (a call already running
  on a remote worker finishes there, and its result is discarded). A scheduler that cannot be
  reached is a UsageError naming --scheduler (exit 2).
- An exception raised by `function` is re-raised here, in the caller.
"""

from __future__ import annotations

import multiprocessing
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool

from vredmax.runtime.errors import UsageError
from vredmax.cli.options import positive_int
from vredmax.runtime.outputs import ignore_interrupts_in_worker

CONNECT_TIMEOUT_S = 10


class WorkerLost(RuntimeError):
    """A worker process died (killed, out of memory, crashed in a solver)."""


def add_arguments(parser, jobs_help: str = "worker processes (default 1)") -> None:
    parser.add_argument("--jobs", default="1", metavar="N", help=jobs_help)
    parser.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="run on a Dask cluster: the scheduler's address, e.g. tcp://10.0.0.5:8786 "
        "(needs the dask extra; default: local processes)",
    )


MAX_JOBS = 512  # local processes are started at once: --jobs 100000 would take the machine down


def parse_jobs(text) -> int:
    jobs = positive_int(text, "--jobs")
    if jobs > MAX_JOBS:
        raise UsageError(f"--jobs: at most {MAX_JOBS} local processes, got {text}")
    return jobs


def workers_from_args(args) -> "Workers":
    return Workers(parse_jobs(getattr(args, "jobs", 1)), getattr(args, "scheduler", None))


class Workers:
    """See the module docstring. A context manager; `map_unordered` may be called once or more."""

    def __init__(
        self, jobs: int = 1, scheduler: str | None = None, connect_timeout_s: float = CONNECT_TIMEOUT_S
    ):
        self.jobs, self.scheduler, self.connect_timeout_s = jobs, scheduler, connect_timeout_s
        self._executor = None
        self._client = None
        self._abandoned = False  # calls still running that nobody will read

    @property
    def in_process(self) -> bool:
        return self.scheduler is None and self.jobs == 1

    @property
    def where(self) -> str:
        if self.scheduler:
            return f"Dask scheduler {self.scheduler}"
        return "this process" if self.jobs == 1 else f"{self.jobs} local processes"

    def __enter__(self) -> "Workers":
        if self.scheduler:
            self._client = _connect(self.scheduler, self.connect_timeout_s)
        elif self.jobs > 1:
            # fork: the workers start at once with the modules already imported, and fork has
            # no named semaphores (the tool ends with os._exit: forkserver's resource tracker
            # then warned of leaked ones). All are started here, before any other thread
            # (a progress bar) exists: fork copies only the calling thread.
            self._executor = ProcessPoolExecutor(
                max_workers=self.jobs,
                mp_context=multiprocessing.get_context("fork"),
                initializer=ignore_interrupts_in_worker,
            )
            self._executor.submit(int).result()
        return self

    def __exit__(self, kind, error, trace) -> None:
        if self._executor is not None:
            if kind is None and not self._abandoned:
                self._executor.shutdown(wait=True)
            else:
                _terminate(self._executor)
            self._executor = None
        if self._client is not None:
            try:
                self._client.close(timeout=CONNECT_TIMEOUT_S)
            except Exception:  # closing a client whose scheduler went away
                pass
            self._client = None

    def map_unordered(self, function, items, in_flight: int | None = None):
        """(index, function(item)) for each of `items` (any iterable, read as work is handed
        out: at most `in_flight` items wait or run at once; default four per worker), in
        completion order."""
        items = iter(items)
        if self._client is not None:
            workers = sum(self._client.nthreads().values()) or 1
            yield from self._dask(function, items, in_flight or 4 * workers)
        elif self._executor is not None:
            yield from self._local(function, items, in_flight or 4 * self.jobs)
        else:
            for index, item in enumerate(items):
                yield index, function(item)

    def _local(self, function, items, in_flight: int):
        index_of, pending = {}, set()
        try:
            for index, item in enumerate(items):
                if len(pending) >= in_flight:
                    done, pending = wait(pending, return_when=FIRST_COMPLETED)
                    for future in done:
                        yield index_of.pop(future), _result(future)
                future = self._executor.submit(function, item)
                index_of[future] = index
                pending.add(future)
            while pending:
                done, pending = wait(pending, return_when=FIRST_COMPLETED)
                for future in done:
                    yield index_of.pop(future), _result(future)
        finally:
            # Left early (break, Ctrl-C, an error): the workers are terminated at the end of
            # the `with` block. Nothing is cancelled here: a cancelled future that the broken
            # pool then fails raises InvalidStateError in the executor's thread (Python 3.11).
            if any(not future.done() for future in pending):
                self._abandoned = True

    def _dask(self, function, items, in_flight: int):
        from dask.distributed import as_completed

        index_of, running = {}, as_completed([], loop=self._client.loop)
        submitted = []

        def submit_next() -> bool:
            item = next(items, _END)
            if item is _END:
                return False
            future = self._client.submit(function, item, pure=False)
            index_of[future.key] = len(submitted)
            submitted.append(future)
            running.add(future)
            return True

        try:
            while len(index_of) < in_flight and submit_next():
                pass
            for future in running:
                result = future.result()
                index = index_of.pop(future.key)
                submit_next()
                yield index, result
        finally:
            self._client.cancel([f for f in submitted if not f.done()])


_END = object()


def _result(future):
    try:
        return future.result()
    except BrokenProcessPool:
        raise WorkerLost("a worker process died (killed, or out of memory)") from None


def _connect(address: str, timeout_s: float):
    try:
        from dask.distributed import Client
    except ImportError:
        raise UsageError("--scheduler: needs dask.distributed (pip install 'vredmax[dask]')") from None
    try:
        return Client(address, timeout=timeout_s, set_as_default=False)
    except (OSError, TimeoutError, ValueError) as error:
        raise UsageError(f"--scheduler: cannot connect to {address}: {error}") from None


def _terminate(executor: ProcessPoolExecutor) -> None:
    """Stop every worker now: terminate, then kill what is still alive after a moment."""
    processes = list((getattr(executor, "_processes", None) or {}).values())
    for process in processes:
        if process.is_alive():
            process.terminate()
    executor.shutdown(wait=False)  # no cancel_futures: see the end of Workers._local
    for process in processes:
        process.join(timeout=2)
        if process.is_alive():
            process.kill()
            process.join(timeout=2)
    executor.shutdown(wait=True)
