"""``execretrieval hub stage DIR``: the release folder, exactly what ``hub push`` uploads.

Layout (every path relative to the folder)::

    README.md                         the dataset card (``card``): Hub metadata and configs, then the sections
    SHA256SUMS                        sha256 of every other file (``dataset.manifest``)
    release_info.json                 the source dataset's fingerprint, the counts, the configs, what was left out
    build_report.json                 the build's report (when the source has one)
    data/queries.jsonl ...            the source's study-schema files, byte for byte
    <config>/test.parquet             every config as Parquet: mteb's corpus/, queries/, default/ (from the source's
                                      files or records), query_tests/, distractor_metadata/, execution_cache/,
                                      stacked_mutants/ (the data/ files' rows) and labelled_corpus/: every snippet
                                      with its query, label, bug type and edit (line, span, before/after)
    embeddings/<org__model>.npz       frozen query and corpus embeddings (with --results; on this dataset only)
    embeddings/<org__model>.json      the run record rescore rebuilds from (model identity, dataset, mteb's files)
    results/<org__model>.json         per-model evaluation reports (with --results; on this dataset only)
    results/leaderboard.json, .md     the leaderboard over them
    results/mteb/<org__model>/<model revision>/ExecRetrieval.json, model_meta.json
                                      mteb's own result files of those models (for ``submit``; size, licence, ...)
    results/confidence_intervals.json, results/pairwise_tests.json, results/figures/*
                                      the analysis files, when they describe exactly those reports

The data files are copied unchanged from a verified source, so the release's data is the source's
data and has the source's fingerprint (``dataset.manifest``: it covers the data files only):
``release_info.json`` records it, and ``hub pin`` writes it into the package's ``release.json`` so
results computed on the source (e.g. the bundled dataset) are filed under the release's commit.

The folder is written beside its destination and swapped into place
(``dataset.layout.write_dataset``). An existing target is replaced only when stage can prove it
wrote every byte there itself: its ``release_info.json`` carries stage's marker, its
``SHA256SUMS`` lists that file, and every file below the target is listed there with its digest
unchanged (no other file, folder or link). Anything else (a git clone, a build folder, a staged
folder someone edited) is refused in one line and left as it was.
"""

from __future__ import annotations

import json
import tempfile
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
from ..dataset.release import LOCAL_PREFIX, dataset_revision, pinned_release
from ..errors import ExecRetrievalError
from ..results.leaderboard import leaderboard_files
from ..results.outputs import gather_files, leaderboard_rows
from ..results.results_folder import ResultsFolder
from ..results.analysis_files import read_analysis
from ..results.rows import Row, rows_from
from ..mteb_task.data_source import SourceKind, resolve_source
from .open_release import open_release
from .card import CardInputs, Config, check_card, config_info, render_card
from .repo_id import check_repo_id

RELEASE_INFO = "release_info.json"
BUILD_REPORT = "build_report.json"
MTEB_FILES = ("corpus/test.jsonl", "queries/test.jsonl", "default/test.jsonl")
"""mteb's configs in a built dataset (the release ships every config as Parquet)."""
MARKER = ("staged_by", "execretrieval hub stage")
"""The key and value in ``release_info.json`` that say stage wrote the folder."""

CONFIGS: tuple[tuple[str, str, str], ...] = (
    ("corpus", "corpus/test.jsonl", "mteb's corpus: `id`, `title`, `text` (every snippet)"),
    ("queries", "queries/test.jsonl", "mteb's queries: `id`, `text`"),
    ("default", "default/test.jsonl", "mteb's qrels: `query-id`, `corpus-id`, `score` (each query's canonical); "
                                      "what `load_dataset(repo)` returns"),
    ("query_tests", f"data/{QUERIES}", "each query with its tests (`test_suite`), domain, function name, correct and "
                                       "paired distractor ids"),
    ("labelled_corpus", "labelled_corpus", "every snippet with its query, label (`correct`/`incorrect`), bug type and "
                                           "edit (`bug_description`, `line`, character `span`, `before`, `after`)"),
    ("distractor_metadata", f"data/{DISTRACTORS}", "one row per mutant: bug type, description, line, span, before/after"),
    ("execution_cache", f"data/{EXECUTION_CACHE}", "per-test outcomes (`pass`, `FAIL`, `ERROR:<type>`, `TIMEOUT`) "
                                                   "keyed by the sha256 of the code and of the test list"),
    ("stacked_mutants", f"data/{STACKED_MUTANTS}", "companion mutants with 2-4 composed edits (never in the corpus)"),
    ("open_corpus", "open_corpus", "ExecRetrievalOpen's corpus for mteb: `id`, `title`, `text` (the benchmark's "
                                   "snippets, then the wild functions)"),
    ("wild_corpus", "wild_corpus", "every wild function with its package, version, file, line and licence, its "
                                   "`free_names` and whether it runs alone (`closed`)"),
    ("open_validation", "open_validation", "each query's independent `reference` and `inputs(rng)` generator: "
                                           "the open task's strong judge"),
)
"""(config, the JSONL rows it holds, content) of every config a release can have; each is shipped as
``<config>/test.parquet`` (``datasets`` reads one format per repository, and Parquet is the Hub's), and
those whose rows are absent or empty are left out. The study's JSONL files are shipped as well, byte for byte."""


def config_file(name: str) -> str:
    return f"{name}/test.parquet"


class StageError(ExecRetrievalError):
    """The release cannot be staged; the message says what to fix."""


@dataclass(frozen=True)
class Staged:
    root: Path
    fingerprint: str
    """sha256 of the release's ``SHA256SUMS`` (names every byte of the folder, card and results included)."""
    source_fingerprint: str
    """The data fingerprint (``dataset.manifest``): the source's, since the data files are its bytes."""
    files: tuple[str, ...]
    rows: tuple[Row, ...]
    notes: tuple[str, ...]
    open_models: tuple[str, ...] = ()
    """Models whose open-pool results were staged (``--open``)."""


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


def parquet(content: Content, tmp: Path) -> bytes:
    """JSONL (text or a file) as Parquet with the columns ``datasets``' JSON loader infers (deterministic bytes)."""
    import datasets

    source = Path(content) if isinstance(content, Path) else tmp / "rows.jsonl"
    if isinstance(content, str):
        source.write_text(content, encoding="utf-8")
    shown = datasets.is_progress_bar_enabled()
    datasets.disable_progress_bars()
    try:
        loaded = datasets.load_dataset("json", data_files={"test": str(source)}, split="test", cache_dir=str(tmp / "cache"))
        loaded.to_parquet(str(tmp / "rows.parquet"))
    finally:
        if shown:
            datasets.enable_progress_bars()
    return (tmp / "rows.parquet").read_bytes()


def _configs(sources: Mapping[str, Content]) -> tuple[list[Config], dict[str, Content]]:
    """Every config whose rows are in ``sources`` and not empty: its Parquet file, row count and columns."""
    configs: list[Config] = []
    files: dict[str, Content] = {}
    for name, rows, what in CONFIGS:
        content = sources.get(rows)
        if content is None or not _count_rows(content):
            continue
        with tempfile.TemporaryDirectory(prefix="execretrieval-parquet-") as tmp:
            files[config_file(name)] = parquet(content, Path(tmp))
            (Path(tmp) / "config.parquet").write_bytes(files[config_file(name)])
            features, num_bytes, count = config_info(Path(tmp) / "config.parquet")
        configs.append(Config(name, config_file(name), count, what, features, num_bytes))
    return configs, files


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
    from ..leaderboard.mteb_results import MODEL_META, source_results

    ours = {dataset_revision(dataset.fingerprint), LOCAL_PREFIX + dataset.fingerprint[:12]}
    for result in source_results(folder, {report.model.name for report in reports}):
        on = json.loads(result.read_text(encoding="utf-8")).get("dataset_revision")
        if on in ours and (result.parent / MODEL_META).is_file():
            rel = f"results/mteb/{result.parent.parent.name}/{result.parent.name}"
            files[f"{rel}/{result.name}"], files[f"{rel}/{MODEL_META}"] = result, result.parent / MODEL_META
            described[f"{rel}/"] = "mteb's result file and model metadata"
    for path, report in found:
        record = folder.run_record(path.stem)  # what rescore needs besides the matrices (BM25 has only this)
        if record.is_file():
            files[f"embeddings/{record.name}"] = record
            described[f"embeddings/{record.name}"] = f"run record of {report.model.name} (what rescore rebuilds from)"
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


def _refuse(out_dir: Path, why: str) -> StageError:
    return StageError(f"{out_dir}: {why}, so it is not a folder `execretrieval hub stage` wrote; nothing was deleted: "
                      "stage into a new folder (or empty this one yourself)")


def check_replaceable(out_dir: Path) -> None:
    """Refuse a target that exists and is not, byte for byte, an earlier staged release (module docstring)."""
    out_dir = Path(out_dir)
    if not out_dir.exists() and not out_dir.is_symlink():
        return
    if out_dir.is_symlink() or not out_dir.is_dir():
        raise _refuse(out_dir, "it is a link or a file")
    if not any(out_dir.iterdir()):
        return
    try:
        entries = manifest.read_sums(out_dir)
        info = json.loads((out_dir / RELEASE_INFO).read_text(encoding="utf-8")) if entries else None
    except (manifest.ManifestError, OSError, UnicodeDecodeError, json.JSONDecodeError):
        entries, info = None, None
    if not entries or RELEASE_INFO not in entries or not isinstance(info, dict) or info.get(MARKER[0]) != MARKER[1]:
        raise _refuse(out_dir, f"it holds no {RELEASE_INFO} with stage's marker listed in its {manifest.SUMS}")
    why = layout.foreign_content(out_dir, entries)
    if why:
        raise _refuse(out_dir, why)


def stage(out_dir: Path, data: str | Path | None = None, results: Path | None = None, repo_id: str | None = None,
          wild: Path | None = None) -> Staged:
    """Write the release folder for the dataset ``data`` names (default: bundled) and, optionally, a results
    folder; with ``wild`` (a wild corpus folder) also the open task's part (``open_release``)."""
    out_dir = Path(out_dir)
    check_replaceable(out_dir)  # before any work: a refusal costs nothing and touches nothing
    if repo_id is not None:
        check_repo_id(repo_id)
    root = _source(data)
    dataset = load_dataset(root)  # verified against its SHA256SUMS
    repo_id = repo_id or pinned_release().repo_id
    base = data_dir(root)
    files: dict[str, Content] = {}
    for name in (QUERIES, CORPUS, DISTRACTORS, EXECUTION_CACHE, STACKED_MUTANTS):
        if (base / name).is_file():
            files[f"data/{name}"] = base / name
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
    opened = None
    if wild is not None:
        opened = open_release(dataset, Path(wild), ResultsFolder(Path(results)) if results is not None else None)
        files.update(opened.files)
        extra.update(opened.described)
        notes += opened.notes
    configs, config_files = _configs({
        **files, **_mteb_files(root), "labelled_corpus": labelled_corpus(dataset), **(opened.config_rows if opened else {})
    })
    files.update(config_files)
    files[RELEASE_INFO] = json.dumps({
        MARKER[0]: MARKER[1],
        "data_fingerprint": dataset.fingerprint,
        "source_fingerprint": dataset.fingerprint,
        "repo_id": repo_id,
        "queries": len(dataset.queries),
        "snippets": len(dataset.corpus),
        "configs": {c.name: c.path for c in configs},
        "models": [r.model for r in rows],
        "left_out": notes,
        **({"open": opened.info} if opened else {}),
    }, indent=1, sort_keys=True) + "\n"
    card = render_card(CardInputs(repo_id, dataset, configs, build_report, rows, extra, notes, opened), _statistics(root))
    check_card(card)
    files["README.md"] = card
    check_replaceable(out_dir)  # still ours (the check above ran before the reports were read)
    layout.write_dataset(out_dir, files, what="staged release", required=(RELEASE_INFO,))
    check_card(card, out_dir)
    staged_files(out_dir)
    return Staged(out_dir, manifest.sums_sha256(out_dir), dataset.fingerprint, tuple(sorted(files)) + (manifest.SUMS,),
                  tuple(rows), tuple(notes), tuple(opened.models) if opened else ())


def _statistics(root: Path) -> dict[str, Any]:
    """mteb's descriptive statistics of the staged data, computed by mteb (``mteb_task.statistics``)."""
    from ..mteb_task.statistics import compute

    with tempfile.TemporaryDirectory(prefix="execretrieval-stats-") as tmp:
        return json.loads(json.dumps(compute(root, Path(tmp) / "stats.json")))


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
