"""The package's side of the task: mteb's ``ExecRetrieval``, bound to the dataset a command names.

The task itself is ``exec_retrieval.ExecRetrieval``, written as it lives in mteb's repository: a
plain ``TaskMetadata`` pinning the Hub release, mteb's standard loader, and exec@k,
execution_precision@k and tie-neutral nDCG@k computed from the qrels and the scores alone. The
package registers that very class with mteb (``registration``), so ``mteb run -t ExecRetrieval``
gives the same numbers with the package installed or with the task merged upstream.

What the package adds is the choice of data, for ``execretrieval run`` and Python users
(``load_task``): the bundled dataset (offline, the default), a local directory made by
``execretrieval build`` or an unpacked original release, or the pinned Hub commit. Every choice is
verified against its ``SHA256SUMS`` and loaded with the study-schema records it joins back to (the
tests and the execution cache the evaluator needs); the task instance then carries mteb's split of
that data and, in its own copy of the metadata, the revision its results are filed under (the
release's commit for the official data, ``local-<fingerprint>`` otherwise; see ``dataset.release``).
The class is never changed.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from ..dataset.io import BuiltDataset
from ..dataset.release import UNRELEASED, dataset_revision, pinned_release
from .about import QUERY_PROMPT
from .data_source import SPLIT, DataSource, SourceKind, load_source, resolve_source
from .exec_retrieval import ExecRetrieval

__all__ = ["HUB_REPO", "HUB_REVISION", "QUERY_PROMPT", "ExecRetrieval", "LoadedTask", "load_task"]

HUB_REPO = pinned_release().repo_id
HUB_REVISION = pinned_release().revision or UNRELEASED


@dataclass(frozen=True)
class LoadedTask:
    """An ``ExecRetrieval`` instance holding one dataset's split, and that dataset's records."""

    task: ExecRetrieval
    built: BuiltDataset
    source: DataSource

    @property
    def fingerprint(self) -> str:
        return self.built.fingerprint

    @property
    def revision(self) -> str:
        return self.task.metadata.revision


def load_task(data: str | os.PathLike[str] | None = None, num_proc: int | None = None) -> LoadedTask:
    """``ExecRetrieval`` on ``data`` ("bundled", the default; "hub"; or a directory), loaded and verified."""
    source = resolve_source(data)
    release = pinned_release()
    split, built = load_source(source, release.repo_id, release.revision, num_proc, release.fingerprint)
    task = ExecRetrieval()
    revision = release.revision if source.kind is SourceKind.HUB else dataset_revision(built.fingerprint)
    task.metadata = task.metadata.model_copy(
        update={"dataset": {"path": release.repo_id, "revision": revision or UNRELEASED}}, deep=True
    )
    task.dataset = {"default": {SPLIT: split}}
    task.data_loaded = True
    return LoadedTask(task, built, source)


def _complete_registration() -> None:
    from .registration import complete_pending

    complete_pending()  # if importing the task module is what imported mteb, the hook deferred until now


_complete_registration()
