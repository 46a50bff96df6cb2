"""The semantics document: every property with its verdicts, the method, the wrong claims.

`collect()` runs the proofs and the refutations and returns the JSON twin (a plain dict);
`markdown(doc)` renders docs/SEMANTICS.md from that dict alone. Nothing in either depends on
timings or on the order the solver happened to search in (counterexamples are canonical,
see proofs/claims/refute.py), so regenerating them from the same code gives the same bytes.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from contextlib import ExitStack

from vredmax.presentation.counterexamples import counterexample_lines
from vredmax.proofs.engine import compositional
from vredmax.proofs.obligations import catalogue as obligations
from vredmax.proofs.obligations import runner
from vredmax.proofs.claims.claims import CLAIMS
from vredmax.presentation.documents.manual.formulas import human
from vredmax.proofs.claims.refute import REFUTED, refute
from vredmax.proofs.engine.setting import bounds_text
from vredmax.proofs.engine.solvers import versions
from vredmax.proofs.engine.statement import render
from vredmax.proofs.certify import route
from vredmax.proofs.certify.trust import trusted_base_markdown
from vredmax.proofs.engine import verdict
from vredmax.proofs.engine.verdict import Verdict
from vredmax.spec.config import ELENS, Config, every_config, legal_configs, machine_vlens
from vredmax.spec.profiles import POLICIES, PROFILE_SOURCES, SOURCE_VERSIONS, difference_table

SEED_CONFIG = Config(4096, 64, 16, "m1")  # the seed's animation


def report_configs(everything: bool = False) -> list[Config]:
    """Every legal SEW x LMUL at VLEN=128 (ELEN=64), the seed's configuration and the smallest
    machines VLEN=ELEN=32 and VLEN=ELEN=64 (where the small-machine properties arise); or every
    legal configuration (422)."""
    if everything:
        return every_config()
    return legal_configs(64, [128]) + [SEED_CONFIG] + legal_configs(32, [32]) + legal_configs(64, [64])


def configuration_space() -> list[dict]:
    """Per ELEN: its VLENs, its SEW x LMUL pairs and how many configurations they make."""
    space = []
    for elen in ELENS:
        vlens = machine_vlens(elen)
        pairs = [(c.sew, c.lmul) for c in legal_configs(elen, [vlens[-1]])]
        space.append(
            {
                "elen": elen,
                "vlens": [vlens[0], vlens[-1]],
                "pairs": [f"SEW={sew} LMUL={lmul}" for sew, lmul in pairs],
                "configurations": len(every_config((elen,))),
            }
        )
    return space


def _config_json(cfg: Config) -> dict:
    return {"vlen": cfg.vlen, "elen": cfg.elen, "sew": cfg.sew, "lmul": cfg.lmul, "vlmax": cfg.vlmax}


def solver_policy(cfg: Config) -> list[str]:
    """The solvers that may decide a query at this configuration. Which one actually did can
    depend on timing ("auto" gives Z3 a short head start, then bitwuzla), so the document
    names the policy and `timings` records the actual solver."""
    if cfg.vlen < compositional.BIG_VLEN:
        return ["z3"]
    return ["z3", "bitwuzla", "auto"]


def prove_all(configs, timeout_s: float = 60, progress=None, timings=None, certify=None) -> OrderedDict:
    """name -> entries, one per (ID, configuration): the verdict of each subject, the solvers,
    and the detail of anything not PROVED. A lemma is proved once per SEW (it does not depend
    on VLEN or LMUL). `timings`, a list, receives the seconds and the solver of each proof.
    `certify`, a proofs.certify.route.Judge: every solver question is also decided by the
    certificate route; each entry then says which subjects are certified, and the judge's
    records of the questions are gathered in `certify.records`."""
    with ExitStack() as stack:
        if certify is not None:
            stack.enter_context(verdict.second_opinion(certify))
        return _prove_all(configs, timeout_s, progress, timings, certify)


def _prove_all(configs, timeout_s, progress, timings, certify) -> OrderedDict:
    results: OrderedDict = OrderedDict((o.name, []) for o in obligations.OBLIGATIONS)
    lemma_sews = set()
    for cfg in configs:
        for obligation in obligations.obligations(cfg=cfg):
            if obligation.kind == "lemma":
                if (obligation.name, cfg.sew) in lemma_sews:
                    continue
                lemma_sews.add((obligation.name, cfg.sew))
            entry = {
                "id": obligation.id(cfg.sew),
                "config": str(cfg),
                "solvers": solver_policy(cfg),
                "verdicts": {},
            }
            details = {}
            for subject in obligation.subjects:
                try:
                    with verdict.about(obligation=entry["id"], subject=subject, config=str(cfg), sew=cfg.sew):
                        result = runner.run(obligation, cfg, subject, timeout_s=timeout_s)
                    answer = result.answer
                    outcome, detail = answer.verdict.value, answer.detail
                    if certify is not None:
                        parts = [a for _, a in result.parts]
                        entry.setdefault("certified", {})[subject] = (
                            outcome == Verdict.PROVED.value and route.certified(parts)
                        )
                        for opinion in route.opinions_of(parts):
                            certify.records.setdefault(opinion.record["id"], opinion.record)
                        certify.subjects[(entry["id"], str(cfg), subject)] = sorted(
                            {o.record["id"] for o in route.opinions_of(parts)}
                        )
                        doubt = next(
                            (o for o in route.opinions_of(parts) if o.status != route.CERTIFIED), None
                        )
                        if outcome == Verdict.PROVED.value and doubt is not None:
                            details[subject] = f"not certified: {doubt.detail}"
                    if timings is not None:
                        timings.append(
                            {
                                "id": entry["id"],
                                "config": str(cfg),
                                "subject": subject,
                                "verdict": outcome,
                                "solver": answer.solver,
                                "seconds": round(answer.seconds, 3),
                            }
                        )
                except Exception as error:  # a crash in one proof is an ERROR, not the end
                    outcome, detail = Verdict.ERROR.value, f"{type(error).__name__}: {error}"
                    if certify is not None:
                        entry.setdefault("certified", {})[subject] = False
                entry["verdicts"][subject] = outcome
                if outcome != Verdict.PROVED.value:
                    details[subject] = detail
                if progress:
                    progress(entry["id"], subject, str(cfg), outcome)
            if details:
                entry["details"] = details
            results[obligation.name].append(entry)
        runner.clear_caches()
    return results


def _claim_json(result) -> dict:
    claim = result.claim
    return {
        "id": claim.id,
        "sentence": claim.sentence,
        "source": claim.source,
        "statement": claim.statement,
        "kind": "universal" if claim.universal else "existential",
        "status": result.status,
        "verdict": result.verdict.value,
        "detail": result.detail,
        "bounds": result.bounds,
        "counterexample": result.counterexample.to_json() if result.counterexample else None,
        "counterexample_text": counterexample_lines(result.counterexample) if result.counterexample else None,
    }


def collect(
    configs=None, timeout_s: float = 60, progress=None, claims=CLAIMS, timings=None, certify=None
) -> dict:
    """The document. With `certify` (a proofs.certify.route.Judge) the proofs' solver
    questions are also decided by the certificate route, and the document says which
    properties are CERTIFIED (`summary.certified`, each entry's `certified`)."""
    configs = report_configs() if configs is None else configs
    results = prove_all(configs, timeout_s, progress, timings, certify)
    properties = []
    for obligation in obligations.OBLIGATIONS:
        entries = results[obligation.name]
        properties.append(
            {
                "name": obligation.name,
                "kind": obligation.kind,
                "sentence": obligation.sentence,
                "ids": sorted({e["id"] for e in entries}, key=_id_order),
                "subjects": list(obligation.subjects),
                "statement": render(obligation),
                "formula": human(obligation),
                "results": entries,
            }
        )
    claims = [_claim_json(refute(claim)) for claim in claims]
    verdicts = [v for p in properties for e in p["results"] for v in e["verdicts"].values()]
    used = {"z3"} | ({"bitwuzla"} if any(c.vlen >= compositional.BIG_VLEN for c in configs) else set())
    summary = {
        "proved": verdicts.count(Verdict.PROVED.value),
        "counterexamples": verdicts.count(Verdict.COUNTEREXAMPLE.value),
        "unknown": verdicts.count(Verdict.UNKNOWN.value),
        "errors": verdicts.count(Verdict.ERROR.value),
        "claims": len(claims),
        "claims_refuted": sum(c["status"] == REFUTED for c in claims),
    }
    if certify is not None:
        summary["certified"] = sum(
            c for p in properties for e in p["results"] for c in e["certified"].values()
        )
    return {
        "title": "vredmax.vs: the machine-checked semantics",
        "generated_by": "vredmax report",
        "solvers": {name: version for name, version in versions().items() if name in used},
        "configurations": [_config_json(c) for c in configs],
        "configuration_space": configuration_space(),
        "bounds": {str(c): bounds_text(c) for c in configs},
        "summary": summary,
        "certification": certify is not None,
        "properties": properties,
        "method": {
            "description": compositional.method_text(),
            "soundness": compositional.soundness_argument(),
            "trusted_base": trusted_base_markdown(),
        },
        "claims": claims,
        "profiles": profiles_json(),
    }


def profiles_json() -> dict:
    """The implementation-defined choices: the policies, the profiles' values and sources (with
    the versions of the sources read)."""
    return {
        "policies": {choice: list(values) for choice, values in POLICIES.items()},
        "table": difference_table(),
        "sources": PROFILE_SOURCES,
        "source_versions": SOURCE_VERSIONS,
    }


def _profile_lines(profiles: dict) -> list[str]:
    table = profiles["table"]
    lines = [
        "## Implementation-defined choices and profiles",
        "",
        "Where RVV 1.0 allows more than one outcome the relation allows each (profile `any`); the "
        "named profiles fix every choice as Sail, Spike and QEMU do (spec/profiles.py; `vredmax exec "
        "--profile`, `vredmax judge --profile`).",
        "",
        "| " + " | ".join(table[0]) + " |",
        "|" + "---|" * len(table[0]),
    ]
    lines += ["| " + " | ".join([f"`{row[0]}`", *row[1:]]) + " |" for row in table[1:]]
    lines.append("")
    versions = profiles.get("source_versions", {})
    for name, sources in profiles["sources"].items():
        read = f" ({versions[name]})" if name in versions else ""
        lines.append(
            f"- `{name}`{read}: " + "; ".join(f"{choice}: {text}" for choice, text in sources.items())
        )
    return lines + [""]


def _id_order(identifier: str):
    sew = identifier.split(".")[1]
    return int(sew[3:]) if sew.startswith("sew") else 0, identifier


# Markdown ----------------------------------------------------------------------------------


def _configs_text(config_names: list[str]) -> str:
    """`VLEN=128 LMUL mf8, mf4, ...; VLEN=4096 LMUL m1` (the SEW is in the ID)."""
    by_vlen: OrderedDict = OrderedDict()
    for name in config_names:
        fields = dict(part.split("=") for part in name.split())
        by_vlen.setdefault(fields["VLEN"], []).append(fields["LMUL"])
    return "; ".join(f"VLEN={vlen} LMUL {', '.join(lmuls)}" for vlen, lmuls in by_vlen.items())


def _property_rows(prop: dict) -> list[str]:
    rows = ["| ID | verdict | subjects | configurations |", "|---|---|---|---|"]
    by_id: OrderedDict = OrderedDict()
    for entry in prop["results"]:
        by_id.setdefault(entry["id"], []).append(entry)
    for identifier in sorted(by_id, key=_id_order):
        entries = by_id[identifier]
        verdicts = sorted({shown_verdict(e, subject) for e in entries for subject in e["verdicts"]})
        solvers = sorted({name for e in entries for name in e["solvers"]})
        subjects = list(dict.fromkeys(subject for e in entries for subject in e["verdicts"]))
        rows.append(
            f"| `{identifier}` | {' / '.join(verdicts)} ({', '.join(solvers) or '-'}) | "
            f"{', '.join(subjects)} | {_configs_text([e['config'] for e in entries])} |"
        )
    return rows


def shown_verdict(entry: dict, subject: str) -> str:
    """CERTIFIED for a PROVED subject the certificate route certified; else the verdict."""
    verdict_ = entry["verdicts"][subject]
    if verdict_ == Verdict.PROVED.value and entry.get("certified", {}).get(subject):
        return "CERTIFIED"
    return verdict_


def without_certification(doc: dict) -> dict:
    """The document as a run without --certify makes it (what `report --check` compares when
    it does not certify)."""
    plain = json.loads(json.dumps(doc))
    plain["certification"] = False
    plain["summary"].pop("certified", None)
    for prop in plain["properties"]:
        for entry in prop["results"]:
            entry.pop("certified", None)
            details = {
                s: d for s, d in entry.get("details", {}).items() if not d.startswith("not certified: ")
            }
            if details:
                entry["details"] = details
            else:
                entry.pop("details", None)
    return plain


def _certified_text(doc: dict) -> str:
    if not doc.get("certification"):
        return " (certification not run for this document: `vredmax report --certify DIR`)"
    return f" ({doc['summary']['certified']} of them CERTIFIED)"


def _failures(prop: dict) -> list[str]:
    return [
        f"- **{shown_verdict(e, subject)}** `{e['id']}` {subject} at {e['config']}: {detail}"
        for e in prop["results"]
        for subject, detail in e.get("details", {}).items()
    ]


def _statement_lines(statement: dict) -> list[str]:
    if statement["config"] is None:
        return [f"Formal statement: {statement['prove']}"]
    lines = [
        f"Formal statement, as given to the solver at {statement['config']} (with VLMAX elements "
        "the same formula has a term for each index in place of [0], [1], ...):",
        "",
        "```",
    ]
    lines += [f"assume  {text}" for text in statement["assume"]]
    lines += [f"prove   {statement['prove']}", "```"]
    return lines


def markdown(doc: dict) -> str:
    s = doc["summary"]
    solvers = ", ".join(f"{name} {version}" for name, version in doc["solvers"].items())
    lines = [
        f"# {doc['title']}",
        "",
        "Generated by `vredmax report` from the code in this repository (do not edit by hand; "
        "regenerate with `vredmax report`, check with `vredmax report --check`). "
        "The same content, for machines: `docs/SEMANTICS.json`.",
        "",
        f"Solvers: {solvers}. At VLEN >= {compositional.BIG_VLEN} queries about step's post-state go to "
        "bitwuzla and queries about the spec relation to `auto`: Z3 for a moment, then bitwuzla if Z3 has "
        "not decided; `vredmax report --timings FILE` records which solver decided each proof.",
        "",
        f"**Summary:** {s['proved']} proved{_certified_text(doc)}, {s['counterexamples']} counterexamples, "
        f"{s['unknown']} unknown, {s['errors']} errors over {len(doc['properties'])} properties (a proof: one "
        f"property at one configuration of one subject; `vredmax prove` shows them as "
        f"{sum(len(p['results']) for p in doc['properties'])} obligation lines, one per property and configuration); "
        f"{s['claims_refuted']} of {s['claims']} wrong assumptions refuted.",
        "",
        "Names in the formal statements: `vs1[0]` the seed, `vs2[i]` element i of the vs2 group, "
        "`active[i]` element i takes part (i < vl and unmasked or its mask bit set), `mask[i]` bit i "
        "of v0, `vd` and `vd[0]` the destination register and its element 0 before, `vd'` and "
        "`vd'[0]` after, primed names the post-state, `[A]` a post-state of algorithm A, `_b` a second "
        "pre-state; `legal` = neither illegal nor reserved, `retires_with_elements` = legal and vl > 0, "
        "`defined` = not reserved or illegal anyway, `spec_allows` = the spec relation "
        "(spec/relation.py) holds; `<=` and `>=` are signed, `ULT`/`UGE` unsigned.",
        "",
        "## Configurations",
        "",
        "Every legal configuration (`vredmax prove --all` proves every property at each; ELEN=32 is "
        "the Zve32x profile's, from VLEN=32; ELEN=64 from VLEN=64 as in Zve64x, VLEN >= 128 for the V "
        "extension itself):",
        "",
        "| ELEN | VLEN | SEW x LMUL | configurations |",
        "|---|---|---|---|",
    ]
    space = doc["configuration_space"]
    lines += [
        f"| {e['elen']} | {e['vlens'][0]} .. {e['vlens'][1]} | {', '.join(e['pairs'])} | "
        f"{e['configurations']} |"
        for e in space
    ]
    lines += [
        "",
        f"{sum(e['configurations'] for e in space)} in all. This document shows the verdicts "
        f"for these {len(doc['configurations'])} (`vredmax report --all` for every one). Bounds of "
        "every PROVED at a configuration:",
        "",
    ]
    lines += [f"- {doc['bounds'][name]}" for name in doc["bounds"]]
    lines += ["", "## Properties", ""]
    for prop in doc["properties"]:
        lines += [f"### {prop['name']}", "", f"{prop['sentence']} *({prop['kind']})*", ""]
        formula = prop.get("formula")  # absent from documents made before it existed
        if formula and formula["config"] is not None:
            given = " · ".join(formula["assume"])
            lines += [
                f"Readable form: `{'given ' + given + ' ⟹ ' if given else ''}{formula['prove']}` "
                "(the manual page, docs/vredmax.vs.html, explains the notation)",
                "",
            ]
        lines += _statement_lines(prop["statement"]) + [""]
        lines += _property_rows(prop) + [""]
        failures = _failures(prop)
        if failures:
            lines += failures + [""]
    if doc.get("profiles"):  # absent from documents made before it existed
        lines += _profile_lines(doc["profiles"])
    lines += [
        "## How the proofs are done",
        "",
        doc["method"]["description"].rstrip(),
        "",
        doc["method"]["soundness"].rstrip(),
        "",
    ]
    if doc["method"].get("trusted_base"):  # absent from documents made before it existed
        lines += [doc["method"]["trusted_base"].rstrip(), ""]
    lines += [
        "## Wrong assumptions, refuted",
        "",
        "Each is a claim people make about vredmax.vs. A universal claim is refuted by a "
        "counterexample the solver found against the spec relation and the executable model "
        "replayed (minimised: smallest vl, then fewest active lanes); an existential one by a "
        "proof that no state meets it. A claim the solver cannot refute is a failure.",
        "",
    ]
    for claim in doc["claims"]:
        lines += [
            f"### {claim['id']}: {claim['status'].upper()}",
            "",
            f"- Claim: {claim['sentence']}",
            f"- Source: {claim['source']}",
            f"- Formal: `{claim['statement']}`",
            f"- Solver: {claim['verdict']}: {claim['detail']}",
        ]
        lines += [f"- Bounds: {b}" for b in claim["bounds"]]
        if claim["counterexample_text"]:
            lines += ["", "```"] + claim["counterexample_text"] + ["```"]
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"
