"""What the manual page says, as blocks (presentation/documents/manual/blocks.py), built from the proof
document (proofs/report.collect), the encoder, the trap rules, the implementation profiles
and the executable model.

Every value shown in an example is computed here by running the case through the model
(impl/trace.py); every behaviour sentence cites the properties that prove it, with their
verdicts taken from the document. A sentence whose property is not PROVED says so.
"""

from __future__ import annotations

import json

from vredmax.impl.case import parse_case
from vredmax.impl.trace import Trace, trace
from vredmax.presentation.documents.manual import animation
from vredmax.presentation.documents.manual.blocks import (
    Code,
    Details,
    Heading,
    Items,
    Para,
    Raw,
    Table,
    parse_markdown,
    slug,
)
from vredmax.spec import profiles
from vredmax.spec.encoding import (
    FUNCT3_OPMVV,
    FUNCT6_VREDMAX,
    OPCODE_OP_V,
    REDUCTIONS,
    Insn,
    decode,
    describe_fields,
    encode,
    format_asm,
    parse_asm,
)
from vredmax.spec.config import LMUL_NAMES
from vredmax.spec.legality import RULES
from vredmax.spec.state import VS_NAMES

TITLE = "VREDMAX.VS: vector signed maximum reduction"
SUMMARY = (
    "With vl > 0, `vredmax.vs` reduces the seed `vs1[0]` and the active elements of the `vs2` "
    "group by **signed** maximum and writes the result to `vd[0]`; the rest of `vd` is tail."
)

# The seed document's animation: VLEN=4096, SEW=16, LMUL=1, v4 <- max(v12[0], v8 under v0.t).
SEED_CASE = {
    "vlen": 4096,
    "insn": "vredmax.vs v4, v8, v12, v0.t",
    "vtype": {"sew": 16, "lmul": "m1"},
    "vl": 8,
    "vregs": {
        "v0": "0b11011101",
        "v12": "0xfff8",
        "v8": "0x" + "".join(reversed(["0004", "fffd", "0011", "fff0", "0007", "0020", "0004", "fffd"])),
    },
}


def run_case(case: dict) -> Trace:
    pre, insn, tail = parse_case(case)
    return trace(pre, insn, tail)


# Property citations ---------------------------------------------------------------------------


class Proofs:
    """The proof document's properties by name, and how to cite them."""

    def __init__(self, doc: dict):
        self.doc = doc
        self.by_name = {p["name"]: p for p in doc["properties"]}
        self.cited: set = set()

    def verdicts(self, name: str) -> list[str]:
        return [v for e in self.by_name[name]["results"] for v in e["verdicts"].values()]

    def proved(self, name: str) -> bool:
        verdicts = self.verdicts(name)
        return bool(verdicts) and all(v == "PROVED" for v in verdicts)

    def certified(self, name: str) -> int | None:
        """How many of its verdicts the certificate route certified (None: not run)."""
        if not self.doc.get("certification"):
            return None
        return sum(c for e in self.by_name[name]["results"] for c in e.get("certified", {}).values())

    def status(self, name: str) -> str:
        verdicts = self.verdicts(name)
        if not verdicts:
            return "not run at these configurations"
        if self.proved(name):
            certified = self.certified(name)
            if certified is None:
                return f"PROVED ×{len(verdicts)}"
            if certified == len(verdicts):
                return f"CERTIFIED ×{len(verdicts)}"
            return f"PROVED ×{len(verdicts)}, {certified} of them CERTIFIED"
        counts = {v: verdicts.count(v) for v in sorted(set(verdicts))}
        return ", ".join(f"{v} ×{n}" for v, n in counts.items())

    def cite(self, *names: str) -> str:
        """`[seed_included](#p-seed_included): PROVED ×161; ...`"""
        out = []
        for name in names:
            if name not in self.by_name:
                raise KeyError(f"the manual cites {name!r}, which is not in the proof catalogue")
            self.cited.add(name)
            out.append(f"[`{name}`](#{anchor(name)}): {self.status(name)}")
        return "; ".join(out)

    def ids(self, name: str) -> str:
        """`vredmax.sew{8,16}.name`: the property's IDs, one per SEW."""
        ids = self.by_name[name]["ids"]
        if not ids:
            return name
        sews = [i.split(".")[1][3:] for i in ids]
        if len(ids) > 1 and all(i == f"vredmax.sew{sew}.{name}" for i, sew in zip(ids, sews)):
            return f"vredmax.sew{{{','.join(sews)}}}.{name}"
        return ", ".join(ids)

    def bounds(self, name: str) -> str:
        """Where it was proved: `23 configurations: VLEN 128, 4096; SEW 8..64; LMUL mf8..m8`."""
        configs = [
            dict(part.split("=") for part in e["config"].split()) for e in self.by_name[name]["results"]
        ]
        if not configs:
            return "no configuration"
        if self.by_name[name]["kind"] == "lemma":
            return f"SEW {', '.join(sorted({c['SEW'] for c in configs}, key=int))}, every bit pattern"
        distinct = len({tuple(sorted(c.items())) for c in configs})
        values = {
            key: sorted({c[key] for c in configs}, key=lambda v: (len(v), v)) for key in ("VLEN", "SEW")
        }
        lmuls = [lmul for lmul in LMUL_NAMES if any(c["LMUL"] == lmul for c in configs)]
        return (
            f"{distinct} configuration{'s' * (distinct != 1)}: VLEN {', '.join(values['VLEN'])}; "
            f"SEW {', '.join(values['SEW'])}; LMUL {', '.join(lmuls)}"
        )

    def where(self, name: str) -> str:
        """The bounds, or "every configuration" when the property was proved at all of them."""
        configs = {e["config"] for e in self.by_name[name]["results"]}
        if self.by_name[name]["kind"] != "lemma" and len(configs) == len(self.doc["configurations"]):
            return f"every configuration ({len(configs)})"
        return self.bounds(name)

    def line(self, name: str) -> str:
        """A link with the IDs, the verdicts, and the bounds when they are not every configuration."""
        self.cited.add(name)
        where = self.where(name)
        where = "" if where.startswith("every configuration") or not self.verdicts(name) else f" ({where})"
        return f"[`{self.ids(name)}`](#{anchor(name)}) {self.status(name)}{where}"


def subjects_text(subjects: list[str]) -> str:
    """`spec; sequential, tree, lanes × undisturbed, ones` when the runs form a product."""
    plain = [s for s in subjects if "/" not in s]
    runs = [s.split("/") for s in subjects if "/" in s]
    algorithms = list(dict.fromkeys(a for a, _ in runs))
    tails = list(dict.fromkeys(t for _, t in runs))
    if runs and len(runs) == len(algorithms) * len(tails):
        return "; ".join(plain + [f"{', '.join(algorithms)} × {', '.join(tails)}"])
    return ", ".join(subjects)


def anchor(name: str) -> str:
    return "p-" + name.replace(".", "-")


def claim_anchor(claim_id: str) -> str:
    return "c-" + claim_id.rsplit(".", 1)[-1]


# The page -------------------------------------------------------------------------------------


def page(doc: dict) -> list:
    proofs = Proofs(doc)
    blocks = [Heading(1, TITLE, "top"), Para(SUMMARY, "lead"), _status(doc)]
    blocks += syntax_section()
    blocks += operands_section()
    blocks += behaviour_section(proofs)
    blocks += exceptions_section(proofs)
    blocks += animation_section()
    blocks += examples_section()
    blocks += scenarios_section()
    blocks += checklist_section(proofs)
    blocks += pitfalls_section(doc)
    blocks += faq_section(proofs)
    blocks += appendix_section(doc, proofs)
    return blocks


def obligation_lines(doc: dict) -> int:
    """How many lines `vredmax prove` prints for the document's proofs (one per property and
    configuration; the summary counts one per subject too)."""
    return sum(len(p["results"]) for p in doc["properties"])


def _status(doc: dict) -> Para:
    s = doc["summary"]
    return Para(
        f"Generated by `vredmax report` from the executable model and the proofs (do not edit; "
        f"`vredmax report --check` fails when it is stale). **{s['proved']} proofs PROVED, "
        f"{s['counterexamples']} counterexamples, {s['unknown']} unknown, {s['errors']} errors; "
        f"{s['claims_refuted']} of {s['claims']} wrong assumptions refuted.** "
        f"(A proof is one property at one configuration of one subject, the spec or an algorithm; "
        f"`vredmax prove` shows the same proofs as {obligation_lines(doc)} obligation lines, one per "
        "property and configuration.) "
        "Every example below was run through the executable model (the code `vredmax exec` runs).",
        "status",
    )


# Syntax and encoding ----------------------------------------------------------------------------

ENCODING_EXAMPLES = (
    Insn(vd=0, vs2=0, vs1=0, vm=1),
    Insn(vd=0, vs2=0, vs1=0, vm=0),
    Insn(vd=4, vs2=8, vs1=12, vm=0),
    Insn(vd=8, vs2=12, vs1=4, vm=1),
)


def layout() -> list[tuple[str, int, int]]:
    """(field, hi, lo) from spec/encoding.describe_fields, checked to tile the 32 bits."""
    fields, hi = [], 31
    for name, bits, _ in describe_fields(0):
        fields.append((name, hi, hi - len(bits) + 1))
        hi -= len(bits)
    if hi != -1:
        raise AssertionError("encoding: the fields do not cover the 32-bit word")
    return fields


def checked_word(insn: Insn) -> int:
    """The encoder's word, checked against the layout, the decoder and the assembler."""
    word = encode(insn)
    values = {
        "funct6": FUNCT6_VREDMAX,
        "vm": insn.vm,
        "vs2": insn.vs2,
        "vs1": insn.vs1,
        "funct3": FUNCT3_OPMVV,
        "vd": insn.vd,
        "opcode": OPCODE_OP_V,
    }
    rebuilt = sum(values[name] << lo for name, _, lo in layout())
    if rebuilt != word or decode(word) != insn or parse_asm(format_asm(insn)) != insn:
        raise AssertionError(f"encoding: the diagram disagrees with the encoder for {format_asm(insn)}")
    return word


# The diagram in one row of 32 bits, and for narrow screens (a phone) in two rows that split
# at a field boundary, with larger text: page.css shows one of them.
WIDE_ROWS = (("funct6", "vm", "vs2", "vs1", "funct3", "vd", "opcode"),)
NARROW_ROWS = (("funct6", "vm", "vs2"), ("vs1", "funct3", "vd", "opcode"))


def encoding_svg(rows=WIDE_ROWS, css: str = "wide") -> str:
    narrow = len(rows) > 1
    unit, top, height, gap = (30, 22, 56, 30) if narrow else (24, 18, 46, 22)
    sizes = ("14px", "17px", "14px") if narrow else ("10px", "13px", "11px")  # bit numbers, values, names
    fields = {name: (hi, lo) for name, hi, lo in layout()}
    bits = [sum(fields[name][0] - fields[name][1] + 1 for name in row) for row in rows]
    width = max(bits) * unit
    row_height = top + height + 8
    total = row_height * len(rows) + gap
    meaning = {
        "funct6": "000111",
        "vm": "vm",
        "vs2": "vs2",
        "vs1": "vs1",
        "funct3": "010",
        "vd": "vd",
        "opcode": "1010111",
    }
    title_id = f"enc-title-{css}"
    parts = [
        f'<svg class="encsvg {css}" viewBox="0 0 {width + 2} {total}" role="img" '
        f'aria-labelledby="{title_id}"><title id="{title_id}">vredmax.vs encoding: funct6=000111 (31:26), '
        "vm (25), vs2 (24:20), vs1 (19:15), funct3=010 (14:12), vd (11:7), opcode=1010111 (6:0)</title>"
    ]
    for k, row in enumerate(rows):
        y, first_hi = k * row_height + top, fields[row[0]][0]
        for name in row:
            hi, lo = fields[name]
            x = (first_hi - hi) * unit + 1
            w = (hi - lo + 1) * unit
            fixed = name in ("funct6", "funct3", "opcode")
            parts.append(
                f'<rect x="{x}" y="{y}" width="{w}" height="{height}" class="{"fixed" if fixed else "var"}"/>'
            )
            parts.append(f'<text x="{x + 3}" y="{y - 5}" class="bitno" font-size="{sizes[0]}">{hi}</text>')
            if lo != hi:
                parts.append(
                    f'<text x="{x + w - 3}" y="{y - 5}" class="bitno" font-size="{sizes[0]}" '
                    f'text-anchor="end">{lo}</text>'
                )
            parts.append(
                f'<text x="{x + w / 2}" y="{y + height * 0.45}" class="fval" font-size="{sizes[1]}" '
                f'text-anchor="middle">{meaning[name]}</text>'
            )
            parts.append(
                f'<text x="{x + w / 2}" y="{y + height * 0.82}" class="fname" font-size="{sizes[2]}" '
                f'text-anchor="middle">{name}</text>'
            )
    caption = (
        "OP-V, OPMVV (funct3=010)"
        if narrow
        else (
            "OP-V major opcode, OPMVV (funct3=010): the integer reductions and other vector-vector operations"
        )
    )
    parts.append(f'<text x="1" y="{total - 8}" class="bitno" font-size="{sizes[0]}">{caption}</text>')
    parts.append("</svg>")
    return "".join(parts)


def encoding_text() -> str:
    """The same diagram as text, for the Markdown page."""
    label = {"funct6": "000111", "funct3": "010", "opcode": "1010111"}
    cells = [(label.get(name, name), hi, lo) for name, hi, lo in layout()]
    widths = [max(len(text), len(f"{hi} {lo}") if hi != lo else len(str(hi))) + 2 for text, hi, lo in cells]
    numbers = "".join(
        (f"{hi}".ljust(w - len(str(lo))) + f"{lo}" if hi != lo else f"{hi}".center(w)) + " "
        for (_, hi, lo), w in zip(cells, widths)
    )
    rule = "+" + "+".join("-" * w for w in widths) + "+"
    body = "|" + "|".join(text.center(w) for (text, _, _), w in zip(cells, widths)) + "|"
    return "\n".join([" " + numbers.rstrip(), rule, body, rule])


def syntax_section() -> list:
    rows = [
        [
            f"`{format_asm(insn)}`",
            f"`{checked_word(insn):#010x}`",
            " ".join(f"{name}={bits}" for name, bits, _ in describe_fields(encode(insn))),
        ]
        for insn in ENCODING_EXAMPLES
    ]
    field_rows = [
        [f"`{name}`", f"{hi}:{lo}" if hi != lo else str(hi), _FIELD_ROLE[name]] for name, hi, lo in layout()
    ]
    siblings = [
        [f"`{funct6:06b}`", f"`{name}`" + (" (this page)" if funct6 == FUNCT6_VREDMAX else "")]
        for funct6, name in sorted(REDUCTIONS.items())
    ]
    return [
        Heading(2, "Syntax and encoding", "syntax"),
        Code(
            "vredmax.vs vd, vs2, vs1          # vm=1: unmasked\nvredmax.vs vd, vs2, vs1, v0.t    # vm=0: masked by v0"
        ),
        Raw(encoding_svg() + encoding_svg(NARROW_ROWS, "narrow"), f"```text\n{encoding_text()}\n```"),
        Table(["field", "bits", "meaning"], field_rows),
        Para(
            "Encodings produced by the project's encoder, each checked here against the diagram, the "
            "decoder and the assembler (and in the test suite against GNU `as`/`objdump`):"
        ),
        Table(["assembly", "word", "fields"], rows),
        Details(
            "The OPMVV single-width integer reductions (funct6)",
            [
                Para(
                    "They share the encoding and differ in funct6. `vredmaxu.vs` is the unsigned maximum: "
                    "the same except for the comparison."
                ),
                Table(["funct6", "instruction"], siblings),
            ],
        ),
    ]


_FIELD_ROLE = {
    "funct6": "000111: vredmax",
    "vm": "1: unmasked; 0: masked, v0.t supplies the mask (bit i of v0 for element i)",
    "vs2": "the vector operand: a register group of EMUL = LMUL registers",
    "vs1": "the seed: element 0 of this one register",
    "funct3": "010: OPMVV",
    "vd": "the destination: element 0 of this one register",
    "opcode": "1010111: OP-V",
}


def operands_section() -> list:
    return [
        Heading(2, "Operands", "operands"),
        Table(
            ["operand", "what is read or written", "width", "registers"],
            [
                [
                    "`vs2`",
                    "elements 0 .. vl-1, those active take part",
                    "SEW each",
                    "a group of LMUL registers starting at vs2 (one register for fractional LMUL)",
                ],
                ["`vs1`", "element 0 only: the seed", "SEW", "one register, whatever LMUL is"],
                [
                    "`v0.t`",
                    "mask bits 0 .. vl-1 (bit i for element i), only when vm=0",
                    "1 bit per element",
                    "v0",
                ],
                [
                    "`vd`",
                    "element 0 receives the result; elements 1 .. VLEN/SEW-1 are the tail",
                    "SEW",
                    "one register, whatever LMUL is",
                ],
            ],
        ),
        Para(
            "CSRs read: `vtype` (SEW, LMUL, vta; vma has no effect), `vl`, `vstart` (must be 0), "
            "`mstatus.VS` (must not be Off). Element i of the vs2 group is element i mod (VLEN/SEW) of "
            "register vs2 + i / (VLEN/SEW). **Active** element: i < vl and (vm=1 or mask bit i is 1)."
        ),
    ]


# Behaviour ------------------------------------------------------------------------------------

BEHAVIOUR = (
    (
        "The result is the **signed** (two's-complement) maximum of the seed `vs1[0]` and every active "
        "element of `vs2`: at least each of them, and equal to one of them.",
        ("seed_included", "bounds_active", "result_is_candidate"),
    ),
    (
        "Element i is active when i < vl and, for a masked instruction (vm=0), bit i of v0 is 1. Masked-off "
        "elements and elements at or past vl take no part: their values cannot change the result.",
        ("masked_ignored", "past_vl_ignored", "lemma.masked_off_is_inactive", "lemma.past_vl_is_inactive"),
    ),
    (
        "The seed always takes part, whatever the mask. With vl > 0 and every element masked off, `vd[0]` "
        "becomes the seed, which differs from vl = 0.",
        ("seed_included", "all_masked_writes_seed", "all_masked_differs_from_vl0"),
    ),
    (
        "The order of the elements does not matter, and raising the seed or an element never lowers the "
        "result.",
        ("order_independent", "monotone"),
    ),
    (
        "vl = 0 is no operation: no element of vd is written (not even an agnostic tail), the seed is not "
        "copied, and no register, vtype, vl or vstart changes (mstatus.VS may turn Dirty from Initial or Clean: "
        "RVV 1.0 allows that at any time).",
        ("vl0_preserves_vd", "vl0_changes_nothing"),
    ),
    (
        "Only element 0 of vd receives the result. Elements 1 .. VLEN/SEW-1 of that one register are the "
        "tail: with vta=0 they keep their values; with vta=1 each keeps its value or becomes all ones.",
        ("tail_undisturbed", "tail_agnostic"),
    ),
    ("vma has no effect: vd[0] is never a masked-off element.", ("vma_irrelevant",)),
    (
        "No vector register other than vd changes. After a legal instruction vstart is 0 and vtype and vl "
        "are unchanged; with vl > 0 mstatus.VS becomes Dirty. Where vd is not written, VS keeps its value or "
        "turns Dirty from Initial or Clean; Off stays Off.",
        (
            "frame",
            "legal_retires",
            "success_resets_vstart",
            "success_keeps_vl_vtype",
            "success_dirties_vs",
            "vs_kept_or_dirty",
        ),
    ),
    (
        "Sources are read before vd is written: vd may overlap the vs2 group, vs1 or v0. With vs1 = vs2 "
        "the seed is vs2[0], read from the same register.",
        ("overlap_vd_vs2", "overlap_vd_vs1", "overlap_vd_v0", "vs1_equals_vs2"),
    ),
    (
        "With LMUL > 1 every register of the vs2 group is read; with fractional LMUL vl reaches "
        "VLMAX = LMUL·VLEN/SEW inside the one register vs2.",
        ("group_reads_every_register", "fractional_vlmax"),
    ),
    (
        "The three algorithms (sequential as in Sail and Spike, a reduction tree padded with the signed "
        "minimum, a multi-lane unit) meet the specification and agree with each other.",
        ("refines_spec", "algorithms_agree"),
    ),
    (
        "The specification allows an outcome for every pre-state, and two allowed outcomes differ at most "
        "in agnostic tail elements (reserved encodings excepted).",
        ("spec_total", "spec_deterministic"),
    ),
    (
        "A nonzero vstart, vtype.vill = 1 or mstatus.VS = Off raise an illegal-instruction exception and "
        "change no register, vtype, vl or vstart, even when vl = 0.",
        ("vstart_nonzero_traps", "vstart_nonzero_traps_at_vl0", "vill_traps", "vs_off_traps"),
    ),
)


def behaviour_section(proofs: Proofs) -> list:
    rows = []
    for sentence, names in BEHAVIOUR:
        for name in names:
            if name not in proofs.by_name:
                raise KeyError(f"the manual cites {name!r}, which is not in the proof catalogue")
        rows.append([sentence, [proofs.line(name) for name in names]])
    rest = [
        p["name"]
        for p in proofs.doc["properties"]
        if p["name"] not in proofs.cited and not p["name"].startswith("lemma.")
    ]
    if rest:
        rows.append(["Further properties (see the appendix).", [proofs.line(name) for name in rest]])
    everywhere = proofs.bounds(proofs.doc["properties"][0]["name"])
    return [
        Heading(2, "Behaviour", "behaviour"),
        Para(
            "Each statement is proved by the properties beside it: their IDs (one per SEW) and verdicts "
            "(`PROVED ×N`: N proofs, one per configuration and subject: the spec, and each algorithm "
            f"with each tail policy). Unless noted, at {everywhere} (ELEN=64); at each, every register "
            "value and register number, vl 0 .. VLMAX, vm, vta, vma, vstart and mstatus.VS are symbolic. "
            "The appendix gives each formula."
        ),
        Table(["behaviour", "proved by"], rows, "behaviour"),
    ]


# Exceptions -----------------------------------------------------------------------------------

# Per trap rule (spec/legality.RULES): the condition in words, and a case that triggers it.
_BASE = {
    "vlen": 128,
    "insn": "vredmax.vs v8, v16, v4, v0.t",
    "vtype": {"sew": 32, "lmul": "m1"},
    "vl": 4,
    "vregs": {"v0": "0x5", "v4": "0x7", "v16": "0x00000003fffffff0000000090000002a"},
}
TRAP_CASES = {
    "vs_off": ("mstatus.VS = Off", {**_BASE, "vs": "off"}, ("vs_off_traps",)),
    "vill": (
        "vtype.vill = 1: a reserved vsew or vlmul, reserved bits, SEW > ELEN, or SEW > LMUL·ELEN at "
        "fractional LMUL",
        {**_BASE, "vtype": "0x8000000000000000", "vl": 0},
        ("vill_traps",),
    ),
    "vstart_nonzero": (
        "vstart ≠ 0, whatever vl is (vl = 0 too)",
        {**_BASE, "vstart": 2},
        ("vstart_nonzero_traps", "vstart_nonzero_traps_at_vl0"),
    ),
    "vs2_misaligned": (
        "LMUL > 1 and vs2 not a multiple of LMUL",
        {**_BASE, "insn": "vredmax.vs v8, v17, v4", "vtype": {"sew": 32, "lmul": "m2"}},
        (),
    ),
    "v0_mask_in_vs2": (
        "vm = 0 and v0 is in the vs2 group (v0 read as the mask and as SEW data)",
        {**_BASE, "insn": "vredmax.vs v8, v0, v4, v0.t"},
        (),
    ),
    "v0_mask_is_vs1": (
        "vm = 0 and vs1 = v0 (v0 read as the mask and as the seed)",
        {**_BASE, "insn": "vredmax.vs v8, v16, v0, v0.t"},
        (),
    ),
}


def exceptions_section(proofs: Proofs) -> list:
    names = list(profiles.PROFILES)
    rows = []
    for rule in RULES:
        condition, case, props = TRAP_CASES.get(rule.id, (rule.template, None, ()))
        run = run_case(case) if case else None
        outcome = f"**{run.result.outcome}**" if run else rule.outcome
        by_profile = []
        for name in names:
            if run is None:
                by_profile.append("")
                continue
            kinds = sorted(profiles.allowed(run.pre, run.insn, name).kinds)
            by_profile.append(" or ".join(kinds))
        proved = proofs.cite(*props) if props else "nothing to prove: the spec allows any outcome"
        rows.append([condition, outcome, f"`{format_asm(run.insn)}`" if run else "", *by_profile, proved])
    legal = run_case(_BASE)
    rows.append(
        [
            "none of the above (legal)",
            f"**{legal.result.outcome}**",
            f"`{format_asm(legal.insn)}`",
            *[" or ".join(sorted(profiles.allowed(legal.pre, legal.insn, n).kinds)) for n in names],
            proofs.cite("legal_retires"),
        ]
    )
    diff = profiles.difference_table()
    sources = [
        [f"`{choice}`", *[profiles.PROFILE_SOURCES[n][choice] for n in names]] for choice in profiles.CHOICES
    ]
    sources.append(["source read", *[profiles.SOURCE_VERSIONS.get(n, "RVV 1.0") for n in names]])
    return [
        Heading(2, "Exceptions and reserved encodings", "exceptions"),
        Para(
            "The checks run in this order; the first that applies decides. A trap changes no register, "
            "vtype, vl or vstart (mstatus.VS may turn Dirty from Initial or Clean, which RVV 1.0 allows at "
            "any time). **Reserved** means the architecture promises nothing: an "
            "implementation may trap, execute with any result, or do anything else, so the specification "
            "allows every outcome and no property claims more. Each row's outcome comes from running the "
            "example through the model; the profile columns from the decision procedure of "
            "`spec/profiles.py` for that example (`anything`: every outcome allowed)."
        ),
        Table(["condition", "model", "example", *[f"profile `{n}`" for n in names], "proved by"], rows),
        Heading(3, "Where implementations may differ", "profiles"),
        Para(
            "Four choices are left to implementations. `any` is the architecture itself; `sail`, `spike` "
            "and `qemu` fix each choice as those implementations do (`vredmax judge` and "
            "`vredmax exec --profile` use them)."
        ),
        Table(
            diff[0],
            [[f"`{row[0]}`" + (" (differs)" if len(set(row[2:])) > 1 else ""), *row[1:]] for row in diff[1:]],
        ),
        Details("Where each profile's choices come from", [Table(["choice", *names], sources)]),
    ]


# The animation and examples --------------------------------------------------------------------


def animated(case: dict, anim_id: str, caption: str) -> Raw:
    """The animation of a case (HTML) and its text form (Markdown)."""
    run = run_case(case)
    text = "\n".join(animation.text_lines(run))
    return Raw(animation.figure_html(run, anim_id, caption), f"**{caption}**\n\n```text\n{text}\n```")


def animation_section() -> list:
    run = run_case(SEED_CASE)
    return [
        Heading(2, "Decode and execute, step by step", "animation"),
        Para(
            "The seed document's example: VLEN=4096, SEW=16, LMUL=1 (VLMAX=256), vl=8, "
            "`vredmax.vs v4, v8, v12, v0.t`. Lane 5 holds 0x0020, the largest value, but it is masked "
            f"off and must not win: the result is `{animation.value_text(run.written, 16)}`. The figure "
            "shows every value and lists the steps; **Step through it** animates them (buttons, or the "
            "arrow keys, Home and End once a button has focus). The steps are teaching stages, not "
            "processor cycles."
        ),
        animated(SEED_CASE, "anim-seed", "The seed example: `vredmax.vs v4, v8, v12, v0.t`"),
        Details(
            "This case in the `vredmax exec` / `vredmax explain` format",
            [Code(json.dumps(SEED_CASE, indent=1))],
        ),
    ]


EXAMPLES = (
    (
        "Signed, not unsigned",
        "SEW=8, vl=4, all active. The seed is 0xfe (-2) and v12 holds 1, 0x80 (-128), 2, 3. The signed "
        "maximum is 3; an unsigned maximum would give 0xfe.",
        {
            "vlen": 128,
            "insn": "vredmax.vs v8, v12, v4",
            "vtype": {"sew": 8, "lmul": "m1"},
            "vl": 4,
            "vregs": {"v4": "0xfe", "v12": "0x03028001"},
        },
    ),
    (
        "Every element masked off writes the seed",
        "vl=3 and v0 = 0: no element is active, so vd[0] becomes the seed; vl = 0 would have left vd alone.",
        {
            "vlen": 128,
            "insn": "vredmax.vs v8, v12, v4, v0.t",
            "vtype": {"sew": 16, "lmul": "m1"},
            "vl": 3,
            "vregs": {"v4": "0xff85", "v8": "0x1234", "v12": "0x7fff00050004"},
        },
    ),
    (
        "vl = 0 changes nothing",
        "The same registers with vl = 0: v8 keeps 0x1234 and its tail; the seed is not copied.",
        {
            "vlen": 128,
            "insn": "vredmax.vs v8, v12, v4, v0.t",
            "vtype": {"sew": 16, "lmul": "m1"},
            "vl": 0,
            "vregs": {"v4": "0xff85", "v8": "0x1234", "v12": "0x7fff00050004"},
        },
    ),
    (
        "A register group (LMUL=2)",
        "SEW=32, LMUL=2, vl=6: elements 4 and 5 live in v13, the second register of the group, and the "
        "largest one (element 5) is there.",
        {
            "vlen": 128,
            "insn": "vredmax.vs v1, v12, v2",
            "vtype": {"sew": 32, "lmul": "m2"},
            "vl": 6,
            "vregs": {
                "v2": "0xffffffff",
                "v12": "0x00000004000000030000000200000001",
                "v13": "0x00000000000000000000006400000005",
            },
        },
    ),
    (
        "An agnostic tail set to all ones",
        "vta=1 with the tail policy `ones` (QEMU's rvv_ta_all_1s): elements 1 .. 7 of v8 become all ones; "
        "keeping them would be allowed too.",
        {
            "vlen": 128,
            "insn": "vredmax.vs v8, v12, v4",
            "vtype": {"sew": 16, "lmul": "m1", "vta": True},
            "vl": 2,
            "tail": "ones",
            "vregs": {"v4": "0x0001", "v8": "0x00070006000500040003000200010000", "v12": "0x00090008"},
        },
    ),
    (
        "A nonzero vstart traps",
        "vstart = 1: an illegal-instruction exception, whatever vl is; nothing changes.",
        {
            "vlen": 128,
            "insn": "vredmax.vs v8, v12, v4",
            "vtype": {"sew": 8, "lmul": "m1"},
            "vl": 4,
            "vstart": 1,
            "vregs": {"v4": "0xfe", "v12": "0x03028001"},
        },
    ),
)


def examples_section() -> list:
    blocks = [
        Heading(2, "Worked examples", "examples"),
        Para(
            "Each example is a case in the `vredmax exec` format, run through the executable model; "
            "`vredmax explain CASE.json` prints the same steps in a terminal."
        ),
    ]
    for k, (title, text, case) in enumerate(EXAMPLES, 1):
        run = run_case(case)
        blocks += [
            Heading(3, f"{k}. {title}", f"example-{k}"),
            Para(text),
            Code(json.dumps(case)),
            Para(_result_sentence(run)),
            animated(case, f"anim-example-{k}", f"Example {k}: `{run.asm}`"),
        ]
    return blocks


def _result_sentence(run: Trace) -> str:
    if run.trapped:
        return f"Model: **{run.result.outcome}** ({run.result.reason}); nothing changes."
    if not run.writes:
        return f"Model: retired, {run.result.reason}; v{run.insn.vd} stays `{run.vd_before:#x}`."
    changed = run.tail_changed
    tail = f"tail elements {changed[0]} .. {changed[-1]} set to all ones" if changed else "tail unchanged"
    return (
        f"Model: retired, **v{run.insn.vd}[0] = {animation.value_text(run.written, run.cfg.sew)}**, "
        f"{tail}, vstart = 0."
    )


# Usage, checklist, pitfalls, FAQ -------------------------------------------------------------

STRIP_CASES = (
    {
        "vlen": 128,
        "insn": "vredmax.vs v4, v8, v4",
        "vtype": {"sew": 32, "lmul": "m1"},
        "vl": 4,
        "vregs": {"v4": "0x80000000", "v8": "0xfffffff60000000700000003fffffffe"},
    },
)


# Assembly shown on the page; tests/test_manual.py assembles it with GNU as (-march=rv64gcv).
STRIP_LOOP = (
    "    li      t0, -2147483648\n    vsetivli zero, 1, e32, m1, ta, ma\n    vmv.s.x v4, t0\n"
    "loop:\n    vsetvli t1, a1, e32, m1, ta, ma\n    vle32.v v8, (a0)\n    vredmax.vs v4, v8, v4\n"
    "    sub     a1, a1, t1\n    slli    t2, t1, 2\n    add     a0, a0, t2\n    bnez    a1, loop\n"
    "    vmv.x.s a2, v4"
)
MASKED_SNIPPET = (
    '    # v8[0] holds the seed: the signed minimum, "no key yet"\n    vsetivli zero, 4, e32, m1, ta, ma\n    vle32.v  v16, (a0)\n    vmsgt.vx v0, v16, x0\n'
    "    vredmax.vs v4, v16, v8, v0.t\n    vmv.x.s  a1, v4"
)
MASKED_CASE = {
    "vlen": 128,
    "insn": "vredmax.vs v4, v16, v8, v0.t",
    "vtype": {"sew": 32, "lmul": "m1"},
    "vl": 4,
    "vregs": {"v0": "0b1010", "v8": "0x80000000", "v16": "0x0000000c0000000000000007fffffffb"},
}


def scenarios_section() -> list:
    first = run_case(STRIP_CASES[0])
    # The second strip carries the first strip's result in v4[0], exactly as a loop would.
    second_case = {
        **STRIP_CASES[0],
        "vl": 2,
        "vregs": {"v4": hex(first.vd_after), "v8": "0x0000000b00000005"},
    }
    second = run_case(second_case)
    masked = run_case(MASKED_CASE)
    nothing = run_case({**MASKED_CASE, "vregs": {**MASKED_CASE["vregs"], "v0": "0x0"}})
    return [
        Heading(2, "Usage scenarios", "usage"),
        Heading(3, "The maximum of a long array (strip-mining)", "usage-strip"),
        Para(
            "Start with the signed minimum in v4[0] (the identity of signed max), then per strip: `vsetvli` "
            "sets vl to what is left, load the strip into v8, and `vredmax.vs v4, v8, v4` folds it into "
            "v4[0] (vd = vs1 is allowed: the seed is read before vd is written)."
        ),
        Code(STRIP_LOOP),
        Para(
            f"Run through the model (VLEN=128): strip 1 (−2, 3, 7, −10) gives "
            f"`{animation.value_text(first.written, 32)}`; strip 2 (5, 11, vl=2) continues from it and gives "
            f"`{animation.value_text(second.written, 32)}`."
        ),
        animated(STRIP_CASES[0], "anim-usage-strip", "Strip 1: `vredmax.vs v4, v8, v4` (vd = vs1)"),
        Heading(3, "The maximum of selected elements", "usage-masked"),
        Para(
            "Compute a mask (e.g. `vmsgt.vx v0, v16, x0` for positive keys) and reduce with `v0.t`. Give a "
            'seed that means "none": with no element active the result is the seed.'
        ),
        Code(MASKED_SNIPPET),
        Para(
            f"Run through the model: keys −5, 7, 0, 12 with the mask of the positive ones (v0 = 0b1010) and "
            f"the signed minimum as the seed give `{animation.value_text(masked.written, 32)}`; with no key "
            f"positive (v0 = 0) the result is the seed `{animation.value_text(nothing.written, 32)}`."
        ),
        Heading(3, "Unsigned data", "usage-unsigned"),
        Para("Use `vredmaxu.vs` (funct6 000110): vredmax.vs compares as signed, so 0xff is −1, not 255."),
    ]


CHECKLIST = (
    ("The vector unit is on: mstatus.VS is not Off (else illegal instruction).", ("vs_off_traps",)),
    ("vtype is valid: vill = 0, SEW ≤ ELEN, and SEW ≤ LMUL·ELEN at fractional LMUL.", ("vill_traps",)),
    (
        "vstart = 0: a reduction cannot resume; a nonzero vstart traps, with vl = 0 too.",
        ("vstart_nonzero_traps_at_vl0",),
    ),
    ("With LMUL > 1, vs2 is a multiple of LMUL (else reserved: Sail, Spike and QEMU trap).", ()),
    (
        "With v0.t: v0 is not in the vs2 group and vs1 ≠ v0 (else reserved: Sail traps, Spike and QEMU "
        "execute).",
        (),
    ),
    ('The seed is in vs1[0]; for "no seed" use the signed minimum (0x80…0).', ("seed_included",)),
    (
        "The result is only in vd[0] (read it with `vmv.x.s`); the other elements of vd are tail.",
        ("tail_undisturbed", "tail_agnostic"),
    ),
    ("The comparison is signed: use vredmaxu.vs for unsigned data.", ("bounds_active",)),
    ("With vl = 0 vd is not written at all: do not expect the seed there.", ("vl0_preserves_vd",)),
)


def checklist_section(proofs: Proofs) -> list:
    items = [f"{text} ({proofs.cite(*names)})" if names else text for text, names in CHECKLIST]
    return [Heading(2, "Pre-use checklist", "checklist"), Items(items)]


def pitfalls_section(doc: dict) -> list:
    blocks = [
        Heading(2, "Pitfalls: wrong assumptions, refuted", "pitfalls"),
        Para(
            "Each is a claim people make. The solver refuted it against the specification; a "
            "counterexample (minimised: smallest vl, then fewest active lanes) was replayed on the "
            "executable model and is animated here."
        ),
    ]
    for claim in doc["claims"]:
        status = claim["status"].upper()
        blocks += [
            Heading(3, f"“{claim['sentence']}” {status}", claim_anchor(claim["id"])),
            Para(
                f"`{claim['id']}`. Source: {claim['source']}. Formally: `{claim['statement']}`. "
                f"Bounds: {'; '.join(claim['bounds'])}."
            ),
        ]
        cx = claim["counterexample"]
        if cx is None:
            blocks.append(Para(f"Solver: {claim['verdict']}: {claim['detail']}."))
            continue
        spec = ", ".join(_observed(n, v) for n, v in cx["spec"].items())
        other = ", ".join(_observed(n, v) for n, v in cx["claim"].items())
        blocks.append(Para(f"Counterexample: the spec says {spec}; the claim says {other}."))
        blocks.append(
            animated(
                cx["case"],
                f"anim-{claim_anchor(claim['id'])}",
                f"Counterexample to `{claim['id'].rsplit('.', 1)[-1]}`",
            )
        )
    return blocks


def _observed(name: str, value) -> str:
    """`vd[0] = 0xff (-1)`, or `it traps` / `it does not trap`."""
    if isinstance(value, bool):
        return "it traps" if value else "it does not trap"
    if name == "vs":
        return f"mstatus.VS = {VS_NAMES[value['unsigned']].capitalize()}"
    return f"{name} = `{value['hex']}` ({value['signed']})"


FAQ = (
    (
        "Are all-masked-off and vl = 0 the same?",
        "No. With vl > 0 and every element masked off, vd[0] becomes the seed. With vl = 0 nothing is written.",
        ("all_masked_writes_seed", "all_masked_differs_from_vl0", "vl0_preserves_vd"),
    ),
    (
        "Does the mask apply to the seed?",
        "No. The seed vs1[0] always takes part; the mask selects elements of vs2 only.",
        ("seed_included",),
    ),
    (
        "Which elements of vd change?",
        "Element 0, and with vta=1 possibly tail elements (to all ones). Nothing else, and nothing at vl = 0.",
        ("tail_undisturbed", "tail_agnostic", "frame", "vl0_preserves_vd"),
    ),
    (
        "Can vd be the same register as vs1 or vs2?",
        "Yes. All sources are read before vd is written.",
        ("overlap_vd_vs1", "overlap_vd_vs2"),
    ),
    ("Does vma matter?", "No: vd[0] is never a masked-off element.", ("vma_irrelevant",)),
    (
        "What if vstart is not 0?",
        "Illegal instruction, whatever vl is, and nothing changes.",
        ("vstart_nonzero_traps", "vstart_nonzero_traps_at_vl0"),
    ),
    (
        "Is the result the same for a tree-shaped reduction?",
        "Yes, signed max is associative and commutative; a tree must pad inactive lanes with the signed minimum, "
        "not zero.",
        ("algorithms_agree", "lemma.smax_associative", "lemma.smin_is_identity"),
    ),
)


def faq_section(proofs: Proofs) -> list:
    blocks = [Heading(2, "FAQ", "faq")]
    for question, answer, names in FAQ:
        blocks += [Heading(3, question, "faq-" + slug(question)), Para(f"{answer} ({proofs.cite(*names)})")]
    return blocks


# The proof appendix ---------------------------------------------------------------------------


def appendix_section(doc: dict, proofs: Proofs) -> list:
    rows, anchors = [], []
    for prop in doc["properties"]:
        formula = prop["formula"]
        given = " · ".join(formula["assume"])
        text = (f"given {given} ⟹ " if given else "") + formula["prove"]
        rows.append(
            [
                [f"`{prop['name']}`", f"*{prop['kind']}*", proofs.ids(prop["name"])],
                [prop["sentence"], f"`{text}`"],
                [
                    proofs.status(prop["name"]),
                    proofs.where(prop["name"]),
                    f"subjects: {subjects_text(prop['subjects'])}",
                ],
            ]
        )
        anchors.append(anchor(prop["name"]))
    failures = [
        f"**{e['verdicts'][subject]}** `{e['id']}` {subject} at {e['config']}: {detail}"
        for p in doc["properties"]
        for e in p["results"]
        for subject, detail in e.get("details", {}).items()
    ]
    configs = [[str(c["vlen"]), str(c["sew"]), c["lmul"], str(c["vlmax"])] for c in doc["configurations"]]
    solvers = ", ".join(f"{n} {v}" for n, v in doc["solvers"].items())
    blocks = [
        Heading(2, "Appendix: the proofs", "appendix"),
        Para(
            f"Solvers: {solvers}. Each formula is the solver's own query at a small configuration "
            "(given in the property's raw form), printed with named fields: `vs1[0]` the seed, `vs2[i]` "
            "element i, `active[i]`, `mask[i]` bit i of v0, unprimed names the pre-state, primed (`vd'`) "
            "the post-state, `_b` a second pre-state; `≤ₛ`/`≥ₛ` signed and `<ᵤ` unsigned comparisons, "
            "`max` the signed maximum, `tail(vd)` elements 1 .. VLEN/SEW-1, `smin` the signed minimum; "
            "`legal` = neither illegal nor reserved, `retires_with_elements` = legal and vl > 0, "
            '`defined` = not reserved (or illegal anyway). "for every i" ranges over 0 .. VLMAX-1.'
        ),
        Para(
            "Bounds of every PROVED: for each configuration below, vd, vs2, vs1, vm, vta, vma, vill, vstart, "
            "mstatus.VS, vl 0 .. VLMAX and all 32 registers symbolic (every overlap included)."
        ),
        Para(
            "CERTIFIED: every solver question the verdict rests on was also decided by the certificate "
            "route (bit-blasting, a SAT solver's DRAT proof, an independent proof checker); see \"What a "
            'CERTIFIED verdict trusts" below. '
            + (
                "A property marked PROVED only was not certified at every "
                "configuration (the count says how many were)."
                if doc.get("certification")
                else "This page was generated without it (`vredmax report "
                "--certify DIR`): no property is marked."
            )
        ),
        Details(
            f"The {len(configs)} configurations (ELEN=64)", [Table(["VLEN", "SEW", "LMUL", "VLMAX"], configs)]
        ),
        Table(
            ["property, kind, IDs", "statement and formula", "verdicts and bounds"], rows, "props", anchors
        ),
    ]
    if failures:
        blocks += [Heading(3, "Not proved", "not-proved"), Items(failures)]
    blocks += [
        Details(
            "Each formula as given to the solver (raw Z3 text)",
            [
                Table(
                    ["property", "configuration", "assume", "prove"],
                    [
                        [
                            f"`{p['name']}`",
                            p["statement"]["config"] or "",
                            "; ".join(f"`{a}`" for a in p["statement"]["assume"]),
                            f"`{p['statement']['prove']}`",
                        ]
                        for p in doc["properties"]
                    ],
                )
            ],
        )
    ]
    blocks += [Heading(3, "How the proofs are done", "method")]
    blocks += parse_markdown(doc["method"]["description"], shift=1)
    blocks += parse_markdown(doc["method"]["soundness"], shift=0)
    if doc["method"].get("trusted_base"):
        blocks += parse_markdown(doc["method"]["trusted_base"], shift=0)
    return blocks


# The page of one case (vredmax explain --html) ---------------------------------------------------


def explain_page(run: Trace, case: dict | None = None) -> list:
    blocks = [
        Heading(1, f"{run.asm}: decode and execute", "top"),
        Para(
            f"{_result_sentence(run)} The steps are teaching stages, not processor cycles; the values "
            "come from the executable model (the code `vredmax exec` runs).",
            "lead",
        ),
        Heading(2, "Step by step", "steps"),
        Raw(
            animation.figure_html(run, "anim-case", f"`{run.asm}`"),
            "```text\n" + "\n".join(animation.text_lines(run)) + "\n```",
        ),
    ]
    if case is not None:
        blocks += [Heading(2, "The case", "case"), Code(json.dumps(case, indent=1))]
    return blocks
