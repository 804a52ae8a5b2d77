"""The benchmark's table: how it is printed on the GPU and read back at build time."""

import re
import statistics
from dataclasses import dataclass

COPY = "copy"
IMPLS = (COPY, "torch.softmax", "torch.compile", "triton (ours)")
PASSES = {"forward": "one read, one write", "backward": "two reads, one write"}
PEAK_LINE = "device-to-device copy, 1 GiB: {gbps:.0f} GB/s (the peak)"
_PEAK = re.compile(r"^device-to-device copy, 1 GiB: (\d+) GB/s", re.MULTILINE)
_PASS = re.compile(r"^(forward|backward): ")
_ROW = re.compile(r"^\s*(\d+) x (\d+)\s+[\d.]+((?:\s+[\d.]+ \(\s*\d+%\))+)\s*$")
_CELL = re.compile(r"([\d.]+) \(\s*(\d+)%\)")


@dataclass(frozen=True)
class Timing:
    """One median time of one implementation on one shape, with the bandwidth it implies."""

    pass_name: str
    rows: int
    cols: int
    impl: str
    microseconds: float
    gbps: float

    @property
    def shape(self) -> str:
        return f"{self.rows} x {self.cols}"


@dataclass(frozen=True)
class Measured:
    """One shape and pass: every round's time of each implementation, in µs (a `do_bench` median per round),
    the bytes the pass moves, and how torch.compile's kernel walks a row."""

    pass_name: str
    rows: int
    cols: int
    n_bytes: int
    rounds: dict[str, list[float]]
    compiled: str

    @property
    def shape(self) -> str:
        return f"{self.rows} x {self.cols}"

    def median(self, impl: str) -> float:
        return statistics.median(self.rounds[impl])

    def timings(self) -> list[Timing]:
        """Each implementation's median round, with the bandwidth it implies."""
        return [Timing(self.pass_name, self.rows, self.cols, impl, self.median(impl),
                       self.n_bytes / self.median(impl) / 1e3) for impl in self.rounds]


def mebibytes(rows: int, cols: int, element_size: int = 4) -> float:
    """Size of one (rows, cols) tensor in MiB."""
    return rows * cols * element_size / 2**20


def format_table(peak_gbps: float, timings: list[Timing]) -> str:
    """The peak copy bandwidth, then per pass one line per shape: µs and share of the peak, per implementation."""
    lines = [PEAK_LINE.format(gbps=peak_gbps)]
    for pass_name, traffic in PASSES.items():
        lines += ["", f"{pass_name}: median µs (share of the peak, counting {traffic}); {COPY} moves as many bytes",
                  f"{'shape':>13} {'MiB':>7}" + "".join(f"{impl:>16}" for impl in IMPLS)]
        shapes = dict.fromkeys((t.rows, t.cols) for t in timings if t.pass_name == pass_name)
        for rows, cols in shapes:
            cells = {t.impl: t for t in timings if (t.pass_name, t.rows, t.cols) == (pass_name, rows, cols)}
            lines.append(f"{f'{rows} x {cols}':>13} {mebibytes(rows, cols):7.1f}" + "".join(
                f"{cells[impl].microseconds:>9.1f} ({cells[impl].gbps / peak_gbps:4.0%})" for impl in IMPLS))
    return "\n".join(lines)


def parse_table(text: str) -> tuple[float, list[Timing]]:
    """The peak copy bandwidth and the timings of a table printed by format_table; other lines are ignored.

    Each cell's bandwidth is rebuilt from its rounded share of the peak, so it is good to about 1%.
    """
    peak_gbps = float(_PEAK.search(text).group(1))
    timings, pass_name = [], None
    for line in text.splitlines():
        if match := _PASS.match(line):
            pass_name = match.group(1)
        elif pass_name and (match := _ROW.match(line)):
            rows, cols = int(match.group(1)), int(match.group(2))
            for impl, (time, share) in zip(IMPLS, _CELL.findall(match.group(3)), strict=True):
                timings.append(Timing(pass_name, rows, cols, impl, float(time), int(share) / 100 * peak_gbps))
    return peak_gbps, timings
