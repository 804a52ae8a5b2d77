"""One scheduler for snippet calls, the build's (engine/run/execute.py) and `make record`'s
(engine/gpu/record.py): jobs run side by side in lanes, and their tags say what may run beside what.

A job's work is a function of its lane (0 to lanes - 1; None for a job tagged ALONE). A plain function runs
to its end in this thread. A generator function runs beside other jobs: it yields each thing it waits for
(anything with a `fileno()` that turns readable once the wait is over: a fork server still importing, a
call running in a fork) and goes on once that is readable. No thread is started: a call run in this
process sees only itself, and what it prints is all its output holds.

Tags:
- ALONE: after every other job, one at a time, with nothing beside it (a call that reads a clock);
- HERE: a plain function, run in this thread while the others run beside it, one after another; while any
  remains to run it keeps one lane, so that fewer others start beside it;
- any other tag is held while its job runs: two jobs with the same tag never run at once (RANKS).
Jobs start in the order given, each as soon as a lane is free and no running job holds one of its tags.
"""

from __future__ import annotations

import select
from collections.abc import Callable, Iterator
from dataclasses import dataclass

ALONE, HERE, RANKS = "alone", "here", "ranks"
KINDS = (ALONE, HERE)  # tags that say how a job runs, not what it holds


@dataclass(frozen=True)
class Job:
    name: str
    work: Callable[[int | None], Iterator | None]
    tags: frozenset[str] = frozenset()


@dataclass(eq=False)
class _Running:
    job: Job
    lane: int | None
    steps: Iterator
    waiting: object = None  # what it yielded last


def run(jobs: list[Job], lanes: int) -> dict[str, Exception]:
    """Run every job, at most `lanes` at a time (those tagged ALONE after the others, each alone). A job
    whose work raises ends there and the others go on: returns what each such job raised, by name."""
    failed: dict[str, Exception] = {}
    _side_by_side([job for job in jobs if ALONE not in job.tags], max(1, lanes), failed)
    for job in jobs:
        if ALONE in job.tags:
            _side_by_side([job], 1, failed)
    return failed


def _side_by_side(jobs: list[Job], lanes: int, failed: dict[str, Exception]) -> None:
    here = [job for job in jobs if HERE in job.tags]
    beside = [job for job in jobs if HERE not in job.tags]
    running: list[_Running] = []
    try:
        while here or beside or running:
            held = {tag for r in running for tag in r.job.tags} - set(KINDS)
            free = [lane for lane in range(lanes - (1 if here else 0)) if lane not in {r.lane for r in running}]
            for job in list(beside):
                if not free:
                    break
                if job.tags & held:
                    continue
                beside.remove(job)
                held |= job.tags - set(KINDS)
                _start(job, free.pop(0), running, failed)
            mine = next((job for job in here if not job.tags & held), None)
            if mine is not None:
                here.remove(mine)
                _start(mine, lanes - 1, running, failed)
            for r in _readable(running, block=mine is None):
                _step(r, running, failed)
    finally:
        for r in running:  # a job interrupted (Ctrl-C, SIGTERM): its own clean-up runs
            r.steps.close()


def _start(job: Job, lane: int, running: list[_Running], failed: dict[str, Exception]) -> None:
    lane = None if ALONE in job.tags else lane
    try:
        steps = job.work(lane)
    except Exception as error:  # noqa: BLE001 - reported by the caller, the other jobs go on
        failed[job.name] = error
        return
    if steps is not None:
        _step(_Running(job, lane, iter(steps)), running, failed)


def _step(r: _Running, running: list[_Running], failed: dict[str, Exception]) -> None:
    """Resume a job until it waits again (it stays running) or ends."""
    if r in running:
        running.remove(r)
    try:
        r.waiting = next(r.steps)
    except StopIteration:
        return
    except Exception as error:  # noqa: BLE001 - reported by the caller, the other jobs go on
        failed[r.job.name] = error
        return
    running.append(r)


def _readable(running: list[_Running], block: bool) -> list[_Running]:
    """The running jobs whose wait is over; with `block`, once at least one is (if any runs)."""
    if not running:
        return []
    ready, _, _ = select.select(list({id(r.waiting): r.waiting for r in running}.values()), [], [],
                                None if block else 0)
    return [r for r in running if any(r.waiting is w for w in ready)]
