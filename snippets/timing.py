"""Timing comparisons that respect noise: contenders timed in interleaved rounds, the spread those
rounds show, and a verdict that calls a gap smaller than that spread (or than 1%) a tie."""

import statistics
from dataclasses import dataclass

NOISE_FLOOR = 0.01  # two hosts of one kind differ by up to about 0.5%: no verdict below 1%


def interleaved(functions: dict, measure, rounds: int) -> dict[str, list[float]]:
    """name -> one `measure(fn)` per round; every function is measured once per round, in turn, so a
    drift of the clock or the temperature falls on all of them alike."""
    times = {name: [] for name in functions}
    for _ in range(rounds):
        for name, fn in functions.items():
            times[name].append(measure(fn))
    return times


def spread(times: list[float]) -> float:
    """How far one contender's rounds lie apart: (max - min) / median."""
    return (max(times) - min(times)) / statistics.median(times)


@dataclass(frozen=True)
class Comparison:
    """Two contenders' medians compared: `gap` is slower / faster - 1, `margin` the noise it must exceed."""

    faster: str
    slower: str
    gap: float
    margin: float

    @property
    def tie(self) -> bool:
        return self.gap < self.margin

    def __str__(self) -> str:
        if self.tie:
            return f"{self.faster} and {self.slower} tie ({self.gap:.1%} apart, within the {self.margin:.1%} margin)"
        return f"{self.faster} is {self.gap:.1%} faster than {self.slower} (margin {self.margin:.1%})"


def compare(times: dict[str, list[float]], a: str, b: str, floor: float = NOISE_FLOOR) -> Comparison:
    """Compare the medians of a and b; the margin is the larger of their spreads and `floor`."""
    median_a, median_b = statistics.median(times[a]), statistics.median(times[b])
    faster, slower = (a, b) if median_a <= median_b else (b, a)
    gap = max(median_a, median_b) / min(median_a, median_b) - 1
    return Comparison(faster, slower, gap, max(spread(times[a]), spread(times[b]), floor))
