"""Fuzzing the inputs that are text or JSON: claims (`ask`), cases and JSON lines (`exec`,
`explain`, `judge`), instruction words and text (`disasm`, `asm`), and option values.
The rule is tests/fuzzing.py's; run in-process (these commands run no user code)."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest
from hypothesis import strategies as st

from tests.fuzzing import (
    BATCH_ERROR,
    budgets,
    check_nothing_else_written,
    check_rule,
    files_under,
    in_process,
)

# -- numbers of every size and base ---------------------------------------------------------------

WIDTHS = (
    0,
    1,
    5,
    7,
    8,
    31,
    32,
    33,
    63,
    64,
    65,
    80,
    81,
    127,
    128,
    129,
    1024,
    65535,
    65536,
    65537,
    66500,
    70000,
    200000,
)


@st.composite
def numbers(draw) -> int:
    """Small, at a width's edge, or huge (beyond Python's int->str digit limit)."""
    kind = draw(st.sampled_from(("small", "edge", "huge")))
    if kind == "small":
        value = draw(st.integers(-300, 300))
    else:
        bits = draw(st.sampled_from(WIDTHS))
        value = (1 << bits) + draw(st.sampled_from((-1, 0, 1)))
        if kind == "huge":
            value = value * draw(st.integers(1, 1 << 20))
    return -value if draw(st.booleans()) and kind != "small" else value


def decimal(value: int) -> str:
    """Decimal text of value; past the int->str digit limit, a run of digits of about its size."""
    return str(value) if value.bit_length() <= 60000 else "-" * (value < 0) + "9" * 25000


def _digits(value: int, base: int) -> str:
    return {16: format(value, "x"), 8: format(value, "o"), 2: format(value, "b")}[base]


@st.composite
def literals(draw) -> str:
    """An integer literal as Python (and the claim language) writes it, in any base, with
    underscores, upper-case prefixes; sometimes not an integer literal at all."""
    value = abs(draw(numbers()))
    base = draw(st.sampled_from((10, 16, 8, 2)))
    if base == 10:
        # decimal text without str(): a long run of digits past the digit limit
        text = (
            decimal(value)
            if value.bit_length() <= 60000
            else "9" * draw(st.sampled_from((19000, 20001, 25000)))
        )
    else:
        prefix = {16: "0x", 8: "0o", 2: "0b"}[base]
        text = (prefix.upper() if draw(st.booleans()) else prefix) + _digits(value, base)
    if draw(st.integers(0, 9)) == 0 and len(text) > 3:
        text = text[:2] + "_" + text[2:]
    odd = draw(
        st.sampled_from(
            (
                "",
                "",
                "",
                "",
                "",
                "007",
                "1.5",
                "1e400",
                "1j",
                "0x",
                "0b2",
                "'a'",
                "b''",
                "...",
                "None",
                "1_",
                "0_0",
                "٣",
                "１",
            )
        )
    )
    return odd or text


KNOWN = (
    "seed",
    "pre.vl",
    "post.vl",
    "pre.vstart",
    "pre.vtype",
    "pre.vs",
    "post.vs",
    "pre.vta",
    "pre.vma",
    "pre.vill",
    "pre.vd",
    "post.vd",
    "pre.v[0]",
    "post.v[31]",
    "insn.vd",
    "insn.vs2",
    "insn.vs1",
    "insn.vm",
    "vs2[0]",
    "vs2[i]",
    "active[0]",
    "mask[3]",
    "vs1[0]",
    "VLMAX",
    "SEW",
    "VLEN",
    "LMUL",
    "ELEN",
    "trapped",
    "trapped_illegal",
    "retired",
    "illegal",
    "reserved",
    "legal",
    "OFF",
    "INITIAL",
    "CLEAN",
    "DIRTY",
    "True",
    "False",
    "i",
)
STRANGE = (
    "x",
    "pre",
    "post",
    "insn",
    "vs2",
    "active",
    "pre.nope",
    "post.v",
    "é",
    "变量",
    "ℌ",
    "ﬁ",
    "_",
    "__import__",
    "open",
    "lambda: 0",
    "pre.v[32]",
    "pre.v[-1]",
    "vs2[-1]",
    "vs2[10**6]",
)
BINARY = (
    "+",
    "-",
    "*",
    "/",
    "//",
    "%",
    "**",
    "<<",
    ">>",
    "&",
    "|",
    "^",
    "==",
    "!=",
    "<",
    "<=",
    ">",
    ">=",
    "and",
    "or",
    "@",
    "is",
    "in",
)
FUNCTIONS = (
    "smax",
    "smin",
    "umax",
    "umin",
    "ult",
    "ule",
    "ugt",
    "uge",
    "implies",
    "min",
    "max",
    "all",
    "any",
    "abs",
    "len",
    "range",
    "print",
)


def _leaf():
    return st.one_of(
        st.sampled_from(KNOWN),
        st.sampled_from(STRANGE),
        literals(),
        st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,300}", fullmatch=True),
        st.text(min_size=1, max_size=8),
    )


def _grow(inner):
    return st.one_of(
        st.tuples(inner, st.sampled_from(BINARY), inner).map(lambda t: f"{t[0]} {t[1]} {t[2]}"),
        st.tuples(st.sampled_from(("-", "~", "not ", "+")), inner).map("".join),
        st.tuples(st.sampled_from(FUNCTIONS), st.lists(inner, max_size=3)).map(
            lambda t: f"{t[0]}({', '.join(t[1])})"
        ),
        st.tuples(st.sampled_from(("all", "any", "smax", "umin")), inner, inner, inner).map(
            lambda t: f"{t[0]}({t[1]} for i in range({t[2]}) if {t[3]})"
        ),
        st.tuples(st.sampled_from(("vs2", "active", "mask", "vs1", "pre.v", "post.vd")), inner).map(
            lambda t: f"{t[0]}[{t[1]}]"
        ),
        st.tuples(inner, inner, inner).map(lambda t: f"{t[0]} if {t[1]} else {t[2]}"),
        inner.map(lambda e: f"({e})"),
    )


@st.composite
def deep(draw) -> str:
    """Nesting at and past the language's bound (100 levels)."""
    depth = draw(st.sampled_from((99, 100, 101, 500, 5000)))
    form = draw(st.sampled_from(("(", "-", "not ", "smax(", "[")))
    closing = {"(": ")", "smax(": ")", "[": "]"}.get(form, "")
    return form * depth + "seed" + closing * depth + draw(st.sampled_from(("", " == 0", " > 1")))


CLAIMS = st.one_of(st.recursive(_leaf(), _grow, max_leaves=12), deep(), st.text(max_size=50))
ASK = ["--vlen", "128", "--sew", "8", "--lmul", "m1", "--timeout", "1", "--no-cache"]


def _ask(claim: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        run = in_process(["ask", claim, *ASK], Path(folder))
        check_rule(run, codes={0, 1, 2, 3, 4}, timeout_s=30)
        if run.code == 4:  # ERROR here is VACUOUS: an implies() whose hypothesis never holds
            assert "VACUOUS" in run.out or "vacuous" in run.out.lower(), str(run)
        check_nothing_else_written(Path(folder), set())


test_fuzz_claims, test_fuzz_claims_long = budgets(CLAIMS, short=15, long=3000)(_ask)


def test_the_huge_hex_literal_is_one_line_naming_the_claim(tmp_path):
    claim = "seed == 0x" + "f" * 17000
    run = in_process(["ask", claim, *ASK], tmp_path)
    assert run.code == 2 and run.err.startswith(
        "vredmax: error: claim: column 9: an integer literal of 68000 bits"
    )
    assert len(run.err.strip().splitlines()) == 1


# -- cases and JSON lines -------------------------------------------------------------------------

JSON_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    numbers(),
    st.floats(allow_nan=False),
    st.text(max_size=12),
    numbers().map(lambda n: hex(n)),
    st.sampled_from(("0x", "-0x1", "1_000", "0b101", "0o7", "ff", "", "∞", "m1", "mf8")),
)
JSON_VALUES = st.recursive(
    JSON_SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=6,
)
GOOD = {
    "vlen": 128,
    "insn": "vredmax.vs v8, v12, v4",
    "vtype": {"sew": 8, "lmul": "m1"},
    "vl": 4,
    "vregs": {"v4": "0xfe", "v12": "0x03028001"},
}
FIELD_VALUES = {
    "vlen": st.one_of(st.sampled_from((32, 64, 128, 65536)), JSON_SCALARS),
    "elen": st.one_of(st.sampled_from((32, 64)), JSON_SCALARS),
    "insn": st.one_of(
        st.sampled_from(("vredmax.vs v8, v12, v4, v0.t", "0x1c862257", "vredmax.vs v0, v0, v0")),
        numbers(),
        JSON_SCALARS,
    ),
    "vtype": st.one_of(
        st.fixed_dictionaries(
            {
                "sew": st.one_of(st.sampled_from((8, 16, 32, 64)), JSON_SCALARS),
                "lmul": st.one_of(st.sampled_from(("m1", "mf8", "m8")), JSON_SCALARS),
            },
            optional={"vta": JSON_SCALARS, "vma": JSON_SCALARS, "x": JSON_SCALARS},
        ),
        numbers(),
        JSON_VALUES,
    ),
    "vl": st.one_of(numbers(), JSON_SCALARS),
    "vstart": st.one_of(numbers(), JSON_SCALARS),
    "vs": st.one_of(st.sampled_from(("off", "initial", "clean", "dirty", "OFF")), JSON_SCALARS),
    "tail": st.one_of(st.sampled_from(("undisturbed", "ones", "any")), JSON_SCALARS),
    "vregs": st.one_of(
        st.dictionaries(
            st.sampled_from(("v0", "v4", "v12", "v31", "v32", "x1", "")),
            st.one_of(numbers().map(hex), numbers(), JSON_SCALARS),
            max_size=4,
        ),
        JSON_VALUES,
    ),
}
OBSERVED = st.one_of(
    st.fixed_dictionaries(
        {"outcome": st.sampled_from(("retired", "illegal", "x"))},
        optional={k: v for k, v in FIELD_VALUES.items() if k in ("vl", "vstart", "vtype", "vs", "vregs")},
    ),
    JSON_VALUES,
)


@st.composite
def cases(draw, observed: bool = False):
    """A good case with some fields replaced, dropped or added."""
    case = dict(GOOD)
    for field in draw(st.lists(st.sampled_from(sorted(FIELD_VALUES)), max_size=4, unique=True)):
        case[field] = draw(FIELD_VALUES[field])
    for field in draw(st.lists(st.sampled_from(sorted(case)), max_size=2, unique=True)):
        del case[field]
    if draw(st.integers(0, 9)) == 0:
        case[draw(st.text(max_size=5))] = draw(JSON_SCALARS)
    if observed:
        case["observed"] = draw(OBSERVED)
    return case


HUGE = '"@huge@"'


def _text(obj) -> str:
    """JSON text of obj. A number past Python's int->str digit limit (json.dumps cannot write
    it) is written as a run of decimal digits of about its size."""

    def swap(value):
        if isinstance(value, bool) or not isinstance(value, (int, dict, list)):
            return value
        if isinstance(value, int):
            return "@huge@" if value.bit_length() > 12000 else value
        if isinstance(value, dict):
            return {k: swap(v) for k, v in value.items()}
        return [swap(v) for v in value]

    return json.dumps(swap(obj)).replace(HUGE, "9" * 25000)


@st.composite
def case_texts(draw, observed: bool = False) -> str:
    text = _text(draw(cases(observed)))
    mangle = draw(st.sampled_from(("", "", "", "cut", "nul", "dup", "bytes")))
    if mangle == "cut":
        text = text[: draw(st.integers(0, len(text)))]
    elif mangle == "nul":
        text = text.replace(",", ",\u0000", 1)
    elif mangle == "dup":
        text = text.replace("{", '{"vl": 1, "vl": 2, ', 1)
    elif mangle == "bytes":
        text = text + "\udcff"
    return text


def _write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_bytes(text.encode("utf-8", errors="surrogateescape"))
    return path


def _one_case(command: list[str], text: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        folder = Path(folder)
        case = _write(folder, "case.json", text)
        before = files_under(folder)
        check_rule(in_process([*command[:1], case, *command[1:]], folder))
        check_nothing_else_written(folder, before)


def _lines(command: list[str], texts: list[str]) -> None:
    """A batch: one output line per input line, a bad line an error object naming the field."""
    with tempfile.TemporaryDirectory() as folder:
        folder = Path(folder)
        lines = _write(folder, "cases.jsonl", "\n".join(texts) + "\n")
        before = files_under(folder)
        run = in_process([*command, lines], folder)
        check_rule(run)
        check_nothing_else_written(folder, before)
        outputs = [json.loads(line) for line in run.out.splitlines()]
        assert len(outputs) == sum(1 for t in texts if t.strip()), str(run)
        for output in outputs:
            if output.get("verdict") == "error" or output["schema"].startswith("vredmax/exec-error"):
                assert BATCH_ERROR.match(output["error"]), str(run)


test_fuzz_exec_case, test_fuzz_exec_case_long = budgets(case_texts(), short=20, long=2000)(
    lambda text: _one_case(["exec", "--json"], text)
)
test_fuzz_explain_case, test_fuzz_explain_case_long = budgets(case_texts(), short=8, long=800)(
    lambda text: _one_case(["explain"], text)
)
test_fuzz_exec_jsonl, test_fuzz_exec_jsonl_long = budgets(
    st.lists(case_texts(), max_size=4), short=10, long=1000
)(lambda texts: _lines(["exec", "--jsonl"], texts))
test_fuzz_judge_lines, test_fuzz_judge_lines_long = budgets(
    st.lists(case_texts(observed=True), max_size=4),
    st.sampled_from(("any", "sail", "spike", "qemu")),
    short=15,
    long=1500,
)(lambda texts, profile: _lines(["judge", "--profile", profile], texts))


# -- instruction words and text ------------------------------------------------------------------

WORDS = st.one_of(
    numbers().map(decimal),
    numbers().map(lambda n: hex(n) if n >= 0 else "-" + hex(-n)),
    st.integers(0, (1 << 32) - 1).map(hex),
    st.text(max_size=20),
    st.sampled_from(("0x1c862257", "0X1C862257", "1_0", "0b1", "0o17", "", " ", "--", "nan")),
)
ASM = st.one_of(
    st.text(max_size=40),
    st.tuples(
        st.sampled_from(("vredmax.vs", "VREDMAX.VS", "vredmin.vs", "")),
        st.lists(
            st.one_of(st.sampled_from(("v0", "v31", "v32", "v0.t", "v-1", "x1")), st.text(max_size=4)),
            max_size=5,
        ),
    ).map(lambda t: f"{t[0]} {', '.join(t[1])}"),
)


def _word(command: str, text: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        check_rule(in_process([command, "--json", "--", text], Path(folder)))
        check_nothing_else_written(Path(folder), set())


test_fuzz_disasm, test_fuzz_disasm_long = budgets(WORDS, short=30, long=3000)(lambda w: _word("disasm", w))
test_fuzz_asm, test_fuzz_asm_long = budgets(ASM, short=30, long=3000)(lambda t: _word("asm", t))


# -- option values --------------------------------------------------------------------------------

VALUES = st.one_of(
    st.text(max_size=10),
    numbers().map(decimal),
    st.integers(-3, 3).map(str),
    st.sampled_from(
        (
            "nan",
            "inf",
            "-inf",
            "1e400",
            "0",
            "-0",
            "0.5",
            "",
            "1,2",
            ",",
            "128,",
            "0x10",
            "m1,m2",
            "auto",
            "../x",
            "/dev/null",
            "/nonexistent/x",
        )
    ),
)
# Each command with the cheapest arguments around the fuzzed option (bounded: small sizes).
CHEAP = {
    "exec": (["exec", "CASE"], ("--impl", "--max-rows", "--profile", "--elen")),
    "explain": (["explain", "CASE"], ("--max-rows", "--elen")),
    "judge": (["judge", "LINES"], ("--profile", "--tail", "--elen")),
    "ask": (
        ["ask", "seed == seed", "--timeout", "1", "--no-cache"],
        ("--vlen", "--sew", "--lmul", "--elen", "--profile"),
    ),
    "prove": (
        [
            "prove",
            "-k",
            "vl0_preserves",
            "--vlen",
            "128",
            "--sew",
            "8",
            "--lmul",
            "m1",
            "--timeout",
            "2",
            "--no-cache",
        ],
        ("--elen", "--method", "--monolithic-max", "-k"),
    ),
    "refute": (["refute", "--list"], ("-k", "--elen", "--vlen", "--sew", "--lmul")),
    "testgen": (
        ["testgen", "--vlen", "128", "--random", "2", "-o", "OUT"],
        ("--elen", "--profile", "--tail", "--seed", "--mutate", "--vlen"),
    ),
    "check-impl": (
        [
            "check-impl",
            "TARGET",
            "--vlen",
            "128",
            "--sew",
            "8",
            "--lmul",
            "m1",
            "--random",
            "2",
            "--timeout",
            "5",
            "--no-cache",
        ],
        ("--seed", "--memory-limit", "--solver", "--level", "--elen"),
    ),
    "certify-check": (["certify-check", "OUT"], ("--engine",)),
}


@st.composite
def option_runs(draw):
    command = draw(st.sampled_from(sorted(CHEAP)))
    base, options = CHEAP[command]
    option = draw(st.sampled_from(options))
    return command, base, option, draw(VALUES)


def _option(drawn) -> None:
    command, base, option, value = drawn
    with tempfile.TemporaryDirectory() as folder:
        folder = Path(folder)
        _write(folder, "CASE", json.dumps(GOOD))
        _write(folder, "LINES", json.dumps({**GOOD, "observed": {"outcome": "retired"}}) + "\n")
        _write(folder, "target.py", "def reduce(ops, seed, elements, active):\n    return seed\n")
        before = files_under(folder)
        argv = [
            folder / a
            if a in ("CASE", "LINES")
            else folder / "out"
            if a == "OUT"
            else f"{folder / 'target.py'}:reduce"
            if a == "TARGET"
            else a
            for a in base
        ]
        run = in_process(
            [
                *argv,
                f"{option}={value}" if option.startswith("--") else option,
                *([] if option.startswith("--") else [value]),
            ],
            folder,
        )
        check_rule(run, timeout_s=60)
        check_nothing_else_written(
            folder,
            before,
            allowed={p for p in files_under(folder) if p.startswith("out") or "__pycache__" in p},
        )


test_fuzz_options, test_fuzz_options_long = budgets(option_runs(), short=12, long=1500)(_option)


# -- what the fuzzers found (kept as plain tests) ---------------------------------------------------


@pytest.mark.parametrize(
    "argv, field",
    [
        (["ask", "active", *ASK], "claim"),  # a bare sequence was a KeyError
        (["ask", "mask", *ASK], "claim"),
        (["ask", "seed == seed", "--vlen", "9" * 25000], "--vlen"),  # int() past the digit limit
        (["ask", "seed == seed", "--vlen=²"], "--vlen"),  # str.isdigit() takes '²'
        (["ask", "seed == seed", "--sew=²"], "--sew"),
        (["exec", "CASE", "--json"], "case"),  # a 25,000-digit JSON number
        (["disasm", "0x" + "f" * 20000], "insn"),  # a word past the digit limit
        (["ask", "seed == 0o" + "7" * 30000, *ASK], "claim"),
        (["check-impl", "x.py:f", "--jobs", str(1 << 31)], "--jobs"),  # would start them all at once
    ],
)
def test_found_by_fuzzing(argv, field, tmp_path):
    _write(tmp_path, "CASE", json.dumps(GOOD)[:-1] + ', "vl": ' + "9" * 25000 + "}")
    run = in_process([tmp_path / "CASE" if a == "CASE" else a for a in argv], tmp_path)
    check_rule(run)
    assert run.code == 2 and run.err.startswith(f"vredmax: error: {field}: "), str(run)
