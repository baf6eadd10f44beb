"""Execution oracle: does this code pass these tests? Per-test outcomes, sandboxed and cached."""

from .limits import Limits
from .outcomes import OutcomeKind, Suite, SuiteResult, TestOutcome, code_sha256, tests_sha256
from .protections import Protection

__all__ = ["Limits", "OutcomeKind", "Protection", "Suite", "SuiteResult", "TestOutcome", "code_sha256", "tests_sha256"]
