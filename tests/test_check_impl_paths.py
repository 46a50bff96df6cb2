"""The symbolic run of plain Python (proofs/python/branches.py, paths.py): what keeps it fast
and what it refuses at once.

- `and`/`or` in a test give its truth only, so `if x >> 7 and tail == "ones":` merges (an int
  on one side, a bool on the other, used to split the run in two paths, and the if/elif on
  signs of tests/buggy/emulators.py went past 64 paths at VLMAX 16);
- code whose paths double at every lane (list.append under an if on a mask bit) is refused
  within seconds, naming its file and line and what to write instead;
- a failure of the checker's own code inside a merged branch is an ERROR, never a reason to
  explore the branch instead.
"""

import time

from vredmax.proofs.engine.verdict import Verdict
from vredmax.proofs.python import branches, paths
from vredmax.proofs.python import values as V
from vredmax.proofs.python.check_impl import INSTRUCTION, UNIT, InProcess, check_implementation, load
from vredmax.spec.config import Config
from tests.buggy import emulators

FILE = "tests/buggy/emulators.py"


def _proof(name, level, cfg):
    return check_implementation(
        InProcess(load(f"{FILE}:{name}"), level, random_states=0, directed=False), level, [cfg]
    )


def test_a_step_runs_once_per_tail_policy(monkeypatch):
    """step_plain's `if vta and tail == "ones":` merges: one path per run of the step."""
    runs = []
    explore = paths.explore

    def counted(cx, run_once):
        found = explore(cx, run_once)
        runs.append(cx.paths_run)
        return found

    from vredmax.proofs.python import running  # where the user's code is run

    monkeypatch.setattr(running, "explore", counted)
    report = _proof("step_plain", INSTRUCTION, emulators.STEP_CUT)
    assert report.verdict == Verdict.PROVED, report.detail
    assert runs and all(n == 1 for n in runs), runs


def test_if_elif_on_signs_is_merged_at_vlmax_16():
    start = time.perf_counter()
    assert _proof("elif_by_sign", UNIT, emulators.CUT).verdict == Verdict.PROVED
    assert _proof("elif_by_sign_swapped", UNIT, emulators.CUT).verdict == Verdict.COUNTEREXAMPLE
    assert time.perf_counter() - start < 120


def test_append_under_an_if_is_refused_at_once():
    start = time.perf_counter()
    report = _proof("append_under_if", UNIT, emulators.CUT)
    assert time.perf_counter() - start < 60
    assert report.verdict == Verdict.ERROR
    assert "emulators.py:" in report.detail and "list.append" in report.detail
    assert "filtered comprehension" in report.detail


def test_a_while_loop_on_the_mask_ends():
    """`while i < n and not active[i]: i += 1`: i merged from the rounds before cannot show by
    its range that the loop is over; the round no input reaches ends it."""
    assert _proof("while_to_the_first_active", UNIT, emulators.MONOLITHIC).verdict == Verdict.PROVED
    assert _proof("while_past_the_first_active", UNIT, emulators.MONOLITHIC).verdict == Verdict.COUNTEREXAMPLE


def test_a_failure_of_the_checker_inside_a_merged_branch_is_an_error(monkeypatch):
    """A store inside a merged branch goes through _guarded_value; made to fail as an internal
    bug would (an AttributeError raised in values.py), the run is an ERROR naming the
    checker's code, not a run that explores the branch (where the store is not guarded, and
    the proof would pass)."""

    def broken(cx, cond, new, old):
        return V.make_int(None, None, None, 8, False, 0, 255)  # AttributeError inside values.py

    monkeypatch.setattr(branches, "_guarded_value", broken)
    report = _proof("tournament_network", UNIT, emulators.MONOLITHIC)
    assert report.verdict == Verdict.ERROR
    assert "check-impl's own code" in report.detail and "AttributeError" in report.detail


def test_internal_bug_tells_the_users_exceptions_apart():
    def users():
        raise AttributeError("no such field")

    try:
        users()
    except AttributeError as error:
        assert branches.internal_bug(error) is None
    try:
        V.make_int(None, None, None, 8, False, 0, 255)
    except AttributeError as error:
        assert isinstance(branches.internal_bug(error), branches.InternalError)
    try:
        [][1]
    except IndexError as error:
        assert branches.internal_bug(error) is None


def _checker_code(source):
    """A function compiled as if it were a line of the checker's own code (values.py)."""
    namespace = {}
    exec(compile(source, V.__file__, "exec"), namespace)
    return namespace["read"]


class _Bound(V.Context):
    def decide(self, cond, what):
        return bool(cond)


def test_an_attribute_read_through_a_proxy_is_of_the_frame_that_asked():
    """MaybeUnbound passes an attribute read on to its value: an AttributeError there is the
    user's when the user's code read the attribute, the checker's when its own code did."""
    value = branches.MaybeUnbound("best", True, 7)
    with _Bound():
        try:
            value.no_such_field
        except AttributeError as error:
            assert branches.internal_bug(error) is None
        try:
            getattr(branches.MaybeUnbound("outer", True, value), "no_such_field")  # a proxy of a proxy
        except AttributeError as error:
            assert branches.internal_bug(error) is None
        try:
            _checker_code("def read(value):\n    return value.t\n")(value)
        except AttributeError as error:
            bug = branches.internal_bug(error)
            assert isinstance(bug, branches.InternalError) and "values.py" in str(bug)


def test_a_checker_read_through_a_proxy_inside_a_merged_branch_is_an_error(monkeypatch):
    """The checker's own code reading an attribute the value behind a MaybeUnbound lacks
    (inside a merged branch): an ERROR naming the checker, not the user's AttributeError (which
    would have the branch explored instead, and the proof pass)."""
    read = _checker_code("def read(value):\n    return value.t\n")

    def broken(cx, cond, new, old):
        return read(branches.MaybeUnbound("new", cond, 7))

    monkeypatch.setattr(branches, "_guarded_value", broken)
    report = _proof("tournament_network", UNIT, emulators.MONOLITHIC)
    assert report.verdict == Verdict.ERROR
    assert "check-impl's own code" in report.detail and "AttributeError" in report.detail


def test_a_users_attribute_read_through_a_proxy_stays_the_users():
    """A name bound on one path (a MaybeUnbound) read for an attribute its int lacks: the
    user's AttributeError, on the path where it is bound; where no input goes, never run."""
    report = _proof("attribute_of_a_name_bound_on_one_path", UNIT, emulators.CUT)
    assert report.verdict == Verdict.ERROR
    assert "raised AttributeError" in report.detail and "first.value" in report.detail
    assert "check-impl's own code" not in report.detail
    assert _proof("attribute_read_where_no_input_goes", UNIT, emulators.CUT).verdict == Verdict.PROVED


def _dead(source):
    import ast
    from vredmax.proofs.python import rewrite

    function = ast.parse(source).body[0]
    scope = rewrite._Scope(set(), False, body=function.body)
    loop = next(n for n in ast.walk(function) if isinstance(n, (ast.For, ast.While)))
    return rewrite._dead_at_back_edge(loop, scope)


def test_a_loops_temporaries_are_not_merged_across_rounds():
    """Names stored first in a round and read nowhere else keep the branch's value (no
    if-then-else per round); any other read keeps the merge."""
    body = (
        "    for i in range(n):\n        if i >= vl:\n            break\n        t = f(i)\n"
        "        if t > a:\n            a = t\n"
    )
    assert _dead("def g(n, vl, a):\n" + body + "    return a\n") == {"t"}
    assert _dead("def g(n, vl, a):\n" + body + "    return a, t\n") == set()  # read after the loop
    assert _dead("def g(n, vl, a):\n" + body + "    return locals()\n") == set()  # the frame read
    assert _dead("def g(n, vl, a):\n    h = lambda: t\n" + body + "    return a\n") == set()  # captured
    assert _dead("def g(n, t, a):\n    for i in range(n):\n        t = t + i\n    return a\n") == set()
    assert (
        _dead(
            "def g(n, a):\n    for i in range(n):\n        if i:\n            t = i\n        a = t\n"
            "    return a\n"
        )
        == set()
    )  # first met inside an if: may be last round's


def test_an_error_in_a_filtered_comprehensions_element_is_the_users(tmp_path):
    """An element of a comprehension with a symbolic filter that raises: the user's error at
    the user's line (before: the explorer failed on the element's missing site, and the
    verdict read "post-state does not fit the spec")."""
    path = tmp_path / "comprehension.py"
    path.write_text(
        "def reduce(ops, seed, elements, active):\n"
        "    values = [x.bit_count(1) for x, a in zip(elements, active) if a]\n"
        "    return max([seed] + values)\n"
    )
    for cfg in (emulators.MONOLITHIC, emulators.CUT):
        report = check_implementation(
            InProcess(load(f"{path}:reduce"), UNIT, random_states=0, directed=False), UNIT, [cfg]
        )
        detail = report.results[0].checks[0].detail
        assert report.verdict == Verdict.ERROR, detail
        assert "raised TypeError" in detail and 'comprehension.py", line 2' in detail, detail


# a loop that stops once the running maximum is the largest value: with a break, and with a
# flag carried across the rounds
EARLY_EXITS = (
    """
def reduce(ops, seed, elements, active):
    w = ops.width
    top, mask = 1 << (w - 1), (1 << w) - 1
    best = seed ^ top  # offset binary: signed order is unsigned order
    for x, a in zip(elements, active):
        if best == LARGEST:
            break
        if a:
            best = max(best, x ^ top)
    return (best ^ top) & mask
""",
    """
def reduce(ops, seed, elements, active):
    w = ops.width
    top, mask = 1 << (w - 1), (1 << w) - 1
    best = seed ^ top
    stopped = False
    for x, a in zip(elements, active):
        if stopped:
            continue
        if a and x ^ top > best:
            best = x ^ top
        if best == LARGEST:
            stopped = True
    return (best ^ top) & mask
""",
)


def _check_source(path, source, cfg):
    path.write_text(source)
    start = time.perf_counter()
    report = check_implementation(
        InProcess(load(f"{path}:reduce"), UNIT, random_states=0, directed=False), UNIT, [cfg]
    )
    return report, time.perf_counter() - start


def test_an_early_exit_at_the_largest_value_is_proved_at_sew_64_vlmax_1024(tmp_path):
    """At SEW=64 and VLMAX 1024: the stop flag's questions (does the flag before a round
    imply the one after it?) hold whatever the maximum so far is, and are asked with it a
    variable (proofs/python/sharedterms.py); asked whole, each grew with the loop and the run
    took over 60 s. A twin that stops one value short is still caught (at VLMAX 16: at 1024
    it is not decided within a minute)."""
    for k, source in enumerate(EARLY_EXITS):
        report, seconds = _check_source(
            tmp_path / f"early_exit_{k}.py", source.replace("LARGEST", "mask"), Config(8192, 64, 64, "m8")
        )
        assert report.verdict == Verdict.PROVED, (k, report.detail)
        assert seconds < 60, (k, seconds)
    report, _ = _check_source(
        tmp_path / "stops_short.py", EARLY_EXITS[1].replace("LARGEST", "mask - 1"), Config(1024, 64, 64, "m1")
    )
    assert report.verdict == Verdict.COUNTEREXAMPLE, report.detail
