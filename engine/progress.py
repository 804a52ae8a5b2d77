"""How far a build's snippet calls have got: a line rewritten in place on a terminal, one line a
minute anywhere else (a CI log)."""

from __future__ import annotations

import sys
import threading
import time
from typing import TextIO


def duration(seconds: float) -> str:
    seconds = max(0, round(seconds))
    return f"{seconds // 60} min {seconds % 60:02d} s" if seconds >= 60 else f"{seconds} s"


class Progress:
    """Counts calls done of `total`; `expected` holds the seconds each call took last time, when known."""

    def __init__(self, total: int, workers: int, expected: dict[str, float], stream: TextIO | None = None):
        self.total, self.workers, self.expected = total, workers, expected
        self.stream = stream or sys.stderr
        self.terminal = self.stream.isatty()
        self.period = 1.0 if self.terminal else 60.0
        self.done: dict[str, float] = {}
        self.running: dict[str, float] = {}
        self.waiting: list[str] = []
        self.started = time.monotonic()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._ticker = threading.Thread(target=self._tick, daemon=True)

    def __enter__(self) -> Progress:
        self._ticker.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._ticker.join()
        if self.terminal:
            self.stream.write("\r\033[K")
            self.stream.flush()

    def queue(self, names: list[str]) -> None:
        self.waiting = list(names)

    def start(self, name: str) -> None:
        with self._lock:
            self.running[name] = time.monotonic()
            if name in self.waiting:
                self.waiting.remove(name)
        self._show(always=False)

    def finish(self, name: str) -> None:
        with self._lock:
            self.done[name] = time.monotonic() - self.running.pop(name)
        self._show(always=False)

    def left(self) -> float:
        """Seconds left: what the calls running and waiting took last time (else the mean so far), shared by the workers."""
        now = time.monotonic()
        mean = sum(self.done.values()) / len(self.done) if self.done else 10.0
        running = sum(max(0.0, self.expected.get(n, mean) - (now - t)) for n, t in self.running.items())
        waiting = sum(self.expected.get(n, mean) for n in self.waiting)
        return (running + waiting) / self.workers

    def line(self) -> str:
        with self._lock:
            running = ", ".join(self.running) or "nothing"
            return (f"engine: {len(self.done)} of {self.total} snippet call(s) done in "
                    f"{duration(time.monotonic() - self.started)}; running {running}; about {duration(self.left())} left")

    def _show(self, always: bool) -> None:
        if self.terminal:
            width = 160
            self.stream.write("\r\033[K" + self.line()[:width])
            self.stream.flush()
        elif always:
            self.stream.write(self.line() + "\n")
            self.stream.flush()

    def _tick(self) -> None:
        while not self._stop.wait(self.period):
            self._show(always=True)
