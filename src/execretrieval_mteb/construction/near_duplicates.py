"""Find authored tasks that are the same problem in different words.

Three signals, each a Jaccard similarity J(A, B) = |A ∩ B| / |A ∪ B| between two tasks:

- name:  adjacent-word pairs of the function name (snake-case words, lower-cased, a trailing
         plural ``s`` dropped, start and end marked), so ``int_to_roman`` and its inverse
         ``roman_to_int`` differ while ``is_leap_years`` equals ``is_leap_year``;
- query: the query's content words (stop words removed);
- code:  the canonical's token 3-grams with identifiers renamed to ``ID`` (structure, not naming).

A pair is reported when any signal reaches its threshold. The thresholds were chosen so that
topical neighbours (two different date parsers) pass and restatements (same algorithm, same
contract) do not. Run: ``python -m execretrieval_mteb.construction.near_duplicates tasks/``;
exit status 1 when a pair is found.
"""

from __future__ import annotations

import argparse
import io
import itertools
import keyword
import re
import sys
import tokenize
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

THRESHOLDS = {"name": 1.0, "query": 0.7, "code": 0.85}
_STOP = frozenset(
    "a an and are as at be by for from given if in into is it its of on or return returns than that "
    "the their then this to when where which with without each every all any two one list string "
    "integer integers number numbers value values".split()
)


@dataclass(frozen=True)
class TaskText:
    name: str
    path: str
    query: str
    canonical: str


@dataclass(frozen=True)
class NearDuplicate:
    first: str
    second: str
    signal: str
    similarity: float


def _jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    return len(a & b) / len(a | b) if a and b else 0.0


def _name_words(name: str) -> frozenset[str]:
    words = ["^"] + [w[:-1] if len(w) > 3 and w.endswith("s") else w for w in name.lower().split("_") if w] + ["$"]
    return frozenset(f"{a} {b}" for a, b in itertools.pairwise(words))


def _query_words(query: str) -> frozenset[str]:
    return frozenset(w for w in re.findall(r"[a-z0-9]+", query.lower()) if w not in _STOP and len(w) > 1)


def _code_shingles(code: str) -> frozenset[str]:
    try:
        tokens = [
            "ID" if t.type == tokenize.NAME and not keyword.iskeyword(t.string) else t.string
            for t in tokenize.generate_tokens(io.StringIO(code).readline)
            if t.type in (tokenize.NAME, tokenize.OP, tokenize.NUMBER, tokenize.STRING)
        ]
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return frozenset()
    return frozenset(" ".join(tokens[i : i + 3]) for i in range(len(tokens) - 2))


def load_task_texts(tasks_dir: Path) -> list[TaskText]:
    """Read every ``<domain>/<name>.toml`` below tasks_dir (only the fields compared here)."""
    texts = []
    for path in sorted(Path(tasks_dir).glob("*/*.toml")):
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        texts.append(TaskText(path.stem, str(path), str(data.get("query", "")), str(data.get("canonical", ""))))
    return texts


def find_near_duplicates(tasks: Sequence[TaskText], thresholds: dict[str, float] = THRESHOLDS) -> list[NearDuplicate]:
    """Every pair of tasks with a signal at or above its threshold, strongest first."""
    features = [
        {"name": _name_words(t.name), "query": _query_words(t.query), "code": _code_shingles(t.canonical)}
        for t in tasks
    ]
    found = []
    for (i, a), (j, b) in itertools.combinations(enumerate(features), 2):
        for signal, limit in thresholds.items():
            similarity = _jaccard(a[signal], b[signal])
            if similarity >= limit:
                found.append(NearDuplicate(tasks[i].name, tasks[j].name, signal, round(similarity, 3)))
    return sorted(found, key=lambda d: (-d.similarity, d.first, d.second, d.signal))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Report authored tasks that restate another task.")
    parser.add_argument("tasks_dir", type=Path, nargs="?", default=Path("tasks"))
    args = parser.parse_args(argv)
    tasks = load_task_texts(args.tasks_dir)
    pairs = find_near_duplicates(tasks)
    for d in pairs:
        print(f"{d.signal:5} {d.similarity:.3f}  {d.first}  ~  {d.second}")
    print(f"{len(tasks)} tasks, {len(pairs)} near-duplicate pair(s)")
    return 1 if pairs else 0


if __name__ == "__main__":
    sys.exit(main())
