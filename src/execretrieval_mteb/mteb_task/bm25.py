"""The BM25 baseline (rank-bm25's Okapi BM25, k1 = 1.5, b = 0.75) as an mteb search model.

Code tokenizer (``code_tokens``), applied to snippets and queries alike:

- identifiers and words, lower-cased, plus their snake_case / camelCase parts
  (``max_gap`` -> ``max_gap``, ``max``, ``gap``);
- number literals as written (``0xFF``, ``1e-9``, ``10``);
- operators and punctuation as tokens of their own, longest match first
  (``<=`` is one token, distinct from ``<`` and ``=``; ``**=``, ``//``, ``->``, ``!=`` ...).

So a mutant that turns ``<`` into ``<=`` or ``+ 1`` into ``- 1`` gets a different bag of tokens
from its canonical; a mutant that only swaps two arguments does not, and ties with it exactly:
the metrics' neutral tie rule (``evaluation.ranking``) handles such ties.

Scores are those of ``rank_bm25.BM25Okapi.get_scores`` (same fitted idf, document lengths and
formula), evaluated for all documents at once through a sparse matrix instead of rank-bm25's
per-document Python loop. The model goes through the same mteb path as dense models: mteb calls
``index`` and ``search``, saves the predictions, and runs the task's metric hook.

It is also an entry of mteb's model registry (``MODEL_NAME``, added by the package's start-up hook,
see ``registration``), so ``mteb run -m execretrieval-mteb/bm25-code -t ExecRetrieval`` reproduces
it and its results are filed under that name and a revision naming rank-bm25's version, k1 and b.
"""

from __future__ import annotations

import re
from collections import Counter
from importlib.metadata import version
from typing import TYPE_CHECKING, Any

import numpy as np
from rank_bm25 import BM25Okapi
from scipy import sparse

if TYPE_CHECKING:
    from mteb.models.model_meta import ModelMeta

K1 = 1.5
B = 0.75
MODEL_NAME = "execretrieval-mteb/bm25-code"
RELEASE_DATE = "2026-11-01"

_OPERATORS = (
    "**=", "//=", ">>=", "<<=", "...",
    "==", "!=", "<=", ">=", "->", "**", "//", "<<", ">>", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", ":=", "@=",
)
_TOKEN = re.compile(
    r"0[xXbBoO][0-9a-fA-F_]+|\d[\d_]*(?:\.\d*)?(?:[eE][+-]?\d+)?|[^\W\d]\w*|"
    + "|".join(re.escape(op) for op in _OPERATORS)
    + r"|[^\w\s]"
)
_PARTS = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")


def code_tokens(text: str) -> list[str]:
    """Tokens of code or prose: words (plus their sub-words), numbers, operators and punctuation."""
    tokens: list[str] = []
    for token in _TOKEN.findall(text):
        if token[0].isalpha() or token[0] == "_":
            tokens.append(token.lower())
            parts = _PARTS.findall(token)
            if len(parts) > 1:
                tokens.extend(part.lower() for part in parts)
        else:
            tokens.append(token.lower() if token[0].isdigit() else token)
    return tokens


def model_meta(k1: float = K1, b: float = B) -> ModelMeta:
    """mteb's metadata of the baseline: name, revision (rank-bm25's version, k1, b), framework, loader."""
    from mteb.models.model_meta import ModelMeta

    return ModelMeta(
        loader=load_bm25,
        loader_kwargs={} if (k1, b) == (K1, B) else {"k1": k1, "b": b},
        name=MODEL_NAME,
        revision=f"rank-bm25-{version('rank-bm25')}-k1-{k1}-b-{b}",
        release_date=RELEASE_DATE,
        languages=["eng-Latn", "python-Code"],
        n_parameters=0,
        n_embedding_parameters=0,
        memory_usage_mb=None,
        max_tokens=None,
        embed_dim=None,
        license="apache-2.0",
        open_weights=True,
        public_training_code=None,
        public_training_data=None,
        framework=["NumPy"],
        reference="https://github.com/dorianbrown/rank_bm25",
        similarity_fn_name=None,
        use_instructions=False,
        training_datasets=set(),
        model_type=["sparse"],
    )


def load_bm25(model_name: str = MODEL_NAME, revision: str | None = None, device: str | None = None,
              k1: float = K1, b: float = B, **kwargs: Any) -> CodeBM25Search:
    """mteb's loader for the registry entry (``device`` and other encoder arguments do not apply)."""
    return CodeBM25Search(k1=k1, b=b)


class CodeBM25Search:
    """mteb ``SearchProtocol`` model: rank-bm25 Okapi BM25 over ``code_tokens``."""

    def __init__(self, k1: float = K1, b: float = B) -> None:
        self.k1 = k1
        self.b = b
        self.mteb_model_meta: ModelMeta = model_meta(k1, b)
        self._bm25: BM25Okapi | None = None
        self._weights: sparse.csr_matrix | None = None  # documents x vocabulary, BM25 term contributions
        self._vocab: dict[str, int] = {}
        self._ids: list[str] = []

    def index(self, corpus: Any, *, task_metadata: Any = None, hf_split: str = "", hf_subset: str = "",
              encode_kwargs: Any = None, num_proc: int | None = None, **kwargs: Any) -> None:
        """Fit BM25Okapi on the corpus and precompute every (document, term) contribution."""
        self._ids = [str(row["id"]) for row in corpus]
        documents = [code_tokens("\n".join(filter(None, [row.get("title") or "", row["text"]]))) for row in corpus]
        self._bm25 = BM25Okapi(documents, k1=self.k1, b=self.b)
        self._vocab = {term: i for i, term in enumerate(sorted(self._bm25.idf))}
        self._weights = self._term_weights(self._bm25.doc_freqs, self._bm25.doc_len)

    def _term_weights(self, doc_freqs: list[dict[str, int]], doc_len: list[int]) -> sparse.csr_matrix:
        """documents x vocabulary matrix of BM25 contributions, with the fitted idf and average length."""
        assert self._bm25 is not None
        rows, cols, values = [], [], []
        lengths = np.asarray(doc_len, dtype=float)
        norms = self.k1 * (1 - self.b + self.b * lengths / self._bm25.avgdl)
        for d, freqs in enumerate(doc_freqs):
            for term, tf in freqs.items():
                if term in self._vocab:  # a term the fitted corpus never saw has no idf: it adds nothing
                    rows.append(d)
                    cols.append(self._vocab[term])
                    values.append(self._bm25.idf[term] * tf * (self.k1 + 1) / (tf + norms[d]))
        return sparse.csr_matrix((values, (rows, cols)), shape=(len(doc_freqs), len(self._vocab)))

    def score_extra(self, queries: list[str], texts: list[str]) -> np.ndarray:
        """queries x texts scores of documents *outside* the index, with the index's idf and average
        length (as if each were scored against the fitted corpus without changing it)."""
        tokens = [code_tokens(t) for t in texts]
        weights = self._term_weights([Counter(t) for t in tokens], [len(t) for t in tokens])
        return np.vstack([np.asarray(weights @ self._query_vector(q)).ravel() for q in queries])

    def _query_vector(self, query: str) -> np.ndarray:
        counts = Counter(t for t in code_tokens(query) if t in self._vocab)
        vector = np.zeros(len(self._vocab))
        for term, count in counts.items():
            vector[self._vocab[term]] = count
        return vector

    def scores(self, query: str) -> np.ndarray:
        """BM25 score of every indexed document for one query (equal to ``BM25Okapi.get_scores``)."""
        if self._weights is None:
            raise RuntimeError("CodeBM25Search.scores called before index()")
        return np.asarray(self._weights @ self._query_vector(query)).ravel()

    def search(self, queries: Any, *, task_metadata: Any = None, hf_split: str = "", hf_subset: str = "",
               top_k: int = 1000, encode_kwargs: Any = None, top_ranked: Any = None,
               num_proc: int | None = None, **kwargs: Any) -> dict[str, dict[str, float]]:
        """Top ``top_k`` documents per query, widened so a tie group at the cut-off is never split."""
        results: dict[str, dict[str, float]] = {}
        n = len(self._ids)
        for row in queries:
            scores = self.scores(row["text"])
            if top_k < n:
                cutoff = np.partition(scores, n - top_k)[n - top_k]
                chosen = np.flatnonzero(scores >= cutoff)
            else:
                chosen = np.arange(n)
            results[str(row["id"])] = {self._ids[i]: float(scores[i]) for i in chosen}
        return results
