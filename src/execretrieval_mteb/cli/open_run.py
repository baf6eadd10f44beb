"""The ``--open`` part of ``execretrieval run`` and ``execretrieval evaluate``: the ExecRetrievalOpen task.

Opt-in because it costs: every model encodes the ~48,000 snippets of the open pool (all-MiniLM-L6-v2
on two CPU cores: minutes, see docs/open.md), and every top-10 wild pair is executed. Results go
to ``<results>/open/`` (``results.open_results``), with the closed-vs-open report there.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..dataset.wild import OpenPool
    from ..results.results_folder import ResultsFolder
    from ..mteb_task.models import ModelSpec
    from ..mteb_task.open_task import ExecRetrievalOpen

OPEN_HELP = ("also evaluate on ExecRetrievalOpen: the same queries over the benchmark's snippets plus ~43,000 "
             "wild functions judged by execution (opt-in: encoding the open pool takes minutes per model on CPU; "
             "the wild corpus is built on first use)")


def add_open_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--open", action="store_true", help=OPEN_HELP)
    parser.add_argument("--wild", type=Path, default=None, metavar="DIR",
                        help="the wild corpus folder for --open (default: $EXECRETRIEVAL_WILD, else the one built "
                             "for this environment)")


def open_task(args: argparse.Namespace, folder: ResultsFolder, say: Callable[[str], None]) -> ExecRetrievalOpen:
    from ..mteb_task.open_task import ExecRetrievalOpen

    task = ExecRetrievalOpen(data=args.data, wild=args.wild, oracle_cache=folder.oracle_cache, workers=args.workers)
    task.load_data()
    assert task.pool is not None
    say(f"ExecRetrievalOpen: {len(task.pool.closed.queries)} queries, {len(task.pool.closed.corpus)} benchmark "
        f"snippets + {len(task.pool.wild):,} wild functions (revision {task.metadata.revision}); "
        f"results in {folder.root}/open/")
    return task


def run_open(specs: Sequence[ModelSpec], args: argparse.Namespace, folder: ResultsFolder,
             say: Callable[[str], None]) -> list[str]:
    """Encode and evaluate every model on the open task; returns one line per model that failed."""
    import time

    from ..results.open_results import evaluate_open_predictions, open_folder, open_predictions, write_open_evaluation
    from ..mteb_task.open_task import OpenLoaded
    from ..results.encode import encode, identity_of
    from ..mteb_task.models import load

    task = open_task(args, folder, say)
    pool = task.pool
    assert pool is not None
    failures: list[str] = []
    for index, spec in enumerate(specs, 1):
        say(f"[open {index}/{len(specs)}] {spec.name}")
        try:
            if not args.overwrite and _reusable(folder, spec, pool):
                say("  already evaluated on this open pool: reusing it (--overwrite re-encodes)")
                continue
            model = load(spec, args.device)
            started = time.perf_counter()
            task.judge_seconds = 0.0
            encoded = encode(model, OpenLoaded(task), open_folder(folder), batch_size=args.batch_size,
                             progress=not args.quiet)
            encoding = time.perf_counter() - started - task.judge_seconds
            write_timing(folder, encoded.slug, encoding, task.judge_seconds)
            say(f"  encoded and searched in {encoding:.0f} s (mteb's metric hook judged the wild top 10 in "
                f"{task.judge_seconds:.0f} s)")
            started = time.perf_counter()
            evaluation = evaluate_open_predictions(open_predictions(folder, encoded.slug), pool, identity_of(model),
                                                   workers=args.workers, progress=not args.quiet,
                                                   oracle_cache=folder.oracle_cache)
            written = write_open_evaluation(folder, evaluation, pool)
            say(f"  evaluated in {time.perf_counter() - started:.1f} s -> {written}; wild pairs: "
                + ", ".join(f"{n} {j.value}" for j, n in evaluation.wild_counts().items() if n))
        except KeyboardInterrupt:
            raise
        except Exception as exc:  # noqa: BLE001 - one model's failure must not discard the others
            failures.append(f"{spec.name} (open): {type(exc).__name__}: {(str(exc).splitlines() or [''])[0]}")
            say(f"  failed: {failures[-1]}")
    report = finish_open_report(folder, pool)
    if report is not None:
        print(f"closed vs open: {report}")
    return failures


def _reusable(folder: ResultsFolder, spec: ModelSpec, pool: OpenPool) -> bool:
    """A finished open evaluation of this model (same revision) on this very open pool is in the folder."""
    from ..errors import ExecRetrievalError
    from ..results.open_outputs import read_open_report
    from ..results.open_results import open_folder, open_predictions
    from ..results.results_folder import model_slug

    slug = model_slug(spec.model_name)
    path = open_folder(folder).evaluation(slug)
    if not path.is_file() or not open_predictions(folder, slug).is_file():
        return False
    try:
        blob = read_open_report(path)
    except (ExecRetrievalError, ValueError, OSError):
        return False
    return blob["dataset"]["fingerprint"] == pool.fingerprint and blob.get("revision") == spec.revision


def write_timing(folder: ResultsFolder, slug: str, encoding: float, judging: float) -> None:
    """``open/timing/<slug>.json``: how long encoding took (machine-dependent, so apart from the results)."""
    import json

    from ..dataset.io import write_text_atomic

    write_text_atomic(folder.root / "open" / "timing" / f"{slug}.json",
                      json.dumps({"encode_and_search_seconds": encoding, "hook_judge_seconds": judging}) + "\n")


def evaluate_open(paths: Sequence[Path], args: argparse.Namespace, folder: ResultsFolder) -> int:
    """``execretrieval evaluate --open PRED...``: score ExecRetrievalOpen predictions."""
    from ..construction.wild.store import ensure_wild
    from ..dataset.wild import open_pool
    from ..results.open_results import OPEN_PREDICTIONS_FILE, evaluate_open_predictions, write_open_evaluation
    from ..mteb_task.data_source import load_built_source

    say = (lambda _m: None) if args.quiet else (lambda m: print(m, file=sys.stderr))
    pool = open_pool(load_built_source(args.data), ensure_wild(args.wild, say=say))
    for path in [p / OPEN_PREDICTIONS_FILE if p.is_dir() else p for p in paths]:
        evaluation = evaluate_open_predictions(path, pool, workers=args.workers, progress=not args.quiet,
                                               oracle_cache=folder.oracle_cache)
        written = write_open_evaluation(folder, evaluation, pool)
        say(f"{path}: {evaluation.report.model.name} -> {written}; wild pairs: "
            + ", ".join(f"{n} {j.value}" for j, n in evaluation.wild_counts().items() if n))
        means = evaluation.report.means()
        print(f"{evaluation.report.model.name} (open): " + " ".join(f"exec@{k} {means[f'exec_at_{k}']:.3f}"
                                                                   for k in (1, 3, 5, 10)))
    report = finish_open_report(folder, pool)
    if report is not None:
        print(f"closed vs open: {report}")
    return 0


def finish_open_report(folder: ResultsFolder, pool: OpenPool) -> Path | None:
    from ..results.open_results import finish_open

    return finish_open(folder, pool)
