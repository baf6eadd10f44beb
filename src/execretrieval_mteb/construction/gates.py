"""The five validation gates; each check returns the reasons a task fails it (empty: it passes).

1. schema:              query text, 7-10 distinct tests, exactly four mutants.
2. AST semantics:       the canonical parses, is stdlib-only and defines the target at module
                        level; the target is not a builtin (code lacking it could still pass);
                        every test is one statement calling the target; every mutant defines it.
3. canonical execution: the canonical passes every test; the task has a validation-only check
                        (``[validation]``) whose generator works, and the canonical agrees with
                        the independent reference on every generated input.
4. mutant execution:    every stated-rule variant (``[[validation.rules]]``, see ``rule_variants``)
                        fails a test; no single-edit candidate survives the tests while disagreeing with the
                        canonical on a generated input (a *live* mutant: the tests miss a bug);
                        every chosen mutant fails at least one value test with a wrong output,
                        no test times out or comes near its CPU limit, and it disagrees with the canonical on a generated
                        input; the four do not all fail the identical set of tests.
5. corpus integrity:    ids unique and resolving, every canonical referenced, code texts and
                        target names unique across the corpus.

The same checks serve ``execretrieval build`` (which excludes a failing task and reports why)
and ``execretrieval validate`` (which reports every failure of a built dataset).
"""

from __future__ import annotations

import ast
import builtins
import enum
import keyword
import sys
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ..oracle.outcomes import SuiteResult
from .selection import MUTANTS_PER_TASK, Rejection, Verdict, judge
from ..oracle.agreement import Agreement

MIN_TESTS, MAX_TESTS = 7, 10
TEST_PREVIEW_CHARS = 70


class Gate(enum.Enum):
    SCHEMA = "schema"
    AST_SEMANTICS = "ast_semantics"
    CANONICAL_EXECUTION = "canonical_execution"
    MUTANT_EXECUTION = "mutant_execution"
    CORPUS_INTEGRITY = "corpus_integrity"


@dataclass(frozen=True)
class GateFailure:
    gate: Gate
    reason: str


def check_schema(query: str, tests: Sequence[str], n_mutants: int | None) -> list[str]:
    """Gate 1; ``n_mutants`` None skips the mutant count (checked after selection)."""
    reasons = []
    if not query.strip():
        reasons.append("query is empty")
    if not MIN_TESTS <= len(tests) <= MAX_TESTS:
        reasons.append(f"has {len(tests)} tests; write {MIN_TESTS} to {MAX_TESTS}")
    duplicates = sorted(t for t, n in Counter(tests).items() if n > 1)
    if duplicates:
        reasons.append(f"test {_preview(duplicates[0])} appears more than once")
    if n_mutants is not None and n_mutants != MUTANTS_PER_TASK:
        reasons.append(f"has {n_mutants} verified mutants, needs {MUTANTS_PER_TASK}")
    return reasons


def _preview(test: str) -> str:
    flat = " ".join(test.split())
    return "`" + (flat if len(flat) <= TEST_PREVIEW_CHARS else flat[: TEST_PREVIEW_CHARS - 3] + "...") + "`"


def imported_modules(tree: ast.AST) -> list[str]:
    names = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.extend(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            names.append("." * node.level + (node.module or "").split(".")[0])
    return names


def defines_function(tree: ast.Module, name: str) -> bool:
    return any(isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == name for n in tree.body)


def calls(tree: ast.AST, name: str) -> bool:
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == name for n in ast.walk(tree))


def check_ast(
    function_name: str, canonical: str, tests: Sequence[str], mutants: Sequence[str] = (), single_statement: bool = True
) -> list[str]:
    """Gate 2 on the canonical, the tests and (when given) the mutants.

    ``single_statement`` enforces the authored-task format (one assert or one ``with`` block per
    test); the original release has a few multi-statement tests, so ``validate`` relaxes it.
    """
    reasons = []
    if keyword.iskeyword(function_name) or hasattr(builtins, function_name) or function_name == "pytest":
        reasons.append(
            f"target name '{function_name}' is a Python builtin or keyword; "
            "a snippet without it could pass; rename the task"
        )
    try:
        tree = ast.parse(canonical)
    except SyntaxError as exc:
        return reasons + [f"canonical does not parse (line {exc.lineno}: {exc.msg})"]
    if not defines_function(tree, function_name):
        reasons.append(f"canonical does not define `def {function_name}(...)` at module level")
    foreign = sorted({m for m in imported_modules(tree) if m not in sys.stdlib_module_names})
    if foreign:
        reasons.append(f"canonical imports non-stdlib module(s) {', '.join(foreign)}; use the standard library only")
    for index, test in enumerate(tests, 1):
        try:
            test_tree = ast.parse(test)
        except SyntaxError as exc:
            reasons.append(f"test {index} {_preview(test)} does not parse ({exc.msg})")
            continue
        one_statement = len(test_tree.body) == 1 and isinstance(test_tree.body[0], (ast.Assert, ast.With))
        if single_statement and not one_statement:
            reasons.append(
                f"test {index} {_preview(test)} must be one assert statement or one `with pytest.raises(...)` block"
            )
        elif not calls(test_tree, function_name):
            reasons.append(f"test {index} {_preview(test)} does not call {function_name}(...)")
    for index, mutant in enumerate(mutants, 1):
        try:
            mutant_tree = ast.parse(mutant)
        except SyntaxError as exc:
            reasons.append(f"mutant {index} does not parse (line {exc.lineno}: {exc.msg})")
            continue
        if not defines_function(mutant_tree, function_name):
            reasons.append(f"mutant {index} does not define {function_name}")
    return reasons


def describe_failures(result: SuiteResult, tests: Sequence[str], passing: bool = False) -> str:
    """``test 3 `assert f(1) == 2`: FAIL; ...`` for failing tests (or passing ones with ``passing``)."""
    if result.infra_error is not None:
        return f"oracle infrastructure error ({result.infra_error})"
    parts = [
        f"test {i} {_preview(t)}: {o.to_str()}"
        for i, (t, o) in enumerate(zip(tests, result.outcomes), 1)
        if o.passed == passing
    ]
    return "; ".join(parts[:3]) + (f"; and {len(parts) - 3} more" if len(parts) > 3 else "")


def check_canonical(result: SuiteResult, tests: Sequence[str]) -> list[str]:
    """Gate 3, on the canonical's own tests."""
    if result.infra_error is not None:
        return [f"canonical could not be run: {describe_failures(result, tests)}"]
    if len(result.outcomes) != len(tests) or not result.passed:
        return [f"canonical fails its own tests: {describe_failures(result, tests)}"]
    return []


def check_reference(agreement: Agreement) -> list[str]:
    """Gate 3, on the validation-only check: the canonical agrees with the reference on every input."""
    reasons = []
    if agreement.disagree:
        shown = ", ".join(f"#{i}" for i in agreement.disagree[:5])
        reasons.append(
            f"canonical and validation.reference disagree on generated input(s) {shown} of {agreement.inputs}; "
            "fix the canonical, the reference or the query"
        )
    if agreement.timeouts:
        shown = ", ".join(f"#{i}" for i in agreement.timeouts[:5])
        reasons.append(f"the validation check times out on generated input(s) {shown}; generate smaller inputs")
    return reasons


def check_live(verdicts: Sequence[Verdict]) -> list[str]:
    """Gate 4, over every candidate: none passes every test while disagreeing with the canonical."""
    return [
        f"tests miss a bug: {v.mutant.bug_description} ({v.mutant.bug_type.value}) passes every test but "
        f"disagrees with the canonical on generated input #{v.agreement.disagree[0]}; add a test"
        for v in verdicts
        if v.rejection is Rejection.LIVE and v.agreement is not None
    ]


def check_mutants(
    results: Sequence[SuiteResult],
    raises_tests: frozenset[int] = frozenset(),
    agreements: Sequence[Agreement | None] | None = None,
) -> list[str]:
    """Gate 4 over the chosen mutants' results, in order (with their agreements when the task has them)."""
    reasons = []
    for index, result in enumerate(results, 1):
        agreement = agreements[index - 1] if agreements is not None else None
        rejection = judge(result, raises_tests, agreement)
        if rejection in (Rejection.EQUIVALENT, Rejection.SURVIVOR, Rejection.LIVE):
            reasons.append(f"mutant {index} passes every test")
        elif rejection is Rejection.CRASH_ONLY:
            crashes = ", ".join(sorted({o.to_str() for o in result.outcomes if not o.passed}))
            reasons.append(f"mutant {index} fails only by crashing ({crashes}), never with a wrong output")
        elif rejection is Rejection.RAISES_ONLY:
            reasons.append(f"mutant {index} is wrong only in pytest.raises tests, never on a valid input")
        elif rejection is Rejection.AGREES_ON_INPUTS:
            reasons.append(f"mutant {index} agrees with the canonical on every generated input")
        elif rejection is Rejection.SLOW:
            reasons.append(f"mutant {index} times out or runs near its CPU limit (a machine-dependent verdict)")
        elif rejection is Rejection.INFRA_ERROR:
            reasons.append(f"mutant {index} could not be run ({result.infra_error})")
    if len(results) > 1 and len({r.failed_tests for r in results}) == 1 and not reasons:
        reasons.append(f"all {len(results)} mutants fail the identical set of tests; add tests that tell them apart")
    return reasons


@dataclass(frozen=True)
class IntegrityQuery:
    """What gate 5 needs of a query: its id, target name and the ids it points at."""

    query_id: str
    function_name: str
    correct_ids: tuple[str, ...]
    distractor_ids: tuple[str, ...]


def check_corpus_integrity(
    queries: Sequence[IntegrityQuery], corpus: Iterable[tuple[str, str]]
) -> list[tuple[str | None, str]]:
    """Gate 5 over (query, corpus (id, code)); returns (query id or None, reason) pairs."""
    problems: list[tuple[str | None, str]] = []
    corpus = list(corpus)
    ids = Counter(cid for cid, _ in corpus)
    codes = Counter(code for _, code in corpus)
    for cid in sorted(c for c, n in ids.items() if n > 1):
        problems.append((None, f"corpus id {cid} is used {ids[cid]} times"))
    duplicated_codes = sum(1 for n in codes.values() if n > 1)
    if duplicated_codes:
        problems.append((None, f"{duplicated_codes} code text(s) appear more than once in the corpus"))
    query_ids = Counter(q.query_id for q in queries)
    for qid in sorted(q for q, n in query_ids.items() if n > 1):
        problems.append((qid, f"query id {qid} is used {query_ids[qid]} times"))
    names = Counter(q.function_name for q in queries)
    referenced: set[str] = set()
    for query in queries:
        if names[query.function_name] > 1:
            problems.append((query.query_id, f"target name {query.function_name} is shared with another query"))
        if len(query.correct_ids) != 1:
            problems.append((query.query_id, f"has {len(query.correct_ids)} correct ids, needs exactly 1"))
        for cid in (*query.correct_ids, *query.distractor_ids):
            if cid not in ids:
                problems.append((query.query_id, f"points at corpus id {cid}, which does not exist"))
        if set(query.correct_ids) & referenced or set(query.distractor_ids) & referenced:
            problems.append((query.query_id, "shares corpus ids with another query"))
        referenced.update(query.correct_ids, query.distractor_ids)
    unreferenced = sorted(set(ids) - referenced)
    if unreferenced:
        problems.append((None, f"{len(unreferenced)} corpus item(s) belong to no query, e.g. {unreferenced[0]}"))
    return problems
