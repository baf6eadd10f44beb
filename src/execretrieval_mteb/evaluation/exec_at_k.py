"""exec@k: does a snippet passing all of the query's tests appear among the top k?

Per query, exec@k = 1 if some snippet among the top k passes every test, else 0; the reported
value is the unweighted mean over queries. Under the neutral tie rule (see ``ranking``) this is
the exact expectation over random orders within tie groups. Groups entirely inside the top k
contribute with certainty; for the group straddling rank k, with ``g`` members of which ``p``
pass and ``m = k - start`` of its slots inside the top k::

    P(some passing snippet in top k) = 1                                  if a full group has one
                                     = 1 - C(g - p, m) / C(g, m)           otherwise
"""

from __future__ import annotations

from collections.abc import Collection

from scipy.special import comb

from .ranking import Ranking


def expected_exec_at_k(ranking: Ranking, passing: Collection[str], k: int) -> float:
    """Exact expected exec@k of one query under random tie-breaking."""
    for group in ranking.groups_within(k):
        hits = sum(1 for cid in group.ids if cid in passing)
        if hits == 0:
            continue
        if group.end <= k:
            return 1.0
        slots = k - group.start
        return float(1.0 - comb(group.size - hits, slots, exact=True) / comb(group.size, slots, exact=True))
    return 0.0
