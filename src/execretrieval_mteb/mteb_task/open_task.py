"""The ``ExecRetrievalOpen`` MTEB task: ExecRetrieval's queries over its snippets plus ~43,000 wild functions.

The original study's own limitation: its corpus is exactly the benchmark's snippets, so exec@k
says nothing about open-domain code search. Here the corpus is the 5,045 benchmark snippets plus
the wild corpus (``construction.wild``: real top-level functions of the sandbox Python's standard
library and of the permissively licensed distributions installed with this package), built on
this machine on first use (offline; ``construction.wild.store``). Queries and qrels are the closed
task's: only the canonical is *relevant*, but any snippet can be *correct*, and no qrels can say
which wild function is: execution does.

The metric hook judges every snippet of a query's top 10: a benchmark snippet by the dataset's
execution cache as on the closed task; a wild one in the sandbox, its function bound to the
query's target name, by the query's tests and then by its independent reference on the
validation inputs (``evaluation.open_judge``; the references ship in ``data/open/``). So the
exec@k in mteb's result file is the execution-judged one, and, unlike the closed task, this task
runs code inside mteb's process (the sandboxed oracle; verdicts cached in
``$XDG_CACHE_HOME/execretrieval-mteb/oracle-open.sqlite`` unless ``oracle_cache`` is given).

``data`` chooses the closed part as for ``ExecRetrieval`` (``$EXECRETRIEVAL_DATA``), ``wild`` the
wild corpus folder (``$EXECRETRIEVAL_WILD``; default: the one built for this environment). The
revision results are filed under is ``local-<12 hex>`` of both parts' fingerprints; before the
wild corpus is first built it is not known, and the task files under the closed data's revision
with an ``-open`` suffix until then.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mteb.abstasks.retrieval import AbsTaskRetrieval

from ..dataset import manifest
from ..dataset.io import BuiltDataset, DatasetError, study_files
from ..dataset.release import dataset_revision, pinned_release
from ..dataset.wild import (
    OpenPool, WildCorpus, combined_fingerprint, open_pool, validation_data_fingerprint, wild_fingerprint,
)
from ..evaluation.metric_names import DEPTH, K_VALUES
from ..evaluation.ranking import Ranking
from ..evaluation.scoring import score_rankings
from ..evaluation.verdicts import passing_from_cache
from .about import QUERY_PROMPT
from .data_source import SPLIT, DataSource, load_source, resolve_source
from .exec_retrieval import ExecRetrieval

TASK_NAME = "ExecRetrievalOpen"
DESCRIPTION = (
    "ExecRetrieval's queries over an open pool: the benchmark's canonical implementations and their "
    "near-identical buggy mutants, plus about 43,000 real Python functions from permissively licensed "
    "open-source code. A snippet is correct if it passes the query's tests (a wild function with the "
    "target name bound to it) and agrees with an independent reference; exec@k asks whether one is in the top k."
)


def default_oracle_cache() -> Path:
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return cache / "execretrieval-mteb" / "oracle-open.sqlite"


class ExecRetrievalOpen(AbsTaskRetrieval):
    """ExecRetrievalOpen; ``data`` as for ``ExecRetrieval``, ``wild`` a wild corpus folder."""

    # The closed task's metadata (the same queries, languages, scores and citation); only what differs is set.
    metadata = ExecRetrieval.metadata.model_copy(update={
        "name": TASK_NAME, "description": DESCRIPTION, "sample_creation": "found",
        "dataset": {"path": pinned_release().repo_id, "revision": "local-open"}, "date": ("2026-11-01", "2026-12-05"),
    }, deep=True)
    abstask_prompt = QUERY_PROMPT
    k_values = (1, 3, 5, 10, 20, 100)

    def __init__(self, data: str | Path | None = None, wild: str | Path | None = None,
                 oracle_cache: str | Path | None = None, workers: int | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.source: DataSource = resolve_source(data)
        self.wild_dir: Path | None = Path(wild) if wild is not None else None
        self.oracle_cache = Path(oracle_cache) if oracle_cache is not None else default_oracle_cache()
        self.workers = workers
        self.pool: OpenPool | None = None
        self.built: BuiltDataset | None = None
        self.fingerprint: str | None = self._cheap_fingerprint()
        self._set_revision()
        self._passing: dict[str, frozenset[str]] = {}
        self.judge_seconds = 0.0
        """Wall time the metric hook spent judging wild pairs (so callers can tell encoding time apart)."""

    def _resolved_wild_dir(self) -> Path:
        from ..construction.wild.store import default_wild_dir

        return self.wild_dir if self.wild_dir is not None else default_wild_dir()

    def _cheap_fingerprint(self) -> str | None:
        """Both parts' fingerprints from their ``SHA256SUMS`` alone, or None (not built, or the Hub)."""
        if self.source.path is None:
            return None
        try:
            closed = manifest.fingerprint(self.source.path, study_files(self.source.path))
            wild_dir = self._resolved_wild_dir()
            if not (wild_dir / manifest.SUMS).is_file():
                return None
            return combined_fingerprint(closed, wild_fingerprint(wild_dir), validation_data_fingerprint())
        except (DatasetError, OSError):
            return None

    def _set_revision(self) -> None:
        revision = dataset_revision(self.fingerprint) if self.fingerprint else "local-open"
        self.metadata = self.metadata.model_copy(
            update={"dataset": {"path": pinned_release().repo_id, "revision": revision}}, deep=True)

    def load_data(self, num_proc: int | None = None, **kwargs: Any) -> None:
        """The closed split plus the wild corpus (built here on first use), and the validation references."""
        if self.data_loaded:
            return
        from datasets import Dataset

        from ..construction.wild.store import ensure_wild

        release = pinned_release()
        split, built = load_source(self.source, release.repo_id, release.revision, num_proc, release.fingerprint)
        wild: WildCorpus = ensure_wild(self.wild_dir, say=lambda m: print(f"ExecRetrievalOpen: {m}"))
        self.pool = open_pool(built, wild)
        self.built = built
        rows = split["corpus"].to_dict()
        records = wild.records
        corpus = Dataset.from_dict({
            "id": list(rows["id"]) + [r.corpus_id for r in records],
            "title": list(rows["title"]) + ["" for _ in records],
            "text": list(rows["text"]) + [r.code for r in records],
        })
        self.dataset = {"default": {SPLIT: dict(split, corpus=corpus)}}
        self.fingerprint = self.pool.fingerprint
        self._set_revision()
        self._passing = passing_from_cache(built)
        self.data_loaded = True

    def unload_data(self) -> None:
        own = self.metadata
        super().unload_data()
        self.metadata = own
        self.pool = None
        self.built = None
        self._passing = {}

    def task_specific_scores(
        self,
        scores: dict[str, dict[str, float]],
        qrels: dict[str, dict[str, int]],
        results: dict[str, dict[str, float]],
        hf_split: str,
        hf_subset: str,
    ) -> dict[str, float]:
        """exec@k, execution_precision@k and tie-neutral nDCG@k, every top-10 wild pair judged in the sandbox."""
        import time

        from ..evaluation.open_pipeline import judge_wild_pairs
        from ..oracle.api import Oracle

        assert self.pool is not None
        started = time.perf_counter()
        rankings = {qid: Ranking.from_scores(docs) for qid, docs in results.items()}
        pairs = sorted({(qid, cid) for qid, r in rankings.items() for cid in r.candidates(DEPTH) if cid in self.pool.wild})
        passing = {qid: set(self._passing.get(qid, ())) for qid in qrels}
        if pairs:
            self.oracle_cache.parent.mkdir(parents=True, exist_ok=True)
            with Oracle(workers=self.workers, cache=self.oracle_cache) as oracle:
                for (qid, cid), verdict in judge_wild_pairs(self.pool, pairs, oracle).items():
                    if verdict.passed:
                        passing.setdefault(qid, set()).add(cid)
        self.judge_seconds += time.perf_counter() - started
        relevant = {qid: frozenset(cid for cid, rel in docs.items() if rel > 0) for qid, docs in qrels.items()}
        frozen = {qid: frozenset(ids) for qid, ids in passing.items()}
        return score_rankings(qrels.keys(), rankings, frozen, relevant, K_VALUES).means()


# If importing this module is what imported mteb, the start-up hook deferred the registration until now.
@dataclass(frozen=True)
class OpenLoaded:
    """The open task in the shape ``results.encode`` takes (``task.LoadedTask``'s ``task``, ``fingerprint``
    and ``revision``), read when asked: both are known once mteb has loaded the task's data."""

    task: ExecRetrievalOpen

    @property
    def fingerprint(self) -> str:
        return self.task.fingerprint or ""

    @property
    def revision(self) -> str:
        return str(self.task.metadata.revision)


from .registration import complete_pending  # noqa: E402

complete_pending()
