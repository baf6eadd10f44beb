"""A model's run record (``embeddings/<org__model>.json``): what ``rescore`` needs besides the matrices.

``run`` writes one per model next to the frozen matrices, so that the folder ``embeddings/``
alone (what a third party downloads from a release) names every model of the run and lets
``rescore`` rebuild everything the run wrote::

    {"format_version": 1,
     "model": {model, revision, prompts, similarity},   the invocation (as in the evaluation file)
     "frozen": "dense" | "bm25",   dense: the scores come from <org__model>.npz; bm25: recomputed from the data
     "dataset": {fingerprint, revision},
     "mteb": {"result_dir": "results/<org__model>/<revision>",   where mteb filed the result (under mteb/)
              "result": ExecRetrieval.json as mteb wrote it,
              "model_meta": model_meta.json, "run_settings": run_settings.jsonl},   (verbatim texts)
     "token_lengths": {max_length, snippets, snippets_over, queries, queries_over}   dense models (``token_lengths``)
                    | {"computed": false, "reason": ...}}   the model exposed no tokenizer

What mteb records about the run itself cannot be recomputed from embeddings: the wall-clock
timings and date in ``ExecRetrieval.json``, the package versions and encode settings in
``run_settings.jsonl``, the model's metadata in ``model_meta.json``. ``rescore`` takes those from
here and recomputes everything else (every score of ``ExecRetrieval.json``, the predictions, the
evaluation files, the leaderboard and the analyses), so an unchanged computation gives the run's
bytes and a changed one shows as a difference. Nor can the token counts (they need the model's
tokenizer): ``token_lengths`` is optional, and a record without it (BM25, or written before it)
reads fine, the truncation analysis then saying it was not computed.
"""

from __future__ import annotations

import dataclasses
import enum
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..analysis import NotComputed, TokenLengths
from ..dataset.io import write_text_atomic
from ..errors import ExecRetrievalError
from ..evaluation.model_report import ModelIdentity, identity_from_record, identity_record

FORMAT_VERSION = 1


class RunRecordError(ExecRetrievalError):
    """A run record is unusable; the message names it and the fix."""


class FrozenKind(enum.Enum):
    DENSE = "dense"
    """Scores recomputed from the frozen query and corpus embeddings (``<org__model>.npz``)."""
    BM25 = "bm25"
    """Scores recomputed from the dataset (the code-aware BM25 is deterministic)."""


@dataclass(frozen=True)
class MtebFiles:
    """mteb's files of the run, verbatim."""

    result_dir: str
    """Relative to the folder's mteb cache, e.g. ``results/<org__model>/<revision>``."""
    result: str
    model_meta: str
    run_settings: str


@dataclass(frozen=True)
class RunRecord:
    model: ModelIdentity
    frozen: FrozenKind
    dataset_fingerprint: str
    dataset_revision: str
    mteb: MtebFiles
    token_lengths: TokenLengths | NotComputed | None = None
    """None: not recorded (BM25, which has no length limit, or a record from before token counts)."""

    def to_json(self) -> dict[str, Any]:
        blob: dict[str, Any] = {
            "format_version": FORMAT_VERSION,
            "model": identity_record(self.model),
            "frozen": self.frozen.value,
            "dataset": {"fingerprint": self.dataset_fingerprint, "revision": self.dataset_revision},
            "mteb": {"result_dir": self.mteb.result_dir, "result": self.mteb.result,
                     "model_meta": self.mteb.model_meta, "run_settings": self.mteb.run_settings},
        }
        if isinstance(self.token_lengths, NotComputed):
            blob["token_lengths"] = self.token_lengths.to_json()
        elif self.token_lengths is not None:
            blob["token_lengths"] = dataclasses.asdict(self.token_lengths)
        return blob


def _token_lengths(blob: dict[str, Any] | None) -> TokenLengths | NotComputed | None:
    if blob is None:
        return None
    if blob.get("computed", True) is False:
        return NotComputed(str(blob["reason"]))
    counts = {field.name: blob[field.name] for field in dataclasses.fields(TokenLengths)}
    if not all(type(value) is int and value >= 0 for value in counts.values()):
        raise ValueError(f"token_lengths: counts must be non-negative integers, got {counts}")
    return TokenLengths(**counts)


def write_run_record(path: Path, record: RunRecord) -> None:
    write_text_atomic(path, json.dumps(record.to_json(), indent=1, sort_keys=True) + "\n")


def read_run_record(path: Path) -> RunRecord:
    try:
        blob = json.loads(Path(path).read_text(encoding="utf-8"))
        if blob.get("format_version") != FORMAT_VERSION:
            raise ValueError(f"format_version {blob.get('format_version')!r}, expected {FORMAT_VERSION}")
        mteb = blob["mteb"]
        return RunRecord(
            model=identity_from_record(blob["model"]),
            frozen=FrozenKind(blob["frozen"]),
            dataset_fingerprint=str(blob["dataset"]["fingerprint"]),
            dataset_revision=str(blob["dataset"]["revision"]),
            mteb=MtebFiles(str(mteb["result_dir"]), str(mteb["result"]), str(mteb["model_meta"]),
                           str(mteb["run_settings"])),
            token_lengths=_token_lengths(blob.get("token_lengths")),
        )
    except FileNotFoundError:
        raise RunRecordError(f"{path}: no run record; run the model with `execretrieval run` first") from None
    except (OSError, json.JSONDecodeError, KeyError, TypeError, ValueError, AttributeError) as exc:
        raise RunRecordError(f"{path}: not a run record this version can read ({type(exc).__name__}: {exc}); "
                             "rerun the model with `execretrieval run`") from None
