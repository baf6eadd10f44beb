"""One warm sandboxed oracle shared by the oracle tests (starting fork servers costs ~0.5 s)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from execretrieval_mteb.oracle.api import Oracle


@pytest.fixture(scope="session")
def oracle() -> Iterator[Oracle]:
    with Oracle(workers=2) as warm:
        yield warm
