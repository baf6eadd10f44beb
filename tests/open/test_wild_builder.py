"""The wild corpus builder: licences, extraction, deduplication, determinism, the card (real files)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from execretrieval_mteb.construction.wild.build import WildBuildError, build_wild, wild_id
from execretrieval_mteb.construction.wild.dedup import exact_key, whitespace_key
from execretrieval_mteb.construction.wild.extract import Function, Grammar, Rejection, functions
from execretrieval_mteb.construction.wild.licenses import read_licence
from execretrieval_mteb.construction.wild.sources import sandbox_interpreter
from execretrieval_mteb.dataset.wild import load_wild


@pytest.mark.parametrize(("expression", "classifiers", "text", "family"), [
    ("MIT", [], None, "MIT"),
    ("Apache-2.0 OR BSD-2-Clause", [], None, "Apache-2.0"),
    ("GPL-3.0-only OR MIT", [], None, "MIT"),
    ("BSD-3-Clause AND 0BSD AND MIT AND Zlib AND CC0-1.0", [], None, "BSD-3-Clause"),  # numpy's bundled parts
    ("MPL-2.0 AND MIT", [], None, None),
    ("GPL-2.0-or-later", [], None, None),
    ("MIT-CMU", [], None, None),
    (None, ["License :: OSI Approved :: BSD License"], None, "BSD"),
    (None, ["License :: OSI Approved :: MIT License", "License :: OSI Approved :: GNU General Public License (GPL)"],
     None, None),
    (None, [], "Apache 2.0 License", "Apache-2.0"),
    (None, [], "BSD 3-Clause License\n\nCopyright (c) ...", "BSD"),
    (None, [], "GNU Lesser General Public License v3", None),
    (None, [], "", None),
])
def test_licence_families(expression, classifiers, text, family) -> None:
    assert read_licence(expression, classifiers, text).family == family


SOURCE = '''\
import os

HELPER = 3


def closed(xs, k=2):
    """Builtins and its own name only."""
    total = 0
    for x in xs:
        total += abs(x) * k
    return total if total else closed([1])


def needs_module_name(x):
    y = x + HELPER
    return os.path.join(str(y), "a")


@decorator_from_module
def decorated(a):
    return a
    # kept with its decorator


async def coroutine(a):
    await a
    return a


def short(a): return a


def imports_inside(n):
    import math
    from .sibling import thing
    return math.sqrt(n)
'''


def test_extraction_keeps_top_level_functions_and_records_what_they_need() -> None:
    out = list(functions(SOURCE, Grammar()))
    kept = {f.name: f for f in out if isinstance(f, Function)}
    assert Rejection.ASYNC in out and Rejection.LENGTH in out  # the coroutine, the one-liner
    assert set(kept) == {"closed", "needs_module_name", "decorated", "imports_inside"}
    assert kept["closed"].closed and kept["closed"].free_names == ()  # recursion is not a module name
    assert kept["closed"].code.startswith("def closed(xs, k=2):") and kept["closed"].line == 6
    assert kept["needs_module_name"].free_names == ("HELPER", "os") and not kept["needs_module_name"].closed
    assert kept["decorated"].code.startswith("@decorator_from_module\ndef decorated")
    assert kept["decorated"].free_names == ("decorator_from_module",)
    assert not kept["imports_inside"].closed  # a relative import needs its package
    for f in kept.values():
        compile(f.code, "<snippet>", "exec")  # each snippet parses alone


def test_an_unparsable_file_yields_one_rejection() -> None:
    assert list(functions("def f(:\n    pass\n")) == [Rejection.UNPARSABLE]
    assert list(functions("def f():\n    match = 1\n    return match\n", Grammar(version=(3, 9)))) != [Rejection.UNPARSABLE]


def test_whitespace_insensitive_key() -> None:
    a = "def f(x):\n    if x:\n        return [1,\n                2]\n    return 0\n"
    b = "def f(x):\n  if x:\n    return [1, 2]   \n\n  return 0\n"
    renested = "def f(x):\n    if x:\n        return [1, 2]\n        return 0\n"
    assert exact_key(a) != exact_key(b) and whitespace_key(a) == whitespace_key(b)
    assert whitespace_key(a) != whitespace_key(renested)  # block structure is not whitespace


def _fake_site(root: Path) -> Path:
    """Two distributions: MIT (kept) and GPL (excluded), each with a RECORD and one module."""
    site = root / "site-packages"
    for name, licence, body in (
        ("mitpkg", "MIT", "def twice(x):\n    y = x * 2\n    return y\n\n\ndef twice(x):\n  y = x  *  2\n  return y\n"),
        ("gplpkg", "GPL-3.0-only", "def secret(x):\n    y = x - 1\n    return y\n"),
    ):
        (site / name).mkdir(parents=True)
        (site / name / "core.py").write_text(body)
        (site / name / "tests").mkdir()
        (site / name / "tests" / "test_core.py").write_text(
            "def helper(a):\n    b = a\n    return b\n\n\ndef test_twice():\n    x = 1\n    assert x\n")
        info = site / f"{name}-1.0.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(f"Metadata-Version: 2.4\nName: {name}\nVersion: 1.0\nLicense-Expression: {licence}\n")
        (info / "RECORD").write_text(f"{name}/core.py,,\n{name}/tests/test_core.py,,\n{name}-1.0.dist-info/METADATA,,\n")
    return site


def test_build_is_deterministic_deduplicated_and_carded(tmp_path: Path) -> None:
    site = _fake_site(tmp_path)
    benchmark = ["def helper(a):\n    b = a\n    return b\n"]  # the test helper: a duplicate of a benchmark snippet
    kwargs = dict(benchmark_codes=benchmark, site_dirs=[site], packages=["mitpkg", "gplpkg"])
    first = build_wild(tmp_path / "a", **kwargs)
    second = build_wild(tmp_path / "b", **kwargs)
    for name in ("wild_corpus.jsonl", "sources.json", "README.md", "SHA256SUMS"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()
    rows = [json.loads(line) for line in (tmp_path / "a" / "wild_corpus.jsonl").read_text().splitlines()]
    assert [r["function_name"] for r in rows] == ["twice"]  # copy: whitespace dup; helper: benchmark dup; GPL: out
    row = rows[0]
    assert row["corpus_id"] == wild_id(row["code"]) and row["corpus_id"].startswith("w_")
    assert (row["package"], row["version"], row["file"], row["line"], row["license"]) == ("mitpkg", "1.0", "mitpkg/core.py", 1, "MIT")
    stats = {s.package: s for s in first.sources}
    assert stats["mitpkg"].duplicates == {"whitespace": 1, "benchmark": 1}
    assert stats["mitpkg"].rejected["test_case"] == 1
    assert stats["gplpkg"].license is None and stats["gplpkg"].kept == 0
    card = (tmp_path / "a" / "README.md").read_text()
    assert "| mitpkg | 1.0 | MIT" in card and "| gplpkg | 1.0 | GPL-3.0-only" in card
    assert load_wild(tmp_path / "a").records[0].code == row["code"] and second.functions == 1


def test_build_never_replaces_a_folder_it_did_not_write(tmp_path: Path) -> None:
    other = tmp_path / "mine"
    other.mkdir()
    (other / "notes.txt").write_text("keep me")
    with pytest.raises(WildBuildError, match="not a wild corpus"):
        build_wild(other, site_dirs=[_fake_site(tmp_path)], packages=["mitpkg"])
    assert (other / "notes.txt").read_text() == "keep me" and [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


def test_small_pool_is_real_stdlib_code(small_wild: Path) -> None:
    corpus = load_wild(small_wild)
    assert len(corpus.records) == 300
    assert {r.package for r in corpus.records} == {"python-stdlib"}
    assert all(r.version == sandbox_interpreter().version and r.license == "PSF-2.0" for r in corpus.records)
    assert len({r.corpus_id for r in corpus.records}) == 300
    assert all(3 <= r.code.count("\n") <= 60 for r in corpus.records)
