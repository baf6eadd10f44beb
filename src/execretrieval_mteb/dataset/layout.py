"""Writing a dataset directory: the study's schema, the MTEB/HF configs and ``SHA256SUMS``.

The one writer of the on-disk layout (``schema`` describes it, ``io`` reads it back). Stages
hand it plain records (``Records``); it orders and renders every file deterministically (sorted
keys, rows in id order, ``\\n`` line ends, no timestamps or absolute paths), writes them into a
fresh sibling folder, adds ``SHA256SUMS``, and only then swaps the folder into place, so an
interrupted write leaves the previous dataset untouched and equal records give equal bytes.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Mapping, Sequence
from os import PathLike
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import ExecRetrievalError
from .io import CORPUS, DISTRACTORS, EXECUTION_CACHE, QUERIES, STACKED_MUTANTS, dumps_jsonl, write_text_atomic
from .manifest import SUMS, render_sums

Row = Mapping[str, Any]
Content = str | bytes | PathLike[str]
"""A file to write: text (UTF-8, ``\\n`` line ends), raw bytes, or a path to copy."""

HF_CONFIGS: tuple[tuple[str, str], ...] = (
    ("corpus", "corpus/test.jsonl"),
    ("queries", "queries/test.jsonl"),
    ("default", "default/test.jsonl"),
    ("distractor_metadata", f"data/{DISTRACTORS}"),
    ("execution_cache", f"data/{EXECUTION_CACHE}"),
    ("stacked_mutants", f"data/{STACKED_MUTANTS}"),
)
"""Hugging Face configs (name, data file): MTEB's three retrieval configs, then the study's files."""


@dataclass(frozen=True)
class Records:
    """Rows of the study's schema (see ``schema``), in any order."""

    queries: Sequence[Row]
    corpus: Sequence[Row]
    distractors: Sequence[Row]
    execution_cache: Sequence[Row]
    stacked_mutants: Sequence[Row] = field(default_factory=tuple)


def render(records: Records) -> dict[str, str]:
    """Path (relative, POSIX) -> text of every data file of both layouts."""
    queries = sorted(records.queries, key=lambda r: r["query_id"])
    corpus = sorted(records.corpus, key=lambda r: r["corpus_id"])
    qrels = [{"query-id": q["query_id"], "corpus-id": cid, "score": 1} for q in queries for cid in q["correct_corpus_ids"]]
    return {
        f"data/{QUERIES}": dumps_jsonl(queries),
        f"data/{CORPUS}": dumps_jsonl(corpus),
        f"data/{DISTRACTORS}": dumps_jsonl(sorted(records.distractors, key=lambda r: r["corpus_id"])),
        f"data/{EXECUTION_CACHE}": dumps_jsonl(
            sorted(records.execution_cache, key=lambda r: (r["code_sha256"], r["tests_sha256"]))
        ),
        f"data/{STACKED_MUTANTS}": dumps_jsonl(sorted(records.stacked_mutants, key=lambda r: str(r["corpus_id"]))),
        "corpus/test.jsonl": dumps_jsonl({"id": r["corpus_id"], "title": "", "text": r["code"]} for r in corpus),
        "queries/test.jsonl": dumps_jsonl({"id": q["query_id"], "text": q["query"]} for q in queries),
        "default/test.jsonl": dumps_jsonl(qrels),
    }


def configs_yaml(configs: Sequence[tuple[str, str]] = HF_CONFIGS) -> str:
    """The card's YAML ``configs`` list, so ``datasets.load_dataset(DIR_or_repo, name)`` finds each file."""
    return "configs:\n" + "".join(
        f"- config_name: {name}\n  data_files:\n  - split: test\n    path: {path}\n" for name, path in configs
    )


def prepare_out_dir(out_dir: Path, what: str = "build") -> None:
    """Refuse to replace a folder that is not empty and not an earlier dataset (no ``SHA256SUMS``)."""
    if out_dir.exists() and (not out_dir.is_dir() or (any(out_dir.iterdir()) and not (out_dir / SUMS).is_file())):
        raise ExecRetrievalError(
            f"{out_dir}: exists and is not an earlier {what} (no {SUMS}); choose another output folder or remove it"
        )


def _write_file(path: Path, content: Content) -> None:
    if isinstance(content, str):
        write_text_atomic(path, content)
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        shutil.copyfile(content, path)
    path.chmod(0o644)


def write_dataset(out_dir: Path, files: Mapping[str, Content], what: str = "build") -> str:
    """Write ``files`` plus ``SHA256SUMS`` into ``out_dir`` (replacing an earlier dataset); returns the sums.

    ``what`` names the kind of folder in the refusal to replace something else ("build", "staged release").
    """
    out_dir = Path(out_dir)
    prepare_out_dir(out_dir, what)
    out_dir.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(dir=out_dir.parent, prefix=f".{out_dir.name}.building."))
    staging.chmod(0o755)
    try:
        for rel in sorted(files):
            _write_file(staging / rel, files[rel])
        sums = render_sums(staging)
        write_text_atomic(staging / SUMS, sums)
        if out_dir.exists():
            retired = Path(tempfile.mkdtemp(dir=out_dir.parent, prefix=f".{out_dir.name}.old."))
            out_dir.rename(retired / "previous")
            staging.rename(out_dir)
            shutil.rmtree(retired)
        else:
            staging.rename(out_dir)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return sums
