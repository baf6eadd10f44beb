"""Everything ``run`` wrote, again, from the frozen matrices and the dataset alone; or a check of it.

The input is a results folder's ``embeddings/`` (what a third party downloads from a release):
one run record per model (``run_record``), and each dense model's frozen embeddings. For every
model recorded on this dataset, mteb evaluates the task again: a dense model through
``FrozenEncoder`` (its saved embeddings, no model), BM25 recomputed (deterministic). That gives
mteb's result file and predictions, the predictions go through the same evaluator as the run's
(execution cache, static proof, oracle), and the leaderboard and analyses are written over them:

    mteb/results/<org__model>/<revision>/ExecRetrieval.json, model_meta.json, run_settings.jsonl
    predictions/<org__model>/ExecRetrieval_predictions.json, dataset.json
    evaluation/<org__model>.json, leaderboard.md, leaderboard.json, analysis/...

Only what mteb records about the run itself (timings, date, package versions, encode settings,
model metadata) comes from the run record; every number is recomputed. Everything is computed
in a staging folder first: ``write_rescored`` then replaces the folder's files (each atomically),
and ``differences`` compares them with the folder's without writing anything. The oracle's
cache (``oracle-cache.sqlite``) is a cache, not a result: it is used when given, never compared.
"""

from __future__ import annotations

import json
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..dataset.io import BuiltDataset, write_bytes_atomic
from ..errors import ExecRetrievalError
from .encode import MODEL_META, RUN_SETTINGS, identity_of, write_prediction_record
from .frozen_encoder import FrozenEncoder
from .matrices import frozen_embeddings
from .outputs import Finished, finish, gather, write_evaluation
from .predictions import evaluate_predictions
from .results_folder import ResultsFolder, model_slug
from .run_record import FrozenKind, RunRecord, read_run_record

RECOMPUTED_FIELDS = ("dataset_revision", "task_name", "mteb_version", "scores")
"""The fields of mteb's ``ExecRetrieval.json`` a rescore recomputes; the others record the run itself."""


class RescoreError(ExecRetrievalError):
    """The folder cannot be rescored; the message says why and what to do."""


@dataclass(frozen=True)
class Rescored:
    files: dict[str, bytes]
    """Every file the rescore produced, by path relative to the results folder."""
    finished: Finished
    models: tuple[str, ...]
    other_data: tuple[str, ...] = ()
    """Models the folder recorded on another dataset: left out."""


def run_records(folder: ResultsFolder, dataset: BuiltDataset) -> tuple[list[tuple[str, RunRecord]], list[str]]:
    """(slug, record) of every model recorded in the folder's ``embeddings/`` on ``dataset``, and the
    models recorded on other data (left out, as ``outputs.finish`` leaves their evaluations out)."""
    if not folder.embeddings_dir.is_dir():
        raise RescoreError(f"{folder.embeddings_dir}: no such folder; rescore needs the embeddings/ of an "
                           "`execretrieval run` (or of a release)")
    records = [(path.stem, read_run_record(path)) for path in folder.run_records()]
    if not records:
        raise RescoreError(f"{folder.embeddings_dir}: no run records (<org__model>.json); rerun the models with "
                           "`execretrieval run` (folders written before run records cannot be rescored)")
    other = [record.model.name for _, record in records if record.dataset_fingerprint != dataset.fingerprint]
    records = [(slug, record) for slug, record in records if record.dataset_fingerprint == dataset.fingerprint]
    if not records:
        raise RescoreError(f"{folder.embeddings_dir}: every model was run on another dataset (e.g. fingerprint "
                           f"{read_run_record(folder.run_records()[0]).dataset_fingerprint[:12]}, this one "
                           f"{dataset.fingerprint[:12]}); use the --data they were computed on")
    for slug, record in records:
        if slug != model_slug(record.model.name):
            raise RescoreError(f"{folder.run_record(slug)}: records {record.model.name}, not {slug}; rerun the model")
    recorded = {record.model.name for _, record in records}
    reports, _ = gather(folder, dataset)
    unrecorded = sorted(r.model.name for r in reports if r.model.name not in recorded)
    if unrecorded:
        raise RescoreError(f"{folder.root}: no run record for {', '.join(unrecorded)} (evaluated from predictions "
                           "only); rescore needs `execretrieval run` outputs, or remove those evaluation files")
    return records, other


def rescore_folder(folder: ResultsFolder, data: str | Path | None, *, workers: int | None = None,
                   progress: bool = False, oracle_cache: Path | None = None, figures: bool = True) -> Rescored:
    """Recompute everything ``run`` wrote for the folder's recorded models, in a staging folder."""
    from ..mteb_task.registration import ensure_registered
    from ..mteb_task.task import load_task

    ensure_registered()
    loaded = load_task(data)
    task, dataset = loaded.task, loaded.built
    records, other = run_records(folder, dataset)
    with tempfile.TemporaryDirectory(prefix="execretrieval-rescore-") as tmp:
        stage = ResultsFolder(Path(tmp) / "results")
        stage.root.mkdir()
        stage.embeddings_dir.symlink_to(folder.embeddings_dir.resolve(), target_is_directory=True)
        for slug, record in records:
            _mteb_evaluate(stage, task, slug, record, dataset, progress)
            write_prediction_record(stage, slug, dataset.fingerprint, loaded.revision, record.model)
            evaluation = evaluate_predictions(stage.predictions(slug), dataset, record.model, workers=workers,
                                              progress=progress, oracle_cache=oracle_cache)
            write_evaluation(stage, evaluation, dataset)
        finished = finish(stage, dataset, figures=figures)
        files = {
            path.relative_to(stage.root).as_posix(): path.read_bytes()
            for path in sorted(stage.root.rglob("*"))
            if path.is_file() and path.relative_to(stage.root).parts[0] != stage.embeddings_dir.name
        }
    return Rescored(files, finished, tuple(record.model.name for _, record in records), tuple(other))


def _mteb_evaluate(stage: ResultsFolder, task: Any, slug: str, record: RunRecord, dataset: BuiltDataset,
                   progress: bool) -> None:
    """mteb's result file and predictions of one recorded model, recomputed without the model."""
    import mteb

    if record.frozen is FrozenKind.DENSE:
        from mteb.models.model_meta import ModelMeta

        frozen = frozen_embeddings(stage, record.model.name, dataset)
        if frozen is None:
            raise RescoreError(f"{stage.embeddings(slug).name}: missing beside {slug}.json; the dense model's "
                               "embeddings are needed to rescore it")
        meta = ModelMeta.model_validate({**json.loads(record.mteb.model_meta), "loader": None})
        model: Any = FrozenEncoder(frozen, meta)
    else:
        from ..mteb_task.models import BM25_NAME, load, resolve

        model = load(resolve(BM25_NAME))
        here = identity_of(model)
        if (here.name, here.revision) != (record.model.name, record.model.revision):
            raise RescoreError(f"{slug}.json: the run's BM25 is {record.model.name} at {record.model.revision}, this "
                               f"installation's is {here.revision}; rescore with the rank-bm25 version of the run")
    result = mteb.evaluate(model, task, cache=None, prediction_folder=stage.predictions_dir(slug),
                           overwrite_strategy="always", encode_kwargs={"show_progress_bar": progress},
                           co2_tracker=False, show_progress_bar=progress)
    (task_result,) = result.task_results
    target = stage.mteb_cache / record.mteb.result_dir
    target.mkdir(parents=True, exist_ok=True)
    scratch = target / ".recomputed.json"
    task_result.to_disk(scratch)  # mteb's own serialisation (scores rounded as in the run's file)
    recomputed = json.loads(scratch.read_text(encoding="utf-8"))
    scratch.unlink()
    written = json.loads(record.mteb.result)  # the run's file: its field order and the run's own measurements
    for key in RECOMPUTED_FIELDS:
        written[key] = recomputed[key]
    (target / f"{task_result.task_name}.json").write_text(json.dumps(written, indent=2), encoding="utf-8")
    (target / MODEL_META).write_text(record.mteb.model_meta, encoding="utf-8")
    if record.mteb.run_settings:
        (target / RUN_SETTINGS).write_text(record.mteb.run_settings, encoding="utf-8")


def differences(folder: ResultsFolder, rescored: Rescored) -> list[str]:
    """``"<path>: differs"`` / ``"<path>: missing"`` for every rescored file the folder does not hold as computed."""
    found = []
    for rel, data in rescored.files.items():
        path = folder.root / rel
        if not path.is_file():
            found.append(f"{rel}: missing")
        elif path.read_bytes() != data:
            found.append(f"{rel}: differs")
    return found


def write_rescored(folder: ResultsFolder, rescored: Rescored) -> list[Path]:
    """Replace the folder's files with the rescored ones (each atomically); the paths that changed."""
    changed = []
    for rel, data in rescored.files.items():
        path = folder.root / rel
        if not path.is_file() or path.read_bytes() != data:
            write_bytes_atomic(path, data)
            changed.append(path)
    return changed
