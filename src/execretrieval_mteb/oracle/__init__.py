"""Execution oracle: does this code pass these tests? Per-test outcomes, sandboxed and cached."""

from .outcomes import OutcomeKind, Suite, SuiteResult, TestOutcome, code_sha256, tests_sha256

__all__ = ["OutcomeKind", "Suite", "SuiteResult", "TestOutcome", "code_sha256", "tests_sha256"]
