"""``execretrieval`` entry point: dispatches to one module per subcommand, imported lazily.

Each subcommand module defines ``HELP: str``, ``add_arguments(parser)`` and ``run(args) -> int``.
Errors a user can fix subclass ``errors.ExecRetrievalError`` and are printed as one line
with exit status 2; anything else is a bug and keeps its traceback.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

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
}


def _parser(argv: Sequence[str]) -> tuple[argparse.ArgumentParser, str | None]:
    parser = argparse.ArgumentParser(
        prog="execretrieval",
        description="ExecRetrieval: execution-verified code retrieval against near-clone buggy distractors.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    chosen = next((a for a in argv if not a.startswith("-")), None)
    for name, module_name in SUBCOMMANDS.items():
        if name == chosen:
            module = importlib.import_module(module_name)
            module.add_arguments(sub.add_parser(name, help=module.HELP, description=module.HELP))
        else:
            sub.add_parser(name, help=f"(see `execretrieval {name} -h`)", add_help=False)
    return parser, chosen


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser, chosen = _parser(argv)
    args = parser.parse_args(argv)
    if chosen not in SUBCOMMANDS:
        parser.print_help()
        return 0 if not argv else 2
    module = importlib.import_module(SUBCOMMANDS[chosen])
    try:
        return int(module.run(args) or 0)
    except ExecRetrievalError as exc:
        print(f"execretrieval {chosen}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"execretrieval {chosen}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
