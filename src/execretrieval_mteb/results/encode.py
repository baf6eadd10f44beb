"""Encoding a model on ExecRetrieval through mteb: MTEB's result file, its predictions, frozen embeddings
and the run record (``run_record``) that lets ``rescore`` rebuild all of it without the model.

mteb does the encoding and the search exactly as for any MTEB task (its result JSON gets exec@k
from the task's metric hook, its predictions file every query's top 100). A dense model runs
behind ``RecordingEncoder``, which keeps what mteb's own ``encode`` calls return, with the ids of
the rows mteb encoded, so the embeddings are saved without a second encoding pass; and the texts
the model read (prompt included), so the run record can say how many were longer than the model
reads (``token_lengths``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..dataset.io import write_text_atomic
from ..evaluation.model_report import ModelIdentity, identity_record
from ..mteb_task.data_source import SPLIT
from ..mteb_task.open_task import OpenLoaded
from ..mteb_task.task import LoadedTask
from .frozen import FrozenEmbeddings, save_frozen
from .matrices import is_bm25
from .results_folder import ResultsFolder, model_slug
from .run_record import FrozenKind, MtebFiles, RunRecord, write_run_record
from .token_lengths import count_token_lengths

MODEL_META, RUN_SETTINGS = "model_meta.json", "run_settings.jsonl"


class RecordingEncoder:
    """An mteb encoder that delegates everything and records each ``encode`` call's rows, ids and texts."""

    def __init__(self, model: Any) -> None:
        self._model = model
        self.recorded: dict[str, tuple[list[str], list[np.ndarray]]] = {}
        self.texts: dict[str, list[str]] = {}
        """By prompt type: each text as the model read it (the prompt mteb resolves for it, then the text)."""

    def __getattr__(self, name: str) -> Any:
        return getattr(self._model, name)

    def encode(self, inputs: Any, **kwargs: Any) -> Any:
        out = self._model.encode(inputs, **kwargs)
        prompt = kwargs.get("prompt_type")
        key = getattr(prompt, "value", str(prompt))
        ids, parts = self.recorded.setdefault(key, ([], []))
        ids.extend(str(i) for i in inputs.dataset["id"])
        if "text" in inputs.dataset.column_names:
            prefix = self._prompt(kwargs.get("task_metadata"), prompt)
            self.texts.setdefault(key, []).extend(prefix + str(t) for t in inputs.dataset["text"])
        array = out.detach().cpu().float().numpy() if hasattr(out, "detach") else np.asarray(out)
        parts.append(array.astype(np.float32, copy=False))
        return out

    def _prompt(self, task_metadata: Any, prompt_type: Any) -> str:
        """The prompt mteb's sentence-transformers wrapper prepends for this task and prompt type ("" if none)."""
        prompts = getattr(self._model, "model_prompts", None) or {}
        name_of = getattr(self._model, "get_prompt_name", None)
        name = name_of(task_metadata, prompt_type) if prompts and callable(name_of) else None
        return str(prompts.get(name) or "") if name else ""

    def frozen(self, model: ModelIdentity, fingerprint: str) -> FrozenEmbeddings | None:
        """The recorded query and document matrices (None when mteb did not encode both)."""
        if "query" not in self.recorded or "document" not in self.recorded:
            return None
        (query_ids, queries), (corpus_ids, corpus) = self.recorded["query"], self.recorded["document"]
        return FrozenEmbeddings(
            model=model, dataset_fingerprint=fingerprint, query_ids=tuple(query_ids), corpus_ids=tuple(corpus_ids),
            query=np.concatenate(queries), corpus=np.concatenate(corpus),
        )


@dataclass(frozen=True)
class Encoded:
    identity: ModelIdentity
    slug: str
    frozen: FrozenEmbeddings | None


def identity_of(model: Any) -> ModelIdentity:
    """Name, revision, prompts and similarity of an mteb model, as recorded with its results."""
    meta = model.mteb_model_meta
    prompts = getattr(model, "model_prompts", None) or {}
    similarity = getattr(meta, "similarity_fn_name", None)
    return ModelIdentity(
        name=str(meta.name),
        revision=meta.revision,
        prompts={str(k): str(v) for k, v in sorted(prompts.items())},
        similarity=getattr(similarity, "value", similarity) or ("bm25" if "sparse" in (meta.model_type or []) else None),
    )


def encode_stacked(model: Any, loaded: LoadedTask, frozen: FrozenEmbeddings, *, batch_size: int,
                   progress: bool) -> FrozenEmbeddings:
    """The dataset's stacked mutants encoded as documents by the same model, beside its query matrix.

    They are encoded exactly as mteb encodes the corpus (same prompt type, dataloader and batch
    size), but outside mteb's search, since they are not part of the benchmark's corpus.
    """
    from datasets import Dataset
    from mteb._create_dataloaders import create_dataloader
    from mteb.types import PromptType

    task, stacked = loaded.task, loaded.built.stacked
    rows = Dataset.from_dict({"id": [r.corpus_id for r in stacked], "title": ["" for _ in stacked],
                              "text": [r.code for r in stacked]})
    loader = create_dataloader(rows, task_metadata=task.metadata, prompt_type=PromptType.document, batch_size=batch_size)
    out = model.encode(loader, task_metadata=task.metadata, hf_split=SPLIT, hf_subset="default",
                       prompt_type=PromptType.document, batch_size=batch_size, show_progress_bar=progress)
    array = out.detach().cpu().float().numpy() if hasattr(out, "detach") else np.asarray(out, dtype=np.float32)
    return FrozenEmbeddings(model=frozen.model, dataset_fingerprint=frozen.dataset_fingerprint,
                            query_ids=frozen.query_ids, corpus_ids=tuple(r.corpus_id for r in stacked),
                            query=frozen.query, corpus=array.astype(np.float32, copy=False))


def encode(model: Any, loaded: LoadedTask | OpenLoaded, folder: ResultsFolder, *, batch_size: int, progress: bool,
           stacked: bool = False) -> Encoded:
    """mteb evaluation of ``model`` on ``task``: result file, predictions, and frozen embeddings if dense
    (with ``stacked``, also the stacked mutants' embeddings; BM25 scores them without encoding)."""
    import mteb

    identity = identity_of(model)
    slug = model_slug(identity.name)
    dense = hasattr(model, "encode") and not hasattr(model, "search")
    runner = RecordingEncoder(model) if dense else model
    mteb.evaluate(
        runner,
        loaded.task,
        cache=mteb.ResultCache(folder.mteb_cache),
        prediction_folder=folder.predictions_dir(slug),
        overwrite_strategy="always",  # reuse is decided by dataset fingerprint (see run), never by mteb's cache
        encode_kwargs={"batch_size": batch_size, "show_progress_bar": progress},
        co2_tracker=False,
    )
    fingerprint = loaded.fingerprint
    write_prediction_record(folder, slug, fingerprint, str(loaded.revision), identity)
    frozen = runner.frozen(identity, fingerprint) if isinstance(runner, RecordingEncoder) else None
    if frozen is not None:
        save_frozen(folder.embeddings(slug), frozen)
        if stacked and loaded.built.stacked:
            stacked_frozen = encode_stacked(model, loaded, frozen, batch_size=batch_size, progress=progress)
            save_frozen(folder.stacked_embeddings(slug), stacked_frozen)
    if frozen is not None or is_bm25(identity.name):
        result_path = mteb.ResultCache(folder.mteb_cache).get_task_result_path(loaded.task.metadata.name, model.mteb_model_meta)
        write_run_record(folder.run_record(slug), RunRecord(
            model=identity, frozen=FrozenKind.DENSE if frozen is not None else FrozenKind.BM25,
            dataset_fingerprint=fingerprint, dataset_revision=str(loaded.revision),
            mteb=mteb_files(folder, result_path),
            token_lengths=(count_token_lengths(model, runner.texts.get("document", []), runner.texts.get("query", []))
                           if isinstance(runner, RecordingEncoder) and frozen is not None else None),
        ))
    return Encoded(identity, slug, frozen)


def write_prediction_record(folder: ResultsFolder, slug: str, fingerprint: str, revision: str,
                            identity: ModelIdentity) -> None:
    """``predictions/<org__model>/dataset.json``: the dataset the predictions were computed on, and the model."""
    write_text_atomic(
        folder.prediction_dataset(slug),
        json.dumps({"fingerprint": fingerprint, "revision": revision, "model": identity_record(identity)},
                   indent=1, sort_keys=True) + "\n",
    )


def mteb_files(folder: ResultsFolder, result_path: Path) -> MtebFiles:
    """mteb's result, model metadata and run settings of one run, as written (for the run record)."""
    def text(name: str) -> str:
        path = result_path.parent / name
        return path.read_text(encoding="utf-8") if path.is_file() else ""

    return MtebFiles(result_dir=result_path.parent.relative_to(folder.mteb_cache).as_posix(),
                     result=result_path.read_text(encoding="utf-8"), model_meta=text(MODEL_META),
                     run_settings=text(RUN_SETTINGS))
