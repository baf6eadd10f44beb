"""``execretrieval run``: evaluate models on ExecRetrieval through mteb, then check the top 10 by execution.

With no ``-m`` it runs, fully offline, the embedded all-MiniLM-L6-v2 and the code-aware BM25 on the
bundled dataset. For each model: mteb evaluates the ``ExecRetrieval`` task (MTEB result JSON with
exec@k from the execution cache, per-query predictions); then every snippet that can appear in a
query's top 10 (whole tie groups) is checked, from the dataset's execution cache first and through
the oracle for pairs the cache lacks; the per-query report and the leaderboard are written and the
table printed. Output folder layout::

    OUT/leaderboard.md, OUT/leaderboard.json        every model evaluated into OUT on this dataset
    OUT/mteb/results/<org__model>/<revision>/ExecRetrieval.json   MTEB's result files
    OUT/predictions/<org__model>/ExecRetrieval_predictions.json   per-query scores (MTEB format)
    OUT/evaluation/<org__model>.json                per-query metrics and top 10 with test outcomes
    OUT/oracle-cache.sqlite                         the oracle's verdicts for pairs the dataset's cache lacks
"""

from __future__ import annotations

import argparse
import hashlib
import json
import logging
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import ExecRetrievalError, UsageError

if TYPE_CHECKING:
    from ..evaluation.leaderboard import LeaderboardRow
    from ..mteb_task.task import ExecRetrieval

HELP = "Evaluate models on ExecRetrieval (default: embedded all-MiniLM-L6-v2 and BM25, offline) and print the leaderboard."
DEFAULT_OUTPUT = Path("execretrieval-results")
BM25_NAME = "bm25"
CHECK_DEPTH = 10


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "-m", "--model", dest="models", action="append", metavar="NAME",
        help="model to evaluate (repeatable): 'all-MiniLM-L6-v2' (embedded, offline), 'bm25', any model name "
             "mteb knows (e.g. Qwen/Qwen3-Embedding-8B), or a local sentence-transformers directory. "
             "Default: all-MiniLM-L6-v2 and bm25.",
    )
    parser.add_argument("--data", default=None, metavar="DIR|bundled|hub",
                        help="dataset: 'bundled' (default, offline), 'hub', or a directory made by `execretrieval build` "
                             "or an unpacked original release")
    parser.add_argument("-o", "--output-folder", type=Path, default=DEFAULT_OUTPUT,
                        help=f"where results go (default: ./{DEFAULT_OUTPUT})")
    parser.add_argument("--batch-size", type=int, default=32, help="encoding batch size (default 32)")
    parser.add_argument("--device", default=None, help="torch device for dense models (default: cuda if available, else cpu)")
    parser.add_argument("--workers", type=int, default=None, help="oracle workers for pairs missing from the cache")


def _resolve_model(name: str, device: str | None) -> Any:
    """An mteb-ready model for ``-m NAME``: bm25, the embedded default, a local directory, or mteb's registry."""
    from ..mteb_task.bm25 import CodeBM25Search
    from ..mteb_task.default_model import MODEL_NAME, SHORT_NAME, load_default_model

    if name.lower() == BM25_NAME:
        return CodeBM25Search()
    if name == SHORT_NAME:
        return load_default_model(device)
    path = Path(name).expanduser()
    if path.is_dir():
        from mteb.models.sentence_transformer_wrapper import SentenceTransformerEncoderWrapper
        from sentence_transformers import SentenceTransformer

        model = SentenceTransformer(str(path), device=device, local_files_only=True)
        wrapper = SentenceTransformerEncoderWrapper(model)
        name_update = {"name": f"local/{path.resolve().name}", "revision": "local"}
        wrapper.mteb_model_meta = wrapper.mteb_model_meta.model_copy(update=name_update)
        return wrapper
    import mteb

    try:
        return mteb.get_model(name, device=device)
    except Exception as exc:  # noqa: BLE001 - any loading failure is a user-fixable model choice
        reason = (str(exc).splitlines() or [""])[0]
        hint = f" (offline? the embedded default is '{SHORT_NAME}')" if name == MODEL_NAME else ""
        raise UsageError(f"cannot load model {name!r}: {type(exc).__name__}: {reason}{hint}") from None


def _dataset_fingerprint(root: Path) -> str:
    """sha256 over the study-schema files, so a leaderboard never mixes datasets."""
    from ..dataset.io import CORPUS, EXECUTION_CACHE, QUERIES, data_dir

    digest = hashlib.sha256()
    base = data_dir(root)
    for name in (QUERIES, CORPUS, EXECUTION_CACHE):
        path = base / name
        digest.update(name.encode() + b"\0" + (path.read_bytes() if path.is_file() else b""))
    return digest.hexdigest()


def _evaluate_model(
    model: Any, task: ExecRetrieval, out: Path, batch_size: int, workers: int | None, fingerprint: str
) -> dict[str, Any]:
    """mteb evaluation (results + predictions), then the execution check of the top 10 and the report."""
    import mteb

    from ..evaluation.predictions import read_predictions
    from ..evaluation.report import build_report, write_report
    from ..evaluation.scoring import score_rankings
    from ..evaluation.verdicts import VerdictSource, check_pairs, passing_from_verdicts

    meta = model.mteb_model_meta
    slug = meta.model_name_as_path()
    prediction_folder = out / "predictions" / slug
    mteb.evaluate(
        model,
        task,
        cache=mteb.ResultCache(out / "mteb"),
        prediction_folder=prediction_folder,
        overwrite_strategy="always",
        encode_kwargs={"batch_size": batch_size, "show_progress_bar": True},
        co2_tracker=False,
    )
    predictions = read_predictions(prediction_folder / task.prediction_file_name)
    built = task.built
    pairs = [(qid, cid) for qid, ranking in predictions.rankings.items() for cid in ranking.candidates(CHECK_DEPTH)]
    verdicts = check_pairs(built, pairs, workers=workers, progress=True, oracle_cache=out / "oracle-cache.sqlite")
    query_ids = [q.query_id for q in built.queries]
    relevant = {q.query_id: frozenset(q.correct_corpus_ids) for q in built.queries}
    scores = score_rankings(query_ids, predictions.rankings, passing_from_verdicts(query_ids, verdicts), relevant)
    report = build_report(
        model_name=meta.name, model_revision=meta.revision, dataset=built, rankings=predictions.rankings,
        scores=scores, verdicts=verdicts, depth=CHECK_DEPTH,
    )
    report["dataset"] = {"source": task.source.describe(), "fingerprint": fingerprint}
    report["oracle_checked_pairs"] = sum(1 for v in verdicts.values() if v.source is VerdictSource.ORACLE)
    report["oracle_not_judged_pairs"] = sum(1 for v in verdicts.values() if v.source is VerdictSource.NOT_JUDGED)
    write_report(out / "evaluation" / f"{slug}.json", report)
    return report


def _leaderboard_rows(out: Path, fingerprint: str) -> list[LeaderboardRow]:
    """Every model evaluated into ``out`` on this very dataset (earlier runs included)."""
    from ..evaluation.leaderboard import LeaderboardRow

    rows = []
    for path in sorted((out / "evaluation").glob("*.json")):
        try:
            report = json.loads(path.read_text(encoding="utf-8"))
        except json.JSONDecodeError:
            continue
        if (report.get("dataset") or {}).get("fingerprint") != fingerprint:
            continue
        rows.append(LeaderboardRow(report["model"], report.get("revision"), report["n_queries"], report["metrics"]))
    return rows


def run(args: argparse.Namespace) -> int:
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    logging.getLogger("mteb").setLevel(logging.WARNING)
    from ..evaluation.leaderboard import format_table, write_leaderboard
    from ..mteb_task.default_model import SHORT_NAME
    from ..mteb_task.registration import ensure_registered
    from ..mteb_task.task import ExecRetrieval

    names = args.models or [SHORT_NAME, BM25_NAME]
    if args.batch_size < 1:
        raise UsageError(f"--batch-size must be positive, got {args.batch_size}")
    ensure_registered()
    task = ExecRetrieval(data=args.data)
    task.load_data()
    fingerprint = _dataset_fingerprint(task.built.root)
    out: Path = args.output_folder
    out.mkdir(parents=True, exist_ok=True)
    print(f"execretrieval run: {len(task.built.queries)} queries, {len(task.built.corpus)} snippets "
          f"({task.source.describe()}); results in {out}/", file=sys.stderr)
    for index, name in enumerate(names, 1):
        print(f"[{index}/{len(names)}] {name}", file=sys.stderr)
        model = _resolve_model(name, args.device)
        report = _evaluate_model(model, task, out, args.batch_size, args.workers, fingerprint)
        if report["oracle_checked_pairs"]:
            print(f"  {report['oracle_checked_pairs']} top-10 pairs were not in the execution cache; ran them through the oracle",
                  file=sys.stderr)
        if report["oracle_not_judged_pairs"]:
            print(f"  {report['oracle_not_judged_pairs']} top-10 pairs could not be judged (oracle infrastructure errors; "
                  "counted as failing; see `execretrieval oracle selfcheck`)", file=sys.stderr)
    rows = _leaderboard_rows(out, fingerprint)
    if not rows:
        raise ExecRetrievalError(f"{out}/evaluation: no results for this dataset were written")
    write_leaderboard(out, rows)
    print(format_table(rows), end="")
    print(f"\nleaderboard: {out / 'leaderboard.md'}; per-query results: {out / 'evaluation'}/; "
          f"MTEB results: {out / 'mteb' / 'results'}/", file=sys.stderr)
    return 0
