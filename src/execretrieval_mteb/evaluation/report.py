"""The per-model result file, in the original study's ``results/<model>.json`` schema.

``metrics`` holds the means; ``per_query`` lists, for every query, its metric values and its
top results (rank, corpus_id, label, bug_type, similarity, passes_all_tests, test_results).
Snippets that share a score are listed in one tie group: ``rank`` is the group's first rank and
``tie_group_size`` its size, since no order inside a group is meaningful.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..dataset.io import BuiltDataset, write_text_atomic
from .ranking import Ranking
from .scoring import PerQueryScores
from .verdicts import Pair, PairVerdict


def build_report(
    *,
    model_name: str,
    model_revision: str | None,
    dataset: BuiltDataset,
    rankings: Mapping[str, Ranking],
    scores: PerQueryScores,
    verdicts: Mapping[Pair, PairVerdict],
    depth: int,
) -> dict[str, Any]:
    """Assemble the report; ``depth`` is how many ranks (widened to whole tie groups) are listed."""
    corpus = {c.corpus_id: c for c in dataset.corpus}
    per_query = []
    for query in dataset.queries:
        ranking = rankings.get(query.query_id, Ranking(groups=()))
        top = []
        for group in ranking.groups_within(depth):
            for cid in group.ids:
                verdict = verdicts.get((query.query_id, cid))
                record = corpus[cid]
                top.append({
                    "rank": group.start + 1,
                    "tie_group_size": group.size,
                    "corpus_id": cid,
                    "label": record.label.value,
                    "bug_type": record.bug_type,
                    "similarity": group.score,
                    "passes_all_tests": verdict.passed if verdict else None,
                    "test_results": [o.to_str() for o in verdict.outcomes] if verdict else None,
                    "verdict_source": verdict.source.value if verdict else None,
                })
        per_query.append({
            "query_id": query.query_id,
            "domain": query.domain,
            "function_name": query.function_name,
            "metrics": {key: values[query.query_id] for key, values in scores.values.items()},
            "top_results": top,
        })
    return {
        "model": model_name,
        "revision": model_revision,
        "n_queries": len(scores.query_ids),
        "metrics": scores.means(),
        "per_query": per_query,
    }


def write_report(path: Path, report: Mapping[str, Any]) -> None:
    write_text_atomic(path, json.dumps(report, indent=1, sort_keys=True) + "\n")
