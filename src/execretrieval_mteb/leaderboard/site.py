"""The static leaderboard: ``leaderboard/index.html`` (+ ``figures/``), opened from disk, no server.

The page is the Jinja2 template ``templates/index.html.j2`` (HTML, CSS and the sorting script; no
fetch, no external file but the figures), filled in here with display values. It holds
everything it shows: the table is rendered in HTML (best exec@1 first), and the rows
(``rows.Row.to_json``: scores, intervals, invocation, dataset identity, pairwise p-values, model
facts, per-domain exec@1) are inlined as JSON for the script, which sorts by any column (click a
header, again to reverse) and recomputes, for the order shown, whether each row differs
significantly from the row above: the Holm-adjusted p of the two models' paired test on the
sorted metric (exec@1 when sorting by a non-metric column) below 0.05. Models whose results came
from different submissions were never tested against each other: "not tested".

Columns come in groups a reader shows or hides (checkboxes; ``#sort=<column>&dir=asc|desc&show=
<group>,...`` opens a given view): the model's facts from mteb's ``model_meta.json`` (size,
embedding dimension, maximum tokens, licence; the name links to the model's page), exec@k,
exec_prec@k, nDCG@k (intervals under every score), exec@1 per domain (its interval on hover) and
the invocation (similarity, prompts). The default view (model facts and exec@k) and any one
other group beside the fixed columns fit a 1,280 px window without horizontal scrolling.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from ..evaluation.metric_names import K_VALUES, MAIN_SCORE, Metric
from ..evaluation.standing import ALPHA
from ..results.rows import Row, differs_from_above, ordered

METRICS: tuple[tuple[str, str], ...] = tuple((m.key(k), f"{m.label}@{k}") for m in Metric for k in K_VALUES)
TEMPLATE = "index.html.j2"


@dataclass(frozen=True)
class Figure:
    file: str
    """Path relative to the page (``figures/<name>``)."""
    caption: str


@dataclass(frozen=True)
class Group:
    key: str
    label: str
    shown: bool
    """Shown when the page opens."""


@dataclass(frozen=True)
class Column:
    key: str
    label: str
    group: str
    numeric: bool
    metric: bool = False
    title: str = ""


@dataclass(frozen=True)
class Cell:
    group: str
    value: str
    """What the script sorts by (a number for numeric columns, "" when missing)."""
    shown: str
    numeric: bool
    ci: str = ""
    title: str = ""
    css: str = ""


GROUPS = (
    Group("model", "model (size, dim, tokens, licence)", True),
    Group("exec", "exec@k", True),
    Group("precision", "exec_prec@k", False),
    Group("ndcg", "nDCG@k", False),
    Group("domains", "exec@1 by domain", False),
    Group("settings", "similarity, prompts", False),
)
METRIC_GROUP = {Metric.EXEC: "exec", Metric.EXECUTION_PRECISION: "precision", Metric.NDCG: "ndcg"}


@cache
def _environment() -> Any:
    import jinja2

    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(Path(__file__).with_name("templates")),
        autoescape=True, undefined=jinja2.StrictUndefined, keep_trailing_newline=True,
    )


def _mark(mark: bool | None, first: bool) -> tuple[str, str]:
    """(class, text) of the significance cell."""
    if first:
        return "top", "–"
    if mark is None:
        return "untested", "not tested"
    return ("differs", "differs (p<0.05)") if mark else ("same", "no difference")


def _size(n: object) -> str:
    """Parameters as MTEB's leaderboard shows them: 22.7M, 1.5B."""
    if not isinstance(n, (int, float)) or isinstance(n, bool):
        return "–"
    for bound, suffix in ((1e9, "B"), (1e6, "M"), (1e3, "K")):
        if n >= bound:
            return f"{n / bound:.1f}{suffix}"
    return str(int(n))


def _number(value: object) -> tuple[str, str]:
    """(sort value, shown) of an integer fact, "–" when missing."""
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return "", "–"
    return repr(float(value)), f"{int(value):,}"


def _columns(domains: Sequence[str]) -> list[Column]:
    columns = [
        Column("size", "size", "model", True, title="parameters (mteb's model_meta.json)"),
        Column("dim", "dim", "model", True, title="embedding dimension"),
        Column("tokens", "max tokens", "model", True, title="maximum input tokens"),
        Column("license", "licence", "model", False),
    ]
    metric_of = {m.key(k): m for m in Metric for k in K_VALUES}
    columns += [Column(key, label, METRIC_GROUP[metric_of[key]], True, metric=True) for key, label in METRICS]
    columns += [Column(f"domain:{d}", d.replace("_", " "), "domains", True, title=f"exec@1 on the {d} queries")
                for d in domains]
    columns += [Column("similarity", "similarity", "settings", False), Column("prompts", "prompts", "settings", False)]
    return columns


def _cells(row: Row, domains: Sequence[str]) -> list[Cell]:
    meta = row.model_meta
    size = meta.get("n_parameters")
    cells = [Cell("model", repr(float(size)) if isinstance(size, (int, float)) else "", _size(size), True)]
    for key in ("embed_dim", "max_tokens"):
        value, shown = _number(meta.get(key))
        cells.append(Cell("model", value, shown, True))
    cells.append(Cell("model", str(meta.get("license") or ""), str(meta.get("license") or "–"), False, css="license"))
    metric_of = {m.key(k): m for m in Metric for k in K_VALUES}
    for key, _ in METRICS:
        value, interval = row.metrics.get(key), row.intervals.get(key)
        cells.append(Cell(METRIC_GROUP[metric_of[key]], "" if value is None else repr(value),
                          "–" if value is None else f"{value:.3f}", True,
                          ci=f"[{interval.low:.3f}, {interval.high:.3f}]" if interval else ""))
    for domain in domains:
        score = row.domains.get(domain)
        cells.append(Cell("domains", "" if score is None else repr(score.mean), "–" if score is None else f"{score.mean:.2f}",
                          True, css="domain", title="" if score is None else
                          f"exec@1 {score.mean:.3f}, 95 % interval [{score.low:.3f}, {score.high:.3f}] ({domain})"))
    prompts = "; ".join(f"{k}: {v}" for k, v in sorted(row.prompts.items())) or "none"
    cells.append(Cell("settings", row.similarity or "", row.similarity or "–", False))
    cells.append(Cell("settings", prompts, prompts, False, css="prompts"))
    return cells


def _url(row: Row) -> str | None:
    """The model's page (``reference`` in its model_meta), when it is a web address."""
    reference = row.model_meta.get("reference")
    return reference if isinstance(reference, str) and reference.startswith(("https://", "http://")) else None


def render(rows: Sequence[Row], figures: Sequence[Figure], dataset: dict[str, str], notes: Sequence[str] = ()) -> str:
    """The page. ``rows`` in any order (shown best exec@1 first); ``dataset``: repo_id, revision, fingerprint."""
    ordered_rows = ordered(rows)
    marks = differs_from_above(ordered_rows)
    domains = sorted({d for r in rows for d in r.domains})
    columns = _columns(domains)
    shown_rows = []
    for position, (row, mark) in enumerate(zip(ordered_rows, marks), 1):
        cls, text = _mark(mark, position == 1)
        shown_rows.append({"model": row.model, "revision": row.revision or "", "url": _url(row), "mark_class": cls,
                           "mark_text": text, "cells": _cells(row, domains)})
    payload = {"alpha": ALPHA, "main": MAIN_SCORE, "metrics": [k for k, _ in METRICS],
               "numeric": [c.key for c in columns if c.numeric], "rows": [r.to_json() for r in ordered_rows]}
    data = json.dumps(payload, sort_keys=True, ensure_ascii=True).replace("</", "<\\/")
    return _environment().get_template(TEMPLATE).render(
        rows=shown_rows, columns=columns, groups=GROUPS, figures=figures, notes=list(notes), alpha=ALPHA,
        dataset={"repo_id": dataset.get("repo_id", ""), "revision": dataset.get("revision", ""),
                 "fingerprint": dataset.get("fingerprint", "")},
        with_intervals=any(r.intervals for r in rows), payload=_safe(data),
    )


def _safe(text: str) -> Any:
    """JSON for the inline script: already safe (``</`` escaped), so not HTML-escaped again."""
    from markupsafe import Markup

    return Markup(text)
