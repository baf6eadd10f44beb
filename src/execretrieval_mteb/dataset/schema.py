"""Records of a built dataset, in the original study's schema (kept so its release also loads).

Layout of a built dataset directory (written by ``layout``, read by ``io``)::

    DIR/
      data/queries.jsonl              QueryRecord per line
      data/corpus.jsonl               CorpusRecord per line
      data/distractor_metadata.jsonl  DistractorRecord per line (one per mutant)
      data/execution_cache.jsonl      {code_sha256, tests_sha256, test_results: [outcome, ...]}
      data/stacked_mutants.jsonl      {corpus_id: s_NNNN, code, label, source_entry_id, n_edits, bug_types,
                                      edits: [{bug_type, bug_description, line, span, before, after}]}
                                      (companion data: never in the corpus, queries or qrels)
      corpus/test.jsonl               MTEB/HF config "corpus":  {id, title, text}
      queries/test.jsonl              MTEB/HF config "queries": {id, text}
      default/test.jsonl              MTEB/HF config "default" (qrels): {query-id, corpus-id, score}
      README.md                       dataset card; its YAML ``configs`` maps the three configs
      build_report.json               gate results, exclusions with reasons, counts
      SHA256SUMS                      sha256 of every other file, sorted by path

The original release's layout is the same ``data/`` files (its root may also hold them directly).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any


class Label(enum.Enum):
    CORRECT = "correct"
    INCORRECT = "incorrect"


class BugType(enum.Enum):
    """The six mechanical mutation kinds (``LEGACY`` covers other types found in the original release)."""

    OFF_BY_ONE = "off_by_one"
    OFF_BY_ONE_BOUNDARY = "off_by_one_boundary"
    WRONG_OPERATOR = "wrong_operator"
    WRONG_COMPARISON = "wrong_comparison"
    SWAP_ARGUMENTS = "swap_arguments"
    REMOVE_EDGE_CASE_CHECK = "remove_edge_case_check"


DOMAINS: tuple[str, ...] = (
    "bit_manipulation", "collections", "data_transformation", "date_time", "geometry",
    "math_numerical", "sorting_searching", "state_machines", "string_processing", "validation",
)


@dataclass(frozen=True)
class QueryRecord:
    query_id: str
    query: str
    test_suite: tuple[str, ...]
    correct_corpus_ids: tuple[str, ...]
    paired_distractor_corpus_ids: tuple[str, ...]
    entry_id: str
    metadata: dict[str, Any] = field(default_factory=dict)
    domain: str | None = None
    function_name: str | None = None


@dataclass(frozen=True)
class CorpusRecord:
    corpus_id: str
    code: str
    label: Label
    source_entry_id: str
    bug_type: str | None = None  # a BugType value for our mutants; free text in the original release


@dataclass(frozen=True)
class DistractorRecord:
    corpus_id: str
    source_entry_id: str
    bug_type: str
    bug_description: str
    line: int | None = None
    span: tuple[int, int] | None = None  # character offsets [start, end) of the edit in the canonical
    before: str | None = None
    after: str | None = None


@dataclass(frozen=True)
class StackedRecord:
    """A stacked mutant (2-4 composed single edits of a canonical), companion data kept out of the corpus."""

    corpus_id: str
    code: str
    source_entry_id: str
    n_edits: int
    bug_types: tuple[str, ...] = ()
