"""check-impl on bytes: `int.to_bytes`/`from_bytes`, `bytes`, `bytearray` and `struct` of symbolic
values (proofs/python/symbytes.py) mean what they mean on ints, raising where Python raises.

First the values themselves: small functions loaded as the CLI loads user code (rewritten), run
on a symbolic 16-bit x with every path explored (proofs/python/paths.py), each path's result
(or exception) compared with the function's on concrete ints. Then the implementations of
tests/buggy/emulators_bytes.py with the proof alone (`--random 0`): the correct ones PROVED
(by the cut where the configuration is cut), the wrong ones a COUNTEREXAMPLE that replays.
"""

import struct

import pytest
import z3

from vredmax.proofs.engine.verdict import Verdict
from vredmax.proofs.python import branches, paths, rewrite
from vredmax.proofs.python import values as V
from vredmax.proofs.python.symbytes import SymBytes
from vredmax.proofs.python.terms import Z3Terms
from tests.buggy import emulators_bytes
from tests.proof_alone import case_id, cases, check_proof_alone

SOURCE = """
import struct

def round_trip_signed(x):
    return int.from_bytes(x.to_bytes(2, "little"), "little", signed=True)

def byte_order_swapped(x):
    return int.from_bytes(x.to_bytes(2, "big"), "little")

def struct_sign(x):
    return struct.unpack("<b", struct.pack("<B", x & 0xff))[0]

def struct_fields(x):
    return struct.unpack(">hB", struct.pack("<HB", x, x >> 8))

def struct_native(x):
    packed = struct.pack("@bq", (x & 0xff) - 128, x - 30000)
    return len(packed), struct.unpack("@bq", packed), struct.unpack_from("<i", packed, 8)[0]

def from_a_list(x):
    return int.from_bytes(bytes([x & 0xff, x >> 8]), "big", signed=True)

def bytearray_stores(x):
    b = bytearray(4)
    b[1] = x & 0xff
    b[2:4] = (x >> 8).to_bytes(2, "little")
    b += b"\\x01"
    b[-1] = b[1]
    return int.from_bytes(b, "little"), len(b), b[0:2] + b"!"

def joined_and_sliced(x):
    raw = b"-".join([x.to_bytes(2, "little"), bytes([x & 0x0f])])
    return int.from_bytes(raw[1:4], "big"), len(raw), raw[2], raw[::2], list(raw)

def compared(x):
    return x.to_bytes(2, "big") < (0x1234).to_bytes(2, "big"), x.to_bytes(2, "big") >= b"\\x80\\x00"

def equal(x):
    return bytes([x & 0xff]) == b"\\x7f", (x >> 8).to_bytes(1, "little") != b"\\x00"

def merged(x):
    chosen = x.to_bytes(2, "little") if x > 1000 else (x + 7).to_bytes(2, "big")
    return int.from_bytes(chosen, "little")

def read_at_a_symbolic_index(x):
    return x.to_bytes(2, "little")[x >> 15], bytearray(b"abcd")[x & 3]

def too_big(x):
    return x.to_bytes(1, "little")[0]

def negative_unsigned(x):
    return (x - 5).to_bytes(2, "little")[1]

def signed_too_big(x):
    return int.from_bytes((x - 300).to_bytes(1, "little", signed=True), "little")

def byte_out_of_range(x):
    return bytes([x >> 7])[0]

def struct_out_of_range(x):
    return struct.pack("<b", (x >> 8) - 128)[0]

def prefixed(x):
    low = x & 0xff
    return b"\\x01" + x.to_bytes(2, "little"), bytearray(b"\\x02") + bytes([low]), low in x.to_bytes(2, "big"), \\
        bytes([low]) * 2, struct.Struct(">H").unpack(x.to_bytes(2, "little"))[0]

def sizes_in_a_branch(x):
    if x > 5:           # bytes of two lengths: not merged, the branch explored
        size = struct.calcsize("<H")
        data = struct.pack("<H", x)
    else:
        size = struct.calcsize("<I")
        data = struct.pack("<I", x)
    return size, int.from_bytes(data[:2], "little")

def index_out_of_range(x):
    return b"abc"[0:2][0] + x.to_bytes(2, "little")[(x >> 14) - 2]
"""

NAMES = [line.split("(")[0][4:] for line in SOURCE.splitlines() if line.startswith("def ")]
SAMPLES = [
    0,
    1,
    5,
    6,
    127,
    128,
    255,
    256,
    299,
    300,
    427,
    428,
    1000,
    1001,
    0x1233,
    0x1234,
    0x7FFF,
    0x8000,
    0xBEEF,
    0xFFFE,
    0xFFFF,
]


def _module(tmp_path):
    path = tmp_path / "user_bytes.py"
    path.write_text(SOURCE)
    namespace = {rewrite.RUNTIME: branches, "__name__": "user_bytes"}
    exec(rewrite.compile_user(SOURCE, str(path)), namespace)
    return namespace, str(path)


def _evaluate(result, x):
    """A symbolic result's value at x (the term with x substituted)."""
    if type(result) in (tuple, list):
        return type(result)(_evaluate(r, x) for r in result)
    if type(result) is SymBytes:
        return (bytearray if result.mutable else bytes)(_evaluate(list(result.items), x))
    if type(result) not in (V.SymInt, V.SymBool):
        return result
    term = z3.simplify(z3.substitute(result.t, (z3.BitVec("x", 16), z3.BitVecVal(x, 16))))
    if z3.is_bool(term):
        return z3.is_true(term)
    value = term.as_long()
    return value - (1 << result.w) if result.s and value >> (result.w - 1) & 1 else value


def _every_path(cx, run):
    """paths.explore's loop, going on past a path that raised: [(condition, outcome)]."""
    found, cx.plans = [], [[]]
    while cx.plans:
        plan = cx.plans.pop(0)
        while True:
            cx.start(plan)
            try:
                outcome = ("value", run())
            except branches.Escalate as error:  # a merge that cannot be made: explored
                cx.split(error.sites, error.why)
                continue
            except Exception as error:
                outcome = ("error", error)
            break
        found.append((cx.path_condition(), outcome))
        cx.plans.extend(cx.new_plans)
    return found


def _outcome(function, x):
    try:
        return "value", function(x)
    except Exception as error:
        return "error", type(error)


@pytest.mark.parametrize("name", NAMES)
def test_bytes_of_symbolic_values_mean_what_they_mean_on_ints(name, tmp_path):
    """Every path of the symbolic run, at every sample value where its condition holds: the
    same value, or the same exception, as the function on the int."""
    namespace, path = _module(tmp_path)
    function = namespace[name]
    cx = paths.ProofContext([path])
    with cx:
        x = V.SymInt(cx, Z3Terms(), z3.BitVec("x", 16), 16, False, 0, 0xFFFF)
        explored = _every_path(cx, lambda: function(x))
    assert not cx.refusals, cx.refusals
    for sample in SAMPLES:
        taken = [(cond, outcome) for cond, outcome in explored if _evaluate(cond, sample) is True]
        assert len(taken) == 1, (sample, explored)
        kind, value = taken[0][1]
        expected = _outcome(function, sample)
        if kind == "error":
            assert expected == ("error", type(value)), (sample, value)
        else:
            assert expected == ("value", _evaluate(value, sample)), sample


def test_a_value_that_may_not_fit_is_explored_both_ways(tmp_path):
    namespace, path = _module(tmp_path)
    cx = paths.ProofContext([path])
    with cx:
        x = V.SymInt(cx, Z3Terms(), z3.BitVec("x", 16), 16, False, 0, 0xFFFF)
        explored = _every_path(cx, lambda: namespace["too_big"](x))
    kinds = sorted(outcome[0] for _, outcome in explored)
    assert kinds == ["error", "value"]
    assert any(type(outcome[1]) is OverflowError for _, outcome in explored if outcome[0] == "error")


def test_the_round_trip_is_the_value_itself():
    """int.from_bytes of x's own bytes is x's term read as signed: no new term."""
    with V.Context() as cx:
        x = V.SymInt(cx, Z3Terms(), z3.BitVec("x", 16), 16, False, 0, 0xFFFF)
        from vredmax.proofs.python.symbytes import from_bytes

        y = from_bytes(x.to_bytes(2, "little"), "little", signed=True)
        assert y.t.eq(x.t) and y.s and (y.lo, y.hi) == (-32768, 32767)


@pytest.mark.parametrize(
    "source, what",
    [
        ("def f(x):\n    return x.to_bytes(2, 'little')[0:x & 1]\n", "slice of bytes at a symbolic bound"),
        (
            "def f(x):\n    return struct.unpack('<e', x.to_bytes(2, 'little'))\n",
            "struct.unpack with the format '<e'",
        ),
        ("def f(x):\n    return {x.to_bytes(2, 'little'): 1}\n", "hash() of bytes holding a symbolic byte"),
        ("def f(x):\n    return x.to_bytes(x & 3, 'little')\n", "int.to_bytes of a symbolic length"),
        (
            "def f(x):\n    regs = [bytearray(2) for _ in range(32)]\n    return regs[x & 31] is regs[0]\n",
            "`is` of a bytearray chosen by a symbolic index",
        ),
        (
            "def f(x):\n    regs = [bytes(2) for _ in range(32)]\n    regs[x & 31] = bytearray(2)\n"
            "    return isinstance(regs[0], bytearray)\n",
            "the type of bytes or a bytearray chosen by a symbolic index",
        ),
        (
            "def f(x):\n    regs = [bytearray(2) for _ in range(32)]\n    return id(regs[x & 31])\n",
            "id() of a bytearray chosen by a symbolic index",
        ),
        (
            "def f(x):\n    regs = [bytearray(2) for _ in range(32)]\n    regs[x & 31].append(1)\n",
            "a change of a bytearray chosen by a symbolic index",
        ),
    ],
)
def test_what_cannot_be_proved_is_refused_by_name(source, what, tmp_path):
    path = tmp_path / "refused.py"
    source = "import struct\n" + source
    path.write_text(source)
    namespace = {rewrite.RUNTIME: branches}
    exec(rewrite.compile_user(source, str(path)), namespace)
    with paths.ProofContext([str(path)]) as cx:
        x = V.SymInt(cx, Z3Terms(), z3.BitVec("x", 16), 16, False, 0, 0xFFFF)
        with pytest.raises(V.Refusal) as refused:
            namespace["f"](x)
    message = str(refused.value)
    assert what in message and "refused.py:" in message and "\n" not in message


def test_concrete_runs_are_python_itself(tmp_path):
    """Outside a proof the rewritten code calls the real bytes, struct and int functions."""
    namespace, _ = _module(tmp_path)
    for name in NAMES:
        for sample in SAMPLES:
            assert _outcome(namespace[name], sample) == _outcome(_original(name), sample)
    assert type(namespace["bytearray_stores"](5)[2]) is bytearray


def _original(name):
    namespace = {}
    exec(SOURCE, namespace)
    return namespace[name]


def test_struct_layout_matches_python():
    from vredmax.proofs.python.symbytes import layout

    for fmt in ("<bhiq", "@bhiq", "=hH", ">3B2x", "!Ii", "@bq", "hx", "5b"):
        _, fields, total = layout(fmt)
        assert total == struct.calcsize(fmt)
        values = [1 + k for k in range(len(fields))]
        packed = struct.pack(fmt, *values)
        for (offset, width, code), v in zip(fields, values):
            assert struct.unpack_from(_order(fmt) + code, packed, offset)[0] == v


def _order(fmt):
    return fmt[0] if fmt[0] in "@=<>!" else "@"


# The implementations ------------------------------------------------------------------------------

FILE = "tests/buggy/emulators_bytes.py"
CASES = cases(emulators_bytes)


@pytest.mark.parametrize("level, function, cfg", CASES, ids=[case_id(c) for c in CASES])
def test_the_proof_alone_gives_the_verdict(level, function, cfg):
    report = check_proof_alone(FILE, level, function, cfg)
    if report.verdict == Verdict.ERROR:  # Python's own exception, on the path where it is raised
        assert "OverflowError" in report.detail and "emulators_bytes.py" in report.detail


def test_there_are_right_and_wrong_ones():
    functions = emulators_bytes.UNITS + emulators_bytes.STEPS
    assert len([f for f in functions if f.expect == "proved"]) >= 6
    assert len([f for f in functions if f.expect == "counterexample"]) >= 6
