"""Judge executed mutant candidates and choose four per task.

A candidate is *usable* only if its verdict is a real, reproducible bug on typical valid input:

- it fails at least one value test (not a ``pytest.raises`` block) with a wrong answer (``FAIL``),
  so it is wrong on a valid input, not only on an invalid one or by crashing;
- no test timed out or came near its CPU limit (``SuiteResult.near_limit``: three quarters of the
  budget; either depends on machine speed, so its outcome list would not be reproducible);
- it disagrees with the canonical on at least one input of the task's validation-only generator
  (``oracle.agreement``), so it is wrong on a *typical* valid input, not only on a tested corner.

A candidate that passes every test is *equivalent* when it agrees with the canonical on every
generated input (recorded in the build report, never shipped) and *live* otherwise: the tests miss
a bug, and the task fails gate 4 until a test kills it.

Choosing four (``select_mutants``), in order of priority:

1. never two that are the same program on the input domain: identical per-test outcomes and
   agreement with each other on every generated input (``SamePrograms``);
2. at most one ``remove_edge_case_check`` mutant (a task is more than its guards);
3. the four on pairwise different lines where the usable candidates allow it (then three lines, ...);
4. bug-type diversity, taking types in order of how few mutants of that type the build has chosen
   so far (a running tally over tasks in path order, so every type keeps its share of the corpus);
5. within a type the subtlest mutant (fewest failing tests), ties broken by a seeded hash.

If all four would fail the identical set of tests, the least preferred is replaced by the best
candidate with a different set. The agreement of a candidate with the canonical is run lazily,
for candidates the selection wants (``optimistic``): the choice made once every pick is verified
equals the choice made with every candidate verified, at a fraction of the execution.
"""

from __future__ import annotations

import enum
import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from ..dataset.schema import BugType
from ..oracle.outcomes import SuiteResult
from .mutation import Mutant
from ..oracle.agreement import Agreement

MUTANTS_PER_TASK = 4
GUARD_REMOVALS_PER_TASK = 1


class Rejection(enum.Enum):
    """Why an executed candidate cannot be a distractor."""

    EQUIVALENT = "equivalent"  # passes every test and agrees with the canonical on every generated input
    LIVE = "live"  # passes every test but disagrees on a generated input: the tests miss a bug
    SURVIVOR = "survivor"  # passes every test; not compared with the canonical (no agreement run)
    RAISES_ONLY = "raises_only"  # wrong only in pytest.raises tests: wrong on invalid input only
    CRASH_ONLY = "crash_only"  # fails only by raising: no wrong output
    AGREES_ON_INPUTS = "agrees_on_inputs"  # fails a value test but agrees with the canonical on every generated input
    SLOW = "slow"  # some test (or generated input) timed out or came near its CPU limit (see ``judge``)
    INFRA_ERROR = "infra_error"  # the oracle could not run it


@dataclass(frozen=True)
class Verdict:
    """A candidate with its test results, the task's raises-test indices and (once run) its agreement."""

    mutant: Mutant
    result: SuiteResult
    raises_tests: frozenset[int] = frozenset()
    agreement: Agreement | None = None

    @property
    def rejection(self) -> Rejection | None:
        return judge(self.result, self.raises_tests, self.agreement)

    @property
    def verified(self) -> bool:
        """Usable, with the agreement run done (not only the tests)."""
        return self.agreement is not None and self.rejection is None

    @property
    def pending(self) -> bool:
        """Usable on its tests; its agreement with the canonical is not run yet."""
        return self.agreement is None and self.rejection is None

    def with_agreement(self, agreement: Agreement) -> Verdict:
        return Verdict(self.mutant, self.result, self.raises_tests, agreement)


def judge(
    result: SuiteResult, raises_tests: frozenset[int] = frozenset(), agreement: Agreement | None = None
) -> Rejection | None:
    """None when ``result`` (and ``agreement``, when given) shows a usable bug, otherwise the reason it does not.

    Without an agreement only the tests are judged (None: usable so far); ``raises_tests`` are the
    indices of ``pytest.raises`` tests, whose failures do not count as a wrong value.

    A timeout and a test near its CPU limit are one reason, ``SLOW``: a test that needs about its
    whole budget times out on one run and finishes just under it on a busier or quieter one, so
    telling the two apart would make the build report depend on machine load.
    """
    if result.infra_error is not None or (agreement is not None and agreement.error is not None):
        return Rejection.INFRA_ERROR
    if result.near_limit or result.timed_out or (agreement and agreement.timeouts):
        return Rejection.SLOW
    if result.passed:
        if agreement is None:
            return Rejection.SURVIVOR
        return Rejection.LIVE if agreement.disagree else Rejection.EQUIVALENT
    wrong = [i for i, o in enumerate(result.outcomes) if o.is_wrong_output]
    if not wrong:
        return Rejection.CRASH_ONLY
    if all(i in raises_tests for i in wrong):
        return Rejection.RAISES_ONLY
    if agreement is not None and not agreement.disagree:
        return Rejection.AGREES_ON_INPUTS
    return None


def seeded_key(seed: int, *parts: str) -> str:
    """A stable pseudo-random sort key: sha256 of the seed and the parts."""
    return hashlib.sha256("\x1f".join((str(seed), *parts)).encode("utf-8")).hexdigest()


def edit_lines(mutant: Mutant) -> frozenset[int]:
    """The canonical's lines the edit touches (a removed guard spans several)."""
    extra = mutant.before.rstrip("\n").count("\n")
    return frozenset(range(mutant.line, mutant.line + extra + 1))


@dataclass
class SamePrograms:
    """What is known about pairs of candidates that might be one program on the input domain.

    Two usable candidates *may* be the same program when they fail the tests identically (the
    same outcome per test) and disagree with the canonical on the same generated inputs; only a
    direct comparison (a mutant-against-mutant agreement suite) decides. ``same`` and
    ``different`` hold the decided pairs (as frozensets of the two codes).
    """

    same: set[frozenset[str]] = field(default_factory=set)
    different: set[frozenset[str]] = field(default_factory=set)

    @staticmethod
    def may_be_same(a: Verdict, b: Verdict) -> bool:
        if a.agreement is None or b.agreement is None:
            return False  # decided once both agreements are known
        return a.result.outcomes == b.result.outcomes and a.agreement.disagree == b.agreement.disagree

    def undecided(self, a: Verdict, b: Verdict) -> bool:
        pair = frozenset((a.mutant.code, b.mutant.code))
        return self.may_be_same(a, b) and pair not in self.same and pair not in self.different

    def conflict(self, a: Verdict, b: Verdict, optimistic: bool) -> bool:
        """True when ``a`` and ``b`` are (or, not optimistically, might be) the same program."""
        if not self.may_be_same(a, b):
            return False
        pair = frozenset((a.mutant.code, b.mutant.code))
        if pair in self.same:
            return True
        return pair not in self.different and not optimistic

    def record(self, a: Verdict, b: Verdict, agreement: Agreement) -> None:
        """Decide a pair from their agreement run: different only when it shows an input they disagree on
        (a run that timed out or could not compare counts as the same: never ship both)."""
        pair = frozenset((a.mutant.code, b.mutant.code))
        different = bool(agreement.disagree) and agreement.error is None
        (self.different if different else self.same).add(pair)


def ranked(
    verdicts: Sequence[Verdict], tally: Mapping[BugType, int], seed: int, task_key: str, optimistic: bool
) -> list[Verdict]:
    """Usable verdicts (pending ones too when ``optimistic``) in order of preference, types interleaved.

    Types come in order of how few the corpus has (``tally``), then by seeded hash; within a type
    the subtlest (fewest failing tests) first, then by seeded hash of the code.
    """
    by_type: dict[BugType, list[Verdict]] = {}
    for verdict in verdicts:
        if verdict.verified or (optimistic and verdict.pending):
            by_type.setdefault(verdict.mutant.bug_type, []).append(verdict)
    for options in by_type.values():
        options.sort(key=lambda v: (len(v.result.failed_tests), seeded_key(seed, task_key, v.mutant.code)))
    type_order = sorted(by_type, key=lambda t: (tally.get(t, 0), seeded_key(seed, task_key, t.value)))
    order: list[Verdict] = []
    depth = 0
    while len(order) < sum(len(v) for v in by_type.values()):
        order.extend(by_type[t][depth] for t in type_order if depth < len(by_type[t]))
        depth += 1
    return order


class _Pass(enum.Enum):
    """The greedy passes of ``select_mutants``: what a candidate must add to the picks so far."""

    NEW_LINE_AND_TYPE = (True, True)
    NEW_LINE = (True, False)
    NEW_TYPE = (False, True)
    ANY = (False, False)


def select_mutants(
    verdicts: Sequence[Verdict],
    tally: Mapping[BugType, int],
    seed: int,
    task_key: str,
    count: int = MUTANTS_PER_TASK,
    *,
    same: SamePrograms | None = None,
    optimistic: bool = False,
) -> list[Verdict]:
    """Up to ``count`` usable verdicts: distinct programs, at most one guard removal, distinct lines, then types.

    With ``optimistic``, candidates whose agreement is not run yet count as usable and undecided
    pairs as different programs; the caller verifies what was picked and selects again.
    """
    same = same or SamePrograms()
    order = ranked(verdicts, tally, seed, task_key, optimistic)
    picks: list[Verdict] = []

    def allowed(candidate: Verdict, others: Sequence[Verdict]) -> bool:
        if any(same.conflict(candidate, o, optimistic) for o in others):
            return False
        guards = sum(o.mutant.bug_type is BugType.REMOVE_EDGE_CASE_CHECK for o in others)
        return candidate.mutant.bug_type is not BugType.REMOVE_EDGE_CASE_CHECK or guards < GUARD_REMOVALS_PER_TASK

    def adds(candidate: Verdict, others: Sequence[Verdict]) -> tuple[bool, bool]:
        lines = frozenset().union(*(edit_lines(o.mutant) for o in others))
        new_line = not edit_lines(candidate.mutant) & lines
        return new_line, candidate.mutant.bug_type not in {o.mutant.bug_type for o in others}

    for step in _Pass:
        for candidate in order:
            if len(picks) == count:
                break
            if candidate in picks or not allowed(candidate, picks):
                continue
            new_line, new_type = adds(candidate, picks)
            if (new_line or not step.value[0]) and (new_type or not step.value[1]):
                picks.append(candidate)
    if len(picks) == count and len({v.result.failed_tests for v in picks}) == 1:
        rest = picks[:-1]
        different = [
            v
            for v in order
            if v not in picks and v.result.failed_tests != picks[0].result.failed_tests and allowed(v, rest)
        ]
        if different:
            best = next((v for v in different if adds(v, rest)[0]), different[0])
            picks = rest + [best]
    return picks


def verdict_label(verdict: Verdict) -> str:
    """``accepted``, ``unverified`` or the rejection's value (the report's names)."""
    reason = verdict.rejection
    if reason is not None:
        return reason.value
    return "accepted" if verdict.verified else "unverified"


def counts_by_bug_type(verdicts: Sequence[Verdict]) -> dict[str, dict[str, int]]:
    """``{verdict label: {bug_type: n}}`` (every label and bug type present): what each rule removed, per type."""
    labels = ("accepted", "unverified", *(r.value for r in Rejection))
    counts = {label: {t.value: 0 for t in BugType} for label in labels}
    for verdict in verdicts:
        counts[verdict_label(verdict)][verdict.mutant.bug_type.value] += 1
    return counts


def rejection_counts(verdicts: Sequence[Verdict]) -> dict[str, int]:
    """How many candidates were usable (or rejected, by reason) for the build report.

    ``accepted`` counts usable candidates whose agreement was run; ``unverified`` those usable on
    their tests whose agreement the selection never needed.
    """
    return {label: sum(by_type.values()) for label, by_type in counts_by_bug_type(verdicts).items()}
