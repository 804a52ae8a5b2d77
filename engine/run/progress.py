"""How far a build's snippet calls have got: a line rewritten in place on a terminal, at most one line
a minute anywhere else (a CI log), its estimate read from the seconds each call took when it last ran
(`.cache/timings.json`). Written as calls start and end: no thread of its own."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import TextIO

from engine.base import atomic
from engine.base.settings import Layout


def duration(seconds: float) -> str:
    seconds = max(0, round(seconds))
    return f"{seconds // 60} min {seconds % 60:02d} s" if seconds >= 60 else f"{seconds} s"


class Progress:
    """Counts calls done of `total`; `expected` holds the seconds each call took last time, when known,
    and `kinds` each call's kind (a call never timed is expected to take what its kind has taken so far)."""

    def __init__(self, total: int, workers: int, expected: dict[str, float], stream: TextIO | None = None,
                 kinds: dict[str, str] | None = None):
        self.total, self.workers, self.expected, self.kinds = total, workers, expected, kinds or {}
        self.stream = stream or sys.stderr
        self.terminal = self.stream.isatty()
        self.period = 1.0 if self.terminal else 60.0
        self.done: dict[str, float] = {}
        self.running: dict[str, float] = {}
        self.waiting: list[str] = []
        self.started = self.last_line = time.monotonic()

    def close(self) -> None:
        if self.terminal:
            self.stream.write("\r\033[K")
            self.stream.flush()

    def queue(self, names: list[str]) -> None:
        self.waiting = list(names)

    def start(self, name: str) -> None:
        self.running[name] = time.monotonic()
        if name in self.waiting:
            self.waiting.remove(name)
        self._show()

    def finish(self, name: str) -> None:
        self.done[name] = time.monotonic() - self.running.pop(name)
        self._show()

    def estimate(self, name: str) -> float:
        """What `name` took last time; else the mean of the calls of its kind done so far, else of all, else 10 s."""
        if name in self.expected:
            return self.expected[name]
        for done in ([s for n, s in self.done.items() if self.kinds.get(n) == self.kinds.get(name)],
                     list(self.done.values())):
            if done:
                return sum(done) / len(done)
        return 10.0

    def left(self) -> float:
        """Seconds left: the estimates of the calls running and waiting, shared by the workers."""
        now = time.monotonic()
        running = sum(max(0.0, self.estimate(n) - (now - t)) for n, t in self.running.items())
        waiting = sum(self.estimate(n) for n in self.waiting)
        return (running + waiting) / self.workers

    def line(self) -> str:
        running = ", ".join(self.running) or "nothing"
        return (f"engine: {len(self.done)} of {self.total} snippet call(s) done in "
                f"{duration(time.monotonic() - self.started)}; running {running}; about {duration(self.left())} left")

    def _show(self) -> None:
        now = time.monotonic()
        if self.terminal:
            self.stream.write("\r\033[K" + self.line()[:160])
        elif now - self.last_line >= self.period:
            self.stream.write(self.line() + "\n")
            self.last_line = now
        else:
            return
        self.stream.flush()


def _timings_file(root: Path) -> Path:
    return Layout(root).timings


def read_timings(root: Path) -> dict:
    """Seconds each snippet call took when it last ran (for the progress line's estimate)."""
    return _read_json(_timings_file(root))


def save_timings(root: Path, executor) -> None:
    seconds = {name: timing["seconds"] for name, timing in executor.timings.items()}
    atomic.write_text(_timings_file(root), json.dumps({**read_timings(root), **seconds}, indent=0))


def _read_json(file: Path) -> dict:
    try:
        return json.loads(file.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
