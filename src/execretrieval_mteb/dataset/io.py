"""Read and write a built dataset directory (see ``schema`` for the layout).

Loading accepts this project's layout and the original release's (``data/*.jsonl`` or the same
files at the root). Every problem is a ``DatasetError`` naming the file, the line and the fix.
Loading verifies the files it reads against ``SHA256SUMS`` (``manifest``) and records the
dataset's fingerprint. Writing is atomic per file and deterministic (sorted keys, ``\\n`` line
ends, UTF-8).
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import ExecRetrievalError
from ..oracle.outcomes import TestOutcome
from . import manifest
from .schema import CorpusRecord, DistractorRecord, Label, QueryRecord, StackedRecord

QUERIES, CORPUS, DISTRACTORS, EXECUTION_CACHE = (
    "queries.jsonl", "corpus.jsonl", "distractor_metadata.jsonl", "execution_cache.jsonl",
)
STACKED_MUTANTS = "stacked_mutants.jsonl"  # companion rows, never corpus items (see construction.stacked)
CacheKey = tuple[str, str]  # (code_sha256, tests_sha256)


class DatasetError(ExecRetrievalError):
    """A built dataset is missing, unreadable or inconsistent; the message says where and how to fix."""


@dataclass(frozen=True)
class BuiltDataset:
    root: Path
    queries: tuple[QueryRecord, ...]
    corpus: tuple[CorpusRecord, ...]
    distractors: tuple[DistractorRecord, ...]
    execution_cache: Mapping[CacheKey, tuple[TestOutcome, ...]]
    fingerprint: str = ""
    """sha256 of the dataset's ``SHA256SUMS`` (see ``manifest``): which dataset, exactly."""
    stacked: tuple[StackedRecord, ...] = ()
    """Stacked mutants (``data/stacked_mutants.jsonl``), when the build made them; never in the corpus."""


def data_dir(root: Path) -> Path:
    """Where the study-schema files live: ``root/data`` (ours, the release) or ``root`` itself."""
    root = Path(root)
    if (root / "data" / QUERIES).is_file():
        return root / "data"
    if (root / QUERIES).is_file():
        return root
    raise DatasetError(
        f"{root}: no {QUERIES} in {root / 'data'} or {root}; point at a directory made by "
        "`execretrieval build` or at an unpacked original release"
    )


def read_jsonl(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield (line number, object) for each non-blank line; a bad line is a DatasetError."""
    try:
        handle = open(path, encoding="utf-8")
    except FileNotFoundError:
        raise DatasetError(f"{path}: file missing; rebuild the dataset with `execretrieval build`") from None
    with handle:
        for number, line in enumerate(handle, 1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as exc:
                raise DatasetError(f"{path}:{number}: not valid JSON ({exc.msg}); the file is corrupt, rebuild it") from None
            if not isinstance(obj, dict):
                raise DatasetError(f"{path}:{number}: expected a JSON object per line")
            yield number, obj


def _need(obj: dict[str, Any], key: str, where: str) -> Any:
    if key not in obj:
        raise DatasetError(f"{where}: missing field '{key}'")
    return obj[key]


def _query(obj: dict[str, Any], where: str) -> QueryRecord:
    metadata = obj.get("metadata") or {}
    return QueryRecord(
        query_id=str(_need(obj, "query_id", where)),
        query=_need(obj, "query", where),
        test_suite=tuple(_need(obj, "test_suite", where)),
        correct_corpus_ids=tuple(_need(obj, "correct_corpus_ids", where)),
        paired_distractor_corpus_ids=tuple(obj.get("paired_distractor_corpus_ids") or ()),
        entry_id=str(obj.get("entry_id", obj["query_id"])),
        metadata=metadata,
        domain=obj.get("domain", metadata.get("domain")),
        function_name=obj.get("function_name", metadata.get("function_name")),
    )


def _corpus(obj: dict[str, Any], where: str) -> CorpusRecord:
    label = _need(obj, "label", where)
    try:
        parsed = Label(label)
    except ValueError:
        raise DatasetError(f"{where}: label {label!r} is not 'correct' or 'incorrect'") from None
    return CorpusRecord(
        corpus_id=str(_need(obj, "corpus_id", where)),
        code=_need(obj, "code", where),
        label=parsed,
        source_entry_id=str(obj.get("source_entry_id", "")),
        bug_type=obj.get("bug_type"),
    )


def _distractor(obj: dict[str, Any], where: str) -> DistractorRecord:
    span = obj.get("span")
    return DistractorRecord(
        corpus_id=str(_need(obj, "corpus_id", where)),
        source_entry_id=str(obj.get("source_entry_id", "")),
        bug_type=str(obj.get("bug_type", "")),
        bug_description=str(obj.get("bug_description", "")),
        line=obj.get("line"),
        span=tuple(span) if span is not None else None,
        before=obj.get("before"),
        after=obj.get("after"),
    )


def _stacked(obj: dict[str, Any], where: str) -> StackedRecord:
    return StackedRecord(
        corpus_id=str(_need(obj, "corpus_id", where)),
        code=_need(obj, "code", where),
        source_entry_id=str(_need(obj, "source_entry_id", where)),
        n_edits=int(_need(obj, "n_edits", where)),
        bug_types=tuple(obj.get("bug_types") or ()),
    )


def _cache_outcomes(obj: dict[str, Any], where: str) -> tuple[TestOutcome, ...]:
    for key in ("test_results", "outcomes", "results"):
        if key in obj:
            try:
                return tuple(TestOutcome.parse(str(o)) for o in obj[key])
            except ValueError as exc:
                raise DatasetError(f"{where}: {exc}") from None
    raise DatasetError(f"{where}: missing field 'test_results' (the per-test outcome list)")


def study_files(root: Path) -> list[Path]:
    """The study-schema files the loader reads from ``root`` (those present)."""
    base = data_dir(root)
    names = (QUERIES, CORPUS, DISTRACTORS, EXECUTION_CACHE, STACKED_MUTANTS)
    return [base / name for name in names if (base / name).is_file()]


def load_dataset(root: Path | str, *, verify: bool = True) -> BuiltDataset:
    """Load a built dataset (ours or the original release); the execution cache is optional.

    With ``verify`` (the default) every file read must match ``SHA256SUMS`` when the dataset has
    one (``manifest.ManifestError`` otherwise); ``execretrieval validate`` passes False and
    reports checksum failures itself.
    """
    root = Path(root)
    if not root.is_dir():
        raise DatasetError(f"{root}: not a directory; pass a dataset made by `execretrieval build`")
    base = data_dir(root)
    read = study_files(root)
    if verify:
        manifest.verify(root, read)
    queries = tuple(_query(o, f"{base / QUERIES}:{n}") for n, o in read_jsonl(base / QUERIES))
    corpus = tuple(_corpus(o, f"{base / CORPUS}:{n}") for n, o in read_jsonl(base / CORPUS))
    distractors: tuple[DistractorRecord, ...] = ()
    if (base / DISTRACTORS).is_file():
        distractors = tuple(_distractor(o, f"{base / DISTRACTORS}:{n}") for n, o in read_jsonl(base / DISTRACTORS))
    cache: dict[CacheKey, tuple[TestOutcome, ...]] = {}
    if (base / EXECUTION_CACHE).is_file():
        for n, o in read_jsonl(base / EXECUTION_CACHE):
            where = f"{base / EXECUTION_CACHE}:{n}"
            cache[(_need(o, "code_sha256", where), _need(o, "tests_sha256", where))] = _cache_outcomes(o, where)
    stacked: tuple[StackedRecord, ...] = ()
    if (base / STACKED_MUTANTS).is_file():
        stacked = tuple(_stacked(o, f"{base / STACKED_MUTANTS}:{n}") for n, o in read_jsonl(base / STACKED_MUTANTS))
    if not queries:
        raise DatasetError(f"{base / QUERIES}: no queries; rebuild the dataset with `execretrieval build`")
    known = {c.corpus_id for c in corpus}
    for q in queries:
        missing = [cid for cid in q.correct_corpus_ids if cid not in known]
        if missing:
            raise DatasetError(f"{base / QUERIES}: query {q.query_id} names correct ids {missing} absent from {CORPUS}")
    return BuiltDataset(
        root=root, queries=queries, corpus=corpus, distractors=distractors, execution_cache=cache,
        fingerprint=manifest.fingerprint(root, read), stacked=stacked,
    )


def dumps_jsonl(rows: Iterable[Mapping[str, Any]]) -> str:
    """Deterministic JSONL text: sorted keys, compact separators, UTF-8 kept, one row a line."""
    return "".join(json.dumps(r, sort_keys=True, ensure_ascii=False, separators=(",", ":")) + "\n" for r in rows)


def write_text_atomic(path: Path, text: str) -> None:
    """Write via a temporary file and rename, so a reader never sees half a file (UTF-8, newlines as given)."""
    write_bytes_atomic(path, text.encode("utf-8"))


def write_bytes_atomic(path: Path, data: bytes) -> None:
    """Write via a temporary file and rename, so a reader never sees half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        os.fchmod(fd, 0o644)  # mkstemp makes 0600; results and shipped data must be readable by others
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
