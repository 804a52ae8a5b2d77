"""Claims about measured outputs hold on a loaded machine: every CPU call the site shows that reads a clock
runs cold, as a build runs it (last, alone, without MKL's slow branch), with two CPU-bound processes
beside it, and each of its claims is checked against what it printed."""

import subprocess
import sys

from engine.source import claims
from engine.site import pages
from engine.run.execute import Executor
from engine.source.sources import measures_time

BURN = "while True: pass"


def test_timing_claims_hold_with_two_busy_processes_beside_the_build(root, tmp_path):
    calls = [(path, call) for path, call in pages.site_calls(root, root / "docs") if measures_time(root, path)]
    assert calls, "no CPU call of the site reads a clock: this test would check nothing"
    executor = Executor(root, tmp_path / "snippets")  # an empty cache: every call runs
    burners = [subprocess.Popen([sys.executable, "-c", BURN]) for _ in range(2)]
    try:
        executor.prefetch(calls)
    finally:
        for burner in burners:
            burner.kill()
            burner.wait()
    false = []
    for path, call in calls:
        result = executor.run(path, call)
        assert result.ok, f"{executor.name(path, call)} failed under load:\n{result.error}"
        false += claims.check(path, call, claims.Output(result.output, "cpu", executor.environment))
    assert not false, "\n".join(false)
