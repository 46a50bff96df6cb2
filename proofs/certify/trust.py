"""What a CERTIFIED verdict still trusts, and what it no longer does (for the documents)."""

from __future__ import annotations

# (component, trusted by CERTIFIED?, why / how it is checked)
TRUSTED_BASE = [
    (
        "Z3's, bitwuzla's and cvc5's decisions (sat, unsat, models)",
        "no",
        "every solver question a verdict rests on is decided again by the route; Z3 only suggests which facts "
        "to refute (an unsat core) and a model to try, and the route checks both",
    ),
    (
        "CaDiCaL, the SAT solver (python-sat)",
        "no",
        "its refutations are DRAT proofs that the checker replays; its models are checked clause by clause",
    ),
    (
        "the DRAT checker: dratify (its Rust engine from cdclkit-native when installed, else pure Python)",
        "yes",
        "written independently of CaDiCaL and of this project; `vredmax certify-check --engine python` re-checks "
        "with its second, independent engine",
    ),
    (
        "the model check (`proofs/certify/check.py: satisfies`)",
        "yes",
        "a dozen lines: every clause has a true literal",
    ),
    (
        "the bit-blaster (`proofs/certify/blast.py`)",
        "yes",
        "the circuit it builds for each operator of the fragment (tested against Z3 on random terms of every "
        "operator at widths 1 to 64: `tests/test_certify_blast.py`) and its shortcuts: constant folding, "
        "structural hashing, read over write, an asserted `x = t` defining a variable not used yet, the cone of "
        "the asserted literals, Ackermann's reduction of uninterpreted functions",
    ),
    (
        "the translation of each query",
        "yes",
        "the route reads the very Z3 terms handed to the solver (`proofs/engine/verdict.py: consult`), split at "
        "top-level conjunctions; a satisfiable claim is checked on the CNF of the facts with every variable "
        "fixed to Z3's model when that model does (then the bit-blaster's evaluation decides it)",
    ),
    (
        "Z3 as a term library",
        "yes",
        "the terms are built through Z3's API (`spec/z3native.py`, `spec/z3public.py`); the route reads their "
        "operators and arguments",
    ),
    (
        "Z3's simplifier where a query is built with it",
        "yes",
        "`proofs/engine/compositional.py`: `assuming` (a literal the case assumes replaced by its value, then "
        "simplified), `case_run` and `result_field_part`: the certified query is the simplified term",
    ),
    (
        "the compositional argument's Python steps",
        "yes",
        'each written down in "Why the compositional method is sound": (1) the cut point: step uses the unit\'s '
        "output only as a value (`proofs/engine/truth_guard.py` refuses a branch on a term); (2) the case split "
        "by the relation's cases and by vta, and the `choice` substitution; (3) wide numerals named, with their "
        "definitions assumed; (4) the agnostic tail generalized to a fresh Boolean (the real goal an instance); "
        "(5) pairs that are the same term count as equal without a query (Z3's hash-consing); (6) the folding "
        "builder (`proofs/engine/folding.py`) deciding per-element conditions under a witness as it builds them; "
        "(7) the free-semilattice backend computing each atom's inclusion condition "
        "(`proofs/engine/semilattice.py`); (8) the induction from the lemmas to the spec's result predicate "
        "(pen and paper); (9) one answer serving both ELEN twins (`runner._answer_key`, whose queries are the "
        "same formula: `tests/test_small_machines.py`) and a part's answer serving every obligation that has it",
    ),
    ("Python, the operating system, gzip and SHA-256 of the certificate files", "yes", ""),
]


def trusted_base_markdown() -> str:
    """The table for docs/SEMANTICS.md and the manual page (deterministic)."""
    rows = [
        "### What a CERTIFIED verdict trusts",
        "",
        "`vredmax prove --certify DIR` (and `vredmax report --certify DIR`) decides every solver question "
        "a verdict rests on a second time: the question's terms are bit-blasted into CNF, CaDiCaL decides "
        "the CNF and logs a DRAT proof of each unsat, and an independent checker replays the proof. A "
        "question is CERTIFIED when the checker accepts the proof (and, for a satisfiable one, the model "
        "satisfies its CNF); an obligation when every question of every part it rests on is. A route that "
        "decides the other way makes the verdict an ERROR that names both answers. DIR keeps every CNF, "
        "proof and model (gzip) and a manifest; `vredmax certify-check DIR` checks them again without any "
        "SMT solver.",
        "",
        "| component | trusted by CERTIFIED | why, or how it is checked |",
        "|---|---|---|",
    ]
    rows += [f"| {component} | {trusted} | {why} |" for component, trusted, why in TRUSTED_BASE]
    return "\n".join(rows) + "\n"
