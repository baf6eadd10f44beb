"""Refusals of the release steps leave everything as it was, `hub pin` verifies what it pins, and a
release's own results are reusable as published (real CLI and clients against the fake Hub)."""

from __future__ import annotations

import base64
import hashlib
import json
from pathlib import Path

import pytest
from fake_hub import FakeHub
from hub_helpers import cli, hub_env, python, unpinned

from execretrieval_mteb.dataset.io import load_dataset
from execretrieval_mteb.hub.stage import stage

REPO = "bench/tiny"
NPZ = "embeddings/sentence-transformers__all-MiniLM-L6-v2.npz"

DOWNLOAD = """
import sys
from huggingface_hub import snapshot_download
print(snapshot_download(sys.argv[1], repo_type="dataset", revision=sys.argv[2], local_dir=sys.argv[3]))
"""


def _snapshot(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def _state(hub: FakeHub) -> tuple:
    """Everything the fake Hub holds: branches, tags and commits of every repository."""
    return tuple((key, dict(r.branches), dict(r.tags), tuple(r.commits)) for key, r in sorted(hub.repos.items()))


@pytest.fixture(scope="module")
def local_results(tiny: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """BM25 and MiniLM run on the tiny data before any release is pinned: filed under `local-<fingerprint>`."""
    import os

    from execretrieval_mteb.cli.main import main

    base = tmp_path_factory.mktemp("before-pin")
    release = unpinned(base / "release.json", REPO)
    previous = os.environ.get("EXECRETRIEVAL_RELEASE")
    os.environ["EXECRETRIEVAL_RELEASE"] = str(release)
    try:
        assert main(["run", "--data", str(tiny), "-o", str(base / "results"), "--quiet"]) == 0
    finally:
        if previous is None:
            os.environ.pop("EXECRETRIEVAL_RELEASE", None)
        else:
            os.environ["EXECRETRIEVAL_RELEASE"] = previous
    return base / "results"


@pytest.fixture(scope="module")
def staged(tiny: Path, local_results: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return stage(tmp_path_factory.mktemp("staged") / "release", data=tiny, results=local_results, repo_id=REPO).root


def test_an_invalid_repo_id_is_one_line_with_and_without_yes(staged: Path, fake_hub: FakeHub, tmp_path: Path) -> None:
    release = unpinned(tmp_path / "release.json", REPO)
    env = hub_env(fake_hub, tmp_path / "hf", release)
    for extra in ([], ["--yes"], ["--yes", "--pin", "--tag", "v1"]):
        result = cli(["hub", "push", str(staged), "--repo-id", "org/Exec Retrieval!", *extra], env, tmp_path)
        assert result.returncode == 2, extra
        assert result.stderr.count("\n") == 1 and "not a Hub repository id" in result.stderr, result.stderr
        assert "unknown" not in result.stdout and "run the push again" not in result.stderr
    assert fake_hub.requests == [] and fake_hub.repos == {}
    assert json.loads(release.read_text())["revision"] is None


def test_an_existing_tag_is_refused_before_the_commit(tiny: Path, staged: Path, fake_hub: FakeHub, tmp_path: Path) -> None:
    release = unpinned(tmp_path / "release.json", REPO)
    env = hub_env(fake_hub, tmp_path / "hf", release)
    first = cli(["hub", "push", str(staged), "--repo-id", REPO, "--yes", "--tag", "v1"], env, tmp_path)
    assert first.returncode == 0, first.stderr[-2000:]
    sha = fake_hub.repo(REPO).branches["main"]
    again = cli(["hub", "push", str(staged), "--repo-id", REPO, "--yes", "--tag", "v1"], env, tmp_path)
    assert again.returncode == 0, again.stderr[-2000:]  # an idempotent re-push: the tag already names the result
    assert fake_hub.repo(REPO).branches["main"] == sha

    other = stage(tmp_path / "other", data=tiny, repo_id=REPO).root  # another release: v1 would have to move
    dry = cli(["hub", "push", str(other), "--repo-id", REPO, "--tag", "v1"], env, tmp_path)
    assert dry.returncode == 2
    assert f"tag v1: exists at {sha}" in dry.stdout and "the push would be refused: tag v1 already points" in dry.stdout
    hub_before, release_before, folder_before = _state(fake_hub), release.read_bytes(), _snapshot(other)
    refused = cli(["hub", "push", str(other), "--repo-id", REPO, "--yes", "--tag", "v1", "--pin"], env, tmp_path)
    assert refused.returncode == 2
    assert refused.stderr.count("\n") == 1 and "nothing was pushed" in refused.stderr
    assert _state(fake_hub) == hub_before  # no commit, the branch where it was, the tag where it was
    assert release.read_bytes() == release_before and _snapshot(other) == folder_before

    unwritable = cli(["hub", "push", str(other), "--repo-id", REPO, "--yes", "--pin"],
                     {**env, "EXECRETRIEVAL_RELEASE": str(tmp_path / "no-such-dir" / "release.json")}, tmp_path)
    assert unwritable.returncode == 2 and "cannot be written" in unwritable.stderr
    assert _state(fake_hub) == hub_before


def test_pin_verifies_every_file_and_refuses_an_edited_commit(staged: Path, tiny: Path, fake_hub: FakeHub, tmp_path: Path) -> None:
    release = unpinned(tmp_path / "release.json", REPO)
    env = hub_env(fake_hub, tmp_path / "hf", release)
    pushed = cli(["hub", "push", str(staged), "--repo-id", REPO, "--yes"], env, tmp_path)
    assert pushed.returncode == 0, pushed.stderr[-2000:]
    repo = fake_hub.repo(REPO)
    good = repo.branches["main"]
    assert repo.commits[good].tree[NPZ].lfs_oid  # an LFS file: verified by the tree API's sha256

    def commit(path: str, data: bytes, lfs: bool = False) -> str:
        """A commit with one file edited by hand on top of the good release (the manifest left as it was)."""
        repo.branches["main"] = good
        if lfs:
            oid = hashlib.sha256(data).hexdigest()
            repo.objects[oid] = data
            line = {"key": "lfsFile", "value": {"path": path, "oid": oid, "algo": "sha256"}}
        else:
            line = {"key": "file", "value": {"path": path, "content": base64.b64encode(data).decode(), "encoding": "base64"}}
        return fake_hub.commit(repo, "main", [{"key": "header", "value": {"summary": f"edit {path}"}}, line]).sha

    queries = (staged / "data" / "queries.jsonl").read_bytes()
    edited = {
        "data/queries.jsonl does not match": commit("data/queries.jsonl", queries.replace(b'"', b'"', 1) + b"\n"),
        f"{NPZ} does not match": commit(NPZ, b"not the matrices", lfs=True),
        "NOTES.md is not listed": commit("NOTES.md", b"added by hand"),
    }
    before = release.read_bytes()
    for message, sha in edited.items():
        result = cli(["hub", "pin", sha, "--repo-id", REPO], env, tmp_path)
        assert result.returncode == 2, result.stdout
        assert result.stderr.count("\n") == 1 and message in result.stderr and "not pinned" in result.stderr
        assert release.read_bytes() == before

    pinned = cli(["hub", "pin", good, "--repo-id", REPO], env, tmp_path)
    assert pinned.returncode == 0, pinned.stderr[-2000:]
    blob = json.loads(release.read_text())
    # one fingerprint for the data wherever it lives: the release's is the bundled-style source's
    assert blob["revision"] == good and blob["fingerprint"] == load_dataset(tiny).fingerprint == load_dataset(staged).fingerprint


def test_a_release_s_own_results_are_reusable_as_published(
    staged: Path, local_results: Path, tiny: Path, fake_hub: FakeHub, tmp_path: Path
) -> None:
    release = unpinned(tmp_path / "release.json", REPO)
    env = hub_env(fake_hub, tmp_path / "hf", release)
    before_pin = json.loads(next((staged / "results").glob("execretrieval-mteb__bm25-code.json")).read_text())
    assert before_pin["dataset"]["revision"].startswith("local-")  # computed before any pin
    pushed = cli(["hub", "push", str(staged), "--repo-id", REPO, "--yes", "--pin"], env, tmp_path)
    assert pushed.returncode == 0, pushed.stderr[-2000:]
    sha = json.loads(release.read_text())["revision"]

    download = python(DOWNLOAD.replace("sys.argv[1]", repr(REPO)).replace("sys.argv[2]", repr(sha))
                      .replace("sys.argv[3]", repr(str(tmp_path / "downloaded"))), env, tmp_path)
    assert download.returncode == 0, download.stderr[-2000:]
    offline = hub_env(None, tmp_path / "hf", release)
    for source, out in ((tmp_path / "downloaded", "from-release"), (tmp_path / "downloaded" / "results", "from-results")):
        made = cli(["hub", "results", str(source), "-o", str(tmp_path / out)], offline, tmp_path)
        assert made.returncode == 0, made.stderr[-2000:]
        assert "re-filed under the pinned commit" in made.stdout
        reports = sorted((tmp_path / out / "evaluation").glob("*.json"))
        assert len(reports) == 2 and all(json.loads(p.read_text())["dataset"]["revision"] == sha for p in reports)
    folder = tmp_path / "from-release"
    for step in (["rescore", str(folder), "--data", str(tiny), "--quiet"], ["report", str(folder), "--data", str(tiny)],
                 ["submit", str(folder), "-o", str(tmp_path / "submission")]):
        done = cli(step, offline, tmp_path)
        assert done.returncode == 0, (step, done.stderr[-3000:])
    mteb_files = sorted((tmp_path / "submission" / "results").rglob("ExecRetrieval.json"))
    assert len(mteb_files) == 2 and all(json.loads(p.read_text())["dataset_revision"] == sha for p in mteb_files)
    # and the folder computed before the pin is accepted too, re-filed under the commit
    direct = cli(["submit", str(local_results), "-o", str(tmp_path / "direct")], offline, tmp_path)
    assert direct.returncode == 0, direct.stderr[-3000:]
    rows = [json.loads(p.read_text()) for p in (tmp_path / "direct" / "leaderboard" / "rows").glob("*.json")]
    assert len(rows) == 2 and all(r["dataset"]["revision"] == sha for r in rows)

    refused = cli(["hub", "results", str(tmp_path / "downloaded"), "-o", str(folder)], offline, tmp_path)
    assert refused.returncode == 2 and "not empty" in refused.stderr  # never writes into a folder in use


def test_the_card_s_loading_example_runs_as_written(tiny: Path, fake_hub: FakeHub, tmp_path: Path) -> None:
    """The card's Python block, unchanged, against the pushed release: no config gives mteb's qrels."""
    import re

    root = stage(tmp_path / "release", data=tiny, repo_id=REPO).root
    env = hub_env(fake_hub, tmp_path / "hf", unpinned(tmp_path / "release.json", REPO))
    pushed = cli(["hub", "push", str(root), "--repo-id", REPO, "--yes"], env, tmp_path)
    assert pushed.returncode == 0, pushed.stderr[-2000:]
    section = (root / "README.md").read_text().split("## How to load it")[1]
    (example,) = re.findall(r"```python\n(.*?)```", section.split("\n## ")[0], re.DOTALL)
    ran = python(example, env, tmp_path)
    assert ran.returncode == 0, ran.stderr[-3000:]
    built = load_dataset(tiny)
    qrels = sum(len(q.correct_corpus_ids) for q in built.queries)
    assert ran.stdout.split() == [str(len(built.corpus)), str(len(built.queries)), str(qrels), str(len(built.queries))]
    columns = python(f"from datasets import load_dataset; print(sorted(load_dataset({REPO!r}, split='test').column_names))",
                     env, tmp_path)
    assert columns.stdout.strip() == "['corpus-id', 'query-id', 'score']"
