"""A counter updated in place on a terminal, for the steps that take more than a few seconds.

``[demo] dbt build (results): 37/120 nodes`` is rewritten on one line (``\\r``) as work goes
on, at most ten times a second, and erased when the step ends, so the step's own summary line
follows on a clean line. When stdout is not a terminal (logs, CI, tests) nothing is written;
``BIASWH_PROGRESS=0`` turns it off on a terminal too, ``=1`` on everywhere.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from contextlib import contextmanager
from typing import Callable, Iterable, Iterator, TypeVar

VARIABLE = "BIASWH_PROGRESS"
_INTERVAL = 0.1
T = TypeVar("T")


def progress_enabled(stream=None) -> bool:
    """Whether counters are drawn on ``stream`` (default stdout)."""
    setting = os.environ.get(VARIABLE, "")
    if setting in ("0", "1"):
        return setting == "1"
    stream = stream or sys.stdout
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


class Progress:
    """``label: done/total unit`` on one terminal line; thread-safe (dbt reports from its threads)."""

    def __init__(self, label: str, total: int | None = None, *, unit: str = "", stream=None) -> None:
        self.label, self.total, self.unit = label, total, unit
        self.done = 0
        self._stream = stream or sys.stdout
        self._enabled = progress_enabled(self._stream)
        self._lock = threading.Lock()
        self._drawn_at = 0.0
        self._width = 0

    def advance(self, n: int = 1) -> None:
        with self._lock:
            self.done += n
            self._draw(force=self.total is not None and self.done >= self.total)

    def set_total(self, total: int) -> None:
        with self._lock:
            self.total = total

    def _draw(self, *, force: bool = False) -> None:
        if not self._enabled or (not force and time.monotonic() - self._drawn_at < _INTERVAL):
            return
        count = f"{self.done}/{self.total}" if self.total else f"{self.done}"
        text = f"{self.label}: {count}{' ' + self.unit if self.unit else ''}"
        self._stream.write("\r" + text.ljust(self._width))
        self._stream.flush()
        self._width = len(text)
        self._drawn_at = time.monotonic()

    def close(self) -> None:
        """Erase the counter's line (the step prints its own result next)."""
        with self._lock:
            if self._enabled and self._width:
                self._stream.write("\r" + " " * self._width + "\r")
                self._stream.flush()
            self._width = 0


@contextmanager
def progress(label: str, total: int | None = None, *, unit: str = "") -> Iterator[Progress]:
    """A :class:`Progress` for the ``with`` block, erased when it ends."""
    counter = Progress(label, total, unit=unit)
    try:
        yield counter
    finally:
        counter.close()


def counted(items: Iterable[T], label: str, *, total: int | None = None, unit: str = "") -> Iterator[T]:
    """``items`` one by one, counting each on the terminal (``total`` defaults to ``len(items)``)."""
    if total is None and hasattr(items, "__len__"):
        total = len(items)  # type: ignore[arg-type]
    with progress(label, total, unit=unit) as counter:
        for item in items:
            yield item
            counter.advance()


@contextmanager
def node_progress(label: str) -> Iterator[Callable]:
    """A dbt event callback counting finished nodes against the build's node count."""
    with progress(label, unit="nodes") as counter:

        def on_event(event) -> None:
            name = event.info.name
            if name == "LogStartLine" and counter.total is None:
                counter.set_total(int(event.data.total))
            elif name == "NodeFinished":
                counter.advance()

        yield on_event
