"""The per-model result file of the open task (``open/evaluation/<org__model>.json``).

Like the closed task's evaluation file (``report``), with what the open pool adds: each listed
snippet's ``origin`` (``benchmark`` or ``wild``; a wild one with its package, version, file, line,
licence and the strong judge's ``judgement``), per query the scores with the strong judge
(``metrics``) and with the tests alone (``tests_only``), the share of the top k taken by wild code,
the rank-1 miss masses by cause and the wild deception flag (``analysis.open_pool``), and, over
the run, every correct wild function found and every one that fooled the tests. No timestamp or
path: the same evaluation writes the same bytes.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..evaluation.open_per_query import miss_masses, wild_deceived, wild_share_at_k
from ..dataset.io import write_text_atomic
from ..dataset.wild import OpenPool
from ..evaluation.metric_names import DEPTH, K_VALUES
from ..evaluation.model_report import identity_record
from ..evaluation.open_judge import WildJudgement
from ..evaluation.open_pipeline import OpenEvaluation

SCHEMA = "execretrieval-open-evaluation/1"


def _wild_fields(pool: OpenPool, cid: str) -> dict[str, Any]:
    w = pool.wild[cid]
    return {"function_name": w.function_name, "package": w.package, "version": w.version, "file": w.file,
            "line": w.line, "license": w.license}


def open_report_json(evaluation: OpenEvaluation, pool: OpenPool) -> dict[str, Any]:
    report = evaluation.report
    corpus = {c.corpus_id: c for c in pool.closed.corpus}
    closed_verdicts = evaluation.closed_checked.verdicts
    per_query = []
    found: list[dict[str, Any]] = []
    fooled: list[dict[str, Any]] = []
    for query in pool.closed.queries:
        qid = query.query_id
        ranking = report.rankings[qid]
        canonical = query.correct_corpus_ids[0]
        family = {canonical, *query.paired_distractor_corpus_ids}
        passing = report.passing.get(qid, frozenset())
        top = []
        for group in ranking.groups:
            for cid in group.ids:
                row: dict[str, Any] = {"rank": group.start + 1, "tie_group_size": group.size, "corpus_id": cid,
                                       "similarity": group.score}
                if cid in pool.wild:
                    verdict = evaluation.wild.get((qid, cid))
                    row.update(origin="wild", correct=verdict.passed if verdict else None,
                               passes_all_tests=verdict.passes_tests if verdict else None,
                               judgement=verdict.judgement.value if verdict else None, **_wild_fields(pool, cid))
                    if verdict and verdict.judgement in (WildJudgement.CORRECT, WildJudgement.FOOLS_TESTS):
                        entry = {"query_id": qid, "corpus_id": cid, "rank": group.start + 1, **_wild_fields(pool, cid),
                                 "validation_inputs": verdict.inputs, "disagreements": verdict.disagreements}
                        (found if verdict.passed else fooled).append(entry)
                else:
                    verdict_c = closed_verdicts.get((qid, cid))
                    record = corpus[cid]
                    row.update(origin="benchmark", label=record.label.value, bug_type=record.bug_type,
                               correct=verdict_c.passed if verdict_c else None,
                               passes_all_tests=verdict_c.passed if verdict_c else None)
                top.append(row)
        wild_ids = pool.wild.keys()
        per_query.append({
            "query_id": qid,
            "metrics": {key: values[qid] for key, values in report.scores.values.items()},
            "tests_only": {key: values[qid] for key, values in evaluation.tests_only.values.items()},
            "wild_share": {f"at_{k}": wild_share_at_k(ranking, wild_ids, k) for k in K_VALUES},
            "miss_mass": {c.value: m for c, m in miss_masses(ranking, passing, family, canonical, wild_ids).items()},
            "wild_deceived": wild_deceived(ranking, passing, wild_ids, canonical, DEPTH),
            "top_results": top,
        })
    counts = evaluation.wild_counts()
    return {
        "schema": SCHEMA,
        **identity_record(report.model),
        "dataset": {"fingerprint": report.dataset_fingerprint, "revision": report.dataset_revision,
                    "closed_fingerprint": pool.closed.fingerprint, "wild_fingerprint": pool.wild_fingerprint,
                    "validation_fingerprint": pool.validation_fingerprint,
                    "wild_functions": len(pool.wild)},
        "n_queries": len(report.query_ids),
        "depth": DEPTH,
        "metrics": report.means(),
        "tests_only_metrics": evaluation.tests_only.means(),
        "wild_pairs": {j.value: n for j, n in counts.items()},
        "closed_verdict_sources": {s.value: n for s, n in evaluation.closed_checked.counts().items()},
        "correct_wild_found": found,
        "fooled_the_tests": fooled,
        "per_query": per_query,
    }


def write_open_report(path: Path, blob: dict[str, Any]) -> None:
    write_text_atomic(path, json.dumps(blob, indent=1, sort_keys=True) + "\n")


def read_open_report(path: Path) -> dict[str, Any]:
    blob = json.loads(Path(path).read_text(encoding="utf-8"))
    if blob.get("schema") != SCHEMA:
        from ..errors import ExecRetrievalError

        raise ExecRetrievalError(f"{path}: not an open-task evaluation file ({SCHEMA}); rerun `execretrieval evaluate --open`")
    return blob
