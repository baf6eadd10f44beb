"""write_analysis on the bundled dataset with real BM25 reports (ties!) and a synthetic dense model:
the files, their shapes, the report's sections, and byte-identical output for identical inputs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from analysis_helpers import RealModel

from execretrieval_mteb.analysis import (Analysis, AnalysisResult, PairedTest, StackedScores, TokenLengths,
                                        write_analysis)
from execretrieval_mteb.analysis.config import StatsConfig
from execretrieval_mteb.analysis.figures import FIGURES
from execretrieval_mteb.analysis.synthetic import synthetic_systems
from execretrieval_mteb.dataset.io import BuiltDataset
from execretrieval_mteb.evaluation.metric_names import K_VALUES, MAIN_SCORE, Metric

FAST = StatsConfig(bootstrap_replicates=1000, directions=2000)


Written = tuple[Path, AnalysisResult]


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory, bundled: BuiltDataset, bm25_models: list[RealModel]) -> Written:
    out = tmp_path_factory.mktemp("analysis")
    frozen = {m.report.model.name: m.frozen for m in bm25_models}
    result = write_analysis(out, [m.report for m in bm25_models], bundled, frozen=frozen)
    return out, result


def test_files_and_their_shapes(written: Written, bm25_models: list[RealModel]) -> None:
    out, result = written
    names = {p.relative_to(out).as_posix() for p in result.files}
    assert {"confidence_intervals.json", "pairwise_tests.json", "analyses.json", "report.md"} <= names
    assert {f"figures/{f}.{ext}" for f in FIGURES for ext in ("png", "svg")} <= names
    intervals = json.loads((out / "confidence_intervals.json").read_text())
    for model in bm25_models:
        entry = intervals[model.report.model.name][MAIN_SCORE]
        assert set(entry) == {"mean", "ci95_low", "ci95_high", "n", "bootstrap_samples", "seed"}
        assert entry["mean"] == model.report.means()[MAIN_SCORE]  # the leaderboard's number, exactly
        assert entry["ci95_low"] <= entry["mean"] <= entry["ci95_high"] and entry["n"] == 1009
        assert entry["bootstrap_samples"] == 5000
    pairs = json.loads((out / "pairwise_tests.json").read_text())
    (label,) = pairs
    assert set(pairs[label]) == {m.key(k) for m in Metric for k in K_VALUES}
    for entry in pairs[label].values():
        assert entry["test"] in {t.value for t in PairedTest}
        assert {"a_only", "b_only", "both", "neither", "a_rate", "b_rate", "delta", "mcnemar_exact_p",
                "bootstrap_ci_95", "p", "p_holm"} <= set(entry)
        assert entry["p_holm"] == entry["p"]  # one pair: nothing to adjust
    analyses = json.loads((out / "analyses.json").read_text())
    assert {a.value for a in Analysis} <= set(analyses)
    assert analyses[Analysis.STACKED.value] == {"computed": False, "reason": "not computed: run with stacked mutants"}
    for model in bm25_models:
        assert analyses[Analysis.GEOMETRIC_CHANCE.value][model.report.model.name]["computed"] is False


def test_bm25_ties_make_values_fractional_and_swapped_arguments_deceive(written: Written, bm25_models: list[RealModel]) -> None:
    _, result = written
    exec1 = [list(m.report.scores.values[MAIN_SCORE].values()) for m in bm25_models]
    assert all(any(0.0 < v < 1.0 for v in values) for values in exec1)  # tie groups straddle rank 1
    pair = result.pairs[0]
    assert pair.metric == MAIN_SCORE and pair.test is PairedTest.SIGN_FLIP_PERMUTATION
    for model in result.models:
        # a bag-of-tokens model cannot see swapped arguments: every such mutant ties its canonical
        assert result.deception[model].by_bug_type["swap_arguments"].rate == 1.0
        gap = result.similarity_gap[model]  # so "strictly below a mutant" is far rarer than "a mutant at least ties"
        assert gap.share_mutant_above is not None and gap.share_mutant_at_least is not None
        assert gap.share_mutant_above < gap.share_mutant_at_least - 0.3 and gap.decided_above == 1009
        assert result.pool_density[model].matches_leaderboard
        assert result.similarity_gap[model].decided == 1009


def test_report_sections_and_leaderboard_rows(written: Written) -> None:
    out, result = written
    text = (out / "report.md").read_text()
    for heading in ("## How to read this", "## Leaderboard with 95 % intervals", "## Pairwise tests on exec@1",
                    "## Rank-1 misses", "## Canonical vs best mutant", "## Deception by bug type", "## Pool density",
                    "## Edit size vs deception", "## Length bias", "## Stacked mutations", "## Family accuracy",
                    "## Per domain", "## Query difficulty"):
        assert heading in text
    first, second = result.models[:2]
    assert result.intervals[first][MAIN_SCORE].format() in text
    above = result.statistics.vs_above(second)
    assert above is not None and f"| {second} |" in text and ("| yes |" if above.p_holm < 0.05 else "| no |") in text
    assert "figures/exec_at_1.png" in text and str(out) not in text


def test_rankings_alone_agree_with_the_frozen_matrix_where_they_decide(
        tmp_path: Path, bundled: BuiltDataset, bm25_models: list[RealModel], written: Written) -> None:
    _, with_frozen = written
    alone = write_analysis(tmp_path, [m.report for m in bm25_models], bundled, config=FAST, figures=False)
    for model in alone.models:
        a, f = alone.deception[model].overall, with_frozen.deception[model].overall
        assert f.undecided == 0 and a.decided + a.undecided == f.decided
        assert alone.pool_density[model].expected_exec_at_1 == with_frozen.pool_density[model].expected_exec_at_1
        assert alone.sources[model].value == "rankings"


def _inputs(bundled: BuiltDataset, bm25_models: list[RealModel]) -> dict[str, Any]:
    """Two BM25 models (one with its matrix), a synthetic dense model with embeddings and stacked mutants."""
    (dense,) = synthetic_systems(bundled, 1, seed=7)
    name = dense.report.model.name
    entries = tuple(q.entry_id for q in bundled.queries[:50]) * 3
    rng = np.random.default_rng(0)
    stacked = StackedScores(dense.frozen.query_ids, tuple(f"s{i}" for i in range(150)),
                            rng.random((1009, 150)).astype(np.float32), entries, (2,) * 50 + (3,) * 50 + (4,) * 50)
    return {"reports": [m.report for m in bm25_models] + [dense.report],
            "frozen": {bm25_models[0].report.model.name: bm25_models[0].frozen, name: dense.frozen},
            "stacked": {name: stacked}, "embeddings": {name: dense.embeddings},
            "token_lengths": {name: TokenLengths(max_length=256, snippets=5047, snippets_over=3, queries=1009,
                                                 queries_over=0)}}


def test_every_input_at_once_and_byte_identical_output(tmp_path: Path, bundled: BuiltDataset,
                                                       bm25_models: list[RealModel]) -> None:
    inputs = _inputs(bundled, bm25_models)
    first = write_analysis(tmp_path / "one", dataset=bundled, config=FAST, **inputs)
    dense = inputs["reports"][-1].model.name
    assert first.geometric_chance[dense].to_json()["chance"] is not None
    assert first.stacked[dense].queries == 50 and first.stacked[dense].variants == 150  # type: ignore[index,union-attr]
    assert first.stacked_pooled.models == (dense,)  # type: ignore[union-attr]
    assert first.truncation[dense].identical_mutants == 0  # type: ignore[union-attr]
    assert first.sources[bm25_models[1].report.model.name].value == "rankings"
    # pooled numbers pool the dense model only: BM25's ties stay in its own rows
    assert first.dense_models == (dense,)
    assert first.deception_pooled == first.deception[dense]
    assert first.length_bias_pooled == first.length_bias[dense]
    analyses = json.loads((tmp_path / "one" / "analyses.json").read_text())
    assert analyses[Analysis.DECEPTION.value]["pooled"]["models"] == [dense]
    # the run's token counts reach the truncation entry and the report flags the over-length snippets
    truncated = analyses[Analysis.TRUNCATION.value]
    assert (truncated[dense]["max_seq_length"], truncated[dense]["snippets_over_max_length"]) == (256, 3)
    assert truncated[bm25_models[0].report.model.name]["computed"] is False  # BM25 has no length limit
    # per-domain means carry intervals, and the hardest-domain sentence quotes one
    domains = first.per_domain
    for d in domains.domains:
        low, high = domains.across_models_ci[d][MAIN_SCORE]
        assert low <= domains.across_models[d][MAIN_SCORE] <= high
    hardest = domains.hardest(MAIN_SCORE)
    low, high = domains.across_models_ci[hardest][MAIN_SCORE]
    report = (tmp_path / "one" / "report.md").read_text()
    assert f"Hardest domain across models: **{hardest}**" in report and f"[{low:.3f}, {high:.3f}]" in report
    assert "| Δ exec@3 [95 %] | Δ exec@5 [95 %] |" in report and "population" in report
    assert f"**{dense}**: 3 of 5047 snippets and 0 of 1009 queries are longer than its maximum sequence length" in report
    second = write_analysis(tmp_path / "two", dataset=bundled, config=FAST, **_inputs(bundled, bm25_models))
    files = sorted(p.relative_to(tmp_path / "one") for p in first.files)
    assert files == sorted(p.relative_to(tmp_path / "two") for p in second.files)
    for relative in files:
        assert (tmp_path / "one" / relative).read_bytes() == (tmp_path / "two" / relative).read_bytes(), relative
