"""Push and pull for real: the `execretrieval` CLI, huggingface_hub, datasets and mteb in subprocesses,
against the fake Hub in this process (see conftest: online subprocesses, an offline test process)."""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

import pytest
from hub_helpers import TOKEN, cli, hub_env, python, run, unpinned
from fake_hub import FakeHub

from execretrieval_mteb.dataset.io import load_dataset
from execretrieval_mteb.dataset.manifest import SUMS
from execretrieval_mteb.hub.stage import stage

REPO = "bench/tiny"

LOAD_CONFIGS = """
import datasets, hashlib, json, sys
repo, revision, names = sys.argv[1], sys.argv[2], sys.argv[3].split(",")
out = {}
for name in names:
    rows = datasets.load_dataset(repo, name, revision=revision, split="test").to_list()
    out[name] = [len(rows), hashlib.sha256(json.dumps(rows, sort_keys=True).encode()).hexdigest()]
print(json.dumps(out))
"""

LOAD_TASK = """
import json
from execretrieval_mteb.mteb_task.task import load_task
loaded = load_task("hub")
split = loaded.task.dataset["default"]["test"]
print(json.dumps({"fingerprint": loaded.fingerprint, "revision": loaded.revision,
                  "queries": sorted(split["queries"]["id"]), "corpus": sorted(split["corpus"]["id"])}))
"""


EVALUATE_BM25 = """
import sys
import mteb
from execretrieval_mteb import load_task
mteb.evaluate(mteb.get_model("execretrieval-mteb/bm25-code"), load_task(sys.argv[1]).task,
              cache=mteb.ResultCache(sys.argv[2]), co2_tracker=False)
"""


def _configs(root: Path) -> list[str]:
    from huggingface_hub import DatasetCard

    return [c["config_name"] for c in DatasetCard.load(root / "README.md").data.to_dict()["configs"]]


def _local_configs(root: Path) -> dict[str, list]:
    import hashlib

    import datasets

    out = {}
    for name in _configs(root):
        rows = datasets.load_dataset(str(root), name, split="test").to_list()
        out[name] = [len(rows), hashlib.sha256(json.dumps(rows, sort_keys=True).encode()).hexdigest()]
    return out


def _listed(stdout: str) -> dict[str, str]:
    """path -> status from a dry run's listing."""
    out = {}
    for line in stdout.splitlines():
        parts = line.split()
        if line.startswith("  ") and len(parts) == 3:
            out[parts[2]] = parts[0]
    return out


def _fetched_twice(requests: list[tuple[str, str, str | None]]) -> list[str]:
    counts = Counter(path for method, path, _ in requests if method == "GET" and ("/resolve/" in path or "/objects/" in path))
    return [path for path, n in counts.items() if n > 1]


@pytest.fixture(scope="module")
def staged_tiny(tiny: Path, official_results: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return stage(tmp_path_factory.mktemp("staged") / "release", data=tiny, results=official_results, repo_id=REPO).root


def test_dry_run_lists_exactly_the_staged_files_and_writes_nothing(staged_tiny: Path, fake_hub: FakeHub, tmp_path: Path) -> None:
    env = hub_env(fake_hub, tmp_path / "hf", unpinned(tmp_path / "release.json", REPO))
    result = cli(["hub", "push", str(staged_tiny), "--repo-id", REPO], env, tmp_path)
    assert result.returncode == 0, result.stderr[-2000:]
    staged = {p.relative_to(staged_tiny).as_posix() for p in staged_tiny.rglob("*") if p.is_file()}
    listed = _listed(result.stdout)
    assert set(listed) == staged and set(listed.values()) == {"new"}
    sizes = {line.split()[2]: int(line.split()[1].replace(",", "")) for line in result.stdout.splitlines()
             if line.startswith("  ")}
    assert sizes == {rel: (staged_tiny / rel).stat().st_size for rel in staged}
    assert f"repository {REPO} does not exist: it would be created" in result.stdout
    assert "nothing was written" in result.stdout
    assert fake_hub.repos == {}  # a dry run writes nothing
    assert not [m for m, *_ in fake_hub.requests if m not in ("GET", "HEAD")]
    assert TOKEN not in result.stdout + result.stderr


def test_push_retries_transient_failures_in_one_commit_then_pin_and_pull_offline(
    staged_tiny: Path, fake_hub: FakeHub, tmp_path: Path
) -> None:
    release = unpinned(tmp_path / "release.json", REPO)
    env = hub_env(fake_hub, tmp_path / "hf-push", release)
    fake_hub.fail_next("POST", r"/api/datasets/.*/commit/", 503)  # the commit itself fails once
    fake_hub.fail_next("PUT", r"^/objects/", 500)  # and an LFS upload to storage
    result = cli(["hub", "push", str(staged_tiny), "--repo-id", REPO, "--yes", "--tag", "v1"], env, tmp_path)
    assert result.returncode == 0, result.stderr[-3000:]
    assert TOKEN not in result.stdout + result.stderr
    repo = fake_hub.repo(REPO)
    assert len(repo.commits) == 2  # the repository's first commit and exactly one release commit
    sha = repo.branches["main"]
    assert f"commit {sha}" in result.stdout and repo.tags == {"v1": sha}
    files = fake_hub.files_at(REPO, sha)
    staged = {p.relative_to(staged_tiny).as_posix(): p.read_bytes() for p in staged_tiny.rglob("*") if p.is_file()}
    assert {k: v for k, v in files.items() if k != ".gitattributes"} == staged
    lfs = {p for p, b in repo.commits[sha].tree.items() if b.lfs_oid}
    assert {"embeddings/sentence-transformers__all-MiniLM-L6-v2.npz", "results/figures/exec_at_k.png"} <= lfs

    pinned = cli(["hub", "pin", "v1", "--repo-id", REPO], env, tmp_path)  # a tag is resolved to its commit
    assert pinned.returncode == 0, pinned.stderr[-2000:]
    blob = json.loads(release.read_text())
    source = json.loads((staged_tiny / "release_info.json").read_text())["source_fingerprint"]
    assert blob == {"repo_id": REPO, "revision": sha, "fingerprint": load_dataset(staged_tiny).fingerprint,
                    "source_fingerprint": source}
    assert blob["fingerprint"] == source  # one data fingerprint: the release's data is its source's

    before = len(fake_hub.requests)
    pull_env = hub_env(fake_hub, tmp_path / "hf-pull", release)
    loaded = python(LOAD_TASK, pull_env, tmp_path)
    assert loaded.returncode == 0, loaded.stderr[-3000:]
    task = json.loads(loaded.stdout.strip().splitlines()[-1])
    assert task["revision"] == sha and task["fingerprint"] == blob["fingerprint"]
    assert "verified data/ files" not in loaded.stderr  # mteb's own loader served the split
    assert _fetched_twice(fake_hub.requests[before:]) == []  # no file downloaded twice
    fetched = {p.split(f"/resolve/{sha}/", 1)[1] for m, p, _ in fake_hub.requests[before:] if "/resolve/" in p}
    assert {"data/queries.jsonl", SUMS, "corpus/test.parquet", "queries/test.parquet", "default/test.parquet"} <= fetched
    assert any(m == "GET" and p.startswith("/objects/") for m, p, _ in fake_hub.requests[before:])  # the Parquet, via LFS
    assert not any(p.startswith(("results/", "embeddings/")) for p in fetched)

    names = _configs(staged_tiny)
    configs = run([sys.executable, "-c", LOAD_CONFIGS, REPO, sha, ",".join(names)], pull_env, tmp_path)
    assert configs.returncode == 0, configs.stderr[-3000:]
    assert json.loads(configs.stdout.strip().splitlines()[-1]) == _local_configs(staged_tiny)

    fake_hub.stop()  # offline from the cache: the Hub is gone and HF_HUB_OFFLINE is set
    offline = python(LOAD_TASK, hub_env(None, tmp_path / "hf-pull", release), tmp_path)
    assert offline.returncode == 0, offline.stderr[-3000:]
    assert json.loads(offline.stdout.strip().splitlines()[-1]) == task
    no_cache = cli(["run", "--data", "hub", "-m", "bm25", "-o", str(tmp_path / "out"), "--quiet"],
                   hub_env(None, tmp_path / "hf-empty", release), tmp_path)
    assert no_cache.returncode == 2
    assert "Traceback" not in no_cache.stderr
    last = no_cache.stderr.strip().splitlines()[-1]
    assert last.startswith("execretrieval run: error: ") and f"{REPO}@{sha}" in last
    assert "not in the Hugging Face cache" in last and "offline mode is on" in last


def test_second_push_leaves_the_first_revision_loadable_unchanged(
    tiny: Path, staged_tiny: Path, fake_hub: FakeHub, tmp_path: Path
) -> None:
    env = hub_env(fake_hub, tmp_path / "hf", unpinned(tmp_path / "release.json", REPO))
    first = cli(["hub", "push", str(staged_tiny), "--repo-id", REPO, "--yes"], env, tmp_path)
    assert first.returncode == 0, first.stderr[-2000:]
    sha1 = fake_hub.repo(REPO).branches["main"]
    names = _configs(staged_tiny)
    before = run([sys.executable, "-c", LOAD_CONFIGS, REPO, sha1, ",".join(names)], env, tmp_path)
    assert before.returncode == 0, before.stderr[-2000:]

    second = stage(tmp_path / "second", data=tiny, repo_id=REPO)  # the data alone: results/ and embeddings/ go
    dry = cli(["hub", "push", str(second.root), "--repo-id", REPO], env, tmp_path)
    listed = _listed(dry.stdout)
    assert listed["results/leaderboard.json"] == "delete" and listed["data/queries.jsonl"] == "unchanged"
    assert listed["README.md"] == "changed" and ".gitattributes" not in listed
    pushed = cli(["hub", "push", str(second.root), "--repo-id", REPO, "--yes"], env, tmp_path)
    assert pushed.returncode == 0, pushed.stderr[-2000:]
    sha2 = fake_hub.repo(REPO).branches["main"]
    assert sha2 != sha1 and not any(p.startswith("results/") for p in fake_hub.files_at(REPO, sha2))
    after = run([sys.executable, "-c", LOAD_CONFIGS, REPO, sha1, ",".join(names)], env, tmp_path / "..")
    assert after.returncode == 0, after.stderr[-2000:]
    assert json.loads(after.stdout.strip().splitlines()[-1]) == json.loads(before.stdout.strip().splitlines()[-1])
    assert "results/leaderboard.json" in fake_hub.files_at(REPO, sha1)

    again = cli(["hub", "push", str(second.root), "--repo-id", REPO, "--yes"], env, tmp_path)  # nothing changed
    assert again.returncode == 0 and fake_hub.repo(REPO).branches["main"] == sha2


def test_a_commit_whose_answer_was_lost_is_not_made_twice(staged_tiny: Path, fake_hub: FakeHub, tmp_path: Path) -> None:
    env = hub_env(fake_hub, tmp_path / "hf", unpinned(tmp_path / "release.json", REPO))
    fake_hub.lose_answer("POST", r"/api/datasets/.*/commit/")
    result = cli(["hub", "push", str(staged_tiny), "--repo-id", REPO, "--yes", "--branch", "release"], env, tmp_path)
    assert result.returncode == 0, result.stderr[-2000:]
    repo = fake_hub.repo(REPO)
    assert len(repo.commits) == 2 and repo.branches["release"] != repo.branches["main"]
    assert "not committed twice" in result.stderr
    assert f"commit {repo.branches['release']}" in result.stdout


def test_a_refused_push_is_one_line_and_never_shows_the_token(staged_tiny: Path, fake_hub: FakeHub, tmp_path: Path) -> None:
    fake_hub.create_repo("dataset", REPO)
    head = fake_hub.repo(REPO).branches["main"]
    env = hub_env(fake_hub, tmp_path / "hf", unpinned(tmp_path / "release.json", REPO), HF_TOKEN="hf_wrong_but_secret")
    result = cli(["hub", "push", str(staged_tiny), "--repo-id", REPO, "--yes"], env, tmp_path)
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("execretrieval hub: error: ")
    assert "401" in result.stderr and "hf_wrong_but_secret" not in result.stdout + result.stderr
    assert fake_hub.repo(REPO).branches["main"] == head
    no_token = cli(["hub", "push", str(staged_tiny), "--repo-id", REPO, "--yes"],
                   {**env, "HF_TOKEN": ""}, tmp_path)
    assert no_token.returncode == 2 and "no Hugging Face token" in no_token.stderr


def test_the_bundled_release_through_mteb_run_gives_the_bundled_scores(fake_hub: FakeHub, tmp_path: Path) -> None:
    """Stage the bundled dataset, push it, pin it; mteb evaluates the task bound to the pushed commit
    (`load_task("hub")`, mteb's loader) and to the bundled data alike. (Plain `mteb run` on a pushed
    release, with the task as contributed to mteb: tests/mteb_task/test_upstream.py.)"""
    staged = stage(tmp_path / "release", repo_id="execretrieval/ExecRetrieval")
    release = unpinned(tmp_path / "release.json", "execretrieval/ExecRetrieval")
    env = hub_env(fake_hub, tmp_path / "hf", release)
    pushed = cli(["hub", "push", str(staged.root), "--repo-id", "execretrieval/ExecRetrieval", "--yes", "--pin"], env, tmp_path)
    assert pushed.returncode == 0, pushed.stderr[-2000:]
    sha = fake_hub.repo("execretrieval/ExecRetrieval").branches["main"]
    assert json.loads(release.read_text())["revision"] == sha

    scores = {}
    for data in ("hub", "bundled"):
        before = len(fake_hub.requests)
        out = tmp_path / f"mteb-{data}"
        result = run([sys.executable, "-c", EVALUATE_BM25, data, str(out)], env, tmp_path)
        assert result.returncode == 0, result.stderr[-3000:]
        (path,) = out.rglob("ExecRetrieval.json")
        assert path.parent.parent.name == "execretrieval-mteb__bm25-code"  # filed under the registry entry's name
        meta = json.loads((path.parent / "model_meta.json").read_text())
        assert (meta["name"], meta["framework"], meta["revision"]) == (
            "execretrieval-mteb/bm25-code", ["NumPy"], path.parent.name)
        blob = json.loads(path.read_text())
        assert blob["dataset_revision"] == sha  # the bundled data is the release's source: same revision
        scores[data] = blob["scores"]["test"][0]
        if data == "hub":
            assert _fetched_twice(fake_hub.requests[before:]) == []
            assert any(f"/resolve/{sha}/corpus/test.parquet" in p for _, p, _ in fake_hub.requests[before:])
        else:
            assert len(fake_hub.requests) == before  # the bundled data never touches the Hub
    for key in ("exec_at_1", "exec_at_10", "execution_precision_at_3", "ndcg_tie_neutral_at_10", "ndcg_at_10", "main_score"):
        assert scores["hub"][key] == scores["bundled"][key], key

    names = _configs(staged.root)  # every config of the real release loads at the commit, as staged
    assert "labelled_corpus" in names and "query_tests" in names
    configs = run([sys.executable, "-c", LOAD_CONFIGS, "execretrieval/ExecRetrieval", sha, ",".join(names)], env, tmp_path)
    assert configs.returncode == 0, configs.stderr[-3000:]
    assert json.loads(configs.stdout.strip().splitlines()[-1]) == _local_configs(staged.root)
