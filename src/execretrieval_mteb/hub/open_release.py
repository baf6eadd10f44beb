"""The open task's part of a release (``execretrieval hub stage --open``): wild corpus, validation data, results.

Layout added to the staged folder (paths relative to it)::

    open/wild/wild_corpus.jsonl, sources.json, README.md, SHA256SUMS
                                      the wild corpus folder, byte for byte: ``ExecRetrievalOpen(wild=...)``
                                      and ``$EXECRETRIEVAL_WILD`` load it as it is, with the same fingerprint
    open/validation/validation.jsonl, SHA256SUMS
                                      the references and generators of the strong judge (the package's data/open)
    wild_corpus/test.parquet          config: every wild function with its provenance (package, version, file,
                                      line, licence) and what it needs from its module
    open_corpus/test.parquet          config: mteb's corpus of the whole open pool (benchmark snippets + wild)
    open_validation/test.parquet      config: each query's reference and inputs generator
    results/open/<org__model>.json    open evaluation reports computed on exactly this pool (with --results)
    results/open/comparison.json, report.md, figures/*
                                      closed against open, when every open report of the folder is on this pool
    embeddings/open/<org__model>.npz, .json
                                      frozen open-pool embeddings and run records of those models

The wild corpus is built per machine (its sources are the installed packages), so a release ships
the one it was staged from; the card lists every source with its version and licence, and the
sources the builder excluded with the reason.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..dataset import manifest
from ..dataset.io import BuiltDataset, dumps_jsonl, read_jsonl
from ..dataset.layout import Content
from ..dataset.wild import (
    OPEN_DATA_DIR, VALIDATION, WILD_CARD, WILD_CORPUS, WILD_SOURCES, OpenPool, load_wild, open_pool,
    validation_data_fingerprint,
)
from ..results.open_results import open_folder
from ..results.results_folder import ResultsFolder

WILD_PREFIX, VALIDATION_PREFIX = "open/wild", "open/validation"
COMPARISON_FILES = ("comparison.json", "report.md")


@dataclass(frozen=True)
class OpenSource:
    """One source of the wild corpus as the card lists it."""

    package: str
    version: str
    license: str
    kept: int
    excluded: str | None = None
    """Why the builder excluded the whole source (its licence), else None."""


@dataclass
class OpenRelease:
    files: dict[str, Content] = field(default_factory=dict)
    """Release path -> content (a file to copy, or text)."""
    config_rows: dict[str, Content] = field(default_factory=dict)
    """Config row source key (as in ``stage.CONFIGS``) -> JSONL rows."""
    described: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    info: dict[str, Any] = field(default_factory=dict)
    """What ``release_info.json`` records under ``open``."""
    sources: list[OpenSource] = field(default_factory=list)
    models: list[str] = field(default_factory=list)


def _sources(wild_dir: Path) -> list[OpenSource]:
    listed = json.loads((wild_dir / WILD_SOURCES).read_text(encoding="utf-8"))
    out = []
    for s in listed.get("sources", []):
        licence, declared = s.get("license"), s.get("license_declared") or "none declared"
        excluded = None if licence else f"licence not in the permissive set: {declared}"
        out.append(OpenSource(str(s["package"]), str(s["version"]), str(licence or declared), int(s.get("kept") or 0),
                              excluded))
    return out


def _open_corpus(dataset: BuiltDataset, wild_dir: Path) -> str:
    """mteb's corpus rows (``id``, ``title``, ``text``) of the open pool: the benchmark's, then the wild ones."""
    rows = [{"id": c.corpus_id, "text": c.code, "title": ""} for c in sorted(dataset.corpus, key=lambda c: c.corpus_id)]
    rows += [{"id": obj["corpus_id"], "text": obj["code"], "title": ""} for _, obj in read_jsonl(wild_dir / WILD_CORPUS)]
    return dumps_jsonl(rows)


def _results(release: OpenRelease, results: ResultsFolder, pool: OpenPool) -> None:
    from ..results.frozen import FrozenError, load_frozen

    folder = open_folder(results)
    evaluation = folder.root / "evaluation"
    reports = sorted(evaluation.glob("*.json")) if evaluation.is_dir() else []
    on_pool: list[Path] = []
    for path in reports:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            fingerprint = data["dataset"]["fingerprint"]
        except (OSError, ValueError, KeyError, TypeError):
            release.notes.append(f"open/evaluation/{path.name}: unreadable")
            continue
        if fingerprint != pool.fingerprint:
            release.notes.append(f"open/evaluation/{path.name}: computed on another open pool")
            continue
        on_pool.append(path)
        release.models.append(str(data.get("model") or path.stem))
        release.files[f"results/open/{path.name}"] = path
        release.described[f"results/open/{path.name}"] = (
            "open-pool evaluation report (top 10 with each snippet's origin and verdict, wild functions found)"
        )
        record = folder.run_record(path.stem)
        if record.is_file():
            release.files[f"embeddings/open/{record.name}"] = record
        npz = folder.embeddings(path.stem)
        if npz.is_file():
            try:
                frozen = load_frozen(npz)
            except FrozenError as exc:
                release.notes.append(f"open/embeddings/{npz.name}: {exc}")
                continue
            if frozen.dataset_fingerprint == pool.fingerprint:
                release.files[f"embeddings/open/{npz.name}"] = npz
                release.described[f"embeddings/open/{npz.name}"] = (
                    f"frozen open-pool embeddings ({frozen.query.shape[1]} dims; {frozen.corpus.shape[0]:,} snippets)"
                )
            else:
                release.notes.append(f"open/embeddings/{npz.name}: computed on another open pool")
    if on_pool and len(on_pool) == len(reports):
        for name in COMPARISON_FILES:
            if (folder.root / name).is_file():
                release.files[f"results/open/{name}"] = folder.root / name
                release.described[f"results/open/{name}"] = "closed against open over the staged models"
        for figure in sorted((folder.root / "figures").glob("*.png")):
            release.files[f"results/open/figures/{figure.name}"] = figure
    elif on_pool:
        release.notes.append("open/comparison.json: not staged, since some open reports of the folder are on another pool")


def open_release(dataset: BuiltDataset, wild_dir: Path, results: ResultsFolder | None = None) -> OpenRelease:
    """The open task's files, config rows and card values for a release of ``dataset`` (verified inputs)."""
    wild = load_wild(wild_dir)  # verified against its SHA256SUMS
    pool = open_pool(dataset, wild)
    release = OpenRelease()
    for name in (WILD_CORPUS, WILD_SOURCES, WILD_CARD, manifest.SUMS):
        if (wild.root / name).is_file():
            release.files[f"{WILD_PREFIX}/{name}"] = wild.root / name
    for name in (VALIDATION, manifest.SUMS):
        release.files[f"{VALIDATION_PREFIX}/{name}"] = OPEN_DATA_DIR / name
    release.described[f"{WILD_PREFIX}/"] = "the wild corpus folder as built (load it with `EXECRETRIEVAL_WILD`)"
    release.described[f"{VALIDATION_PREFIX}/"] = "the strong judge's references and input generators"
    release.config_rows = {
        "wild_corpus": wild.root / WILD_CORPUS,
        "open_corpus": _open_corpus(dataset, wild.root),
        "open_validation": OPEN_DATA_DIR / VALIDATION,
    }
    release.sources = _sources(wild.root)
    if results is not None:
        _results(release, results, pool)
    release.info = {
        "pool_fingerprint": pool.fingerprint,
        "wild_fingerprint": wild.fingerprint,
        "validation_fingerprint": validation_data_fingerprint(),
        "wild_functions": len(wild.records),
        "open_snippets": len(dataset.corpus) + len(wild.records),
        "sources": sum(1 for s in release.sources if s.excluded is None),
        "excluded_sources": sorted(s.package for s in release.sources if s.excluded is not None),
        "models": release.models,
    }
    return release
