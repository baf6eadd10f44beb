"""nDCG@k against the query's correct snippets (binary relevance), tie-neutral.

With relevance 1 for each correct snippet and 0 otherwise::

    DCG@k  = sum over correct snippets d with rank(d) <= k of 1 / log2(rank(d) + 1)
    IDCG@k = sum_{r=1}^{min(k, R)} 1 / log2(r + 1),   R = number of correct snippets
    nDCG@k = DCG@k / IDCG@k

Under the neutral tie rule (see ``ranking``) a snippet in a group occupying ranks
``s+1 .. s+g`` is at each of them with probability 1/g, so by linearity::

    E[DCG@k] = sum over correct d in group G of (1 / g_G) * sum_{r=s_G+1}^{min(s_G+g_G, k)} 1 / log2(r + 1)

(mteb's own ``ndcg_at_k``, from pytrec_eval, breaks ties by document id instead; both are reported.)
"""

from __future__ import annotations

import math
from collections.abc import Collection

from .ranking import Ranking


def _discount(rank: int) -> float:
    return 1.0 / math.log2(rank + 1)


def expected_ndcg_at_k(ranking: Ranking, relevant: Collection[str], k: int) -> float:
    """Exact expected nDCG@k of one query under random tie-breaking (0 when nothing is relevant)."""
    if not relevant:
        return 0.0
    ideal = sum(_discount(r) for r in range(1, min(k, len(relevant)) + 1))
    gain = 0.0
    for group in ranking.groups_within(k):
        hits = sum(1 for cid in group.ids if cid in relevant)
        if hits:
            mean_discount = sum(_discount(r) for r in range(group.start + 1, min(group.end, k) + 1)) / group.size
            gain += hits * mean_discount
    return gain / ideal
