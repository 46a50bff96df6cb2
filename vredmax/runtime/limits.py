"""Fences for a child process that runs the user's code (check-impl, check-c): a memory limit
and no new processes, so that a memory bomb or a fork loop is that run's ERROR and the machine
keeps working.

    fence(memory_mb)          # in the child, before the user's code is loaded
    Popen(..., preexec_fn=before_exec(memory_mb))   # the same for a program started here
    note(error, memory_mb)    # the words to add to an error the fence caused ("" otherwise)

Memory: RLIMIT_AS (address space), so an allocation past it fails at once (MemoryError in
Python, a null malloc in C) instead of growing until the machine swaps or kills.
Processes: RLIMIT_NPROC counts every process of the user system-wide and is not enforced for
root at all, so it cannot fence a child reliably. Instead a seccomp filter (Linux, x86-64 and
AArch64) makes fork, vfork and clone without CLONE_THREAD fail with EAGAIN, as an exhausted
RLIMIT_NPROC would, while threads still start (clone3 answers ENOSYS: the C library then
creates threads with clone). Elsewhere only the memory limit applies.
"""

from __future__ import annotations

import ctypes
import errno
import platform
import resource
import struct
import sys

DEFAULT_MEMORY_MB = 8192  # generous for the checker's own solver work in the same process
MEMORY_HELP = (
    f"the memory (address space) each child process running your code may use, in MB "
    f"(default {DEFAULT_MEMORY_MB}); past it an allocation fails and the run is an ERROR. "
    "Your code may not start processes either"
)

_PR_SET_NO_NEW_PRIVS, _PR_SET_SECCOMP, _SECCOMP_MODE_FILTER = 38, 22, 2
_ALLOW, _ERRNO = 0x7FFF0000, 0x00050000
_LD_ABS_W, _JEQ, _JGE, _JSET, _RET = 0x20, 0x15, 0x35, 0x45, 0x06
_CLONE_THREAD = 0x00010000
# (audit architecture, clone, clone3, the other syscalls that make a process)
_ARCHES = {
    "x86_64": (0xC000003E, 56, 435, (57, 58)),  # fork, vfork
    "aarch64": (0xC00000B7, 220, 435, ()),
}


def memory_mb_value(text, field: str = "--memory-limit") -> int:
    """The --memory-limit option: whole MB, at least 64 (a Python child needs that to start)."""
    from vredmax.runtime.errors import UsageError

    try:
        value = int(str(text).strip())
    except ValueError:
        raise UsageError(f"{field}: expected a whole number of MB, got {str(text)[:40]!r}") from None
    if not 64 <= value <= 1 << 30:
        raise UsageError(
            f"{field}: must be from 64 to {1 << 30} MB, got {value if value.bit_length() < 64 else 'more'}"
        )
    return value


def fence(memory_mb: int | None) -> None:
    """Limit this process's memory to `memory_mb` MB (None: no limit) and forbid it new
    processes. Call it in the child, before any of the user's code runs."""
    if memory_mb:
        limit = memory_mb << 20
        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        if hard != resource.RLIM_INFINITY:
            limit = min(limit, hard)
        resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    _no_new_processes()


def before_exec(memory_mb: int | None):
    """A `preexec_fn` for subprocess.Popen: the fence in the forked child before it runs the
    program (a seccomp filter and a limit survive exec)."""
    return lambda: fence(memory_mb)


def _no_new_processes() -> bool:
    arch = _ARCHES.get(platform.machine())
    if not sys.platform.startswith("linux") or arch is None:
        return False
    audit, clone, clone3, others = arch
    blocked = _ERRNO | errno.EAGAIN
    program = [
        (_LD_ABS_W, 0, 0, 4),  # seccomp_data.arch
        (_JEQ, 1, 0, audit),
        (_RET, 0, 0, _ALLOW),  # another ABI: not fenced
        (_LD_ABS_W, 0, 0, 0),  # seccomp_data.nr
        (_JGE, 0, 1, 0x40000000),  # x32 numbers: none needed here
        (_RET, 0, 0, _ERRNO | errno.ENOSYS),
        (_JEQ, 0, 1, clone3),
        (_RET, 0, 0, _ERRNO | errno.ENOSYS),
    ]
    for number in others:
        program += [(_JEQ, 0, 1, number), (_RET, 0, 0, blocked)]
    program += [
        (_JEQ, 1, 0, clone),
        (_RET, 0, 0, _ALLOW),
        (_LD_ABS_W, 0, 0, 16),  # args[0] (low half): the flags
        (_JSET, 0, 1, _CLONE_THREAD),
        (_RET, 0, 0, _ALLOW),  # a thread
        (_RET, 0, 0, blocked),
    ]  # a process
    code = b"".join(struct.pack("HBBI", *instruction) for instruction in program)
    buffer = ctypes.create_string_buffer(code, len(code))

    class Program(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

    libc = ctypes.CDLL(None, use_errno=True)
    prog = Program(len(program), ctypes.addressof(buffer))
    if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        return False
    return libc.prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.byref(prog), 0, 0) == 0


def note(error: BaseException, memory_mb: int | None) -> str:
    """What to add to the message of an exception the fence may have caused."""
    if isinstance(error, MemoryError) and memory_mb:
        return f" (the memory limit is {memory_mb} MB: --memory-limit)"
    if isinstance(error, OSError) and error.errno == errno.EAGAIN:
        return " (the code checked may not start processes)"
    return ""


def died_note(memory_mb: int | None, max_rss_kb: int) -> str:
    """For a child that died: words naming the memory limit when it had used most of it."""
    if memory_mb and max_rss_kb >= (memory_mb << 10) // 2:
        return f"it used {max_rss_kb >> 10} MB of its {memory_mb} MB (--memory-limit): out of memory"
    return ""
