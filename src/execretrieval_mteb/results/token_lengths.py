"""How many of the inputs a dense model encoded were longer than it reads: counted when it runs, kept in its run record.

A sentence-transformers model tokenises each input (the prompt mteb gives it, then the text mteb
hands it) with its own tokenizer, special tokens included, and cuts the result at its maximum
sequence length L. So, over the texts mteb encoded in the run::

    over = #{texts t : len(tokenizer(prompt + t, add_special_tokens=True)) > L}

for the corpus snippets and for the queries. Only the model has its tokenizer, so ``run`` counts
at encoding time and writes the counts into the run record (``run_record``); the analyses
(``analysis.truncation``) and ``rescore`` read them from there, without the model. A model that
exposes no tokenizer and length limit gets a reason instead of counts.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

from ..analysis import NotComputed, TokenLengths
from ..dataset.io import BuiltDataset
from .results_folder import ResultsFolder, model_slug
from .run_record import RunRecordError, read_run_record

NO_TOKENIZER = ("not computed: the model exposes no tokenizer and maximum sequence length (a sentence-transformers "
                "model does)")
OTHER_TOKENIZER = "not computed: the model's tokenizer is not a Hugging Face tokenizer ({error})"


def tokenizer_and_limit(model: Any) -> tuple[Callable[..., Any], int] | None:
    """The tokenizer and maximum sequence length of an mteb model (its sentence-transformers model's), if it has them."""
    meta_limit = getattr(getattr(model, "mteb_model_meta", None), "max_tokens", None)
    for candidate in (getattr(model, "model", None), model):
        tokenizer = getattr(candidate, "tokenizer", None)
        limit = getattr(candidate, "max_seq_length", None) or meta_limit
        if callable(tokenizer) and isinstance(limit, int | float) and math.isfinite(limit) and limit > 0:
            return tokenizer, int(limit)
    return None


def over_limit(tokenizer: Callable[..., Any], limit: int, texts: Sequence[str]) -> int:
    """How many ``texts`` tokenise (special tokens included, nothing cut) to more than ``limit`` tokens."""
    if not texts:
        return 0
    ids = tokenizer(list(texts), add_special_tokens=True, truncation=False, padding=False, verbose=False,
                    return_attention_mask=False, return_token_type_ids=False)["input_ids"]
    return sum(len(row) > limit for row in ids)


def count_token_lengths(model: Any, snippets: Sequence[str], queries: Sequence[str]) -> TokenLengths | NotComputed:
    """The run's counts, from the texts as the model read them (prompt included)."""
    found = tokenizer_and_limit(model)
    if found is None:
        return NotComputed(NO_TOKENIZER)
    tokenizer, limit = found
    try:
        return TokenLengths(max_length=limit, snippets=len(snippets), snippets_over=over_limit(tokenizer, limit, snippets),
                            queries=len(queries), queries_over=over_limit(tokenizer, limit, queries))
    except (TypeError, KeyError) as exc:  # a callable of another kind: say so rather than fail the model's run
        return NotComputed(OTHER_TOKENIZER.format(error=f"{type(exc).__name__}: {exc}"))


def recorded_token_lengths(folder: ResultsFolder, model_name: str, dataset: BuiltDataset) -> TokenLengths | NotComputed | None:
    """The counts in a model's run record (None: no record, or one without counts); refused if from other data."""
    path = folder.run_record(model_slug(model_name))
    if not path.is_file():
        return None
    record = read_run_record(path)
    if record.dataset_fingerprint != dataset.fingerprint:
        raise RunRecordError(f"{path}: recorded on another dataset (fingerprint {record.dataset_fingerprint[:12]}); "
                             "use the --data it was run on")
    return record.token_lengths
