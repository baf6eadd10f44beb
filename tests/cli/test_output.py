"""Progress when stderr is not a terminal: a few plain lines, no carriage returns; nothing with --quiet."""

from __future__ import annotations

import io

from tqdm import tqdm

from execretrieval_mteb.cli.output import ProgressFilter


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def _bar(stream: ProgressFilter, clock: Clock, total: int, seconds_per_step: float) -> None:
    with tqdm(total=total, desc="Batches", file=stream, mininterval=0, miniters=1) as bar:
        for _ in range(total):
            clock.now += seconds_per_step
            bar.update(1)


def test_a_long_bar_becomes_a_few_plain_lines() -> None:
    sink, clock = io.StringIO(), Clock()
    stream = ProgressFilter(sink, keep=True, interval=30.0, clock=clock)
    stream.write("starting\n")
    _bar(stream, clock, total=200, seconds_per_step=1.0)  # 200 s of updates
    stream.write("done\n")
    text = sink.getvalue()
    assert "\r" not in text and "\x1b" not in text
    lines = text.splitlines()
    assert lines[0] == "starting" and lines[-1] == "done"
    progress = lines[1:-1]
    assert 3 <= len(progress) <= 10, progress  # its start, one per 30 s, its end
    assert progress[0].startswith("Batches:   0%") and progress[-1].startswith("Batches: 100%")


def test_quiet_drops_progress_but_keeps_other_lines() -> None:
    sink, clock = io.StringIO(), Clock()
    stream = ProgressFilter(sink, keep=False, clock=clock)
    stream.write("a result\n")
    _bar(stream, clock, total=5, seconds_per_step=1.0)
    stream.write("error: something\n")
    assert sink.getvalue() == "a result\nerror: something\n"


def test_plain_text_passes_through_in_pieces() -> None:
    sink = io.StringIO()
    stream = ProgressFilter(sink, keep=True)
    stream.write("half ")
    stream.write("a line\n\nnext\n")
    assert sink.getvalue() == "half a line\n\nnext\n"
    assert not stream.isatty()


def test_nested_bars_stay_a_few_lines() -> None:
    """tqdm draws an inner bar one line down (newline, status, cursor up): those moves are not ends of bars."""
    sink, clock = io.StringIO(), Clock()
    stream = ProgressFilter(sink, keep=True, interval=30.0, clock=clock)
    with tqdm(total=2, desc="Searching corpus chunks", file=stream, mininterval=0, miniters=1) as outer:
        for _ in range(2):
            with tqdm(total=100, desc="Batches", file=stream, position=1, leave=False, mininterval=0, miniters=1) as inner:
                for _ in range(100):
                    clock.now += 1.0
                    inner.update(1)
            outer.update(1)
    lines = sink.getvalue().splitlines()
    assert "\r" not in sink.getvalue() and "\x1b" not in sink.getvalue()
    assert len(lines) <= 16, lines
    assert lines[-1].startswith("Searching corpus chunks: 100%")
    assert any(line.startswith("Batches: 100%") for line in lines)
