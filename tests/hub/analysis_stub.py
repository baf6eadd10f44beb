"""Write a results folder's ``analysis/`` files the way the analysis step does, for tests.

The analysis package (bootstrap intervals, paired tests, figures) is merged separately; the Hub
release and the leaderboard only read its files. This writes them in its documented shapes
(``docs/analysis.md``), computed honestly from the folder's evaluation files: a percentile
bootstrap over queries for every model and metric, a paired sign-flip test for every pair and
metric with Holm's adjustment per metric, and two small figures (an SVG and a PNG).
"""

from __future__ import annotations

import json
import struct
import zlib
from itertools import combinations
from pathlib import Path

import numpy as np

from execretrieval_mteb.evaluation.leaderboard import LeaderboardRow, sort_rows
from execretrieval_mteb.evaluation.report import read_report

REPLICATES, FLIPS, SEED = 2000, 2000, 0


def _png(width: int, height: int, rgb: tuple[int, int, int]) -> bytes:
    raw = b"".join(b"\0" + bytes(rgb) * width for _ in range(height))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


def write_analysis_stub(results: Path) -> dict:
    reports = [read_report(p) for p in sorted((results / "evaluation").glob("*.json"))]
    order = [r.model for r in sort_rows(LeaderboardRow(x.model.name, x.model.revision, 0, x.means()) for x in reports)]
    by_name = {r.model.name: r for r in reports}
    rng = np.random.default_rng(SEED)
    metrics = sorted(reports[0].scores.values)
    qids = reports[0].query_ids
    values = {name: {m: np.array([r.scores.values[m][q] for q in qids]) for m in metrics} for name, r in by_name.items()}
    picks = rng.integers(0, len(qids), size=(REPLICATES, len(qids)))
    intervals = {}
    for name in order:
        intervals[name] = {}
        for metric in metrics:
            v = values[name][metric]
            means = v[picks].mean(axis=1)
            intervals[name][metric] = {"mean": float(v.mean()), "ci95_low": float(np.percentile(means, 2.5)),
                                       "ci95_high": float(np.percentile(means, 97.5)), "n": len(qids),
                                       "bootstrap_samples": REPLICATES, "seed": SEED}
    signs = rng.choice([-1.0, 1.0], size=(FLIPS, len(qids)))
    raw: dict[tuple[str, str, str], float] = {}
    for a, b in combinations(order, 2):
        for metric in metrics:
            d = values[a][metric] - values[b][metric]
            observed = abs(d.mean())
            flipped = np.abs((signs * d).mean(axis=1))
            raw[(a, b, metric)] = float((1 + (flipped >= observed - 1e-12).sum()) / (FLIPS + 1))
    pairwise: dict[str, dict] = {}
    for metric in metrics:
        keys = sorted((k for k in raw if k[2] == metric), key=lambda k: raw[k])
        running = 0.0
        for rank, key in enumerate(keys):
            running = max(running, min(1.0, (len(keys) - rank) * raw[key]))
            a, b, _ = key
            d = values[a][metric] - values[b][metric]
            pairwise.setdefault(f"{a} vs {b}", {})[metric] = {
                "a_only": None, "b_only": None, "both": None, "neither": None,
                "a_rate": float(values[a][metric].mean()), "b_rate": float(values[b][metric].mean()),
                "delta": float(d.mean()), "mcnemar_exact_p": None, "bootstrap_ci_95": [float(d.min()), float(d.max())],
                "test": "sign_flip_permutation", "p": raw[key], "p_holm": running,
                "nonzero_differences": int((d != 0).sum()), "sign_flips": FLIPS, "exact": False,
            }
    out = results / "analysis"
    (out / "figures").mkdir(parents=True, exist_ok=True)
    (out / "confidence_intervals.json").write_text(json.dumps(intervals, indent=1) + "\n", encoding="utf-8")
    (out / "pairwise_tests.json").write_text(json.dumps(pairwise, indent=1) + "\n", encoding="utf-8")
    bars = "".join(f'<rect x="10" y="{10 + 30 * i}" width="{300 * intervals[n]["exec_at_1"]["mean"]:.1f}" height="20"/>'
                   for i, n in enumerate(order))
    (out / "figures" / "exec_at_1.svg").write_text(
        f'<svg xmlns="http://www.w3.org/2000/svg" width="320" height="{20 + 30 * len(order)}">{bars}</svg>\n', encoding="utf-8")
    (out / "figures" / "exec_at_k.png").write_bytes(_png(40, 20, (40, 90, 160)))
    return {"intervals": intervals, "pairwise": pairwise, "order": order}
