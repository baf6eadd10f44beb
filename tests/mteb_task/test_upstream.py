"""The contribution tested as upstream would run it: `execretrieval contrib` applied onto a copy of the
installed mteb (the package's registration switched off), the task loaded by mteb's own loader from a
Hub-protocol server holding a pushed release, `mteb run` giving the package's main score, mteb's task
checks, and the results read back by `ResultCache` with no import of this package."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import mteb
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "hub"))

from fake_hub import FakeHub  # noqa: E402
from hub_helpers import EXECRETRIEVAL, TOKEN, cli, hub_env, run, unpinned  # noqa: E402

from execretrieval_mteb.hub.stage import stage  # noqa: E402
from execretrieval_mteb.hub.contribution import PATCH, STATS_PATH, TASK_PATH  # noqa: E402

REPO = "bench/exec-retrieval"
MODEL = "sentence-transformers/all-MiniLM-L6-v2"
MTEB = str(Path(EXECRETRIEVAL).with_name("mteb"))
INSTALLED = Path(mteb.__file__).resolve().parent
MATERIALISED = ("tasks/retrieval/code", "descriptive_stats/Retrieval")
"""The only folders of the overlay that are copies (the contribution writes into them); the rest are links."""

CHECKS = r"""
import json, re, sys
import mteb
import pytest
from mteb.models.abs_encoder import AbsEncoder
from mteb.types import PromptType

overlay = sys.argv[1]
assert mteb.__file__.startswith(overlay), mteb.__file__
task = mteb.get_task("ExecRetrieval")
assert type(task).__module__ == "mteb.tasks.retrieval.code.exec_retrieval"
meta = task.metadata
assert meta.is_filled() and meta.type == "Retrieval" and meta.main_score == "exec_at_1"
meta._validate_metadata()

shipped = meta.descriptive_stats  # read by mteb from its own tree
fresh = json.loads(json.dumps(task.calculate_descriptive_statistics(overwrite_results=True)))  # from the Hub
assert shipped == fresh, "descriptive statistics differ from a fresh calculation"

entry = re.fullmatch(r"\s*@(\w+)\{([^\s,{}]+),(.*)\}\s*", meta.bibtex_citation, re.S)
assert entry, "citation is not one BibTeX entry"
fields, body = {}, entry.group(3)
for match in re.finditer(r"\s*(\w+)\s*=\s*\{", body):
    depth, end = 1, match.end()
    while depth:
        depth += {"{": 1, "}": -1}.get(body[end], 0)
        end += 1
    fields[match.group(1)] = body[match.end():end - 1]
assert {"title", "author", "year"} <= set(fields), fields
assert meta.intext_citation() == "\\cite{" + entry.group(2) + "}"

class Instructed(AbsEncoder):  # what an instruction model's wrapper asks of the task
    instruction_template = "Instruct: {instruction}\nQuery: "
    def encode(self, *args, **kwargs): raise NotImplementedError

probe = Instructed()
query = probe.get_task_instruction(meta, PromptType.query)
assert query == "Instruct: " + meta.prompt["query"] + "\nQuery: ", query
assert probe.get_instruction(meta, PromptType.query) == meta.prompt["query"]

assert not [m for m in sys.modules if m.startswith("execretrieval")], "the package was imported"
print("ok")
"""

RESULTS = r"""
import json, sys
import mteb
import pytest

scores = {}
for folder in sys.argv[1:]:
    loaded = mteb.ResultCache(folder).load_results(tasks=["ExecRetrieval"], include_remote=False, validate_and_filter=True)
    scores[folder] = {mr.model_name: tr.get_score() for mr in loaded.model_results for tr in mr.task_results}
assert not [m for m in sys.modules if m.startswith("execretrieval")], "the package was imported"
print(json.dumps(scores))
"""


def overlay_mteb(dest: Path, source: Path = INSTALLED) -> Path:
    """A copy of the installed mteb at ``dest/mteb``: links to everything but the ``MATERIALISED`` folders."""
    real = {Path(p) for p in MATERIALISED}
    parents = {parent for p in real for parent in p.parents if parent != Path(".")}

    def mirror(src: Path, dst: Path, rel: Path) -> None:
        dst.mkdir(parents=True)
        for child in src.iterdir():
            if child.name == "__pycache__":
                continue
            if rel / child.name in real:
                shutil.copytree(child, dst / child.name, ignore=shutil.ignore_patterns("__pycache__"))
            elif rel / child.name in parents:
                mirror(child, dst / child.name, rel / child.name)
            else:
                (dst / child.name).symlink_to(child)

    mirror(source, dest / "mteb", Path())
    return dest


def test_the_generated_contribution_runs_on_plain_mteb_and_gives_the_packages_scores(
    tiny_dataset: Path, tmp_path: Path
) -> None:
    with FakeHub(token=TOKEN) as hub:
        release = unpinned(tmp_path / "release.json", REPO)
        env = hub_env(hub, tmp_path / "hf", release)
        staged = stage(tmp_path / "release", data=tiny_dataset, repo_id=REPO)
        pushed = cli(["hub", "push", str(staged.root), "--repo-id", REPO, "--yes", "--pin"], env, tmp_path)
        assert pushed.returncode == 0, pushed.stderr[-2000:]
        sha = json.loads(release.read_text())["revision"]
        assert sha == hub.repo(REPO).branches["main"]

        # The package: the execution-aware run on the release's source data, then the contribution.
        ran = cli(["run", "-m", "all-MiniLM-L6-v2", "--data", str(tiny_dataset), "-o", str(tmp_path / "ran"),
                   "--quiet"], env, tmp_path)
        assert ran.returncode == 0, ran.stderr[-2000:]
        out = tmp_path / "contrib"
        made = cli(["contrib", "-o", str(out), "--data", str(tiny_dataset), "--results", str(tmp_path / "ran")],
                   env, tmp_path)
        assert made.returncode == 0, made.stderr[-2000:]
        module = (out / "mteb" / TASK_PATH).read_text(encoding="utf-8")
        assert f'"revision": "{sha}"' in module and f'"path": "{REPO}"' in module
        assert "execretrieval_mteb" not in module

        # Upstream: the pull request applied onto a copy of mteb; the package's hook switched off.
        overlay = overlay_mteb(tmp_path / "overlay")
        shutil.copytree(out / "mteb" / "mteb", overlay / "mteb", dirs_exist_ok=True)
        applied = subprocess.run(["git", "apply", str(out / "mteb" / PATCH)], cwd=overlay, capture_output=True,
                                 text=True)
        assert applied.returncode == 0, applied.stderr
        assert (overlay / STATS_PATH).is_file()
        upstream = {**env, "PYTHONPATH": str(overlay), "EXECRETRIEVAL_MTEB_NO_REGISTER": "1"}
        before = len(hub.requests)
        checked = run([sys.executable, "-c", CHECKS, str(overlay)], upstream, tmp_path)  # mteb's task checks, online
        assert checked.returncode == 0, checked.stderr[-3000:]
        assert checked.stdout.strip().endswith("ok")
        assert any(f"/resolve/{sha}/corpus/" in path for _, path, _ in hub.requests[before:])  # mteb's loader, at the pin

        offline = {**upstream, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"}  # the Hub serves no model here
        result = run([MTEB, "run", "-t", "ExecRetrieval", "-m", MODEL, "--output-folder", str(tmp_path / "upstream"),
                      "--no-co2-tracker", "-v", "1"], offline, tmp_path)
        assert result.returncode == 0, result.stderr[-3000:]
    (path,) = (tmp_path / "upstream").rglob("ExecRetrieval.json")
    theirs = json.loads(path.read_text())
    assert theirs["dataset_revision"] == sha

    (ours_path,) = (out / "results").rglob("ExecRetrieval.json")
    ours = json.loads(ours_path.read_text())
    assert ours_path.parent.name == path.parent.name  # same model revision folder
    for key in ("main_score", "exec_at_1", "exec_at_10", "execution_precision_at_3", "ndcg_tie_neutral_at_10"):
        assert theirs["scores"]["test"][0][key] == ours["scores"]["test"][0][key], key
    evaluated = json.loads((tmp_path / "ran" / "evaluation" / f"{MODEL.replace('/', '__')}.json").read_text())
    assert abs(evaluated["metrics"]["exec_at_1"] - ours["scores"]["test"][0]["exec_at_1"]) < 5.01e-7  # the oracle agrees

    folders = [str(out / "results"), str(tmp_path / "upstream")]
    read = run([sys.executable, "-c", RESULTS, *folders], offline, tmp_path)
    assert read.returncode == 0, read.stderr[-3000:]
    main = ours["scores"]["test"][0]["main_score"]
    assert json.loads(read.stdout.strip().splitlines()[-1]) == {folder: {MODEL: main} for folder in folders}


def test_the_task_module_pins_the_packages_release_and_imports_only_mteb(tmp_path: Path) -> None:
    import ast

    from execretrieval_mteb.dataset.release import RELEASE_FILE, UNRELEASED, Release, read_release
    from execretrieval_mteb.mteb_task import about
    from execretrieval_mteb.hub.contribution import render_task_module
    from execretrieval_mteb.mteb_task.exec_retrieval import ExecRetrieval

    release = read_release(RELEASE_FILE)
    assert (about.MODULE_REPO, about.MODULE_REVISION) == (release.repo_id, release.revision or UNRELEASED)
    assert ExecRetrieval.metadata.dataset == {"path": about.MODULE_REPO, "revision": about.MODULE_REVISION}
    tree = ast.parse(about.TASK_MODULE.read_text(encoding="utf-8"))
    imported = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    imported |= {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    assert {m.split(".")[0] for m in imported} <= {"__future__", "math", "itertools", "mteb"}
    pinned = Release("org/name", "f" * 40, None)
    rendered = render_task_module(pinned)
    assert rendered == render_task_module(pinned, rendered)  # idempotent: what `hub pin` writes back
    assert rendered.replace(f'"{pinned.repo_id}"', f'"{about.MODULE_REPO}"').replace(
        f'"{pinned.revision}"', f'"{about.MODULE_REVISION}"') == about.TASK_MODULE.read_text(encoding="utf-8")


def test_contrib_refuses_without_a_pinned_release_and_on_other_data(tiny_dataset: Path, tmp_path: Path,
                                                                   monkeypatch) -> None:
    from execretrieval_mteb.dataset.release import Release
    from execretrieval_mteb.hub.contribution import ContributionError, write_contribution

    with pytest.raises(ContributionError, match=r"no release of org/name is pinned .*--pin"):
        write_contribution(tmp_path / "out", release=Release("org/name", None, None))
    with pytest.raises(ContributionError, match=r"not the pinned release org/name@f{40}.*--data hub"):
        write_contribution(tmp_path / "out", tiny_dataset, release=Release("org/name", "f" * 40, "0" * 64))
    assert not (tmp_path / "out").exists()  # nothing half-written


def test_pinning_another_release_file_leaves_the_task_module_alone(tmp_path: Path, capsys) -> None:
    from execretrieval_mteb.cli.hub_cmd import _pin_task_module
    from execretrieval_mteb.dataset.release import Release
    from execretrieval_mteb.mteb_task.about import TASK_MODULE

    before = TASK_MODULE.read_bytes()
    _pin_task_module(Release("org/name", "f" * 40, None), tmp_path / "release.json")  # a test's or a mirror's
    assert TASK_MODULE.read_bytes() == before and capsys.readouterr().out == ""
