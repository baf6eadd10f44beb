"""Writing a results folder's shared outputs after models are evaluated into it.

``write_evaluation`` stores one model's evaluation file. ``finish`` then gathers every model
evaluated into the folder *on this dataset* (earlier runs included; files from other data are
left alone, never mixed in), and writes the leaderboard and the statistics and analyses over
them. ``run``, ``evaluate``, ``rescore`` and ``report`` all end here, so they write the same
files the same way.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..dataset.io import BuiltDataset
from .leaderboard import LeaderboardRow, write_leaderboard
from .model_report import ModelReport
from .pipeline import Evaluation
from .report import ReportError, read_report, report_json, write_report
from .results_folder import ResultsFolder, model_slug


@dataclass(frozen=True)
class Finished:
    reports: tuple[ModelReport, ...]
    rows: tuple[LeaderboardRow, ...]
    skipped: tuple[Path, ...]
    """Evaluation files in the folder computed on other data (or unreadable), left out."""


def write_evaluation(folder: ResultsFolder, evaluation: Evaluation, dataset: BuiltDataset) -> Path:
    path = folder.evaluation(model_slug(evaluation.report.model.name))
    write_report(path, report_json(evaluation, dataset))
    return path


def gather_files(folder: ResultsFolder, fingerprint: str) -> tuple[list[tuple[Path, ModelReport]], list[Path]]:
    """Every readable evaluation file in the folder computed on the dataset ``fingerprint``, and the rest."""
    found: list[tuple[Path, ModelReport]] = []
    skipped: list[Path] = []
    for path in folder.evaluations():
        try:
            report = read_report(path)
        except ReportError:
            skipped.append(path)
            continue
        if report.dataset_fingerprint == fingerprint:
            found.append((path, report))
        else:
            skipped.append(path)
    return found, skipped


def gather(folder: ResultsFolder, dataset: BuiltDataset) -> tuple[list[ModelReport], list[Path]]:
    """Every readable evaluation in the folder computed on ``dataset`` (by fingerprint), and the rest."""
    found, skipped = gather_files(folder, dataset.fingerprint)
    return [report for _, report in found], skipped


def leaderboard_rows(reports: list[ModelReport]) -> list[LeaderboardRow]:
    return [LeaderboardRow(r.model.name, r.model.revision, len(r.query_ids), r.means()) for r in reports]


def finish(folder: ResultsFolder, dataset: BuiltDataset) -> Finished:
    """Leaderboard (and analyses) over every model evaluated into ``folder`` on ``dataset``."""
    reports, skipped = gather(folder, dataset)
    rows = leaderboard_rows(reports)
    write_leaderboard(folder.root, rows)
    return Finished(tuple(reports), tuple(rows), tuple(skipped))
