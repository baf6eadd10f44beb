"""The package's side of the task: mteb's ``ExecRetrieval``, reading the dataset the package chooses.

The task itself is ``exec_retrieval.ExecRetrieval``, written as it lives in mteb's repository: a
plain ``TaskMetadata`` pinning the Hub release, mteb's standard loader, and exec@k,
execution_precision@k and tie-neutral nDCG@k computed from the qrels and the scores alone.

What the package adds is the choice of data. ``ExecRetrieval`` here is that class with one hook
overridden, ``load_data``: it reads ``$EXECRETRIEVAL_DATA`` (the bundled dataset, offline, by
default; ``hub`` for the pinned Hub commit; or a directory made by ``execretrieval build`` or an
unpacked original release). The metadata and the scoring are inherited untouched, so ``mteb run -t
ExecRetrieval`` with the package installed (``registration`` registers this class) gives the same
numbers as the task merged upstream on the same bytes, by construction; and it runs today, offline,
before any release is pinned or reachable. ``load_task`` binds an instance to a chosen dataset for
``execretrieval run`` and Python users. Every choice is verified against its ``SHA256SUMS`` and
loaded with the study-schema records it joins back to (the tests and the execution cache the
evaluator needs); the instance then carries mteb's split of that data and, in its own copy of the
metadata, the revision its results are filed under (the release's commit for the official data,
``local-<fingerprint>`` otherwise; see ``dataset.release``). No class is changed at run time.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from ..dataset.io import BuiltDataset
from ..dataset.release import UNRELEASED, dataset_revision, pinned_release
from .about import QUERY_PROMPT
from .data_source import SPLIT, DataSource, SourceKind, load_source, resolve_source
from . import exec_retrieval

__all__ = ["HUB_REPO", "HUB_REVISION", "QUERY_PROMPT", "ExecRetrieval", "LoadedTask", "load_task"]

HUB_REPO = pinned_release().repo_id
HUB_REVISION = pinned_release().revision or UNRELEASED


class ExecRetrieval(exec_retrieval.ExecRetrieval):
    """mteb's ``ExecRetrieval`` on the data ``$EXECRETRIEVAL_DATA`` names (default: the bundled copy).

    Only where the data comes from differs from the upstream class: ``task_specific_scores`` and
    the metadata are inherited, so the numbers are the upstream task's on the same bytes.
    """

    def load_data(self, num_proc: int | None = None, **kwargs: Any) -> None:
        if self.data_loaded:
            return
        bound = load_task(None, num_proc).task
        self.metadata, self.dataset, self.data_loaded = bound.metadata, bound.dataset, True

    def unload_data(self) -> None:
        own = self.metadata  # mteb's unload drops instance metadata; ours names the data's revision, keep it
        super().unload_data()
        self.metadata = own


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
