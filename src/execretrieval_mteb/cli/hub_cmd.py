"""``execretrieval hub stage|push|pin|stats``: release the dataset on the Hugging Face Hub.

- ``stage DIR [--data D] [--results R] [--repo-id ORG/NAME] [--open [--wild W]]``: write the release folder
  (``hub.stage``; ``--open`` adds the open task's wild corpus, validation data and results, ``hub.open_release``);
- ``push DIR --repo-id ORG/NAME [--branch B] [--tag T] [--yes] [--pin]``: a dry run listing every
  file and its remote fate, or with ``--yes`` one commit (``hub.push``); prints the commit sha;
- ``pin SHA [--repo-id ORG/NAME]``: verify that commit against its manifest, then write it into the package's
  release file (``hub.pin``);
- ``results RELEASE_DIR -o OUT``: a downloaded release's results as a results folder (``hub.unpack``);
- ``stats [--data D] [--check]``: mteb's descriptive statistics shipped with the task (``mteb_task.statistics``).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import UsageError
from .options import add_data, add_quiet

if TYPE_CHECKING:
    from ..dataset.release import Release

HELP = "Release on the Hugging Face Hub: stage the release folder, push it as one commit, pin the commit."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="hub_command", metavar="ACTION", required=True)

    stage = _action(sub, "stage", "write the release folder: data, configs, card, results, SHA256SUMS")
    stage.add_argument("dir", type=Path, metavar="DIR", help="the release folder to write (replaces an earlier one)")
    add_data(stage)
    stage.add_argument("--results", type=Path, metavar="RESULTS_DIR", default=None,
                       help="a results folder (from `execretrieval run`): its reports, leaderboard, intervals, "
                            "pairwise tests, figures and embeddings on this dataset go into results/ and embeddings/")
    stage.add_argument("--repo-id", default=None, metavar="ORG/NAME",
                       help="the Hub repository the card's examples name (default: the pinned release's)")
    stage.add_argument("--open", action="store_true",
                       help="also release ExecRetrievalOpen: the wild corpus, the validation data, its configs and "
                            "the open results of --results (built first if this machine has no wild corpus yet)")
    stage.add_argument("--wild", type=Path, metavar="WILD_DIR", default=None,
                       help="with --open: the wild corpus folder (default: the one built for this environment)")

    push = _action(sub, "push", "upload a staged release as one commit (a dry run without --yes)")
    push.add_argument("dir", type=Path, metavar="DIR", help="a folder made by `execretrieval hub stage`")
    push.add_argument("--repo-id", required=True, metavar="ORG/NAME", help="the Hub dataset repository")
    push.add_argument("--branch", default="main", metavar="B", help="the branch to commit to (default main; created if missing)")
    push.add_argument("--tag", default=None, metavar="T", help="tag the new commit (an existing tag is never moved)")
    push.add_argument("--message", default=None, help="commit message (default: counts and fingerprint)")
    push.add_argument("--yes", action="store_true", help="really push (default: dry run, nothing is written)")
    push.add_argument("--pin", action="store_true",
                      help="with --yes: write the new commit into the package's release file (as `hub pin`)")

    pin = _action(sub, "pin", "make a pushed commit the release the task pins (dataset/release.json)")
    pin.add_argument("revision", metavar="SHA", help="the commit (a tag or branch is resolved to its commit)")
    pin.add_argument("--repo-id", default=None, metavar="ORG/NAME", help="the Hub repository (default: the pinned release's)")
    pin.add_argument("--release-file", type=Path, default=None, metavar="PATH",
                     help="write this release file instead (default: $EXECRETRIEVAL_RELEASE or the package's)")

    results = _action(sub, "results", "turn a downloaded release's results into a folder rescore, report and submit read")
    results.add_argument("release", type=Path, metavar="RELEASE_DIR",
                         help="a release downloaded from the Hub (snapshot_download), or its results/ folder")
    results.add_argument("-o", "--output", type=Path, required=True, metavar="OUT",
                         help="the results folder to write (must not exist, or be empty)")

    stats = _action(sub, "stats", "recompute mteb's descriptive statistics shipped with the task")
    add_data(stats)
    stats.add_argument("--check", action="store_true", help="only check that the shipped file is current")


def _action(sub: argparse._SubParsersAction, name: str, summary: str) -> argparse.ArgumentParser:
    """A hub action: ``summary`` is its line in ``hub -h`` and, as a sentence, its description."""
    parser = sub.add_parser(name, help=summary, description=summary[0].upper() + summary[1:] + ".")
    add_quiet(parser)
    return parser


def run(args: argparse.Namespace) -> int:
    return {"stage": _stage, "push": _push, "pin": _pin, "results": _results, "stats": _stats}[args.hub_command](args)


def _stage(args: argparse.Namespace) -> int:
    from ..hub.stage import stage

    wild = None
    if args.open:
        from ..construction.wild.store import ensure_wild

        wild = ensure_wild(args.wild, say=lambda m: print(m, file=sys.stderr)).root
    elif args.wild is not None:
        raise UsageError("--wild: only with --open (the open task's wild corpus); add --open or drop --wild")
    staged = stage(args.dir, data=args.data, results=args.results, repo_id=args.repo_id, wild=wild)
    print(f"staged {len(staged.files)} files in {staged.root}/ (data fingerprint {staged.source_fingerprint}; "
          f"SHA256SUMS sha256 {staged.fingerprint})")
    for row in staged.rows:
        print(f"  results: {row.model}")
    for model in staged.open_models:
        print(f"  open results: {model}")
    for note in staged.notes:
        print(f"  left out: {note}", file=sys.stderr)
    if not args.quiet:
        print("next: execretrieval hub push DIR --repo-id ORG/NAME (a dry run; add --yes to push)", file=sys.stderr)
    return 0


def _push(args: argparse.Namespace) -> int:
    from ..hub.push import plan_push, push

    if args.pin and not args.yes:
        raise UsageError("--pin needs --yes (a dry run pushes nothing to pin)")
    if not args.yes:
        plan = plan_push(args.dir, args.repo_id, args.branch, tag=args.tag)
        print("dry run: " + plan.render(), end="")
        print("nothing was written" + ("" if plan.refusal else "; add --yes to push these files as one commit"))
        return 2 if plan.refusal else 0
    checks = None
    if args.pin:
        from ..hub.pin import check_release_file_writable

        checks = check_release_file_writable
    result = push(args.dir, args.repo_id, branch=args.branch, tag=args.tag, message=args.message, preconditions=checks)
    for change in () if args.quiet else result.changes:
        if change.status != "unchanged":
            print(f"  {change.status:<7}  {change.path}")
    for note in result.notes:
        print(f"note: {note}", file=sys.stderr)
    print(f"pushed {args.repo_id}@{args.branch}: commit {result.sha}" + (f" (tag {result.tag})" if result.tag else ""))
    if args.pin:
        from ..hub.pin import pin

        release, path = pin(args.repo_id, result.sha)
        print(f"pinned {release.repo_id}@{release.revision} in {path}")
        _pin_task_module(release, path)
    elif not args.quiet:
        print(f"pin it with: execretrieval hub pin {result.sha} --repo-id {args.repo_id}", file=sys.stderr)
    return 0


def _pin(args: argparse.Namespace) -> int:
    from ..dataset.manifest import SUMS
    from ..dataset.release import pinned_release
    from ..hub.pin import pin

    release, path = pin(args.repo_id or pinned_release().repo_id, args.revision, args.release_file)
    print(f"pinned {release.repo_id}@{release.revision} in {path} (every file verified against its {SUMS}; "
          f"data fingerprint {release.fingerprint})")
    _pin_task_module(release, path)
    return 0


def _results(args: argparse.Namespace) -> int:
    from ..hub.unpack import unpack

    done = unpack(args.release, args.output)
    for model in done.models:
        print(f"  {model}" + (" (re-filed under the pinned commit)" if model in done.refiled else ""))
    print(f"results folder: {done.out} ({len(done.models)} models); next: execretrieval rescore|report|submit {done.out}")
    return 0


def _pin_task_module(release: Release, path: Path) -> None:
    """The package's own release pinned: its task module (the class mteb runs) names the same commit."""
    from ..dataset.release import RELEASE_FILE
    from ..hub.contribution import pin_task_module

    if Path(path).resolve() == RELEASE_FILE.resolve():
        print(f"pinned {release.repo_id}@{release.revision} in {pin_task_module(release)}")


def _stats(args: argparse.Namespace) -> int:
    from ..mteb_task.about import STATS_FILE
    from ..mteb_task.statistics import check, compute

    stats = check(args.data) if args.check else compute(args.data)
    split = stats["test"]
    print(f"{STATS_FILE}: {'current' if args.check else 'written'} ({split['num_queries']} queries, "
          f"{split['num_documents']} documents)")
    return 0
