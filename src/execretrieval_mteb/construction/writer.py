"""Write a built dataset: the study's schema, the MTEB/HF layout, a minimal card and ``SHA256SUMS``.

Every file is rendered to text first (sorted keys, rows in id order, no timestamps or absolute
paths), written into a fresh sibling folder, checksummed, and only then swapped into place, so
an interrupted build leaves the previous output untouched and equal input gives equal bytes.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..dataset.io import (
    CORPUS,
    DISTRACTORS,
    EXECUTION_CACHE,
    QUERIES,
    STACKED_MUTANTS,
    dumps_jsonl,
    write_text_atomic,
)
from ..dataset.manifest import SUMS, render_sums
from ..dataset.schema import Label
from ..errors import ExecRetrievalError
from .ids import QueryIds
from .mutation import Mutant
from .task_files import AuthoredTask

HF_CONFIGS: tuple[tuple[str, str], ...] = (
    ("corpus", "corpus/test.jsonl"),
    ("queries", "queries/test.jsonl"),
    ("default", "default/test.jsonl"),
    ("distractor_metadata", f"data/{DISTRACTORS}"),
    ("execution_cache", f"data/{EXECUTION_CACHE}"),
    ("stacked_mutants", f"data/{STACKED_MUTANTS}"),
)


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


def _by_query_id(shipped: Sequence[ShippedTask]) -> list[ShippedTask]:
    return sorted(shipped, key=lambda s: s.ids.query_id)


def dataset_files(
    shipped: Sequence[ShippedTask],
    cache_rows: Sequence[Mapping[str, object]],
    stacked_rows: Sequence[Mapping[str, object]] = (),
) -> dict[str, str]:
    """Path (relative, POSIX) -> text of every data file of both layouts, plus the stacked-mutant companion rows."""
    queries, corpus, distractors = [], [], []
    for item in _by_query_id(shipped):
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
    corpus.sort(key=lambda r: r["corpus_id"])
    distractors.sort(key=lambda r: r["corpus_id"])
    qrels = [{"query-id": q["query_id"], "corpus-id": q["correct_corpus_ids"][0], "score": 1} for q in queries]
    return {
        f"data/{QUERIES}": dumps_jsonl(queries),
        f"data/{CORPUS}": dumps_jsonl(corpus),
        f"data/{DISTRACTORS}": dumps_jsonl(distractors),
        f"data/{EXECUTION_CACHE}": dumps_jsonl(cache_rows),
        f"data/{STACKED_MUTANTS}": dumps_jsonl(sorted(stacked_rows, key=lambda r: str(r["corpus_id"]))),
        "corpus/test.jsonl": dumps_jsonl({"id": r["corpus_id"], "title": "", "text": r["code"]} for r in corpus),
        "queries/test.jsonl": dumps_jsonl({"id": q["query_id"], "text": q["query"]} for q in queries),
        "default/test.jsonl": dumps_jsonl(qrels),
    }


def card_text(summary_table: str, n_queries: int, n_snippets: int) -> str:
    """A minimal dataset card whose YAML ``configs`` lets ``datasets.load_dataset(DIR, name)`` work."""
    configs = "".join(
        f"- config_name: {name}\n  data_files:\n  - split: test\n    path: {path}\n" for name, path in HF_CONFIGS
    )
    return (
        "---\n"
        "license: apache-2.0\n"
        "language:\n- en\n"
        "task_categories:\n- text-retrieval\n"
        "tags:\n- code\n- mteb\n- code-retrieval\n"
        f"configs:\n{configs}"
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


def prepare_out_dir(out_dir: Path) -> None:
    """Refuse to replace a folder that is not empty and not an earlier build (no ``SHA256SUMS``)."""
    if out_dir.exists() and (not out_dir.is_dir() or (any(out_dir.iterdir()) and not (out_dir / SUMS).is_file())):
        raise ExecRetrievalError(
            f"{out_dir}: exists and is not an earlier build (no {SUMS}); choose another --out or remove it"
        )


def write_dataset(out_dir: Path, files: Mapping[str, str]) -> str:
    """Write ``files`` plus ``SHA256SUMS`` into ``out_dir`` (replacing an earlier build); returns the sums."""
    out_dir = Path(out_dir)
    prepare_out_dir(out_dir)
    out_dir.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(dir=out_dir.parent, prefix=f".{out_dir.name}.building."))
    staging.chmod(0o755)
    try:
        for rel in sorted(files):
            write_text_atomic(staging / rel, files[rel])
        sums = render_sums(staging)
        write_text_atomic(staging / SUMS, sums)
        if out_dir.exists():
            retired = Path(tempfile.mkdtemp(dir=out_dir.parent, prefix=f".{out_dir.name}.old."))
            out_dir.rename(retired / "previous")
            staging.rename(out_dir)
            shutil.rmtree(retired)
        else:
            staging.rename(out_dir)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return sums
