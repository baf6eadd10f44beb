"""Read authored task files: ``tasks/<domain>/<function_name>.toml`` with query, canonical, tests.

A file that is not valid TOML, or that sits outside the ten domain folders, stops the build with
a one-line error naming the file and line (nothing can be said about such a file). A valid TOML
file whose fields are wrong (missing, wrong type, unknown key, name not matching the file) is a
schema-gate exclusion instead: it is reported in ``build_report.json`` and the build goes on.
Paths in results are relative to the tasks folder (POSIX), so build outputs never hold absolute
paths.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

from ..dataset.schema import DOMAINS
from ..errors import ExecRetrievalError
from .rule_variants import RuleVariant, RuleVariantError, build_variant

FIELDS: tuple[str, ...] = ("query", "canonical", "tests")
OPTIONAL_FIELDS: tuple[str, ...] = ("validation",)
VALIDATION_FIELDS: tuple[str, ...] = ("reference", "inputs")
VALIDATION_OPTIONAL: tuple[str, ...] = ("rules",)


class TaskFileError(ExecRetrievalError):
    """A task file cannot be read at all (bad TOML, wrong place); the message names file and line."""


@dataclass(frozen=True)
class AuthoredTask:
    """One task as written by its author; ``path`` is ``<domain>/<function_name>.toml``."""

    domain: str
    function_name: str
    path: str
    query: str
    canonical: str
    tests: tuple[str, ...]
    validation: ValidationSpec | None = None
    """The validation-only check (never shipped): see ``oracle.agreement``."""

    @property
    def rules(self) -> tuple[RuleVariant, ...]:
        """The stated-rule variants (none without a ``[validation]`` table)."""
        return self.validation.rules if self.validation else ()


@dataclass(frozen=True)
class ValidationSpec:
    """A task's validation-only check, kept out of the shipped dataset.

    ``reference`` defines ``reference(...)``, an independently written implementation of the query
    (a different algorithm from the canonical, same signature); ``inputs`` defines ``inputs(rng)``,
    returning 10-30 typical *valid* argument tuples drawn with ``rng`` (a seeded ``random.Random``).
    ``rules`` holds one plausible wrong program per rule the query states (``rule_variants``);
    a test must kill each.
    """

    reference: str
    inputs: str
    rules: tuple[RuleVariant, ...] = ()


@dataclass(frozen=True)
class TaskFileProblem:
    """A readable task file whose fields are wrong; ``reason`` starts with ``file:line:``."""

    domain: str
    function_name: str
    path: str
    reason: str


def _line_of(text: str, key: str) -> int:
    """1-based line where ``key = ...`` is assigned, or 1 when the key is absent."""
    match = re.search(rf"^[ \t]*{re.escape(key)}[ \t]*=", text, flags=re.MULTILINE)
    return text.count("\n", 0, match.start()) + 1 if match else 1


def _nth_line(text: str, header: str, n: int) -> int:
    """1-based line of the ``n``-th (1-based) ``header`` line, or 1 when there are fewer."""
    lines = [i for i, line in enumerate(text.splitlines(), 1) if line.strip() == header]
    return lines[n - 1] if len(lines) >= n else 1


def _toml_line(message: str) -> int:
    match = re.search(r"at line (\d+)", message)
    return int(match.group(1)) if match else 1


def parse_task_file(text: str, rel_path: str) -> AuthoredTask | TaskFileProblem:
    """Parse one file's text; ``rel_path`` (``domain/name.toml``) is used in messages and results."""
    domain, _, file_name = rel_path.rpartition("/")
    function_name = file_name.removesuffix(".toml")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        message = str(exc)
        raise TaskFileError(
            f"{rel_path}:{_toml_line(message)}: invalid TOML ({message}); fix the syntax "
            "(multi-line code goes in '''...''' literal strings)"
        ) from None

    def problem(key: str, what: str) -> TaskFileProblem:
        return TaskFileProblem(domain, function_name, rel_path, f"{rel_path}:{_line_of(text, key)}: {what}")

    for key in sorted(set(data) - set(FIELDS) - set(OPTIONAL_FIELDS)):
        return problem(key, f"unknown field '{key}'; a task file holds only {', '.join(FIELDS + OPTIONAL_FIELDS)}")
    for key in FIELDS:
        if key not in data:
            return problem(key, f"missing field '{key}'")
    query, canonical, tests = data["query"], data["canonical"], data["tests"]
    if not isinstance(query, str) or not query.strip():
        return problem("query", "field 'query' must be a non-empty string")
    if not isinstance(canonical, str) or not canonical.strip():
        return problem("canonical", "field 'canonical' must be a non-empty string ('''...''')")
    if not isinstance(tests, list):
        return problem("tests", "field 'tests' must be an array of strings")
    for index, test in enumerate(tests, 1):
        if not isinstance(test, str) or not test.strip():
            return problem("tests", f"field 'tests' item {index} must be a non-empty string")
    validation = data.get("validation")
    if validation is not None:
        if not isinstance(validation, dict):
            return problem("validation", "'validation' must be a table: [validation] with reference and inputs")
        for key in sorted(set(validation) - set(VALIDATION_FIELDS) - set(VALIDATION_OPTIONAL)):
            return problem(
                key, f"unknown field 'validation.{key}'; [validation] holds only reference, inputs and rules"
            )
        for key in VALIDATION_FIELDS:
            if not isinstance(validation.get(key), str) or not validation[key].strip():
                return problem(key, f"field 'validation.{key}' must be a non-empty string ('''...''')")
    canonical = canonical.replace("\r\n", "\n")
    rules: list[RuleVariant] = []
    if validation is not None:
        entries = validation.get("rules", [])
        if not isinstance(entries, list):
            return problem("rules", "'validation.rules' must be an array of tables: [[validation.rules]]")
        for index, entry in enumerate(entries, 1):
            try:
                rules.append(build_variant(canonical, function_name, entry, index))
            except RuleVariantError as exc:
                line = _nth_line(text, "[[validation.rules]]", index)
                return TaskFileProblem(domain, function_name, rel_path, f"{rel_path}:{line}: {exc}")
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", function_name):
        return problem(
            "canonical", f"file name '{file_name}' is not a Python identifier; name the file <function_name>.toml"
        )
    return AuthoredTask(
        domain=domain,
        function_name=function_name,
        path=rel_path,
        query=" ".join(query.split()),
        canonical=canonical,
        tests=tuple(t.replace("\r\n", "\n") for t in tests),
        validation=None
        if validation is None
        else ValidationSpec(
            reference=validation["reference"].replace("\r\n", "\n"),
            inputs=validation["inputs"].replace("\r\n", "\n"),
            rules=tuple(rules),
        ),
    )


def load_task_files(tasks_dir: Path | str) -> tuple[list[AuthoredTask], list[TaskFileProblem]]:
    """Every ``<domain>/<name>.toml`` below ``tasks_dir``, sorted by path; bad files are problems."""
    root = Path(tasks_dir)
    if not root.is_dir():
        raise TaskFileError(
            f"{root}: tasks folder not found; pass --tasks pointing at tasks/<domain>/<function_name>.toml files"
        )
    tasks: list[AuthoredTask] = []
    problems: list[TaskFileProblem] = []
    paths = sorted(root.rglob("*.toml"), key=lambda p: p.relative_to(root).as_posix())
    for path in paths:
        rel = path.relative_to(root).as_posix()
        parts = rel.split("/")
        if len(parts) != 2 or parts[0] not in DOMAINS:
            raise TaskFileError(
                f"{rel}:1: task files live in <domain>/<function_name>.toml with domain one of "
                f"{', '.join(DOMAINS)}; move or remove this file"
            )
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError as exc:
            raise TaskFileError(f"{rel}:1: not UTF-8 text ({exc.reason}); save the file as UTF-8") from None
        parsed = parse_task_file(text, rel)
        (tasks if isinstance(parsed, AuthoredTask) else problems).append(parsed)
    if not tasks and not problems:
        raise TaskFileError(f"{root}: no task files (<domain>/<function_name>.toml) found; check --tasks")
    return tasks, problems
