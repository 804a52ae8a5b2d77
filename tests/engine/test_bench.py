"""BENCHMARKS.md keeps the run before the latest: a change's cost shows before and after."""

from engine.bench import markdown, previous_run


def test_the_latest_table_becomes_the_run_before():
    first = markdown([("cold build, empty caches", 300.0, 500.0, 169, {}, 1.5)], {}, ["detail"], "DAY 1", "A", [])
    second = markdown([("cold build, empty caches", 290.0, 480.0, 169, {}, 1.2)], {}, ["detail"], "DAY 2", "A",
                      previous_run(first))
    before = previous_run(second)
    assert before[2] == "Taken by `make bench` (`python -m engine.bench`) on DAY 2, on A."
    assert before[-1] == "| cold build, empty caches | 290.0 | 480.0 | 169 | 1.20 |  |"
    assert "| cold build, empty caches | 300.0 | 500.0 | 169 | 1.50 |  |" in second.splitlines()
    assert "DAY 1" not in "\n".join(before)  # one run before, not a diary


def test_a_file_without_a_table_has_no_run_before():
    assert previous_run("# Benchmarks\n\nnothing yet\n") == []
