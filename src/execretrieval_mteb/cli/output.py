"""What the CLI prints besides its results: progress, warnings and dependency logs.

- On a terminal, progress bars are drawn as usual. When stderr is not a terminal (a log file, a
  CI job, a pipe), every progress bar, ours or a dependency's (mteb, sentence-transformers,
  datasets), becomes a few plain lines: its first state, one line every ``PLAIN_INTERVAL_S``
  seconds, and its last state; no carriage returns or cursor escapes reach the log.
- ``--quiet`` drops progress altogether (results and errors are still printed).
- Dependency ``FutureWarning``s and ``DeprecationWarning``s, and the INFO/WARNING logs of mteb,
  transformers, sentence-transformers, datasets and huggingface_hub, are hidden unless ``-v``.
"""

from __future__ import annotations

import io
import logging
import os
import re
import sys
import threading
import time
import warnings
from collections.abc import Callable
from typing import TextIO

PLAIN_INTERVAL_S = 30.0
QUIET_LOGGERS = ("mteb", "transformers", "sentence_transformers", "datasets", "huggingface_hub", "httpx", "urllib3")
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
_SEPARATORS = re.compile(r"(\r|\n)")
_FINISHED = re.compile(r"\b100%|\b(\d+)/\1\b")
_COUNT = re.compile(r"\b\d+/\d+\b")


class ProgressFilter(io.TextIOBase):
    """A text stream over ``stream`` that turns carriage-return progress updates into plain lines.

    A status is text that a ``\\r`` overwrites (how tqdm redraws a bar). With ``keep`` the first
    status of each bar (keyed by the text before its first ``:``), then at most one per
    ``interval`` seconds, and its finished state (100%, or n/n) are written as lines; without
    ``keep`` statuses are dropped. Everything else passes through line by line, escape codes
    removed (tqdm's cursor moves between nested bars included).
    """

    def __init__(self, stream: TextIO, *, keep: bool, interval: float = PLAIN_INTERVAL_S,
                 clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__()
        self._stream = stream
        self._keep = keep
        self._interval = interval
        self._clock = clock
        self._line = ""
        self._overwritten = False  # a \r was seen since the last \n: the current line is a status
        self._after_progress = False
        self._emitted: dict[str, tuple[float, str, bool]] = {}  # bar name -> (when, what, finished)
        self._lock = threading.Lock()

    # io.TextIOBase API ------------------------------------------------------------------------
    def writable(self) -> bool:
        return True

    def isatty(self) -> bool:
        return False

    def fileno(self) -> int:
        return self._stream.fileno()

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return getattr(self._stream, "encoding", "utf-8")

    def flush(self) -> None:
        self._stream.flush()

    def write(self, text: str) -> int:
        with self._lock:
            for piece in _SEPARATORS.split(_ANSI.sub("", text)):
                if piece == "\r":
                    self._end_status()
                    self._overwritten = True
                elif piece == "\n":
                    self._end_line()
                else:
                    self._line += piece
        return len(text)

    # ------------------------------------------------------------------------------------------
    def _end_status(self) -> None:
        """A status is complete (the next ``\r`` or ``\n`` came): write it if the rate allows."""
        status = self._line.strip()
        self._line = ""
        if not status:
            return
        self._after_progress = True
        if not self._keep:
            return
        key = status.split(":", 1)[0].strip()
        now = self._clock()
        finished = _FINISHED.search(status) is not None
        count = _COUNT.search(status)
        signature = count.group(0) if count else status
        last = self._emitted.get(key)
        if last is not None and (last[1] == status or (last[2] and last[1] == signature)):
            return  # unchanged, or the same finished bar drawn once more on close
        if last is None or last[2] or finished or now - last[0] >= self._interval:
            self._stream.write(status + "\n")
            self._stream.flush()
            self._emitted[key] = (now, signature if finished else status, finished)

    def _end_line(self) -> None:
        if self._overwritten:  # a bar ended, or tqdm moved the cursor between nested bars
            self._overwritten = False
            self._end_status()
            return
        line, self._line = self._line, ""
        if not line.strip() and self._after_progress:
            return  # the blank lines tqdm uses to move between nested bars
        self._after_progress = False
        self._stream.write(line + "\n")
        self._stream.flush()


def configure(*, verbose: bool, quiet: bool) -> Callable[[], None]:
    """Set up warnings, dependency logs and the progress stream for one CLI command.

    Returns the function that puts the original ``sys.stderr`` back (``main`` calls it when the
    command ends, so that in-process callers such as tests get their stream back).
    """
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    if verbose:
        logging.basicConfig(level=logging.INFO, format="%(name)s: %(levelname)s: %(message)s")
    else:
        os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
        os.environ.setdefault("TRANSFORMERS_NO_ADVISORY_WARNINGS", "1")
        warnings.filterwarnings("ignore", category=FutureWarning)
        warnings.filterwarnings("ignore", category=DeprecationWarning)
        for name in QUIET_LOGGERS:
            logging.getLogger(name).setLevel(logging.ERROR)
    original = sys.stderr
    if isinstance(original, ProgressFilter):
        return lambda: None
    if quiet:
        sys.stderr = ProgressFilter(original, keep=False)
    elif not _isatty(original):
        sys.stderr = ProgressFilter(original, keep=True)

    def restore() -> None:
        sys.stderr = original

    return restore


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
