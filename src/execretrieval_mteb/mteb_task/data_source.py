"""Where the package's commands read the task's data: the bundled dataset (default), a local
directory, or the Hub.

Choose with ``--data`` (``task.load_task(data)``) or the ``EXECRETRIEVAL_DATA`` environment
variable: unset or ``bundled`` for the dataset shipped in the package (fully offline), ``hub`` for
the pinned revision on the Hugging Face Hub, or a path to a directory made by ``execretrieval
build`` or an unpacked original release (``data/*.jsonl``). Plain ``mteb run`` does not read it:
there the task is mteb's, and loads the pinned Hub commit with mteb's loader.

MTEB's query and corpus ids are the dataset's own ``query_id`` and ``corpus_id`` so that
predictions join back to the data; relevance is 1 for each of a query's ``correct_corpus_ids``.

From the Hub, the pinned commit is read twice over, without fetching any file twice: the study's
files (``data/*``, ``SHA256SUMS``) through ``huggingface_hub.snapshot_download`` (verified like any
local dataset), and mteb's ``corpus``/``queries``/``default`` configs through mteb's own
``RetrievalDatasetLoader``. Both land in the Hugging Face cache, so a fetched release loads offline
(``HF_HUB_OFFLINE=1``); offline without it in the cache is a one-line error saying so. mteb's split
is checked against the verified files: ``datasets`` in offline mode serves the *newest* cached
revision of a config whatever revision is asked for, so when they disagree (or the loader cannot
read its cache) the split is built from the verified files of the pinned commit instead, with a
warning.
"""

from __future__ import annotations

import enum
import logging
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
logger = logging.getLogger(__name__)


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


def load_built(source: DataSource, hub_repo: str, hub_revision: str | None,
               hub_fingerprint: str | None = None) -> BuiltDataset:
    """The study-schema dataset (queries with tests, corpus, execution cache) of a source, verified
    against its ``SHA256SUMS``; ``hub_revision`` None means no release is pinned yet, and a Hub
    release whose manifest is not ``hub_fingerprint`` (when given) is refused."""
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
    built = load_dataset(fetch_study_files(hub_repo, hub_revision))
    if hub_fingerprint and built.fingerprint != hub_fingerprint:
        raise DatasetError(
            f"{hub_repo}@{hub_revision}: its SHA256SUMS has fingerprint {built.fingerprint[:12]}, not the pinned "
            f"release's {hub_fingerprint[:12]}; re-pin the release with `execretrieval hub pin`"
        )
    return built


def fetch_study_files(hub_repo: str, hub_revision: str) -> Path:
    """The pinned commit's ``data/*`` and ``SHA256SUMS`` (from the Hugging Face cache when there)."""
    from huggingface_hub import constants, snapshot_download
    from huggingface_hub.errors import (
        HfHubHTTPError, LocalEntryNotFoundError, OfflineModeIsEnabled, RepositoryNotFoundError, RevisionNotFoundError,
    )

    where = f"{hub_repo}@{hub_revision}"
    try:
        return Path(snapshot_download(hub_repo, repo_type="dataset", revision=hub_revision,
                                      allow_patterns=["data/*", SUMS]))
    except (RepositoryNotFoundError, RevisionNotFoundError):
        raise DatasetError(f"{where}: not found on the Hub ({constants.ENDPOINT}); check the pinned release "
                           "(dataset/release.json) or use the bundled data") from None
    except (LocalEntryNotFoundError, OfflineModeIsEnabled, HfHubHTTPError, OSError) as exc:
        reason = ("offline mode is on (HF_HUB_OFFLINE)" if constants.is_offline_mode()
                  else f"the Hub cannot be reached: {_first_line(exc.__cause__ or exc)}")
        raise DatasetError(f"{where} is not in the Hugging Face cache ({constants.HF_HUB_CACHE}) and {reason}; "
                           "run once online to fetch it, or use the bundled data (the default)") from None


def _first_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text[:160]}"


def load_built_source(spec: str | os.PathLike[str] | None = None) -> BuiltDataset:
    """The study-schema dataset ``--data`` names (bundled, hub, or a directory), verified."""
    from ..dataset.release import pinned_release

    release = pinned_release()
    return load_built(resolve_source(spec), release.repo_id, release.revision, release.fingerprint)


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
    """MTEB's standard loader over the Hub configs ``corpus``, ``queries`` and ``default`` (qrels),
    checked against the verified study files of the same commit (which replace it when they disagree)."""
    from huggingface_hub import constants
    from mteb.abstasks.retrieval_dataset_loaders import RetrievalDatasetLoader

    where = f"{hub_repo}@{hub_revision}"
    try:
        split = RetrievalDatasetLoader(hf_repo=hub_repo, revision=hub_revision, split=SPLIT).load(num_proc=num_proc)
    except (ConnectionError, FileNotFoundError, ValueError) as exc:
        if isinstance(exc, ValueError) and not constants.is_offline_mode():
            raise  # offline, datasets says "Couldn't find cache" with a ValueError; online it is a real problem
        logger.warning("%s: mteb's loader cannot read the configs (%s); using the verified data/ files of that commit",
                       where, _first_line(exc))
        return split_from_built(built)
    problem = split_mismatch(split, built)
    if problem:
        logger.warning("%s: mteb's loader gave %s (datasets serves the newest cached revision offline); "
                       "using the verified data/ files of that commit", where, problem)
        return split_from_built(built)
    return split


def split_mismatch(split: RetrievalSplitData, built: BuiltDataset) -> str | None:
    """What differs between mteb's split and the study-schema records (None: the same data)."""
    corpus = {str(row["id"]): row["text"] for row in split["corpus"]}
    if corpus != {c.corpus_id: c.code for c in built.corpus}:
        return "another corpus"
    queries = {str(row["id"]): row["text"] for row in split["queries"]}
    if queries != {q.query_id: q.query for q in built.queries}:
        return "other queries"
    qrels = {qid: {cid: int(rel) for cid, rel in docs.items() if rel > 0} for qid, docs in split["relevant_docs"].items()}
    if qrels != {q.query_id: {cid: 1 for cid in q.correct_corpus_ids} for q in built.queries}:
        return "other qrels"
    return None


def load_source(
    source: DataSource, hub_repo: str, hub_revision: str | None, num_proc: int | None = None,
    hub_fingerprint: str | None = None,
) -> tuple[RetrievalSplitData, BuiltDataset]:
    """Both views of one source: MTEB's split and the study-schema dataset it joins back to."""
    built = load_built(source, hub_repo, hub_revision, hub_fingerprint)
    if source.kind is SourceKind.HUB:
        assert hub_revision is not None
        return split_from_hub(hub_repo, hub_revision, built, num_proc), built
    return split_from_built(built), built
