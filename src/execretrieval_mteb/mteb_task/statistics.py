"""mteb's descriptive statistics of the task, computed by mteb itself and shipped with the package.

mteb reads a task's statistics (``TaskMetadata.descriptive_stats``: number of samples, text
lengths, relevant documents per query) from ``descriptive_stat_path``, a file inside mteb's own
package (``mteb/descriptive_stats/Retrieval/ExecRetrieval.json``): the contribution adds it there.
Until then the package keeps it at ``mteb_task/descriptive_stats/ExecRetrieval.json``. ``compute``
runs mteb's ``calculate_descriptive_statistics`` on a dataset, on an instance whose metadata writes
to a file of our choosing (mteb always writes where the metadata points); ``check`` recomputes into
a temporary file and says whether the shipped one still describes the data (``execretrieval hub
stats [--check]``).
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from mteb.abstasks.task_metadata import TaskMetadata
from pydantic import PrivateAttr

from ..errors import ExecRetrievalError
from .about import STATS_FILE
from .task import LoadedTask, load_task


class StatisticsError(ExecRetrievalError):
    """The shipped statistics do not describe the data; the message names the fix."""


class _MetadataWritingTo(TaskMetadata):
    """The task's metadata, with the statistics file somewhere else (for one instance only)."""

    _stats_path: Path = PrivateAttr()

    @property
    def descriptive_stat_path(self) -> Path:
        return self._stats_path


def compute(data: str | Path | LoadedTask | None = None, out: Path = STATS_FILE) -> dict[str, Any]:
    """mteb's statistics of ``data`` (default: the bundled dataset; or a loaded task), written to ``out`` by mteb."""
    task = (data if isinstance(data, LoadedTask) else load_task(data)).task
    metadata = _MetadataWritingTo(**task.metadata.model_dump())
    metadata._stats_path = Path(out)
    task.metadata = metadata
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    return dict(task.calculate_descriptive_statistics(overwrite_results=True))


def check(data: str | Path | None = None, shipped: Path = STATS_FILE) -> dict[str, Any]:
    """Recompute the statistics and refuse when ``shipped`` differs; returns the statistics."""
    with tempfile.TemporaryDirectory(prefix="execretrieval-stats-") as tmp:
        fresh = compute(data, Path(tmp) / "ExecRetrieval.json")
    try:
        current = json.loads(shipped.read_text(encoding="utf-8"))
    except FileNotFoundError:
        current = None
    if current != json.loads(json.dumps(fresh)):
        raise StatisticsError(
            f"{shipped}: {'missing' if current is None else 'out of date'}; regenerate it with `execretrieval hub stats`"
        )
    return fresh
