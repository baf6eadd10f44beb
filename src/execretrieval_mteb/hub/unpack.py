"""``execretrieval hub results RELEASE -o OUT``: a release's own results as a results folder.

A release carries its results as published (``hub stage --results``): ``results/<org__model>.json``
(evaluation reports), ``results/mteb/<org__model>/<revision>/`` (mteb's result files and
``model_meta.json``), ``results/confidence_intervals.json``, ``results/pairwise_tests.json``,
``results/figures/`` and ``embeddings/<org__model>.npz``. This turns a downloaded release (e.g.
``huggingface_hub.snapshot_download(repo, repo_type="dataset", revision=SHA)``), or its
``results/`` folder with ``embeddings/`` beside it, into the layout ``results.results_folder``
describes, which ``rescore``, ``report`` and ``submit`` read::

    evaluation/<org__model>.json        the reports, re-filed under the pinned commit when their data is the release's
    embeddings/<org__model>.npz         the frozen matrices, byte for byte
    embeddings/<org__model>.json        the run records, byte for byte
    mteb/results/<org__model>/<revision>/ExecRetrieval.json, model_meta.json
    analysis/confidence_intervals.json, pairwise_tests.json, figures/*

Re-filing (``dataset.release.refiled_revision``): results staged before the pin carry
``local-<12 hex>`` of their data fingerprint; when that fingerprint is the pinned release's, the
report's dataset revision becomes the commit (``submit`` re-files mteb's files the same way).
Every report is read and checked before anything is written; ``OUT`` must not exist or be empty,
and is written beside itself and renamed into place, so a refusal leaves nothing behind.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from ..dataset.release import Release, pinned_release, refiled_revision
from ..errors import ExecRetrievalError
from ..results.report import ReportError, read_report, write_report
from ..results.results_folder import ResultsFolder

ANALYSIS_FILES = ("confidence_intervals.json", "pairwise_tests.json")


class UnpackError(ExecRetrievalError):
    """The release's results cannot be turned into a results folder; the message says why."""


@dataclass(frozen=True)
class Unpacked:
    out: Path
    models: tuple[str, ...]
    refiled: tuple[str, ...]
    """Models whose reports were re-filed under the pinned commit."""


def _results_dir(release: Path) -> Path:
    release = Path(release)
    if (release / "results").is_dir():
        return release / "results"
    if any(release.glob("*.json")) and release.name == "results":
        return release
    raise UnpackError(f"{release}: no results/ folder; pass a release downloaded from the Hub (or its results/ "
                      "folder), staged with `execretrieval hub stage --results`")


def unpack(release_dir: Path, out: Path, release: Release | None = None) -> Unpacked:
    """Write the results folder ``out`` from the release at ``release_dir`` (module docstring)."""
    release = release or pinned_release()
    results = _results_dir(release_dir)
    out = Path(out)
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise UnpackError(f"{out}: exists and is not empty; choose a new folder for the results")
    reports = []
    for path in sorted(results.glob("*.json")):
        blob = json.loads(path.read_text(encoding="utf-8"))
        if not (isinstance(blob, dict) and "per_query" in blob and "dataset" in blob):
            continue  # leaderboard.json, confidence_intervals.json, ...
        try:
            report = read_report(path)
        except ReportError as exc:
            raise UnpackError(str(exc)) from None
        reports.append((path, blob, report))
    if not reports:
        raise UnpackError(f"{results}: no evaluation reports (results/<org__model>.json); the release has no results")
    embeddings = results.parent / "embeddings"
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(dir=out.parent, prefix=f".{out.name}.unpacking."))
    refiled = []
    try:
        folder = ResultsFolder(staging)
        for path, blob, report in reports:
            revision = refiled_revision(report.dataset_revision, report.dataset_fingerprint, release)
            if revision != report.dataset_revision:
                blob["dataset"]["revision"] = revision
                refiled.append(report.model.name)
            target = folder.evaluation(path.stem)
            target.parent.mkdir(parents=True, exist_ok=True)
            write_report(target, blob)
            for source, copy in ((embeddings / f"{path.stem}.npz", folder.embeddings(path.stem)),
                                 (embeddings / f"{path.stem}.json", folder.run_record(path.stem))):
                if source.is_file():
                    copy.parent.mkdir(parents=True, exist_ok=True)
                    shutil.copyfile(source, copy)
        if (results / "mteb").is_dir():
            shutil.copytree(results / "mteb", folder.mteb_cache / "results")
        for name in ANALYSIS_FILES:
            if (results / name).is_file():
                folder.analysis.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(results / name, folder.analysis / name)
        if (results / "figures").is_dir():
            shutil.copytree(results / "figures", folder.analysis / "figures")
        if out.exists():
            out.rmdir()  # empty, checked above
        staging.rename(out)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return Unpacked(out, tuple(r.model.name for _, _, r in reports), tuple(refiled))
