"""What a build ships, as records of the study's schema (``dataset.layout`` writes them to disk).

Construction only maps tasks to records: one query row per shipped task, a corpus row for its
canonical and each mutant, a distractor-metadata row per mutant; plus the build's own dataset
card (the per-domain table and where the report is).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ..dataset.layout import Records, configs_yaml
from ..dataset.schema import Label
from .ids import QueryIds
from .mutation import Mutant
from .task_files import AuthoredTask


@dataclass(frozen=True)
class ShippedTask:
    """A task that cleared every gate, with its four mutants and its ids (canonical first)."""

    task: AuthoredTask
    mutants: tuple[Mutant, ...]
    ids: QueryIds

    @property
    def canonical_id(self) -> str:
        return self.ids.snippet_ids[0]

    def mutant_ids(self) -> list[str]:
        return list(self.ids.snippet_ids[1:])

    def codes(self) -> tuple[str, ...]:
        """Canonical then mutants, aligned with ``ids.snippet_ids``."""
        return (self.task.canonical, *(m.code for m in self.mutants))


def dataset_records(
    shipped: Sequence[ShippedTask],
    cache_rows: Sequence[Mapping[str, object]],
    stacked_rows: Sequence[Mapping[str, object]] = (),
) -> Records:
    """The study-schema rows of every shipped task, its execution-cache rows and the stacked-mutant companions."""
    queries, corpus, distractors = [], [], []
    for item in shipped:
        task = item.task
        entry = task.function_name
        mutant_ids = item.mutant_ids()
        queries.append(
            {
                "query_id": item.ids.query_id,
                "query": task.query,
                "test_suite": list(task.tests),
                "correct_corpus_ids": [item.canonical_id],
                "paired_distractor_corpus_ids": sorted(mutant_ids),
                "entry_id": entry,
                "domain": task.domain,
                "function_name": task.function_name,
                "metadata": {"domain": task.domain, "function_name": task.function_name, "source_file": task.path},
            }
        )
        corpus.append(
            {
                "corpus_id": item.canonical_id,
                "code": task.canonical,
                "label": Label.CORRECT.value,
                "source_entry_id": entry,
                "bug_type": None,
            }
        )
        for cid, mutant in zip(mutant_ids, item.mutants):
            corpus.append(
                {
                    "corpus_id": cid,
                    "code": mutant.code,
                    "label": Label.INCORRECT.value,
                    "source_entry_id": entry,
                    "bug_type": mutant.bug_type.value,
                }
            )
            distractors.append({"corpus_id": cid, "source_entry_id": entry, **mutant.to_metadata()})
    return Records(queries, corpus, distractors, cache_rows, stacked_rows)


def card_text(summary_table: str, n_queries: int, n_snippets: int) -> str:
    """A minimal dataset card whose YAML ``configs`` lets ``datasets.load_dataset(DIR, name)`` work."""
    return (
        "---\n"
        "license: apache-2.0\n"
        "language:\n- en\n"
        "task_categories:\n- text-retrieval\n"
        "tags:\n- code\n- mteb\n- code-retrieval\n"
        f"{configs_yaml()}"
        "---\n\n"
        "# ExecRetrieval\n\n"
        f"{n_queries} Python tasks; a corpus of {n_snippets} snippets: each task's canonical implementation "
        "and four execution-verified single-edit mutants. Built by `execretrieval build`; "
        "the `stacked_mutants` config holds companion mutants with 2-4 composed edits, never part of "
        "the corpus; "
        "`build_report.json` lists every gate, sweep and exclusion, `SHA256SUMS` every file.\n\n"
        "## Per-domain summary\n\n"
        f"{summary_table}"
    )
