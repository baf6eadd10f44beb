"""Write the validation references and generators that ship with the open task (``data/open/``).

The closed build keeps each task's ``[validation]`` table (an independently written ``reference``
and an ``inputs(rng)`` generator, see ``oracle.agreement``) out of the released data: there it
only had to vet the build's own snippets. In the open pool the evaluator meets code nobody
planted, and a wild function that passes a query's tests must also agree with that reference on
every generated input to count as correct (``evaluation.open_judge``), so the open task ships
them: one row per query of the dataset, joined by the target's name.

    python -m execretrieval_mteb.construction.open_validation tasks/ [--data DIR] [-o OUT]
"""

from __future__ import annotations

import argparse
from pathlib import Path

from ..dataset import manifest
from ..dataset.io import dumps_jsonl, load_dataset, write_text_atomic
from ..dataset.bundled import BUNDLED_DATASET_DIR
from ..dataset.wild import OPEN_DATA_DIR, VALIDATION
from ..errors import ExecRetrievalError
from .task_files import load_task_files


def write_validation(tasks_dir: Path, data: Path, out: Path) -> int:
    """``out/validation.jsonl`` and its ``SHA256SUMS``; every query of ``data`` must have a [validation] table."""
    tasks, _ = load_task_files(tasks_dir)
    by_name = {t.function_name: t for t in tasks if t.validation is not None}
    dataset = load_dataset(data)
    rows = []
    for query in dataset.queries:
        task = by_name.get(query.function_name or "")
        if task is None or task.validation is None:
            raise ExecRetrievalError(f"{tasks_dir}: no task file with a [validation] table for {query.query_id} "
                                     f"({query.function_name}); the open task needs one per query")
        rows.append({"query_id": query.query_id, "function_name": task.function_name,
                     "reference": task.validation.reference, "inputs": task.validation.inputs})
    write_text_atomic(out / VALIDATION, dumps_jsonl(rows))
    write_text_atomic(out / manifest.SUMS, manifest.render_sums(out, [out / VALIDATION]))
    return len(rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m execretrieval_mteb.construction.open_validation")
    parser.add_argument("tasks", type=Path)
    parser.add_argument("--data", type=Path, default=BUNDLED_DATASET_DIR)
    parser.add_argument("-o", "--output", type=Path, default=OPEN_DATA_DIR)
    args = parser.parse_args(argv)
    n = write_validation(args.tasks, args.data, args.output)
    print(f"{args.output / VALIDATION}: {n} queries")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
