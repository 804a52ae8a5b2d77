"""The benchmark's two targets, checked on every round it timed: from 64 MiB, ours at 95% or more of
the speed of a copy that moves the same bytes; from 4096 rows, no contender faster than ours by more
than the noise margin (the larger of the two contenders' spreads and 1%), so that a tie is a tie."""

from snippets.phase24.triton_softmax.results import COPY, IMPLS, PASSES, Measured, mebibytes
from snippets.timing import Comparison, compare

OURS, OTHERS = IMPLS[3], IMPLS[1:3]
TARGET_SHARE = 0.95  # of the speed of a copy moving the same bytes, for tensors of TARGET_MIB and more
TARGET_MIB = 64
FASTEST_FROM_ROWS = 4096
ROW = "{:>13}  {:<14}{:>11}{:>8}  {:<13}{}"


def against_others(m: Measured) -> Comparison:
    """Ours against the other contender that decides: one that beats ours beyond the margin (the
    furthest ahead, if several do), else the faster of the two."""
    comparisons = {other: compare(m.rounds, OURS, other) for other in OTHERS}
    losses = [c for c in comparisons.values() if not c.tie and c.faster != OURS]
    if losses:
        return max(losses, key=lambda c: c.gap)
    return comparisons[min(OTHERS, key=m.median)]


def verdict(c: Comparison) -> str:
    return "tie" if c.tie else "ours faster" if c.faster == OURS else "ours slower"


def comparison_lines(measured: list[Measured]) -> list[str]:
    """Per pass, one line per shape from FASTEST_FROM_ROWS rows: ours against the other contender
    that decides, how far ahead ours is (negative: behind), the margin, the verdict, and how
    torch.compile's kernel walks a row."""
    lines = ["ours ahead: how much longer the other takes than ours (negative: ours takes longer)",
             "margin: the larger of the two spreads (max - min of the rounds, over their median) and 1%;",
             "a gap within the margin is a tie"]
    rounds = len(measured[0].rounds[OURS])
    for pass_name in PASSES:
        lines += ["", f"{pass_name}, from {FASTEST_FROM_ROWS} rows, {rounds} rounds: "
                      f"ours against the faster of {' and '.join(OTHERS)}",
                  ROW.format("shape", "other", "ours ahead", "margin", "verdict", "torch.compile's kernel")]
        for m in measured:
            if m.pass_name == pass_name and m.rows >= FASTEST_FROM_ROWS:
                c = against_others(m)
                other = c.slower if c.faster == OURS else c.faster
                ahead = c.gap if c.faster == OURS else -c.gap
                lines.append(ROW.format(m.shape, other, f"{ahead:+.1%}", f"{c.margin:.1%}", verdict(c), m.compiled))
    return lines


def target_report(measured: list[Measured]) -> list[str]:
    """The two targets per pass, met or MISSED, with the worst case of each."""
    lines = []
    for pass_name in PASSES:
        shapes = [m for m in measured if m.pass_name == pass_name]
        large = [m for m in shapes if mebibytes(m.rows, m.cols) >= TARGET_MIB]
        worst = min(large, key=lambda m: m.median(COPY) / m.median(OURS))
        share = worst.median(COPY) / worst.median(OURS)
        lines.append(f"{pass_name} >= {TARGET_MIB} MiB: ours >= {TARGET_SHARE:.0%} of a same-bytes copy? "
                     f"{'met' if share >= TARGET_SHARE else 'MISSED'} (lowest {share:.1%}, {worst.shape})")
        beaten = []
        for m in shapes:
            c = against_others(m)
            if m.rows >= FASTEST_FROM_ROWS and verdict(c) == "ours slower":
                beaten.append(f"{m.shape} ({c.faster} {c.gap:.1%} faster, margin {c.margin:.1%})")
        lines.append(f"{pass_name} >= {FASTEST_FROM_ROWS} rows: ours the fastest of the three (or tied)? "
                     + ("met" if not beaten else "MISSED at " + ", ".join(beaten)))
    return lines
