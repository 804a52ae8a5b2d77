"""Draw a pipeline schedule from the actions each rank really ran, bubbles included.

Each rank's list of actions is what its stage executed, in order. Placing them on a common clock
needs only the pipeline's dependencies: the forward of micro-batch m on stage s waits for the
forward of m on stage s-1, and its backward waits for the backward of m on stage s+1. Every
action takes one tick here, so the chart shows the shape of the schedule, not measured times.
"""

from __future__ import annotations


def _dependency(stage: int, action: str, stages: int) -> tuple[int, str] | None:
    kind, microbatch = action[0], action[1:]
    if kind == "F" and stage > 0:
        return stage - 1, f"F{microbatch}"
    if kind == "B" and stage < stages - 1:
        return stage + 1, f"B{microbatch}"
    return None


def place(actions: list[list[str]]) -> list[dict[int, str]]:
    """For each stage, {tick: action}: every action starts as soon as its stage is free and
    its input has arrived."""
    stages = len(actions)
    ends: dict[tuple[int, str], int] = {}
    free, position = [0] * stages, [0] * stages
    placed: list[dict[int, str]] = [{} for _ in range(stages)]
    while any(position[s] < len(actions[s]) for s in range(stages)):
        progressed = False
        for s in range(stages):
            if position[s] == len(actions[s]):
                continue
            action = actions[s][position[s]]
            dependency = _dependency(s, action, stages)
            if dependency is not None and dependency not in ends:
                continue
            start = max(free[s], ends[dependency] if dependency else 0)
            placed[s][start] = action
            ends[(s, action)] = free[s] = start + 1
            position[s] += 1
            progressed = True
        if not progressed:
            raise ValueError(f"these action orders wait on each other forever: {actions}")
    return placed


def idle_ticks(placed: list[dict[int, str]]) -> tuple[list[int], int]:
    """(idle ticks of each stage, total ticks of the step)."""
    total = max(max(p) + 1 for p in placed)
    return [total - len(p) for p in placed], total


def peak_in_flight(actions: list[str]) -> int:
    """Most micro-batches whose forward has run and whose backward has not: activations held."""
    held = peak = 0
    for action in actions:
        held += 1 if action[0] == "F" else -1
        peak = max(peak, held)
    return peak


def draw(actions: list[list[str]]) -> str:
    """A text chart: one row per rank, one column per tick, '··' where the rank waits."""
    placed = place(actions)
    total = max(max(p) + 1 for p in placed)
    rows = ["tick   " + "".join(f"{t:>4}" for t in range(total))]
    for rank, ticks in enumerate(placed):
        rows.append(f"rank {rank}" + " " + "".join(f"{ticks.get(t, '··'):>4}" for t in range(total)))
    return "\n".join(rows)
