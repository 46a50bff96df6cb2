"""The certificate route: every solver question decided again, without any SMT solver's word.

A question is `assumptions => goal` (the solver said PROVED: the assumptions can hold, and
they with the negated goal cannot) or "can the assumptions hold". For each claim the solver's
answer makes, the route bit-blasts the terms the solver was given (blast.py) and asks a SAT
solver (sat.py): a claim of unsatisfiability is CERTIFIED when the SAT solver's DRAT proof of
the CNF passes the checker (check.py), a claim of satisfiability when the SAT solver's model
satisfies the CNF (checked here, clause by clause). If the route finds the opposite (a model
where the solver said unsat, a checked refutation where it said sat), that is an ERROR that
names both answers. A CNF over MAX_CLAUSES, a SAT solver out of time, a term outside the
fragment leave the question UNCERTIFIED, with figures.

Z3 gives hints only, each checked by what follows it: an unsat core of the asserted facts
(the CNF is made of those alone; a sub-CNF refuted refutes the whole; if the SAT solver
satisfies it, the route starts again from all the facts) and a model (the variables are fixed
to it before blasting, which folds the CNF down to almost nothing; if the result is not
satisfiable the variables are left free and the SAT solver searches).
"""

from __future__ import annotations

import time

import z3

from vredmax.proofs.certify import check, sat, store
from vredmax.proofs.certify.blast import FALSE, TRUE, Blaster, NotBlastable, constant, flatten
from vredmax.proofs.engine.solvers import versions
from vredmax.proofs.engine.verdict import VACUOUS, Opinion, Question, Verdict
from vredmax.runtime import interrupts

MAX_CLAUSES = 20_000_000
HINT_MS = 10_000
CERTIFIED, UNCERTIFIED, ERROR = "CERTIFIED", "UNCERTIFIED", "ERROR"


class Judge:
    """The route as a second opinion (proofs/engine/verdict.py): one Opinion per question,
    its files written into `directory`."""

    def __init__(self, directory, timeout_s: float = 60, engine: str = "auto"):
        self.folder = store.query_folder(directory)
        self.timeout_s = timeout_s
        self.engine = engine
        self.records: dict = {}  # a caller may gather the opinions' records here, by ID
        self.subjects: dict = {}  # and which records each (obligation ID, configuration, subject) rests on

    def __call__(self, question: Question) -> Opinion:
        start = time.perf_counter()
        claims = _claims(question)
        record = {
            "about": question.labels,
            "question": "valid" if question.goal is not None else "satisfiable",
            "solver": {"name": question.answer.solver, "verdict": question.answer.verdict.value},
        }
        if not claims:
            return self._opinion(UNCERTIFIED, "the solver did not decide it", record, start)
        results = []  # per claim: its figures, and the texts of its files
        try:
            for claim, facts in claims:
                results.append(self._establish(claim, facts, question.model))
        except NotBlastable as error:
            return self._opinion(UNCERTIFIED, f"outside the bit-blaster's fragment: {error}", record, start)
        texts = [text for result in results for _, text in result["texts"]]
        record["id"] = store.query_id(*(texts or [repr(sorted(question.labels.items())), repr(claims)]))
        for result in results:
            files = {}
            for suffix, text in result.pop("texts"):
                files[suffix.lstrip(".")] = {
                    "path": f"{store.QUERIES}/{record['id']}{suffix}",
                    "sha256": store.write_gz(self.folder / f"{record['id']}{suffix}", text),
                }
            claim = result.pop("claim")
            record[claim] = dict(result, files=files)
        results = [record[claim] for claim, _ in claims]
        contrary = [r for r in results if r["outcome"] == "contrary"]
        if contrary:
            said = _said(question)
            return self._opinion(
                ERROR,
                f"{question.answer.solver} said {said}; the certificate route says "
                f"{'; '.join(r['detail'] for r in contrary)}",
                record,
                start,
            )
        open_ = [r for r in results if r["outcome"] != "agrees"]
        if open_:
            return self._opinion(UNCERTIFIED, "; ".join(r["detail"] for r in open_), record, start)
        return self._opinion(CERTIFIED, "", record, start)

    def _opinion(self, status, detail, record, start) -> Opinion:
        record.update(verdict=status, detail=detail, seconds=round(time.perf_counter() - start, 3))
        return Opinion(status, detail, record)

    def _establish(self, claim: str, facts, model_hint) -> dict:
        """Figures, outcome (agrees, contrary, gave up), detail and the texts of its files."""
        leaves, texts = flatten(facts), []
        if claim == "satisfiable":
            result = self._satisfiable(leaves, model_hint, texts)
        else:
            result = self._unsatisfiable(leaves, texts)
        return dict(result, texts=texts)

    # satisfiable: a model of the CNF ---------------------------------------------------------

    def _satisfiable(self, leaves, model_hint, texts) -> dict:
        model = model_hint if model_hint is not None else _z3_model(leaves)
        blaster, fixed = Blaster(), False
        if model is not None:
            fixed = _fix(blaster, leaves, model)
        clauses = blaster.circuit.cnf(blaster.assert_all(leaves))
        if len(clauses) > MAX_CLAUSES:
            return {
                "claim": "satisfiable",
                "variables": blaster.circuit.variables,
                "clauses": len(clauses),
                "outcome": "gave up",
                "detail": f"too large for the route: {blaster.circuit.variables} "
                f"variables, {len(clauses)} clauses",
            }
        solved = self._solve(clauses, proof=False)
        if solved.status != "sat" and fixed:  # Z3's model does not do: search without it
            blaster, fixed = Blaster(), False
            clauses = blaster.circuit.cnf(blaster.assert_all(leaves))
            solved = self._solve(clauses, proof=True)
        result = {
            "claim": "satisfiable",
            "variables": blaster.circuit.variables,
            "clauses": len(clauses),
            "fixed_by_a_model": fixed,
            "solve_seconds": round(solved.seconds, 3),
        }
        if solved.status == "sat":
            wrong = check.satisfies(clauses, solved.model)
            if wrong:
                return dict(result, outcome="gave up", detail=f"the SAT solver's model is wrong: {wrong}")
            texts.append(
                (
                    ".sat.cnf.gz",
                    check.dimacs(
                        blaster.circuit.variables,
                        clauses,
                        [store.MODEL_PREFIX + " ".join(map(str, solved.model)) + " 0"],
                    ),
                )
            )
            return dict(result, outcome="agrees", detail="")
        if solved.status == "unsat":
            checked = self._check(blaster.circuit.variables, clauses, solved.proof)
            if checked.ok:  # the evidence is kept: the CNF and its refutation
                texts.append((".cnf.gz", check.dimacs(blaster.circuit.variables, clauses)))
                texts.append((".drat.gz", "\n".join(solved.proof) + "\n"))
                return dict(
                    result, outcome="contrary", detail="unsatisfiable (a checked DRAT refutation of its CNF)"
                )
            return dict(
                result,
                outcome="gave up",
                detail=f"the SAT solver said unsat, its proof failed: {checked.reason}",
            )
        return dict(result, outcome="gave up", detail=f"{solved.reason} ({len(clauses)} clauses)")

    # unsatisfiable: a checked DRAT refutation ------------------------------------------------

    def _unsatisfiable(self, leaves, texts) -> dict:
        if _clash(leaves):  # a fact and its negation: one variable names it, whatever it says
            blaster, clauses, used = None, [[TRUE], [2], [-2]], 2
        else:
            core = _z3_core(leaves)
            chosen = [leaves[i] for i in core] if core is not None else leaves
            blaster, clauses = self._blast(chosen)
            used = len(chosen)
        variables = blaster.circuit.variables if blaster is not None else 2
        result = {"claim": "unsatisfiable", "facts": len(leaves), "facts_used": used}
        if len(clauses) > MAX_CLAUSES:
            return dict(
                result,
                variables=variables,
                clauses=len(clauses),
                outcome="gave up",
                detail=f"too large for the route: {variables} variables, {len(clauses)} clauses",
            )
        solved = self._solve(clauses, proof=True)
        if solved.status == "sat" and used < len(leaves):  # the hint was wrong: all the facts
            blaster, clauses = self._blast(leaves)
            variables, used = blaster.circuit.variables, len(leaves)
            result["facts_used"] = used
            solved = self._solve(clauses, proof=True)
        result.update(variables=variables, clauses=len(clauses), solve_seconds=round(solved.seconds, 3))
        if solved.status == "sat":
            wrong = check.satisfies(clauses, solved.model)
            if wrong:
                return dict(result, outcome="gave up", detail=f"the SAT solver's model is wrong: {wrong}")
            texts.append(
                (
                    ".sat.cnf.gz",
                    check.dimacs(
                        variables,
                        clauses,
                        [  # the evidence, kept
                            store.MODEL_PREFIX + " ".join(map(str, solved.model)) + " 0"
                        ],
                    ),
                )
            )
            return dict(
                result,
                outcome="contrary",
                detail=f"satisfiable (a model of its CNF of {len(clauses)} clauses)",
            )
        if solved.status != "unsat":
            return dict(
                result,
                outcome="gave up",
                detail=f"{solved.reason} ({variables} variables, {len(clauses)} clauses)",
            )
        checked = self._check(variables, clauses, solved.proof)
        proof_text = "\n".join(solved.proof) + "\n"
        result.update(
            proof_steps=len(solved.proof),
            proof_bytes=len(proof_text),
            check_seconds=round(checked.seconds, 3),
            checker=checked.engine,
        )
        if not checked.ok:
            return dict(
                result, outcome="gave up", detail=f"the DRAT checker rejected the proof: {checked.reason}"
            )
        texts.append((".cnf.gz", check.dimacs(variables, clauses)))
        texts.append((".drat.gz", proof_text))
        return dict(result, outcome="agrees", detail="")

    def _blast(self, leaves):
        blaster = Blaster()
        literals = blaster.assert_all(leaves)
        clash = _literal_clash(literals)
        if clash:
            return blaster, [[TRUE]] + [[literal] for literal in clash]
        return blaster, blaster.circuit.cnf(literals)

    def _solve(self, clauses, proof: bool):
        return sat.solve(clauses, proof, self.timeout_s)

    def _check(self, variables, clauses, proof_lines):
        return check.check_refutation(variables, clauses, check.read_drat(proof_lines), self.engine)


_BY_DIRECTORY: dict = {}


def judge_for(directory, timeout_s: float = 60) -> Judge:
    """One judge per certificate directory in a process: answers it judged are kept across
    configurations (the ELEN twins share them) and stay CERTIFIED."""
    key = (str(directory), timeout_s)
    if key not in _BY_DIRECTORY:
        _BY_DIRECTORY[key] = Judge(directory, timeout_s)
    return _BY_DIRECTORY[key]


def opinions_of(answers) -> list:
    """Every opinion on the questions of these answers (a result's parts), first first."""
    return [opinion for answer in answers for opinion in answer.opinions]


def certified(answers) -> bool:
    """Every question these answers rest on was judged, and CERTIFIED."""
    answers = list(answers)
    return all(a.judged for a in answers) and all(o.status == CERTIFIED for o in opinions_of(answers))


def write_manifest(directory, queries: dict, lines: list, certified_lines: int, field: str) -> None:
    """DIR/manifest.json (schema certify-manifest): the queries' records, the verdict lines."""
    from vredmax.schema import tagged

    counts = {
        status: sum(1 for q in queries.values() if q["verdict"] == status)
        for status in (CERTIFIED, UNCERTIFIED, ERROR)
    }
    store.write_manifest(
        directory,
        tagged(
            "certify-manifest",
            {
                "tools": {
                    "sat_solver": sat.solver_name(),
                    "checker": check.engine_name(),
                    "smt_solvers": versions(),
                },
                "summary": {
                    "queries": len(queries),
                    **counts,
                    "obligation_lines": len(lines),
                    "certified_lines": certified_lines,
                },
                "queries": sorted(queries.values(), key=lambda q: q["id"]),
                "obligations": lines,
            },
        ),
        field,
    )


def _claims(question: Question) -> list:
    """What the solver's answer claims, as (satisfiable|unsatisfiable, facts)."""
    verdict, facts = question.answer.verdict, [(a, True) for a in question.assumptions]
    vacuous = verdict == Verdict.ERROR and question.answer.detail == VACUOUS
    if vacuous:
        return [("unsatisfiable", facts)]
    if question.goal is None:
        return [("satisfiable", facts)] if verdict == Verdict.PROVED else []
    negated = facts + [(question.goal, False)]
    if verdict == Verdict.PROVED:
        return [("satisfiable", facts), ("unsatisfiable", negated)]
    if verdict == Verdict.COUNTEREXAMPLE:
        return [("satisfiable", negated)]
    return []


def _said(question: Question) -> str:
    verdict = question.answer.verdict
    if verdict == Verdict.PROVED:
        return "the goal follows" if question.goal is not None else "the assumptions can hold"
    if verdict == Verdict.COUNTEREXAMPLE:
        return "the goal can fail"
    return "the assumptions cannot hold"


def _clash(leaves) -> bool:
    seen = {(term.get_id(), positive) for term, positive in leaves}
    return any((term.get_id(), not positive) in seen for term, positive in leaves)


def _literal_clash(literals):
    seen = set(literals)
    for literal in literals:
        if literal == FALSE:
            return [FALSE]
        if -literal in seen:
            return [literal, -literal]
    return None


# Hints from Z3 (never answers) ----------------------------------------------------------------

_CONTEXT: list = []


def _context():
    if not _CONTEXT:
        _CONTEXT.append(interrupts.z3_context(z3.Context()))
    return _CONTEXT[0]


def _z3_core(leaves):
    """Indices of facts whose conjunction Z3 finds unsatisfiable, or None."""
    context = _context()
    solver = z3.Solver(ctx=context)
    solver.set(timeout=HINT_MS)
    trackers = []
    for index, (term, positive) in enumerate(leaves):
        fact = term.translate(context)
        tracker = z3.Bool(f"vredmax_fact_{index}", context)
        solver.add(z3.Implies(tracker, fact if positive else z3.Not(fact)))
        trackers.append(tracker)
    if solver.check(*trackers) != z3.unsat:
        return None
    used = {str(tracker) for tracker in solver.unsat_core()}
    return [index for index, tracker in enumerate(trackers) if str(tracker) in used]


def _z3_model(leaves):
    context = _context()
    solver = z3.Solver(ctx=context)
    solver.set(timeout=HINT_MS)
    for term, positive in leaves:
        fact = term.translate(context)
        solver.add(fact if positive else z3.Not(fact))
    return solver.model() if solver.check() == z3.sat else None


def _fix(blaster: Blaster, leaves, model) -> bool:
    """Give every variable of the facts its value in the model (a hint). False if some value
    cannot be read (the variables then stay free)."""
    context = model.ctx
    try:
        for variable in _variables([term for term, _ in leaves]):
            there = variable if variable.ctx is context else variable.translate(context)
            blaster.fix(variable, _value_in(model, there, variable.sort()))
    except (NotBlastable, z3.Z3Exception):
        return False
    return True


def _value_in(model, variable, sort):
    kind = sort.kind()
    if kind == z3.Z3_BOOL_SORT:
        return TRUE if z3.is_true(model.eval(variable, model_completion=True)) else FALSE
    if kind == z3.Z3_BV_SORT:
        return constant(model.eval(variable, model_completion=True).as_long(), sort.size())
    if kind == z3.Z3_ARRAY_SORT and sort.domain().kind() == z3.Z3_BV_SORT and sort.domain().size() <= 8:
        width = sort.domain().size()
        return tuple(
            _value_in(model, z3.Select(variable, z3.BitVecVal(k, width, variable.ctx)), sort.range())
            for k in range(1 << width)
        )
    raise NotBlastable(f"a model value of sort {sort}")


def _variables(terms):
    """The uninterpreted constants of the terms."""
    seen, found, stack = set(), {}, list(terms)
    while stack:
        term = stack.pop()
        if term.get_id() in seen:
            continue
        seen.add(term.get_id())
        if z3.is_const(term) and term.decl().kind() == z3.Z3_OP_UNINTERPRETED:
            found[term.get_id()] = term
        stack.extend(term.children())
    return list(found.values())
