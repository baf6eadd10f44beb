"""One real build of the fixture tasks (real mutation engine, real sandboxed oracle), shared by the tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from execretrieval_mteb.construction.builder import BuildOptions, BuildResult, build

FIXTURE_TASKS = Path(__file__).parent / "fixtures" / "tasks"


@pytest.fixture(scope="session")
def fixture_build(tmp_path_factory: pytest.TempPathFactory) -> BuildResult:
    return build(BuildOptions(tasks_dir=FIXTURE_TASKS, out_dir=tmp_path_factory.mktemp("build") / "execretrieval"))
