"""Re-run the five gates and both sweeps on a built dataset (ours or the original release).

Checks, each reported as passed/failed counts plus findings that name the query or file:

- ``checksums``: every file listed in ``SHA256SUMS`` exists with that digest (when the file exists);
- gates 1-5 (``gates``), with the test format relaxed to "calls the target" because the original
  release has a few multi-statement tests; the target name comes from the query record or, in
  the release, from the canonical's module-level function that the tests call;
- ``mutant_edit``: a mutant with a recorded span is exactly ``canonical[:s] + after + canonical[e:]``;
- ``execution_cache``: every (snippet, own tests) outcome list in the cache equals a fresh run
  (rows with a timeout are not compared: their outcome depends on machine speed);
- both sweeps (``sweeps``).
Execution goes through ``oracle.api.run_suites`` in one batched call.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..dataset import manifest
from ..dataset.io import BuiltDataset, load_dataset
from ..dataset.schema import CorpusRecord, Label, QueryRecord
from ..oracle import api as oracle_api
from ..oracle.outcomes import OutcomeKind, Suite
from .gates import (
    Gate,
    IntegrityQuery,
    check_ast,
    check_canonical,
    check_corpus_integrity,
    check_mutants,
    check_schema,
)
from .sweeps import CrossResult, Sweep, cross_canonical_pairs
from ..oracle.agreement import raises_tests

CHECKSUMS, MUTANT_EDIT, EXECUTION_CACHE = "checksums", "mutant_edit", "execution_cache"


@dataclass(frozen=True)
class Finding:
    check: str
    subject: str
    reason: str


@dataclass
class ValidationReport:
    root: Path
    queries: int = 0
    snippets: int = 0
    executed: bool = True
    counts: dict[str, dict[str, int]] = field(default_factory=dict)
    findings: list[Finding] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.findings

    def record(self, check: str, subject: str, reasons: Sequence[str]) -> None:
        entry = self.counts.setdefault(check, {"passed": 0, "failed": 0})
        entry["failed" if reasons else "passed"] += 1
        self.findings.extend(Finding(check, subject, r) for r in reasons)


@dataclass(frozen=True)
class _Unit:
    """One query with its canonical and mutants resolved from the corpus."""

    query: QueryRecord
    function_name: str
    canonical: CorpusRecord | None
    mutants: tuple[CorpusRecord, ...]


def _infer_target(query: QueryRecord, canonical: CorpusRecord | None) -> str:
    if query.function_name:
        return query.function_name
    if canonical is None:
        return ""
    try:
        defined = [
            n.name for n in ast.parse(canonical.code).body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
        ]
    except SyntaxError:
        return ""
    called = set()
    for test in query.test_suite:
        try:
            called |= {
                n.func.id for n in ast.walk(ast.parse(test)) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
            }
        except SyntaxError:
            continue
    return next((name for name in defined if name in called), defined[0] if defined else "")


def _units(data: BuiltDataset) -> list[_Unit]:
    by_id = {c.corpus_id: c for c in data.corpus}
    by_entry: dict[str, list[CorpusRecord]] = {}
    for record in data.corpus:
        if record.label is Label.INCORRECT:
            by_entry.setdefault(record.source_entry_id, []).append(record)
    units = []
    for query in data.queries:
        canonical = by_id.get(query.correct_corpus_ids[0]) if query.correct_corpus_ids else None
        if query.paired_distractor_corpus_ids:
            mutants = tuple(by_id[c] for c in query.paired_distractor_corpus_ids if c in by_id)
        else:
            mutants = tuple(by_entry.get(query.entry_id, ()))
        units.append(_Unit(query, _infer_target(query, canonical), canonical, mutants))
    return units


def _check_sums(root: Path, report: ValidationReport) -> None:
    try:
        entries = manifest.read_sums(root)
    except manifest.ManifestError as exc:
        report.record(CHECKSUMS, manifest.SUMS, [str(exc)])
        return
    if entries is None:
        return
    bad = manifest.mismatches(root, entries)
    for rel in sorted(entries):
        problem = {"missing": f"{rel} is missing", "changed": f"{rel} does not match its digest (file changed)"}
        report.record(CHECKSUMS, rel, [f"{manifest.SUMS}: {problem[bad[rel]]}"] if rel in bad else [])


def validate_dataset(
    root: Path | str, *, execute: bool = True, workers: int | None = None, progress: bool = False
) -> ValidationReport:
    """Validate the dataset at ``root``; an unreadable dataset raises ``DatasetError``."""
    root = Path(root)
    data = load_dataset(root, verify=False)
    report = ValidationReport(root=root, queries=len(data.queries), snippets=len(data.corpus), executed=execute)
    _check_sums(root, report)
    units = _units(data)
    distractors = {d.corpus_id: d for d in data.distractors}

    for unit in units:
        qid = unit.query.query_id
        schema = check_schema(unit.query.query, unit.query.test_suite, len(unit.mutants))
        if unit.canonical is None:
            schema.append("has no canonical in the corpus")
        report.record(Gate.SCHEMA.value, qid, schema)
        if unit.canonical is not None:
            report.record(
                Gate.AST_SEMANTICS.value,
                qid,
                check_ast(
                    unit.function_name,
                    unit.canonical.code,
                    unit.query.test_suite,
                    [m.code for m in unit.mutants],
                    single_statement=False,
                ),
            )
            edits = []
            for mutant in unit.mutants:
                meta = distractors.get(mutant.corpus_id)
                if meta is None or meta.span is None or meta.after is None:
                    continue
                start, end = meta.span
                text = unit.canonical.code
                if (
                    text[start:end] != (meta.before if meta.before is not None else text[start:end])
                    or text[:start] + meta.after + text[end:] != mutant.code
                ):
                    edits.append(f"mutant {mutant.corpus_id} is not the recorded edit of its canonical")
            report.record(MUTANT_EDIT, qid, edits)

    integrity = check_corpus_integrity(
        [
            IntegrityQuery(
                u.query.query_id, u.function_name, u.query.correct_corpus_ids, tuple(m.corpus_id for m in u.mutants)
            )
            for u in units
        ],
        [(c.corpus_id, c.code) for c in data.corpus],
    )
    for unit in units:
        report.record(
            Gate.CORPUS_INTEGRITY.value, unit.query.query_id, [r for q, r in integrity if q == unit.query.query_id]
        )
    for _, reason in (p for p in integrity if p[0] is None):
        report.record(Gate.CORPUS_INTEGRITY.value, "corpus", [reason])

    if execute:
        _execute(units, data, report, workers, progress)
    return report


def _execute(
    units: Sequence[_Unit], data: BuiltDataset, report: ValidationReport, workers: int | None, progress: bool
) -> None:
    runnable = [u for u in units if u.canonical is not None]
    own = [(u, rec) for u in runnable for rec in (u.canonical, *u.mutants)]
    own_suites = [Suite(rec.code, u.query.test_suite) for u, rec in own]
    tests_by_target = {u.function_name: u.query.test_suite for u in runnable if u.function_name}
    items = [(u.function_name, rec.code) for u, rec in own]
    pairs = cross_canonical_pairs(items, tests_by_target)
    suites = own_suites + [p.suite for p in pairs]
    unique = list(dict.fromkeys(suites))
    results = dict(zip(unique, oracle_api.run_suites(unique, workers=workers, progress=progress)))

    position = 0
    for unit in runnable:
        qid = unit.query.query_id
        canonical_result = results[own_suites[position]]
        mutant_results = [results[own_suites[position + 1 + i]] for i in range(len(unit.mutants))]
        report.record(Gate.CANONICAL_EXECUTION.value, qid, check_canonical(canonical_result, unit.query.test_suite))
        report.record(
            Gate.MUTANT_EXECUTION.value, qid, check_mutants(mutant_results, raises_tests(unit.query.test_suite))
        )
        cache_problems = []
        for offset, result in enumerate([canonical_result, *mutant_results]):
            suite = own_suites[position + offset]
            cached = data.execution_cache.get((suite.code_sha256, suite.tests_sha256))
            if cached is None:
                cache_problems.append(
                    f"no execution_cache row for {own[position + offset][1].corpus_id} on its own tests"
                )
            elif (
                tuple(cached) != result.outcomes
                and not result.timed_out
                and not any(o.kind is OutcomeKind.TIMEOUT for o in cached)
            ):
                cache_problems.append(
                    f"execution_cache row for {own[position + offset][1].corpus_id} differs from a fresh run"
                )
        report.record(EXECUTION_CACHE, qid, cache_problems)
        position += 1 + len(unit.mutants)

    sanity = [
        f"{rec.corpus_id} ({rec.label.value}) {'fails' if rec.label is Label.CORRECT else 'passes'} its own tests"
        for (u, rec), s in zip(own, own_suites)
        if results[s].passed != (rec.label is Label.CORRECT)
    ]
    report.record(Sweep.DISTRACTOR_SANITY.value, "corpus", sanity)
    cross = [CrossResult(p, results[p.suite]) for p in pairs]
    collisions = [
        f"{own[r.pair.item][1].corpus_id} defines {r.pair.target} and passes that query's tests"
        for r in cross
        if r.collision
    ]
    report.record(Sweep.CROSS_CANONICAL.value, "corpus", collisions)
    report.counts[Sweep.CROSS_CANONICAL.value]["pairs_run"] = len(pairs)
