"""Writing a dataset directory: the study's schema, the MTEB/HF configs and ``SHA256SUMS``.

The one writer of the on-disk layout (``schema`` describes it, ``io`` reads it back). Stages
hand it plain records (``Records``); it orders and renders every file deterministically (sorted
keys, rows in id order, ``\\n`` line ends, no timestamps or absolute paths), writes them into a
fresh sibling folder, adds ``SHA256SUMS``, and only then swaps the folder into place, so an
interrupted write leaves the previous dataset untouched and equal records give equal bytes.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Mapping, Sequence
from os import PathLike
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import ExecRetrievalError
from .io import CORPUS, DISTRACTORS, EXECUTION_CACHE, QUERIES, STACKED_MUTANTS, dumps_jsonl, write_text_atomic
from .manifest import SUMS, mismatches, read_sums, render_sums

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


BUILT_FILES = ("build_report.json", f"data/{QUERIES}", f"data/{CORPUS}")
"""Files every folder ``execretrieval build`` writes holds (listed in its ``SHA256SUMS``)."""


def foreign_content(out_dir: Path, entries: Mapping[str, str]) -> str | None:
    """Why ``out_dir`` holds more or other than its manifest ``entries`` says, or None when it holds exactly that.

    A link anywhere, a file or folder the manifest does not list, or a listed file missing or changed:
    any of them means someone else put or edited something there, so the folder is not ours to delete.
    """
    folders = {out_dir / parent for rel in entries for parent in Path(rel).parents}
    for base, dirs, names in os.walk(out_dir):
        for name in sorted(dirs + names):
            path = Path(base) / name
            rel = path.relative_to(out_dir).as_posix()
            if path.is_symlink():
                return f"{rel} is a link"
            if path.is_dir() and path not in folders:
                return f"{rel}/ is not listed in its {SUMS}"
            if not path.is_dir() and rel != SUMS and rel not in entries:
                return f"{rel} is not listed in its {SUMS}"
    changed = mismatches(out_dir, entries)
    if changed:
        rel = sorted(changed)[0]
        return f"{rel} is {changed[rel]} since it was written"
    return None


def prepare_out_dir(out_dir: Path, what: str = "build", required: Sequence[str] = BUILT_FILES) -> None:
    """Refuse an output folder unless it is absent, empty, or provably an earlier ``what`` left as written.

    "Provably": its ``SHA256SUMS`` lists ``required`` and every file and folder in it, each unchanged
    (``foreign_content``). A git clone, a folder of notes with a stray ``SHA256SUMS``, or an earlier
    build edited since are refused in one line, and nothing is deleted.
    """
    out_dir = Path(out_dir)
    if not out_dir.exists() and not out_dir.is_symlink():
        return
    if out_dir.is_symlink() or not out_dir.is_dir():
        why: str | None = "it is a link or a file"
    elif not any(out_dir.iterdir()):
        return
    else:
        try:
            entries = read_sums(out_dir)
        except ExecRetrievalError:
            entries = None
        missing = [rel for rel in required if rel not in (entries or {})]
        why = (f"its {SUMS} does not list an earlier {what}'s {missing[0]}" if entries is None or missing
               else foreign_content(out_dir, entries))
    if why:
        raise ExecRetrievalError(f"{out_dir}: {why}, so it is not an earlier {what} to replace; nothing was deleted: "
                                 "choose a new output folder (or empty this one yourself)")


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


def write_dataset(out_dir: Path, files: Mapping[str, Content], what: str = "build",
                  required: Sequence[str] = BUILT_FILES) -> str:
    """Write ``files`` plus ``SHA256SUMS`` into ``out_dir`` (replacing an earlier dataset); returns the sums.

    ``what`` names the kind of folder in the refusal to replace something else ("build", "staged release"),
    ``required`` the files such a folder lists (``prepare_out_dir``).
    """
    out_dir = Path(out_dir)
    prepare_out_dir(out_dir, what, required)
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
