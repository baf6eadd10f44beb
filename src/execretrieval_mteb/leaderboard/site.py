"""The static leaderboard: ``leaderboard/index.html`` (+ ``figures/``), opened from disk, no server.

The page holds everything it shows: the table is rendered in HTML (best exec@1 first), and the
rows (``rows.Row.to_json``: scores, intervals, invocation, dataset identity, pairwise p-values)
are inlined as JSON for the script, which sorts by any column (click a header, again to reverse;
``#sort=<column>&dir=asc|desc`` opens a sorted view) and recomputes, for the order shown, whether
each row differs significantly from the row above: the Holm-adjusted p of the two models' paired
test on the sorted metric (exec@1 when sorting by a non-metric column) below 0.05. Models whose
results came from different submissions were never tested against each other: "not tested".
Intervals are shown under every score that has one. No fetch, no external file but the figures.
"""

from __future__ import annotations

import html
import json
from collections.abc import Sequence
from dataclasses import dataclass

from ..evaluation.metric_names import K_VALUES, MAIN_SCORE, Metric
from ..evaluation.standing import ALPHA
from ..results.rows import Row, differs_from_above, ordered

METRICS: tuple[tuple[str, str], ...] = tuple((m.key(k), f"{m.label}@{k}") for m in Metric for k in K_VALUES)


@dataclass(frozen=True)
class Figure:
    file: str
    """Path relative to the page (``figures/<name>``)."""
    caption: str


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


def _mark(mark: bool | None, first: bool) -> tuple[str, str]:
    """(class, text) of the significance cell."""
    if first:
        return "top", "–"
    if mark is None:
        return "untested", "not tested"
    return ("differs", "differs (p<0.05)") if mark else ("same", "no difference")


def _row_html(position: int, row: Row, mark: bool | None) -> str:
    cls, text = _mark(mark, position == 1)
    cells = [
        f'<td class="pos">{position}</td>',
        f'<td class="model" data-value="{_e(row.model)}"><b>{_e(row.model)}</b>'
        f'<div class="sub">{_e(row.revision or "")}</div></td>',
        f'<td class="mark {cls}">{_e(text)}</td>',
    ]
    for key, _ in METRICS:
        value = row.metrics.get(key)
        interval = row.intervals.get(key)
        shown = "–" if value is None else f"{value:.3f}"
        ci = f'<div class="ci">[{interval.low:.3f}, {interval.high:.3f}]</div>' if interval else ""
        cells.append(f'<td class="num" data-value="{"" if value is None else repr(value)}">{shown}{ci}</td>')
    prompts = "; ".join(f"{k}: {v}" for k, v in sorted(row.prompts.items())) or "none"
    cells.append(f'<td data-value="{_e(row.similarity or "")}">{_e(row.similarity or "–")}</td>')
    cells.append(f'<td class="prompts" data-value="{_e(prompts)}">{_e(prompts)}</td>')
    return f'<tr data-model="{_e(row.model)}">' + "".join(cells) + "</tr>"


def render(rows: Sequence[Row], figures: Sequence[Figure], dataset: dict[str, str], notes: Sequence[str] = ()) -> str:
    """The page. ``rows`` in any order (shown best exec@1 first); ``dataset``: repo_id, revision, fingerprint."""
    ordered_rows = ordered(rows)
    marks = differs_from_above(ordered_rows)
    header = ['<th data-sort="pos">#</th>', '<th data-sort="model">model</th>',
              '<th data-sort="mark" class="markhead">vs row above <span id="mark-metric">(exec@1)</span></th>']
    header += [f'<th data-sort="{key}" data-metric="{key}">{_e(label)}</th>' for key, label in METRICS]
    header += ['<th data-sort="similarity">similarity</th>', '<th data-sort="prompts">prompts</th>']
    body = "\n".join(_row_html(i, row, mark) for i, (row, mark) in enumerate(zip(ordered_rows, marks), 1))
    payload = {"alpha": ALPHA, "main": MAIN_SCORE, "metrics": [k for k, _ in METRICS],
               "rows": [r.to_json() for r in ordered_rows]}
    data = json.dumps(payload, sort_keys=True, ensure_ascii=True).replace("</", "<\\/")
    figure_html = "\n".join(
        f'<figure><img src="{_e(f.file)}" alt="{_e(f.caption)}"><figcaption>{_e(f.caption)}</figcaption></figure>'
        for f in figures
    ) or "<p>No figures were submitted.</p>"
    note_html = "".join(f"<li>{_e(n)}</li>" for n in notes)
    with_intervals = any(r.intervals for r in rows)
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>ExecRetrieval leaderboard</title>
<style>
body {{ font: 14px/1.4 system-ui, sans-serif; margin: 2em; color: #1d2330; }}
h1 {{ font-size: 1.5em; margin-bottom: .2em; }}
.meta {{ color: #555; font-size: .9em; }}
.scroll {{ overflow-x: auto; }}
table {{ border-collapse: collapse; margin: 1em 0; }}
th, td {{ border-bottom: 1px solid #dde; padding: .35em .55em; vertical-align: top; }}
th {{ background: #f3f4f8; cursor: pointer; white-space: nowrap; user-select: none; }}
th.sorted-desc::after {{ content: " ▼"; }}
th.sorted-asc::after {{ content: " ▲"; }}
td.num {{ text-align: right; font-variant-numeric: tabular-nums; }}
.ci, .sub {{ color: #667; font-size: .8em; white-space: nowrap; }}
td.mark.differs {{ color: #0a6b2b; font-weight: 600; }}
td.mark.same {{ color: #8a5a00; }}
td.mark.untested, td.mark.top {{ color: #889; }}
td.prompts {{ max-width: 22em; font-size: .85em; }}
figure {{ display: inline-block; margin: 1em 1em 0 0; max-width: 46%; }}
figure img {{ max-width: 100%; border: 1px solid #dde; }}
</style>
</head>
<body>
<h1>ExecRetrieval leaderboard</h1>
<p class="meta">Dataset <code>{_e(dataset.get("repo_id", ""))}</code> at revision <code>{_e(dataset.get("revision", ""))}</code>,
fingerprint <code>{_e(dataset.get("fingerprint", ""))}</code>. {len(ordered_rows)} models; means over the queries{", 95 % bootstrap intervals below each score" if with_intervals else ""}.
<b>exec@k</b>: a snippet passing all of the query's tests is in the top k; <b>exec_prec@k</b>: the share of the top k that passes; <b>nDCG@k</b>: tie-neutral nDCG against the canonical.
"vs row above": the paired test (exact McNemar, or sign-flip under ties) against the model shown above, Holm-adjusted over all pairs of one submission, on the sorted metric (exec@1 for other columns); p &lt; {ALPHA} means the two differ.
Click a column to sort.</p>
<div class="scroll"><table id="leaderboard">
<thead><tr>{"".join(header)}</tr></thead>
<tbody>
{body}
</tbody>
</table></div>
{f'<ul class="notes">{note_html}</ul>' if note_html else ""}
<h2>Figures</h2>
<div id="figures">
{figure_html}
</div>
<script type="application/json" id="leaderboard-data">{data}</script>
<script>
(function () {{
  "use strict";
  var data = JSON.parse(document.getElementById("leaderboard-data").textContent);
  var table = document.getElementById("leaderboard");
  var body = table.tBodies[0];
  var heads = Array.prototype.slice.call(table.tHead.rows[0].cells);
  var byModel = {{}};
  data.rows.forEach(function (row) {{ byModel[row.model] = row; }});
  var state = {{ key: "pos", dir: "asc" }};

  function cellValue(tr, key) {{
    if (key === "pos") {{ return Number(tr.getAttribute("data-rank")); }}
    var index = heads.findIndex(function (th) {{ return th.getAttribute("data-sort") === key; }});
    var raw = tr.cells[index].getAttribute("data-value");
    if (raw === null) {{ raw = tr.cells[index].textContent; }}
    return data.metrics.indexOf(key) >= 0 ? (raw === "" ? NaN : Number(raw)) : raw;
  }}

  function pHolm(model, other, metric) {{
    var tests = (byModel[model].pairwise || {{}})[other];
    return tests && typeof tests[metric] === "number" ? tests[metric] : null;
  }}

  function mark(tr, above, metric) {{
    var cell = tr.cells[2];
    if (!above) {{ cell.className = "mark top"; cell.textContent = "–"; return; }}
    var p = pHolm(tr.getAttribute("data-model"), above.getAttribute("data-model"), metric);
    if (p === null) {{ cell.className = "mark untested"; cell.textContent = "not tested"; }}
    else if (p < data.alpha) {{ cell.className = "mark differs"; cell.textContent = "differs (p<0.05)"; }}
    else {{ cell.className = "mark same"; cell.textContent = "no difference"; }}
    cell.setAttribute("data-value", cell.textContent);
    cell.title = p === null ? "" : "Holm-adjusted p = " + p.toPrecision(3) + " on " + metric;
  }}

  function apply(key, dir) {{
    var rows = Array.prototype.slice.call(body.rows);
    var numeric = data.metrics.indexOf(key) >= 0 || key === "pos";
    rows.sort(function (a, b) {{
      var x = cellValue(a, key), y = cellValue(b, key), order;
      if (numeric) {{
        if (isNaN(x) && isNaN(y)) {{ order = 0; }} else if (isNaN(x)) {{ return 1; }} else if (isNaN(y)) {{ return -1; }}
        else {{ order = x - y; }}
      }} else {{ order = String(x).localeCompare(String(y)); }}
      if (order === 0) {{ return Number(a.getAttribute("data-rank")) - Number(b.getAttribute("data-rank")); }}
      return dir === "asc" ? order : -order;
    }});
    var metric = data.metrics.indexOf(key) >= 0 ? key : data.main;
    rows.forEach(function (tr, i) {{
      body.appendChild(tr);
      tr.cells[0].textContent = String(i + 1);
      mark(tr, i ? rows[i - 1] : null, metric);
    }});
    document.getElementById("mark-metric").textContent = "(" + heads.filter(function (th) {{
      return th.getAttribute("data-sort") === metric; }})[0].textContent.replace(/ [▲▼]$/, "") + ")";
    heads.forEach(function (th) {{
      th.classList.remove("sorted-asc", "sorted-desc");
      if (th.getAttribute("data-sort") === key) {{ th.classList.add("sorted-" + dir); }}
    }});
    state = {{ key: key, dir: dir }};
    table.setAttribute("data-sorted", key + ":" + dir);
  }}

  Array.prototype.slice.call(body.rows).forEach(function (tr, i) {{ tr.setAttribute("data-rank", String(i + 1)); }});
  heads.forEach(function (th) {{
    th.addEventListener("click", function () {{
      var key = th.getAttribute("data-sort");
      var dir = state.key === key ? (state.dir === "asc" ? "desc" : "asc") : (data.metrics.indexOf(key) >= 0 ? "desc" : "asc");
      apply(key, dir);
      if (window.history && window.history.replaceState) {{ window.history.replaceState(null, "", "#sort=" + key + "&dir=" + dir); }}
    }});
  }});
  var wanted = /sort=([^&]+)(?:&dir=(asc|desc))?/.exec(window.location.hash || "");
  if (wanted && heads.some(function (th) {{ return th.getAttribute("data-sort") === wanted[1]; }})) {{
    apply(wanted[1], wanted[2] || (data.metrics.indexOf(wanted[1]) >= 0 ? "desc" : "asc"));
  }} else {{
    apply("pos", "asc");
  }}
  document.body.setAttribute("data-ready", "1");
}})();
</script>
</body>
</html>
"""
