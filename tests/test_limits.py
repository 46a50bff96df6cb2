"""The user's code fenced in (vredmax/runtime/limits.py): check-impl's and check-c's children get a
memory limit (--memory-limit) and may start no process, so a memory bomb is that run's ERROR.

Every bomb here is bounded (at most 2 GB, at most 50 forks) and the limits are small, so a fence
that failed could not take the machine down."""

from __future__ import annotations

import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from vredmax.cli.main import main

VREDMAX = Path(sys.executable).parent / "vredmax"
SMALL = ["--vlen", "128", "--sew", "8", "--lmul", "m1", "--timeout", "30"]
needs_cc = pytest.mark.skipif(shutil.which("cc") is None, reason="needs a C compiler (cc)")


def vredmax(*argv, cwd):
    return subprocess.run(
        [str(VREDMAX), *map(str, argv)], cwd=cwd, capture_output=True, text=True, timeout=300
    )


def test_the_fence_keeps_threads_and_solvers_and_refuses_processes_and_memory():
    code = textwrap.dedent("""
        import os, threading
        from vredmax.runtime.limits import fence
        fence(400)
        done = []
        thread = threading.Thread(target=lambda: done.append(1)); thread.start(); thread.join()
        import z3
        solver = z3.Solver(); x = z3.BitVec("x", 8); solver.add(x > 3)
        print("thread", done == [1], "z3", solver.check())
        try:
            pid = os.fork()
            if pid == 0:
                os._exit(0)
            print("forked")
        except OSError as error:
            print("fork refused", error.errno)
        hog = []
        try:
            for _ in range(40):                 # 2 GB at most
                hog.append(bytearray(50 << 20))
            print("allocated 2 GB")
        except MemoryError:
            print("MemoryError after", len(hog))
    """)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "thread True z3 sat"
    assert lines[1] == "fork refused 11"
    assert lines[2].startswith("MemoryError after") and int(lines[2].split()[-1]) < 8


PYTHON_BOMB = """
def reduce(ops, seed, elements, active):
    hog = []
    for _ in range(40):             # 2 GB at most, in 50 MB steps
        hog.append(bytearray(50 << 20))
    return seed
"""
PYTHON_FORKS = """
import os
def reduce(ops, seed, elements, active):
    for _ in range(50):
        pid = os.fork()
        if pid == 0:
            open({marker!r}, "a").close()
            os._exit(0)
        os.waitpid(pid, 0)
    return seed
"""


def test_a_memory_bomb_in_check_impl_is_an_error_naming_the_limit(tmp_path):
    (tmp_path / "bomb.py").write_text(PYTHON_BOMB)
    done = vredmax(
        "check-impl", "bomb.py:reduce", "--level", "unit", "--memory-limit", "300", *SMALL, cwd=tmp_path
    )
    assert done.returncode == 4, done.stdout + done.stderr
    assert "MemoryError" in done.stdout and "the memory limit is 300 MB: --memory-limit" in done.stdout


def test_a_fork_loop_in_check_impl_is_fenced(tmp_path):
    marker = tmp_path / "forked"
    (tmp_path / "forks.py").write_text(PYTHON_FORKS.format(marker=str(marker)))
    done = vredmax("check-impl", "forks.py:reduce", "--level", "unit", *SMALL, cwd=tmp_path)
    assert done.returncode == 4, done.stdout + done.stderr
    assert "may not start processes" in done.stdout
    assert not marker.exists()


C_BOMB = r"""
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
uint64_t reduce(unsigned sew, uint64_t seed, const void *elements, const uint8_t *active, size_t n)
{
    for (int i = 0; i < 128; i++) {         /* 2 GB at most, in 16 MB steps */
        char *p = malloc(16 << 20);
        memset(p, 1, 16 << 20);             /* a null malloc crashes here */
    }
    return seed;
}
"""
C_FORKS = r"""
#include <fcntl.h>
#include <stdint.h>
#include <sys/wait.h>
#include <unistd.h>
uint64_t reduce(unsigned sew, uint64_t seed, const void *elements, const uint8_t *active, size_t n)
{
    for (int i = 0; i < 50; i++) {
        pid_t pid = fork();
        if (pid == 0) { close(open("@MARKER@", O_CREAT | O_WRONLY, 0600)); _exit(0); }
        if (pid > 0) waitpid(pid, 0, 0);
    }
    return seed;
}
"""


@needs_cc
def test_a_memory_bomb_in_check_c_is_an_error_naming_the_limit(tmp_path):
    (tmp_path / "bomb.c").write_text(C_BOMB)
    done = vredmax("check-c", "bomb.c:reduce", "--memory-limit", "300", *SMALL, cwd=tmp_path)
    assert done.returncode == 4, done.stdout + done.stderr
    assert "of its 300 MB (--memory-limit): out of memory" in done.stdout


@needs_cc
def test_a_fork_loop_in_check_c_is_fenced(tmp_path):
    marker = tmp_path / "forked"
    (tmp_path / "forks.c").write_text(C_FORKS.replace("@MARKER@", str(marker)))
    done = vredmax("check-c", "forks.c:reduce", *SMALL, cwd=tmp_path)
    assert done.returncode in (1, 4), done.stdout + done.stderr  # seed alone is a wrong answer
    assert not marker.exists()


@pytest.mark.parametrize("command", ["check-impl", "check-c"])
@pytest.mark.parametrize("value", ["0", "12", "x", "1e9", str(1 << 70)])
def test_a_bad_memory_limit_is_one_line(command, value, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main([command, "x.py:f" if command == "check-impl" else "x.c:f", "--memory-limit", value]) == 2
    err = capsys.readouterr().err
    assert err.startswith("vredmax: error: --memory-limit: ") and len(err.splitlines()) == 1
