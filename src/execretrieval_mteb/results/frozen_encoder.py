"""An mteb encoder over frozen embeddings: mteb's own search and scoring, again, without the model.

``rescore`` hands this to ``mteb.evaluate`` in place of the model. ``encode`` answers each batch
mteb asks for with the saved rows of those ids (queries for the query prompt type, snippets for
the document one), exactly the float32 arrays the model returned in the run; ``similarity`` is
sentence-transformers' ``cos_sim`` or ``dot_score``, as the model computed it inside mteb's
search (``frozen`` says so too). So mteb retrieves the same top 100 with the same scores, and
writes the same predictions and metrics, as in the run.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .frozen import FrozenEmbeddings, FrozenError


class FrozenEncoder:
    """Implements mteb's ``EncoderProtocol`` from a ``FrozenEmbeddings`` and the run's ``ModelMeta``."""

    def __init__(self, frozen: FrozenEmbeddings, meta: Any) -> None:
        self._frozen = frozen
        self._meta = meta
        self._rows = {
            "query": ({qid: i for i, qid in enumerate(frozen.query_ids)}, frozen.query),
            "document": ({cid: i for i, cid in enumerate(frozen.corpus_ids)}, frozen.corpus),
        }

    @property
    def mteb_model_meta(self) -> Any:
        return self._meta

    def encode(self, inputs: Any, *, task_metadata: Any = None, hf_split: str = "", hf_subset: str = "",
               prompt_type: Any = None, **kwargs: Any) -> np.ndarray:
        kind = getattr(prompt_type, "value", str(prompt_type))
        if kind not in self._rows:
            raise FrozenError(f"{self._frozen.model.name}: mteb asked for {kind!r} embeddings; the frozen matrices "
                              "hold only queries and documents")
        index, matrix = self._rows[kind]
        ids = [str(i) for i in inputs.dataset["id"]]
        missing = [i for i in ids if i not in index]
        if missing:
            raise FrozenError(f"{self._frozen.model.name}: no frozen {kind} embedding for {missing[0]} "
                              f"({len(missing)} missing); the matrices were computed on other data")
        return matrix[[index[i] for i in ids]]

    def _functions(self) -> tuple[Any, Any]:
        from sentence_transformers import util

        if self._frozen.model.similarity == "dot":
            return util.dot_score, util.pairwise_dot_score
        return util.cos_sim, util.pairwise_cos_sim

    def similarity(self, embeddings1: Any, embeddings2: Any) -> Any:
        return self._functions()[0](embeddings1, embeddings2)

    def similarity_pairwise(self, embeddings1: Any, embeddings2: Any) -> Any:
        return self._functions()[1](embeddings1, embeddings2)
