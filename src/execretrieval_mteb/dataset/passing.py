"""Which snippets pass all of a query's tests, by the execution cache alone.

A cache entry is keyed by the sha256 of a snippet's code and of a query's test list; a snippet
passes a query when an entry for that pair records every test as passed. A pair without an entry
does not pass: the build ran every snippet on its own tests and, in the cross-canonical sweep, on
the tests of every query whose target function it defines, so any other pair cannot bind the
function the tests call. Identical code or identical test lists share their entries.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence

from ..oracle.outcomes import code_sha256, tests_sha256


def passing_sets(
    corpus: Iterable[tuple[str, str]],
    queries: Iterable[tuple[str, Sequence[str]]],
    verdicts: Iterable[tuple[str, str, bool]],
) -> dict[str, frozenset[str]]:
    """Per query id, the passing corpus ids, from ``(corpus_id, code)``, ``(query_id, tests)`` and
    ``(code_sha256, tests_sha256, passed all)`` entries."""
    by_code: dict[str, list[str]] = defaultdict(list)
    for corpus_id, code in corpus:
        by_code[code_sha256(code)].append(corpus_id)
    by_tests: dict[str, list[str]] = defaultdict(list)
    passing: dict[str, set[str]] = {}
    for query_id, tests in queries:
        by_tests[tests_sha256(tests)].append(query_id)
        passing[query_id] = set()
    for code_hash, tests_hash, passed in verdicts:
        if passed:
            for query_id in by_tests.get(tests_hash, ()):
                passing[query_id].update(by_code.get(code_hash, ()))
    return {qid: frozenset(ids) for qid, ids in passing.items()}
