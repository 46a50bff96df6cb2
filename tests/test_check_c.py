"""vredmax check-c: C units and steps of tests/c (5 correct and 5 buggy of each level) and the
examples get the right verdict; bad input is one line and exit 2.

The default run checks the concrete verdicts at VLEN=128 (seconds each; each buggy case is
replayed on the compiled code and on `vredmax exec`), one symbolic proof of a unit (SEW=8 up to
VLMAX 16) and one of a step (SEW=32, VLMAX 2), a solver-only bug, and bitwuzla's own model;
`-m check_c_scale` runs every implementation with the symbolic method (and the symbolic method
alone on each buggy step).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

from vredmax.proofs.c import concrete, step_loop, symbolic
from vredmax.proofs.c.build import build
from vredmax.proofs.c.check import STEP_WORDS, Options, step_solver, judged_values
from vredmax.proofs.c.check import check_c as check_c_in_process
from vredmax.proofs.engine import solvers, verdict
from vredmax.proofs.engine.counterexample import Counterexample
from vredmax.proofs.engine.verdict import Verdict
from vredmax.impl.case import parse_case
from vredmax.spec.config import Config, legal_configs
from vredmax.spec.encoding import Insn

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
UNITS, STEPS = os.path.join(ROOT, "tests", "c", "units.c"), os.path.join(ROOT, "tests", "c", "steps.c")
CORRECT_UNITS = (
    "u_memcpy_walk",
    "u_reverse",
    "u_select",
    "u_found_flag",
    "u_pairs",
    "u_branchless",
    "u_compact",
    "u_compact_walk",
    "u_compact_stack",
    "u_compact_union",
    "u_compact_seed_last",
    "u_bytes_inner",
)
BUGGY_UNITS = (
    "bug_unsigned",
    "bug_one_short",
    "bug_all_lanes",
    "bug_zero_start",
    "bug_difference",
    "bug_branchless_unsigned",
    "bug_compact_short",
    "bug_compact_walk_unsigned",
    "bug_compact_stack_short",
    "bug_compact_union_unsigned",
    "bug_compact_seed_last_unsigned",
    "bug_bytes_short",
)
CORRECT_STEPS = (
    "s_plain",
    "s_tail_ones",
    "s_temp_copy",
    "s_macro",
    "s_dirty_always",
    "s_runtime_size",
    "s_vta_byte_loop",
    "s_reserved_executed",
)
BUGGY_STEPS = (
    "bug_vl0",
    "bug_vstart",
    "bug_mask_bytes",
    "bug_tail_zero",
    "bug_read_past",
    "bug_no_elen",
    "bug_runtime_stride",
    "bug_reserved_vstart",
)
VREDMAX = (sys.executable, "-c", "from vredmax.cli.main import entry; entry()")
# found by the sanitized build, with the sanitizer's name for the undefined behaviour
UNDEFINED = {"bug_difference": "signed integer overflow", "bug_read_past": "heap-buffer-overflow"}

pytestmark = pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler")


def check_c(*args):
    done = subprocess.run(
        [*VREDMAX, "check-c", *args, "--json"], capture_output=True, text=True, cwd=ROOT, timeout=3000
    )
    return done.returncode, (json.loads(done.stdout) if done.stdout.strip() else None), done.stderr


def engine_present() -> bool:
    try:
        symbolic.engine_python()
    except symbolic.EngineMissing:
        return False
    return True


needs_angr = pytest.mark.skipif(not engine_present(), reason="angr is not installed (make angr)")


@pytest.mark.parametrize(
    "path,function", [(UNITS, f) for f in BUGGY_UNITS] + [(STEPS, f) for f in BUGGY_STEPS]
)
def test_buggy_code_is_a_counterexample(path, function, tmp_path):
    code, report, _ = check_c(f"{path}:{function}", "--vlen", "128", "--symbolic-vlmax", "0")
    assert code == 1 and report["verdict"] == "COUNTEREXAMPLE", report["detail"]
    cx = report["counterexample"]
    assert cx["differing"]
    if function in UNDEFINED:
        assert "well-defined C" in cx["differing"]
        assert any(UNDEFINED[function] in note for note in cx["notes"]), cx["notes"]
        return
    # the case replays: on the compiled code, which fails on it again ...
    pre, insn, _ = parse_case(cx["case"])
    built = build(path, function, (), str(tmp_path))
    assert (
        concrete.replay(
            built, Config(pre.vlen, pre.elen, cx["config"]["sew"], cx["config"]["lmul"]), pre, insn
        ).differing
        == cx["differing"]
    )
    # ... and on the executable spec, which computes the spec side
    done = subprocess.run(
        [*VREDMAX, "exec", "-", "--json"],
        input=json.dumps(cx["case"]),
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr
    executed = json.loads(done.stdout)
    assert (executed["outcome"] != "retired") == cx["spec"]["traps"]
    if "vd[0]" in cx["spec"]:
        sew = cx["config"]["sew"]
        assert int(executed["vregs"][f"v{insn.vd}"], 16) % (1 << sew) == cx["spec"]["vd[0]"]["unsigned"]


@pytest.mark.parametrize(
    "path,function", [(UNITS, f) for f in CORRECT_UNITS] + [(STEPS, f) for f in CORRECT_STEPS]
)
def test_correct_code_passes_the_concrete_runs(path, function):
    """Without a proof (--symbolic-vlmax 0) the verdict is UNKNOWN, never PROVED."""
    code, report, _ = check_c(f"{path}:{function}", "--vlen", "128", "--symbolic-vlmax", "0")
    assert code == 3 and report["verdict"] == "UNKNOWN", report["detail"]
    assert report["sanitized_cases"] > 0 and all(not c["error"] for c in report["concrete"])


@needs_angr
def test_a_correct_unit_is_proved_for_every_vlmax():
    """SEW=8 by induction over the loop: every VLMAX up to 65536, no bound (about 10 s)."""
    code, report, _ = check_c(f"{UNITS}:u_select", "--vlen", "128", "--sew", "8", "--random", "5")
    assert code == 0 and report["verdict"] == "PROVED", report["detail"]
    assert [(c["vlmax"], c["verdict"]) for c in report["symbolic"]] == [(65536, "PROVED")]
    assert report["bounds"] == [report["bounds"][0]] and "every VLMAX (up to 65536)" in report["bounds"][0]


@needs_angr
@pytest.mark.parametrize(
    "function,sew,verdict",
    [
        ("bug_narrow_counter", 8, Verdict.UNKNOWN),
        ("u_branchless", 64, Verdict.PROVED),
        ("u_bytes_inner", 64, Verdict.PROVED),
        ("u_union_seed_last", 8, Verdict.PROVED),
        ("u_table_reverse", 8, Verdict.PROVED),
        pytest.param("bug_union_seed_unsigned", 8, Verdict.UNKNOWN, marks=pytest.mark.check_c_scale),
        pytest.param("bug_bytes_short", 64, Verdict.UNKNOWN, marks=pytest.mark.check_c_scale),
        pytest.param("bug_narrow_counter", 16, Verdict.PROVED, marks=pytest.mark.check_c_scale),
        pytest.param("bug_one_short", 8, Verdict.UNKNOWN, marks=pytest.mark.check_c_scale),
        pytest.param("bug_unsigned", 8, Verdict.UNKNOWN, marks=pytest.mark.check_c_scale),
        pytest.param("bug_branchless_unsigned", 64, Verdict.UNKNOWN, marks=pytest.mark.check_c_scale),
        pytest.param("u_found_flag", 32, Verdict.PROVED, marks=pytest.mark.check_c_scale),
        # two loops: the active elements compacted into a buffer, then folded (two_loops.py)
        pytest.param("u_compact", 8, Verdict.PROVED, marks=pytest.mark.check_c_scale),
        pytest.param("bug_compact_short", 8, Verdict.UNKNOWN, marks=pytest.mark.check_c_scale),
        pytest.param("bug_compact_past_end", 8, Verdict.UNKNOWN, marks=pytest.mark.check_c_scale),
        pytest.param("bug_compact_keeps_all", 8, Verdict.UNKNOWN, marks=pytest.mark.check_c_scale),
        # a stack buffer filled by a pointer walk (two_loops.py with the frame's slots over the
        # buffer's first entries, a spilled count, trips counted at the first head at SEW=64)
        pytest.param("u_compact_stack", 8, Verdict.PROVED, marks=pytest.mark.check_c_scale),
        pytest.param("u_compact_stack", 64, Verdict.PROVED, marks=pytest.mark.check_c_scale),
        pytest.param("bug_compact_stack_short", 8, Verdict.UNKNOWN, marks=pytest.mark.check_c_scale),
        pytest.param("bug_compact_stack_short", 64, Verdict.UNKNOWN, marks=pytest.mark.check_c_scale),
        # memcpy's PLT stub (called for every active element) is no loop head
        pytest.param("u_compact_union", 8, Verdict.PROVED, marks=pytest.mark.check_c_scale),
        pytest.param("bug_compact_union_unsigned", 8, Verdict.UNKNOWN, marks=pytest.mark.check_c_scale),
        # seed folded last after a buffer below the frame's slots (a slot: the spilled sew beside
        # bytes never written, named alike in every mined state); its twin folding the seed unsigned
        pytest.param("u_compact_seed_last", 8, Verdict.PROVED, marks=pytest.mark.check_c_scale),
        pytest.param("bug_compact_seed_last_unsigned", 8, Verdict.UNKNOWN, marks=pytest.mark.check_c_scale),
        # the flags packed into a zeroed bit array first (packed.py): 64-bit words from the top
        # bit; a byte at a time, its shift count refuted by the trip and havocked (Houdini)
        ("u_bits_words_top", 8, Verdict.PROVED),
        ("u_bits_bytes", 8, Verdict.PROVED),
        pytest.param("u_bits_bytes", 64, Verdict.PROVED, marks=pytest.mark.check_c_scale),
        pytest.param("bug_bits_shifted", 8, Verdict.UNKNOWN, marks=pytest.mark.check_c_scale),
        pytest.param("bug_bits_unzeroed", 8, Verdict.UNKNOWN, marks=pytest.mark.check_c_scale),
        pytest.param("bug_bits_past_16", 8, Verdict.UNKNOWN, marks=pytest.mark.check_c_scale),
    ],
)
def test_the_induction_proves_no_wrong_unit(function, sew, verdict, tmp_path):
    """A 16-bit trip count is wrong only at n = 65536 (SEW=8; right at SEW=16, where VLMAX stops
    at 32768): the induction's exit does not hold there, so no proof (the bounded method and
    the concrete runs speak instead); nor for a loop one short, nor unsigned comparisons. A
    branch-free select (`acc ^= (acc ^ x) & -(x > acc & active)`) at SEW=64 is proved (it hit
    bitwuzla's time limit at VLMAX 16 with the bounded method). A buffer filled by a first loop
    (`buf[m++] = x` of the active elements) and folded by a second is proved for every VLMAX
    (two_loops.py: the buffer a solver array, every entry below m at most X, one equal to it);
    its twins folding one entry short, one past the end, or keeping the inactive elements too
    are not. Elements assembled byte by byte
    in a loop of their own, run only for the active ones, are proved too: the paths that ran
    the inner loop and those that skipped it meet at the outer head (each loop's trips counted
    apart); the guess of the invariant no longer asks the solver after each mined trip (over
    two minutes at SEW=64 before: a time limit). A loop entered at a block no back edge targets
    (`u_union_seed_last`: the targets lie after the element's memcpy) is proved at that block,
    the first of the loop the run reached; its memcpy called for the seed after the loop is not
    merged with the one called inside it (different call sites: the load's address was an
    if-then-else of the stack and the elements, and the induction stopped there). An UNKNOWN
    names the loop by its source line. `u_table_reverse` keeps the index times the element size
    in a register the mining run (n = 6) took for a sign-extended running value: refuted at the
    first arrival for n = 2048, so that location alone is havocked and the induction run again
    (Houdini), and the rest proves it. So is `u_bits_bytes`'s shift count (`i % 8` kept in rcx, rebuilt
    from the index each trip, not affine): the layout of the bit array is chosen by the array's
    fact alone, so the refuted location does not make every layout fail."""
    from vredmax.proofs.c.check import unit_vlmaxes
    from vredmax.proofs.c.unit_loop import prove_unit_loop

    built = build(UNITS, function, (), str(tmp_path))
    # the union loader's mining runs alone take a minute: past 120 s on a loaded machine
    limit = 300 if function == "u_compact_union" else 120
    result = prove_unit_loop(
        symbolic.engine_python(), built.plain, sew, unit_vlmaxes(sew, 1 << 20), limit, "auto"
    )
    assert result.verdict == verdict, result.detail
    if verdict == Verdict.UNKNOWN:  # what stopped the induction, at a line of the source
        assert "units.c:" in result.detail, result.detail


@needs_angr
def test_a_compaction_into_a_malloced_buffer_is_proved_to_a_bound(tmp_path):
    """`buf[m++] = x` into malloc'ed memory, then the reduction of buf[0..m): angr's lazy solving
    let an infeasible path reach a load whose symbolic address had no value left ("Unable to
    concretize address"): such a path is dropped now (the coverage proof still checks the
    paths kept cover every input). The wrong twin is refuted by the solver."""
    for function, expected in (("u_compact", Verdict.PROVED), ("bug_compact_short", Verdict.COUNTEREXAMPLE)):
        (tmp_path / function).mkdir()
        built = build(UNITS, function, (), str(tmp_path / function))
        result, _ = symbolic.prove_unit(symbolic.engine_python(), built.plain, 8, 4, 120, "auto")
        assert result.verdict == expected, result.detail


@needs_angr
@pytest.mark.parametrize(
    "function,verdict", [("u_compact_walk", "PROVED"), ("bug_compact_walk_unsigned", "COUNTEREXAMPLE")]
)
def test_a_store_at_a_running_index_merges_in_byte_order(function, verdict, tmp_path):
    """`buf[m++] = x` at m symbolic: the paths meet with buf's slots written by some and not
    others, and angr's page merge stores the merged slot with no byte order, which its loads
    read back byte-reversed (a merged 7 read as 0x0700000000000000). The solver then refuted
    the correct unit with a counterexample that did not replay (ERROR); with such objects
    big-endian the bounded method proves it (asked directly: check-c proves this unit for every
    VLMAX by the two loops' induction first), and the wrong twin's counterexample replays."""
    _, report, _ = check_c(
        f"{UNITS}:{function}", "--vlen", "128", "--sew", "8", "--symbolic-vlmax", "4", "--random", "3"
    )
    assert report["verdict"] == verdict, report["detail"]
    if verdict == "PROVED":
        built = build(UNITS, function, (), str(tmp_path))
        result, _ = symbolic.prove_unit(symbolic.engine_python(), built.plain, 8, 4, 120, "auto")
        assert result.verdict == Verdict.PROVED, result.detail


@needs_angr
@pytest.mark.check_c_scale  # 45 s; the step's every-vl and merge tests below prove steps in the default run
def test_a_correct_step_is_proved():
    """A whole step at SEW=32, VLMAX=2 (LMUL=1/2) for every instruction word of STEP_WORDS:
    memcpy of a size read from vtype (`sew / 8`), and memset of vd to ones under vta (half a
    minute). angr's own memcpy failed on that size, its state merge gave the stored SEW in the
    wrong byte order, and with claripy's composite solver a path lost its vstart condition (a
    counterexample that did not replay): no proof before each of those fixes."""
    code, report, _ = check_c(
        f"{STEPS}:s_tail_ones", "--vlen", "128", "--sew", "32", "--symbolic-vlmax", "2", "--random", "5"
    )
    assert code == 0 and report["verdict"] == "PROVED", report["detail"]
    assert len(report["symbolic"]) == len(STEP_WORDS) and {c["vlmax"] for c in report["symbolic"]} == {2}
    assert report["bounds"] == [
        f"SEW=32: VLMAX up to 2 (VLEN=128 ELEN=64 SEW=32 LMUL=mf2; {len(STEP_WORDS)} checks "
        f"over {len(STEP_WORDS)} instruction words)"
    ]


@needs_angr
def test_a_merge_of_a_merged_state_keeps_its_merged_values(tmp_path):
    """A step whose paths with and without the vta memset meet, and meet again later: angr finds
    the bytes to merge from each page's history of writes, which does not record a merge's
    replaced objects, so the second merge kept one path's accumulator under the other's
    condition (vd[0] = 0xffffffff where the code computes 0x0000ffff): a COUNTEREXAMPLE of the
    exploration that did not replay. With the merged bytes recorded, every word PROVED at the
    configuration where it happened (SEW=32, VLMAX 2; a whole check-c run of a step is
    test_a_correct_step_is_proved's)."""
    built = build(STEPS, "s_vta_byte_loop", (), str(tmp_path))
    (cfg,) = [c for c in legal_configs(64, [128], [32]) if c.vlmax == 2]
    for fields in STEP_WORDS:
        result, _ = symbolic.prove_step(
            symbolic.engine_python(), built.plain, cfg, 120, step_solver("auto"), fields
        )
        assert result.verdict == Verdict.PROVED, (fields, result.detail)


def test_register_files_are_compared_register_by_register_in_a_term_of_any_depth():
    """A step that executes a reserved word (as QEMU and Spike do) is explored at every VLMAX
    of VLEN=128: its path at SEW=8, LMUL=8 is a chain of 128 maxima, deeper than Python's
    recursion limit once angr's terms are in Z3 (an internal error before the rewrite was
    iterative)."""
    import z3

    x = z3.BitVec("x", 8)
    chain = x
    for i in range(sys.getrecursionlimit() * 2):
        chain = z3.If(chain > i % 100, chain, x + 1)
    a, b = (z3.Array(n, z3.BitVecSort(5), z3.BitVecSort(8)) for n in "ab")
    rewritten = symbolic.register_wise(z3.And(a == b, chain == 3))
    assert "a[31] == b[31]" in str(rewritten)
    solver = z3.Solver()
    solver.add(rewritten != z3.And([a[r] == b[r] for r in range(32)] + [chain == 3]))
    assert solver.check() == z3.unsat


@needs_angr
@pytest.mark.parametrize(
    "function,vm,proved",
    [
        ("s_macro", 1, True),
        ("bug_past_16", 1, False),
        ("bug_vl0", 1, False),
        ("s_mask_words", 0, True),
        pytest.param("bug_mask_words_past_16", 0, False, marks=pytest.mark.check_c_scale),
        ("s_skip_inline_copy", 0, True),
        ("s_plain", 1, True),
        pytest.param("bug_mask_bytes", 0, False, marks=pytest.mark.check_c_scale),
    ],
)
def test_a_step_is_proved_for_every_vl_by_induction_over_its_loop(function, vm, proved, tmp_path):
    """Every configuration at VLEN=128 and SEW=32 with VLMAX above 2 (LMUL 1 to 8, both ELENs:
    VLMAX up to 32), every vl, in one induction over the step's loop over the elements. A step
    wrong only past element 16, or writing vd when vl = 0, is not proved (the induction is no
    counterexample: check-c notes it and keeps the bounded proof). `s_mask_words` reads the mask
    a v0 word at a time (masked: vm = 0): its loop's head is first reached with element 0 done,
    and a trip stores to its stack at an address term of one value. `s_skip_inline_copy`'s
    active elements run an inlined memcpy whose blocks lie before the loop's head (more jumps
    back than an inactive element's trip): the mining run counts the trips at the head, where
    the paths of a trip meet (else no state at the head merged them: no invariant). `s_plain`'s
    loop, in a static helper, is stated at its first block (the back edge's target lies after
    an element's load: refuted there)."""
    built = build(STEPS, function, (), str(tmp_path))
    configs = [c for e in (32, 64) for c in legal_configs(e, [128], [32]) if c.vlmax > 2]
    assert max(c.vlmax for c in configs) == 32
    result = step_loop.prove_step_loop(
        symbolic.engine_python(), built.plain, configs, Insn(2, 8, 1, vm), 300, step_solver("auto")
    )
    assert (result.verdict == Verdict.PROVED) == proved, result.detail
    if proved:
        assert "every vl by induction over the loop" in result.detail


RARE_BUG = (
    '#include "vredmax_check.h"\n'
    "uint64_t reduce(unsigned sew, uint64_t seed, const void *elements, const uint8_t *active, size_t n)\n"
    "{ const int8_t *e = elements; int8_t acc = (int8_t)seed;\n"
    "  for (size_t i = 0; i < n; i++) if (active[i] && e[i] > acc) acc = e[i];\n"
    "  const uint8_t *b = elements;\n"
    "  if (sew == 8 && (uint8_t)seed == 0x5b && n == 2 && b[0] == 0x3c && b[1] == 0x7e) return 0x11;\n"
    "  return (uint64_t)acc; }\n"
)


@needs_angr
@pytest.mark.parametrize("function,proved", [("s_reserved_executed", True), ("bug_reserved_vstart", False)])
@pytest.mark.parametrize("fields", [Insn(2, 0, 1, 0), Insn(2, 8, 0, 0)], ids=["v0_in_vs2", "v0_is_vs1"])
def test_a_reserved_word_the_step_executes_is_proved_for_every_vl_by_induction(
    function, proved, fields, tmp_path
):
    """A step that executes the words reserved for v0 in the vs2 group or as vs1 while masked
    (as QEMU and Spike do) runs its loop there: the induction proves those configurations (the
    spec asks nothing of a reserved word but its traps) where exploring them took minutes at
    LMUL=8. A step that then forgets the vstart trap is not proved."""
    built = build(STEPS, function, (), str(tmp_path))
    configs = [c for e in (32, 64) for c in legal_configs(e, [128], [32]) if c.vlmax > 2]
    assert all(step_loop.reserved(c, fields) for c in configs)
    result = step_loop.prove_step_loop(
        symbolic.engine_python(), built.plain, configs, fields, 300, step_solver("auto")
    )
    assert (result.verdict == Verdict.PROVED) == proved, result.detail


@needs_angr
def test_a_bug_the_concrete_runs_miss_is_found_by_the_solver(tmp_path):
    """A unit wrong for one seed and elements alone: no random or directed case has them."""
    source = tmp_path / "rare.c"
    source.write_text(RARE_BUG)
    code, report, _ = check_c(
        f"{source}:reduce", "--vlen", "128", "--sew", "8", "--lmul", "mf8", "--symbolic-vlmax", "2"
    )
    assert code == 1 and report["verdict"] == "COUNTEREXAMPLE"
    assert report["counterexample"]["implementation"]["vd[0]"]["unsigned"] == 0x11
    assert "symbolic" in report["detail"]


@needs_angr
@pytest.mark.skipif(not solvers.available("bitwuzla"), reason="bitwuzla is not installed")
@pytest.mark.parametrize("replays", [True, False])
def test_bitwuzla_model_when_z3_gives_none(tmp_path, monkeypatch, replays):
    """Bitwuzla refutes and Z3 rebuilds no model: bitwuzla's own values make the case, which
    is replayed; a COUNTEREXAMPLE when the compiled code fails on it, else UNKNOWN (never a
    verdict on the solver's word alone)."""
    monkeypatch.setattr(verdict, "_z3_model", lambda *args: None)
    if not replays:  # as if the compiled code had computed the right value on that case
        monkeypatch.setattr(
            concrete,
            "replay",
            lambda built, cfg, pre, insn: judged_values(
                cfg, pre, insn, Counterexample(cfg, pre, insn, "undisturbed", {}, {}, "implementation")
            ),
        )
    source = tmp_path / "rare.c"
    source.write_text(RARE_BUG)
    built = build(str(source), "reduce", (), str(tmp_path))
    cfgs = [c for c in legal_configs(64, [128]) if c.sew == 8 and c.lmul == "mf8"]
    report = check_c_in_process(
        built, cfgs, Options(random=3, symbolic_vlmax=2, solver="bitwuzla", sews=(8,))
    )
    if replays:
        assert report.verdict == Verdict.COUNTEREXAMPLE, report.detail
        assert "bitwuzla's model" in report.counterexample_source
        assert report.counterexample.other["vd[0]"] == 0x11
    else:
        assert report.verdict == Verdict.UNKNOWN and "bitwuzla refuted" in report.detail, report.detail


@pytest.mark.parametrize(
    "args,message",
    [
        (["nonexistent.c"], "c: no such file: nonexistent.c"),
        ([f"{UNITS}:no_such"], "function: "),
        ([f"{UNITS}:sext"], "is not of type"),
        ([f"{UNITS}:u_select", "--cflags", "-O2 '"], "--cflags:"),
        ([f"{UNITS}:u_select", "--vlen", "100"], "--vlen: must be a power of two"),
    ],
)
def test_bad_input_is_one_line(args, message):
    done = subprocess.run([*VREDMAX, "check-c", *args], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("vredmax: error: ") and message in lines[0], done.stderr


def test_a_syntax_error_names_the_line(tmp_path):
    source = tmp_path / "broken.c"
    source.write_text('#include "vredmax_check.h"\nuint64_t reduce(unsigned sew) {\n  return sew +;\n}\n')
    done = subprocess.run([*VREDMAX, "check-c", str(source)], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 2 and ":3: " in done.stderr and "error" in done.stderr


@pytest.mark.check_c_scale
@needs_angr
@pytest.mark.parametrize(
    "path,function", [(UNITS, f) for f in CORRECT_UNITS] + [(STEPS, f) for f in CORRECT_STEPS]
)
def test_correct_code_is_proved_at_scale(path, function):
    bound = "8" if path == UNITS else "2"
    # a unit at SEW=64, VLMAX 8 takes one to two minutes per query for some (u_reverse, u_found_flag)
    code, report, _ = check_c(
        f"{path}:{function}", "--vlen", "128,65536", "--symbolic-vlmax", bound, "--timeout", "600"
    )
    assert code == 0 and report["verdict"] == "PROVED", report["detail"]


@pytest.mark.check_c_scale
@pytest.mark.parametrize(
    "path,function", [(UNITS, f) for f in BUGGY_UNITS] + [(STEPS, f) for f in BUGGY_STEPS]
)
def test_buggy_code_is_a_counterexample_everywhere(path, function):
    code, report, _ = check_c(f"{path}:{function}", "--symbolic-vlmax", "0")
    assert code == 1 and report["verdict"] == "COUNTEREXAMPLE"


@pytest.mark.check_c_scale
@needs_angr
@pytest.mark.parametrize(
    "target,verdict",
    [
        ("examples/c/unit.c:reduce", "PROVED"),
        ("examples/c/unit.c:reduce_unsigned", "COUNTEREXAMPLE"),
        ("examples/c/step.c:step", "PROVED"),
        ("examples/c/step.c:step_vl0", "COUNTEREXAMPLE"),
    ],
)
def test_examples(target, verdict):
    code, report, _ = check_c(target, "--vlen", "128,4096", "--symbolic-vlmax", "2", "--sew", "64")
    assert report["verdict"] == verdict, report["detail"]


@pytest.mark.check_c_scale
@needs_angr
@pytest.mark.parametrize("function", sorted(set(BUGGY_STEPS) - set(UNDEFINED) - {"bug_no_elen"}))  # ELEN=32's
def test_the_symbolic_method_alone_finds_each_buggy_step(function, tmp_path):
    """Without the concrete runs: the first instruction word refuted at SEW=32, VLMAX=2 gives a
    case on which the compiled code fails again (a read past the register file is the
    sanitizer's to find: angr's memory has bytes there, and the value is right)."""
    built = build(STEPS, function, (), str(tmp_path))
    cfg = Config(128, 64, 32, "mf2")
    python = symbolic.engine_python()
    for fields in STEP_WORDS:
        result, case = symbolic.prove_step(python, built.plain, cfg, 600, step_solver("auto"), fields)
        if result.verdict != Verdict.PROVED:
            break
    assert result.verdict == Verdict.COUNTEREXAMPLE, result.detail
    assert concrete.replay(built, cfg, *case).differing
