"""The one scheduler of snippet calls (the build's and `make record`'s), checked on its own, without torch:
jobs start in order as lanes free up, tags say what may run beside what, a failing job stops no other,
and every lane has ended when it returns."""

import os
import threading

import pytest

from engine.run.schedule import ALONE, HERE, RANKS, Job, run


class Later:
    """Readable `seconds` from now (a pipe a timer writes to), as a call running elsewhere turns readable."""

    def __init__(self, seconds: float):
        self.read, write = os.pipe()
        timer = threading.Timer(seconds, lambda: (os.write(write, b"x"), os.close(write)))
        timer.daemon = True
        timer.start()

    def fileno(self) -> int:
        return self.read


class Trace:
    """What ran, in order: ("start" | "end", name, lane), and which jobs ran together."""

    def __init__(self):
        self.events, self.running = [], set()
        self.together: list[set[str]] = []

    def began(self, name, lane):
        self.events.append(("start", name, lane))
        self.running.add(name)
        self.together.append(set(self.running))

    def ended(self, name, lane):
        self.events.append(("end", name, lane))
        self.running.discard(name)

    def waits(self, name, *tags, seconds=0.05) -> Job:
        """A job that runs beside others: it waits `seconds` without holding this thread."""

        def work(lane):
            self.began(name, lane)
            yield Later(seconds)
            self.ended(name, lane)

        return Job(name, work, frozenset(tags))

    def blocks(self, name, *tags) -> Job:
        """A job that runs in this thread, to its end."""

        def work(lane):
            assert threading.current_thread() is threading.main_thread()
            self.began(name, lane)
            self.ended(name, lane)

        return Job(name, work, frozenset(tags))

    def started(self) -> list[str]:
        return [name for kind, name, _ in self.events if kind == "start"]

    def lanes(self) -> dict[str, int | None]:
        return {name: lane for kind, name, lane in self.events if kind == "start"}

    def all_ended(self) -> bool:
        return not self.running and len(self.started()) == sum(kind == "end" for kind, _, _ in self.events)


def test_jobs_start_in_order_each_on_a_free_lane():
    trace = Trace()
    assert run([trace.waits(name, seconds=0.05 * (i + 1)) for i, name in enumerate("abcde")], 2) == {}
    assert trace.started() == list("abcde") and trace.all_ended()
    assert max(map(len, trace.together)) == 2
    assert trace.lanes()["a"] == 0 and trace.lanes()["b"] == 1
    assert trace.lanes()["c"] == 0  # a ended first, its lane went to the next job


def test_two_jobs_that_hold_one_tag_never_run_together_others_run_beside_them():
    trace = Trace()
    jobs = [trace.waits("ranks1", RANKS, seconds=0.2), trace.waits("ranks2", RANKS), trace.waits("other")]
    assert run(jobs, 3) == {}
    assert trace.started() == ["ranks1", "other", "ranks2"] and trace.all_ended()
    assert {"ranks1", "other"} in trace.together
    assert not any({"ranks1", "ranks2"} <= running for running in trace.together)
    assert trace.events.index(("end", "ranks1", 0)) < trace.events.index(("start", "ranks2", 0))


def test_alone_jobs_run_after_the_others_one_at_a_time_on_every_lane():
    trace = Trace()
    jobs = [trace.waits("clock1", ALONE), trace.blocks("clock2", ALONE), trace.waits("a"), trace.waits("b")]
    assert run(jobs, 4) == {}
    assert trace.started() == ["a", "b", "clock1", "clock2"] and trace.all_ended()
    assert trace.lanes()["clock1"] is None and trace.lanes()["clock2"] is None
    assert trace.events[-4:] == [("start", "clock1", None), ("end", "clock1", None),
                                 ("start", "clock2", None), ("end", "clock2", None)]


def test_jobs_here_run_in_this_thread_one_at_a_time_and_keep_a_lane_while_any_remains():
    trace = Trace()
    jobs = [trace.blocks("here1", HERE), trace.blocks("here2", HERE)] + [trace.waits(f"w{i}", seconds=0.5)
                                                                          for i in range(3)]
    assert run(jobs, 3) == {}
    assert trace.started() == ["w0", "w1", "here1", "here2", "w2"]  # two lanes beside the one kept for here's
    assert {"w0", "w1", "w2"} in trace.together and trace.all_ended()  # then all three


def test_a_failing_job_stops_no_other_and_is_named():
    trace = Trace()

    def raises_at_once(lane):
        raise OSError(28, "No space left on device")

    def raises_after_waiting(lane):
        yield Later(0.02)
        raise ValueError("after a wait")

    jobs = [Job("at once", raises_at_once), Job("after waiting", raises_after_waiting),
            trace.waits("a"), trace.blocks("b", HERE), trace.waits("c", ALONE)]
    failed = run(jobs, 2)
    assert sorted(failed) == ["after waiting", "at once"]
    assert isinstance(failed["at once"], OSError) and str(failed["after waiting"]) == "after a wait"
    assert sorted(trace.started()) == ["a", "b", "c"] and trace.all_ended()


def test_an_interrupted_run_ends_every_lane():
    """Ctrl-C (or SIGTERM's exit) in this thread: the jobs waiting beside it run their clean-up."""
    closed = []

    def waits_long(lane):
        try:
            yield Later(30)
        finally:
            closed.append(lane)

    def interrupted(lane):
        raise KeyboardInterrupt

    jobs = [Job("long1", waits_long), Job("long2", waits_long), Job("here", interrupted, frozenset({HERE}))]
    with pytest.raises(KeyboardInterrupt):
        run(jobs, 3)
    assert sorted(closed) == [0, 1]
