"""Frozen embeddings: a dense model's query and corpus matrices, saved by ``run``, rescored later.

``embeddings/<org__model>.npz`` holds ``query`` (n_queries x dim) and ``corpus`` (n_snippets x
dim) float32 matrices, the ids of their rows, and a JSON header: model name and revision, the
prompts used, the similarity function, whether the model normalises, and the fingerprint of the
dataset they were computed on. Both matrices are checked finite with non-zero row norms when
saved and when loaded, so a model that produced NaNs (e.g. fp16 overflow) is refused at once.

Scores are recomputed exactly as sentence-transformers computes them inside mteb's search
(``util.cos_sim``: L2-normalise, then one matrix product in float32; ``util.dot_score``: the raw
product), so the analyses read the scores mteb ranked by; ``rescore`` runs mteb's own search again
on the saved matrices (``frozen_encoder``).
"""

from __future__ import annotations

import io
import json
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import ExecRetrievalError
from ..evaluation.model_report import FrozenScores, ModelIdentity, identity_from_record, identity_record

FORMAT_VERSION = 1
SIMILARITIES = ("cosine", "dot")


class FrozenError(ExecRetrievalError):
    """A frozen-embeddings file is unusable; the message names it and the fix."""


@dataclass(frozen=True)
class FrozenEmbeddings:
    model: ModelIdentity
    dataset_fingerprint: str
    query_ids: tuple[str, ...]
    corpus_ids: tuple[str, ...]
    query: np.ndarray = field(repr=False)
    corpus: np.ndarray = field(repr=False)

    def check(self, where: str) -> None:
        """Shapes agree, values are finite, no row is the zero vector, the similarity is known."""
        if self.model.similarity not in SIMILARITIES:
            raise FrozenError(f"{where}: similarity {self.model.similarity!r} is not one of {', '.join(SIMILARITIES)}")
        for name, matrix, ids in (("query", self.query, self.query_ids), ("corpus", self.corpus, self.corpus_ids)):
            if matrix.dtype != np.float32 or matrix.ndim != 2 or matrix.shape[0] != len(ids):
                raise FrozenError(f"{where}: {name} matrix {matrix.dtype} {matrix.shape} does not match {len(ids)} ids")
            if not np.isfinite(matrix).all():
                bad = int((~np.isfinite(matrix)).any(axis=1).sum())
                raise FrozenError(f"{where}: {bad} {name} embeddings hold NaN or inf; re-encode in a wider dtype (e.g. bf16/fp32)")
            zero = int((np.linalg.norm(matrix, axis=1) == 0).sum())
            if zero:
                raise FrozenError(f"{where}: {zero} {name} embeddings are the zero vector; the model produced no signal")
        if self.query.shape[1] != self.corpus.shape[1]:
            raise FrozenError(f"{where}: query dim {self.query.shape[1]} != corpus dim {self.corpus.shape[1]}")

    def scores(self) -> FrozenScores:
        """The full query x corpus score matrix, computed as sentence-transformers does in mteb's search."""
        import torch
        from sentence_transformers import util

        function = util.cos_sim if self.model.similarity == "cosine" else util.dot_score
        matrix = function(torch.from_numpy(self.query), torch.from_numpy(self.corpus)).numpy()
        return FrozenScores(self.query_ids, self.corpus_ids, matrix)


def save_frozen(path: Path, frozen: FrozenEmbeddings) -> None:
    """Write the npz atomically, with no timestamps (the same embeddings give the same bytes)."""
    frozen.check(str(path))
    header = {
        "format_version": FORMAT_VERSION,
        **identity_record(frozen.model),
        "normalized": bool(np.allclose(np.linalg.norm(frozen.corpus, axis=1), 1.0, atol=1e-3)),
        "dataset_fingerprint": frozen.dataset_fingerprint,
    }
    arrays = {
        "query": frozen.query,
        "corpus": frozen.corpus,
        "query_ids": np.asarray(frozen.query_ids, dtype=np.str_),
        "corpus_ids": np.asarray(frozen.corpus_ids, dtype=np.str_),
        "header": np.asarray(json.dumps(header, sort_keys=True)),
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    with zipfile.ZipFile(tmp, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name in sorted(arrays):
            buffer = io.BytesIO()
            np.lib.format.write_array(buffer, np.ascontiguousarray(arrays[name]), allow_pickle=False)
            info = zipfile.ZipInfo(f"{name}.npy", date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            archive.writestr(info, buffer.getvalue())
    tmp.replace(path)


def load_frozen(path: Path) -> FrozenEmbeddings:
    try:
        with np.load(path, allow_pickle=False) as data:
            header: dict[str, Any] = json.loads(data["header"].item())
            frozen = FrozenEmbeddings(
                model=identity_from_record(header),
                dataset_fingerprint=header["dataset_fingerprint"],
                query_ids=tuple(str(i) for i in data["query_ids"]),
                corpus_ids=tuple(str(i) for i in data["corpus_ids"]),
                query=data["query"],
                corpus=data["corpus"],
            )
    except FileNotFoundError:
        raise FrozenError(f"{path}: no frozen embeddings; run the model with `execretrieval run` first") from None
    except (OSError, ValueError, KeyError, zipfile.BadZipFile) as exc:
        raise FrozenError(f"{path}: not a frozen-embeddings file ({type(exc).__name__}: {exc}); rerun the model") from None
    frozen.check(str(path))
    return frozen
