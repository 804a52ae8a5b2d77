"""Text for the page from what the ranks returned: counts per pass, bytes, shards."""

from __future__ import annotations

from collections import Counter

PHASES = ("forward", "backward", "optimizer")


def per_pass(counts: dict[str, int]) -> str:
    """'forward: 3 all_gather; backward: ...; optimizer: none' from {'forward:all_gather': 3, ...}."""
    parts = []
    for phase in PHASES:
        calls = [f"{n} {key.split(':')[1]}" for key, n in counts.items() if key.startswith(phase + ":")]
        parts.append(f"{phase}: {', '.join(calls) if calls else 'none'}")
    return "; ".join(parts)


def call_sizes(calls: list[list]) -> str:
    """'4 x all_reduce of 32,768 B' style summary of the individual calls, in order of first use."""
    sizes = Counter((kind, payload) for _, kind, payload in calls)
    return ", ".join(f"{n} x {kind} of {payload:,} B" for (kind, payload), n in sizes.items())


def comm_lines(result: dict) -> list[str]:
    """What one rank's communication looked like during the measured step."""
    lines = []
    if result.get("torch_counts") is not None:
        lines.append(f"CommDebugMode counts: {result['torch_counts']}")
    lines += [f"calls per pass: {per_pass(result['counts'])}",
              f"calls by size:  {call_sizes(result['calls'])}",
              f"bytes per step: payload {result['payload']:,} B, sent by this rank {result['sent']:,} B"]
    return lines


def shape(dims: list[int]) -> str:
    return "x".join(map(str, dims))
