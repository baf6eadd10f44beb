"""``execretrieval hub stage DIR``: the release folder, exactly what ``hub push`` uploads.

Layout (every path relative to the folder)::

    README.md                         the dataset card (``card``): Hub metadata and configs, then the sections
    SHA256SUMS                        sha256 of every other file (``dataset.manifest``)
    release_info.json                 the source dataset's fingerprint, the counts, the configs, what was left out
    build_report.json                 the build's report (when the source has one)
    data/queries.jsonl ...            the source's study-schema files, byte for byte
    corpus/ queries/ default/         mteb's configs (the source's files, or rendered from its records)
    labelled_corpus/test.jsonl        every snippet with its query, label, bug type and edit (line, span, before/after)
    embeddings/<org__model>.npz       frozen query and corpus embeddings (with --results; on this dataset only)
    results/<org__model>.json         per-model evaluation reports (with --results; on this dataset only)
    results/leaderboard.json, .md     the leaderboard over them
    results/confidence_intervals.json, results/pairwise_tests.json, results/figures/*
                                      the analysis files, when they describe exactly those reports

The data files are copied unchanged from a verified source, so the release's data is the source's
data: ``release_info.json`` records the source's fingerprint, and ``hub pin`` writes it into the
package's ``release.json`` so results computed on the source (e.g. the bundled dataset) are filed
under the release's commit. The folder is written beside its destination and swapped into place
(``dataset.layout.write_dataset``); an earlier staged folder is replaced, anything else refused.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..dataset import layout, manifest
from ..dataset.io import (
    CORPUS, DISTRACTORS, EXECUTION_CACHE, QUERIES, STACKED_MUTANTS, BuiltDataset, data_dir, dumps_jsonl, load_dataset,
    read_jsonl,
)
from ..dataset.layout import Content
from ..dataset.release import pinned_release
from ..errors import ExecRetrievalError
from ..results.leaderboard import leaderboard_files
from ..results.outputs import gather_files, leaderboard_rows
from ..results.results_folder import ResultsFolder
from ..results.analysis_files import read_analysis
from ..results.rows import Row, rows_from
from ..mteb_task.data_source import SourceKind, resolve_source
from .card import CardInputs, Config, check_card, config_info, render_card

RELEASE_INFO = "release_info.json"
BUILD_REPORT = "build_report.json"
LABELLED_CORPUS = "labelled_corpus/test.jsonl"
MTEB_FILES = ("corpus/test.jsonl", "queries/test.jsonl", "default/test.jsonl")

CONFIGS: tuple[tuple[str, str, str], ...] = (
    ("corpus", "corpus/test.jsonl", "mteb's corpus: `id`, `title`, `text` (every snippet)"),
    ("queries", "queries/test.jsonl", "mteb's queries: `id`, `text`"),
    ("default", "default/test.jsonl", "mteb's qrels: `query-id`, `corpus-id`, `score` (each query's canonical)"),
    ("query_tests", f"data/{QUERIES}", "each query with its tests (`test_suite`), domain, function name, correct and "
                                       "paired distractor ids"),
    ("labelled_corpus", LABELLED_CORPUS, "every snippet with its query, label (`correct`/`incorrect`), bug type and "
                                         "edit (`bug_description`, `line`, character `span`, `before`, `after`)"),
    ("distractor_metadata", f"data/{DISTRACTORS}", "one row per mutant: bug type, description, line, span, before/after"),
    ("execution_cache", f"data/{EXECUTION_CACHE}", "per-test outcomes (`pass`, `FAIL`, `ERROR:<type>`, `TIMEOUT`) "
                                                   "keyed by the sha256 of the code and of the test list"),
    ("stacked_mutants", f"data/{STACKED_MUTANTS}", "companion mutants with 2-4 composed edits (never in the corpus)"),
)
"""(config, file, content) of every config a release can have; those whose file is absent or empty are left out."""


class StageError(ExecRetrievalError):
    """The release cannot be staged; the message says what to fix."""


@dataclass(frozen=True)
class Staged:
    root: Path
    fingerprint: str
    """The release's fingerprint (sha256 of its ``SHA256SUMS``)."""
    source_fingerprint: str
    files: tuple[str, ...]
    rows: tuple[Row, ...]
    notes: tuple[str, ...]


def labelled_corpus(dataset: BuiltDataset) -> str:
    """JSONL: every snippet joined with its query and, for a mutant, its edit."""
    owner = {cid: q for q in dataset.queries for cid in (*q.correct_corpus_ids, *q.paired_distractor_corpus_ids)}
    edits = {d.corpus_id: d for d in dataset.distractors}
    rows = []
    for item in sorted(dataset.corpus, key=lambda c: c.corpus_id):
        query, edit = owner.get(item.corpus_id), edits.get(item.corpus_id)
        rows.append({
            "corpus_id": item.corpus_id,
            "query_id": query.query_id if query else None,
            "domain": query.domain if query else None,
            "function_name": query.function_name if query else None,
            "label": item.label.value,
            "bug_type": item.bug_type,
            "bug_description": edit.bug_description if edit else None,
            "line": edit.line if edit else None,
            "span": list(edit.span) if edit and edit.span is not None else None,
            "before": edit.before if edit else None,
            "after": edit.after if edit else None,
            "code": item.code,
        })
    return dumps_jsonl(rows)


def _count_rows(content: Content) -> int:
    if isinstance(content, str):
        return sum(1 for line in content.splitlines() if line.strip())
    return sum(1 for _ in read_jsonl(Path(content)))


def _configs(files: Mapping[str, Content]) -> list[Config]:
    """The configs whose file is in the release and not empty, with their row counts and columns."""
    import tempfile

    configs = []
    with tempfile.TemporaryDirectory(prefix="execretrieval-stage-") as tmp:
        for name, path, what in CONFIGS:
            content = files.get(path)
            if content is None or not _count_rows(content):
                continue
            source = Path(content) if not isinstance(content, (str, bytes)) else Path(tmp) / path
            if isinstance(content, str):
                source.parent.mkdir(parents=True, exist_ok=True)
                source.write_text(content, encoding="utf-8")
            features, num_bytes = config_info(source)
            configs.append(Config(name, path, _count_rows(content), what, features, num_bytes))
    return configs


def _source(data: str | Path | None) -> Path:
    source = resolve_source(data)
    if source.kind is SourceKind.HUB or source.path is None:
        raise StageError("--data hub: stage from a local dataset (the bundled one, or a directory made by "
                         "`execretrieval build`)")
    return source.path


def _mteb_files(root: Path) -> dict[str, Content]:
    """mteb's three configs: the source's own files, or rendered from its study-schema rows."""
    if all((root / rel).is_file() for rel in MTEB_FILES):
        return {rel: root / rel for rel in MTEB_FILES}
    base = data_dir(root)
    records = layout.Records(
        queries=[o for _, o in read_jsonl(base / QUERIES)], corpus=[o for _, o in read_jsonl(base / CORPUS)],
        distractors=[], execution_cache=[],
    )
    rendered = layout.render(records)
    return {rel: rendered[rel] for rel in MTEB_FILES}


def _results(folder: ResultsFolder, dataset: BuiltDataset, repo_id: str
             ) -> tuple[dict[str, Content], dict[str, str], list[Row], list[str]]:
    """Files of a results folder computed on ``dataset``: reports, leaderboard, analysis, embeddings."""
    from ..results.frozen import FrozenError, load_frozen

    if not (folder.root / "evaluation").is_dir():
        raise StageError(f"{folder.root}: no evaluation/ folder; pass a folder written by `execretrieval run` "
                         "or `execretrieval evaluate`")
    found, skipped = gather_files(folder, dataset.fingerprint)
    notes = [f"{p.name}: computed on other data (or unreadable)" for p in skipped]
    if not found:
        raise StageError(f"{folder.root}/evaluation: no results on this dataset (fingerprint {dataset.fingerprint[:12]}); "
                         "run the models on it first")
    files: dict[str, Content] = {}
    described: dict[str, str] = {}
    for path, report in found:
        files[f"results/{path.name}"] = path
        described[f"results/{path.name}"] = f"evaluation report of {report.model.name} (every query's top 10, each test's outcome)"
    reports = [report for _, report in found]
    for name, text in leaderboard_files(leaderboard_rows(reports)).items():
        files[f"results/{name}"] = text
        described[f"results/{name}"] = "the leaderboard over the staged reports"
    analysis = read_analysis(folder, reports)
    notes += analysis.notes
    for source in analysis.sources:
        files[f"results/{source.name}"] = source
        described[f"results/{source.name}"] = "bootstrap intervals / paired tests of the staged models"
    for figure in analysis.figures:
        files[f"results/figures/{figure.name}"] = figure
    if analysis.figures:
        described["results/figures/"] = "the evaluator's figures"
    for path, report in found:
        npz = folder.embeddings(path.stem)
        if not npz.is_file():
            continue
        try:
            frozen = load_frozen(npz)
        except FrozenError as exc:
            notes.append(f"{npz.name}: {exc}")
            continue
        if frozen.dataset_fingerprint != dataset.fingerprint or frozen.model.name != report.model.name:
            notes.append(f"{npz.name}: computed on other data")
            continue
        files[f"embeddings/{npz.name}"] = npz
        described[f"embeddings/{npz.name}"] = (f"frozen embeddings of {report.model.name} ({frozen.query.shape[1]} dims; "
                                               "query and corpus matrices with their ids)")
    return files, described, rows_from(reports, analysis, repo_id), notes


def stage(out_dir: Path, data: str | Path | None = None, results: Path | None = None, repo_id: str | None = None) -> Staged:
    """Write the release folder for the dataset ``data`` names (default: bundled) and, optionally, a results folder."""
    root = _source(data)
    dataset = load_dataset(root)  # verified against its SHA256SUMS
    repo_id = repo_id or pinned_release().repo_id
    base = data_dir(root)
    files: dict[str, Content] = {}
    for name in (QUERIES, CORPUS, DISTRACTORS, EXECUTION_CACHE, STACKED_MUTANTS):
        if (base / name).is_file():
            files[f"data/{name}"] = base / name
    files.update(_mteb_files(root))
    files[LABELLED_CORPUS] = labelled_corpus(dataset)
    build_report: Mapping[str, Any] | None = None
    if (root / BUILD_REPORT).is_file():
        files[BUILD_REPORT] = root / BUILD_REPORT
        build_report = json.loads((root / BUILD_REPORT).read_text(encoding="utf-8"))
    extra: dict[str, str] = {}
    rows: list[Row] = []
    notes: list[str] = []
    if results is not None:
        result_files, extra, rows, notes = _results(ResultsFolder(Path(results)), dataset, repo_id)
        files.update(result_files)
    configs = _configs(files)
    files[RELEASE_INFO] = json.dumps({
        "source_fingerprint": dataset.fingerprint,
        "repo_id": repo_id,
        "queries": len(dataset.queries),
        "snippets": len(dataset.corpus),
        "configs": {c.name: c.path for c in configs},
        "models": [r.model for r in rows],
        "left_out": notes,
    }, indent=1, sort_keys=True) + "\n"
    card = render_card(CardInputs(repo_id, dataset, configs, build_report, rows, extra, notes))
    check_card(card)
    files["README.md"] = card
    out_dir = Path(out_dir)
    layout.write_dataset(out_dir, files, what="staged release")
    check_card(card, out_dir)
    staged_files(out_dir)
    return Staged(out_dir, manifest.fingerprint(out_dir, []), dataset.fingerprint, tuple(sorted(files)) + (manifest.SUMS,),
                  tuple(rows), tuple(notes))


def staged_files(root: Path) -> dict[str, str]:
    """Every file of a staged folder (relative path -> sha256), verified: nothing missing, changed or unlisted."""
    root = Path(root)
    entries = manifest.read_sums(root)
    if entries is None or not (root / RELEASE_INFO).is_file():
        raise StageError(f"{root}: not a staged release (no {manifest.SUMS} or {RELEASE_INFO}); "
                         "make one with `execretrieval hub stage`")
    on_disk = {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()} - {manifest.SUMS}
    unlisted = sorted(on_disk - set(entries))
    if unlisted:
        raise StageError(f"{root / unlisted[0]}: not listed in {manifest.SUMS}; the staged folder was changed after "
                         "staging (stage it again)")
    bad = manifest.mismatches(root, entries)
    if bad:
        rel = sorted(bad)[0]
        raise StageError(f"{root / rel}: {bad[rel]} since staging ({manifest.SUMS} disagrees"
                         f"{'' if len(bad) == 1 else f', {len(bad)} files in all'}); stage it again")
    return {**entries, manifest.SUMS: manifest.file_sha256(root / manifest.SUMS)}


def release_info(root: Path) -> dict[str, Any]:
    return json.loads((Path(root) / RELEASE_INFO).read_text(encoding="utf-8"))
