"""The package for MTEB's results repository: ``results/<org__model>/<revision>/ExecRetrieval.json``
and ``model_meta.json``, copied from a results folder's mteb cache and read back with mteb.

Only results on the official release are packaged: a result file's ``dataset_revision`` must be
the pinned release's commit (``dataset/release.json``), or ``local-<12 hex>`` of the data
fingerprint the model's evaluation file records when that fingerprint is the release's (computed
on the released bytes before the pin): the package's copy is then re-filed under the commit.
Anything else (another ``local-<fingerprint>``, an older release) is refused, because MTEB's
results repository merges results by dataset revision.
The package is then loaded back with mteb's own ``ResultCache.load_results`` (splits validated
against the task's metadata) and every model's main score compared with the file's.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from pathlib import Path

from ..dataset.release import LOCAL_PREFIX, Release, refiled_revision
from ..errors import ExecRetrievalError
from ..evaluation.metric_names import MAIN_SCORE
from ..results.results_folder import ResultsFolder, model_slug

TASK = "ExecRetrieval"
RESULT_FILE, MODEL_META = f"{TASK}.json", "model_meta.json"


class SubmitError(ExecRetrievalError):
    """The results cannot be submitted; the message says why and what to do."""


@dataclass(frozen=True)
class MtebResult:
    model: str
    model_revision: str
    dataset_revision: str
    main_score: float
    path: Path
    """The packaged ``ExecRetrieval.json``."""


def _describe(revision: str) -> str:
    return "a local dataset" if revision.startswith(LOCAL_PREFIX) else "another release"


def source_results(folder: ResultsFolder, models: set[str] | None = None) -> list[Path]:
    """The folder's mteb result files of the task (one per model and model revision), for ``models`` if given."""
    base = folder.mteb_cache / "results"
    found = sorted(base.glob(f"*/*/{RESULT_FILE}"))
    if models is not None:
        slugs = {model_slug(m) for m in models}
        found = [p for p in found if p.parent.parent.name in slugs]
    return found


def _refiled(revision: str, fingerprints: set[str], release: Release) -> str:
    return next((r for fp in sorted(fingerprints) if (r := refiled_revision(revision, fp, release)) == release.revision),
                revision)


def package(folder: ResultsFolder, out: Path, release: Release, models: set[str] | None = None,
            fingerprints: set[str] | None = None) -> list[MtebResult]:
    """Copy the official results of ``folder`` into ``out/results/`` and validate them with mteb.

    ``fingerprints``: the data fingerprints the models' evaluation files record (checked by the
    caller); a result whose revision is ``local-`` of one of them that is the release's is re-filed.
    """
    assert release.revision is not None
    sources = source_results(folder, models)
    packaged: list[tuple[Path, Path, dict]] = []
    for source in sources:
        blob = json.loads(source.read_text(encoding="utf-8"))
        revision = _refiled(str(blob.get("dataset_revision")), fingerprints or set(), release)
        blob["dataset_revision"] = revision
        if revision != release.revision:
            raise SubmitError(
                f"{source}: computed on dataset revision {revision} ({_describe(revision)}), not the official release "
                f"{release.repo_id}@{release.revision}; MTEB's results repository only takes the official revision. "
                "Rerun on the official data (`execretrieval run --data hub`, or the bundled data when it is the "
                "release's source), or leave this model out with -m"
            )
        if not (source.parent / MODEL_META).is_file():
            raise SubmitError(f"{source.parent}: no {MODEL_META} next to the result; rerun the model with "
                              "`execretrieval run` or `mteb run`")
        target = Path(out) / "results" / source.parent.parent.name / source.parent.name
        packaged.append((source, target, blob))
    for source, target, blob in packaged:
        target.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source.parent / MODEL_META, target / MODEL_META)
        if blob["dataset_revision"] == json.loads(source.read_text(encoding="utf-8")).get("dataset_revision"):
            shutil.copyfile(source, target / RESULT_FILE)  # byte for byte
        else:
            (target / RESULT_FILE).write_text(json.dumps(blob, indent=2) + "\n", encoding="utf-8")
    return validate(Path(out), [target for _, target, _ in packaged])


def validate(out: Path, folders: list[Path]) -> list[MtebResult]:
    """Load the package back with mteb's results API; every packaged file must come back with its score."""
    import mteb

    from ..mteb_task.registration import ensure_registered

    ensure_registered()
    loaded = mteb.ResultCache(out).load_results(tasks=[TASK], include_remote=False, validate_and_filter=True)
    scores: dict[tuple[str, str], tuple[str, float]] = {}
    for model_result in loaded.model_results:
        for task_result in model_result.task_results:
            if task_result.task_name == TASK:
                scores[(model_slug(model_result.model_name), str(model_result.model_revision))] = (
                    task_result.dataset_revision, task_result.get_score())
    results = []
    for folder in folders:
        key = (folder.parent.name, folder.name)
        blob = json.loads((folder / RESULT_FILE).read_text(encoding="utf-8"))
        expected = blob["scores"]["test"][0][MAIN_SCORE]
        if key not in scores or abs(scores[key][1] - expected) > 1e-9:
            raise SubmitError(f"{folder}: mteb does not read this result back ({'missing' if key not in scores else 'score differs'}); "
                              "the result file or its model_meta.json is malformed")
        meta = json.loads((folder / MODEL_META).read_text(encoding="utf-8"))
        results.append(MtebResult(str(meta.get("name")), folder.name, scores[key][0], scores[key][1], folder / RESULT_FILE))
    return results
