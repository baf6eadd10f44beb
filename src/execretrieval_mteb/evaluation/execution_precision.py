"""execution_precision@k: the share of the top k that passes all of the query's tests.

Per query, execution_precision@k = (number of top-k snippets passing every test) / k, also when
fewer than k snippets were retrieved; the reported value is the unweighted mean over queries.
Under the neutral tie rule (see ``ranking``) the group straddling rank k, with ``g`` members of
which ``p`` pass and ``m = k - start`` of its slots in the top k, contributes ``m * p / g``
(linearity of expectation)::

    E[execution_precision@k] = ( sum over full groups of p  +  m * p_straddling / g ) / k
"""

from __future__ import annotations

from collections.abc import Collection

from .ranking import Ranking


def expected_execution_precision_at_k(ranking: Ranking, passing: Collection[str], k: int) -> float:
    """Exact expected execution_precision@k of one query under random tie-breaking."""
    total = 0.0
    for group in ranking.groups_within(k):
        hits = sum(1 for cid in group.ids if cid in passing)
        inside = min(group.end, k) - group.start
        total += inside * hits / group.size
    return total / k
