"""The per-model result file (``evaluation/<org__model>.json``), in the original study's schema.

``metrics`` holds the means; ``per_query`` lists, for every query, its metric values and its
top results (rank, corpus_id, label, bug_type, similarity, passes_all_tests, test_results,
verdict_source). Snippets that share a score are listed in one tie group: ``rank`` is the group's
first rank and ``tie_group_size`` its size, since no order inside a group is meaningful. The
file also records the model's invocation (revision, prompts, similarity), the dataset's
fingerprint and revision, and how many pairs each verdict source decided. It holds no timestamp,
path or trace of what ran before (``recorded_source``), so the same evaluation always writes the
same bytes (``rescore`` relies on it).

``read_report`` turns the file back into a ``ModelReport`` for the leaderboard and the analyses.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..dataset.io import BuiltDataset, write_text_atomic
from ..errors import ExecRetrievalError
from ..evaluation.metric_names import DEPTH
from ..evaluation.model_report import ModelReport, identity_from_record, identity_record
from ..evaluation.pipeline import Evaluation
from ..evaluation.ranking import Ranking, TieGroup
from ..evaluation.scoring import PerQueryScores
from ..evaluation.verdicts import Pair, PairVerdict, VerdictSource

SCHEMA_VERSION = 2


class ReportError(ExecRetrievalError):
    """An evaluation file is unreadable; the message names it and the fix."""


def report_json(evaluation: Evaluation, dataset: BuiltDataset) -> dict[str, Any]:
    """The file's content for one evaluation."""
    report = evaluation.report
    verdicts: Mapping[Pair, PairVerdict] = evaluation.checked.verdicts
    corpus = {c.corpus_id: c for c in dataset.corpus}
    per_query = []
    for query in dataset.queries:
        qid = query.query_id
        top = []
        for group in report.rankings[qid].groups:
            for cid in group.ids:
                verdict = verdicts.get((qid, cid))
                record = corpus[cid]
                top.append({
                    "rank": group.start + 1,
                    "tie_group_size": group.size,
                    "corpus_id": cid,
                    "label": record.label.value,
                    "bug_type": record.bug_type,
                    "similarity": group.score,
                    "passes_all_tests": verdict.passed if verdict else None,
                    "test_results": [o.to_str() for o in verdict.outcomes] if verdict and verdict.outcomes else None,
                    "verdict_source": recorded_source(verdict.source).value if verdict else None,
                })
        per_query.append({
            "query_id": qid,
            "domain": query.domain,
            "function_name": query.function_name,
            "metrics": {key: values[qid] for key, values in report.scores.values.items()},
            "top_results": top,
        })
    return {
        "schema_version": SCHEMA_VERSION,
        **identity_record(report.model),
        "dataset": {"fingerprint": report.dataset_fingerprint, "revision": report.dataset_revision},
        "n_queries": len(report.query_ids),
        "depth": DEPTH,
        "metrics": report.means(),
        "verdict_sources": recorded_counts(evaluation.checked.counts()),
        "per_query": per_query,
    }


def recorded_source(source: VerdictSource) -> VerdictSource:
    """The source a file records: a verdict from the local oracle cache is the oracle's verdict.

    Whether the oracle ran a suite now or an earlier run of the folder cached its verdict depends
    on what ran before (even within one run, on the order of its models); the file must not, so
    that a rerun or ``rescore`` writes the same bytes. The console still says how many came from
    the cache.
    """
    return VerdictSource.ORACLE if source is VerdictSource.LOCAL_CACHE else source


def recorded_counts(counts: Mapping[VerdictSource, int]) -> dict[str, int]:
    """Distinct pairs per recorded source (``recorded_source``)."""
    merged = {recorded_source(s).value: 0 for s in VerdictSource}
    for source, n in counts.items():
        merged[recorded_source(source).value] += n
    return merged


def write_report(path: Path, blob: Mapping[str, Any]) -> None:
    write_text_atomic(path, json.dumps(blob, indent=1, sort_keys=True) + "\n")


def not_judged(blob: Mapping[str, Any]) -> int:
    """How many pairs of the file the oracle could not judge."""
    return int((blob.get("verdict_sources") or {}).get(VerdictSource.NOT_JUDGED.value, 0))


def read_report(path: Path) -> ModelReport:
    """A ``ModelReport`` from an evaluation file written by ``write_report``."""
    try:
        blob = json.loads(Path(path).read_text(encoding="utf-8"))
        if blob.get("schema_version") != SCHEMA_VERSION:
            raise ValueError(f"schema_version {blob.get('schema_version')!r}, expected {SCHEMA_VERSION}")
        rankings: dict[str, Ranking] = {}
        passing: dict[str, frozenset[str]] = {}
        values: dict[str, dict[str, float]] = {}
        for row in blob["per_query"]:
            qid = row["query_id"]
            groups: dict[int, list[dict[str, Any]]] = {}
            for item in row["top_results"]:
                groups.setdefault(item["rank"], []).append(item)
            rankings[qid] = Ranking(groups=tuple(
                TieGroup(start=rank - 1, score=float(items[0]["similarity"]), ids=tuple(i["corpus_id"] for i in items))
                for rank, items in sorted(groups.items())
            ))
            passing[qid] = frozenset(i["corpus_id"] for i in row["top_results"] if i["passes_all_tests"])
            for key, value in row["metrics"].items():
                values.setdefault(key, {})[qid] = float(value)
        query_ids = tuple(row["query_id"] for row in blob["per_query"])
        return ModelReport(
            model=identity_from_record(blob),
            dataset_fingerprint=blob["dataset"]["fingerprint"],
            dataset_revision=blob["dataset"]["revision"],
            query_ids=query_ids,
            scores=PerQueryScores(query_ids=query_ids, values=values),
            rankings=rankings,
            passing=passing,
        )
    except FileNotFoundError:
        raise ReportError(f"{path}: evaluation file missing; run `execretrieval run` or `execretrieval evaluate`") from None
    except (json.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
        raise ReportError(
            f"{path}: not an evaluation file this version can read ({type(exc).__name__}: {exc}); "
            "re-create it with `execretrieval evaluate` or `execretrieval rescore`"
        ) from None
