"""`execretrieval validate` on our build, on tampered copies and on the original release's layout."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from execretrieval_mteb.cli.main import main
from execretrieval_mteb.construction.builder import BuildResult
from execretrieval_mteb.construction.validate import validate_dataset
from execretrieval_mteb.dataset.io import dumps_jsonl, read_jsonl

ALL_CHECKS = {
    "checksums",
    "schema",
    "ast_semantics",
    "mutant_edit",
    "corpus_integrity",
    "canonical_execution",
    "mutant_execution",
    "execution_cache",
    "distractor_sanity",
    "cross_canonical",
}


def test_a_fresh_build_is_valid(fixture_build: BuildResult, capsys: pytest.CaptureFixture[str]) -> None:
    report = validate_dataset(fixture_build.out_dir)
    assert report.ok, report.findings
    assert set(report.counts) == ALL_CHECKS
    assert report.counts["schema"] == {"passed": 6, "failed": 0}
    assert report.counts["cross_canonical"]["pairs_run"] == 5
    assert main(["validate", "--data", str(fixture_build.out_dir), "--quiet"]) == 0
    assert capsys.readouterr().out.strip().endswith("valid")


def test_a_changed_file_fails_the_checksums(fixture_build: BuildResult, tmp_path: Path) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(fixture_build.out_dir, copy)
    with open(copy / "README.md", "a", encoding="utf-8") as handle:
        handle.write("\nedited\n")
    report = validate_dataset(copy, execute=False)
    assert [(f.check, f.subject) for f in report.findings] == [("checksums", "README.md")]


def _release_copy(fixture_build: BuildResult, root: Path) -> Path:
    """The fixture build in the original release's shape: files at the root, no names, no spans, no sums."""
    root.mkdir()
    src = fixture_build.out_dir / "data"
    queries = []
    for _, q in read_jsonl(src / "queries.jsonl"):
        queries.append({k: v for k, v in q.items() if k not in ("domain", "function_name", "metadata")})
    (root / "queries.jsonl").write_text(dumps_jsonl(queries))
    distractors = [
        {k: v for k, v in d.items() if k not in ("span", "before", "after", "line")}
        for _, d in read_jsonl(src / "distractor_metadata.jsonl")
    ]
    (root / "distractor_metadata.jsonl").write_text(dumps_jsonl(distractors))
    shutil.copy(src / "corpus.jsonl", root / "corpus.jsonl")
    shutil.copy(src / "execution_cache.jsonl", root / "execution_cache.jsonl")
    return root


def test_the_original_release_layout_validates(fixture_build: BuildResult, tmp_path: Path) -> None:
    root = _release_copy(fixture_build, tmp_path / "release")
    report = validate_dataset(root)
    assert report.ok, report.findings
    assert report.queries == 6 and report.snippets == 30
    assert "checksums" not in report.counts


def test_a_release_with_a_broken_mutant_is_invalid(
    fixture_build: BuildResult, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _release_copy(fixture_build, tmp_path / "release")
    rows = [r for _, r in read_jsonl(root / "corpus.jsonl")]
    queries = [q for _, q in read_jsonl(root / "queries.jsonl")]
    target = queries[0]["paired_distractor_corpus_ids"][0]
    canonical = next(r["code"] for r in rows if r["corpus_id"] == queries[0]["correct_corpus_ids"][0])
    for row in rows:
        if row["corpus_id"] == target:
            row["code"] = canonical.rstrip("\n") + "\n\n# harmless edit\n"  # an equivalent "mutant"
    (root / "corpus.jsonl").write_text(dumps_jsonl(rows))
    report = validate_dataset(root)
    checks = {f.check for f in report.findings}
    assert {"mutant_execution", "distractor_sanity", "execution_cache"} <= checks
    assert any(f.reason == "mutant 1 passes every test" for f in report.findings)
    out_json = tmp_path / "findings.json"
    assert main(["validate", "--data", str(root), "--quiet", "--json", str(out_json)]) == 1
    assert capsys.readouterr().out.strip().endswith("INVALID")
    assert json.loads(out_json.read_text())["ok"] is False


def test_validate_reports_a_missing_dataset_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", "--data", str(tmp_path / "nowhere")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "not a directory" in err[0]
