"""The metrics this benchmark reports, as an enum, and their keys in MTEB's result JSON."""

from __future__ import annotations

import enum

K_VALUES: tuple[int, ...] = (1, 3, 5, 10)
DEPTH: int = max(K_VALUES)
"""How deep each ranking is checked by execution: the deepest k any metric reads."""


class Metric(enum.Enum):
    """Execution-aware metrics (and the tie-neutral nDCG) reported at each k in ``K_VALUES``."""

    EXEC = "exec"
    EXECUTION_PRECISION = "execution_precision"
    NDCG = "ndcg_tie_neutral"

    def key(self, k: int) -> str:
        """Score key as MTEB writes it, e.g. ``exec_at_1``."""
        return f"{self.value}_at_{k}"

    @property
    def label(self) -> str:
        """Column label for tables, e.g. ``exec@k``."""
        return {"exec": "exec", "execution_precision": "exec_prec", "ndcg_tie_neutral": "nDCG"}[self.value]


MAIN_SCORE: str = Metric.EXEC.key(1)
