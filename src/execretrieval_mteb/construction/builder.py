"""The whole build: tasks -> gates 1-2 -> mutants -> execution -> gates 3-4 -> selection -> sweeps -> gate 5 -> files.

Execution always goes through ``oracle.api.run_suites``, each call batched over all tasks:

1. every canonical on its tests and against its validation-only reference, and every realistic
   candidate on its task's tests (every one: a candidate the tests miss must be found);
2. agreement runs, each candidate against its canonical on the generated inputs: every candidate
   that survives the tests (equivalent or live), the ``candidates_per_type`` most preferred
   usable ones of each bug type, and whatever the selection picks that is not verified yet, with
   mutant-against-mutant runs for picks that might be the same program; repeated (at most
   ``VERIFY_ROUNDS`` calls) until the picks are all verified, which gives the same choice as
   verifying every candidate;
3. stacked mutants of the shipping tasks (a second call only for sizes whose first composition
   was not verified);
4. the sweeps, a second uncached run of every chosen snippet (stacked ones too) plus the
   cross-canonical pairs, repeated (at most ``SWEEP_ATTEMPTS`` times in all) only for tasks that
   re-selected around an unstable mutant.

A task that fails a gate or a sweep is excluded and listed with its reasons in the report.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from pathlib import Path
from typing import Any

from tqdm import tqdm

from ..dataset import layout
from ..dataset.schema import BugType
from ..oracle import api as oracle_api
from ..oracle.limits import Limits
from ..oracle.outcomes import Suite, SuiteResult
from .gates import (
    Gate,
    GateFailure,
    IntegrityQuery,
    check_ast,
    check_canonical,
    check_corpus_integrity,
    check_live,
    check_mutants,
    check_reference,
    check_schema,
)
from .ids import assign_ids, assign_stacked_ids
from .mutation import Enumeration, count_removed, enumerate_candidates
from .qrels_check import require_passing_equals_qrels
from .report import build_report, domain_table, dumps_report
from .selection import (
    MUTANTS_PER_TASK,
    Rejection,
    SamePrograms,
    Verdict,
    counts_by_bug_type,
    judge,
    ranked,
    rejection_counts,
    select_mutants,
)
from .stacked import StackedMutant, pick_stacked, stack_candidates
from .sweeps import CrossPair, CrossResult, Sweep, cross_canonical_pairs, summarise_cross
from .rule_variants import check_rules, variant_suites
from .task_files import AuthoredTask, load_task_files
from ..oracle.agreement import (
    Agreement,
    ValidationSetupError,
    mutant_suite,
    raises_tests,
    read_agreement,
    read_mutant_agreement,
    reference_suite,
)
from .writer import ShippedTask, card_text, dataset_records

DEFAULT_CANDIDATES_PER_TYPE = 1
SWEEP_ATTEMPTS = 3
VERIFY_ROUNDS = 12
BUILD_LIMITS = Limits(test_cpu_s=0.1, test_wall_s=10.0, suite_wall_s=60.0)
"""Oracle limits for every build run: a tight CPU budget per test (tests must run well under
100 ms) and generous wall-clock budgets. Verdicts then depend on CPU time, not on how busy the
machine is, and anything near a limit times out here and is rejected, so no shipped snippet is
close to the default limits the evaluation runs under."""
NO_VALIDATION = (
    "no [validation] table: add an independent reference and an inputs(rng) generator of typical valid "
    "inputs (tasks/README.md); the build needs them to tell equivalent mutants from bugs the tests miss"
)


@dataclass(frozen=True)
class BuildOptions:
    tasks_dir: Path
    out_dir: Path
    seed: int = 0
    candidates_per_type: int = DEFAULT_CANDIDATES_PER_TYPE  # agreement runs up front per bug type; 0: all
    workers: int | None = None
    progress: bool = False
    oracle_cache: Path | None = None  # the oracle's verdict cache for rounds 1-3 (never for the sweeps)


@dataclass(frozen=True)
class BuildResult:
    out_dir: Path
    report: dict[str, Any]
    sums: str
    table: str


@dataclass
class _Ledger:
    """Which tasks each gate saw and which it excluded, with reasons."""

    evaluated: dict[Gate, set[str]] = field(default_factory=dict)
    exclusions: dict[str, list[GateFailure]] = field(default_factory=dict)

    def check(self, gate: Gate, path: str, reasons: Sequence[str]) -> bool:
        self.evaluated.setdefault(gate, set()).add(path)
        if reasons and path not in self.exclusions:
            self.exclusions[path] = [GateFailure(gate, r) for r in reasons]
        return not reasons

    def counts(self) -> dict[Gate, dict[str, int]]:
        out = {}
        for gate in Gate:
            seen = self.evaluated.get(gate, set())
            failed = {p for p in seen if p in self.exclusions and self.exclusions[p][0].gate is gate}
            out[gate] = {"passed": len(seen - failed), "failed": len(failed)}
        return out


class _Runner:
    """Runs suites through the oracle, de-duplicated, one batched call each time.

    A suite the oracle could not judge (its harness failed twice) does not stop the build: it is
    rejected or excluded like any unusable result, counted, and named in the log.
    """

    def __init__(self, options: BuildOptions, log: Callable[[str], None]) -> None:
        self.options, self.log = options, log
        self.executed = 0
        self.calls = 0
        self.not_judged = 0

    def __call__(self, suites: Sequence[Suite], use_cache: bool = True) -> list[SuiteResult]:
        unique = list(dict.fromkeys(suites))
        if not unique:
            return []
        extra = {"cache": str(self.options.oracle_cache)} if use_cache and self.options.oracle_cache else {}
        results = oracle_api.run_suites(
            unique, workers=self.options.workers, progress=self.options.progress, limits=BUILD_LIMITS, **extra
        )
        if len(results) != len(unique):
            raise RuntimeError(f"oracle returned {len(results)} results for {len(unique)} suites")
        self.executed += len(unique)
        self.calls += 1
        failed = [r for r in results if r.infra_error is not None]
        if failed:
            self.not_judged += len(failed)
            self.log(f"{len(failed)} suite(s) could not be judged by the oracle (first: {failed[0].infra_error})")
        by_suite = dict(zip(unique, results))
        return [by_suite[s] for s in suites]


def _cache_row(suite: Suite, result: SuiteResult) -> dict[str, Any]:
    return {
        "code_sha256": suite.code_sha256,
        "tests_sha256": suite.tests_sha256,
        "test_results": result.outcome_strings(),
    }


def build(options: BuildOptions, log: Callable[[str], None] = lambda _m: None) -> BuildResult:
    """Build the dataset described by ``options``; user errors raise ``ExecRetrievalError``."""
    layout.prepare_out_dir(Path(options.out_dir))
    return _Build(options, log).run()


@dataclass(frozen=True)
class _Sweeps:
    summary: dict[str, Any]
    own: list[tuple[Suite, SuiteResult]]  # every shipped-candidate snippet on its own tests (second run)
    cross: list[CrossResult]
    stacked: dict[str, list[StackedMutant]]  # per task, the stacked mutants that were stable and collided with nothing
    stacked_runs: list[tuple[Suite, SuiteResult, str | None]]  # second runs: own tests (None) and cross pairs (target)


@dataclass
class _Stacking:
    """Stacked mutants of the shipping tasks after verification (before the sweeps' second run)."""

    chosen: dict[str, list[StackedMutant]] = field(default_factory=dict)
    results: dict[str, SuiteResult] = field(default_factory=dict)  # first run on own tests, by code
    tried: int = 0
    rejected: Counter[str] = field(default_factory=Counter)


class _Build:
    """The stages of one build, sharing the options, the oracle runner and the gate ledger."""

    def __init__(self, options: BuildOptions, log: Callable[[str], None]) -> None:
        self.options, self.log, self.seed = options, log, options.seed
        self.execute = _Runner(options, log)
        self.ledger = _Ledger()
        self.enumerations: dict[str, Enumeration] = {}
        self.canonical_results: dict[str, SuiteResult] = {}
        self.references: dict[str, Agreement] = {}
        self.verdicts: dict[str, list[Verdict]] = {}
        self.same: dict[str, SamePrograms] = {}
        self.rule_misses: dict[str, list[str]] = {}  # gate 4 reasons: stated rules no test pins
        self.runs: Counter[str] = Counter()  # suites by purpose, for the report

    def run(self) -> BuildResult:
        tasks, problems = load_task_files(self.options.tasks_dir)
        for problem in problems:
            self.ledger.check(Gate.SCHEMA, problem.path, [problem.reason])
        task_paths = sorted([t.path for t in tasks] + [p.path for p in problems])
        self.log(f"{len(task_paths)} task files, {len(problems)} not readable as tasks")
        alive = self.static_gates(tasks)
        self.enumerations = {
            t.path: enumerate_candidates(t.canonical)
            for t in tqdm(alive, desc="mutants", disable=not self.options.progress)
        }
        alive = self.execute_candidates(alive)
        alive = self.verify(alive)
        chosen = self.select(alive)
        shipping = [t for t in alive if t.path in chosen]
        stacking = self.stack(shipping)
        sweeps = self.sweep(shipping, chosen, stacking)
        shipped = self.assemble([t for t in shipping if t.path not in self.ledger.exclusions], chosen)
        stacked = [s for item in shipped for s in sweeps.stacked.get(item.task.path, [])]
        stacked_ids = assign_stacked_ids([(s.source_entry_id, s.code) for s in stacked], self.seed)
        stacked_rows = [s.to_row(cid) for s, cid in zip(stacked, stacked_ids)]
        cache_rows = _cache_rows(shipped, sweeps, stacked)
        all_verdicts = [v for path in sorted(self.verdicts) for v in self.verdicts[path]]
        report = build_report(
            seed=self.seed,
            settings={
                "candidates_per_type": self.options.candidates_per_type,
                "mutants_per_task": MUTANTS_PER_TASK,
                "oracle_limits": BUILD_LIMITS.to_json(),
            },
            task_paths=task_paths,
            shipped=shipped,
            exclusions=self.ledger.exclusions,
            gate_counts=self.ledger.counts(),
            sweeps=sweeps.summary,
            candidates={
                "enumerated": sum(len(e.mutants) for e in self.enumerations.values()),
                "enumerated_by_bug_type": {
                    b.value: sum(1 for e in self.enumerations.values() for m in e.mutants if m.bug_type is b)
                    for b in BugType
                },
                "removed_by_rule": count_removed(list(self.enumerations.values())),
                "executed": len(all_verdicts),
                **rejection_counts(all_verdicts),
                "verdicts_by_bug_type": counts_by_bug_type(all_verdicts),
                "same_program_pairs": sum(len(s.same) for s in self.same.values()),
                "rule_variants": {
                    "tasks_with_rules": sum(1 for t in tasks if t.rules),
                    "variants": sum(len(t.rules) for t in tasks),
                    "missed_by_tests": sum(len(m) for m in self.rule_misses.values()),
                },
                "runs": {k: self.runs[k] for k in sorted(self.runs)},
                "oracle_calls": self.execute.calls,
                "execution_cache_rows": len(cache_rows),
                "oracle_not_judged": self.execute.not_judged,
            },
            equivalents={
                path: [v.mutant for v in verdicts if v.rejection is Rejection.EQUIVALENT]
                for path, verdicts in self.verdicts.items()
            },
            validation={path: self.references.get(path) for path in self.enumerations},
            stacked=_stacked_summary(stacking, stacked),
        )
        table = domain_table(report)
        records = dataset_records(shipped, cache_rows, stacked_rows)
        require_passing_equals_qrels(records.queries, records.corpus, records.execution_cache)  # mteb scores qrels
        files = layout.render(records)
        files["build_report.json"] = dumps_report(report)
        files["README.md"] = card_text(table, len(shipped), report["counts"]["snippets"])
        sums = layout.write_dataset(Path(self.options.out_dir), files)
        return BuildResult(Path(self.options.out_dir), report, sums, table)

    def static_gates(self, tasks: Sequence[AuthoredTask]) -> list[AuthoredTask]:
        """Gates 1-2 before execution, and unique target names (gate 5)."""
        names = Counter(t.function_name for t in tasks)
        alive = []
        for task in tasks:
            if not self.ledger.check(Gate.SCHEMA, task.path, check_schema(task.query, task.tests, None)):
                continue
            if not self.ledger.check(
                Gate.AST_SEMANTICS, task.path, check_ast(task.function_name, task.canonical, task.tests)
            ):
                continue
            if names[task.function_name] > 1:
                others = ", ".join(
                    t.path for t in tasks if t.function_name == task.function_name and t.path != task.path
                )
                self.ledger.check(
                    Gate.CORPUS_INTEGRITY,
                    task.path,
                    [f"target name {task.function_name} is also used by {others}; rename one"],
                )
                continue
            alive.append(task)
        return alive

    def execute_candidates(self, alive: Sequence[AuthoredTask]) -> list[AuthoredTask]:
        """Round 1 (canonicals, references, every candidate on its tests) and gate 3.

        A task without a ``[validation]`` table fails gate 3 without running: its candidates
        could be neither told equivalent nor proven wrong on a typical input.
        """
        runnable = [
            t
            for t in alive
            if self.ledger.check(Gate.CANONICAL_EXECUTION, t.path, [] if t.validation else [NO_VALIDATION])
        ]
        suites = [Suite(t.canonical, t.tests) for t in runnable]
        suites += [reference_suite(t.canonical, t.function_name, *_validation(t)) for t in runnable]
        suites += [Suite(m.code, t.tests) for t in runnable for m in self.enumerations[t.path].mutants]
        rule_suites = [s for t in runnable for s in variant_suites(t.rules, t.tests)]
        self.log(
            f"round 1: {len(suites) + len(rule_suites)} suites ({len(runnable)} canonicals, their references, "
            "every candidate and every stated-rule variant)"
        )
        self.runs["candidate_tests"] += len(suites) - 2 * len(runnable)
        self.runs["rule_variant_tests"] += len(rule_suites)
        suites += rule_suites
        self.runs["canonical_references"] += len(runnable)
        results = iter(self.execute(suites))
        self.canonical_results = {t.path: next(results) for t in runnable}
        reference_results = {t.path: next(results) for t in runnable}
        gate3: dict[str, list[str]] = {}
        for task in runnable:
            reasons = check_canonical(self.canonical_results[task.path], task.tests)
            try:
                self.references[task.path] = read_agreement(reference_results[task.path])
                reasons += check_reference(self.references[task.path])
            except ValidationSetupError as exc:
                reasons.append(str(exc))
            gate3[task.path] = reasons
            raises = raises_tests(task.tests)
            self.verdicts[task.path] = [Verdict(m, next(results), raises) for m in self.enumerations[task.path].mutants]
        for task in runnable:
            rules = task.rules
            self.rule_misses[task.path] = check_rules(rules, [next(results) for _ in rules])
        passing = [t for t in runnable if self.ledger.check(Gate.CANONICAL_EXECUTION, t.path, gate3[t.path])]
        for task in passing:
            self.same[task.path] = SamePrograms()
        return passing

    def verify(self, alive: Sequence[AuthoredTask]) -> list[AuthoredTask]:
        """Round 2: agreement runs until every pick is verified; live mutants fail gate 4.

        The first call compares every test survivor with its canonical (equivalent or live) and
        the most preferred usable candidates of each type; each later call only what the
        (optimistic) selection picked without a verdict: candidates not compared yet and pairs
        that might be one program.
        """
        by_path = {t.path: t for t in alive}
        per_type = self.options.candidates_per_type
        wanted: dict[str, list[Verdict]] = {}
        first = self._choose(alive, optimistic=True)
        for task in alive:
            verdicts = self.verdicts[task.path]
            survivors = [v for v in verdicts if v.rejection is Rejection.SURVIVOR]
            seen: Counter[BugType] = Counter()
            preferred = []
            for verdict in ranked(verdicts, {}, self.seed, task.function_name, optimistic=True):
                seen[verdict.mutant.bug_type] += 1
                if per_type <= 0 or seen[verdict.mutant.bug_type] <= per_type:
                    preferred.append(verdict)
            wanted[task.path] = list(dict.fromkeys(survivors + preferred + first.get(task.path, [])))
        self._compare(by_path, wanted, [])
        alive = [
            t
            for t in alive
            if self.ledger.check(
                Gate.MUTANT_EXECUTION, t.path, self.rule_misses[t.path] + check_live(self.verdicts[t.path])
            )
        ]
        for _round in range(VERIFY_ROUNDS - 1):
            picks = self._choose(alive, optimistic=True)
            wanted = {path: [v for v in chosen if v.pending] for path, chosen in picks.items()}
            pairs = [
                (path, a, b)
                for path, chosen in picks.items()
                for a, b in combinations(chosen, 2)
                if self.same[path].undecided(a, b)
            ]
            if not any(wanted.values()) and not pairs:
                break
            self._compare(by_path, wanted, pairs)
        return alive

    def _compare(
        self,
        by_path: Mapping[str, AuthoredTask],
        wanted: Mapping[str, Sequence[Verdict]],
        pairs: Sequence[tuple[str, Verdict, Verdict]],
    ) -> None:
        """One call: ``wanted`` candidates against their canonical, ``pairs`` against each other."""
        jobs = [(path, v) for path, verdicts in wanted.items() for v in verdicts]
        suites = [
            mutant_suite(v.mutant.code, by_path[p].function_name, by_path[p].canonical, _validation(by_path[p])[1])
            for p, v in jobs
        ]
        suites += [
            mutant_suite(a.mutant.code, by_path[p].function_name, b.mutant.code, _validation(by_path[p])[1])
            for p, a, b in pairs
        ]
        if not suites:
            return
        self.log(f"round 2: {len(jobs)} candidates against their canonical, {len(pairs)} pairs against each other")
        self.runs["candidate_agreements"] += len(jobs)
        self.runs["same_program_pairs"] += len(pairs)
        results = iter(self.execute(suites))
        updated = {(p, v.mutant.code): v.with_agreement(read_mutant_agreement(next(results))) for p, v in jobs}
        for path in wanted:
            self.verdicts[path] = [updated.get((path, v.mutant.code), v) for v in self.verdicts[path]]
        current = {(p, v.mutant.code): v for p in {p for p, _, _ in pairs} for v in self.verdicts[p]}
        for path, a, b in pairs:
            agreement = read_mutant_agreement(next(results))
            self.same[path].record(current[(path, a.mutant.code)], current[(path, b.mutant.code)], agreement)

    def _choose(self, alive: Sequence[AuthoredTask], optimistic: bool) -> dict[str, list[Verdict]]:
        """Four picks per task in path order, balancing bug types over the corpus with a running tally.

        A task's picks count towards the tally only when they would pass gates 1, 2 and 4, exactly
        as in ``select``; so the optimistic rounds and the final choice see the same tally.
        """
        tally: Counter[BugType] = Counter()
        chosen: dict[str, list[Verdict]] = {}
        for task in alive:
            picks = select_mutants(
                self.verdicts[task.path], tally, self.seed, task.function_name,
                same=self.same[task.path], optimistic=optimistic,
            )
            chosen[task.path] = picks
            if not any(reasons for _gate, reasons in self._pick_gates(task, picks)):
                tally.update(v.mutant.bug_type for v in picks)
        return chosen

    def _pick_gates(self, task: AuthoredTask, picks: Sequence[Verdict]) -> list[tuple[Gate, list[str]]]:
        """Gates 1, 2 and 4 on a task's picks, in order, up to the first that fails."""
        verdicts = self.verdicts[task.path]
        schema = check_schema(task.query, task.tests, len(picks))
        if schema:
            funnel = ", ".join(f"{n} {k}" for k, n in rejection_counts(verdicts).items() if n)
            lines = len({v.mutant.line for v in verdicts if v.rejection is None})
            schema = [
                f"{r} (of {len(verdicts)} candidates on {lines} lines: {funnel}); "
                "strengthen the tests so single edits fail with a wrong answer on valid input"
                for r in schema
            ]
            return [(Gate.SCHEMA, schema)]
        gates = [(Gate.SCHEMA, [])]
        ast_reasons = check_ast(task.function_name, task.canonical, task.tests, [v.mutant.code for v in picks])
        gates.append((Gate.AST_SEMANTICS, ast_reasons))
        if ast_reasons:
            return gates
        raises = raises_tests(task.tests)
        gates.append(
            (Gate.MUTANT_EXECUTION, check_mutants([v.result for v in picks], raises, [v.agreement for v in picks]))
        )
        return gates

    def select(self, alive: Sequence[AuthoredTask]) -> dict[str, list[Verdict]]:
        """Four verified mutants per task (balanced over the corpus), then gates 1, 2 and 4 on them."""
        chosen: dict[str, list[Verdict]] = {}
        for task, (path, picks) in zip(alive, self._choose(alive, optimistic=False).items()):
            if all(self.ledger.check(gate, path, reasons) for gate, reasons in self._pick_gates(task, picks)):
                chosen[path] = picks
        return chosen

    def stack(self, shipping: Sequence[AuthoredTask]) -> _Stacking:
        """Round 3: stacked mutants of each shipping task, verified like single mutants (see ``stacked``)."""
        stacking = _Stacking()
        options = {
            t.path: stack_candidates(
                t.canonical,
                t.function_name,
                [v.mutant for v in self.verdicts[t.path] if v.verified],
                self.seed,
                frozenset([t.canonical, *(m.code for m in self.enumerations[t.path].mutants)]),
            )
            for t in shipping
        }
        verified: dict[str, list[StackedMutant]] = {t.path: [] for t in shipping}
        first = {path: pick_stacked(items) for path, items in options.items()}
        for batch in (first, None):
            if batch is None:  # the other compositions, for sizes whose first one failed
                done = {path: {s.n_edits for s in items} for path, items in verified.items()}
                batch = {
                    path: [s for s in items if s.n_edits not in done[path] and s not in first[path]]
                    for path, items in options.items()
                }
            jobs = [(t, s) for t in shipping for s in batch.get(t.path, [])]
            if not jobs:
                continue
            suites = [Suite(s.code, t.tests) for t, s in jobs]
            suites += [mutant_suite(s.code, t.function_name, t.canonical, _validation(t)[1]) for t, s in jobs]
            self.log(f"stacked mutants: {len(jobs)} compositions")
            self.runs["stacked_tests"] += len(jobs)
            self.runs["stacked_agreements"] += len(jobs)
            stacking.tried += len(jobs)
            results = self.execute(suites)
            for (task, stacked), tests, agreement in zip(jobs, results[: len(jobs)], results[len(jobs) :]):
                reason = judge(tests, raises_tests(task.tests), read_mutant_agreement(agreement))
                if reason is None:
                    verified[task.path].append(stacked)
                    stacking.results[stacked.code] = tests
                else:
                    stacking.rejected[reason.value] += 1
        stacking.chosen = {path: pick_stacked(items) for path, items in verified.items()}
        return stacking

    def sweep(self, shipping: Sequence[AuthoredTask], chosen: dict[str, list[Verdict]], stacking: _Stacking) -> _Sweeps:
        """Distractor sanity and the cross-canonical sweep, over the final picks (and the stacked mutants).

        Every shipped snippet is run a second time (uncached) on its own tests. A mutant whose
        outcomes differ between the runs (a test near the time or memory limit) is dropped and the
        task re-selects from its other verified candidates, which are then run a second time too,
        up to ``SWEEP_ATTEMPTS`` rounds; an unstable canonical, or no stable four, excludes the task.
        Stacked mutants ride along in the first call: an unstable one, or one that passes another
        task's tests, is dropped (nothing replaces it).
        """
        by_path = {t.path: t for t in shipping}
        tests_by_target = {t.function_name: t.tests for t in shipping}
        stacked_own = [(s, Suite(s.code, by_path[p].tests)) for p, items in stacking.chosen.items() for s in items]
        stacked_pairs = cross_canonical_pairs([(s.source_entry_id, s.code) for s, _ in stacked_own], tests_by_target)
        extra = [suite for _, suite in stacked_own] + [pair.suite for pair in stacked_pairs]
        second: dict[Suite, SuiteResult] = {}
        cross: dict[Suite, CrossResult] = {}
        extra_results: dict[Suite, SuiteResult] = {}
        dropped: dict[str, set[str]] = {}
        searched: set[str] = set()
        pending = [t.path for t in shipping]
        reruns = 0
        for _attempt in range(SWEEP_ATTEMPTS):
            if not pending:
                break
            own = [Suite(code, by_path[p].tests) for p in pending for code in self._codes(by_path[p], chosen[p])]
            own = [suite for suite in dict.fromkeys(own) if suite not in second]
            items = [(by_path[p].function_name, code) for p in pending for code in self._codes(by_path[p], chosen[p])]
            searched.update(code for _, code in items)
            pairs = [pair for pair in cross_canonical_pairs(items, tests_by_target) if pair.suite not in cross]
            self.log(f"sweeps: {len(own)} own-test reruns, {len(pairs)} cross-canonical pairs, {len(extra)} stacked")
            results = self.execute(own + [p.suite for p in pairs] + extra, use_cache=False)
            second.update(zip(own, results[: len(own)]))
            cross.update((p.suite, CrossResult(p, r)) for p, r in zip(pairs, results[len(own) : len(own) + len(pairs)]))
            extra_results.update(zip(extra, results[len(own) + len(pairs) :]))
            extra = []
            reruns += len(own)
            pending = [p for p in pending if self._restabilise(by_path[p], chosen, second, dropped)]
        for path in pending:
            self.ledger.check(
                Gate.MUTANT_EXECUTION,
                path,
                [f"no four mutants with the same outcomes on two runs after {SWEEP_ATTEMPTS} attempts"],
            )

        unstable_excluded = sum(1 for p in by_path if p in self.ledger.exclusions)
        final = [t for t in shipping if t.path not in self.ledger.exclusions]
        final_codes = {code for t in final for code in self._codes(t, chosen[t.path])}
        owner_path = {t.function_name: t.path for t in final}
        for result in cross.values():
            if result.collision and result.pair.suite.code in final_codes:
                reason = (
                    f"a snippet defines `{result.pair.target}`, the target of another task, "
                    "and passes that task's tests; rename it"
                )
                self.ledger.check(Gate.CORPUS_INTEGRITY, owner_path[result.pair.owner], [reason])
        final = [t for t in final if t.path not in self.ledger.exclusions]
        own_final = [
            (Suite(code, t.tests), i == 0) for t in final for i, code in enumerate(self._codes(t, chosen[t.path]))
        ]
        sanity: dict[str, Any] = {
            "snippets_rerun": reruns,
            "canonicals_passing": sum(1 for suite, canonical in own_final if canonical and second[suite].passed),
            "mutants_passing": sum(1 for suite, canonical in own_final if not canonical and second[suite].passed),
            "unstable_mutants_replaced": sum(len(codes) for codes in dropped.values()),
            "unstable_tasks_excluded": unstable_excluded,
        }
        sanity["passed"] = sanity["mutants_passing"] == 0 and sanity["canonicals_passing"] == len(final)
        reported = [r for r in cross.values() if r.pair.suite.code in final_codes or r.collision]
        summary = {
            Sweep.DISTRACTOR_SANITY.value: sanity,
            Sweep.CROSS_CANONICAL.value: summarise_cross(reported, len(searched), {t.function_name for t in final}),
        }
        kept, stacked_runs = _settle_stacked(stacking, stacked_own, stacked_pairs, extra_results)
        own_runs = [(suite, second[suite]) for suite, _ in own_final]
        return _Sweeps(summary, own_runs, list(cross.values()), kept, stacked_runs)

    @staticmethod
    def _codes(task: AuthoredTask, picks: Sequence[Verdict]) -> tuple[str, ...]:
        return (task.canonical, *(v.mutant.code for v in picks))

    def _restabilise(
        self,
        task: AuthoredTask,
        chosen: dict[str, list[Verdict]],
        second: Mapping[Suite, SuiteResult],
        dropped: dict[str, set[str]],
    ) -> bool:
        """Compare the second run with the first; re-select around unstable mutants. True: run again."""
        if second[Suite(task.canonical, task.tests)].outcomes != self.canonical_results[task.path].outcomes:
            self.ledger.check(
                Gate.CANONICAL_EXECUTION, task.path, ["canonical outcomes differ between two runs (non-deterministic)"]
            )
            return False
        unstable = {
            v.mutant.code
            for v in chosen[task.path]
            if second[Suite(v.mutant.code, task.tests)].outcomes != v.result.outcomes
        }
        if not unstable:
            return False
        dropped.setdefault(task.path, set()).update(unstable)
        tally = Counter(v.mutant.bug_type for path, picks in chosen.items() if path != task.path for v in picks)
        usable = [v for v in self.verdicts[task.path] if v.mutant.code not in dropped[task.path]]
        picks = select_mutants(usable, tally, self.seed, task.function_name, same=self.same.get(task.path))
        raises = raises_tests(task.tests)
        reasons = check_schema(task.query, task.tests, len(picks)) or check_mutants(
            [v.result for v in picks], raises, [v.agreement for v in picks]
        )
        if reasons:
            self.ledger.check(
                Gate.MUTANT_EXECUTION, task.path, [f"after dropping unstable mutants: {r}" for r in reasons]
            )
            return False
        chosen[task.path] = picks
        return True

    def assemble(self, shipping: Sequence[AuthoredTask], chosen: dict[str, list[Verdict]]) -> list[ShippedTask]:
        """Ids, then gate 5 on the assembled corpus (a failure here is a construction bug)."""
        mutants = {t.path: tuple(v.mutant for v in chosen[t.path]) for t in shipping}
        ids = assign_ids(
            [(t.function_name, (t.canonical, *(m.code for m in mutants[t.path]))) for t in shipping], self.seed
        )
        shipped = [ShippedTask(t, mutants[t.path], i) for t, i in zip(shipping, ids)]
        integrity = check_corpus_integrity(
            [
                IntegrityQuery(s.ids.query_id, s.task.function_name, (s.canonical_id,), tuple(s.mutant_ids()))
                for s in shipped
            ],
            [(cid, code) for s in shipped for cid, code in zip(s.ids.snippet_ids, s.codes())],
        )
        if integrity:
            raise RuntimeError(f"assembled corpus fails gate 5 (a construction bug): {integrity[:3]}")
        for s in shipped:
            self.ledger.check(Gate.CORPUS_INTEGRITY, s.task.path, [])
        return shipped


def _validation(task: AuthoredTask) -> tuple[str, str]:
    """(reference, inputs) of a task that has a ``[validation]`` table."""
    if task.validation is None:
        raise RuntimeError(f"{task.path} has no [validation] table (gate 3 should have excluded it)")
    return task.validation.reference, task.validation.inputs


def _settle_stacked(
    stacking: _Stacking,
    own: Sequence[tuple[StackedMutant, Suite]],
    pairs: Sequence[CrossPair],
    second: Mapping[Suite, SuiteResult],
) -> tuple[dict[str, list[StackedMutant]], list[tuple[Suite, SuiteResult, str | None]]]:
    """Keep the stacked mutants whose second run equals the first and that pass no other task's tests.

    Returns them per task, and their second runs (own tests, and cross pairs with the target name).
    """
    colliding = {pair.suite.code for pair in pairs if second[pair.suite].passed}
    stable = {
        s.code
        for s, suite in own
        if second[suite].outcomes == stacking.results[s.code].outcomes and s.code not in colliding
    }
    stacking.rejected["unstable"] += sum(1 for s, _ in own if s.code not in stable and s.code not in colliding)
    stacking.rejected["collision"] += len(colliding)
    kept = {path: [s for s in items if s.code in stable] for path, items in stacking.chosen.items()}
    runs: list[tuple[Suite, SuiteResult, str | None]] = [
        (suite, second[suite], None) for s, suite in own if s.code in stable
    ]
    runs += [(pair.suite, second[pair.suite], pair.target) for pair in pairs if pair.suite.code in stable]
    return kept, runs


def _stacked_summary(stacking: _Stacking, shipped: Sequence[StackedMutant]) -> dict[str, Any]:
    sizes = Counter(s.n_edits for s in shipped)
    return {
        "rows": len(shipped),
        "tasks": len({s.source_entry_id for s in shipped}),
        "by_n_edits": {str(n): sizes.get(n, 0) for n in (2, 3, 4)},
        "compositions_run": stacking.tried,
        "rejected": {k: stacking.rejected[k] for k in sorted(stacking.rejected)},
    }


def _cache_rows(
    shipped: Sequence[ShippedTask], sweeps: _Sweeps, stacked: Sequence[StackedMutant]
) -> list[dict[str, Any]]:
    """One row per distinct (code, tests): shipped snippets on their own tests, cross runs between shipped
    tasks, and the shipped stacked mutants (their own tests and any cross pairs with shipped tasks)."""
    codes = {code for s in shipped for code in s.codes()}
    names = {s.task.function_name for s in shipped}
    stacked_codes = {s.code for s in stacked}
    rows: dict[tuple[str, str], dict[str, Any]] = {}
    runs = [(suite, result) for suite, result in sweeps.own if suite.code in codes]
    runs += [(c.pair.suite, c.result) for c in sweeps.cross if c.pair.suite.code in codes and c.pair.target in names]
    runs += [
        (suite, result)
        for suite, result, target in sweeps.stacked_runs
        if suite.code in stacked_codes and (target is None or target in names)
    ]
    for suite, result in runs:
        rows[(suite.code_sha256, suite.tests_sha256)] = _cache_row(suite, result)
    return [rows[key] for key in sorted(rows)]
