"""Judging code nobody planted: a snippet's function, bound to the query's target name, run against
the query's tests and then against the query's independent reference.

**Binding.** A query's tests call its target (``assert gcd_of(12, 18) == 6``); a wild function has
its own name. The program run in the sandbox is the snippet followed by one assignment::

    <the snippet, exactly as in the corpus>

    <target> = <the snippet's function name>

so the tests' calls reach the wild function. It is composed on the host side; the sandbox runs it
like any other (code, tests) suite. What follows from it:

- a wild snippet is exactly one top-level function (``construction.wild``), so there is one
  candidate to bind; a snippet defining several functions would bind the one its record names (a
  benchmark snippet is never bound: it defines the target itself, with its own helpers);
- a function whose name already is the target gets ``target = target``: the same program;
- defaults: the tests' positional and keyword arguments go to the wild function as written, its
  parameters with defaults keep them when the tests do not pass them;
- a different arity (or a keyword the function lacks) raises ``TypeError`` at the call, so the
  test's outcome is ``ERROR:TypeError`` and the pair fails; nothing is adapted;
- a snippet whose definition needs a module-level name (a decorator, a helper, a constant) it does
  not carry fails the same way (``NameError``).

Every wild pair is executed: the static shortcut for snippets that never bind the target
(``static_proof``) does not apply, since binding is exactly what happens here.

**The stronger judge.** Tests that suffice to kill four planted mutants need not suffice for any
code at all. A wild function that passes every test is run again against the task's independently
written ``reference`` on the validation generator's inputs (``oracle.agreement``: the
same agreement suite the build used on its canonicals, shipped with the open task in
``data/open/validation.jsonl``). It is correct only if it agrees on every input (a timeout there,
or a broken comparison, counts as not agreeing); otherwise the tests alone were *fooled*
(``WildJudgement.FOOLS_TESTS``). On the closed pool this check changes no label: the build already
verified every canonical against its reference and every mutant fails a test.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from ..oracle.agreement import REFERENCE_NAME, ValidationSetupError, agreement_suite, read_agreement
from ..dataset.wild import ValidationRecord
from ..oracle.api import Oracle
from ..oracle.outcomes import Suite, TestOutcome

Pair = tuple[str, str]  # (query_id, corpus_id)


class WildJudgement(enum.Enum):
    CORRECT = "correct"
    FAILS_TESTS = "fails_tests"
    FOOLS_TESTS = "fools_tests"
    """Passes every test but disagrees with the reference: only the stronger judge says it is wrong."""
    NOT_JUDGED = "not_judged"
    """The oracle's harness failed on the test suite (after its retry): not correct, reported."""


@dataclass(frozen=True)
class Candidate:
    """A program to judge for one query: ``program`` defines ``target`` (bound, for a wild snippet)."""

    pair: Pair
    program: str
    target: str


@dataclass(frozen=True)
class StrongVerdict:
    outcomes: tuple[TestOutcome, ...]
    judgement: WildJudgement
    inputs: int = 0
    disagreements: int = 0
    """Validation inputs on which the function disagreed with the reference (or timed out)."""
    error: str | None = None

    @property
    def passes_tests(self) -> bool:
        return bool(self.outcomes) and all(o.passed for o in self.outcomes)

    @property
    def passed(self) -> bool:
        return self.judgement is WildJudgement.CORRECT


def bound_program(code: str, function_name: str, target: str) -> str:
    """The snippet with the query's target name bound to its function (see the module docstring)."""
    return f"{code.rstrip()}\n\n{target} = {function_name}\n"


def judge(
    candidates: Iterable[Candidate],
    tests: Mapping[str, tuple[str, ...]],
    validation: Mapping[str, ValidationRecord],
    oracle: Oracle,
) -> dict[Pair, StrongVerdict]:
    """Tests first, then, for whatever passes them, the reference on the validation inputs.

    Both steps go through ``oracle`` (its cache first; identical suites run once).
    """
    todo = list(candidates)
    results = oracle.run([Suite(c.program, tests[c.pair[0]]) for c in todo])
    verdicts: dict[Pair, StrongVerdict] = {}
    passing: list[tuple[Candidate, tuple[TestOutcome, ...]]] = []
    for candidate, result in zip(todo, results, strict=True):
        if result.infra_error is not None:
            verdicts[candidate.pair] = StrongVerdict((), WildJudgement.NOT_JUDGED, error=result.infra_error)
        elif result.passed:
            passing.append((candidate, result.outcomes))
        else:
            verdicts[candidate.pair] = StrongVerdict(result.outcomes, WildJudgement.FAILS_TESTS)
    checks = []
    for candidate, _ in passing:
        spec = validation.get(candidate.pair[0])
        if spec is None:
            raise KeyError(f"no validation reference for query {candidate.pair[0]}")
        checks.append(agreement_suite(candidate.program, candidate.target, spec.reference, REFERENCE_NAME, spec.inputs))
    for (candidate, outcomes), result in zip(passing, oracle.run(checks), strict=True):
        if result.infra_error is not None:
            verdicts[candidate.pair] = StrongVerdict(outcomes, WildJudgement.NOT_JUDGED, error=result.infra_error)
            continue
        try:
            agreement = read_agreement(result)
        except ValidationSetupError as exc:
            verdicts[candidate.pair] = StrongVerdict(outcomes, WildJudgement.FOOLS_TESTS, error=str(exc))
            continue
        bad = len(set(agreement.disagree) | set(agreement.timeouts))
        judgement = WildJudgement.CORRECT if agreement.agrees else WildJudgement.FOOLS_TESTS
        verdicts[candidate.pair] = StrongVerdict(outcomes, judgement, agreement.inputs, bad)
    return verdicts
