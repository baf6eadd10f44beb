"""The files of the two pull requests that put ExecRetrieval into mteb and its results on MTEB's leaderboard.

``write_contribution(out, results)`` writes::

    OUT/mteb/mteb/tasks/retrieval/code/exec_retrieval.py     the task module, pinned to the release
    OUT/mteb/mteb/descriptive_stats/Retrieval/ExecRetrieval.json   mteb's statistics of the released data
    OUT/mteb/registration.patch                              the task's line in mteb/tasks/retrieval/code/__init__.py
    OUT/results/results/<org__model>/<revision>/ExecRetrieval.json, model_meta.json   (with ``results``)

The statistics are computed by mteb on ``data`` (default: the bundled dataset), which must be the
pinned release's data (its fingerprint is the release's or that of the dataset it was staged from).
``OUT/mteb`` mirrors an mteb checkout: copy its ``mteb/`` onto the checkout's and run ``git apply
OUT/mteb/registration.patch`` there. The task module is ``exec_retrieval.py`` of this package (the
very class the package registers) with the dataset repository and commit of the pinned release
(``dataset/release.json``) written in; nothing is generated that the package does not run itself.
The patch is computed against the installed mteb's ``__init__.py`` (an mteb of the version range
``pyproject.toml`` allows), adding one import and one ``__all__`` entry in mteb's sorted order.
``OUT/results`` is the results-repository layout, packaged and read back with mteb's
``ResultCache`` by ``leaderboard.mteb_results`` (only results on the pinned release qualify).
"""

from __future__ import annotations

import ast
import difflib
import json
from dataclasses import dataclass
from pathlib import Path

from ..dataset.io import write_text_atomic
from ..dataset.release import Release, pinned_release
from ..errors import ExecRetrievalError
from ..mteb_task.about import TASK_MODULE, metadata_call

MODULE_NAME = "exec_retrieval"
CLASS_NAME = "ExecRetrieval"
TASK_PATH = f"mteb/tasks/retrieval/code/{MODULE_NAME}.py"
INIT_PATH = "mteb/tasks/retrieval/code/__init__.py"
STATS_PATH = f"mteb/descriptive_stats/Retrieval/{CLASS_NAME}.json"
PATCH = "registration.patch"


class ContributionError(ExecRetrievalError):
    """The contribution cannot be generated; the message says why and what to do."""


@dataclass(frozen=True)
class Contribution:
    mteb: Path
    """The mteb checkout overlay (``mteb/...`` files and ``registration.patch``)."""
    files: tuple[str, ...]
    results: tuple[Path, ...]
    """The packaged result files (``ExecRetrieval.json``), one per model."""


def render_task_module(release: Release, source: str | None = None) -> str:
    """The task module's source with ``release``'s repository and commit as its dataset."""
    if not release.revision:
        raise ContributionError(
            f"no release of {release.repo_id} is pinned (dataset/release.json): mteb tasks pin a Hub commit; "
            "push and pin the release first (`execretrieval hub push RELEASE --repo-id ID --yes --pin`)"
        )
    source = TASK_MODULE.read_text(encoding="utf-8") if source is None else source
    dataset = next(k.value for k in metadata_call(ast.parse(source)).keywords if k.arg == "dataset")
    assert isinstance(dataset, ast.Dict)
    values = {ast.literal_eval(key): value for key, value in zip(dataset.keys, dataset.values) if key is not None}
    lines = source.splitlines(keepends=True)
    for key, new in sorted({"path": release.repo_id, "revision": release.revision}.items(),
                           key=lambda item: -values[item[0]].lineno):
        node = values[key]
        assert isinstance(node, ast.Constant) and node.lineno == node.end_lineno  # one-line string literals
        line = lines[node.lineno - 1].encode("utf-8")
        start, end = node.col_offset, node.end_col_offset  # byte offsets
        assert start is not None and end is not None
        lines[node.lineno - 1] = (line[:start] + json.dumps(new).encode("utf-8") + line[end:]).decode("utf-8")
    return "".join(lines)


def pin_task_module(release: Release) -> Path:
    """Write ``release``'s repository and commit into the package's own task module (``hub pin`` of the
    package's release file calls this, so the class the package registers names the pinned commit)."""
    write_text_atomic(TASK_MODULE, render_task_module(release))
    return TASK_MODULE


def register_in_init(text: str) -> str:
    """mteb's ``tasks/retrieval/code/__init__.py`` with the task imported and listed, each in sorted place."""
    if f"from .{MODULE_NAME} import {CLASS_NAME}" in text:
        return text
    lines = text.splitlines(keepends=True)
    tree = ast.parse(text)
    imports = [n for n in tree.body if isinstance(n, ast.ImportFrom) and n.level == 1]
    after = next((n for n in imports if (n.module or "") > MODULE_NAME), None)
    at = after.lineno - 1 if after else (imports[-1].end_lineno if imports else 0)
    assert at is not None
    lines.insert(at, f"from .{MODULE_NAME} import {CLASS_NAME}\n")
    text = "".join(lines)
    names = next(n.value for n in ast.parse(text).body
                 if isinstance(n, ast.Assign) and getattr(n.targets[0], "id", None) == "__all__")
    assert isinstance(names, ast.List)
    later = next((e for e in names.elts if isinstance(e, ast.Constant) and str(e.value) > CLASS_NAME), None)
    lines = text.splitlines(keepends=True)
    if later is None:
        last = names.elts[-1]
        indent = " " * last.col_offset
        lines.insert(last.lineno, f'{indent}"{CLASS_NAME}",\n')
    else:
        indent = " " * later.col_offset
        lines.insert(later.lineno - 1, f'{indent}"{CLASS_NAME}",\n')
    return "".join(lines)


def installed_init() -> Path:
    """The installed mteb's ``tasks/retrieval/code/__init__.py`` (found without importing mteb)."""
    from importlib.util import find_spec

    spec = find_spec("mteb")
    if spec is None or not spec.submodule_search_locations:
        raise ContributionError("mteb is not installed; install the package's dependencies (./setup.sh)")
    return Path(next(iter(spec.submodule_search_locations))) / "tasks" / "retrieval" / "code" / "__init__.py"


def registration_patch(init_text: str) -> str:
    """A ``git apply`` patch adding the task to mteb's ``__init__.py`` (given as it is in the checkout)."""
    return "".join(difflib.unified_diff(
        init_text.splitlines(keepends=True), register_in_init(init_text).splitlines(keepends=True),
        fromfile=f"a/{INIT_PATH}", tofile=f"b/{INIT_PATH}",
    ))


def write_contribution(out: Path, data: str | Path | None = None, results: Path | None = None,
                       models: set[str] | None = None, release: Release | None = None) -> Contribution:
    """Write both pull requests' files under ``out`` (see the module docstring)."""
    from ..mteb_task.statistics import compute
    from ..mteb_task.task import load_task

    release = release or pinned_release()
    module = render_task_module(release)
    loaded = load_task(data)
    if loaded.revision != release.revision:
        raise ContributionError(
            f"{loaded.source.describe()}: not the pinned release {release.repo_id}@{release.revision} (fingerprint "
            f"{loaded.fingerprint[:12]}); mteb's statistics must describe the released data: pass --data hub, or the "
            "dataset the release was staged from"
        )
    init = installed_init()
    if CLASS_NAME in init.read_text(encoding="utf-8"):
        raise ContributionError(f"{init}: the installed mteb already has {CLASS_NAME}; nothing to contribute")
    patch = registration_patch(init.read_text(encoding="utf-8"))
    packaged = []
    if results is not None:
        from ..results.results_folder import ResultsFolder
        from ..leaderboard.mteb_results import package

        packaged = package(ResultsFolder(Path(results)), Path(out) / "results", release, models)
        if not packaged:
            raise ContributionError(f"{results}: no mteb result files of {CLASS_NAME} to submit; run "
                                    "`execretrieval run` (or `mteb run`) on the pinned release first")
    root = Path(out) / "mteb"
    write_text_atomic(root / TASK_PATH, module)
    root.joinpath(STATS_PATH).parent.mkdir(parents=True, exist_ok=True)
    compute(loaded, root / STATS_PATH)
    write_text_atomic(root / PATCH, patch)
    return Contribution(root, (TASK_PATH, STATS_PATH, PATCH), tuple(r.path for r in packaged))
