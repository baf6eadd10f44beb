from __future__ import annotations

import math
from itertools import groupby

from mteb.abstasks.retrieval import AbsTaskRetrieval
from mteb.abstasks.task_metadata import TaskMetadata

_K_VALUES = (1, 3, 5, 10)


def _tie_groups(scores: dict[str, float]) -> list[list[str]]:
    """Retrieved documents grouped by equal score, best score first."""
    ordered = sorted(scores.items(), key=lambda item: -item[1])
    return [
        [doc for doc, _ in group]
        for _, group in groupby(ordered, key=lambda item: item[1])
    ]


def _discount(rank: int) -> float:
    return 1.0 / math.log2(rank + 1)


def _tie_neutral_at_k(
    groups: list[list[str]], relevant: set[str], k: int
) -> tuple[float, float, float]:
    """exec@k, execution_precision@k and nDCG@k of one query, as expectations.

    Each is the exact expectation under a uniformly random order inside every group of
    equal scores. For the group at ranks s+1..s+g, with p relevant documents and
    m = min(g, k - s) of its ranks inside the top k:

        P(none of its relevant documents in the top k) = C(g - p, m) / C(g, m)
        expected relevant documents in the top k       = m * p / g
        expected gain                                  = p * D(s+1, s+m) / g

    where D(a, b) = sum_{r=a}^{b} 1 / log2(r + 1). Then exec@k = 1 - the product of the
    first, execution_precision@k = the sum of the second / k, and nDCG@k = the sum of
    the third / D(1, min(k, number of relevant documents)).
    """
    miss, hits, gain, start = 1.0, 0.0, 0.0, 0
    for group in groups:
        if start >= k:
            break
        size = len(group)
        found = sum(1 for doc in group if doc in relevant)
        inside = min(size, k - start)
        if found:
            miss *= math.comb(size - found, inside) / math.comb(size, inside)
            hits += inside * found / size
            gain += found * (
                sum(_discount(r) for r in range(start + 1, start + inside + 1)) / size
            )
        start += size
    ideal = sum(_discount(r) for r in range(1, min(k, len(relevant)) + 1))
    return 1.0 - miss, hits / k, gain / ideal if ideal else 0.0


class ExecRetrieval(AbsTaskRetrieval):
    metadata = TaskMetadata(
        name="ExecRetrieval",
        description="Execution-verified Python code retrieval. Each query describes a function; the corpus holds every canonical implementation plus near-identical single-edit mutants (off-by-one, wrong operator, wrong comparison, swapped arguments, removed edge-case check) that fail the query's tests. exec@k asks whether a snippet passing all tests is in the top k.",
        reference="https://arxiv.org/abs/2609.01865",
        dataset={
            "path": "execretrieval/ExecRetrieval",
            "revision": "unreleased",
        },
        type="Retrieval",
        category="t2t",
        modalities=["text"],
        eval_splits=["test"],
        eval_langs=["eng-Latn", "python-Code"],
        main_score="exec_at_1",
        date=("2026-11-01", "2026-11-30"),
        domains=["Programming", "Written"],
        task_subtypes=["Code retrieval"],
        license="apache-2.0",
        annotations_creators="derived",
        dialect=[],
        sample_creation="created",
        bibtex_citation=r"""
@misc{kapoor2026execretrieval,
  archiveprefix = {arXiv},
  author = {Kapoor and Khan},
  eprint = {2609.01865},
  primaryclass = {cs.SE},
  title = {ExecRetrieval: Measuring the Functional-Correctness Gap in Code-Embedding Retrieval},
  url = {https://arxiv.org/abs/2609.01865},
  year = {2026},
}
""",
        prompt={
            "query": "Given a description of a Python function, retrieve a code snippet that implements it correctly"
        },
    )
    k_values = (1, 3, 5, 10, 20, 100)

    def task_specific_scores(  # noqa: PLR6301
        self,
        scores: dict[str, dict[str, float]],
        qrels: dict[str, dict[str, int]],
        results: dict[str, dict[str, float]],
        hf_split: str,
        hf_subset: str,
    ) -> dict[str, float]:
        """exec@k, execution_precision@k and tie-neutral nDCG@k, averaged over queries.

        Every snippet that passes all of a query's tests is relevant in the qrels (the
        dataset's build verifies by execution that exactly these pass), so exec@k is
        hit@k on the qrels. Unlike mteb's hit_rate and ndcg_at_k, which break equal
        scores by document id, ties count as the exact expectation under random order:
        a canonical tied with its own mutants cannot win by its id.
        """
        totals = {
            f"{name}_at_{k}": 0.0
            for k in _K_VALUES
            for name in ("exec", "execution_precision", "ndcg_tie_neutral")
        }
        for query_id, docs in qrels.items():
            relevant = {doc for doc, score in docs.items() if score > 0}
            groups = _tie_groups(results.get(query_id, {}))
            for k in _K_VALUES:
                hit, precision, ndcg = _tie_neutral_at_k(groups, relevant, k)
                totals[f"exec_at_{k}"] += hit
                totals[f"execution_precision_at_{k}"] += precision
                totals[f"ndcg_tie_neutral_at_{k}"] += ndcg
        return {key: value / max(len(qrels), 1) for key, value in totals.items()}
