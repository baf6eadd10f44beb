"""Every statistic and analysis of a set of model reports, computed without writing anything.

Inputs are only ``ModelReport``s (rankings, verdicts, per-query metrics), optional full score
matrices (``FrozenScores``), optional corpus embeddings of dense models (``FamilyEmbeddings``, for
the geometric chance level), optional stacked-mutant scores (``StackedScores``), optional token
counts of a dense model's run (``TokenLengths``, for truncation), and the dataset.
Nothing here imports mteb or runs the oracle.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..dataset.io import BuiltDataset
from ..evaluation.model_report import FrozenScores, ModelReport
from .config import StatsConfig
from .deception import deception, pooled
from .difficulty import difficulty
from .edit_size import edit_size_vs_deception, family_edit_sizes
from .family import Families
from .family_accuracy import family_accuracy
from .family_scores import all_family_scores
from .geometric_chance import FamilyEmbeddings, GeometricChance, geometric_chance
from .length_bias import length_bias, length_groups
from .miss_attribution import miss_attribution
from .not_computed import NotComputed
from .per_domain import per_domain
from .pool_density import pool_density
from .result import AnalysisResult
from .similarity_gap import similarity_gap
from .stacked import NOT_COMPUTED, StackedDeception, StackedScores, stacked_deception, stacked_per_query
from .statistics import compute_statistics
from .structure_baseline import structure_baseline
from .truncation import TokenLengths, Truncation, truncation

NO_EMBEDDINGS = "not computed: needs the model's corpus embeddings (embeddings/<model>.npz)"
NOT_DENSE = "not computed: not a dense embedding model"
NO_TOKEN_LENGTHS = ("not computed: the run record (embeddings/<model>.json) holds no token counts; "
                    "`execretrieval run --overwrite` re-encodes the model and counts them")


def analyse(
    reports: Sequence[ModelReport],
    dataset: BuiltDataset,
    frozen: Mapping[str, FrozenScores] | None = None,
    stacked: Mapping[str, StackedScores] | None = None,
    embeddings: Mapping[str, FamilyEmbeddings] | None = None,
    token_lengths: Mapping[str, TokenLengths | NotComputed] | None = None,
    config: StatsConfig = StatsConfig(),
) -> AnalysisResult:
    if not reports:
        raise ValueError("no model reports to analyse")
    families = Families.from_dataset(dataset)
    for report in reports:
        if set(report.query_ids) != set(families.query_ids):
            raise ValueError(
                f"{report.model.name}: its {len(report.query_ids)} queries are not the dataset's "
                f"{families.size} ({dataset.root}); analyse reports of this dataset only"
            )
    statistics = compute_statistics(reports, config, families.query_ids)
    models = statistics.scores.models
    by_name = {r.model.name: r for r in reports}
    ordered = [by_name[m] for m in models]
    scores = all_family_scores(families, ordered, frozen)
    deceived = {m: s.deceived() for m, s in scores.items()}
    sizes = family_edit_sizes(families)
    lengths = length_groups(families)
    per_model_deception = {m: deception(deceived[m], families) for m in models}
    dense = tuple(m for m in models if by_name[m].model.similarity != "bm25")
    dense_deceived = {m: deceived[m] for m in dense}

    stacked_out: dict[str, StackedDeception | NotComputed] | NotComputed
    stacked_pooled: StackedDeception | NotComputed = NotComputed(NOT_COMPUTED)
    if not stacked:
        stacked_out = NotComputed(NOT_COMPUTED)
    else:
        per_query = {m: stacked_per_query(stacked[m], scores[m], families) for m in models if m in stacked}
        stacked_out = {m: stacked_deception({m: per_query[m]}, config) if m in per_query else NotComputed(NOT_COMPUTED)
                       for m in models}
        pooled_models = {m: per_query[m] for m in dense if m in per_query}
        if pooled_models:
            stacked_pooled = stacked_deception(pooled_models, config)

    chance: dict[str, GeometricChance | NotComputed] = {}
    truncated: dict[str, Truncation | NotComputed] = {}
    for m in models:
        if embeddings and m in embeddings:
            chance[m] = geometric_chance(embeddings[m], families, config.directions, config.directions_seed)
            counted = (token_lengths or {}).get(m, NotComputed(NO_TOKEN_LENGTHS))
            truncated[m] = truncation(embeddings[m], families, counted)
        else:
            chance[m] = truncated[m] = NotComputed(NOT_DENSE if by_name[m].model.similarity == "bm25" else NO_EMBEDDINGS)

    return AnalysisResult(
        statistics=statistics,
        sources={m: s.source for m, s in scores.items()},
        miss_attribution={m: miss_attribution(by_name[m], families) for m in models},
        similarity_gap={m: similarity_gap(scores[m]) for m in models},
        deception=per_model_deception,
        dense_models=dense,
        deception_pooled=pooled({m: per_model_deception[m] for m in dense}),
        pool_density={m: pool_density(by_name[m], families) for m in models},
        edit_size={m: edit_size_vs_deception(sizes, {m: deceived[m]}, families) for m in models},
        edit_size_pooled=edit_size_vs_deception(sizes, dense_deceived, families),
        stacked=stacked_out,
        stacked_pooled=stacked_pooled,
        per_domain=per_domain(statistics.scores, families, config),
        difficulty=difficulty(statistics.scores),
        family_accuracy={m: family_accuracy(scores[m], families) for m in models},
        structure_baseline=structure_baseline(families),
        geometric_chance=chance,
        length_bias={m: length_bias(lengths, {m: deceived[m]}, families) for m in models},
        length_bias_pooled=length_bias(lengths, dense_deceived, families),
        truncation=truncated,
    )
