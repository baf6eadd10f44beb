"""``execretrieval run``: encode models on ExecRetrieval with mteb, then evaluate them by execution.

With no ``-m`` it runs, fully offline, the embedded all-MiniLM-L6-v2 and the code-aware BM25 on the
bundled dataset. Every ``-m`` is resolved first, and the output folder checked for writing, so a
typo or an unwritable ``-o`` fails before anything is encoded. Then, per model: mteb evaluates the
``ExecRetrieval`` task (MTEB result file, predictions, frozen embeddings), and the same step as
``execretrieval evaluate`` checks the top k by execution and writes the evaluation file. A model
that fails (it cannot be loaded, its weights are corrupt, encoding raises) is reported in one
line and the others go on; the leaderboard holds every model that finished and the exit status
is 1. A model already evaluated into the folder on this dataset, with the same revision (and
prompts, when the registry gives them before loading), is reused unless ``--overwrite``: a rerun,
or a run interrupted with Ctrl-C and started again, only encodes what is missing. The first use
of the embedded model also lays it out in the Hugging Face cache (``execretrieval models
install-embedded``), so mteb's own routes find it offline afterwards. Layout:
``results.results_folder``.
"""

from __future__ import annotations

import argparse
import os
import sys
import traceback
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import ExecRetrievalError
from .finish import add_finish_arguments, print_finished
from .open_run import add_open_arguments
from .options import add_data, add_output, add_workers, check_writable, positive_int

if TYPE_CHECKING:
    from ..results.results_folder import ResultsFolder
    from ..mteb_task.models import ModelSpec

HELP = "Encode models with mteb, check their top 10 by execution, and print the leaderboard (default: MiniLM and BM25, offline)."
DEFAULT_OUTPUT = Path("execretrieval-results")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "-m", "--model", dest="models", action="append", metavar="NAME",
        help="model to evaluate (repeatable): 'all-MiniLM-L6-v2' (embedded, offline), 'bm25', any model name "
             "mteb knows (e.g. Qwen/Qwen3-Embedding-8B), or a local sentence-transformers directory. "
             "Default: all-MiniLM-L6-v2 and bm25.",
    )
    add_data(parser)
    add_output(parser, DEFAULT_OUTPUT)
    parser.add_argument("--batch-size", type=positive_int, default=32, help="encoding batch size (default 32)")
    parser.add_argument("--device", default=None, help="torch device for dense models (default: cuda if available, else cpu)")
    parser.add_argument("--overwrite", action="store_true", help="re-encode models already evaluated into the folder")
    parser.add_argument("--stacked", action="store_true",
                        help="also encode the dataset's stacked mutants (2-4 composed edits, never in the corpus) for "
                             "the stacked-deception analysis; BM25 scores them without this flag")
    add_workers(parser)
    add_open_arguments(parser)
    add_finish_arguments(parser)


def run(args: argparse.Namespace) -> int:
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    from ..results.outputs import write_evaluation
    from ..results.predictions import evaluate_predictions
    from ..results.results_folder import ResultsFolder, model_slug
    from ..mteb_task.default_model import SHORT_NAME
    from ..mteb_task.embedded import ensure_installed
    from ..results.encode import encode, encode_stacked, identity_of
    from ..results.frozen import load_frozen, save_frozen
    from ..mteb_task.models import BM25_NAME, ModelKind, load, resolve
    from ..mteb_task.registration import ensure_registered
    from ..mteb_task.task import load_task

    specs = [resolve(name) for name in (args.models or [SHORT_NAME, BM25_NAME])]
    check_writable(args.output, "-o")
    ensure_registered()
    task = load_task(args.data)
    dataset = task.built
    folder = ResultsFolder(args.output)
    say = (lambda _m: None) if args.quiet else (lambda m: print(m, file=sys.stderr))
    say(f"execretrieval run: {len(dataset.queries)} queries, {len(dataset.corpus)} snippets "
        f"({task.source.describe()}, revision {task.revision}); results in {folder.root}/")
    failures: list[str] = []
    for index, spec in enumerate(specs, 1):
        say(f"[{index}/{len(specs)}] {spec.name}")
        slug = model_slug(spec.model_name)
        try:
            wants_stacked = args.stacked and spec.kind is not ModelKind.BM25 and bool(dataset.stacked)
            missing_stacked = wants_stacked and not folder.stacked_embeddings(slug).is_file()
            if not args.overwrite and _reusable(folder, slug, spec, dataset.fingerprint):
                if missing_stacked and folder.embeddings(slug).is_file():
                    # Only the stacked mutants are new: encode them beside the saved query matrix, not the corpus again.
                    stacked_frozen = encode_stacked(load(spec, args.device), task, load_frozen(folder.embeddings(slug)),
                                                    batch_size=args.batch_size, progress=not args.quiet)
                    save_frozen(folder.stacked_embeddings(slug), stacked_frozen)
                    say(f"  already evaluated on this dataset: reusing {folder.evaluation(slug)}; encoded the "
                        f"{len(dataset.stacked)} stacked mutants only")
                    continue
                if not missing_stacked:
                    say(f"  already evaluated on this dataset: reusing {folder.evaluation(slug)} (--overwrite re-encodes)")
                    continue
            if spec.kind is ModelKind.EMBEDDED and spec.path is None:
                ensure_installed(say)
            model = load(spec, args.device)
            encoded = encode(model, task, folder, batch_size=args.batch_size, progress=not args.quiet,
                             stacked=args.stacked)
            evaluation = evaluate_predictions(
                folder.predictions(encoded.slug), dataset, identity_of(model),
                workers=args.workers, progress=not args.quiet, oracle_cache=folder.oracle_cache,
            )
            write_evaluation(folder, evaluation, dataset)
            say("  verdicts: " + ", ".join(f"{n} {s.value}" for s, n in evaluation.checked.counts().items() if n))
        except KeyboardInterrupt:
            raise
        except Exception as exc:  # noqa: BLE001 - one model's failure must not discard the others
            reason = str(exc) if isinstance(exc, ExecRetrievalError) else f"{type(exc).__name__}: {_first_line(exc)}"
            failures.append(f"{spec.name}: {reason}")
            say(f"  failed: {reason}")
            if getattr(args, "verbose", False):
                traceback.print_exc()
    if len(failures) == len(specs):
        raise ExecRetrievalError(f"no model finished ({failures[0]})")
    print_finished(folder, dataset, args)
    if args.open:
        from .open_run import run_open

        failures += run_open(specs, args, folder, say)
    for failure in failures:
        print(f"execretrieval run: error: {failure}", file=sys.stderr)
    return 1 if failures else 0


def _first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [""])[0]


def _reusable(folder: ResultsFolder, slug: str, spec: ModelSpec, fingerprint: str) -> bool:
    """A finished evaluation of this model (revision, and prompts when known) on this very dataset is in the folder,
    with the run record that lets ``rescore`` rebuild it (a folder from before run records is re-encoded)."""
    from ..results.report import read_report

    path = folder.evaluation(slug)
    if not path.is_file() or not folder.predictions(slug).is_file() or not folder.run_record(slug).is_file():
        return False
    try:
        report = read_report(path)
    except ExecRetrievalError:
        return False
    if report.dataset_fingerprint != fingerprint or report.model.revision != spec.revision:
        return False
    return spec.prompts is None or dict(report.model.prompts) == dict(spec.prompts)
