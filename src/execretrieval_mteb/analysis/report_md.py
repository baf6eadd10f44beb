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
  fractional, a sign-flip permutation test on the per-query differences ({permutations:,} random
  flips, exact enumeration when at most {exact} differences are non-zero). `p` is the raw p-value;
  `p_holm` is adjusted (Holm) over all pairs of models on that metric, and is the one to use when
  scanning many pairs. `Δ [low, high]` is the difference of the scores with its paired-bootstrap
  95 % interval.
- **"≠ above"**: yes when the row differs from the row above on exec@1 at Holm-adjusted p < {alpha}.
  Rows without it are ordered by point estimate only.
- **Ties.** Every number is an exact expectation under a uniformly random order inside groups of
  equal scores (a canonical tied with three mutants at the top gives exec@1 = 0.25).
- **Deception** counts a (query, mutant, model) triple when the mutant scores at least the
  canonical. **Family accuracy** is the share of queries whose canonical outranks all its own
  mutants (retrieval-free); read it against the **geometric chance level** (random query
  directions) and the **structure-only baseline** (no query at all), not against 0.2.
- Analyses needing scores outside a model's top-ranked list use its frozen score matrix; with
  rankings alone they report how many cases they could not decide.
"""


def _f(value: float | None, digits: int = 3) -> str:
    return "n/a" if value is None else f"{value:.{digits}f}"


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.1f} %"


def _p(value: float) -> str:
    return f"{value:.2g}" if value >= 1e-4 else f"{value:.1e}"


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
    for p in shown:
        test = "McNemar" if p.test is PairedTest.MCNEMAR_EXACT else ("sign-flip, exact" if p.exact else "sign-flip")
        detail = f"{p.counts.a_only} / {p.counts.b_only}" if p.counts else f"{p.nonzero_differences} differ"
        rows.append([p.a, p.b, f"{p.delta:+.3f} [{p.ci_low:+.3f}, {p.ci_high:+.3f}]", test, detail, _p(p.p), _p(p.p_holm)])
    out.append(_table(["A", "B", "Δ exec@1 [95 %]", "test", "A only / B only", "p", "p_holm"], rows))
    return "\n".join(out)


def _misses(result: AnalysisResult) -> str:
    winners = [MissWinner.OWN_MUTANT, MissWinner.OTHER_TASK_SNIPPET, MissWinner.OTHER_CANONICAL]
    types = sorted({t for m in result.models for t in result.miss_attribution[m].own_mutant_by_bug_type})
    rows = []
    for model in result.models:
        miss = result.miss_attribution[model]
        by_type = miss.to_json()["own_mutant_share_by_bug_type"]
        rows.append([model, _f(miss.expected_misses, 1)] + [_pct(miss.share(w)) for w in winners] +
                    [_pct(by_type.get(t)) for t in types])
    return ("## Rank-1 misses: what took rank 1\n\nAmong queries whose top 1 fails (expected count under ties), "
            "the share won by the query's own mutant, another task's snippet, or another canonical; then the "
            "own-mutant misses by the winning mutant's bug type (shares of all misses).\n\n" +
            _table(["model", "misses", "own mutant", "other task", "other canonical"] + types, rows))


def _gap_and_deception(result: AnalysisResult) -> str:
    rows = []
    for model in result.models:
        gap = result.similarity_gap[model].to_json()
        rows.append([model, result.sources[model].value, _pct(gap["share_some_mutant_at_least_canonical"]),
                     _f(gap["median_gap"], 4), _f(gap["mean_gap"], 4), f"{gap['gap_known']}"])
    header = ["model", "scores from", "some mutant ≥ canonical", "median gap", "mean gap", "queries with known gap"]
    gap_table = _table(header, rows)
    types = sorted(result.deception_pooled.by_bug_type)
    rows = [[model, _pct(result.deception[model].overall.rate)] +
            [_pct(result.deception[model].by_bug_type[t].rate) for t in types] for model in result.models]
    rows.append(["**all models pooled**", _pct(result.deception_pooled.overall.rate)] +
                [_pct(result.deception_pooled.by_bug_type[t].rate) for t in types])
    undecided = sum(result.deception[m].overall.undecided for m in result.models)
    note = f"\n{undecided} (query, mutant, model) triples could not be decided from rankings alone.\n" if undecided else ""
    return ("## Canonical vs best mutant\n\nPer query, the canonical's score minus its best mutant's (in each "
            "model's own units).\n\n" + gap_table + "\n" + _figure("similarity_gap", "gap histograms") +
            "\n## Deception by bug type\n\n" + _table(["model", "overall"] + types, rows) + note + "\n" +
            _figure("deception_by_bug_type", "deception by bug type"))


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


def _edit_size_and_length(result: AnalysisResult) -> str:
    labels = [label for label, _, _ in BINS]
    pooled = result.edit_size_pooled
    rows = [[model] + [_pct(result.edit_size[model].by_bin[b].rate) for b in labels] +
            [_f(result.edit_size[model].spearman.rho)] for model in result.models]
    rows.append(["**pooled**"] + [_pct(pooled.by_bin[b].rate) for b in labels] + [_f(pooled.spearman.rho)])
    counts = ", ".join(f"{b}: {n}" for b, n in pooled.mutants_by_bin.items())
    edit = ("## Edit size vs deception\n\nCharacters in the non-equal regions of a character diff of mutant "
            f"and canonical (mutants per bin: {counts}); Spearman's rho between edit size and the deceived "
            "indicator (tie-aware).\n\n" + _table(["model"] + [f"{b} chars" for b in labels] + ["Spearman rho"], rows))
    groups = list(LengthGroup)
    lb = result.length_bias_pooled
    rows = [[model] + [_pct(result.length_bias[model].deception[g].rate) for g in groups] for model in result.models]
    rows.append(["**pooled**"] + [_pct(lb.deception[g].rate) for g in groups])
    mutants = ", ".join(f"{g.value}: {n}" for g, n in lb.mutants.items())
    length = ("\n## Length bias\n\nDeception for mutants shorter than, as long as, and longer than their canonical "
              f"(mutants: {mutants}).\n\n" + _table(["model"] + [f"{g.value}" for g in groups], rows))
    return edit + length


def _stacked(result: AnalysisResult) -> str:
    head = "## Stacked mutations\n\n"
    if isinstance(result.stacked, NotComputed):
        return head + result.stacked.reason.capitalize() + ".\n"
    rows = []
    for model in result.models:
        entry = result.stacked[model]
        if isinstance(entry, NotComputed):
            rows.append([model, entry.reason, "", ""])
        else:
            rows.append([model, _pct(entry.stacked.rate), _pct(entry.single_same_families.rate), _f(entry.difference_points, 1)])
    return head + ("Deception on execution-verified stacked mutants (2-4 composed edits) against single edits of "
                   "the same families.\n\n") + _table(["model", "stacked", "single", "difference (points)"], rows)


def _family_accuracy(result: AnalysisResult) -> str:
    rows = []
    for model in result.models:
        fa = result.family_accuracy[model]
        chance = result.geometric_chance[model]
        chance_text = chance.reason if isinstance(chance, NotComputed) else _f(chance.chance)
        rows.append([model, _f(fa.accuracy), chance_text, f"{fa.decided}"])
    base = result.structure_baseline
    naive = result.family_accuracy[result.models[0]].naive_chance
    return ("## Family accuracy\n\nThe share of queries whose canonical outranks all of its own mutants (ties "
            f"share the credit). Naive chance: {_f(naive)}. **Structure-only baseline**: picking each family's "
            "medoid (smallest total token edit distance to its siblings) without reading the query scores "
            f"**{_f(base.accuracy, 4)}** (canonical the unique medoid in {base.canonical_unique_medoid} of "
            f"{base.per_query.size} families): every mutant is one edit of its canonical, so structure alone "
            "finds it; that is not understanding code. The **geometric chance level** is the probability that "
            "a random query direction ranks the canonical first in its family.\n\n" +
            _table(["model", "family accuracy", "geometric chance", "queries decided"], rows) + "\n" +
            _figure("family_accuracy", "family accuracy"))


def _domains_and_difficulty(result: AnalysisResult) -> str:
    pd = result.per_domain
    rows = [[model] + [_f(pd.by_model[model][d][MAIN_SCORE]) for d in pd.domains] for model in result.models]
    rows.append(["**mean of models**"] + [_f(pd.across_models[d][MAIN_SCORE]) for d in pd.domains])
    difficulty = result.difficulty.to_json()
    unsolved = difficulty["unsolved_query_ids"]
    listed = ", ".join(f"`{q}`" for q in unsolved[:40]) + (" ..." if len(unsolved) > 40 else "")
    return ("## Per domain (exec@1)\n\n" + _table(["model"] + list(pd.domains), rows) +
            f"\nHardest domain across models: **{pd.hardest(MAIN_SCORE)}**.\n\n" + _figure("per_domain", "per-domain heatmap") +
            f"\n## Query difficulty\n\nExpected number of the {difficulty['systems']} systems solving each query at rank 1: "
            f"median {_f(difficulty['median_expected_solvers'], 2)}, mean {_f(difficulty['mean_expected_solvers'], 2)}; "
            f"{difficulty['solved_by_all']} queries solved by all, {difficulty['solved_by_none']} by none"
            + (f": {listed}" if unsolved else "") + ".\n")


def render_report(result: AnalysisResult, fingerprints: Sequence[str] = ()) -> str:
    config: StatsConfig = result.statistics.config
    header = (f"# ExecRetrieval: statistics and analyses\n\n{len(result.models)} models on "
              f"{len(result.statistics.scores.query_ids):,} queries" +
              (f" (dataset {', '.join(sorted(set(fingerprints)))})" if fingerprints else "") + ". Machine-readable: "
              "`confidence_intervals.json`, `pairwise_tests.json`, `analyses.json`.\n\n")
    how = HOW_TO_READ.format(replicates=config.bootstrap_replicates, permutations=config.permutations,
                             exact=config.exact_max_nonzero, alpha=config.alpha)
    sections = [header + how, _leaderboard(result), _pairwise(result), _misses(result), _gap_and_deception(result),
                _pool_density(result), _edit_size_and_length(result), _stacked(result), _family_accuracy(result),
                _domains_and_difficulty(result)]
    return "\n".join(sections)
