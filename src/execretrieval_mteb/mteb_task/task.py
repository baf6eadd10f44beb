"""The ``ExecRetrieval`` MTEB task: code retrieval judged by execution, with near-clone buggy distractors.

Every query is a natural-language description of a Python function; the corpus holds every
task's canonical implementation and up to four single-edit mutants that fail its tests. Besides
mteb's standard retrieval metrics (nDCG@k, MAP, recall, ...) the task's metric hook adds, at
k = 1, 3, 5, 10:

- ``exec_at_k``: 1 if a snippet in the top k passes all of the query's tests (main score: exec@1);
- ``execution_precision_at_k``: the share of the top k that passes all of the query's tests;
- ``ndcg_tie_neutral_at_k``: nDCG@k against the correct snippets, ties broken neutrally.

All three are exact expectations under random tie-breaking (see ``evaluation.ranking``), so that
neither corpus order nor ids can hand a canonical the win when it ties with its own mutants.
They are computed from the dataset's execution cache: no code runs inside mteb's process. A pair
missing from the cache counts as failing, which is sound because the build's cross-canonical
sweep proved that no snippet defines another query's target function
(see ``evaluation.verdicts``).

Each instance files its results under the ``dataset_revision`` of the data it reads (the
release's Hub commit for the official data, ``local-<fingerprint>`` otherwise; see ``dataset.release``),
decided when the task is created because mteb looks up cached results before loading data.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mteb.abstasks.retrieval import AbsTaskRetrieval
from mteb.abstasks.task_metadata import TaskMetadata

from ..dataset import manifest
from ..dataset.io import BuiltDataset, DatasetError, study_files
from ..evaluation.metric_names import K_VALUES, MAIN_SCORE
from ..evaluation.ranking import Ranking
from ..evaluation.scoring import score_rankings
from ..evaluation.verdicts import passing_from_cache
from .data_source import SPLIT, DataSource, SourceKind, load_source, resolve_source
from .registration import complete_pending
from ..dataset.release import UNRELEASED, dataset_revision, pinned_release

HUB_REPO = pinned_release().repo_id
HUB_REVISION = pinned_release().revision or UNRELEASED

QUERY_PROMPT = (
    "Given a description of a Python function, retrieve a code snippet that implements it correctly"
)

CITATION = r"""
@misc{kapoor2026execretrieval,
  archiveprefix = {arXiv},
  author = {Kapoor and Khan},
  eprint = {2609.01865},
  primaryclass = {cs.SE},
  title = {ExecRetrieval: Measuring the Functional-Correctness Gap in Code-Embedding Retrieval},
  url = {https://arxiv.org/abs/2609.01865},
  year = {2026},
}
"""


class ExecRetrieval(AbsTaskRetrieval):
    """ExecRetrieval; ``data`` overrides ``$EXECRETRIEVAL_DATA`` ("bundled", "hub" or a directory)."""

    metadata = TaskMetadata(
        name="ExecRetrieval",
        description=(
            "Execution-verified Python code retrieval. Each query describes a function; the corpus holds "
            "every canonical implementation plus near-identical single-edit mutants (off-by-one, wrong "
            "operator, wrong comparison, swapped arguments, removed edge-case check) that fail the query's "
            "tests. exec@k asks whether a snippet passing all tests is in the top k."
        ),
        reference="https://arxiv.org/abs/2609.01865",
        dataset={"path": HUB_REPO, "revision": HUB_REVISION},
        type="Retrieval",
        category="t2t",
        modalities=["text"],
        eval_splits=[SPLIT],
        eval_langs=["eng-Latn", "python-Code"],
        main_score=MAIN_SCORE,
        date=("2026-11-01", "2026-11-30"),
        domains=["Programming", "Written"],
        task_subtypes=["Code retrieval"],
        license="apache-2.0",
        annotations_creators="derived",
        dialect=[],
        sample_creation="created",
        bibtex_citation=CITATION,
        prompt={"query": QUERY_PROMPT},
    )
    abstask_prompt = QUERY_PROMPT
    # mteb retrieves max(k_values) per query; 100 covers every reported k and keeps predictions small.
    k_values = (1, 3, 5, 10, 20, 100)

    def __init__(self, data: str | Path | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.source: DataSource = resolve_source(data)
        self.fingerprint: str | None = _source_fingerprint(self.source)
        """sha256 of the data's ``SHA256SUMS`` (None for the Hub until loaded, or unreadable data)."""
        self.metadata = self.metadata.model_copy(
            update={"dataset": {"path": HUB_REPO, "revision": self._revision()}}, deep=True
        )
        self.built: BuiltDataset | None = None
        self._passing: dict[str, frozenset[str]] = {}

    def _revision(self) -> str:
        if self.source.kind is SourceKind.HUB or self.fingerprint is None:
            return HUB_REVISION
        return dataset_revision(self.fingerprint)

    def load_data(self, num_proc: int | None = None, **kwargs: Any) -> None:
        """Load MTEB's split and the study-schema dataset it joins to; the cache is indexed once here."""
        if self.data_loaded:
            return
        split, built = load_source(self.source, HUB_REPO, pinned_release().revision, num_proc)
        if self.fingerprint is not None and built.fingerprint != self.fingerprint:
            raise DatasetError(f"{built.root}: the dataset changed while the task was running; run again")
        self.fingerprint = built.fingerprint
        self.dataset = {"default": {SPLIT: split}}
        self.built = built
        self._passing = passing_from_cache(built)
        self.data_loaded = True

    def unload_data(self) -> None:
        own = self.metadata  # mteb's unload drops instance metadata; ours names the data's revision, keep it
        super().unload_data()
        self.metadata = own
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
        """exec@k, execution_precision@k and tie-neutral nDCG@k from the rankings and the execution cache."""
        rankings = {qid: Ranking.from_scores(docs) for qid, docs in results.items()}
        relevant = {qid: frozenset(cid for cid, rel in docs.items() if rel > 0) for qid, docs in qrels.items()}
        per_query = score_rankings(qrels.keys(), rankings, self._passing, relevant, K_VALUES)
        return per_query.means()


def _source_fingerprint(source: DataSource) -> str | None:
    """The fingerprint of a local source, cheaply (the hash of its ``SHA256SUMS``), or None."""
    if source.path is None:
        return None
    try:
        return manifest.fingerprint(source.path, study_files(source.path))
    except (DatasetError, OSError):
        return None  # unreadable: load_data reports the problem


# If importing this module is what imported mteb, the start-up hook deferred the registration until now.
complete_pending()
