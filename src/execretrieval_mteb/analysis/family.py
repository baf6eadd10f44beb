"""The dataset seen as families: each query's canonical and its own mutants, as aligned arrays.

A query's family is its canonical (``correct_corpus_ids[0]``) and its paired mutants
(``paired_distractor_corpus_ids``, four in this benchmark, three for one task of the original
release). Every family-level analysis (gap, deception, family accuracy, pool density, the medoid
baseline, the geometric chance level) works on the same (query x member) grid, so it is built once
here: row ``i`` is ``query_ids[i]``, column ``j`` of ``mutant_ids`` its ``j``-th mutant, padded with
``""`` (and ``mutant_mask`` False) where a family has fewer mutants than the widest one.

A corpus row belongs to the family whose ``entry_id`` equals its ``source_entry_id``: a snippet of
another family is "another task's snippet" (a mutant) or "another canonical" (``label`` correct).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from ..dataset.io import BuiltDataset
from ..dataset.schema import CorpusRecord


@dataclass(frozen=True)
class Families:
    query_ids: tuple[str, ...]
    entry_ids: tuple[str, ...]
    domains: tuple[str, ...]
    canonical_ids: tuple[str, ...]
    mutant_ids: np.ndarray
    """(n_queries, width) object array of corpus ids, ``""`` where absent."""
    mutant_mask: np.ndarray
    """(n_queries, width) bool: a real mutant in that slot."""
    bug_types: np.ndarray
    """(n_queries, width) object array: each mutant's bug type (``""`` where absent or unknown)."""
    corpus: Mapping[str, CorpusRecord]
    _columns: dict[tuple[str, ...], tuple[np.ndarray, np.ndarray]] = field(default_factory=dict, compare=False, repr=False)

    @classmethod
    def from_dataset(cls, dataset: BuiltDataset) -> Families:
        corpus = {c.corpus_id: c for c in dataset.corpus}
        queries = dataset.queries
        width = max((len(q.paired_distractor_corpus_ids) for q in queries), default=0)
        mutants = np.full((len(queries), width), "", dtype=object)
        bug_types = np.full((len(queries), width), "", dtype=object)
        for i, query in enumerate(queries):
            for j, cid in enumerate(query.paired_distractor_corpus_ids):
                mutants[i, j] = cid
                record = corpus.get(cid)
                bug_types[i, j] = (record.bug_type if record is not None else None) or ""
        return cls(
            query_ids=tuple(q.query_id for q in queries),
            entry_ids=tuple(q.entry_id for q in queries),
            domains=tuple(q.domain or "unknown" for q in queries),
            canonical_ids=tuple(q.correct_corpus_ids[0] for q in queries),
            mutant_ids=mutants,
            mutant_mask=mutants != "",
            bug_types=bug_types,
            corpus=corpus,
        )

    @property
    def size(self) -> int:
        return len(self.query_ids)

    @property
    def width(self) -> int:
        return int(self.mutant_ids.shape[1])

    def index(self) -> dict[str, int]:
        """Query id -> row."""
        return {qid: i for i, qid in enumerate(self.query_ids)}

    def members(self, row: int) -> tuple[str, ...]:
        """The canonical, then the real mutants, of one family."""
        return (self.canonical_ids[row], *(str(c) for c in self.mutant_ids[row][self.mutant_mask[row]]))

    def columns(self, corpus_ids: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        """Where each canonical (n,) and mutant (n, width) sits in a matrix over ``corpus_ids``; -1 if absent.
        Memoised per id list: every model's matrix usually shares one."""
        key = tuple(corpus_ids)
        if key not in self._columns:
            where = {cid: j for j, cid in enumerate(key)}
            canon = np.fromiter((where.get(c, -1) for c in self.canonical_ids), dtype=np.int64, count=self.size)
            muts = np.fromiter((where.get(str(c), -1) if c else -1 for c in self.mutant_ids.ravel()),
                               dtype=np.int64, count=self.mutant_ids.size).reshape(self.mutant_ids.shape)
            self._columns[key] = (canon, muts)
        return self._columns[key]

    def bug_type_names(self) -> list[str]:
        """Bug types present, sorted (the order of every per-type table)."""
        return sorted({str(t) for t in self.bug_types[self.mutant_mask]})
