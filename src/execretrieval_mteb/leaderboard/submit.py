"""``execretrieval submit RESULTS_DIR -o OUT``: package a results folder for both leaderboards.

``OUT`` receives::

    results/<org__model>/<revision>/ExecRetrieval.json, model_meta.json   for MTEB's results repository
    leaderboard/rows/<org__model>.json                                      one row per model (``rows``), with the
                                                                            model's card facts and per-domain exec@1
                                                                            (``model_info``)
    leaderboard/figures/*, figures.json                                     the evaluator's figures, when current
    leaderboard/index.html                                                  the static site over every row in OUT

Every model must have been evaluated on the official release (the pinned commit of
``dataset/release.json``): its evaluation file's data fingerprint must be the release's, and its
dataset revision that commit, or ``local-<12 hex>`` of the same fingerprint (computed on those
bytes before the pin: re-filed under the commit, ``dataset.release.refiled_revision``). Anything else is
refused; ``-m`` picks models. Submitting several results folders into one ``OUT`` collects their
rows into one site (rows of another dataset revision are set aside with a note); a model submitted
again replaces its row. Models from different folders were never tested against each other, and
the page says so instead of marking a difference.
"""

from __future__ import annotations

import dataclasses
import json
import shutil
from dataclasses import dataclass
from pathlib import Path

from ..dataset.io import write_text_atomic
from ..dataset.release import Release, pinned_release, refiled_revision
from ..results.analysis_files import read_analysis
from ..results.report import ReportError, read_report
from ..results.results_folder import ResultsFolder, model_slug
from .model_info import with_model_info
from .mteb_results import MtebResult, SubmitError, package
from ..results.rows import Row, dumps_row, read_row, rows_from
from .site import Figure, render

LEADERBOARD, ROWS, FIGURES, FIGURES_INDEX = "leaderboard", "rows", "figures", "figures.json"


@dataclass(frozen=True)
class Submission:
    out: Path
    rows: tuple[Row, ...]
    """The rows this submission wrote."""
    mteb: tuple[MtebResult, ...]
    site: Path
    site_rows: int
    notes: tuple[str, ...]


def _official_reports(folder: ResultsFolder, release: Release, models: set[str] | None) -> list:
    if not (folder.root / "evaluation").is_dir():
        raise SubmitError(f"{folder.root}: no evaluation/ folder; pass a folder written by `execretrieval run` or "
                          "`execretrieval evaluate`")
    reports = []
    for path in folder.evaluations():
        try:
            report = read_report(path)
        except ReportError as exc:
            raise SubmitError(str(exc)) from None
        if models is not None and report.model.name not in models:
            continue
        if refiled_revision(report.dataset_revision, report.dataset_fingerprint, release) != release.revision:
            raise SubmitError(
                f"{path}: {report.model.name} was evaluated on dataset revision {report.dataset_revision} "
                f"(fingerprint {report.dataset_fingerprint[:12]}), not the official release {release.repo_id}@"
                f"{release.revision}; results on other data are not submitted. Rerun it on the official data "
                "(`execretrieval run --data hub`, or the bundled data when it is the release's source), or leave it out with -m"
            )
        reports.append((path, dataclasses.replace(report, dataset_revision=release.revision)))
    missing = (models or set()) - {r.model.name for _, r in reports}
    if missing:
        raise SubmitError(f"{folder.root}/evaluation: no evaluation of {sorted(missing)[0]}; run it first")
    if not reports:
        raise SubmitError(f"{folder.root}/evaluation: no evaluations to submit")
    return reports


def submit(results: Path, out: Path, models: set[str] | None = None, release: Release | None = None) -> Submission:
    release = release or pinned_release()
    if not release.revision:
        raise SubmitError(f"no official release of {release.repo_id} is pinned (dataset/release.json); results can "
                          "only be submitted on a pinned release (`execretrieval hub push --yes --pin`)")
    folder = ResultsFolder(Path(results))
    found = _official_reports(folder, release, models)
    reports = [report for _, report in found]
    chosen = {r.model.name for r in reports}
    fingerprints = {r.dataset_fingerprint for r in reports}
    mteb_results = package(folder, Path(out), release, chosen, fingerprints)
    notes = [f"{name}: no mteb result file in {folder.mteb_cache}/results (only its evaluation is submitted)"
             for name in sorted(chosen - {r.model for r in mteb_results})]
    analysis = read_analysis(folder, reports)
    notes += analysis.notes
    rows = with_model_info(rows_from(reports, analysis, release.repo_id), folder,
                           {report.model.name: path for path, report in found})
    board = Path(out) / LEADERBOARD
    for row in rows:
        write_text_atomic(board / ROWS / f"{model_slug(row.model)}.json", dumps_row(row))
    if analysis.figures:
        figures_dir = board / FIGURES
        if figures_dir.exists():
            shutil.rmtree(figures_dir)
        figures_dir.mkdir(parents=True)
        for figure in analysis.figures:
            shutil.copyfile(figure, figures_dir / figure.name)
        write_text_atomic(figures_dir / FIGURES_INDEX, json.dumps(
            {"models": sorted(chosen), "files": [f.name for f in analysis.figures]}, indent=1, sort_keys=True) + "\n")
    site, site_rows, site_notes = build_site(Path(out), release)
    return Submission(Path(out), tuple(rows), tuple(mteb_results), site, site_rows, tuple(notes + site_notes))


def build_site(out: Path, release: Release) -> tuple[Path, int, list[str]]:
    """``leaderboard/index.html`` over every row file in ``out/leaderboard/rows`` on the release's revision."""
    board = Path(out) / LEADERBOARD
    rows: list[Row] = []
    notes: list[str] = []
    for path in sorted((board / ROWS).glob("*.json")):
        row = read_row(path)
        if row.dataset_revision != release.revision:
            notes.append(f"{path.name}: on dataset revision {row.dataset_revision}, not {release.revision}; not shown")
            continue
        rows.append(row)
    figures: list[Figure] = []
    index = board / FIGURES / FIGURES_INDEX
    if index.is_file():
        blob = json.loads(index.read_text(encoding="utf-8"))
        covered = ", ".join(blob.get("models", []))
        by_stem: dict[str, str] = {}
        for name in blob.get("files", []):
            stem = Path(name).stem
            if stem not in by_stem or name.endswith(".svg"):
                by_stem[stem] = name
        figures = [Figure(f"{FIGURES}/{name}", f"{Path(name).stem.replace('_', ' ')} (models: {covered})")
                   for _, name in sorted(by_stem.items())]
    fingerprints = sorted({r.dataset_fingerprint for r in rows})
    page = render(rows, figures, {"repo_id": release.repo_id, "revision": release.revision or "",
                                  "fingerprint": ", ".join(fingerprints)}, notes)
    write_text_atomic(board / "index.html", page)
    return board / "index.html", len(rows), notes
