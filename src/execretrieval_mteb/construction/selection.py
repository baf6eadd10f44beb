"""Judge executed mutant candidates and choose up to four per task.

A candidate is kept only if its verdict is a real, reproducible bug: it fails at least one test,
at least one failure is wrong output (``FAIL``: the assertion was false or an expected exception
was not raised), no test timed out and no test came near its CPU limit (``SuiteResult.near_limit``:
either depends on machine speed, so its outcome list would not be reproducible). Syntax errors and duplicates never reach this stage (the mutation
engine drops them); equivalent mutants (pass everything) and crash-only mutants are rejected.

Choosing four: maximise bug-type diversity first, taking types in order of how few mutants of
that type the build has chosen so far (a running tally over tasks in path order, so the corpus
stays balanced), ties broken by a seeded hash; within a type prefer the subtlest mutant (fewest
failing tests), ties broken by a seeded hash of its code. If all four would fail the identical
set of tests, the least preferred one is replaced by the best candidate with a different set.
"""

from __future__ import annotations

import enum
import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ..dataset.schema import BugType
from ..oracle.outcomes import OutcomeKind, SuiteResult
from .mutation import BUG_TYPE_ORDER, Mutant

MUTANTS_PER_TASK = 4


class Rejection(enum.Enum):
    """Why an executed candidate cannot be a distractor."""

    EQUIVALENT = "equivalent"  # passes every test: not a bug the tests can see
    CRASH_ONLY = "crash_only"  # fails only by raising: no wrong output
    TIMEOUT = "timeout"  # some test timed out: verdict depends on machine speed
    NEAR_LIMIT = "near_limit"  # some test used a good share of its CPU budget: so could its verdict
    INFRA_ERROR = "infra_error"  # the oracle could not run it


@dataclass(frozen=True)
class Verdict:
    mutant: Mutant
    result: SuiteResult

    @property
    def rejection(self) -> Rejection | None:
        return judge(self.result)


def judge(result: SuiteResult) -> Rejection | None:
    """None when ``result`` shows a usable bug, otherwise the reason it does not."""
    if result.infra_error is not None:
        return Rejection.INFRA_ERROR
    if any(o.kind is OutcomeKind.TIMEOUT for o in result.outcomes):
        return Rejection.TIMEOUT
    if result.near_limit:
        return Rejection.NEAR_LIMIT
    if result.passed:
        return Rejection.EQUIVALENT
    if not result.has_wrong_output:
        return Rejection.CRASH_ONLY
    return None


def seeded_key(seed: int, *parts: str) -> str:
    """A stable pseudo-random sort key: sha256 of the seed and the parts."""
    return hashlib.sha256("\x1f".join((str(seed), *parts)).encode("utf-8")).hexdigest()


def sample_candidates(mutants: Sequence[Mutant], per_type: int, seed: int, task_key: str) -> list[Mutant]:
    """Up to ``per_type`` candidates of each bug type, chosen by seeded hash (all when ``per_type`` is 0)."""
    if per_type <= 0:
        return list(mutants)
    chosen: set[str] = set()
    for bug_type in BUG_TYPE_ORDER:
        of_type = sorted(
            (m.code for m in mutants if m.bug_type is bug_type), key=lambda code: seeded_key(seed, task_key, code)
        )
        chosen.update(of_type[:per_type])
    return [m for m in mutants if m.code in chosen]


def select_mutants(
    verdicts: Sequence[Verdict],
    tally: Mapping[BugType, int],
    seed: int,
    task_key: str,
    count: int = MUTANTS_PER_TASK,
) -> list[Verdict]:
    """Up to ``count`` accepted verdicts: diverse types first (rarest in ``tally`` first), then subtle."""
    by_type: dict[BugType, list[Verdict]] = {}
    for verdict in verdicts:
        if verdict.rejection is None:
            by_type.setdefault(verdict.mutant.bug_type, []).append(verdict)
    for options in by_type.values():
        options.sort(key=lambda v: (len(v.result.failed_tests), seeded_key(seed, task_key, v.mutant.code)))
    type_order = sorted(by_type, key=lambda t: (tally.get(t, 0), seeded_key(seed, task_key, t.value)))
    ranked: list[Verdict] = []  # every accepted verdict in order of preference
    depth = 0
    while len(ranked) < sum(len(v) for v in by_type.values()):
        ranked.extend(by_type[t][depth] for t in type_order if depth < len(by_type[t]))
        depth += 1
    picked = ranked[:count]
    if len(picked) == count and len({v.result.failed_tests for v in picked}) == 1:
        different = next((v for v in ranked[count:] if v.result.failed_tests != picked[0].result.failed_tests), None)
        if different is not None:
            picked = picked[:-1] + [different]
    return picked


def rejection_counts(verdicts: Sequence[Verdict]) -> dict[str, int]:
    """How many candidates were accepted or rejected, by reason (for the build report)."""
    counts: dict[str, int] = {"accepted": 0, **{r.value: 0 for r in Rejection}}
    for verdict in verdicts:
        reason = verdict.rejection
        counts["accepted" if reason is None else reason.value] += 1
    return counts
