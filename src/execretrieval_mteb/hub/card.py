"""The release's dataset card (``README.md``): Hub metadata in YAML, then what a reader needs.

YAML: ``pretty_name``, ``license``, ``language``, ``task_categories``/``task_ids``, ``tags``,
``size_categories``, ``source_datasets``, ``annotations_creators``, ``citation`` and ``configs``
(each config's ``data_files``, so ``datasets.load_dataset(repo, config)`` and mteb's loader find
them). Sections: what it measures, how it was built (engine, gates, sweeps, counts by domain and
bug type), the configs, how to load it (datasets, mteb, this package), the leaderboard with 95 %
intervals and significance marks (when results are staged), the files, limitations, citation.

``check_card`` parses the card with huggingface_hub's card API (``DatasetCard``) and datasets'
config parser, and checks what the Hub would refuse (unknown size category, configs without data
files, a config file missing from the release); ``execretrieval hub stage`` runs it before writing
and the Hub validates the YAML again when the card is pushed.
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from ..dataset.io import BuiltDataset
from ..dataset.layout import configs_yaml
from ..dataset.schema import DOMAINS, BugType, Label
from ..errors import ExecRetrievalError
from ..results.rows import Row, markdown_table
from ..mteb_task.about import CITATION, DESCRIPTION, QUERY_PROMPT

SIZE_CATEGORIES = (
    (1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K"), (1_000_000, "100K<n<1M"),
    (10_000_000, "1M<n<10M"), (100_000_000, "10M<n<100M"),
)
"""The Hub's size categories (by number of rows of the largest config), smallest first."""


class CardError(ExecRetrievalError):
    """The dataset card would be refused; the message says what to fix."""


@dataclass(frozen=True)
class Config:
    name: str
    path: str
    rows: int
    description: str
    features: Sequence[Mapping[str, Any]] = ()
    """The config's columns in the card's ``dataset_info`` form (``datasets.Features._to_yaml_list``)."""
    num_bytes: int = 0
    """The split's size in Arrow, as ``datasets`` records it."""


def config_info(path: Path) -> tuple[list[dict[str, Any]], int]:
    """The columns and Arrow size ``datasets``' JSON loader gives a JSONL file (the loader the Hub and mteb use)."""
    import tempfile

    from datasets import load_dataset

    with tempfile.TemporaryDirectory(prefix="execretrieval-features-") as cache:
        loaded = load_dataset("json", data_files={"test": str(path)}, split="test", cache_dir=cache)
        return list(loaded.features._to_yaml_list()), int(loaded.info.splits["test"].num_bytes)


@dataclass(frozen=True)
class CardInputs:
    repo_id: str
    dataset: BuiltDataset
    configs: Sequence[Config]
    build_report: Mapping[str, Any] | None
    rows: Sequence[Row]
    """Leaderboard rows (empty when no results are staged)."""
    extra_files: Mapping[str, str]
    """Release paths beyond the data (embeddings, results) -> what they are."""
    notes: Sequence[str] = ()
    """What the staging left out, and why (stated on the card)."""


def size_category(n: int) -> str:
    return next((label for bound, label in SIZE_CATEGORIES if n < bound), "n>1T")


def metadata(inputs: CardInputs) -> dict[str, Any]:
    """The YAML metadata (``configs`` is rendered by ``dataset.layout.configs_yaml``).

    ``dataset_info`` gives each config's columns and row count, so ``datasets`` (and mteb's loader,
    which asks for split names first) need not open a data file to learn them.
    """
    return {
        "pretty_name": "ExecRetrieval",
        "license": "apache-2.0",
        "language": ["en", "code"],
        "task_categories": ["text-retrieval"],
        "task_ids": ["document-retrieval"],
        "tags": ["code", "python", "code-retrieval", "mteb", "execution-verified", "functional-correctness"],
        "size_categories": [size_category(max(c.rows for c in inputs.configs))],
        "source_datasets": ["original"],
        "annotations_creators": ["machine-generated"],
        "citation": CITATION.strip() + "\n",
        "dataset_info": [
            {"config_name": c.name, "features": [dict(f) for f in c.features],
             "splits": [{"name": "test", "num_bytes": c.num_bytes, "num_examples": c.rows}]}
            for c in inputs.configs
        ],
    }


class _Dumper(yaml.SafeDumper):
    """Multi-line strings (the citation) as literal blocks."""


_Dumper.add_representer(str, lambda dumper, value: dumper.represent_scalar(
    "tag:yaml.org,2002:str", value, style="|" if "\n" in value else None))


def render_card(inputs: CardInputs) -> str:
    front = yaml.dump(metadata(inputs), Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=1000)
    front += configs_yaml([(c.name, c.path) for c in inputs.configs])
    return f"---\n{front}---\n\n" + "\n".join(section(inputs) for section in SECTIONS)


def _summary(inputs: CardInputs) -> str:
    data = inputs.dataset
    n_mutants = sum(1 for c in data.corpus if c.label is Label.INCORRECT)
    return (
        "# ExecRetrieval\n\n"
        f"{DESCRIPTION}\n\n"
        f"{len(data.queries):,} Python tasks in {len({q.domain for q in data.queries})} domains; a corpus of "
        f"{len(data.corpus):,} snippets: each task's canonical implementation and {n_mutants:,} single-edit "
        "mutants, every one verified by execution to fail at least one of its task's tests with a wrong answer. "
        f"It is the data of the MTEB task `ExecRetrieval`; dataset fingerprint `{data.fingerprint}` "
        "(the sha256 of the data's own `SHA256SUMS`, recorded with every result).\n"
    )


def _measures(inputs: CardInputs) -> str:
    return (
        "## What it measures\n\n"
        "Whether a code-retrieval model still ranks a *correct* implementation first when near-identical buggy "
        "copies of it sit in the pool. Retrieval is judged by execution: **exec@k** is the share of queries for "
        "which some snippet among the top k passes all of the query's tests (main score: exec@1); "
        "`execution_precision@k` is the share of the top k that passes, and a tie-neutral nDCG@k is kept next to "
        "mteb's own. A mutant differs from the right answer by a character or two (`<` for `<=`, `+ 1` for `- 1`, "
        "two swapped arguments), so topical similarity is not enough: a model that finds the right function in "
        "its top 10 but cannot put it above its broken copies scores high exec@10 and low exec@1. Ties in score "
        "are broken neutrally (every metric is the expectation under a random order within a tie group).\n\n"
        f"Instruction for instruction-tuned models (queries only): \"{QUERY_PROMPT}\".\n"
    )


def _domain_report(data: BuiltDataset) -> dict[str, Any]:
    """The per-domain counts of ``construction.report`` recomputed from the records (no build report)."""
    from ..construction.report import canonical_lines

    corpus = {c.corpus_id: c for c in data.corpus}
    types = [t.value for t in BugType]
    domains: dict[str, Any] = {}
    all_lines: list[int] = []
    for domain in sorted({q.domain or "unknown" for q in data.queries}, key=lambda d: (d not in DOMAINS, d)):
        ours = [q for q in data.queries if (q.domain or "unknown") == domain]
        lines = [canonical_lines(corpus[cid].code) for q in ours for cid in q.correct_corpus_ids if cid in corpus]
        all_lines += lines
        counts = Counter(corpus[cid].bug_type for q in ours for cid in q.paired_distractor_corpus_ids if cid in corpus)
        domains[domain] = {"queries": len(ours), "median_canonical_lines": statistics.median(lines) if lines else None,
                           "mutants_by_bug_type": {t: counts.get(t, 0) for t in types}}
    mutants = Counter(c.bug_type for c in data.corpus if c.label is Label.INCORRECT)
    total = sum(mutants.values()) or 1
    return {
        "domains": domains,
        "counts": {"queries": len(data.queries), "median_canonical_lines": statistics.median(all_lines) if all_lines else None},
        "bug_types": {t: {"count": mutants.get(t, 0), "share": mutants.get(t, 0) / total} for t in types},
    }


def _built(inputs: CardInputs) -> str:
    from ..construction.report import domain_table

    report = inputs.build_report
    out = [
        "## How it was built\n",
        "Every task is authored as a file: a query, one canonical implementation and 7-10 single-`assert` tests. "
        "The mutation engine parses the canonical and makes every single-edit mutant of six kinds "
        "(`" + "`, `".join(t.value for t in BugType) + "`), each one AST-targeted edit. Each candidate runs "
        "against the task's tests in a sandboxed execution oracle (network and mount namespaces, Landlock, "
        "seccomp, uid nobody, rlimits, per-test CPU and wall deadlines); a mutant is usable only if it fails a "
        "test with a wrong answer (not a crash or a timeout). Up to four are kept per task, diverse in bug type "
        "and line. The execution cache (the `execution_cache` config) holds every verdict, so exec@k needs no "
        "execution to score a ranking.\n",
    ]
    if report:
        gates = report.get("gates") or {}
        if gates:
            out.append("Gates (tasks passed / failed):\n")
            out += [f"- `{name}`: {g.get('passed', 0)} / {g.get('failed', 0)}" for name, g in sorted(gates.items())]
            out.append("")
        sweeps = report.get("sweeps") or {}
        cross, sanity = sweeps.get("cross_canonical") or {}, sweeps.get("distractor_sanity") or {}
        if cross or sanity:
            out.append(
                "Sweeps: the distractor-sanity rerun found "
                f"{sanity.get('canonicals_passing', '?')} canonicals passing and {sanity.get('mutants_passing', '?')} "
                "mutants passing; the cross-canonical sweep searched "
                f"{cross.get('items_searched', '?')} snippets for other tasks' target functions and shipped "
                f"{cross.get('collisions_shipped', '?')} collisions (a snippet passing another query's tests), so "
                "a (query, snippet) pair absent from the cache is a snippet that fails that query.\n"
            )
        candidates = report.get("candidates") or {}
        if candidates:
            keys = [k for k in ("enumerated", "executed", "accepted", "equivalent", "crash_only", "slow")
                    if isinstance(candidates.get(k), int)]
            out.append("Candidate mutants: " + ", ".join(f"{candidates[k]:,} {k.replace('_', '-')}" for k in keys) + ".\n")
        settings = report.get("settings") or {}
        if settings:
            out.append(f"Settings: seed {report.get('seed', '?')}, " + ", ".join(
                f"{k} {v}" for k, v in sorted(settings.items()) if not isinstance(v, dict)) + ".\n")
    out.append("Counts by domain (queries, median canonical lines, mutants by bug type):\n")
    out.append(domain_table(report if report and report.get("domains") else _domain_report(inputs.dataset)))
    return "\n".join(out)


def _configs(inputs: CardInputs) -> str:
    lines = ["## Configs\n", "Every config has one split, `test`.\n", "| config | file | rows | content |", "|---|---|---:|---|"]
    lines += [f"| `{c.name}` | `{c.path}` | {c.rows:,} | {c.description} |" for c in inputs.configs]
    return "\n".join(lines) + "\n"


def _loading(inputs: CardInputs) -> str:
    repo = inputs.repo_id
    return (
        "## How to load it\n\n"
        "Pin a commit: the package's `dataset/release.json` names the commit of the official release "
        "(mteb's convention), and results computed on it are filed under that commit.\n\n"
        "With `datasets`:\n\n"
        "```python\n"
        "from datasets import load_dataset\n"
        "REVISION = \"<commit sha>\"  # the release: execretrieval_mteb.dataset.release.pinned_release().revision\n"
        f"corpus = load_dataset(\"{repo}\", \"corpus\", split=\"test\", revision=REVISION)\n"
        f"tests = load_dataset(\"{repo}\", \"query_tests\", split=\"test\", revision=REVISION)\n"
        "```\n\n"
        "With mteb (`pip install execretrieval-mteb` registers the task; the package ships the same data, and "
        "`EXECRETRIEVAL_DATA=hub` makes the task fetch this repository's pinned commit instead):\n\n"
        "```bash\n"
        "mteb run -t ExecRetrieval -m sentence-transformers/all-MiniLM-L6-v2\n"
        "EXECRETRIEVAL_DATA=hub mteb run -t ExecRetrieval -m execretrieval-mteb/bm25-code\n"
        "```\n\n"
        "With this package, which adds the execution check of the top 10 and the leaderboard:\n\n"
        "```bash\n"
        "execretrieval run --data hub -m Qwen/Qwen3-Embedding-8B\n"
        "execretrieval submit execretrieval-results -o submission\n"
        "```\n\n"
        "Once fetched, the data loads offline from the Hugging Face cache (`HF_HUB_OFFLINE=1`).\n"
    )


def _leaderboard(inputs: CardInputs) -> str:
    if not inputs.rows:
        return "## Leaderboard\n\nNo results were staged with this release.\n"
    with_intervals = any(r.intervals for r in inputs.rows)
    text = [
        "## Leaderboard\n",
        f"Means over the {inputs.rows[0].n_queries:,} queries" + (
            ", with 95 % bootstrap intervals over queries in brackets. " if with_intervals else ". ") +
        "\"Differs from the row above\": the paired test of the two models on exec@1 (exact McNemar, or a "
        "sign-flip permutation test under ties), Holm-adjusted over all pairs, p < 0.05. Adjacent rows that do "
        "not differ are an ordering of point estimates, not a ranking.\n",
        markdown_table(inputs.rows),
        "| model | revision | similarity | prompts |",
        "|---|---|---|---|",
    ]
    for row in inputs.rows:
        prompts = "; ".join(f"{k}: \"{v}\"" for k, v in sorted(row.prompts.items())) or "none"
        text.append(f"| {row.model} | `{row.revision}` | {row.similarity or '-'} | {prompts} |")
    text.append("\nPer-model reports (every query's top 10 with each test's outcome) are in `results/`.\n")
    return "\n".join(text)


def _files(inputs: CardInputs) -> str:
    lines = [
        "## Files\n",
        "- `data/*.jsonl`: the study's schema (queries with tests, labelled corpus, distractor metadata, execution "
        "cache); `corpus/`, `queries/`, `default/`: mteb's retrieval configs; `labelled_corpus/`: the joined view.",
        "- `build_report.json`: every gate, sweep, candidate count and exclusion of the build (when the data was built "
        "by `execretrieval build`).",
        "- `release_info.json`: the fingerprint of the dataset this release was staged from and what it holds.",
        "- `SHA256SUMS`: the sha256 of every other file (`sha256sum -c SHA256SUMS`); the package refuses a changed byte.",
    ]
    lines += [f"- `{path}`: {what}" for path, what in sorted(inputs.extra_files.items())]
    if inputs.notes:
        lines.append("\nLeft out when staging:\n")
        lines += [f"- {note}" for note in inputs.notes]
    return "\n".join(lines) + "\n"


def _limitations(inputs: CardInputs) -> str:
    return (
        "## Limitations\n\n"
        "- Python only, small self-contained functions (median canonical about a dozen lines) with 7-10 tests; "
        "a passing snippet is correct *on those tests*, not proven correct.\n"
        "- Mutants are mechanical single edits of six kinds; real bugs are more varied. Equivalent mutants "
        "(passing every test) are never shipped, but a mutant can fail only on an edge case a reader would call "
        "a matter of specification.\n"
        "- Queries were written with the tasks; a model trained on this data, or on its source files, is not "
        "evaluated fairly.\n"
        "- Intervals describe resampling the queries, not other kinds of tasks.\n"
    )


def _citation(inputs: CardInputs) -> str:
    return "## Citation\n\n```bibtex\n" + CITATION.strip() + "\n```\n"


SECTIONS = (_summary, _measures, _built, _configs, _loading, _leaderboard, _files, _limitations, _citation)


def check_card(text: str, root: Path | None = None) -> dict[str, Any]:
    """Parse ``text`` as the Hub and ``datasets`` would; ``CardError`` names the first problem.

    With ``root`` (the release folder) every config's data files must exist there.
    """
    from datasets.utils.metadata import MetadataConfigs
    from huggingface_hub import DatasetCard

    try:
        card = DatasetCard(text, ignore_metadata_errors=False)
    except Exception as exc:  # noqa: BLE001 - the card API raises ValueError or yaml errors
        raise CardError(f"README.md: the card's metadata does not parse ({type(exc).__name__}: {exc})") from None
    data = card.data.to_dict()
    for key in ("pretty_name", "license", "task_categories", "tags", "size_categories", "configs", "source_datasets",
                "citation"):
        if not data.get(key):
            raise CardError(f"README.md: the card's metadata lacks '{key}'")
    allowed = {label for _, label in SIZE_CATEGORIES} | {"n>1T", "other"}
    unknown = [s for s in data["size_categories"] if s not in allowed]
    if unknown:
        raise CardError(f"README.md: unknown size category {unknown[0]!r}")
    try:
        configs = MetadataConfigs.from_dataset_card_data(card.data)
    except Exception as exc:  # noqa: BLE001 - datasets raises ValueError/TypeError for malformed configs
        raise CardError(f"README.md: the configs do not parse ({type(exc).__name__}: {exc})") from None
    for name, config in configs.items():
        files = config.get("data_files")
        if not files:
            raise CardError(f"README.md: config {name!r} has no data_files")
        if root is not None:
            paths = [f["path"] if isinstance(f, dict) else f for f in files] if isinstance(files, list) else [files]
            for path in (p for item in paths for p in (item if isinstance(item, list) else [item])):
                if not (Path(root) / path).is_file():
                    raise CardError(f"README.md: config {name!r} names {path}, absent from {root}")
    return data
