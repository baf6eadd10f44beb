"""Structure-only baseline of family accuracy: pick each family's medoid, without reading the query.

Every mutant is one edit of its canonical, so two mutants are about two edits apart while each is
one edit from the canonical: the canonical sits at the centre of its family. This baseline picks,
in each family, the member with the smallest total token edit distance to its siblings::

    medoid = argmin over members x of sum over the other members y of lev(tokens(x), tokens(y))

and scores 1 / (number of tied medoids) when the canonical is among them, else 0 (tie-neutral).
On this benchmark it scores 1.0: the canonical is the unique medoid of every family, by
construction. So it is a property of how the families are built (structure alone finds the
canonical), not a floor or a chance level for the models: a model could in principle exploit it
without understanding code. The chance level a model's family accuracy is read against is the
geometric one (``geometric_chance``).

Tokens are Python's (``tokenize``): names, operators, literals as written, and NEWLINE, INDENT and
DEDENT as tokens of their own (removing a guard removes them too); comments and blank-line NL are
dropped. Snippets that do not tokenize fall back to words and single punctuation characters.
``lev`` is the Levenshtein distance over token sequences, computed with Hyyrö's bit-parallel
algorithm on the part left after stripping the common prefix and suffix (family members share
nearly everything, so that part is short).
"""

from __future__ import annotations

import io
import re
import tokenize
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .family import Families

_SKIP = {tokenize.COMMENT, tokenize.NL, tokenize.ENCODING, tokenize.ENDMARKER}
_FALLBACK = re.compile(r"\w+|\S")


def python_tokens(code: str) -> list[str]:
    try:
        out = []
        for token in tokenize.generate_tokens(io.StringIO(code).readline):
            if token.type in _SKIP:
                continue
            if token.type in (tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT):
                out.append(f"<{tokenize.tok_name[token.type]}>")
            else:
                out.append(token.string)
        return out
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return _FALLBACK.findall(code)


def levenshtein(a: Sequence[Any], b: Sequence[Any]) -> int:
    """Edit distance (insert, delete, substitute, each 1) between two sequences of hashables."""
    start = 0
    limit = min(len(a), len(b))
    while start < limit and a[start] == b[start]:
        start += 1
    end = 0
    while end < limit - start and a[len(a) - 1 - end] == b[len(b) - 1 - end]:
        end += 1
    a, b = a[start:len(a) - end], b[start:len(b) - end]
    if len(a) < len(b):
        a, b = b, a
    m = len(b)
    if m == 0:
        return len(a)
    # Hyyro (2001): bit-vector deltas of one DP column over the pattern b, one step per item of a.
    peq: dict[Any, int] = {}
    for i, item in enumerate(b):
        peq[item] = peq.get(item, 0) | (1 << i)
    full, top = (1 << m) - 1, 1 << (m - 1)
    pv, mv, score = full, 0, m
    for item in a:
        eq = peq.get(item, 0)
        xv = eq | mv
        xh = ((((eq & pv) + pv) & full) ^ pv) | eq
        ph = (mv | ~(xh | pv)) & full
        mh = pv & xh
        if ph & top:
            score += 1
        elif mh & top:
            score -= 1
        ph = ((ph << 1) | 1) & full
        mh = (mh << 1) & full
        pv = (mh | ~(xv | ph)) & full
        mv = ph & xv
    return score


@dataclass(frozen=True)
class StructureBaseline:
    accuracy: float
    per_query: np.ndarray
    """1 / (tied medoids) when the canonical is a medoid, else 0."""
    canonical_unique_medoid: int

    def to_json(self) -> dict[str, Any]:
        return {"kind": "construction property (not a chance level)", "family_accuracy": self.accuracy,
                "families": int(self.per_query.size), "canonical_is_the_unique_medoid": self.canonical_unique_medoid}


def structure_baseline(families: Families) -> StructureBaseline:
    tokens: dict[str, list[str]] = {}
    credit = np.zeros(families.size)
    for row in range(families.size):
        members = families.members(row)
        seqs = [tokens.setdefault(cid, python_tokens(families.corpus[cid].code)) for cid in members]
        totals = np.zeros(len(members))
        for x in range(len(members)):
            for y in range(x + 1, len(members)):
                d = levenshtein(seqs[x], seqs[y])
                totals[x] += d
                totals[y] += d
        medoids = np.flatnonzero(totals == totals.min())
        credit[row] = 1.0 / medoids.size if 0 in medoids else 0.0
    return StructureBaseline(float(credit.mean()) if credit.size else 0.0, credit, int(np.sum(credit == 1.0)))
