"""CLI conventions: summaries, --version, descriptions everywhere, one spelling per thing, deprecated aliases."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

import pytest

from execretrieval_mteb import __version__
from execretrieval_mteb.cli.main import SUBCOMMANDS, SUMMARIES, _nested, build_parser
from execretrieval_mteb.cli.options import positive_int

CLI = [str(Path(sys.executable).with_name("execretrieval"))]
if not Path(CLI[0]).exists():
    CLI = [sys.executable, "-m", "execretrieval_mteb.cli.main"]


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=300, env={**os.environ, "COLUMNS": "250"})


def test_top_level_help_gives_every_command_a_summary_and_imports_nothing_heavy() -> None:
    done = _cli("-h")
    assert done.returncode == 0
    assert "(see `execretrieval" not in done.stdout
    flat = " ".join(done.stdout.split())
    for name in SUBCOMMANDS:
        assert name in SUMMARIES, f"add a one-line summary for {name!r} to cli.main.SUMMARIES"
        assert " ".join(SUMMARIES[name].split()) in flat
    code = ("import sys\nfrom execretrieval_mteb.cli.main import main\ntry:\n    main(['-h'])\nexcept SystemExit:\n    pass\n"
            "print(sorted(m for m in ('mteb', 'torch', 'numpy', 'sentence_transformers') if m in sys.modules))")
    probe = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert probe.stdout.strip().splitlines()[-1] == "[]"


def test_version() -> None:
    done = _cli("--version")
    assert done.returncode == 0 and done.stdout.startswith(f"execretrieval {__version__} (mteb ")


def _all_parsers() -> list[tuple[str, argparse.ArgumentParser]]:
    found = []
    for name in SUBCOMMANDS:
        parser, _ = build_parser([name])
        sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        found.extend((p.prog, p) for p in _nested(sub.choices[name]))
    return found


def test_every_command_and_sub_command_has_a_description() -> None:
    for prog, parser in _all_parsers():
        assert parser.description and parser.description.strip(), prog


def test_one_spelling_for_the_same_thing_everywhere() -> None:
    for prog, parser in _all_parsers():
        visible = {s for a in parser._actions if a.help is not argparse.SUPPRESS for s in a.option_strings}
        assert not visible & {"--out", "--cache", "--no-cache", "--output-dir", "--dataset"}, prog
        for action in parser._actions:
            if "--workers" in action.option_strings and action.help is not argparse.SUPPRESS:
                assert action.type is positive_int, prog
            if "--output" in action.option_strings:
                assert "-o" in action.option_strings, prog
            if "--data" in action.option_strings:
                assert action.metavar == "DIR|bundled|hub", prog
        assert "--quiet" in visible or prog in {"execretrieval", "execretrieval oracle", "execretrieval models", "execretrieval hub",
                                                "execretrieval oracle selfcheck", "execretrieval oracle cache-export",
                                                "execretrieval oracle cache-import"}, prog
        assert {"-v", "--verbose"} <= {s for a in parser._actions for s in a.option_strings}, prog


def _parse(argv: list[str]) -> argparse.Namespace:
    parser, _ = build_parser(argv)
    args, extra = parser.parse_known_args(argv)
    assert not extra
    return args


def test_old_spellings_still_work_and_say_what_replaced_them(capsys: pytest.CaptureFixture[str]) -> None:
    assert _parse(["build", "--out", "x"]).output == Path("x")
    assert "--out is deprecated; use -o/--output" in capsys.readouterr().err
    args = _parse(["oracle", "run", "in.jsonl", "-o", "out.jsonl", "--cache", "c.sqlite"])
    assert args.cache == Path("c.sqlite") and "--cache is deprecated; use --oracle-cache" in capsys.readouterr().err
    assert _parse(["oracle", "run", "in.jsonl", "-o", "out.jsonl", "--no-cache"]).no_cache is True
    assert "--no-cache is deprecated; use --no-oracle-cache" in capsys.readouterr().err
    assert _parse(["validate", "some/dir"]).dir == Path("some/dir")
    assert _parse(["oracle", "cache-export", "out.jsonl"]).legacy_output == Path("out.jsonl")
    assert _parse(["-v", "run"]).verbose is True and _parse(["run", "-v"]).verbose is True
    assert _parse(["run"]).verbose is False


def test_deprecated_validate_dir_runs_with_a_note(tmp_path: Path) -> None:
    done = _cli("validate", str(tmp_path / "nowhere"), "--no-exec")
    assert done.returncode == 2
    assert "`validate DIR` is deprecated; use `validate --data DIR`" in done.stderr
    assert "Traceback" not in done.stderr
