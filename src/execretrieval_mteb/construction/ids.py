"""Deterministic, information-free ids: ``q_NNNN``, ``c_NNNN`` and, for stacked mutants, ``s_NNNN``.

Queries are numbered in the order of a seeded hash of their target name, so ids say nothing
about domain or file order. Each query's snippets get consecutive corpus ids in the order of a
seeded hash of their code, so the canonical is not predictably first (or last) of its block: a
ranking that breaks score ties by id gains nothing. Same input and seed, same ids.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .selection import seeded_key

MIN_DIGITS = 4


@dataclass(frozen=True)
class QueryIds:
    """Ids of one task: its query id and its snippets' corpus ids, aligned with the input codes."""

    query_id: str
    snippet_ids: tuple[str, ...]


def _width(count: int) -> int:
    return max(MIN_DIGITS, len(str(max(count - 1, 0))))


def assign_ids(tasks: Sequence[tuple[str, Sequence[str]]], seed: int) -> list[QueryIds]:
    """Ids for tasks given as (unique key, snippet codes); the result is aligned with ``tasks``."""
    order = sorted(range(len(tasks)), key=lambda i: seeded_key(seed, "query", tasks[i][0]))
    query_width = _width(len(tasks))
    corpus_width = _width(sum(len(codes) for _, codes in tasks))
    assigned: dict[int, QueryIds] = {}
    next_corpus = 0
    for rank, index in enumerate(order):
        key, codes = tasks[index]
        snippet_order = sorted(range(len(codes)), key=lambda j: seeded_key(seed, "snippet", key, codes[j]))
        snippet_ids = [""] * len(codes)
        for j in snippet_order:
            snippet_ids[j] = f"c_{next_corpus:0{corpus_width}d}"
            next_corpus += 1
        assigned[index] = QueryIds(f"q_{rank:0{query_width}d}", tuple(snippet_ids))
    return [assigned[i] for i in range(len(tasks))]


def assign_stacked_ids(items: Sequence[tuple[str, str]], seed: int) -> list[str]:
    """``s_NNNN`` ids for stacked mutants given as (task key, code), aligned with ``items``.

    A namespace of their own (stacked mutants are never corpus items), numbered in the order of a
    seeded hash of task key and code, so an id says nothing about the task, its size or its edits.
    """
    order = sorted(range(len(items)), key=lambda i: seeded_key(seed, "stacked", *items[i]))
    width = _width(len(items))
    ids = [""] * len(items)
    for rank, index in enumerate(order):
        ids[index] = f"s_{rank:0{width}d}"
    return ids
