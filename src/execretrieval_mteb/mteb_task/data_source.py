"""Where the task's data comes from: the bundled dataset (default), a local directory, or the Hub.

Choose with the task's ``data`` argument or, for ``mteb run`` where no argument can be passed,
the ``EXECRETRIEVAL_DATA`` environment variable: unset or ``bundled`` for the dataset shipped in
the package (fully offline), ``hub`` for the pinned revision on the Hugging Face Hub, or a path to
a directory made by ``execretrieval build`` or an unpacked original release (``data/*.jsonl``).

MTEB's query and corpus ids are the dataset's own ``query_id`` and ``corpus_id`` so that
predictions join back to the data; relevance is 1 for each of a query's ``correct_corpus_ids``.
"""

from __future__ import annotations

import enum
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..dataset.bundled import BUNDLED_DATASET_DIR
from ..dataset.io import BuiltDataset, DatasetError, load_dataset
from ..dataset.manifest import SUMS

if TYPE_CHECKING:
    from mteb.abstasks.retrieval_dataset_loaders import RetrievalSplitData

ENV_VAR = "EXECRETRIEVAL_DATA"
SPLIT = "test"


class SourceKind(enum.Enum):
    BUNDLED = "bundled"
    LOCAL = "local"
    HUB = "hub"


@dataclass(frozen=True)
class DataSource:
    kind: SourceKind
    path: Path | None = None

    def describe(self) -> str:
        return self.kind.value if self.path is None else f"{self.kind.value}:{self.path}"


def resolve_source(spec: str | os.PathLike[str] | None = None) -> DataSource:
    """``spec`` (or ``$EXECRETRIEVAL_DATA``): None/"bundled", "hub", or a directory path."""
    if spec is None:
        spec = os.environ.get(ENV_VAR) or SourceKind.BUNDLED.value
    text = os.fspath(spec)
    if text == SourceKind.BUNDLED.value:
        return DataSource(SourceKind.BUNDLED, BUNDLED_DATASET_DIR)
    if text == SourceKind.HUB.value:
        return DataSource(SourceKind.HUB)
    return DataSource(SourceKind.LOCAL, Path(text).expanduser())


def load_built(source: DataSource, hub_repo: str, hub_revision: str | None) -> BuiltDataset:
    """The study-schema dataset (queries with tests, corpus, execution cache) of a source, verified
    against its ``SHA256SUMS``; ``hub_revision`` None means no release is pinned yet."""
    if source.kind is SourceKind.BUNDLED:
        assert source.path is not None
        if not source.path.is_dir():
            raise DatasetError(
                f"{source.path}: the bundled dataset is missing from this installation; reinstall the package, "
                f"or use a dataset made by `execretrieval build` (`execretrieval run --data DIR`, or "
                f"{ENV_VAR}=DIR for mteb; {ENV_VAR}=hub for the Hub)"
            )
        return load_dataset(source.path)
    if source.kind is SourceKind.LOCAL:
        assert source.path is not None
        return load_dataset(source.path)
    if hub_revision is None:
        raise DatasetError(
            f"no official release of {hub_repo} is pinned yet (dataset/release.json); use the bundled data "
            "(the default) or a directory made by `execretrieval build`"
        )
    from huggingface_hub import snapshot_download

    try:
        local = snapshot_download(
            hub_repo, repo_type="dataset", revision=hub_revision, allow_patterns=["data/*", SUMS]
        )
    except Exception as exc:  # noqa: BLE001 - any download failure is the same user-level problem
        raise hub_error(hub_repo, hub_revision, exc) from None
    return load_dataset(Path(local))


def hub_error(hub_repo: str, hub_revision: str, exc: BaseException) -> DatasetError:
    """One line for a Hub download that failed: offline with nothing cached, or the Hub refused."""
    where = f"--data hub ({hub_repo}@{hub_revision[:12]})"
    offline = type(exc).__name__ in ("LocalEntryNotFoundError", "OfflineModeIsEnabled") or isinstance(
        exc, (ConnectionError, TimeoutError)) or "connect" in str(exc).lower()
    if offline:
        return DatasetError(
            f"{where}: not in the Hugging Face cache and the Hub cannot be reached (offline?); connect once to "
            "download it, or use the bundled data (--data bundled, the default) or a local copy (--data DIR)"
        )
    reason = (str(exc).strip().splitlines() or [""])[0]
    return DatasetError(f"{where}: download failed ({type(exc).__name__}: {reason}); use --data bundled or --data DIR")


def load_built_source(spec: str | os.PathLike[str] | None = None) -> BuiltDataset:
    """The study-schema dataset ``--data`` names (bundled, hub, or a directory), verified."""
    from ..dataset.release import pinned_release

    release = pinned_release()
    return load_built(resolve_source(spec), release.repo_id, release.revision)


def split_from_built(built: BuiltDataset) -> RetrievalSplitData:
    """MTEB's in-memory split (corpus, queries, qrels) built from the study-schema records."""
    from datasets import Dataset

    corpus = Dataset.from_dict({
        "id": [c.corpus_id for c in built.corpus],
        "title": ["" for _ in built.corpus],
        "text": [c.code for c in built.corpus],
    })
    queries = Dataset.from_dict({"id": [q.query_id for q in built.queries], "text": [q.query for q in built.queries]})
    qrels = {q.query_id: {cid: 1 for cid in q.correct_corpus_ids} for q in built.queries}
    return {"corpus": corpus, "queries": queries, "relevant_docs": qrels, "top_ranked": None}


def split_from_hub(hub_repo: str, hub_revision: str, built: BuiltDataset, num_proc: int | None = None) -> RetrievalSplitData:
    """MTEB's standard loader over the Hub configs ``corpus``, ``queries`` and ``default`` (qrels)."""
    from mteb.abstasks.retrieval_dataset_loaders import RetrievalDatasetLoader

    try:
        split = RetrievalDatasetLoader(hf_repo=hub_repo, revision=hub_revision, split=SPLIT).load(num_proc=num_proc)
    except Exception as exc:  # noqa: BLE001 - see hub_error
        raise hub_error(hub_repo, hub_revision, exc) from None
    known = {q.query_id for q in built.queries}
    stray = sorted(set(split["relevant_docs"]) - known)
    if stray:
        raise DatasetError(f"{hub_repo}@{hub_revision}: qrels name queries {stray[:3]} absent from data/queries.jsonl")
    return split


def load_source(
    source: DataSource, hub_repo: str, hub_revision: str | None, num_proc: int | None = None
) -> tuple[RetrievalSplitData, BuiltDataset]:
    """Both views of one source: MTEB's split and the study-schema dataset it joins back to."""
    built = load_built(source, hub_repo, hub_revision)
    if source.kind is SourceKind.HUB:
        assert hub_revision is not None
        return split_from_hub(hub_repo, hub_revision, built, num_proc), built
    return split_from_built(built), built
