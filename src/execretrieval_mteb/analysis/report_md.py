"""``report.md``: every statistic and analysis as readable tables, with the figures and a short
"How to read this" section. Deterministic (no dates, no absolute paths), so it can be diffed.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ..evaluation.metric_names import K_VALUES, MAIN_SCORE, Metric
from .config import StatsConfig
from .edit_size import BINS
from .length_bias import LengthGroup
from .miss_attribution import MissWinner
from .not_computed import NotComputed
from .pairwise import PairedTest
from .result import AnalysisResult

HOW_TO_READ = """\
## How to read this

- **Intervals.** `0.093 [0.076, 0.111]` is a model's score over all queries and its 95 % percentile
  bootstrap interval: the queries were resampled with replacement {replicates:,} times (fixed seed)
  and the middle 95 % of the resampled scores kept. It shows how much the score depends on which
  tasks happened to be drawn. Two overlapping intervals do **not** mean two models are tied: use
  the paired tests, which compare the models on the same queries.
- **Paired tests.** For every pair of models and every metric: where both models' per-query values
  are 0/1, the exact McNemar test (only queries one model solves and the other does not count;
  under "no difference" each is a fair coin); where ties under random tie-breaking make values
  fractional, a sign-flip permutation test on the per-query differences, its p-value computed
  exactly (binomial and enumeration, or convolution on the values' common grid) or, for values on
  no common grid with many distinct differences (nDCG), by a saddlepoint approximation; the method
  is named per test in `pairwise_tests.json`. `p` is the raw p-value;
  `p_holm` is adjusted (Holm) over all pairs of models on that metric, and is the one to use when
  scanning many pairs. `Δ [low, high]` is the difference of the scores with its paired-bootstrap
  95 % interval.
- **"≠ above"**: yes when the row differs from the row above on exec@1 at Holm-adjusted p < {alpha}.
  Rows without it are ordered by point estimate only.
- **Ties.** Every number is an exact expectation under a uniformly random order inside groups of
  equal scores (a canonical tied with three mutants at the top gives exec@1 = 0.25).
- **Deception** counts a (query, mutant, model) triple when the mutant scores at least the
  canonical. Pooled numbers pool the dense models only, as the study does (BM25's bag of words
  ties every swapped-argument mutant); BM25 keeps its own rows. **Family accuracy** is the share of
  queries whose canonical outranks all its own mutants (retrieval-free); read it against the
  **geometric chance level** (random query directions, the floor), not against 0.2. The canonical
  being the unique medoid of its family is a **construction property** of the benchmark, not a
  chance level.
- Analyses needing scores outside a model's top-ranked list use its frozen score matrix; with
  rankings alone the tables say so in a "population" column (the queries or triples decided).
"""


def _f(value: float | None, digits: int = 3) -> str:
    return "n/a" if value is None else f"{value:.{digits}f}"


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.1f} %"


def _p(value: float) -> str:
    return f"{value:.2g}" if value >= 1e-4 else f"{value:.1e}"


def _count_share(count: float, share: float | None) -> str:
    """``12.5 (45.0 %)``: an expected count (fractional under ties) and its share."""
    return f"{count:.1f} ({_pct(share)})" if share is not None else f"{count:.1f}"


def _fold(ids: Sequence[str], summary: str) -> str:
    """A long id list folded (GitHub and most renderers show a collapsible block)."""
    listed = ", ".join(f"`{q}`" for q in ids)
    return f"<details><summary>{summary}</summary>\n\n{listed}\n\n</details>\n"


def _population(result: AnalysisResult, model: str, decided: int, undecided: int, unit: str = "queries") -> str:
    """Who an analysis covers: all of them from a score matrix, or the decided ones from rankings alone."""
    if result.sources[model].value == "frozen_scores":
        return f"all {decided + undecided:,} {unit} (score matrix)"
    return f"{decided:,} of {decided + undecided:,} {unit} decided (rankings alone)"


def _table(header: Sequence[str], rows: Iterable[Sequence[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def _figure(name: str, caption: str) -> str:
    return f"![{caption}](figures/{name}.png)\n"


def _leaderboard(result: AnalysisResult) -> str:
    keys = [Metric.EXEC.key(k) for k in K_VALUES]
    rows = []
    for model in result.models:
        intervals, above = result.intervals[model], result.statistics.vs_above(model)
        cells = [model] + [intervals[k].format() if k in intervals else "n/a" for k in keys]
        if above is None:
            cells += ["", ""]
        else:
            cells += ["yes" if above.significant(result.statistics.config.alpha) else "no", _p(above.p_holm)]
        rows.append(cells)
    header = ["model"] + [f"exec@{k}" for k in K_VALUES] + ["≠ above", "p_holm vs above"]
    return "## Leaderboard with 95 % intervals\n\n" + _table(header, rows) + "\n" + \
        _figure("exec_at_1", "exec@1 with intervals") + "\n" + _figure("exec_at_k", "exec@k curves")


def _pairwise(result: AnalysisResult) -> str:
    pairs = [p for p in result.pairs if p.metric == MAIN_SCORE]
    out = ["## Pairwise tests on exec@1\n"]
    significant = {m: sum(1 for p in result.pairs if p.metric == m and p.significant(result.statistics.config.alpha))
                   for m in result.statistics.scores.metrics}
    total = len(pairs)
    out.append(f"Significant pairs (Holm p < {result.statistics.config.alpha}) per metric, of {total}: " +
               ", ".join(f"{m} {n}" for m, n in significant.items()) + ". Every pair and metric: `pairwise_tests.json`.\n")
    shown = pairs if len(pairs) <= 60 else [p for p in pairs if result.models.index(p.b) == result.models.index(p.a) + 1]
    if len(shown) < len(pairs):
        out.append("Adjacent rows of the leaderboard only:\n")
    rows = []
    deeper = [Metric.EXEC.key(k) for k in (3, 5) if Metric.EXEC.key(k) in result.statistics.scores.metrics]
    for p in shown:
        test = "McNemar" if p.test is PairedTest.MCNEMAR_EXACT else f"sign-flip ({p.method.value if p.method else ''})"
        detail = f"{p.counts.a_only} / {p.counts.b_only}" if p.counts else f"{p.nonzero_differences} differ"
        cells = [p.a, p.b, f"{p.delta:+.3f} [{p.ci_low:+.3f}, {p.ci_high:+.3f}]", test, detail, _p(p.p), _p(p.p_holm)]
        for key in deeper:
            other = result.statistics.pair(p.a, p.b, key)
            cells.append("n/a" if other is None else
                         f"{other.delta:+.3f} [{other.ci_low:+.3f}, {other.ci_high:+.3f}], p_holm {_p(other.p_holm)}")
        rows.append(cells)
    out.append(_table(["A", "B", "Δ exec@1 [95 %]", "test", "A only / B only", "p", "p_holm"] +
                      [f"Δ exec@{k} [95 %]" for k in (3, 5) if Metric.EXEC.key(k) in deeper], rows))
    return "\n".join(out)


def _misses(result: AnalysisResult) -> str:
    winners = [MissWinner.OWN_MUTANT, MissWinner.OTHER_TASK_SNIPPET, MissWinner.OTHER_CANONICAL]
    types = sorted({t for m in result.models for t in result.miss_attribution[m].own_mutant_by_bug_type})
    rows = []
    for model in result.models:
        miss = result.miss_attribution[model]
        by_type = miss.to_json()["own_mutant_share_by_bug_type"]
        rows.append([model, _f(miss.expected_misses, 1)] + [_count_share(miss.mass[w], miss.share(w)) for w in winners] +
                    [_count_share(miss.own_mutant_by_bug_type.get(t, 0.0), by_type.get(t)) for t in types])
    return ("## Rank-1 misses: what took rank 1\n\nAmong queries whose top 1 fails (expected count under ties), "
            "the number and share won by the query's own mutant, another task's snippet, or another canonical; then "
            "the own-mutant misses by the winning mutant's bug type (counts, and shares of all misses).\n\n" +
            _table(["model", "misses", "own mutant", "other task", "other canonical"] + types, rows))


def _gap_and_deception(result: AnalysisResult) -> str:
    rows = []
    for model in result.models:
        gap = result.similarity_gap[model]
        blob = gap.to_json()
        rows.append([model, _pct(gap.share_mutant_above), _pct(gap.share_mutant_at_least),
                     _f(blob["median_gap"], 4), _f(blob["mean_gap"], 4),
                     _population(result, model, gap.decided, gap.undecided)])
    header = ["model", "some mutant > canonical", "some mutant ≥ canonical", "median gap", "mean gap", "population"]
    gap_table = _table(header, rows)
    types = sorted({t for m in result.models for t in result.deception[m].by_bug_type})
    rows = [[model, _pct(result.deception[model].overall.rate)] +
            [_pct(result.deception[model].by_bug_type[t].rate) if t in result.deception[model].by_bug_type else "n/a"
             for t in types] +
            [_population(result, model, result.deception[model].overall.decided, result.deception[model].overall.undecided,
                         "triples")] for model in result.models]
    pooled = result.deception_pooled
    if result.dense_models:
        rows.append([f"**dense models pooled ({len(result.dense_models)})**", _pct(pooled.overall.rate)] +
                    [_pct(pooled.by_bug_type[t].rate) if t in pooled.by_bug_type else "n/a" for t in types] +
                    [f"{pooled.overall.decided:,} triples"])
    counts = ", ".join(f"{t} {n}" for t, n in _mutants_by_type(result).items())
    return ("## Canonical vs best mutant\n\nPer query, the canonical's score minus its best mutant's (in each "
            "model's own units). The study's statistic is the share of queries whose canonical scores strictly "
            "below at least one of its mutants (>); ≥ also counts ties.\n\n" + gap_table + "\n" +
            _figure("similarity_gap", "gap histograms") +
            f"\n## Deception by bug type\n\nMutants per type: {counts}.\n\n" +
            _table(["model", "overall"] + types + ["population"], rows) + "\n" +
            _figure("deception_by_bug_type", "deception by bug type"))


def _mutants_by_type(result: AnalysisResult) -> dict[str, int]:
    lb = result.length_bias_pooled
    return {bt: sum(groups.values()) for bt, groups in sorted(lb.mutants_by_bug_type.items())}


def _pool_density(result: AnalysisResult) -> str:
    densities = result.pool_density[result.models[0]].densities
    rows = []
    for model in result.models:
        pool = result.pool_density[model]
        rows.append([model] + [_f(v) for v in pool.expected_exec_at_1] +
                    ["yes" if pool.matches_leaderboard else "no", str(len(pool.not_computable))])
    return ("## Pool density\n\nExact expected exec@1 when each query keeps d of its own mutants (all subsets "
            "averaged, the rest of the corpus unchanged). d = 4 is the benchmark and equals the leaderboard.\n\n" +
            _table(["model"] + [f"d = {d}" for d in densities] + ["= leaderboard", "not computable"], rows) + "\n" +
            _figure("pool_density", "pool density"))


def _rho(sp: object) -> str:
    rho, p, n = getattr(sp, "rho"), getattr(sp, "p"), getattr(sp, "n")
    return "n/a" if rho is None else f"{rho:+.3f} (p {_p(p)}, n {n:,})"


def _edit_size_and_length(result: AnalysisResult) -> str:
    labels = [label for label, _, _ in BINS]
    pooled = result.edit_size_pooled
    rows = [[model] + [_pct(result.edit_size[model].by_bin[b].rate) for b in labels] +
            [_rho(result.edit_size[model].spearman_absolute), _rho(result.edit_size[model].spearman_relative)]
            for model in result.models]
    if result.dense_models:
        rows.append([f"**dense models pooled ({len(result.dense_models)})**"] + [_pct(pooled.by_bin[b].rate) for b in labels] +
                    [_rho(pooled.spearman_absolute), _rho(pooled.spearman_relative)])
    counts = ", ".join(f"{b}: {n}" for b, n in pooled.mutants_by_bin.items())
    edit = ("## Edit size vs deception\n\nCharacters in the non-equal regions of a character diff of mutant "
            f"and canonical (mutants per bin: {counts}); deception per bin over (query, mutant, model) triples. "
            "Spearman's rho (tie-aware) is over (canonical, mutant) pairs, one value per pair: its deception rate over "
            "the models of the row, against the absolute edit size and the edit size relative to the canonical's "
            "length.\n\n" + _table(["model"] + [f"{b} chars" for b in labels] + ["rho, absolute", "rho, relative"], rows))
    groups = list(LengthGroup)
    lb = result.length_bias_pooled
    rows = [[model] + [_pct(result.length_bias[model].deception[g].rate) for g in groups] for model in result.models]
    if result.dense_models:
        rows.append([f"**dense models pooled ({len(result.dense_models)})**"] + [_pct(lb.deception[g].rate) for g in groups])
    mutants = ", ".join(f"{g.value}: {n}" for g, n in lb.mutants.items())
    by_type = []
    for bt, cells in sorted(lb.deception_by_bug_type.items()):
        by_type.append([bt] + [f"{_pct(cells[g].rate)} (n {lb.mutants_by_bug_type[bt][g]})" if g in cells else "—"
                               for g in groups])
    scope = f"dense models pooled ({len(result.dense_models)})" if result.dense_models else "no dense model"
    length = ("\n## Length bias\n\nDeception for mutants shorter than, as long as, and longer than their canonical "
              f"(mutants: {mutants}).\n\n" + _table(["model"] + [f"{g.value}" for g in groups], rows) +
              "\nThe length groups are confounded with the bug type (guard removals are shorter, swapped arguments the "
              "same length), so per bug type and length group, " + scope + "; only a difference within one bug type "
              "points at length:\n\n" + _table(["bug type"] + [g.value for g in groups], by_type))
    return edit + length


def _delta(value: tuple[float, float, float] | None) -> str:
    if value is None:
        return "n/a"
    d, low, high = (100 * v for v in value)
    return f"{d:+.1f} [{low:+.1f}, {high:+.1f}]"


def _stacked(result: AnalysisResult) -> str:
    head = "## Stacked mutations\n\n"
    if isinstance(result.stacked, NotComputed):
        return head + result.stacked.reason.capitalize() + ".\n"
    entries = [(model, result.stacked[model]) for model in result.models]
    if not isinstance(result.stacked_pooled, NotComputed):
        entries.append((f"**dense models pooled ({len(result.stacked_pooled.models)})**", result.stacked_pooled))
    counts = sorted({k for _, e in entries if not isinstance(e, NotComputed) for k in e.counts})
    rows = []
    for name, entry in entries:
        if isinstance(entry, NotComputed):
            rows.append([name, entry.reason] + [""] * (2 * len(counts) - 1))
            continue
        rows.append([name, f"{entry.queries:,}"] + [_pct(entry.rates.get(k)) for k in counts] +
                    [_delta(entry.deltas.get(k)) for k in counts[1:]])
    return head + ("Deception on execution-verified stacked mutants (2-4 composed edits) against single edits, as the "
                   "study compares them: only queries with a variant at every number of edits, per query first (the mean "
                   "over its variants of each count), then over the queries, and for the pooled row over the models. "
                   f"Δ is in percentage points against single edits, with a query-bootstrap 95 % interval "
                   f"({result.statistics.config.bootstrap_replicates:,} replicates).\n\n") + \
        _table(["model", "queries"] + [f"{k} edit{'s' if k > 1 else ''}" for k in counts] +
               [f"Δ {k} edits (points)" for k in counts[1:]], rows)


def _family_accuracy(result: AnalysisResult) -> str:
    rows = []
    for model in result.models:
        fa = result.family_accuracy[model]
        chance = result.geometric_chance[model]
        chance_text = chance.reason if isinstance(chance, NotComputed) else _f(chance.chance)
        rows.append([model, _f(fa.accuracy), chance_text, _population(result, model, fa.decided, fa.undecided)])
    base = result.structure_baseline
    naive = result.family_accuracy[result.models[0]].naive_chance
    return ("## Family accuracy\n\nThe share of queries whose canonical outranks all of its own mutants (ties "
            "share the credit). The floor to read it against is the **geometric chance level**: the probability "
            f"that a random query direction ranks the canonical first in its family (naive chance, {_f(naive)}, "
            "assumes the canonical is no different from its mutants). **Construction property**: the canonical is the "
            f"unique medoid (smallest total token edit distance to its siblings) of {base.canonical_unique_medoid:,} of "
            f"{base.per_query.size:,} families, so picking the medoid without reading the query scores "
            f"{_f(base.accuracy, 4)}. That is how the families are built (every mutant is one edit of its canonical), "
            "not a chance level or a floor.\n\n" +
            _table(["model", "family accuracy", "geometric chance", "population"], rows) + "\n" +
            _figure("family_accuracy", "family accuracy"))


def _truncation(result: AnalysisResult) -> str:
    rows, flagged = [], []
    for model in result.models:
        entry = result.truncation[model]
        if isinstance(entry, NotComputed):
            rows.append([model, entry.reason, "", "", "", ""])
            continue
        lengths = entry.lengths
        if isinstance(lengths, NotComputed):
            length_cells = [lengths.reason, "", ""]
        else:
            length_cells = [f"{lengths.max_length:,}", f"{lengths.snippets_over:,} of {lengths.snippets:,}",
                            f"{lengths.queries_over:,} of {lengths.queries:,}"]
            if lengths.snippets_over or lengths.queries_over:
                flagged.append(f"**{model}**: {lengths.snippets_over} of {lengths.snippets} snippets and "
                               f"{lengths.queries_over} of {lengths.queries} queries are longer than its maximum "
                               f"sequence length of {lengths.max_length} tokens; it reads only their first "
                               f"{lengths.max_length} tokens.")
        rows.append([model, *length_cells, f"{entry.identical_mutants:,} of {entry.mutants:,}", f"{entry.families:,}"])
        if entry.identical_mutants:
            flagged.append(f"**{model}**: {entry.identical_mutants} mutants in {entry.families} families embed exactly "
                           "like their canonical (a mutation past the model's maximum sequence length is cut off); they "
                           "tie it under every query.")
    return ("## Truncation\n\nA dense model reads at most its maximum sequence length in tokens (special tokens and "
            "prompt included, counted with its own tokenizer when it ran); the rest of a longer input is cut off. Beside "
            "that count, the mutants it embeds identically to their canonical (from its corpus embeddings).\n\n" +
            _table(["model", "max length (tokens)", "snippets over it", "queries over it", "mutants embedded identically",
                    "families"], rows) +
            ("\n" + "\n".join(f"- ⚠ {line}" for line in flagged) + "\n" if flagged else ""))


def _domains_and_difficulty(result: AnalysisResult) -> str:
    pd = result.per_domain

    def cell(mean: float, ci: tuple[float, float]) -> str:
        return f"{mean:.3f} [{ci[0]:.3f}, {ci[1]:.3f}]"

    rows = [[model] + [cell(pd.by_model[model][d][MAIN_SCORE], pd.by_model_ci[model][d][MAIN_SCORE]) for d in pd.domains]
            for model in result.models]
    rows.append(["**mean of models**"] + [cell(pd.across_models[d][MAIN_SCORE], pd.across_models_ci[d][MAIN_SCORE])
                                          for d in pd.domains])
    hardest = pd.hardest(MAIN_SCORE)
    ranked = sorted(pd.domains, key=lambda d: (pd.across_models[d][MAIN_SCORE], d))
    sentence = ""
    if hardest is not None:
        sentence = (f"\nHardest domain across models: **{hardest}**, mean exec@1 "
                    f"{cell(pd.across_models[hardest][MAIN_SCORE], pd.across_models_ci[hardest][MAIN_SCORE])} "
                    f"over {pd.queries[hardest]} queries")
        if len(ranked) > 1:
            runner = ranked[1]
            overlap = pd.across_models_ci[runner][MAIN_SCORE][0] <= pd.across_models_ci[hardest][MAIN_SCORE][1]
            sentence += (f"; next {runner} "
                         f"{cell(pd.across_models[runner][MAIN_SCORE], pd.across_models_ci[runner][MAIN_SCORE])}"
                         + (" (the intervals overlap: the order of the two is not settled)" if overlap else ""))
        sentence += ".\n\n"
    difficulty = result.difficulty.to_json()
    unsolved = difficulty["unsolved_query_ids"]
    return ("## Per domain (exec@1, 95 % query-bootstrap intervals)\n\n" + _table(["model"] + list(pd.domains), rows) +
            sentence + _figure("per_domain", "per-domain exec@1 with intervals") +
            f"\n## Query difficulty\n\nExpected number of the {difficulty['systems']} systems solving each query at rank 1: "
            f"median {_f(difficulty['median_expected_solvers'], 2)}, mean {_f(difficulty['mean_expected_solvers'], 2)}; "
            f"{difficulty['solved_by_all']} queries solved by all, {difficulty['solved_by_none']} by none.\n" +
            ("\n" + _fold(unsolved, f"the {len(unsolved)} queries no system solves") if unsolved else ""))


def render_report(result: AnalysisResult, fingerprints: Sequence[str] = ()) -> str:
    config: StatsConfig = result.statistics.config
    header = (f"# ExecRetrieval: statistics and analyses\n\n{len(result.models)} models on "
              f"{len(result.statistics.scores.query_ids):,} queries" +
              (f" (dataset {', '.join(sorted(set(fingerprints)))})" if fingerprints else "") + ". Machine-readable: "
              "`confidence_intervals.json`, `pairwise_tests.json`, `analyses.json`.\n\n")
    how = HOW_TO_READ.format(replicates=config.bootstrap_replicates, alpha=config.alpha)
    sections = [header + how, _leaderboard(result), _pairwise(result), _misses(result), _gap_and_deception(result),
                _pool_density(result), _edit_size_and_length(result), _stacked(result), _family_accuracy(result),
                _truncation(result), _domains_and_difficulty(result)]
    return "\n".join(sections)
