"""End-to-end builds of the fixture tasks: determinism, layouts, gates, sweeps, cache, ids."""

from __future__ import annotations

import json
import os
import shutil
from collections import Counter
from pathlib import Path

import pytest

from execretrieval_mteb.cli.main import main
from execretrieval_mteb.construction.mutation import RealismRule
from execretrieval_mteb.construction.builder import BuildOptions, BuildResult, build
from execretrieval_mteb.dataset.io import load_dataset
from execretrieval_mteb.dataset.schema import BugType, Label
from execretrieval_mteb.oracle.api import run_suites
from execretrieval_mteb.oracle.outcomes import Suite

FIXTURE_TASKS = Path(__file__).parent / "fixtures" / "tasks"

EXPECTED_FILES = {
    "README.md",
    "SHA256SUMS",
    "build_report.json",
    "corpus/test.jsonl",
    "queries/test.jsonl",
    "default/test.jsonl",
    "data/queries.jsonl",
    "data/corpus.jsonl",
    "data/distractor_metadata.jsonl",
    "data/execution_cache.jsonl",
    "data/stacked_mutants.jsonl",
}


def _files(root: Path) -> set[str]:
    return {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()}


def test_building_twice_gives_identical_sha256sums(fixture_build: BuildResult, tmp_path: Path) -> None:
    again = build(BuildOptions(tasks_dir=FIXTURE_TASKS, out_dir=tmp_path / "again"))
    assert _files(fixture_build.out_dir) == EXPECTED_FILES
    assert (tmp_path / "again" / "SHA256SUMS").read_text() == (fixture_build.out_dir / "SHA256SUMS").read_text()
    assert again.sums == fixture_build.sums
    listed = {line.split("  ", 1)[1] for line in fixture_build.sums.splitlines()}
    assert listed == EXPECTED_FILES - {"SHA256SUMS"}


def test_outputs_hold_no_absolute_paths(fixture_build: BuildResult) -> None:
    for rel in EXPECTED_FILES:
        text = (fixture_build.out_dir / rel).read_text(encoding="utf-8")
        assert str(FIXTURE_TASKS) not in text and str(fixture_build.out_dir) not in text and os.sep + "tmp" not in text


def test_failing_tasks_are_excluded_with_gate_and_reason(fixture_build: BuildResult) -> None:
    exclusions = {e["task"]: e for e in fixture_build.report["exclusions"]}
    assert set(exclusions) == {
        "date_time/clamp_to_zero.toml",
        "state_machines/turnstile_final_state.toml",
        "math_numerical/is_perfect_square.toml",
    }
    assert exclusions["date_time/clamp_to_zero.toml"]["gate"] == "schema"
    assert "has 2 verified mutants, needs 4" in exclusions["date_time/clamp_to_zero.toml"]["reasons"][0]
    turnstile = exclusions["state_machines/turnstile_final_state.toml"]
    assert turnstile["gate"] == "canonical_execution"
    assert (
        "test 7 `assert turnstile_final_state(['coin', 'push', 'coin']) == 'locked'`: FAIL" in turnstile["reasons"][0]
    )
    collision = exclusions["math_numerical/is_perfect_square.toml"]
    assert collision["gate"] == "corpus_integrity" and "`integer_sqrt`" in collision["reasons"][0]


def test_every_shipped_mutant_is_one_edit_of_its_canonical_and_fails_its_tests(fixture_build: BuildResult) -> None:
    data = load_dataset(fixture_build.out_dir)
    code = {c.corpus_id: c.code for c in data.corpus}
    meta = {d.corpus_id: d for d in data.distractors}
    suites, expect_pass = [], []
    for query in data.queries:
        canonical = code[query.correct_corpus_ids[0]]
        assert len(query.paired_distractor_corpus_ids) == 4
        suites.append(Suite(canonical, query.test_suite))
        expect_pass.append(True)
        for cid in query.paired_distractor_corpus_ids:
            d = meta[cid]
            start, end = d.span
            assert canonical[start:end] == d.before
            assert canonical[:start] + d.after + canonical[end:] == code[cid]
            assert BugType(d.bug_type) and d.bug_description
            suites.append(Suite(code[cid], query.test_suite))
            expect_pass.append(False)
    results = run_suites(suites)
    for result, should_pass in zip(results, expect_pass):
        assert result.passed is should_pass
        if not should_pass:
            assert result.has_wrong_output
    for query in data.queries:  # the four do not all fail the same tests
        failed = {
            run_suites([Suite(code[c], query.test_suite)])[0].failed_tests for c in query.paired_distractor_corpus_ids
        }
        assert len(failed) > 1


def test_execution_cache_has_every_own_pair_and_the_cross_sweep_runs(fixture_build: BuildResult) -> None:
    data = load_dataset(fixture_build.out_dir)
    tests_of = {}
    for q in data.queries:
        for cid in (*q.correct_corpus_ids, *q.paired_distractor_corpus_ids):
            tests_of[cid] = q.test_suite
    for record in data.corpus:
        suite = Suite(record.code, tests_of[record.corpus_id])
        outcomes = data.execution_cache[(suite.code_sha256, suite.tests_sha256)]
        assert all(o.passed for o in outcomes) is (record.label is Label.CORRECT)
    target_tests = next(q.test_suite for q in data.queries if q.function_name == "lowest_set_bit")
    helper_items = [c for c in data.corpus if c.source_entry_id == "clear_lowest_set_bit"]
    for record in helper_items:  # these define a (wrong) lowest_set_bit helper: run, recorded, failing
        outcomes = data.execution_cache[
            (Suite(record.code, target_tests).code_sha256, Suite(record.code, target_tests).tests_sha256)
        ]
        assert not all(o.passed for o in outcomes)
    stacked = [json.loads(line) for line in (fixture_build.out_dir / "data/stacked_mutants.jsonl").open()]
    stacked_helpers = [s for s in stacked if s["source_entry_id"] == "clear_lowest_set_bit"]
    assert len(data.execution_cache) == len(data.corpus) + len(helper_items) + len(stacked) + len(stacked_helpers)
    sweep = fixture_build.report["sweeps"]["cross_canonical"]
    assert sweep["passed"] and sweep["collisions_shipped"] == 0
    assert sweep["pairs"] == [
        "clear_lowest_set_bit defines lowest_set_bit (5 snippets)",
        "is_perfect_square defines integer_sqrt (5 snippets)",
    ]
    assert sweep["collisions_found"] and all(
        c.startswith("is_perfect_square defines integer_sqrt") for c in sweep["collisions_found"]
    )


def test_report_counts_and_domain_table(fixture_build: BuildResult) -> None:
    report = fixture_build.report
    assert (
        report["counts"]["queries"] == 6 and report["counts"]["snippets"] == 30 and report["counts"]["task_files"] == 9
    )
    assert sum(v["count"] for v in report["bug_types"].values()) == 24
    assert set(report["bug_types"]) == {t.value for t in BugType}
    assert report["domains"]["bit_manipulation"]["queries"] == 2
    assert report["domains"]["date_time"] == {
        "task_files": 1,
        "queries": 0,
        "excluded": 1,
        "median_canonical_lines": None,
        "mutants_by_bug_type": {t.value: 0 for t in BugType},
    }
    assert report["sweeps"]["distractor_sanity"]["passed"]
    assert report["targets"]["queries"] == {"value": 6, "target": 1000, "met": False}
    assert report["gates"]["canonical_execution"] == {"passed": 8, "failed": 1}
    assert json.loads((fixture_build.out_dir / "build_report.json").read_text()) == report
    readme = (fixture_build.out_dir / "README.md").read_text()
    assert fixture_build.table in readme
    assert "| bit_manipulation | 2 |" in fixture_build.table


def test_ids_are_sequential_grouped_and_do_not_reveal_the_canonical(fixture_build: BuildResult) -> None:
    data = load_dataset(fixture_build.out_dir)
    assert [q.query_id for q in data.queries] == [f"q_{i:04d}" for i in range(6)]
    assert sorted(c.corpus_id for c in data.corpus) == [f"c_{i:04d}" for i in range(30)]
    offsets = []
    for q in data.queries:
        block = sorted((*q.correct_corpus_ids, *q.paired_distractor_corpus_ids))
        numbers = [int(c[2:]) for c in block]
        assert numbers == list(range(numbers[0], numbers[0] + 5))
        offsets.append(block.index(q.correct_corpus_ids[0]))
    assert len(set(offsets)) > 1  # the canonical is not always first (or at any fixed place)
    names = [q.function_name for q in data.queries]
    assert names != sorted(names)  # query order is not the file order either


def test_hf_layout_loads_with_datasets(
    fixture_build: BuildResult, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_DATASETS_CACHE", str(tmp_path / "hf"))
    datasets = pytest.importorskip("datasets")
    corpus = datasets.load_dataset(str(fixture_build.out_dir), "corpus", split="test")
    queries = datasets.load_dataset(str(fixture_build.out_dir), "queries", split="test")
    qrels = datasets.load_dataset(str(fixture_build.out_dir), "default", split="test")
    assert (len(corpus), len(queries), len(qrels)) == (30, 6, 6)
    assert set(corpus.column_names) == {"id", "title", "text"}
    assert set(qrels.column_names) == {"query-id", "corpus-id", "score"}
    assert _files(fixture_build.out_dir) == EXPECTED_FILES  # loading wrote nothing into the dataset


def _task(query: str, code: str, tests: list[str]) -> str:
    return f"query = {json.dumps(query)}\ncanonical = '''\n{code}'''\ntests = {json.dumps(tests)}\n"


def _validation(reference: str, inputs: str) -> str:
    return f"\n[validation]\nreference = '''\n{reference}'''\ninputs = '''\n{inputs}'''\n"


def test_gates_one_two_and_five_reject_before_execution(tmp_path: Path) -> None:
    tasks = tmp_path / "tasks"
    good_tests = [f"assert twice({i}) == {2 * i}" for i in range(8)]
    files = {
        "math_numerical/twice.toml": _task("Double n.", "def twice(n):\n    return n * 2\n", good_tests),
        "collections/twice.toml": _task("Double n.", "def twice(n):\n    return 2 * n\n", good_tests),
        "geometry/six_tests.toml": _task(
            "x", "def six_tests(n):\n    return n\n", [f"assert six_tests({i}) == {i}" for i in range(6)]
        ),
        "validation/no_def.toml": _task(
            "x", "def other(n):\n    return n\n", [f"assert no_def({i}) == {i}" for i in range(7)]
        ),
        "sorting_searching/sorted.toml": _task(
            "x", "def sorted(xs):\n    return xs\n", [f"assert sorted([{i}]) == [{i}]" for i in range(7)]
        ),
        "string_processing/uses_numpy.toml": _task(
            "x",
            "import numpy\ndef uses_numpy(n):\n    return n\n",
            [f"assert uses_numpy({i}) == {i}" for i in range(7)],
        ),
        "date_time/not_called.toml": _task(
            "x", "def not_called(n):\n    return n\n", [f"assert {i} == {i}" for i in range(7)]
        ),
        "state_machines/extra_field.toml": _task(
            "x", "def extra_field(n):\n    return n\n", ["assert extra_field(1) == 1"]
        )
        + "notes = 'x'\n",
    }
    for rel, text in files.items():
        (tasks / rel).parent.mkdir(parents=True, exist_ok=True)
        (tasks / rel).write_text(text)
    result = build(BuildOptions(tasks_dir=tasks, out_dir=tmp_path / "out"))
    got = {e["task"]: (e["gate"], e["reasons"][0]) for e in result.report["exclusions"]}
    assert got["math_numerical/twice.toml"][0] == got["collections/twice.toml"][0] == "corpus_integrity"
    assert "also used by math_numerical/twice.toml" in got["collections/twice.toml"][1]
    assert got["geometry/six_tests.toml"] == ("schema", "has 6 tests; write 7 to 10")
    assert got["validation/no_def.toml"] == (
        "ast_semantics",
        "canonical does not define `def no_def(...)` at module level",
    )
    assert (
        got["sorting_searching/sorted.toml"][0] == "ast_semantics"
        and "builtin" in got["sorting_searching/sorted.toml"][1]
    )
    assert got["string_processing/uses_numpy.toml"] == (
        "ast_semantics",
        "canonical imports non-stdlib module(s) numpy; use the standard library only",
    )
    assert got["date_time/not_called.toml"] == ("ast_semantics", "test 1 `assert 0 == 0` does not call not_called(...)")
    assert (
        got["state_machines/extra_field.toml"][0] == "schema"
        and "extra_field.toml:7: unknown field 'notes'" in got["state_machines/extra_field.toml"][1]
    )
    assert (
        result.report["counts"]["queries"] == 0
        and Counter(e["gate"] for e in result.report["exclusions"])["ast_semantics"] == 4
    )


def test_cli_build_with_an_oracle_cache_gives_the_same_dataset(
    fixture_build: BuildResult, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = [
        "build",
        "--tasks",
        str(FIXTURE_TASKS),
        "-o",
        str(tmp_path / "cli"),
        "--oracle-cache",
        str(tmp_path / "verdicts.sqlite"),
        "--quiet",
    ]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "| **all** | 6 |" in out and "6 queries, 30 snippets, 3 task(s) excluded" in out
    assert "excluded state_machines/turnstile_final_state.toml [canonical_execution]" in out
    assert (tmp_path / "cli" / "SHA256SUMS").read_text() == fixture_build.sums
    assert (tmp_path / "verdicts.sqlite").is_file()


def test_report_lists_equivalents_validation_rule_removals_and_stacked_counts(fixture_build: BuildResult) -> None:
    report = fixture_build.report
    fixtures = {e.relative_to(FIXTURE_TASKS).as_posix() for e in FIXTURE_TASKS.glob("*/*.toml")}
    assert set(report["validation"]) == fixtures
    assert all(v["canonical_agrees"] and 16 <= v["inputs"] <= 21 for v in report["validation"].values())
    caesar = report["equivalent_mutants"]["string_processing/caesar_shift.toml"]
    assert {"bug_type": "wrong_operator", "line": 7} == {k: caesar[0][k] for k in ("bug_type", "line")}
    assert 'ord(ch) + ord("A") + k' in caesar[0]["description"]  # 2 * 65 is 0 modulo 26
    removed = report["candidates"]["removed_by_rule"]
    assert set(removed) == {r.value for r in RealismRule}
    assert removed["no_op_arithmetic"]["off_by_one"] > 0 and removed["magic_constant"]["off_by_one"] > 0 and removed["literal_first_swap"]["swap_arguments"] > 0
    assert report["candidates"]["live"] == 0 and report["candidates"]["equivalent"] > 0
    by_type = report["candidates"]["verdicts_by_bug_type"]
    assert {k: sum(v.values()) for k, v in by_type.items()} == {k: report["candidates"][k] for k in by_type}
    assert report["candidates"]["same_program_pairs"] > 0
    runs = report["candidates"]["runs"]
    assert runs["candidate_tests"] == report["candidates"]["enumerated"] == report["candidates"]["executed"]
    assert runs["candidate_agreements"] < runs["candidate_tests"]  # compared only where the selection needed it
    stacked_lines = (fixture_build.out_dir / "data/stacked_mutants.jsonl").read_text().splitlines()
    assert report["stacked_mutants"]["rows"] == len(stacked_lines) > 0
    assert sum(report["stacked_mutants"]["by_n_edits"].values()) == len(stacked_lines)
    assert "stacked_mutants" in (fixture_build.out_dir / "README.md").read_text()


def test_shipped_mutants_follow_the_realism_and_diversity_rules(fixture_build: BuildResult) -> None:
    data = load_dataset(fixture_build.out_dir)
    code = {c.corpus_id: c.code for c in data.corpus}
    meta = {d.corpus_id: d for d in data.distractors}
    for query in data.queries:
        mutants = [meta[c] for c in query.paired_distractor_corpus_ids]
        assert sum(m.bug_type == BugType.REMOVE_EDGE_CASE_CHECK.value for m in mutants) <= 1
        assert len({m.line for m in mutants}) >= 3
        canonical = code[query.correct_corpus_ids[0]]
        assert all("".join(code[m.corpus_id].split()) != "".join(canonical.split()) for m in mutants)
        results = run_suites([Suite(code[m.corpus_id], query.test_suite) for m in mutants])
        value_tests = [i for i, t in enumerate(query.test_suite) if not t.startswith("with pytest.raises")]
        assert all(any(r.outcomes[i].is_wrong_output for i in value_tests) for r in results)


def test_stacked_mutants_are_verified_composed_edits_outside_the_corpus(fixture_build: BuildResult) -> None:
    data = load_dataset(fixture_build.out_dir)
    rows = [json.loads(line) for line in (fixture_build.out_dir / "data/stacked_mutants.jsonl").open()]
    code = {c.corpus_id: c.code for c in data.corpus}
    canonical = {q.entry_id: code[q.correct_corpus_ids[0]] for q in data.queries}
    tests = {q.entry_id: q.test_suite for q in data.queries}
    corpus_codes = {c.code for c in data.corpus}
    assert [r["corpus_id"] for r in rows] == [f"s_{i:04d}" for i in range(len(rows))]
    assert Counter(r["source_entry_id"] for r in rows).most_common(1)[0][1] <= 3
    for row in rows:
        assert row["label"] == "incorrect" and 2 <= row["n_edits"] == len(row["edits"]) <= 4
        assert row["code"] not in corpus_codes
        text = canonical[row["source_entry_id"]]
        lines = [set(range(e["line"], e["line"] + e["before"].rstrip("\n").count("\n") + 1)) for e in row["edits"]]
        assert all(not a & b for i, a in enumerate(lines) for b in lines[i + 1 :])
        for edit in sorted(row["edits"], key=lambda e: -e["span"][0]):
            start, end = edit["span"]
            assert text[start:end] == edit["before"]
            text = text[:start] + edit["after"] + text[end:]
        assert text == row["code"]
        suite = Suite(row["code"], tests[row["source_entry_id"]])
        cached = data.execution_cache[(suite.code_sha256, suite.tests_sha256)]
        assert any(o.is_wrong_output for o in cached)
    ranked = {r["corpus_id"] for r in rows} & {c.corpus_id for c in data.corpus}
    assert not ranked


def test_validation_gates_exclude_missing_broken_disagreeing_and_live_tasks(tmp_path: Path) -> None:
    tasks = tmp_path / "tasks"
    tests = [f"assert below_cap({n}) == {n if n < 100 else 0}" for n in (5, 0, 99, 150, 1000, -3, 42)]
    code = "def below_cap(n):\n    if n >= 100:\n        return 0\n    return n\n"
    reference = "def reference(n):\n    return n if n < 100 else 0\n"
    inputs = "def inputs(rng):\n    return [(rng.randint(-200, 200),) for _ in range(16)] + [(99,), (100,), (101,)]\n"
    files = {
        "math_numerical/below_cap.toml": _task("Return n below 100, else 0.", code, tests)
        + _validation(reference, inputs),
        "geometry/below_cap_plain.toml": _task(
            "Return n below 100, else 0.", code.replace("below_cap", "below_cap_plain"),
            [t.replace("below_cap", "below_cap_plain") for t in tests],
        ),
        "validation/below_cap_wrong.toml": _task(
            "Return n below 100, else 0.", code.replace("below_cap", "below_cap_wrong"),
            [t.replace("below_cap", "below_cap_wrong") for t in tests],
        )
        + _validation("def reference(n):\n    return n if n < 50 else 0\n", inputs),
        "date_time/below_cap_few.toml": _task(
            "Return n below 100, else 0.", code.replace("below_cap", "below_cap_few"),
            [t.replace("below_cap", "below_cap_few") for t in tests],
        )
        + _validation(reference, "def inputs(rng):\n    return [(1,), (2,)]\n"),
    }
    for rel, text in files.items():
        (tasks / rel).parent.mkdir(parents=True, exist_ok=True)
        (tasks / rel).write_text(text)
    result = build(BuildOptions(tasks_dir=tasks, out_dir=tmp_path / "out"))
    got = {e["task"]: (e["gate"], e["reasons"]) for e in result.report["exclusions"]}
    assert got["geometry/below_cap_plain.toml"][0] == "canonical_execution"
    assert got["geometry/below_cap_plain.toml"][1][0].startswith("no [validation] table")
    gate, reasons = got["validation/below_cap_wrong.toml"]
    assert gate == "canonical_execution" and reasons[0].startswith("canonical and validation.reference disagree")
    assert got["date_time/below_cap_few.toml"] == (
        "canonical_execution",
        ["validation.inputs(rng) returned too few or too many inputs; it must return 10-30 argument tuples"],
    )
    gate, reasons = got["math_numerical/below_cap.toml"]
    assert gate == "mutant_execution" and len(reasons) == 2
    assert all(r.startswith("tests miss a bug: Changed `n >= 100` to `n ") for r in reasons)
    assert all(r.endswith("; add a test") for r in reasons)
    assert result.report["validation"]["geometry/below_cap_plain.toml"] == {"inputs": None, "canonical_agrees": None}
    assert result.report["validation"]["validation/below_cap_wrong.toml"]["canonical_agrees"] is False
    assert result.report["candidates"]["live"] == 2


def _tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_build_replaces_only_an_earlier_build_left_as_written(fixture_build: BuildResult, tmp_path: Path, capsys) -> None:
    """A folder with a stray SHA256SUMS (a git clone, notes) is refused before any work; nothing is deleted."""
    clone = tmp_path / "clone"
    (clone / ".git").mkdir(parents=True)
    (clone / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (clone / "NOTES.md").write_text("mine\n")
    shutil.copy(fixture_build.out_dir / "SHA256SUMS", clone / "SHA256SUMS")
    before = _tree(clone)
    assert main(["build", "--tasks", str(FIXTURE_TASKS), "-o", str(clone), "--quiet"]) != 0
    err = capsys.readouterr().err
    assert "nothing was deleted" in err and len(err.strip().splitlines()) == 1
    assert _tree(clone) == before
    earlier = Path(shutil.copytree(fixture_build.out_dir, tmp_path / "earlier"))
    (earlier / "data" / "NOTES.md").write_text("added by hand\n")  # an earlier build, edited since
    before = _tree(earlier)
    assert main(["build", "--tasks", str(FIXTURE_TASKS), "-o", str(earlier), "--quiet"]) != 0
    assert "data/NOTES.md is not listed" in capsys.readouterr().err
    assert _tree(earlier) == before
