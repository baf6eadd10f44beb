"""The two reference levels of family accuracy: the geometric chance level of random query
directions, and the structure-only medoid baseline (with its token Levenshtein distance)."""

from __future__ import annotations

import numpy as np
import pytest
from analysis_helpers import tiny_dataset

from execretrieval_mteb.analysis.family import Families
from execretrieval_mteb.analysis.geometric_chance import FamilyEmbeddings, Similarity, geometric_chance
from execretrieval_mteb.analysis.structure_baseline import levenshtein, python_tokens, structure_baseline

DATASET = tiny_dataset({e: (f"def {e}(x):\n    return x < 1\n", [(f"def {e}(x):\n    return x <= 1\n", "wrong_comparison"),
                                                                  (f"def {e}(x):\n    return x < 2\n", "off_by_one"),
                                                                  (f"def {e}(x):\n    return 1 < x\n", "swap_arguments"),
                                                                  (f"def {e}(x):\n    return x > 1\n", "wrong_comparison")])
                        for e in "abc"})
FAMILIES = Families.from_dataset(DATASET)
IDS = tuple(c.corpus_id for c in DATASET.corpus)


def _embeddings(points: dict[str, list[float]], similarity: Similarity = Similarity.DOT) -> FamilyEmbeddings:
    return FamilyEmbeddings(IDS, np.array([points[c] for c in IDS], dtype=np.float32), similarity)


def _family_points(canonical: list[float], mutants: list[list[float]]) -> dict[str, list[float]]:
    points = {}
    for e in "abc":
        points[f"{e}_c"] = canonical
        points.update({f"{e}_m{j}": m for j, m in enumerate(mutants)})
    return points


def test_a_canonical_at_the_centre_of_its_mutants_never_wins() -> None:
    points = _family_points([0.0, 0.0], [[1.0, 0.0], [-1.0, 0.0], [0.0, 1.0], [0.0, -1.0]])
    result = geometric_chance(_embeddings(points), FAMILIES, directions=5000, seed=0)
    assert result.chance == 0.0 and result.never_wins == 3


def test_a_vertex_of_a_regular_pentagon_wins_a_fifth_of_the_directions() -> None:
    angles = 2 * np.pi * np.arange(5) / 5
    vertices = [[float(np.cos(a)), float(np.sin(a))] for a in angles]
    result = geometric_chance(_embeddings(_family_points(vertices[0], vertices[1:])), FAMILIES, directions=20_000, seed=1)
    assert result.chance == pytest.approx(0.2, abs=0.01)


def test_identical_embeddings_share_the_win() -> None:
    # canonical and m0 identical at (1, 0); the others at the centre-left: they tie in every direction
    # where (1, 0) beats the rest, i.e. half the circle minus nothing -> 0.5 * 1/2
    points = _family_points([1.0, 0.0], [[1.0, 0.0], [0.0, 0.0], [0.0, 0.0], [0.0, 0.0]])
    result = geometric_chance(_embeddings(points), FAMILIES, directions=20_000, seed=2)
    assert result.chance == pytest.approx(0.25, abs=0.01)


def test_the_low_dimensional_reduction_matches_sampling_directions_in_the_full_space() -> None:
    rng = np.random.default_rng(3)
    dim = 12
    matrix = rng.standard_normal((len(IDS), dim)).astype(np.float32)
    centre = rng.standard_normal(dim)
    for e in "abc":  # a tighter family around a shared centre, like real mutants
        rows = [IDS.index(f"{e}_c")] + [IDS.index(f"{e}_m{j}") for j in range(4)]
        matrix[rows] = centre + 0.3 * rng.standard_normal((5, dim))
    ours = geometric_chance(FamilyEmbeddings(IDS, matrix, Similarity.COSINE), FAMILIES, directions=20_000, seed=4)
    normalised = matrix / np.linalg.norm(matrix, axis=1, keepdims=True)
    u = np.random.default_rng(5).standard_normal((dim, 100_000))
    for row, e in enumerate("abc"):
        members = normalised[[IDS.index(f"{e}_c")] + [IDS.index(f"{e}_m{j}") for j in range(4)]] @ u
        brute = float(np.mean(np.argmax(members, axis=0) == 0))
        assert ours.per_query[row] == pytest.approx(brute, abs=0.015)


def test_similarity_accepts_its_string_name() -> None:
    embeddings = FamilyEmbeddings(IDS, np.zeros((len(IDS), 2), dtype=np.float32), "cosine")  # type: ignore[arg-type]
    assert embeddings.similarity is Similarity.COSINE


def _dp(a: list[str], b: list[str]) -> int:
    previous = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        current = [i]
        for j, y in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (x != y)))
        previous = current
    return previous[-1]


def test_bit_parallel_levenshtein_equals_the_textbook_dp() -> None:
    rng = np.random.default_rng(0)
    for _ in range(300):
        a = list(rng.choice(list("abcde"), size=int(rng.integers(0, 90))))
        b = list(rng.choice(list("abcde"), size=int(rng.integers(0, 90))))
        assert levenshtein(a, b) == _dp(a, b)
    assert levenshtein(["x"] * 70, ["x"] * 69 + ["y"]) == 1


def test_python_tokens_keep_indentation_structure_and_survive_bad_code() -> None:
    expected = ["if", "x", ":", "<NEWLINE>", "<INDENT>", "y", "=", "1", "<NEWLINE>", "<DEDENT>"]
    assert python_tokens("if x:\n    y = 1\n") == expected
    assert python_tokens("def f(:\n  'unterminated") != []


def test_the_medoid_baseline_finds_the_canonical_of_single_edit_families() -> None:
    result = structure_baseline(FAMILIES)
    assert result.accuracy == 1.0 and result.canonical_unique_medoid == 3
    # two members only: both are medoids, the canonical gets half the credit
    pair = Families.from_dataset(tiny_dataset({"p": ("x = 1\n", [("x = 2\n", "off_by_one")])}))
    assert structure_baseline(pair).accuracy == 0.5
