"""Per-test and per-suite verdicts of the execution oracle.

Outcomes are enums in code and strings only on disk, in the original study's taxonomy:

- ``pass``          the test statement ran to completion.
- ``FAIL``          the test's own ``assert`` was false: the code returned a wrong answer.
- ``FAIL:<Type>``   a ``pytest.raises(<Type>)`` block saw no exception: wrong behaviour, not a crash.
- ``TIMEOUT``       the test exceeded its CPU-time or wall-clock budget.
- ``ERROR:<Type>``  an exception escaped the code under test (an ``AssertionError`` raised inside
                    the code under test is a crash, so it is ``ERROR:AssertionError``).

When the sandboxed process itself ends during a test, that test gets a verdict of its own and the
suite's remaining tests still run in a fresh process:

- ``ERROR:<SIGNAME>``       the process was killed by that signal (``ERROR:SIGSEGV`` for a segfault,
                            ``ERROR:SIGABRT`` for ``abort()``, ``ERROR:SIGKILL`` for a kill from
                            outside the oracle such as the kernel's out-of-memory killer).
- ``ERROR:ProcessExited``   the process exited without finishing the test (``os._exit``).
- ``TIMEOUT``               also when the oracle killed the process for overrunning the test's
                            budget, or the kernel did so on the CPU rlimit (SIGXCPU).

Differences from the study's runner, which ran a whole suite in one unprotected process with a
5 s budget: there a crash or hang turned every later test into ``TIMEOUT``; here only the
test that crashed or hung is affected. A test also gets ``TIMEOUT`` after 0.5 s of CPU (by
default), and the sandbox's limits turn what used to succeed or hang (10 GB allocations, network
access, writing outside the scratch directory) into ``ERROR:MemoryError`` / ``ERROR:PermissionError`` /
``ERROR:OSError``.
"""

from __future__ import annotations

import enum
import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass

from .protections import Protection


class OutcomeKind(enum.Enum):
    PASS = "pass"
    FAIL = "FAIL"
    TIMEOUT = "TIMEOUT"
    ERROR = "ERROR"


@dataclass(frozen=True, slots=True)
class TestOutcome:
    """One test's verdict; ``detail`` is the exception type name for FAIL:<Type> / ERROR:<Type>."""

    kind: OutcomeKind
    detail: str | None = None

    __test__ = False  # not a pytest test class

    @property
    def passed(self) -> bool:
        return self.kind is OutcomeKind.PASS

    @property
    def is_wrong_output(self) -> bool:
        """A failed assertion or missing expected exception: the code ran but answered wrongly."""
        return self.kind is OutcomeKind.FAIL

    def to_str(self) -> str:
        return f"{self.kind.value}:{self.detail}" if self.detail else self.kind.value

    @classmethod
    def parse(cls, text: str) -> TestOutcome:
        """The outcome ``text`` names (raises ValueError naming the accepted forms)."""
        known = _PARSED.get(text)
        if known is not None:
            return known
        outcome = cls._parse(text)
        if len(_PARSED) < 4096:  # verdict texts repeat: pass, FAIL, a few dozen exception types
            _PARSED[text] = outcome
        return outcome

    @classmethod
    def _parse(cls, text: str) -> TestOutcome:
        head, _, detail = text.partition(":")
        try:
            kind = OutcomeKind(head)
        except ValueError:
            raise ValueError(
                f"unknown test outcome {text!r}: expected pass, FAIL, FAIL:<Type>, TIMEOUT or ERROR:<Type>"
            ) from None
        if kind in (OutcomeKind.PASS, OutcomeKind.TIMEOUT) and detail:
            raise ValueError(f"unknown test outcome {text!r}: {head} takes no ':<Type>' suffix")
        if kind is OutcomeKind.ERROR and not detail:
            raise ValueError(f"unknown test outcome {text!r}: ERROR needs an exception type, e.g. ERROR:ValueError")
        return cls(kind, detail or None)


_PARSED: dict[str, TestOutcome] = {}
"""Outcomes already parsed, by text (they are immutable, so one instance serves every suite)."""

PASS = TestOutcome(OutcomeKind.PASS)
FAIL = TestOutcome(OutcomeKind.FAIL)
TIMEOUT = TestOutcome(OutcomeKind.TIMEOUT)


@dataclass(frozen=True, slots=True)
class Suite:
    """A (code, tests) pair: ``code`` is module text; each test is one statement (or a with-block)."""

    code: str
    tests: tuple[str, ...]

    def __post_init__(self) -> None:
        if not isinstance(self.tests, tuple):
            object.__setattr__(self, "tests", tuple(self.tests))

    @property
    def code_sha256(self) -> str:
        return code_sha256(self.code)

    @property
    def tests_sha256(self) -> str:
        return tests_sha256(self.tests)


class InfraErrorKind(enum.Enum):
    """Why the harness could not judge a suite: never a verdict about the code, never cached.

    Each such suite is retried once on a fresh worker before the error is reported.
    """

    SANDBOX_START = "sandbox_start"
    """The sandbox program could not start (no usable interpreter, a layer failed to set up)."""
    WORKER_DIED = "worker_died"
    """The fork server died or stopped answering during the suite."""
    MALFORMED_REPLY = "malformed_reply"
    """The fork server's reply could not be read."""
    LAUNCHER_ALTERED = "launcher_altered"
    """The launcher's limits, priority, affinity or scheduling changed during the suite, or it was stopped."""
    LAUNCHER_DIED = "launcher_died"
    """The launcher (which forks each suite's process) ended."""
    LAUNCHER_UNRESPONSIVE = "launcher_unresponsive"
    """The launcher did not answer in time."""
    CHILD_SETUP = "child_setup"
    """A suite's process could not confine itself, or ended before its first test."""
    FORK_FAILED = "fork_failed"
    """The launcher could not fork a suite's process."""
    HARNESS = "harness"
    """Any other failure inside the harness (e.g. the scratch space could not be renewed)."""

    @classmethod
    def from_value(cls, value: object) -> InfraErrorKind:
        """The kind named ``value``, or HARNESS for a name this version does not know."""
        try:
            return cls(value)
        except ValueError:
            return cls.HARNESS


@dataclass(frozen=True, slots=True)
class SuiteResult:
    """Per-test outcomes of one suite, the protections that were active, or an infrastructure error.

    ``infra_error`` (a message) and ``infra_kind`` mark a failure of the harness, not of the code:
    such a suite was not judged; the result carries no outcomes and is never cached. Either may be
    given: the other is filled in. ``near_limit`` lists the tests that used at least
    ``limits.NEAR_LIMIT_FRACTION`` of their CPU budget (TIMEOUTs on CPU included): their verdict
    could change on a slower or busier machine.
    """

    outcomes: tuple[TestOutcome, ...]
    protections: tuple[Protection, ...] = ()
    infra_error: str | None = None
    infra_kind: InfraErrorKind | None = None
    near_limit: frozenset[int] = frozenset()

    def __post_init__(self) -> None:
        if self.infra_error is not None and self.infra_kind is None:
            object.__setattr__(self, "infra_kind", InfraErrorKind.HARNESS)
        elif self.infra_kind is not None and self.infra_error is None:
            object.__setattr__(self, "infra_error", self.infra_kind.value)
        if not isinstance(self.near_limit, frozenset):
            object.__setattr__(self, "near_limit", frozenset(self.near_limit))

    @property
    def judged(self) -> bool:
        """False when the harness failed (``infra_error``): the suite has no verdict at all."""
        return self.infra_error is None

    @property
    def passed(self) -> bool:
        """Judged, and ``passes_all`` its outcomes (a suite with no tests does not pass)."""
        return self.infra_error is None and passes_all(self.outcomes)

    @property
    def failed_tests(self) -> frozenset[int]:
        return frozenset(i for i, o in enumerate(self.outcomes) if not o.passed)

    @property
    def timed_out(self) -> bool:
        """Some test is TIMEOUT (with ``near_limit``, what makes a verdict depend on machine speed)."""
        return any(o.kind is OutcomeKind.TIMEOUT for o in self.outcomes)

    @property
    def has_wrong_output(self) -> bool:
        return any(o.is_wrong_output for o in self.outcomes)

    def outcome_strings(self) -> list[str]:
        return [o.to_str() for o in self.outcomes]


def passes_all(outcomes: Sequence[TestOutcome]) -> bool:
    """Whether code with these per-test outcomes *passes*: at least one test, and every test ``pass``.

    The one rule for "passes" (oracle results, the dataset's execution cache, the evaluator's
    verdicts). An empty list does not pass: a verdict with no outcomes verified nothing (a suite
    with no tests, a snippet decided without running, a pair the harness could not judge), and
    exec@k counts a snippet as correct only on evidence; ``all([])`` being true would credit any
    snippet of a query whose test list is empty as a correct answer.
    """
    return bool(outcomes) and all(o.passed for o in outcomes)


def code_sha256(code: str) -> str:
    """sha256 of the code's UTF-8 bytes, exactly as given (no normalisation)."""
    return hashlib.sha256(code.encode("utf-8")).hexdigest()


def tests_sha256(tests: Sequence[str]) -> str:
    """sha256 of the canonical JSON of the test list (compact separators, UTF-8, order kept)."""
    blob = json.dumps(list(tests), ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()
