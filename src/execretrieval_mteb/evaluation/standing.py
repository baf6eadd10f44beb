"""How models stand against each other: the leaderboard's order and its significance threshold.

One definition for every table that ranks models (``leaderboard.md``, the analysis' ``report.md``
and pairwise orientation, the dataset card, the static site, the reference results)::

    order:  best exec@1 first, then exec@3, exec@5, exec@10 (``K_VALUES``); the model name only
            breaks exact ties (so the order never depends on the order models were evaluated in)
    differs from the row above:  Holm-adjusted p of the paired test < ALPHA

It lives here, with the metrics it orders by, because both the statistics (``analysis``) and the
results (``results``) need it, and the statistics sit below the results.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import TypeVar

from .metric_names import K_VALUES, Metric

ALPHA: float = 0.05
"""Holm-adjusted p below this: the two models differ (the "differs from the row above" flag)."""

ORDER_KEYS: tuple[str, ...] = tuple(Metric.EXEC.key(k) for k in K_VALUES)
"""The metrics rows are sorted by, in order of precedence."""

T = TypeVar("T")


def standing_key(model: str, means: Mapping[str, float]) -> tuple[float | str, ...]:
    """Sort key of a model: higher means first on each of ``ORDER_KEYS`` (missing counts as 0), then the name."""
    return (*(-float(means.get(key, 0.0)) for key in ORDER_KEYS), model)


def in_standing_order(items: Iterable[T], model: Callable[[T], str], means: Callable[[T], Mapping[str, float]]) -> list[T]:
    """``items`` in leaderboard order, each read through ``model`` (its name) and ``means`` (its metric means)."""
    return sorted(items, key=lambda item: standing_key(model(item), means(item)))


def differs(p_holm: float | None) -> bool | None:
    """Whether a Holm-adjusted p marks a difference (None when the pair was not tested)."""
    return None if p_holm is None else p_holm < ALPHA
