"""``execretrieval`` entry point: dispatches to one module per subcommand, imported lazily.

Each subcommand module defines ``HELP: str``, ``add_arguments(parser)`` and ``run(args) -> int``;
only the chosen one is imported (start-up time matters). ``SUMMARIES`` holds the one-line summary
the top-level help shows for each, so listing them imports nothing; a subcommand without one is
imported for its ``HELP`` when the top-level help is printed.

Exit status: 0 success, 1 a run that finished with failures (or a bug), 2 a usage or data
problem, 130 interrupted. Errors a user can fix (``errors.ExecRetrievalError``, a file that cannot
be read or written, a bad option) are one line; anything else is a bug, shown as one line too
unless ``-v`` asks for its traceback (``-v`` also shows dependency warnings and logs).
"""

from __future__ import annotations

import argparse
import difflib
import importlib
import sys
from collections.abc import Sequence
from typing import NoReturn

from ..errors import ExecRetrievalError

SUBCOMMANDS: dict[str, str] = {
    "run": "execretrieval_mteb.cli.run_cmd",
    "evaluate": "execretrieval_mteb.cli.evaluate_cmd",
    "rescore": "execretrieval_mteb.cli.rescore_cmd",
    "report": "execretrieval_mteb.cli.report_cmd",
    "build": "execretrieval_mteb.cli.build_cmd",
    "validate": "execretrieval_mteb.cli.validate_cmd",
    "oracle": "execretrieval_mteb.cli.oracle_cmd",
    "hub": "execretrieval_mteb.cli.hub_cmd",
    "submit": "execretrieval_mteb.cli.submit_cmd",
    "contrib": "execretrieval_mteb.cli.contrib_cmd",
    "models": "execretrieval_mteb.cli.models_cmd",
    "wild": "execretrieval_mteb.cli.wild_cmd",
}

SUMMARIES: dict[str, str] = {
    "run": "evaluate models end to end (default: the embedded MiniLM and BM25, offline) and print the leaderboard",
    "evaluate": "score predictions saved by `mteb run --prediction-folder` by execution",
    "rescore": "rebuild everything `run` wrote from a folder's embeddings/ alone (--check: compare, write nothing)",
    "report": "rewrite a results folder's leaderboard and analyses (and the reference results)",
    "build": "build the dataset from the authored task files",
    "validate": "re-run the gates, sweeps and checksums on a built dataset",
    "oracle": "run code against tests in the sandboxed execution oracle",
    "models": "set up the embedded model for mteb's own routes (install-embedded)",
    "hub": "release on the Hugging Face Hub: stage the release folder, push it as one commit, pin it",
    "submit": "package a results folder for MTEB's results repository and the static leaderboard",
    "contrib": "write the files of the mteb pull request adding the task (and of the results-repository one)",
    "wild": "build the open task's wild corpus (real functions of the installed code; otherwise built on first use)",
}

DESCRIPTION = "ExecRetrieval: execution-verified code retrieval against near-clone buggy distractors."
EPILOG = "Run `execretrieval COMMAND -h` for a command's options. Documentation: README.md."


class Parser(argparse.ArgumentParser):
    """argparse with one-line errors; the usage is shown for unknown or missing arguments."""

    def error(self, message: str) -> NoReturn:
        if message.startswith(("unrecognized arguments", "the following arguments are required", "argument COMMAND")):
            self.print_usage(sys.stderr)
        self.exit(2, f"{self.prog}: error: {message} (see `{self.prog} -h`)\n")


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    from .. import __version__

    try:
        mteb_version = version("mteb")
    except PackageNotFoundError:
        mteb_version = "not installed"
    return f"execretrieval {__version__} (mteb {mteb_version}, Python {sys.version.split()[0]})"


def _summary(name: str) -> str:
    if name in SUMMARIES:
        return SUMMARIES[name]
    return str(importlib.import_module(SUBCOMMANDS[name]).HELP).rstrip(".")


def _verbose_flag(parser: argparse.ArgumentParser, default: object) -> None:
    parser.add_argument("-v", "--verbose", action="store_true", default=default,
                        help="show tracebacks, dependency warnings and logs")


def _nested(parser: argparse.ArgumentParser) -> list[argparse.ArgumentParser]:
    """``parser`` and every sub-command parser below it."""
    found = [parser]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child in action.choices.values():
                found.extend(_nested(child))
    return found


def _remember_parsers(parser: argparse.ArgumentParser) -> None:
    """Record in the namespace which (sub-)parser was used, so an unknown option gets that parser's usage."""
    for each in _nested(parser):
        each.set_defaults(_parser=each)


def build_parser(argv: Sequence[str]) -> tuple[Parser, str | None]:
    parser = Parser(prog="execretrieval", description=DESCRIPTION, epilog=EPILOG)
    parser.add_argument("--version", action="version", version=_version())
    _verbose_flag(parser, False)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", title="commands")
    chosen = next((a for a in argv if not a.startswith("-")), None)
    for name, module_name in SUBCOMMANDS.items():
        if name == chosen:
            module = importlib.import_module(module_name)
            child = sub.add_parser(name, help=_summary(name), description=module.HELP)
            module.add_arguments(child)
            for parser_ in _nested(child):  # `-v` after the command too; never resets one given before
                _verbose_flag(parser_, argparse.SUPPRESS)
        elif chosen is None or chosen in SUBCOMMANDS:
            sub.add_parser(name, help=_summary(name), add_help=False)
        else:  # an unknown command: the listing is only for the error message
            sub.add_parser(name, help=name, add_help=False)
    _remember_parsers(parser)
    return parser, chosen


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser, chosen = build_parser(argv)
    if chosen is not None and chosen not in SUBCOMMANDS:
        close = difflib.get_close_matches(chosen, SUBCOMMANDS, n=1)
        hint = f"; did you mean '{close[0]}'?" if close else f"; choose from {', '.join(SUBCOMMANDS)}"
        parser.error(f"argument COMMAND: unknown command '{chosen}'{hint}")
    args, extra = parser.parse_known_args(argv)
    if extra:
        args._parser.error(f"unrecognized arguments: {' '.join(extra)}")
    if chosen is None:
        parser.print_help()
        return 0 if not argv else 2
    verbose = bool(getattr(args, "verbose", False))
    from .output import configure

    restore = configure(verbose=verbose, quiet=bool(getattr(args, "quiet", False)))
    try:
        return _run(chosen, args, verbose)
    finally:
        restore()


def _run(chosen: str, args: argparse.Namespace, verbose: bool) -> int:
    prog = f"execretrieval {chosen}"
    module = importlib.import_module(SUBCOMMANDS[chosen])
    try:
        return int(module.run(args) or 0)
    except ExecRetrievalError as exc:
        print(f"{prog}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"{prog}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 141
    except OSError as exc:
        if verbose:
            raise
        print(f"{prog}: error: {describe_os_error(exc)}", file=sys.stderr)
        return 2
    except Exception as exc:  # noqa: BLE001 - a bug: one line, the traceback with -v
        if verbose:
            raise
        first = (str(exc).splitlines() or [""])[0]
        print(f"{prog}: internal error: {type(exc).__name__}: {first} "
              f"(a bug; rerun with -v for the traceback and report it)", file=sys.stderr)
        return 1


def describe_os_error(exc: OSError) -> str:
    """``PATH: Read-only file system`` style, from any ``OSError``."""
    reason = exc.strerror or str(exc)
    where = exc.filename if exc.filename is not None else ""
    if exc.filename2 is not None:
        where = f"{where} -> {exc.filename2}"
    return f"{where}: {reason}" if where else reason


if __name__ == "__main__":
    sys.exit(main())
