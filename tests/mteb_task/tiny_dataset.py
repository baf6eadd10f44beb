"""Write a small but real ExecRetrieval dataset (our layout) from a few authored task files.

Each task's canonical is mutated by single textual operator edits; every candidate is run through
the real oracle and kept only if it fails at least one test with a wrong answer (``FAIL``), up to
four per task. The execution cache holds the oracle's outcomes for every snippet against its own
query's tests, exactly as the build writes it.
"""

from __future__ import annotations

import hashlib
import json
import re
import tomllib
from pathlib import Path

from execretrieval_mteb.dataset.io import dumps_jsonl, write_text_atomic
from execretrieval_mteb.dataset.manifest import render_sums
from execretrieval_mteb.oracle.api import run_suites
from execretrieval_mteb.oracle.outcomes import Suite, code_sha256, tests_sha256

REPO = Path(__file__).resolve().parents[2]

# (domain, file stem): tried in order; the first N that exist are used.
CANDIDATE_TASKS = (
    ("bit_manipulation", "bit_parity"),
    ("collections", "stock_span_days"),
    ("data_transformation", "roman_to_int"),
    ("bit_manipulation", "gray_decode"),
    ("collections", "next_greater_circular"),
    ("data_transformation", "bucketize_by_edges"),
    ("bit_manipulation", "popcount_kernighan"),
)

# Single edits tried on the canonical, each at every occurrence: (bug type, pattern, replacement).
EDITS = (
    ("wrong_comparison", r"(?<![<>=!])<(?![<=])", "<="),
    ("wrong_comparison", r"<=", "<"),
    ("wrong_comparison", r"(?<![<>=!-])>(?![>=])", ">="),
    ("wrong_comparison", r">=", ">"),
    ("wrong_comparison", r"==", "!="),
    ("wrong_operator", r"(?<=[\w)\]] )\+(?= [\w(])", "-"),
    ("wrong_operator", r"(?<=[\w)\]] )-(?= [\w(])", "+"),
    ("wrong_operator", r"\^", "|"),
    ("wrong_operator", r"&(?!=)", "|"),
    ("off_by_one", r"(?<![\w.])1(?![\w.])", "2"),
    ("off_by_one", r"(?<![\w.])0(?![\w.x])", "1"),
)


def _mutants(canonical: str) -> list[tuple[str, str, str]]:
    """(bug type, description, code) for every distinct single edit."""
    seen = {canonical}
    out = []
    for bug_type, pattern, replacement in EDITS:
        for match in re.finditer(pattern, canonical):
            code = canonical[: match.start()] + replacement + canonical[match.end():]
            if code in seen:
                continue
            seen.add(code)
            line = canonical.count("\n", 0, match.start()) + 1
            out.append((bug_type, f"Changed `{match.group()}` to `{replacement}` on line {line}", code))
    return out


def _order_key(seed: str, text: str) -> str:
    return hashlib.sha256(f"{seed}:{text}".encode()).hexdigest()


def build_tiny_dataset(out: Path, n_tasks: int = 5) -> Path:
    """Write ``out`` (data/, corpus/, queries/, default/, README.md, SHA256SUMS) and return it."""
    tasks = []
    for domain, stem in CANDIDATE_TASKS:
        path = REPO / "tasks" / domain / f"{stem}.toml"
        if path.is_file():
            spec = tomllib.loads(path.read_text(encoding="utf-8"))
            tasks.append((domain, stem, spec["query"], spec["canonical"].strip("\n") + "\n", tuple(spec["tests"])))
        if len(tasks) == n_tasks:
            break
    assert len(tasks) >= 3, "need at least three authored task files under tasks/"

    candidates = [(i, m) for i, t in enumerate(tasks) for m in _mutants(t[3])]
    suites = [Suite(t[3], t[4]) for t in tasks] + [Suite(m[2], tasks[i][4]) for i, m in candidates]
    results = run_suites(suites)
    canon_results, mutant_results = results[: len(tasks)], results[len(tasks):]
    assert all(r.passed for r in canon_results), "a canonical fails its own tests"

    kept: dict[int, list[tuple[tuple[str, str, str], object]]] = {i: [] for i in range(len(tasks))}
    for (i, mutant), result in zip(candidates, mutant_results, strict=True):
        if not result.passed and result.has_wrong_output and len(kept[i]) < 4:
            kept[i].append((mutant, result))

    snippets = []  # (task index, label, bug_type, description, code, result)
    for i, task in enumerate(tasks):
        snippets.append((i, "correct", None, None, task[3], canon_results[i]))
        for (bug_type, description, code), result in kept[i]:
            snippets.append((i, "incorrect", bug_type, description, code, result))
    order = sorted(range(len(snippets)), key=lambda j: _order_key("tiny", snippets[j][4]))
    corpus_id = {j: f"c_{rank:04d}" for rank, j in enumerate(order)}

    queries, corpus, distractors, cache = [], [], [], {}
    for i, (domain, stem, query, canonical, tests) in enumerate(tasks):
        qid = f"q_{i:04d}"
        own = [j for j in range(len(snippets)) if snippets[j][0] == i]
        correct = [corpus_id[j] for j in own if snippets[j][1] == "correct"]
        wrong = [corpus_id[j] for j in own if snippets[j][1] == "incorrect"]
        queries.append({
            "query_id": qid, "query": query, "test_suite": list(tests), "correct_corpus_ids": correct,
            "paired_distractor_corpus_ids": wrong, "entry_id": stem, "domain": domain, "function_name": stem,
            "metadata": {"domain": domain, "function_name": stem},
        })
    for j in order:
        i, label, bug_type, description, code, result = snippets[j]
        corpus.append({"corpus_id": corpus_id[j], "code": code, "label": label, "source_entry_id": tasks[i][1],
                       "bug_type": bug_type})
        if label == "incorrect":
            distractors.append({"corpus_id": corpus_id[j], "source_entry_id": tasks[i][1], "bug_type": bug_type,
                                "bug_description": description})
        cache[(code_sha256(code), tests_sha256(tasks[i][4]))] = result.outcome_strings()

    data = out / "data"
    write_text_atomic(data / "queries.jsonl", dumps_jsonl(queries))
    write_text_atomic(data / "corpus.jsonl", dumps_jsonl(corpus))
    write_text_atomic(data / "distractor_metadata.jsonl", dumps_jsonl(distractors))
    write_text_atomic(data / "execution_cache.jsonl", dumps_jsonl(
        {"code_sha256": c, "tests_sha256": t, "test_results": r} for (c, t), r in sorted(cache.items())))
    write_text_atomic(out / "corpus" / "test.jsonl", dumps_jsonl({"id": c["corpus_id"], "title": "", "text": c["code"]} for c in corpus))
    write_text_atomic(out / "queries" / "test.jsonl", dumps_jsonl({"id": q["query_id"], "text": q["query"]} for q in queries))
    write_text_atomic(out / "default" / "test.jsonl", dumps_jsonl(
        {"query-id": q["query_id"], "corpus-id": cid, "score": 1} for q in queries for cid in q["correct_corpus_ids"]))
    write_text_atomic(out / "README.md", "---\nconfigs:\n"
                      + "".join(f"- config_name: {name}\n  data_files:\n  - split: test\n    path: {name}/test.jsonl\n"
                                for name in ("corpus", "queries", "default"))
                      + "---\n# ExecRetrieval (test fixture)\n")
    write_text_atomic(out / "SHA256SUMS", render_sums(out))
    return out


def to_original_release_layout(ours: Path, out: Path) -> Path:
    """The same data as the original release shipped it: study files at the root, domain in metadata."""
    out.mkdir(parents=True, exist_ok=True)
    for name in ("corpus.jsonl", "distractor_metadata.jsonl", "execution_cache.jsonl"):
        (out / name).write_bytes((ours / "data" / name).read_bytes())
    rows = []
    for line in (ours / "data" / "queries.jsonl").read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        row.pop("domain")
        row.pop("function_name")
        rows.append(row)
    (out / "queries.jsonl").write_text(dumps_jsonl(rows), encoding="utf-8")
    return out
