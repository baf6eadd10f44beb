"""The reference results: a committed file written from a results folder, and the README table made from it.

``docs/reference_results.json`` holds the means of a reference run (``execretrieval run`` with
no ``-m``, on the bundled dataset): per model its name, revision and every metric, plus which
dataset (fingerprint, revision, size) they were computed on. The README's table sits between
``START`` and ``END`` markers and is generated from that file, never typed:

    execretrieval run -o ref
    execretrieval report ref --reference docs/reference_results.json --readme README.md

``tests/mteb_task/test_readme.py`` fails when the README's table and the file disagree.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ..dataset.io import BuiltDataset, write_text_atomic
from ..errors import ExecRetrievalError
from ..evaluation.metric_names import K_VALUES, Metric
from .rows import Row, ordered

START = "<!-- reference-results: generated from docs/reference_results.json by `execretrieval report DIR --reference docs/reference_results.json --readme README.md`; do not edit by hand -->"
END = "<!-- /reference-results -->"
LABELS: dict[str, str] = {
    "sentence-transformers/all-MiniLM-L6-v2": "all-MiniLM-L6-v2",
    "execretrieval-mteb/bm25-code": "BM25, code-aware tokenizer (k1 1.5, b 0.75)",
}
"""How the README names the default models (any other model is shown by its mteb name)."""
SCHEMA_VERSION = 1


class ReferenceError(ExecRetrievalError):
    """The reference file or the README's markers are missing or malformed."""


def reference_payload(rows: Sequence[Row], dataset: BuiltDataset) -> dict[str, Any]:
    """The file's content: the dataset's identity and, per model (leaderboard order), its means."""
    from ..dataset.release import dataset_revision

    return {
        "schema_version": SCHEMA_VERSION,
        "dataset": {
            "fingerprint": dataset.fingerprint,
            "revision": dataset_revision(dataset.fingerprint),
            "queries": len(dataset.queries),
            "snippets": len(dataset.corpus),
        },
        "models": [
            {"model": row.model, "revision": row.revision, "n_queries": row.n_queries,
             "metrics": {key: float(value) for key, value in sorted(row.metrics.items())}}
            for row in ordered(rows)
        ],
    }


def write_reference(path: Path, rows: Sequence[Row], dataset: BuiltDataset) -> dict[str, Any]:
    if not rows:
        raise ReferenceError("the results folder has no model evaluated on this dataset; run `execretrieval run` first")
    payload = reference_payload(rows, dataset)
    write_text_atomic(path, json.dumps(payload, indent=1, sort_keys=True) + "\n")
    return payload


def read_reference(path: Path) -> dict[str, Any]:
    try:
        payload = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ReferenceError(f"{path}: no such file; write it with `execretrieval report DIR --reference {path}`") from None
    except (OSError, json.JSONDecodeError) as exc:
        raise ReferenceError(f"{path}: unreadable ({exc}); rewrite it with `execretrieval report DIR --reference {path}`") from None
    if not isinstance(payload, Mapping) or not isinstance(payload.get("models"), list):
        raise ReferenceError(f"{path}: not a reference results file (no 'models' list)")
    return dict(payload)


def render_table(payload: Mapping[str, Any], k_values: Sequence[int] = K_VALUES) -> str:
    """The README's table: one row per model, exec@k at three decimals."""
    keys = [Metric.EXEC.key(k) for k in k_values]
    lines = ["| model | " + " | ".join(f"exec@{k}" for k in k_values) + " |",
             "|---|" + "---|" * len(k_values)]
    for model in payload["models"]:
        cells = [f"{float(model['metrics'][key]):.3f}" for key in keys]
        lines.append(f"| {LABELS.get(model['model'], model['model'])} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def readme_block(text: str, where: str = "README.md") -> tuple[int, int]:
    """Start and end offsets of the generated table inside ``text`` (between the markers)."""
    start = text.find(START)
    end = text.find(END)
    if start < 0 or end < start:
        raise ReferenceError(f"{where}: the reference-results markers are missing; put the lines\n{START}\n{END}\n"
                             "where the table belongs")
    return start + len(START) + 1, end


def current_table(text: str, where: str = "README.md") -> str:
    begin, end = readme_block(text, where)
    return text[begin:end]


def update_readme(path: Path, payload: Mapping[str, Any]) -> bool:
    """Rewrite the table between the markers of ``path``; True when it changed."""
    text = path.read_text(encoding="utf-8")
    begin, end = readme_block(text, str(path))
    updated = text[:begin] + render_table(payload) + text[end:]
    if updated == text:
        return False
    write_text_atomic(path, updated)
    return True
