"""The whole build: tasks -> gates 1-2 -> mutants -> execution -> selection -> gates 3-4 -> sweeps -> gate 5 -> files.

Execution always goes through ``oracle.api.run_suites``, each call batched over all tasks:
(1) every canonical plus a seeded sample of up to ``candidates_per_type`` candidates of each bug
type per task; (2) the remaining candidates only where the sample fell short; (3) the sweeps, a
second uncached run of every chosen snippet plus the cross-canonical pairs, repeated (at most
``SWEEP_ATTEMPTS`` times in all) only for tasks that re-selected around an unstable mutant.
A task that fails a gate or a sweep is excluded and listed with its reasons in the report.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tqdm import tqdm

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
    check_mutants,
    check_schema,
)
from .ids import assign_ids
from .mutation import Mutant, enumerate_mutants
from .report import build_report, domain_table, dumps_report
from .selection import MUTANTS_PER_TASK, Verdict, rejection_counts, sample_candidates, select_mutants
from .sweeps import CrossResult, Sweep, cross_canonical_pairs, summarise_cross
from .task_files import AuthoredTask, load_task_files
from .writer import ShippedTask, card_text, dataset_files, prepare_out_dir, write_dataset

DEFAULT_CANDIDATES_PER_TYPE = 3
SWEEP_ATTEMPTS = 3
BUILD_LIMITS = Limits(test_cpu_s=0.1, test_wall_s=10.0, suite_wall_s=60.0)
"""Oracle limits for every build run: a tight CPU budget per test (tests must run well under
100 ms) and generous wall-clock budgets. Verdicts then depend on CPU time, not on how busy the
machine is, and anything near a limit times out here and is rejected, so no shipped snippet is
close to the default limits the evaluation runs under."""


@dataclass(frozen=True)
class BuildOptions:
    tasks_dir: Path
    out_dir: Path
    seed: int = 0
    candidates_per_type: int = DEFAULT_CANDIDATES_PER_TYPE  # 0 runs every candidate
    workers: int | None = None
    progress: bool = False
    oracle_cache: Path | None = None  # the oracle's verdict cache for rounds 1-2 (never for the sweeps)


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
    prepare_out_dir(Path(options.out_dir))
    return _Build(options, log).run()


@dataclass(frozen=True)
class _Sweeps:
    summary: dict[str, Any]
    own: list[tuple[Suite, SuiteResult]]  # every shipped-candidate snippet on its own tests (second run)
    cross: list[CrossResult]


class _Build:
    """The stages of one build, sharing the options, the oracle runner and the gate ledger."""

    def __init__(self, options: BuildOptions, log: Callable[[str], None]) -> None:
        self.options, self.log, self.seed = options, log, options.seed
        self.execute = _Runner(options, log)
        self.ledger = _Ledger()
        self.candidates: dict[str, list[Mutant]] = {}
        self.canonical_results: dict[str, SuiteResult] = {}
        self.verdicts: dict[str, list[Verdict]] = {}

    def run(self) -> BuildResult:
        tasks, problems = load_task_files(self.options.tasks_dir)
        for problem in problems:
            self.ledger.check(Gate.SCHEMA, problem.path, [problem.reason])
        task_paths = sorted([t.path for t in tasks] + [p.path for p in problems])
        self.log(f"{len(task_paths)} task files, {len(problems)} not readable as tasks")
        alive = self.static_gates(tasks)
        self.candidates = {
            t.path: enumerate_mutants(t.canonical)
            for t in tqdm(alive, desc="mutants", disable=not self.options.progress)
        }
        alive = self.execute_candidates(alive)
        chosen = self.select(alive)
        shipping = [t for t in alive if t.path in chosen]
        sweeps = self.sweep(shipping, chosen)
        shipped = self.assemble([t for t in shipping if t.path not in self.ledger.exclusions], chosen)
        cache_rows = _cache_rows(shipped, sweeps)
        all_verdicts = [v for t in alive for v in self.verdicts[t.path]]
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
                "enumerated": sum(len(c) for c in self.candidates.values()),
                "enumerated_by_bug_type": {
                    b.value: sum(1 for c in self.candidates.values() for m in c if m.bug_type is b) for b in BugType
                },
                "executed": len(all_verdicts),
                **rejection_counts(all_verdicts),
                "execution_cache_rows": len(cache_rows),
                "oracle_not_judged": self.execute.not_judged,
            },
        )
        table = domain_table(report)
        files = dataset_files(shipped, cache_rows)
        files["build_report.json"] = dumps_report(report)
        files["README.md"] = card_text(table, len(shipped), report["counts"]["snippets"])
        sums = write_dataset(Path(self.options.out_dir), files)
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
        """Rounds 1 and 2 of execution; gate 3. Returns the tasks whose canonical passes."""
        sampled = {
            t.path: sample_candidates(
                self.candidates[t.path], self.options.candidates_per_type, self.seed, t.function_name
            )
            for t in alive
        }
        suites = [Suite(t.canonical, t.tests) for t in alive] + [
            Suite(m.code, t.tests) for t in alive for m in sampled[t.path]
        ]
        self.log(f"round 1: {len(suites)} suites ({len(alive)} canonicals)")
        results = iter(self.execute(suites))
        self.canonical_results = {t.path: next(results) for t in alive}
        self.verdicts = {t.path: [Verdict(m, next(results)) for m in sampled[t.path]] for t in alive}
        alive = [
            t
            for t in alive
            if self.ledger.check(
                Gate.CANONICAL_EXECUTION, t.path, check_canonical(self.canonical_results[t.path], t.tests)
            )
        ]

        # Round 2: all remaining candidates where the sample fell short (fewer than four, or four
        # failing identical tests); otherwise those of bug types with no accepted candidate yet.
        extra: dict[str, list[Mutant]] = {}
        for task in alive:
            provisional = select_mutants(self.verdicts[task.path], {}, self.seed, task.function_name)
            tried = {m.code for m in sampled[task.path]}
            rest = [m for m in self.candidates[task.path] if m.code not in tried]
            covered = {v.mutant.bug_type for v in self.verdicts[task.path] if v.rejection is None}
            short = len(provisional) < MUTANTS_PER_TASK or check_mutants([v.result for v in provisional])
            extra[task.path] = rest if short else [m for m in rest if m.bug_type not in covered]
        suites = [Suite(m.code, t.tests) for t in alive for m in extra[t.path]]
        if suites:
            self.log(f"round 2: {len(suites)} suites")
            results = iter(self.execute(suites))
            for task in alive:
                self.verdicts[task.path] += [Verdict(m, next(results)) for m in extra[task.path]]
        return alive

    def select(self, alive: Sequence[AuthoredTask]) -> dict[str, list[Verdict]]:
        """Four mutants per task (balanced over the corpus), then gates 1, 2 and 4 on them."""
        tally: Counter[BugType] = Counter()
        chosen: dict[str, list[Verdict]] = {}
        for task in alive:
            verdicts = self.verdicts[task.path]
            picks = select_mutants(verdicts, tally, self.seed, task.function_name)
            schema = check_schema(task.query, task.tests, len(picks))
            if schema:
                funnel = ", ".join(f"{n} {k}" for k, n in rejection_counts(verdicts).items() if n)
                schema = [
                    f"{r} (executed {len(verdicts)} of {len(self.candidates[task.path])} candidates: {funnel}); "
                    "strengthen the tests so single edits fail with a wrong answer"
                    for r in schema
                ]
            if not self.ledger.check(Gate.SCHEMA, task.path, schema):
                continue
            mutant_codes = [v.mutant.code for v in picks]
            if not self.ledger.check(
                Gate.AST_SEMANTICS, task.path, check_ast(task.function_name, task.canonical, task.tests, mutant_codes)
            ):
                continue
            if not self.ledger.check(Gate.MUTANT_EXECUTION, task.path, check_mutants([v.result for v in picks])):
                continue
            tally.update(v.mutant.bug_type for v in picks)
            chosen[task.path] = picks
        return chosen

    def sweep(self, shipping: Sequence[AuthoredTask], chosen: dict[str, list[Verdict]]) -> _Sweeps:
        """Distractor sanity and the cross-canonical sweep, over the final picks.

        Every shipped snippet is run a second time (uncached) on its own tests. A mutant whose
        outcomes differ between the runs (a test near the time or memory limit) is dropped and the
        task re-selects from its other verified candidates, which are then run a second time too,
        up to ``SWEEP_ATTEMPTS`` rounds; an unstable canonical, or no stable four, excludes the task.
        """
        by_path = {t.path: t for t in shipping}
        tests_by_target = {t.function_name: t.tests for t in shipping}
        second: dict[Suite, SuiteResult] = {}
        cross: dict[Suite, CrossResult] = {}
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
            self.log(f"sweeps: {len(own)} own-test reruns, {len(pairs)} cross-canonical pairs")
            results = self.execute(own + [p.suite for p in pairs], use_cache=False)
            second.update(zip(own, results[: len(own)]))
            cross.update((p.suite, CrossResult(p, r)) for p, r in zip(pairs, results[len(own) :]))
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
        return _Sweeps(summary, [(suite, second[suite]) for suite, _ in own_final], list(cross.values()))

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
        picks = select_mutants(usable, tally, self.seed, task.function_name)
        reasons = check_schema(task.query, task.tests, len(picks)) or check_mutants([v.result for v in picks])
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


def _cache_rows(shipped: Sequence[ShippedTask], sweeps: _Sweeps) -> list[dict[str, Any]]:
    """One row per distinct (code, tests): shipped snippets on their own tests, cross runs between shipped tasks."""
    codes = {code for s in shipped for code in s.codes()}
    names = {s.task.function_name for s in shipped}
    rows: dict[tuple[str, str], dict[str, Any]] = {}
    runs = [(suite, result) for suite, result in sweeps.own if suite.code in codes]
    runs += [(c.pair.suite, c.result) for c in sweeps.cross if c.pair.suite.code in codes and c.pair.target in names]
    for suite, result in runs:
        rows[(suite.code_sha256, suite.tests_sha256)] = _cache_row(suite, result)
    return [rows[key] for key in sorted(rows)]
