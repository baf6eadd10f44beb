"""The open task's release: `hub stage --open` on a tiny dataset and a small wild corpus, pushed to the
fake Hub with the real clients and read back (configs with `datasets`, the wild folder with
huggingface_hub, then loaded as a wild corpus with the same fingerprint)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "hub"))

from fake_hub import FakeHub, validate_card_metadata  # noqa: E402
from hub_helpers import TOKEN, cli, hub_env, unpinned  # noqa: E402

from execretrieval_mteb.dataset.io import load_dataset  # noqa: E402
from execretrieval_mteb.dataset.wild import load_wild, open_pool  # noqa: E402
from execretrieval_mteb.hub.card import check_card  # noqa: E402
from execretrieval_mteb.hub.stage import RELEASE_INFO, staged_files  # noqa: E402

REPO = "bench/tiny-open"
CLI = [sys.executable, "-m", "execretrieval_mteb.cli.main"]
BM25 = "execretrieval-mteb__bm25-code"

PULL = """
import datasets, json, sys
from huggingface_hub import snapshot_download
from execretrieval_mteb.dataset.wild import load_wild
repo, revision = sys.argv[1], sys.argv[2]
out = {name: datasets.load_dataset(repo, name, revision=revision, split="test").num_rows
       for name in ("wild_corpus", "open_corpus", "open_validation")}
root = snapshot_download(repo, repo_type="dataset", revision=revision, allow_patterns=["open/wild/*"])
wild = load_wild(root + "/open/wild")
out["wild_fingerprint"], out["wild_functions"] = wild.fingerprint, len(wild.records)
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def open_results(tiny_dataset: Path, small_wild: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("open-results") / "results"
    done = subprocess.run([*CLI, "run", "-m", "bm25", "--open", "--data", str(tiny_dataset), "--wild", str(small_wild),
                           "-o", str(out), "--quiet", "--workers", "2"], capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    return out


@pytest.fixture(scope="module")
def staged_open(
    tiny_dataset: Path, small_wild: Path, open_results: Path, tmp_path_factory: pytest.TempPathFactory
) -> Path:
    out = tmp_path_factory.mktemp("staged-open") / "release"
    done = subprocess.run([*CLI, "hub", "stage", str(out), "--data", str(tiny_dataset), "--results", str(open_results),
                           "--open", "--wild", str(small_wild), "--repo-id", REPO], capture_output=True, text=True,
                          timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "open results: execretrieval-mteb/bm25-code" in done.stdout
    return out


def test_stage_open_ships_the_wild_corpus_its_configs_card_and_results(
    tiny_dataset: Path, small_wild: Path, open_results: Path, staged_open: Path
) -> None:
    import datasets

    out = staged_open
    staged_files(out)  # every file listed in SHA256SUMS, unchanged
    for name in ("wild_corpus.jsonl", "sources.json", "README.md", "SHA256SUMS"):
        assert (out / "open" / "wild" / name).read_bytes() == (small_wild / name).read_bytes(), name
    wild = load_wild(small_wild)
    assert load_wild(out / "open" / "wild").fingerprint == wild.fingerprint  # loads as the wild corpus it is
    pool = open_pool(load_dataset(tiny_dataset), wild)
    info = json.loads((out / RELEASE_INFO).read_text())["open"]
    assert info["pool_fingerprint"] == pool.fingerprint and info["wild_functions"] == len(wild.records) == 300
    assert info["models"] == ["execretrieval-mteb/bm25-code"]

    rows = {name: datasets.load_dataset(str(out), name, split="test") for name in
            ("wild_corpus", "open_corpus", "open_validation")}
    assert rows["wild_corpus"].num_rows == 300
    assert {"package", "version", "file", "line", "license"} <= set(rows["wild_corpus"].column_names)
    assert rows["open_corpus"].num_rows == len(load_dataset(tiny_dataset).corpus) + 300
    assert set(rows["open_corpus"].column_names) == {"id", "title", "text"}
    assert rows["open_validation"].num_rows > 0

    card = (out / "README.md").read_text()
    assert validate_card_metadata(card) == [] and check_card(card, out)
    section = card.split("## The open pool (ExecRetrievalOpen)")[1].split("## Leaderboard")[0]
    assert "| python-stdlib |" in section and "PSF-2.0" in section and "| 300 |" in section
    assert wild.fingerprint in section and pool.fingerprint in section
    assert (out / "results" / "open" / f"{BM25}.json").read_bytes() == (
        open_results / "open" / "evaluation" / f"{BM25}.json").read_bytes()
    assert (out / "results" / "open" / "comparison.json").is_file()
    assert (out / "results" / "open" / "figures" / "closed_vs_open.png").is_file()


def test_wild_without_open_is_refused(tiny_dataset: Path, small_wild: Path, tmp_path: Path) -> None:
    done = subprocess.run([*CLI, "hub", "stage", str(tmp_path / "r"), "--data", str(tiny_dataset), "--wild",
                           str(small_wild)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 2 and "--wild: only with --open" in done.stderr and not (tmp_path / "r").exists()


def test_the_open_release_pushes_and_pulls_with_the_real_clients(
    tiny_dataset: Path, small_wild: Path, staged_open: Path, tmp_path: Path
) -> None:
    release = staged_open
    with FakeHub(token=TOKEN) as hub:
        env = hub_env(hub, tmp_path / "hf-push", unpinned(tmp_path / "release.json", REPO))
        pushed = cli(["hub", "push", str(release), "--repo-id", REPO, "--yes"], env, tmp_path)
        assert pushed.returncode == 0, pushed.stderr[-3000:]
        sha = hub.repo(REPO).branches["main"]
        pulled = subprocess.run([sys.executable, "-c", PULL, REPO, sha], capture_output=True, text=True, timeout=600,
                                env=hub_env(hub, tmp_path / "hf-pull", tmp_path / "release.json"), cwd=tmp_path)
    assert pulled.returncode == 0, pulled.stderr[-3000:]
    got = json.loads(pulled.stdout.strip().splitlines()[-1])
    wild = load_wild(small_wild)
    assert got == {"wild_corpus": 300, "open_corpus": len(load_dataset(tiny_dataset).corpus) + 300,
                   "open_validation": got["open_validation"], "wild_fingerprint": wild.fingerprint,
                   "wild_functions": 300}
    assert got["open_validation"] > 0
