"""`execretrieval submit`: the MTEB results package (read back by mteb), leaderboard rows and the static
site, which renders in headless Chromium with its table, intervals and figures and no console output."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from hub_helpers import OFFICIAL_SHA

from execretrieval_mteb.cli.main import main
from execretrieval_mteb.leaderboard.mteb_results import SubmitError
from execretrieval_mteb.results.rows import read_row
from execretrieval_mteb.leaderboard.submit import submit
from execretrieval_mteb.mteb_task.embedded import HUB_REVISION as MINILM_REVISION

MINILM, BM25 = "sentence-transformers/all-MiniLM-L6-v2", "execretrieval-mteb/bm25-code"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.fixture
def official(official_release: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("EXECRETRIEVAL_RELEASE", str(official_release))
    return official_release


def test_submit_packages_official_results_for_mteb_and_the_leaderboard(official: Path, official_results: Path, tmp_path: Path) -> None:
    import mteb

    out = tmp_path / "submission"
    assert main(["submit", str(official_results), "-o", str(out)]) == 0
    packaged = sorted(p.relative_to(out).as_posix() for p in (out / "results").rglob("*") if p.is_file())
    assert packaged == [
        "results/execretrieval-mteb__bm25-code/rank-bm25-0.2.2-k1-1.5-b-0.75/ExecRetrieval.json",
        "results/execretrieval-mteb__bm25-code/rank-bm25-0.2.2-k1-1.5-b-0.75/model_meta.json",
        f"results/sentence-transformers__all-MiniLM-L6-v2/{MINILM_REVISION}/ExecRetrieval.json",
        f"results/sentence-transformers__all-MiniLM-L6-v2/{MINILM_REVISION}/model_meta.json",
    ]
    loaded = mteb.ResultCache(out).load_results(tasks=["ExecRetrieval"], include_remote=False)
    by_model = {m.model_name: m.task_results[0] for m in loaded.model_results}
    assert set(by_model) == {MINILM, BM25}
    for name, result in by_model.items():
        assert result.dataset_revision == OFFICIAL_SHA
        evaluation = json.loads((official_results / "evaluation" / f"{name.replace('/', '__')}.json").read_text())
        assert result.get_score() == pytest.approx(evaluation["metrics"]["exec_at_1"], abs=1e-6)  # mteb stores 6 digits

    rows = {read_row(p).model: read_row(p) for p in (out / "leaderboard" / "rows").glob("*.json")}
    assert set(rows) == {MINILM, BM25}
    bm25 = rows[BM25]
    assert bm25.dataset_revision == OFFICIAL_SHA and bm25.similarity == "bm25" and bm25.prompts == {}
    assert set(bm25.intervals) == set(bm25.metrics) and bm25.pairwise[MINILM]["exec_at_1"] > 0
    intervals = json.loads((official_results / "analysis" / "confidence_intervals.json").read_text())
    assert bm25.intervals["exec_at_1"].low == intervals[BM25]["exec_at_1"]["ci95_low"]
    assert rows[MINILM].revision == MINILM_REVISION  # the Hub revision of the embedded weights
    page = (out / "leaderboard" / "index.html").read_text()
    assert "<table id=\"leaderboard\" class=\"hide-precision" in page and 'src="figures/exec_at_1.svg"' in page
    assert (out / "leaderboard" / "figures" / "exec_at_k.png").is_file()

    again = submit(official_results, out, {BM25})  # submitting again replaces the model's row; the site keeps both
    assert [r.model for r in again.rows] == [BM25] and again.site_rows == 2


def test_results_on_other_data_are_refused(official_results: Path, tiny: Path, tmp_path: Path, monkeypatch, capsys) -> None:
    local = tmp_path / "local-results"
    assert main(["run", "-m", "bm25", "--data", str(tiny), "-o", str(local), "--quiet"]) == 0  # nothing pinned
    assert main(["submit", str(local), "-o", str(tmp_path / "out")]) == 2
    assert "no official release" in capsys.readouterr().err
    other = tmp_path / "other-release.json"
    other.write_text(json.dumps({"repo_id": "bench/tiny", "revision": "9" * 40, "fingerprint": "e" * 64}))
    monkeypatch.setenv("EXECRETRIEVAL_RELEASE", str(other))
    with pytest.raises(SubmitError, match=r"evaluated on dataset revision local-[0-9a-f]{12} .*not the official release"):
        submit(local, tmp_path / "out")
    monkeypatch.setenv("EXECRETRIEVAL_RELEASE", str(other))
    with pytest.raises(SubmitError, match="not the official release"):
        submit(official_results, tmp_path / "out")  # official for another release is not official for this one
    assert not (tmp_path / "out" / "results").exists()


def _chromium(page: Path, fragment: str, tmp_path: Path, width: int = 1280) -> tuple[str, list[str]]:
    """The DOM after the page's script ran in a ``width`` px wide window, and every console line Chromium logged."""
    result = subprocess.run(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         f"--window-size={width},900", "--hide-scrollbars",
         "--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-extensions",
         f"--user-data-dir={tmp_path / 'chromium-profile'}", "--enable-logging=stderr", "--v=0",
         "--virtual-time-budget=5000", "--dump-dom", page.as_uri() + fragment],
        capture_output=True, text=True, timeout=180,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    return result.stdout, [line for line in result.stderr.splitlines() if ":CONSOLE" in line]


def _rows(dom: str) -> list[tuple[str, str]]:
    """(model, significance text) of each table row, in order."""
    body = dom.split("<tbody>")[1].split("</tbody>")[0]
    out = []
    for tr in re.findall(r"<tr [^>]*>.*?</tr>", body, re.S):
        model = re.search(r'data-model="([^"]+)"', tr).group(1)
        mark = re.search(r'<td class="mark [a-z]+"[^>]*>([^<]*)</td>', tr).group(1)
        out.append((model, mark))
    return out


@pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed (setup.sh installs Debian's chromium as root)")
def test_the_leaderboard_page_renders_from_disk_in_headless_chromium(official: Path, official_results: Path, tmp_path: Path) -> None:
    out = tmp_path / "submission"
    done = submit(official_results, out)
    page = done.site
    dom, console = _chromium(page, "", tmp_path)
    assert console == []  # no errors, no warnings, nothing logged
    assert 'data-ready="1"' in dom and 'data-sorted="pos:asc"' in dom
    rows = {r.model: r for r in done.rows}
    exec1 = [rows[m].metrics["exec_at_1"] for m, _ in _rows(dom)]
    assert sorted(rows) == sorted(m for m, _ in _rows(dom)) and exec1 == sorted(exec1, reverse=True)  # best exec@1 first
    assert _rows(dom)[0][1] == "–" and _rows(dom)[1][1] in ("differs (p<0.05)", "no difference")
    assert len(re.findall(r'<div class="ci">\[\d\.\d{3}, \d\.\d{3}\]</div>', dom)) == 2 * 12  # every score's interval
    images = re.findall(r'<img src="([^"]+)"', dom)
    drawn = sorted({p.stem for p in (official_results / "analysis" / "figures").glob("*.svg")})
    assert "exec_at_1" in drawn and images == [f"figures/{stem}.svg" for stem in drawn]  # one per figure, SVG first
    assert all((page.parent / src).is_file() for src in images)
    # what MTEB's leaderboard shows of a model, from its model_meta.json: its page, size, dim, tokens, licence
    minilm = dom.split(f'data-model="{MINILM}"')[1].split("</tr>")[0]
    assert f'<a href="https://huggingface.co/{MINILM}">{MINILM}</a>' in minilm
    assert all(f">{text}<" in minilm for text in ("22.7M", "384", "256", "apache-2.0"))
    domains = re.findall(r'<td class="g-domains num domain" data-value="[^"]+" title="exec@1 ([^"]+)">', minilm)
    assert len(domains) == len(rows[MINILM].domains) > 0 and all("95 % interval [" in d for d in domains)
    assert 'class="hide-precision hide-ndcg hide-domains hide-settings ' in dom  # the default view's groups

    dom, console = _chromium(page, "#sort=exec_at_3&dir=asc", tmp_path)  # a sorted view, as a click makes it
    assert console == []
    assert 'data-sorted="exec_at_3:asc"' in dom and 'id="mark-metric">(exec@3)' in dom
    shown = _rows(dom)
    exec3 = [rows[m].metrics["exec_at_3"] for m, _ in shown]
    assert exec3 == sorted(exec3)  # lowest exec@3 first
    below, above = shown[1][0], shown[0][0]
    p = read_row(out / "leaderboard" / "rows" / f"{below.replace('/', '__')}.json").pairwise[above]["exec_at_3"]
    assert shown[1][1] == ("differs (p<0.05)" if p < 0.05 else "no difference")

    broken = page.with_name("broken.html")
    broken.write_text(page.read_text().replace("var body = table.tBodies[0];", "var body = table.tBodies[0]; nope();"))
    _, console = _chromium(broken, "", tmp_path)
    assert any("nope is not defined" in line for line in console)  # the console check does see script errors


LAYOUT_CHECK = """
<script>
window.addEventListener("load", function () {
  "use strict";
  var problems = [];
  var root = document.documentElement;
  if (root.scrollWidth > root.clientWidth) { problems.push("page scrolls: " + root.scrollWidth + " > " + root.clientWidth); }
  function name(el) { return el.tagName + (el.id ? "#" + el.id : "") + (el.className ? "." + String(el.className).split(" ").join(".") : ""); }
  Array.prototype.slice.call(document.body.querySelectorAll("*")).forEach(function (el) {
    if (el.tagName === "SCRIPT" || !el.getClientRects().length) { return; }
    var box = el.getBoundingClientRect(), frame = el.parentElement.getBoundingClientRect();
    if (box.left < frame.left - 0.5 || box.right > frame.right + 0.5) {
      problems.push(name(el) + " overflows " + name(el.parentElement) + ": " + Math.round(box.left) + "-" + Math.round(box.right)
                    + " outside " + Math.round(frame.left) + "-" + Math.round(frame.right));
    }
    if (el.scrollWidth > el.clientWidth + 1 && getComputedStyle(el).display !== "inline") {
      problems.push(name(el) + " has content wider than itself: " + el.scrollWidth + " > " + el.clientWidth);
    }
  });
  Array.prototype.slice.call(document.querySelectorAll("figure")).forEach(function (figure) {
    var frame = figure.getBoundingClientRect();
    Array.prototype.slice.call(figure.children).forEach(function (part) {
      var box = part.getBoundingClientRect();
      if (box.left < frame.left || box.right > frame.right || box.top < frame.top || box.bottom > frame.bottom) {
        problems.push(name(part) + " outside its figure");
      }
    });
  });
  document.body.setAttribute("data-layout", JSON.stringify(problems));
});
</script>
"""

SVG_TEXT_CHECK = """<!DOCTYPE html><html><body style="margin:0">%s<script>
window.addEventListener("load", function () {
  var svg = document.querySelector("svg"), frame = svg.getBoundingClientRect(), problems = [];
  var texts = svg.querySelectorAll("text, g[id^='text_']");  // matplotlib draws text as paths in <g id="text_N">
  Array.prototype.slice.call(texts).forEach(function (text) {
    var box = text.getBoundingClientRect();
    if (box.width && (box.left < frame.left - 0.5 || box.right > frame.right + 0.5 || box.top < frame.top - 0.5
                      || box.bottom > frame.bottom + 0.5)) {
      problems.push((text.id || text.textContent || "").trim() + " outside the figure: " + JSON.stringify(box));
    }
  });
  document.body.setAttribute("data-layout", JSON.stringify(problems));
  document.body.setAttribute("data-texts", String(texts.length));
});
</script></body></html>"""


def _layout(dom: str) -> list[str]:
    import html

    found = re.search(r'data-layout="([^"]*)"', dom)
    assert found, "the layout check did not run"
    return json.loads(html.unescape(found.group(1)))


@pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed (setup.sh installs Debian's chromium as root)")
def test_the_page_fits_1280_px_and_every_figure_keeps_its_text_inside(official: Path, official_results: Path, tmp_path: Path) -> None:
    page = submit(official_results, tmp_path / "submission").site
    checked = page.with_name("checked.html")
    checked.write_text(page.read_text().replace("</body>", LAYOUT_CHECK + "</body>"))
    views = ["", "#show=precision", "#show=ndcg", "#show=domains", "#show=settings", "#sort=domain:collections&dir=desc"]
    for view in views:  # the default view (model facts, exec@k) and each other group beside the fixed columns
        dom, console = _chromium(checked, view, tmp_path)
        assert console == [], view
        assert _layout(dom) == [], view
    dom, _ = _chromium(checked, "#show=domains", tmp_path)
    assert 'data-groups="domains"' in dom
    too_narrow, _ = _chromium(checked, "#show=model,exec,precision,ndcg,domains,settings", tmp_path)
    assert any("scrolls" in problem or "overflows" in problem for problem in _layout(too_narrow))  # the check sees it

    figures = sorted((page.parent / "figures").glob("*.svg"))
    assert figures
    for svg in figures:
        wrapper = tmp_path / f"{svg.stem}.html"
        text = svg.read_text()
        wrapper.write_text(SVG_TEXT_CHECK % text[text.index("<svg"):])
        dom, console = _chromium(wrapper, "", tmp_path)
        assert int(re.search(r'data-texts="(\d+)"', dom).group(1)) > 0, svg.name  # matplotlib's text groups
        assert _layout(dom) == [], svg.name
