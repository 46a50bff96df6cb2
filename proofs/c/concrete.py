"""The concrete differential runs of check-c, in child processes.

Two passes over the same cases (proofs/c/cases.py), each in a fresh interpreter, so a crash,
a sanitizer's abort or a hang is the child's:

1. the plain library: every case's outcome and post-state are judged against the spec
   (proofs/c/judge.py); the first disallowed one is sent back with the code's post-state;
2. the sanitized library (AddressSanitizer and UBSan, preloaded into the child): the same
   calls, looking only for undefined behaviour. Its report ends the child.

The child writes the case it is in to a small progress file before every call: when it dies
(or runs past the time limit), the parent rebuilds that case from its number and reports it.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field

from vredmax.proofs.c import cases as case_source
from vredmax.proofs.c.judge import judged, undefined
from vredmax.proofs.engine.counterexample import Counterexample
from vredmax.spec.config import Config
from vredmax.spec.encoding import encode
from vredmax.spec.state import ArchState
from vredmax.runtime import limits

PLAIN, SANITIZED = "plain", "sanitized"
POLL_S = 0.1
SANITIZER_EXIT = 86
REPLAY_LIMIT_S = 120
REPORT_LINES = 12
CHILD_CODE = (
    "import os, sys; del sys.path[0]; from vredmax.proofs.c.concrete import _child_main; _child_main()"
)


class CheckerFault(RuntimeError):
    """The checker itself failed in the child (a bug of check-c, with its traceback)."""


@dataclass
class ConcreteResult:
    """One configuration's concrete cases, in one pass."""

    cfg: Config
    cases: int = 0
    counterexample: Counterexample | None = None
    error: str = ""  # a hang, or a fault of the checker itself
    seconds: float = 0.0
    notes: list[str] = field(default_factory=list)


def _sanitizer_environment(memory_mb: int | None = None) -> dict:
    env = dict(os.environ)
    runtime = subprocess.run(
        ["cc", "-print-file-name=libasan.so"], capture_output=True, text=True
    ).stdout.strip()
    env["LD_PRELOAD"] = " ".join(x for x in (runtime, env.get("LD_PRELOAD", "")) if x)
    # AddressSanitizer reserves terabytes of address space: no RLIMIT_AS here, its own RSS limit
    env["ASAN_OPTIONS"] = f"detect_leaks=0:abort_on_error=0:exitcode={SANITIZER_EXIT}" + (
        f":hard_rss_limit_mb={memory_mb}" if memory_mb else ""
    )
    env["UBSAN_OPTIONS"] = f"print_stacktrace=1:exitcode={SANITIZER_EXIT}"
    env["PYTHONMALLOC"] = "malloc"  # Python's objects in malloc too: no pool hides a stray access
    return env


def run_pass(
    built,
    which: str,
    configs,
    seed: int,
    requested: int,
    limit_s: float,
    on_config=None,
    memory_mb: int | None = limits.DEFAULT_MEMORY_MB,
) -> list[ConcreteResult]:
    """Run one pass over `configs`; stop at the first failing configuration. The child may use
    `memory_mb` MB and start no process (vredmax/runtime/limits.py)."""
    library = built.plain if which == PLAIN else built.sanitized
    env = _sanitizer_environment(memory_mb) if which == SANITIZED else dict(os.environ)
    results: list[ConcreteResult] = []
    with tempfile.TemporaryDirectory(prefix="vredmax-c-") as tmp:
        progress = os.path.join(tmp, "progress")
        job = {
            "library": library,
            "level": built.level,
            "which": which,
            "seed": seed,
            "random": requested,
            "progress": progress,
            "memory_mb": memory_mb if which == PLAIN else None,
            "configs": [[c.vlen, c.elen, c.sew, c.lmul] for c in configs],
        }
        errors = open(os.path.join(tmp, "stderr"), "w+")
        child = subprocess.Popen(
            [sys.executable, "-c", CHILD_CODE],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=errors,
            env=env,
            start_new_session=True,
        )
        child.stdin.write(json.dumps(job).encode())
        child.stdin.close()
        os.set_blocking(child.stdout.fileno(), False)
        buffer, last, since = "", None, time.monotonic()
        start = time.monotonic()
        hung = False
        while True:
            try:
                chunk = os.read(child.stdout.fileno(), 1 << 20)
            except BlockingIOError:
                chunk = None
            if chunk:
                buffer += chunk.decode()
                while "\n" in buffer:
                    line, buffer = buffer.split("\n", 1)
                    message = json.loads(line)
                    if "fault" in message:
                        raise CheckerFault(message["fault"])
                    cfg = configs[message["cfg"]]
                    result = ConcreteResult(cfg, message["cases"], seconds=time.monotonic() - start)
                    start = time.monotonic()
                    if "failed" in message:
                        pre, insn = case_source.case(
                            cfg,
                            built.level,
                            seed,
                            case_source.random_count(requested, cfg),
                            message["failed"],
                            cfg.elen,
                        )
                        post = ArchState(
                            cfg.vlen,
                            pre.elen,
                            tuple(int(r, 16) for r in message["regs"]),
                            message["vtype"],
                            message["vl"],
                            message["vstart"],
                            message["vs"],
                        )
                        result.counterexample = judged(cfg, pre, insn, message["kind"], post)
                    if "bad" in message:
                        result.error = message["bad"]
                    results.append(result)
                    if on_config:
                        on_config(result)
            if _ended(child) and chunk is not None and not chunk:
                break
            now = time.monotonic()
            where = _read(progress)
            if where != last:
                last, since = where, now
            elif last is not None and now - since > limit_s:
                os.killpg(child.pid, signal.SIGKILL)
                child.wait()
                hung = True
                break
            time.sleep(POLL_S)
        code, max_rss_kb = _reaped(child)
        errors.seek(0)
        report = errors.read()
        errors.close()
        done = {r.cfg for r in results}
        if (code == 0 and not hung) or any(r.counterexample or r.error for r in results):
            return results
        where = _read(progress)
        out_of_memory = limits.died_note(memory_mb, max_rss_kb) or (
            "hard rss limit exhausted" in report
            and f"it passed its {memory_mb} MB (--memory-limit): out of memory"
        )
        if where is None:
            if "Traceback (most recent call last)" in report:  # the checker's own failure
                raise RuntimeError(f"the {which} run failed before its first case: {report.strip()[-2000:]}")
            # the library's own code (a constructor) ended the process as it was loaded
            result = ConcreteResult(configs[0], 0, seconds=time.monotonic() - start)
            result.error = (
                f"the compiled code ended the process as it was loaded, before any case "
                f"({_signal_text(code)}, {which} build)" + (f"; {out_of_memory}" if out_of_memory else "")
            )
            if on_config:
                on_config(result)
            return [result]
        index, number = where
        cfg = configs[index]
        pre, insn = case_source.case(
            cfg, built.level, seed, case_source.random_count(requested, cfg), number, cfg.elen
        )
        result = ConcreteResult(cfg, number + 1, seconds=time.monotonic() - start)
        if hung:
            result.error = (
                f"the compiled code ran past {limit_s:g} s on a case ({which} build); it may loop "
                f"forever: {_case_text(pre, insn)}"
            )
        elif out_of_memory and code != 0:
            result.error = (
                f"the compiled code ended the process ({_signal_text(code)}, {which} build)"
                f"; {out_of_memory}; on the case {_case_text(pre, insn)}"
            )
        elif which == PLAIN and code > 0:
            result.error = (
                f"the compiled code ended the process (exit status {code}) on a case: {_case_text(pre, insn)}"
            )
        else:
            lines = interesting(report, built.source)
            what = (
                "undefined behaviour: the sanitized build stopped"
                if code == SANITIZER_EXIT
                else f"the compiled code crashed ({_signal_text(code)}, {which} build)"
            )
            result.counterexample = undefined(cfg, pre, insn, None, None, what, lines)
        results = [r for r in results if r.cfg != cfg] + [result]
        if on_config and cfg not in done:
            on_config(result)
        return results


def _ended(child) -> bool:
    """Has the child ended? (Not reaped: _reaped reads its peak memory when it reaps it.)"""
    try:
        return os.waitid(os.P_PID, child.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
    except ChildProcessError:
        return True


def _reaped(child) -> tuple[int, int]:
    """Wait for the child: (its exit code, its peak resident memory in KB)."""
    try:
        _, status, usage = os.wait4(child.pid, 0)
    except ChildProcessError:  # reaped already
        return child.wait(), 0
    child.returncode = os.waitstatus_to_exitcode(status)
    return child.returncode, usage.ru_maxrss


def _signal_text(code: int) -> str:
    if code < 0:
        try:
            return f"signal {signal.Signals(-code).name}"
        except ValueError:
            return f"signal {-code}"
    return f"exit status {code}"


def _case_text(pre, insn) -> str:
    from vredmax.impl.case import case_json

    text = json.dumps(case_json(pre, insn))
    return text if len(text) < 400 else text[:400] + "..."


def interesting(report: str, source: str) -> list[str]:
    """The sanitizer's report cut to what says what happened and where in the user's file."""
    keep = []
    for line in report.splitlines():
        text = line.strip()
        if (
            "runtime error:" in text
            or text.startswith("ERROR: AddressSanitizer")
            or text.startswith("SUMMARY:")
            or (source in text and text.startswith("#"))
            or "is located" in text
        ):
            keep.append(text.replace(source, os.path.basename(source)))
    return keep[:REPORT_LINES] or [line for line in report.splitlines() if line.strip()][-REPORT_LINES:]


def _read(path: str):
    try:
        with open(path) as handle:
            text = handle.read().split()
        return int(text[0]), int(text[1])
    except (OSError, ValueError, IndexError):
        return None


def replay(built, cfg: Config, pre, insn) -> Counterexample:
    """One case on the plain library, in a child: judged (an empty counterexample: allowed);
    a crash there is reported like the differential runs' crashes."""
    from vredmax.impl.case import case_json

    job = {"library": built.plain, "level": built.level, "explicit": case_json(pre, insn)}
    try:
        done = subprocess.run(
            [sys.executable, "-c", CHILD_CODE],
            input=json.dumps(job),
            capture_output=True,
            text=True,
            timeout=REPLAY_LIMIT_S,
        )
    except subprocess.TimeoutExpired:
        return undefined(
            cfg, pre, insn, None, None, f"the compiled code ran past {REPLAY_LIMIT_S} s on this case", []
        )
    if done.returncode != 0 or not done.stdout.strip():
        return undefined(
            cfg,
            pre,
            insn,
            None,
            None,
            f"the compiled code crashed ({_signal_text(done.returncode)})",
            interesting(done.stderr, built.source),
        )
    message = json.loads(done.stdout)
    post = ArchState(
        cfg.vlen,
        pre.elen,
        tuple(int(r, 16) for r in message["regs"]),
        message["vtype"],
        message["vl"],
        message["vstart"],
        message["vs"],
    )
    return judged(cfg, pre, insn, message["kind"], post)


def _child_main() -> None:
    from vredmax.proofs.c.calls import load

    job = json.loads(sys.stdin.read())
    # The messages to the parent go through a descriptor of their own: what the C code prints
    # (printf) goes to stderr, never into them. SIGINT as the C code raises it ends the child
    # (the parent stops it on Ctrl-C).
    sys.stdout = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    limits.fence(job.get("memory_mb", limits.DEFAULT_MEMORY_MB))  # before the user's code loads
    entry = load(job["library"], job["level"])
    if "explicit" in job:
        from vredmax.impl.case import parse_case
        from vredmax.proofs.c.calls import run_c

        pre, insn, tail = parse_case(job["explicit"])
        kind, post = run_c(entry, job["level"], pre, insn, encode(insn), tail)
        sys.stdout.write(
            json.dumps(
                {
                    "kind": kind,
                    "regs": [hex(r) for r in post.regs],
                    "vtype": post.vtype,
                    "vl": post.vl,
                    "vstart": post.vstart,
                    "vs": post.vs,
                }
            )
        )
        return
    fd = os.open(job["progress"], os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        _cases(job, entry, fd)
    except Exception:  # the checker's own fault: said as such, never blamed on the C code
        import traceback

        sys.stdout.write(json.dumps({"fault": traceback.format_exc()}) + "\n")
    os.close(fd)


def _cases(job, entry, fd) -> None:
    from vredmax.proofs.c import fast
    from vredmax.proofs.c.calls import BadResult, call_unit, retires_with_elements, run_c

    level, seed, requested, plain = job["level"], job["seed"], job["random"], job["which"] == PLAIN
    for index, (vlen, elen, sew, lmul) in enumerate(job["configs"]):
        cfg = Config(vlen, elen, sew, lmul)
        count = case_source.random_count(requested, cfg)
        done, message = 0, {"cfg": index}
        for number, (pre, insn) in enumerate(case_source.all_cases(cfg, level, seed, count, elen)):
            os.pwrite(fd, f"{index} {number}        \n".encode(), 0)
            done += 1
            busy = retires_with_elements(pre, insn)
            if busy:
                seed_value, group, flags = fast.operands(pre, insn, cfg)
                expected = fast.signed_max(seed_value, group, flags, sew)
            if level == "unit":
                if not busy or call_unit(entry, sew, seed_value, group, flags) == expected or not plain:
                    continue
                kind, post = run_c(
                    entry, level, pre, insn, encode(insn), "undisturbed"
                )  # the whole step, to show
            else:
                try:
                    kind, post = run_c(entry, level, pre, insn, encode(insn), "undisturbed")
                except BadResult as error:
                    message["bad"] = f"{error}: {_case_text(pre, insn)}"
                    break
                if not plain or (busy and fast.plainly_allowed(cfg, pre, insn, kind, post, expected)):
                    continue
            if judged(cfg, pre, insn, kind, post).differing:
                message.update(
                    failed=number,
                    kind=kind,
                    regs=[hex(r) for r in post.regs],
                    vtype=post.vtype,
                    vl=post.vl,
                    vstart=post.vstart,
                    vs=post.vs,
                )
                break
        message["cases"] = done
        sys.stdout.write(json.dumps(message) + "\n")
        sys.stdout.flush()
        if len(message) > 2:
            break
