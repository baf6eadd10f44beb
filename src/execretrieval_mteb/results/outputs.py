"""Writing a results folder's shared outputs after models are evaluated into it.

``write_evaluation`` stores one model's evaluation file. ``finish`` then gathers every model
evaluated into the folder *on this dataset* (earlier runs included; files from other data are
left alone, never mixed in), and writes the leaderboard (with intervals and significance marks)
and the statistics, analyses, ``report.md`` and figures (``analysis/``) over them. ``run``, ``evaluate``, ``rescore`` and ``report`` all end here, so they write the same
files the same way.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..dataset.io import BuiltDataset
from ..evaluation.model_report import FrozenScores, ModelReport
from ..evaluation.pipeline import Evaluation
from .leaderboard import write_leaderboard
from .matrices import bm25_scores, frozen_embeddings, is_bm25, stacked_scores
from .report import ReportError, read_report, report_json, write_report
from .results_folder import ResultsFolder, model_slug
from .rows import Row, ordered
from .token_lengths import recorded_token_lengths


@dataclass(frozen=True)
class Finished:
    reports: tuple[ModelReport, ...]
    rows: tuple[Row, ...]
    """Leaderboard order."""
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


def leaderboard_rows(reports: list[ModelReport]) -> list[Row]:
    """Rows without statistics."""
    return [Row.of(r) for r in reports]


def finish(folder: ResultsFolder, dataset: BuiltDataset, *, figures: bool = True) -> Finished:
    """Leaderboard, statistics and analyses over every model evaluated into ``folder`` on ``dataset``.

    Full score matrices come from the folder's frozen embeddings (and BM25's recomputed scores), so
    the analyses that need scores outside the top k run for those models; the others say why not.
    A dense model's token counts (for truncation) come from its run record.
    """
    from ..analysis import FamilyEmbeddings, NotComputed, StackedScores, TokenLengths, write_analysis

    reports, skipped = gather(folder, dataset)
    frozen: dict[str, FrozenScores] = {}
    embeddings: dict[str, FamilyEmbeddings] = {}
    token_lengths: dict[str, TokenLengths | NotComputed] = {}
    stacked: dict[str, StackedScores] = {}
    entry = {r.corpus_id: (r.source_entry_id, r.n_edits) for r in dataset.stacked}
    for report in reports:
        name = report.model.name
        dense = frozen_embeddings(folder, name, dataset)
        if dense is not None:
            frozen[name] = dense.scores()
            embeddings[name] = FamilyEmbeddings(dense.corpus_ids, dense.corpus, dense.model.similarity or "cosine")
            counted = recorded_token_lengths(folder, name, dataset)
            if counted is not None:
                token_lengths[name] = counted
        elif is_bm25(name):
            frozen[name] = bm25_scores(dataset)
        extra = stacked_scores(folder, name, dataset)
        if extra is not None:
            stacked[name] = StackedScores(extra.query_ids, extra.corpus_ids, extra.matrix,
                                          tuple(entry[c][0] for c in extra.corpus_ids),
                                          tuple(entry[c][1] for c in extra.corpus_ids))
    rows: list[Row] = []
    if reports:
        result = write_analysis(folder.analysis, reports, dataset, frozen=frozen, stacked=stacked,
                                embeddings=embeddings, token_lengths=token_lengths, figures=figures)
        pairwise: dict[str, dict[str, dict[str, float]]] = {}
        for pair in result.pairs:
            pairwise.setdefault(pair.a, {}).setdefault(pair.b, {})[pair.metric] = pair.p_holm
            pairwise.setdefault(pair.b, {}).setdefault(pair.a, {})[pair.metric] = pair.p_holm
        rows = ordered([Row.of(r, intervals=result.intervals[r.model.name], pairwise=pairwise.get(r.model.name, {}))
                        for r in reports])
    write_leaderboard(folder.root, rows)
    return Finished(tuple(reports), tuple(rows), tuple(skipped))
