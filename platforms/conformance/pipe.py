"""Drive the harness under an emulator over a pipe: one process, many cases (protocol.py).
What the emulator is and how it is started is emulator.py's."""

from __future__ import annotations

import os
import select
import signal
import subprocess
import threading
from pathlib import Path

from vredmax.spec.encoding import encode
from vredmax.platforms.conformance.cases import Case
from vredmax.platforms.conformance.protocol import (
    HELLO,
    MAGIC,
    Observation,
    pack_request,
    response_size,
    unpack_response,
)


class EmulatorError(Exception):
    """The emulator or the harness failed; the message is one line."""


class Harness:
    """One emulator process running the harness program (`emulator.command(program)`).

    The emulator runs in its own process group, so that a wrapper script and its children
    are stopped together; every read has a deadline, so a stuck emulator is reported, not
    waited for.
    """

    timeout = 120.0  # seconds without progress before the emulator counts as stuck

    def __init__(self, emulator, program: Path):
        self.emulator = emulator
        self.vlen, self.tail, self.elen = emulator.vlen, emulator.tail, emulator.elen
        self.command = emulator.command(program)
        try:
            self.process = subprocess.Popen(
                self.command,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=True,
            )
        except OSError as error:
            raise EmulatorError(f"emulator: cannot run {self.command[0]}: {error.strerror}") from None
        self.stderr = bytearray()
        self.stderr_reader = threading.Thread(target=self._collect_stderr, daemon=True)
        self.stderr_reader.start()
        magic, vlenb = HELLO.unpack(self._read(HELLO.size))
        if magic != MAGIC:
            self._fail("the harness did not greet")
        if vlenb * 8 != self.vlen:
            self._fail(f"asked for VLEN={self.vlen}, the harness reads vlenb={vlenb}")
        self.vlenb = vlenb

    def __enter__(self):
        return self

    def __exit__(self, exc_type, *exc):
        if exc_type is not None and self.process.poll() is None:
            self._stop()  # interrupted or failed: the harness may be blocked writing to us
        self.close()

    def close(self) -> None:
        """End of input: the harness exits by itself; stop the group if it does not."""
        try:
            self.process.stdin.close()
        except BrokenPipeError:
            pass
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self._stop()
        self.process.stdout.close()

    def _stop(self) -> None:
        try:
            os.killpg(self.process.pid, signal.SIGKILL)  # our own group: the emulator and its children
        except ProcessLookupError:
            pass
        self.process.wait()

    def _collect_stderr(self) -> None:
        for chunk in iter(lambda: self.process.stderr.read1(4096), b""):
            if len(self.stderr) < 1 << 16:
                self.stderr += chunk

    def request(self, case: Case) -> bytes:
        pre = case.pre
        if pre.vlen != self.vlen:
            raise ValueError(f"vlen: the case has VLEN={pre.vlen}, the harness {self.vlen}")
        return pack_request(
            encode(case.insn), pre.vs, case.requested_vtype, case.avl, pre.vstart, pre.regs, self.vlenb
        )

    def run(self, case: Case) -> Observation:
        """One case, one round trip (for callers that make cases one at a time)."""
        self._write(self.request(case))
        return unpack_response(self._read(response_size(self.vlenb)), self.vlenb)

    def run_many(self, cases) -> list[Observation]:
        """One observation per case; a thread writes the requests while we read, so that
        neither side blocks on a full pipe."""
        requests = [self.request(case) for case in cases]  # bad cases raise here, not in the thread

        def feed():
            try:
                for request in requests:
                    self.process.stdin.write(request)
                self.process.stdin.flush()
            except (BrokenPipeError, ValueError):  # the harness died: the reader reports why
                pass

        writer = threading.Thread(target=feed, daemon=True)
        writer.start()
        try:
            size = response_size(self.vlenb)
            return [unpack_response(self._read(size), self.vlenb) for _ in requests]
        except BaseException:
            # Ctrl-C (or a failure) while reading: the writer may be blocked on a full pipe
            # that the harness no longer drains; ending the harness lets it return.
            self._stop()
            raise
        finally:
            writer.join()

    def _write(self, data: bytes) -> None:
        try:
            self.process.stdin.write(data)
            self.process.stdin.flush()
        except BrokenPipeError:
            self._fail("the harness stopped reading")

    def _read(self, size: int) -> bytes:
        """Exactly `size` bytes from the harness, or fail: at its end, or when stuck."""
        fd, data = self.process.stdout.fileno(), bytearray()
        while len(data) < size:
            ready, _, _ = select.select([fd], [], [], self.timeout)
            if not ready:
                self._fail(f"no answer for {self.timeout:.0f} s")
            chunk = os.read(fd, size - len(data))
            if not chunk:
                self._fail("the harness stopped early")
            data += chunk
        return bytes(data)

    def _fail(self, what: str):
        exited = self.process.poll() is not None
        self._stop()  # also any children a wrapper script left behind
        self.stderr_reader.join(timeout=2)
        message = bytes(self.stderr).decode(errors="replace").strip().splitlines()
        detail = f": {message[0]}" if message else f" (exit code {self.process.returncode})" if exited else ""
        raise EmulatorError(f"emulator: {' '.join(self.command[:3])}: {what}{detail}")
