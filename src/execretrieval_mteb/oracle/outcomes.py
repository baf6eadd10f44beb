"""Per-test and per-suite verdicts of the execution oracle.

Outcomes are enums in code and strings only on disk, in the original study's taxonomy:

- ``pass``          the test statement ran to completion.
- ``FAIL``          the test's own ``assert`` was false: the code returned a wrong answer.
- ``FAIL:<Type>``   a ``pytest.raises(<Type>)`` block saw no exception: wrong behaviour, not a crash.
- ``TIMEOUT``       the test exceeded its CPU-time or wall-clock budget.
- ``ERROR:<Type>``  an exception escaped the code under test (an ``AssertionError`` raised inside
                    the code under test is a crash, so it is ``ERROR:AssertionError``).
"""

from __future__ import annotations

import enum
import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass


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


@dataclass(frozen=True, slots=True)
class SuiteResult:
    """Per-test outcomes of one suite, the protections that were active, or an infrastructure error.

    ``infra_error`` marks a failure of the harness (sandbox set-up, worker died), not of the code:
    such results carry no outcomes and are never cached.
    """

    outcomes: tuple[TestOutcome, ...]
    protections: tuple[str, ...] = ()
    infra_error: str | None = None

    @property
    def passed(self) -> bool:
        return self.infra_error is None and all(o.passed for o in self.outcomes)

    @property
    def failed_tests(self) -> frozenset[int]:
        return frozenset(i for i, o in enumerate(self.outcomes) if not o.passed)

    @property
    def has_wrong_output(self) -> bool:
        return any(o.is_wrong_output for o in self.outcomes)

    def outcome_strings(self) -> list[str]:
        return [o.to_str() for o in self.outcomes]


def code_sha256(code: str) -> str:
    """sha256 of the code's UTF-8 bytes, exactly as given (no normalisation)."""
    return hashlib.sha256(code.encode("utf-8")).hexdigest()


def tests_sha256(tests: Sequence[str]) -> str:
    """sha256 of the canonical JSON of the test list (compact separators, UTF-8, order kept)."""
    blob = json.dumps(list(tests), ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()
