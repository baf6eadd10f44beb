"""`execretrieval hub stage`: the release folder, its card and its manifest (in-process, offline)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from fake_hub import validate_card_metadata

from execretrieval_mteb.cli.main import main
from execretrieval_mteb.dataset.io import load_dataset
from execretrieval_mteb.dataset.manifest import SUMS, ManifestError, parse_sums
from execretrieval_mteb.hub.card import check_card
from execretrieval_mteb.hub.stage import RELEASE_INFO, StageError, stage, staged_files


def test_stage_writes_the_data_every_config_and_a_card_the_hub_accepts(tiny: Path, tmp_path: Path) -> None:
    import datasets
    from huggingface_hub import DatasetCard

    staged = stage(tmp_path / "release", data=tiny, repo_id="bench/tiny")
    root = staged.root
    on_disk = sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file())
    assert on_disk == sorted(staged.files)
    sums = parse_sums((root / SUMS).read_text())
    assert sorted(sums) == sorted(set(on_disk) - {SUMS})  # SHA256SUMS over everything
    for rel in ("data/queries.jsonl", "data/corpus.jsonl", "data/distractor_metadata.jsonl", "data/execution_cache.jsonl"):
        assert (root / rel).read_bytes() == (tiny / rel).read_bytes(), rel  # the study's files, byte for byte
    for name in ("corpus", "queries", "default"):  # mteb's configs: Parquet with the source's rows
        parquet = datasets.load_dataset("parquet", data_files=str(root / name / "test.parquet"), split="train").to_list()
        source = datasets.load_dataset("json", data_files=str(tiny / name / "test.jsonl"), split="train").to_list()
        assert parquet == source, name
    info = json.loads((root / RELEASE_INFO).read_text())
    assert info["source_fingerprint"] == load_dataset(tiny).fingerprint == staged.source_fingerprint

    text = (root / "README.md").read_text()
    assert validate_card_metadata(text) == []  # what the Hub checks (the fake Hub's validate-yaml)
    meta = check_card(text, root)
    card = DatasetCard.load(root / "README.md")  # huggingface_hub's card API
    assert card.data.pretty_name == "ExecRetrieval" and card.data.license == "apache-2.0"
    assert card.data.size_categories == ["n<1K"] and "text-retrieval" in card.data.task_categories
    assert card.data.source_datasets == ["original"] and "citation" not in meta  # the Hub has no such field
    assert "@misc{" in text.split("## Citation")[1]  # the citation is in the body
    # the values mteb's own card generator gives the task
    assert meta["language"] == ["code", "eng"] and meta["annotations_creators"] == ["derived"]
    assert meta["multilinguality"] == "multilingual" and meta["tags"][0] == "mteb"
    for heading in ("## What it measures", "## How it was built", "## Descriptive statistics", "## How to load it",
                    "## Leaderboard", "## Limitations", "## Citation"):
        assert heading in text
    stats = text.split("## Descriptive statistics")[1].split("## Configs")[0]
    assert "| queries | 5 |" in stats and "| documents | 23 |" in stats and '"num_documents": 23' in stats
    assert "without a config name returns the **qrels**" in text
    configs = {c["config_name"]: c for c in meta["configs"]}
    assert set(configs) == {"corpus", "queries", "default", "query_tests", "labelled_corpus", "distractor_metadata",
                            "execution_cache"}
    infos = {i["config_name"]: i for i in meta["dataset_info"]}
    for name in configs:  # every config loads with datasets, with the card's row count and columns
        loaded = datasets.load_dataset(str(root), name, split="test")
        assert loaded.num_rows == infos[name]["splits"][0]["num_examples"] > 0, name
        assert loaded.features._to_yaml_list() == infos[name]["features"], name
    labelled = datasets.load_dataset(str(root), "labelled_corpus", split="test")
    built = load_dataset(tiny)
    mutants = [r for r in labelled if r["label"] == "incorrect"]
    assert len(labelled) == len(built.corpus) and len(mutants) == len(built.distractors)
    edits = {d.corpus_id: d for d in built.distractors}
    for row in mutants:  # joined with its query and its edit (the tiny dataset records no spans)
        edit = edits[row["corpus_id"]]
        assert row["query_id"] and row["bug_type"] == edit.bug_type and row["bug_description"] == edit.bug_description
        assert row["span"] == (list(edit.span) if edit.span else None)
    assert all(r["span"] is None and r["bug_type"] is None for r in labelled if r["label"] == "correct")


def test_staging_is_deterministic_and_replaces_only_a_staged_folder(tiny: Path, tmp_path: Path) -> None:
    first = stage(tmp_path / "a", data=tiny, repo_id="bench/tiny")
    second = stage(tmp_path / "b", data=tiny, repo_id="bench/tiny")
    assert first.fingerprint == second.fingerprint
    again = stage(tmp_path / "a", data=tiny, repo_id="bench/tiny")  # an earlier staged folder is replaced
    assert again.fingerprint == first.fingerprint
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "notes.txt").write_text("mine")
    with pytest.raises(StageError, match="not a folder `execretrieval hub stage` wrote; nothing was deleted"):
        stage(tmp_path / "other", data=tiny)
    assert (tmp_path / "other" / "notes.txt").read_text() == "mine"
    with pytest.raises(StageError, match="stage from a local dataset"):
        stage(tmp_path / "c", data="hub")


def test_the_manifest_detects_a_changed_byte_and_an_added_file(tiny: Path, tmp_path: Path, capsys) -> None:
    root = stage(tmp_path / "release", data=tiny, repo_id="bench/tiny").root
    assert staged_files(root)
    target = root / "data" / "corpus.jsonl"
    original = target.read_bytes()
    target.write_bytes(original.replace(b"return", b"retUrn", 1))
    with pytest.raises(StageError, match=r"data/corpus.jsonl: changed since staging"):
        staged_files(root)
    with pytest.raises(ManifestError, match="does not match its SHA256SUMS digest"):
        load_dataset(root)  # and the task refuses to score it
    assert main(["hub", "push", str(root), "--repo-id", "bench/tiny"]) == 2  # nothing is pushed from it
    assert "changed since staging" in capsys.readouterr().err
    target.write_bytes(original)
    (root / "stray.txt").write_text("not part of the release")
    with pytest.raises(StageError, match="stray.txt: not listed"):
        staged_files(root)


def test_stage_with_results_ships_reports_statistics_figures_and_embeddings(
    tiny: Path, official_results: Path, tmp_path: Path
) -> None:
    staged = stage(tmp_path / "release", data=tiny, results=official_results, repo_id="bench/tiny")
    files = set(staged.files)
    models = {"execretrieval-mteb__bm25-code", "sentence-transformers__all-MiniLM-L6-v2"}
    assert {f"results/{m}.json" for m in models} <= files
    assert {"results/leaderboard.json", "results/leaderboard.md", "results/confidence_intervals.json",
            "results/pairwise_tests.json", "results/figures/exec_at_1.svg", "results/figures/exec_at_k.png"} <= files
    assert "embeddings/sentence-transformers__all-MiniLM-L6-v2.npz" in files  # dense models only
    assert not any(f.startswith("embeddings/execretrieval-mteb") and f.endswith(".npz") for f in files)
    assert {f"embeddings/{m}.json" for m in models} <= files  # every model's run record, what rescore rebuilds from
    assert staged.notes == ()
    text = (staged.root / "README.md").read_text()
    check_card(text, staged.root)
    board = text.split("## Leaderboard")[1].split("## Files")[0]
    assert "sentence-transformers/all-MiniLM-L6-v2" in board and "[" in board  # intervals shown
    top = max(row.metrics["exec_at_1"] for row in staged.rows)
    assert any(f"| 1 | {row.model} |" in board for row in staged.rows if row.metrics["exec_at_1"] == top)
    assert all(len(row.intervals) == 12 for row in staged.rows)

    stale = tmp_path / "stale"
    shutil.copytree(official_results, stale)
    blob = json.loads((stale / "analysis" / "confidence_intervals.json").read_text())
    blob["execretrieval-mteb/bm25-code"]["exec_at_1"]["mean"] += 0.01  # intervals of other results
    (stale / "analysis" / "confidence_intervals.json").write_text(json.dumps(blob))
    restaged = stage(tmp_path / "release2", data=tiny, results=stale, repo_id="bench/tiny")
    assert not any(f.startswith(("results/confidence", "results/pairwise", "results/figures")) for f in restaged.files)
    assert any("describes other results" in note for note in restaged.notes)
    assert "describes other results" in (restaged.root / "README.md").read_text()


def _snapshot(root: Path) -> dict[str, bytes | None]:
    return {p.relative_to(root).as_posix(): (p.read_bytes() if p.is_file() else None) for p in sorted(root.rglob("*"))}


def test_stage_deletes_nothing_it_cannot_prove_it_wrote(tiny: Path, tmp_path: Path, capsys) -> None:
    """A git clone (or any folder) holding a stray SHA256SUMS is refused in one line, untouched."""
    clone = tmp_path / "clone"
    (clone / ".git" / "objects").mkdir(parents=True)
    (clone / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (clone / "NOTES.md").write_text("my notes\n")
    (clone / SUMS).write_text("0" * 64 + "  NOTES.md\n")
    before = _snapshot(clone)
    assert main(["hub", "stage", str(clone), "--data", str(tiny)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "nothing was deleted" in err and "release_info.json" in err
    assert _snapshot(clone) == before

    staged = stage(tmp_path / "release", data=tiny, repo_id="bench/tiny").root
    cases = {  # a real staged folder, then one thing that stage did not write
        "an unlisted file": lambda root: (root / "NOTES.md").write_text("mine"),
        "a git folder": lambda root: (root / ".git").mkdir(),
        "an edited file": lambda root: (root / "README.md").write_text("my own card"),
        "a link": lambda root: (root / "link").symlink_to(tmp_path),
    }
    for what, change in cases.items():
        root = Path(shutil.copytree(staged, tmp_path / what.replace(" ", "-")))
        change(root)
        before = _snapshot(root)
        with pytest.raises(StageError, match="nothing was deleted"):
            stage(root, data=tiny, repo_id="bench/tiny")
        assert _snapshot(root) == before, what
    info = json.loads((staged / RELEASE_INFO).read_text())
    assert info["staged_by"] == "execretrieval hub stage"
    again = stage(staged, data=tiny, repo_id="bench/tiny")  # its own folder, unchanged: replaced
    assert again.root == staged and staged_files(staged)
    empty = tmp_path / "empty"
    empty.mkdir()
    assert stage(empty, data=tiny, repo_id="bench/tiny").root == empty


def test_invalid_repo_id_is_refused_before_anything_is_written(tiny: Path, tmp_path: Path, capsys) -> None:
    for argv in (["hub", "stage", str(tmp_path / "r"), "--data", str(tiny), "--repo-id", "org/Exec Retrieval!"],
                 ["hub", "pin", "0" * 40, "--repo-id", "org/Exec Retrieval!"]):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "not a Hub repository id" in err
    assert not (tmp_path / "r").exists()
