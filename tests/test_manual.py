"""The manual page (docs/vredmax.vs.md, .html), its trace, its formulas and `vredmax explain`.

The page is rendered from a small proof document (one configuration, two claims: a few
seconds), so these tests run in the default suite; test_report.py checks the committed files.
"""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import given, settings

from vredmax.cli import cmd_report
from vredmax.impl.case import parse_case
from vredmax.cli.main import main
from vredmax.impl.execute import execute
from vredmax.impl.trace import trace
from vredmax.presentation.documents import manual
from vredmax.proofs.obligations import catalogue as obligations
from vredmax.proofs.claims.claims import CLAIMS_BY_ID
from vredmax.presentation.documents.manual import animation, content
from vredmax.presentation.documents.manual.blocks import inline_html, parse_markdown, Heading, Items, Table
from vredmax.presentation.documents.manual.formulas import human
from vredmax.presentation.documents.report import collect
from vredmax.spec.bv import Concrete
from vredmax.spec.config import Config
from vredmax.spec.legality import RULES
from tests.strategies import cases

# Under pytest-xdist (--dist loadgroup) test_report, test_manual and test_browser run on one
# worker: each collects the same small document, proved once there.
pytestmark = pytest.mark.xdist_group("documents")

TINY = [Config(128, 64, 64, "m1")]
TINY_CLAIMS = ["vredmax.wrong.masked_count_as_zero", "vredmax.wrong.vma_changes_result"]


@pytest.fixture(scope="session")
def doc():
    return collect(TINY, claims=[CLAIMS_BY_ID[c] for c in TINY_CLAIMS])


@pytest.fixture(scope="session")
def files(doc):
    return manual.render(doc)


# The trace ----------------------------------------------------------------------------------


def test_seed_example_trace():
    """The seed document's animation: masked lane 5 holds the largest value and must not win."""
    run = content.run_case(content.SEED_CASE)
    assert [lane.value for lane in run.lanes] == [
        0x0004,
        0xFFFD,
        0x0011,
        0xFFF0,
        0x0007,
        0x0020,
        0x0004,
        0xFFFD,
    ]
    assert [lane.mask for lane in run.lanes] == [True, False, True, True, True, False, True, True]
    assert [lane.acc for lane in run.lanes] == [
        0x0004,
        0x0004,
        0x0011,
        0x0011,
        0x0011,
        0x0011,
        0x0011,
        0x0011,
    ]
    assert run.written == 0x0011 and run.asm == "vredmax.vs v4, v8, v12, v0.t" and run.word == 0x1C862257
    assert not run.lanes[5].active and run.tail_changed == []


@settings(max_examples=60, deadline=None)
@given(cases(vlens=(128, 256)))
def test_trace_agrees_with_execute(case):
    pre, insn, tail = case
    run = trace(pre, insn, tail)
    result = execute(pre, insn, "sequential", tail)
    assert run.result == result
    fired = [check for check in run.checks if check.fired]
    assert (result.outcome != "retired") == bool(fired) and fired == fired[-1:]
    if run.writes:
        sew = run.cfg.sew
        assert run.written == Concrete.extract(result.state.regs[insn.vd], sew - 1, 0) == run.lanes[-1].acc
        assert len(run.lanes) == pre.vl
    else:
        assert run.lanes == () and run.written is None


def test_trace_refuses_a_wrong_running_max(monkeypatch):
    """The trace checks its running maximum against what execute wrote."""
    import vredmax.impl.trace as trace_module

    monkeypatch.setattr(
        trace_module, "running_max", lambda ops, seed, elements, active: iter([seed] * len(elements))
    )
    with pytest.raises(AssertionError, match="running maximum"):
        content.run_case(content.SEED_CASE)


def test_text_form_has_the_lane_table():
    lines = animation.text_lines(content.run_case(content.SEED_CASE))
    text = "\n".join(lines)
    assert "lane  vs2[i]" in text and "running max" in text
    assert re.search(r"^\s+5\s+0x0020\s+32\s+0\s+no\s+0x0011 \(17\)$", text, re.M)
    assert lines[-1] == "vd[0] = v4[0] = 0x0011 (17)"


def test_trap_and_vl0_stop_early():
    trapped = content.run_case({**content.SEED_CASE, "vstart": 1})
    assert trapped.trapped and [c.rule.id for c in trapped.checks][-1] == "vstart_nonzero"
    assert animation.steps(trapped)[-1].title == "Trap: nothing changes"
    idle = content.run_case({**content.SEED_CASE, "vl": 0})
    assert not idle.writes and animation.steps(idle)[-1].title == "vl = 0: no operation"


def test_many_lanes_are_folded():
    case = {
        "vlen": 1024,
        "insn": "vredmax.vs v8, v16, v4",
        "vtype": {"sew": 8, "lmul": "m1"},
        "vl": 100,
        "vregs": {"v16": hex(int.from_bytes(bytes(range(100)), "little"))},
    }
    run = content.run_case(case)
    made = animation.steps(run)
    assert sum(s.title.startswith("Lane ") for s in made) == animation.MAX_LANES
    assert any(s.title == f"Lanes {animation.MAX_LANES} .. 99" for s in made)
    assert run.written == 99


# Formulas for people ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name, prove",
    [
        ("seed_included", "vs1[0] ≤ₛ vd'[0]"),
        ("bounds_active", "for every active i: vs2[i] ≤ₛ vd'[0]"),
        ("result_is_candidate", "vd'[0] = vs1[0] or (for some active i: vs2[i] = vd'[0])"),
        ("tail_agnostic", "tail(vd') = tail(vd) or tail(vd') = all ones"),
        ("success_dirties_vs", "VS' = Dirty"),
        ("lemma.smax_associative", "max(max(a, b), c) = max(a, max(b, c))"),
        ("lemma.smin_is_identity", "max(smin, a) = a and max(a, smin) = a"),
    ],
)
def test_human_formulas(name, prove):
    assert human(obligations.by_name(name))["prove"] == prove


def test_human_assumptions_fold_per_element_conditions():
    formula = human(obligations.by_name("all_masked_writes_seed"))
    assert "for every i: i ≥ vl or not mask[i]" in formula["assume"]
    assert formula["assume"][-1] == "the spec allows the post-state (primed names)"
    assert human(obligations.by_name("vill_traps"))["assume"][0] == "vtype.vill = 1"


def test_no_raw_solver_syntax_in_human_formulas():
    for obligation in obligations.OBLIGATIONS:
        formula = human(obligation)
        text = " ".join(formula["assume"] + [formula["prove"]])
        assert not re.search(r"\b(Extract|If|And|Or|Implies|ULT)\(", text), (obligation.name, text)
        assert "#" not in text, (obligation.name, text)


# The page -------------------------------------------------------------------------------------


def test_rendering_is_deterministic(doc, files):
    assert manual.render(json.loads(json.dumps(doc))) == files
    assert not re.search(r"\d\.\d+ ?s\b", files[manual.MARKDOWN])
    assert not re.search(r"20\d\d-\d\d-\d\d", files[manual.HTML])


def test_every_property_has_a_row_and_each_citation_resolves(doc, files):
    page = files[manual.HTML]
    for prop in doc["properties"]:
        assert f'<tr id="{content.anchor(prop["name"])}">' in page
        assert f'<a id="{content.anchor(prop["name"])}"></a>' in files[manual.MARKDOWN]
    cited = set(re.findall(r'href="#(p-[^"]+)"', page))
    rows = set(re.findall(r'<tr id="(p-[^"]+)"', page))
    assert cited and cited <= rows


def test_citing_an_unknown_property_fails(doc):
    with pytest.raises(KeyError, match="not in the proof catalogue"):
        content.Proofs(doc).cite("no_such_property")


def test_unproved_property_is_shown_as_such(doc):
    broken = json.loads(json.dumps(doc))
    prop = next(p for p in broken["properties"] if p["name"] == "seed_included")
    prop["results"][0]["verdicts"]["spec"] = "UNKNOWN"
    text = manual.render(broken)[manual.MARKDOWN]
    assert "[`seed_included`](#p-seed_included): PROVED ×6, UNKNOWN ×1" in text
    assert "[`vredmax.sew64.seed_included`](#p-seed_included) PROVED ×6, UNKNOWN ×1" in text


def test_self_contained_html(files):
    page = files[manual.HTML]
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:|//)""", page)
    assert "<style>" in page and "<script>" in page and "<svg" in page
    assert "@import" not in page and "url(" not in page


def test_static_page_shows_every_value_and_step(files):
    """Without JavaScript: the final values are in the lane table, the steps are listed."""
    page = files[manual.HTML]
    figure = page[page.index('id="anim-seed"') :]
    figure = figure[: figure.index("</figure>")]
    assert '<details class="all" open>' in figure
    assert figure.count("<li><strong>") == len(animation.steps(content.run_case(content.SEED_CASE)))
    assert re.search(r'<span class="anim-vd0" data-from="\d+">0x0011<small>17</small></span>', figure)
    data = json.loads(
        re.search(r'<script type="application/json" class="anim-data">(.*?)</script>', figure, re.S).group(1)
    )
    assert data[-1]["title"] == "Retire"


def test_controls_are_buttons_with_labels(files):
    figure = files[manual.HTML].split('id="anim-seed"')[1].split("</figure>")[0]
    for act in ("first", "prev", "play", "next", "last"):
        assert re.search(rf'<button type="button" data-act="{act}" aria-label="[^"]+"', figure)
    assert 'aria-live="polite"' in figure


def test_encoding_section_matches_the_encoder(files):
    md = files[manual.MARKDOWN]
    assert "`vredmax.vs v0, v0, v0` | `0x1e002057`" in md
    assert "`vredmax.vs v0, v0, v0, v0.t` | `0x1c002057`" in md
    assert [name for name, _, _ in content.layout()] == [
        "funct6",
        "vm",
        "vs2",
        "vs1",
        "funct3",
        "vd",
        "opcode",
    ]
    assert content.layout()[0][1:] == (31, 26) and content.layout()[-1][1:] == (6, 0)


def test_encoding_check_catches_a_wrong_encoder(monkeypatch):
    monkeypatch.setattr(content, "encode", lambda insn: 0x1E002057 ^ 1 << 12)
    with pytest.raises(AssertionError, match="disagrees with the encoder"):
        content.syntax_section()


def test_exceptions_table_has_every_rule_and_the_profiles(files):
    md = files[manual.MARKDOWN]
    section = md[md.index('<a id="exceptions">') : md.index('<a id="animation">')]
    for rule in RULES:
        condition = content.TRAP_CASES[rule.id][0]
        assert condition.replace("|", "\\|") in section, rule.id
    assert "| `reserved` (differs) | any | illegal | execute | execute |" in section
    assert "| `tail` | any | undisturbed | undisturbed | undisturbed |" in section
    # the v0-overlap row: Sail traps it, Spike and QEMU execute it
    row = next(line for line in section.splitlines() if line.startswith("| vm = 0 and vs1 = v0"))
    assert "| **reserved** |" in row and "| anything | illegal-instruction | retired | retired |" in row


def test_pitfalls_are_animated_counterexamples(doc, files):
    page = files[manual.HTML]
    refuted_with_case = CLAIMS_BY_ID[TINY_CLAIMS[0]]
    assert f'id="anim-{content.claim_anchor(refuted_with_case.id)}"' in page
    claim = doc["claims"][0]
    run = content.run_case(claim["counterexample"]["case"])
    assert run.written == claim["counterexample"]["spec"]["vd[0]"]["unsigned"]
    assert "the solver proved that no state meets the claim" in files[manual.MARKDOWN]


def test_worked_examples_come_from_the_model(files):
    md = files[manual.MARKDOWN]
    assert "Model: retired, **v8[0] = 0x03 (3)**" in md  # signed, not 0xfe
    assert "Model: retired, **v8[0] = 0xff85 (-123)**" in md  # all masked off: the seed
    assert "Model: retired, vl=0: no elements, nothing is written; v8 stays `0x1234`." in md
    assert "Model: **illegal-instruction**" in md


def test_markdown_subset_parser():
    blocks = parse_markdown(
        "### A title\n\nSome *text* here\ncontinued.\n\n1. one\n   more\n2. two\n\n"
        "| a | b |\n|---|---|\n| 1 | 2 |\n"
    )
    assert isinstance(blocks[0], Heading) and blocks[0].level == 3 and blocks[0].anchor == "a-title"
    assert blocks[1].text == "Some *text* here continued."
    assert isinstance(blocks[2], Items) and blocks[2].items == ["one more", "two"] and blocks[2].ordered
    assert isinstance(blocks[3], Table) and blocks[3].rows == [["1", "2"]]
    assert (
        inline_html("a `<b>` **c** *d* [e](#f)")
        == 'a <code>&lt;b&gt;</code> <strong>c</strong> <em>d</em> <a href="#f">e</a>'
    )


# report and explain -----------------------------------------------------------------------------


def test_report_writes_and_checks_the_manual(tmp_path, monkeypatch, capsys, doc):
    monkeypatch.setattr(cmd_report, "collect", lambda *args, **kwargs: doc)
    out = tmp_path / "docs"
    assert main(["report", "--out-dir", str(out)]) == 0
    for name, text in manual.render(doc).items():
        assert (out / name).read_text(encoding="utf-8") == text
    assert main(["report", "--out-dir", str(out), "--check"]) == 0
    page = out / manual.HTML
    page.write_text(page.read_text().replace("0x0011", "0x0012"))
    capsys.readouterr()
    assert main(["report", "--out-dir", str(out), "--check"]) == 1
    assert f"{page}: out of date" in capsys.readouterr().out


def test_explain_prints_the_steps(tmp_path, capsys):
    path = tmp_path / "case.json"
    path.write_text(json.dumps(content.SEED_CASE))
    assert main(["explain", str(path)]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0] == "vredmax.vs v4, v8, v12, v0.t    (0x1c862257)"
    assert "Write vd[0]: v4[0] = acc = 0x0011 (17)" in out and "running max" in out


def test_explain_html(tmp_path, capsys):
    path, page = tmp_path / "case.json", tmp_path / "case.html"
    path.write_text(json.dumps(content.SEED_CASE))
    assert main(["explain", str(path), "--html", str(page)]) == 0
    text = page.read_text(encoding="utf-8")
    assert 'id="anim-case"' in text and "0x0011<small>17</small>" in text
    assert f"wrote {page}" in capsys.readouterr().out


@pytest.mark.parametrize(
    "case, message",
    [
        ({"vlen": 128}, "vredmax: error: insn: missing\n"),
        (
            {**content.SEED_CASE, "vl": 300},
            "vredmax: error: vl: must be 0..256 (VLMAX=256 for SEW=16 LMUL=m1), got 300\n",
        ),
        ("not json", "vredmax: error: case: malformed JSON: Expecting value at line 1 column 1\n"),
    ],
)
def test_explain_bad_input(tmp_path, capsys, case, message):
    path = tmp_path / "case.json"
    path.write_text(case if isinstance(case, str) else json.dumps(case))
    assert main(["explain", str(path)]) == 2
    captured = capsys.readouterr()
    assert captured.err == message and captured.out == ""


def test_explain_html_into_a_directory_is_bad_input(tmp_path, capsys):
    path = tmp_path / "case.json"
    path.write_text(json.dumps(content.SEED_CASE))
    assert main(["explain", str(path), "--html", str(tmp_path)]) == 2
    assert capsys.readouterr().err == f"vredmax: error: --html-out: {tmp_path} is a directory\n"


def test_case_page_for_a_trap(tmp_path):
    pre, insn, tail = parse_case({**content.SEED_CASE, "vstart": 2})
    page = manual.case_page(trace(pre, insn, tail))
    assert "✗ vstart ≠ 0: illegal-instruction" in page and '<table class="lanes">' not in page


def test_explain_max_rows(tmp_path, capsys):
    case = {
        "vlen": 1024,
        "insn": "vredmax.vs v8, v16, v4",
        "vtype": {"sew": 8, "lmul": "m2"},
        "vl": 200,
        "vregs": {"v17": hex(0x55 << 8 * 70)},
    }
    path = tmp_path / "case.json"
    path.write_text(json.dumps(case))
    assert main(["explain", str(path), "--max-rows", "5"]) == 0
    out = capsys.readouterr().out
    assert (
        "... 195 more lanes (195 active; raise --max-rows to see them), running max after lane 199: "
        "0x55 (85)" in out
    )
    assert out.splitlines()[-1] == "vd[0] = v8[0] = 0x55 (85)"
    assert main(["explain", str(path), "--max-rows", "-1"]) == 2
    assert capsys.readouterr().err == "vredmax: error: --max-rows: must be an integer 0 or more, got '-1'\n"


def test_every_cited_property_is_in_the_catalogue():
    """A renamed or removed property fails here, not in `vredmax report`."""
    names = {o.name for o in obligations.OBLIGATIONS}
    cited = [n for _, ns in content.BEHAVIOUR for n in ns] + [n for _, _, ns in content.FAQ for n in ns]
    cited += [n for _, ns in content.CHECKLIST for n in ns] + [
        n for _, _, ns in content.TRAP_CASES.values() for n in ns
    ]
    assert set(cited) <= names, set(cited) - names
    assert {rule.id for rule in RULES} == set(content.TRAP_CASES)


def test_usage_snippets_assemble_to_our_encoding(tmp_path):
    """The assembly on the page is accepted by GNU as, and its vredmax.vs words are the encoder's."""
    import subprocess
    from tests.conftest import GNU_TOOLS, require_tools
    from vredmax.spec.encoding import encode, parse_asm

    require_tools(*GNU_TOOLS)
    source = tmp_path / "usage.s"
    source.write_text(content.STRIP_LOOP + "\n" + content.MASKED_SNIPPET + "\n")
    subprocess.run(
        ["riscv64-linux-gnu-as", "-march=rv64gcv", str(source), "-o", str(tmp_path / "usage.o")],
        check=True,
        capture_output=True,
    )
    listing = subprocess.run(
        ["riscv64-linux-gnu-objdump", "-d", str(tmp_path / "usage.o")],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    words = [int(line.split()[1], 16) for line in listing.splitlines() if "\tvredmax.vs" in line]
    expected = [
        encode(parse_asm(line.strip()))
        for line in (content.STRIP_LOOP + "\n" + content.MASKED_SNIPPET).splitlines()
        if line.strip().startswith("vredmax.vs")
    ]
    assert words == expected and len(words) == 2


def test_reserved_is_no_promise_with_the_profiles():
    run = content.run_case(
        {"vlen": 128, "insn": "vredmax.vs v8, v0, v4, v0.t", "vtype": {"sew": 8, "lmul": "m1"}, "vl": 3}
    )
    last = animation.steps(run)[-1]
    assert last.title == "Reserved: no promise"
    assert "(sail: illegal-instruction; spike: executes; qemu: executes)" in last.text


def test_counterexample_values_read_as_words():
    assert content._observed("traps", True) == "it traps"
    assert content._observed("vs", {"hex": "0x3", "unsigned": 3, "signed": -1}) == "mstatus.VS = Dirty"
    assert content._observed("vd[0]", {"hex": "0xff", "unsigned": 255, "signed": -1}) == "vd[0] = `0xff` (-1)"
