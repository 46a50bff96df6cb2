"""check-impl on generated implementations (tests/generated/python_programs.py): the generator
is honest (a correct program it writes agrees with the spec on concrete states, a mutant it
keeps does not), and the regression corpus (tests/generated/corpus.json) keeps its verdicts:
a program PROVED when recorded stays PROVED, a wrong one caught stays caught, and no wrong one
is ever PROVED. The corpus's `default` tier (VLMAX 16) runs here; its `scale` tier (VLMAX
1024, the bench's configurations) with -m check_impl_scale."""

import os
import random
import tempfile

import pytest
from hypothesis import HealthCheck, given, settings

from tests.generated.corpus import CORPUS_DIR, entries, program_of
from tests.generated.python_programs import (
    INSTRUCTION,
    UNIT,
    Program,
    RandomChooser,
    applicable,
    check,
    checked_correct,
    concrete_difference,
    draw_program,
    kept_mutants,
    mutant,
    programs,
)
from vredmax.spec.config import Config

CHEAP = dict(vlmax=16, max_vlen=128)


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(programs(UNIT, **CHEAP))
def test_a_generated_correct_unit_agrees_with_the_spec(program):
    with tempfile.TemporaryDirectory() as folder:
        checked_correct(program, folder, count=40)


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(programs(INSTRUCTION, **CHEAP))
def test_a_generated_correct_step_agrees_with_the_spec(program):
    with tempfile.TemporaryDirectory() as folder:
        checked_correct(program, folder, count=40)


def test_every_mutation_is_kept_somewhere_and_only_when_shown_wrong(tmp_path):
    """Across a few seeds every kind of bug is written and kept; each kept mutant differs from
    the spec on a concrete state (and its correct program does not)."""
    kept = set()
    for index in range(6):
        kind = (UNIT, INSTRUCTION)[index % 2]
        rng = random.Random(f"mutations/{index}")
        program = checked_correct(
            draw_program(RandomChooser(rng), kind, name=f"m{index}_{kind[0]}", **CHEAP),
            str(tmp_path),
            count=20,
        )
        for wrong in kept_mutants(program, str(tmp_path), rng, count=20):
            assert concrete_difference(wrong, 20) is not None
            kept.add(wrong.mutation)
    assert {
        "unsigned",
        "seed_dropped",
        "mask_inverted",
        "drop_last",
        "min",
        "lane_width",
        "vl_inclusive",
        "mask_from_v1",
        "vl0_writes",
        "tail_ignores_vta",
        "vs_clean",
    } <= kept


def test_a_mutant_the_states_do_not_show_is_dropped(tmp_path):
    """A mutation that changes nothing on this recipe (the neutral element of a loop that skips
    inactive lanes and starts from the seed) is not kept as a wrong program."""
    recipe = {
        "kind": UNIT,
        "domain": "signed",
        "conv": "ternary",
        "neutral": "shift",
        "back": "mask",
        "shape": "loop",
        "inactive": "skip",
        "pick": "if",
        "order": "forward",
        "early": "none",
        "seed": "init",
        "mask": "bools",
    }
    cfg = Config(128, 64, 8, "m1")
    from tests.generated.python_programs import write_source

    program = Program(UNIT, "neutral_unused", recipe, cfg, None, write_source(recipe, cfg, None))
    checked_correct(program, str(tmp_path), count=20)
    assert "neutral_zero" not in applicable(program)
    unused = mutant(program, "neutral_zero")
    unused.write(str(tmp_path))
    assert concrete_difference(unused, 60) is None


def _corpus(tier):
    for entry in entries():
        if entry["tier"] != tier:
            continue
        marks = [pytest.mark.check_impl_scale] if tier == "scale" else []
        yield pytest.param(entry, marks=marks, id=entry["file"])


def _expect_kept(entry):
    # a gap may be a run past the per-call limit: checked in a child process, with the limit
    verdict = check(program_of(entry), timeout_s=60, in_process=entry["expect"] != "gap").verdict
    assert verdict != "PROVED" or entry["correct"], f"a wrong program PROVED: {entry['file']}"
    assert verdict != "COUNTEREXAMPLE" or not entry["correct"], f"a correct program refuted: {entry['file']}"
    # a known gap only must not get worse (`python -m tests.generated.corpus --refresh-gaps`
    # keeps one that now gets a kept verdict)
    assert entry["expect"] == "gap" or verdict == entry["expect"], (
        f"{entry['file']} ({' '.join(entry['idioms'])}): {entry['recorded']} when recorded, {verdict} now"
    )


@pytest.mark.parametrize("entry", list(_corpus("default")))
def test_the_corpus_keeps_its_verdicts(entry):
    _expect_kept(entry)


@pytest.mark.parametrize("entry", list(_corpus("scale")))
def test_the_corpus_keeps_its_verdicts_at_vlmax_1024(entry):
    _expect_kept(entry)


def test_the_corpus_has_both_kinds_right_and_wrong():
    default = [e for e in entries() if e["tier"] == "default"]
    assert {(e["kind"], e["correct"]) for e in default} == {
        (UNIT, True),
        (UNIT, False),
        (INSTRUCTION, True),
        (INSTRUCTION, False),
    }
    assert 16 <= len(default) <= 40
    assert all(os.path.exists(os.path.join(CORPUS_DIR, e["file"])) for e in entries())
    assert not [e for e in entries() if not e["correct"] and e["recorded"] == "PROVED"]
