"""Closed against open, per model, on the same queries: what the wild code changes.

For each model evaluated on both tasks (the closed evaluation file and the open one, same query
ids), and each k in 1, 3, 5, 10:

- exec@k on each pool with its 95 % percentile bootstrap interval over queries, the difference
  open - closed with its paired-bootstrap interval (both pools resampled with the same query
  indices), and the paired test: exact McNemar when both per-query vectors are 0/1, else the
  paired sign-flip permutation test (``pairwise``'s rule);
- the share of the top k taken by wild code (mean, interval);
- rank-1 miss attribution on each pool, by cause (own mutant, other task's snippet, wild function);
- wild deception: the share of queries where a wild function judged not correct is scored at least
  as high as the canonical (interval);
- correct wild functions found (pairs, distinct functions, queries), and how often the tests alone
  would have been fooled: wild pairs that pass every test but disagree with the reference, and
  exec@k scored with the tests alone against the strong judge.

Written as ``comparison.json``, ``report.md`` (the table) and ``figures/closed_vs_open.png``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from jinja2 import Environment, StrictUndefined

from ..dataset.io import BuiltDataset, write_text_atomic
from ..evaluation.metric_names import K_VALUES, Metric
from ..evaluation.model_report import ModelReport
from ..evaluation.open_per_query import MissCause, attribution_shares, miss_masses
from .bootstrap import percentile_interval, replicate_means, resample_counts
from .config import StatsConfig
from .mcnemar import mcnemar_exact_p
from .pairwise import PairedTest
from .sign_flip import common_grid, sign_flip_p_values


@dataclass(frozen=True)
class ModelPair:
    name: str
    closed: ModelReport
    open_blob: Mapping[str, Any]


def _interval(values: np.ndarray, counts: np.ndarray, config: StatsConfig) -> dict[str, float]:
    low, high = percentile_interval(replicate_means(counts, values[:, None]), config.confidence)
    return {"mean": float(values.mean()), "ci95_low": float(low[0]), "ci95_high": float(high[0])}


def _paired(a: np.ndarray, b: np.ndarray, counts: np.ndarray, config: StatsConfig) -> dict[str, Any]:
    """b - a: paired interval and test."""
    diff = b - a
    low, high = percentile_interval(replicate_means(counts, diff[:, None]), config.confidence)
    binary = bool(np.isin(a, (0.0, 1.0)).all() and np.isin(b, (0.0, 1.0)).all())
    method = None
    if binary:
        a_only, b_only = int(((a == 1) & (b == 0)).sum()), int(((a == 0) & (b == 1)).sum())
        p, test = float(mcnemar_exact_p(a_only, b_only)), PairedTest.MCNEMAR_EXACT
    else:
        a_only = b_only = None
        ps, methods = sign_flip_p_values(diff[:, None], common_grid(np.stack([a, b], axis=1)), config.enumeration_max)
        p, test, method = float(ps[0]), PairedTest.SIGN_FLIP_PERMUTATION, methods[0].value
    return {"delta": float(diff.mean()), "ci95_low": float(low[0]), "ci95_high": float(high[0]), "test": test.value,
            "method": method, "p": p, "closed_only": a_only, "open_only": b_only}


def compare(pairs: Sequence[ModelPair], dataset: BuiltDataset, config: StatsConfig = StatsConfig()) -> dict[str, Any]:
    query_ids = tuple(q.query_id for q in dataset.queries)
    counts = resample_counts(len(query_ids), config.bootstrap_replicates, config.bootstrap_seed)
    family = {q.query_id: (q.correct_corpus_ids[0], {q.correct_corpus_ids[0], *q.paired_distractor_corpus_ids})
              for q in dataset.queries}
    out: dict[str, Any] = {}
    for pair in pairs:
        per_query = {row["query_id"]: row for row in pair.open_blob["per_query"]}
        if set(per_query) != set(query_ids) or tuple(pair.closed.query_ids) != query_ids:
            raise ValueError(f"{pair.name}: the closed and open evaluations cover different queries")
        model: dict[str, Any] = {"exec": {}, "tests_only_exec": {}, "wild_share": {}}
        for k in K_VALUES:
            key = Metric.EXEC.key(k)
            closed = np.array([pair.closed.scores.values[key][q] for q in query_ids])
            opened = np.array([per_query[q]["metrics"][key] for q in query_ids])
            loose = np.array([per_query[q]["tests_only"][key] for q in query_ids])
            model["exec"][f"at_{k}"] = {"closed": _interval(closed, counts, config), "open": _interval(opened, counts, config),
                                        "open_minus_closed": _paired(closed, opened, counts, config)}
            model["tests_only_exec"][f"at_{k}"] = {"tests_only": float(loose.mean()), "strong": float(opened.mean()),
                                                   "queries_fooled": int((loose > opened).sum())}
            share = np.array([per_query[q]["wild_share"][f"at_{k}"] for q in query_ids])
            model["wild_share"][f"at_{k}"] = _interval(share, counts, config)
        closed_masses = {}
        for q in query_ids:
            canonical, fam = family[q]
            closed_masses[q] = miss_masses(pair.closed.rankings.get(q) or _empty(), pair.closed.passing.get(q, frozenset()),
                                           fam, canonical, ())
        open_masses = {q: {MissCause(c): m for c, m in per_query[q]["miss_mass"].items()} for q in query_ids}
        model["miss_attribution"] = {"closed": attribution_shares(closed_masses), "open": attribution_shares(open_masses)}
        deceived = np.array([per_query[q]["wild_deceived"] for q in query_ids])
        model["wild_deception"] = _interval(deceived, counts, config)
        found = pair.open_blob["correct_wild_found"]
        model["correct_wild"] = {"pairs": len(found), "functions": len({f["corpus_id"] for f in found}),
                                 "queries": len({f["query_id"] for f in found}), "list": found}
        model["wild_pairs_judged"] = pair.open_blob["wild_pairs"]
        model["fooled_the_tests"] = len(pair.open_blob["fooled_the_tests"])
        out[pair.name] = model
    return {"n_queries": len(query_ids), "bootstrap_samples": config.bootstrap_replicates, "seed": config.seed,
            "models": out}


def _empty() -> Any:
    from ..evaluation.ranking import Ranking

    return Ranking(groups=())


_REPORT = """\
# ExecRetrieval closed vs open pool

Same {{ n }} queries; closed pool = the {{ closed_size }} benchmark snippets, open pool = those plus
{{ "{:,}".format(wild) }} wild functions (judged by execution: the target name bound to the function, the
query's tests, then the query's independent reference on its validation inputs). Intervals: 95 %
percentile bootstrap over queries ({{ samples }} replicates); Δ = open - closed with its paired
interval and paired test (exact McNemar on 0/1 values, sign-flip permutation otherwise).

| model | k | exec@k closed | exec@k open | Δ [95 % CI] | p (test) | wild share of top k |
|---|---|---|---|---|---|---|
{%- for name, m in models.items() %}{% for k in ks %}{% set e = m.exec["at_%d" % k] %}
| {{ name }} | {{ k }} | {{ fmt(e.closed) }} | {{ fmt(e.open) }} | {{ "%+.3f [%+.3f, %+.3f]" % (e.open_minus_closed.delta, e.open_minus_closed.ci95_low, e.open_minus_closed.ci95_high) }} | {{ "%.3g" % e.open_minus_closed.p }} ({{ e.open_minus_closed.test }}) | {{ fmt(m.wild_share["at_%d" % k]) }} |
{%- endfor %}{% endfor %}

![closed vs open](figures/closed_vs_open.png)

## Rank-1 misses by cause (share of expected misses)

| model | pool | own mutant | other task's snippet | wild function |
|---|---|---|---|---|
{%- for name, m in models.items() %}{% for pool in ("closed", "open") %}{% set a = m.miss_attribution[pool] %}
| {{ name }} | {{ pool }} | {{ pct(a.own_mutant) }} | {{ pct(a.other_task_snippet) }} | {{ pct(a.wild_function) }} |
{%- endfor %}{% endfor %}

## Wild code: deception, correct functions found, tests fooled

| model | wild deception | wild pairs judged | correct wild (pairs / functions / queries) | passed the tests, wrong by the reference | exec@1 tests alone vs strong (queries fooled) |
|---|---|---|---|---|---|
{%- for name, m in models.items() %}{% set t = m.tests_only_exec.at_1 %}
| {{ name }} | {{ fmt(m.wild_deception) }} | {{ m.wild_pairs_judged.values() | sum }} | {{ m.correct_wild.pairs }} / {{ m.correct_wild.functions }} / {{ m.correct_wild.queries }} | {{ m.fooled_the_tests }} | {{ "%.3f vs %.3f (%d)" % (t.tests_only, t.strong, t.queries_fooled) }} |
{%- endfor %}

Wild deception: share of queries where a wild function judged not correct is scored at least as
high as the query's canonical (among the top 10). The study's mutant deception compares two scores
the pool does not change, so it is the closed task's number.
{% for name, m in models.items() %}{% if m.correct_wild.list %}
### Correct wild functions found by {{ name }}

| query | rank | function | package | file:line | licence |
|---|---|---|---|---|---|
{%- for f in m.correct_wild.list %}
| {{ f.query_id }} | {{ f.rank }} | `{{ f.function_name }}` | {{ f.package }} {{ f.version }} | {{ f.file }}:{{ f.line }} | {{ f.license }} |
{%- endfor %}
{% endif %}{% endfor %}
"""


def render_report(comparison: Mapping[str, Any], closed_size: int, wild: int) -> str:
    env = Environment(undefined=StrictUndefined, keep_trailing_newline=True, autoescape=False)

    def fmt(i: Mapping[str, float]) -> str:
        return f"{i['mean']:.3f} [{i['ci95_low']:.3f}, {i['ci95_high']:.3f}]"

    def pct(v: float | None) -> str:
        return "-" if v is None else f"{100 * v:.1f} %"

    return env.from_string(_REPORT).render(
        n=comparison["n_queries"], samples=comparison["bootstrap_samples"], models=comparison["models"],
        ks=K_VALUES, closed_size=closed_size, wild=wild, fmt=fmt, pct=pct)


def plot(comparison: Mapping[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    models = list(comparison["models"])
    fig, axes = plt.subplots(1, max(1, len(models)), figsize=(4.5 * max(1, len(models)), 3.4), squeeze=False)
    x = np.arange(len(K_VALUES))
    for ax, name in zip(axes[0], models):
        m = comparison["models"][name]
        for offset, pool, colour in ((-0.18, "closed", "#4C72B0"), (0.18, "open", "#DD8452")):
            stats = [m["exec"][f"at_{k}"][pool] for k in K_VALUES]
            means = np.array([s["mean"] for s in stats])
            err = np.array([[s["mean"] - s["ci95_low"] for s in stats], [s["ci95_high"] - s["mean"] for s in stats]])
            ax.bar(x + offset, means, 0.36, yerr=err, capsize=3, color=colour, label=f"{pool} pool")
        share = [m["wild_share"][f"at_{k}"]["mean"] for k in K_VALUES]
        ax.plot(x, share, "k--o", ms=3, lw=1, label="wild share of top k")
        ax.set_xticks(x, [f"@{k}" for k in K_VALUES])
        ax.set_ylim(0, 1)
        ax.set_title(name.split("/")[-1], fontsize=9)
        ax.set_ylabel("exec@k")
    axes[0][0].legend(fontsize=7, loc="upper left")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120, metadata={"Software": None})
    plt.close(fig)


def write_comparison(out: Path, comparison: Mapping[str, Any], closed_size: int, wild: int) -> Path:
    """``comparison.json``, ``report.md`` and ``figures/closed_vs_open.png`` in ``out``; returns the report."""
    write_text_atomic(out / "comparison.json", json.dumps(comparison, indent=1, sort_keys=True) + "\n")
    plot(comparison, out / "figures" / "closed_vs_open.png")
    write_text_atomic(out / "report.md", render_report(comparison, closed_size, wild))
    return out / "report.md"
