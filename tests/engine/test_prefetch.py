"""Calls run before pages render, side by side, and still never share process state."""

import json
import os
from pathlib import Path

from engine.run.progress import Progress
from tests.engine.sandbox import Sandbox, include

LEAKS = """
import importlib, os, sys
import torch
ISOLATE = True
def main():
    print("seen:", os.environ.get("NMB_LEAK"), getattr(torch, "nmb_leak", None), "tabnanny" in sys.modules)
    os.environ["NMB_LEAK"] = "leaked"
    torch.nmb_leak = "leaked"
    importlib.import_module("tabnanny")  # a module that no preloaded one imports
"""


def test_isolated_calls_side_by_side_start_clean(tmp_path, monkeypatch):
    sandbox = Sandbox(tmp_path)
    names = [f"leak{i}.py" for i in range(4)]
    for name in names:
        sandbox.snippet(name, LEAKS)
    sandbox.snippet("local.py", "def main():\n    print('in process')\n")
    sandbox.page("index", "".join(include(n) for n in names) + include("local.py"))
    build = sandbox.build(env={"NMB_JOBS": "2"})
    assert build.returncode == 0, build.log
    fresh = "seen: None None False"  # what a fresh `python -m engine.run.child` prints first
    assert build.page("en").count(fresh) == 4 and build.page("es").count(fresh) == 4
    stats = json.loads((tmp_path / ".cache" / "last-build.json").read_text())
    assert sorted(stats["executed"]) == sorted([f"snippets.leak{i}.main" for i in range(4)] + ["snippets.local.main"])
    assert {t["kind"] for t in stats["timings"].values()} == {"isolated", "in-process"}


def test_in_process_calls_that_start_processes_run_after_the_others(tmp_path):
    """This process runs its calls one at a time while fork servers import: a call that waits on processes
    of its own does not hold the others up at the start."""
    sandbox = Sandbox(tmp_path)
    sandbox.snippet("spawner.py", "import subprocess, sys\ndef main():\n"
                                  "    print(subprocess.run([sys.executable, '-c', 'print(1)'], capture_output=True).stdout)\n")
    sandbox.snippet("plain.py", "def main():\n    print('plain')\n")
    sandbox.page("index", include("spawner.py") + include("plain.py"))
    build = sandbox.build()
    assert build.returncode == 0, build.log
    stats = json.loads((tmp_path / ".cache" / "last-build.json").read_text())
    assert stats["executed"] == ["snippets.plain.main", "snippets.spawner.main"]
    assert stats["timings"]["snippets.spawner.main"]["kind"] == "multi-process"


class Stream:
    def __init__(self):
        self.text = ""

    def write(self, text):
        self.text += text

    def flush(self):
        pass

    def isatty(self):
        return False


def test_progress_line_counts_names_and_estimates():
    stream = Stream()
    progress = Progress(3, 2, {"a": 10.0, "b": 20.0, "c": 30.0}, stream)
    progress.queue(["a", "b", "c"])
    progress.start("a")
    progress.finish("a")
    progress.start("b")
    line = progress.line()
    assert line.startswith("engine: 1 of 3 snippet call(s) done in ") and "running b;" in line
    assert "about 25 s left" in line  # (20 for b + 30 for c) / 2 workers
    assert stream.text == ""  # not a terminal: only the once-a-minute ticker writes


def test_a_call_never_timed_is_expected_to_take_what_its_kind_took():
    kinds = {"quick": "in-process", "slow": "isolated", "new-slow": "isolated", "new-quick": "in-process"}
    progress = Progress(4, 1, {}, Stream(), kinds)
    for name, seconds in (("quick", 1.0), ("slow", 9.0)):
        progress.start(name)
        progress.running[name] -= seconds  # as if it had run that long
        progress.finish(name)
    assert round(progress.estimate("new-slow")) == 9 and round(progress.estimate("new-quick")) == 1
    progress.queue(["new-slow", "new-quick"])
    assert "about 10 s left" in progress.line()


def test_two_calls_that_start_ranks_never_run_side_by_side():
    from engine.run.execute import Queue

    queue = Queue(["multi1", "multi2", "other"], lambda call: call.startswith("multi"))
    assert queue.width() == 2  # the servers it needs: one for "other", one for the calls that start ranks
    assert [queue.take(), queue.take(), queue.take()] == ["multi1", "other", None]
    queue.done("multi1")
    assert queue.take() == "multi2" and queue.take() is None and queue.calls == []


def lineage():
    """A call's output: the process id of the server that forked it, and of that server's parent."""
    server = os.getppid()
    print(server, Path(f"/proc/{server}/stat").read_text().rsplit(")", 1)[1].split()[1])


def test_a_fork_server_imports_while_its_creator_goes_on_then_forks_a_sibling_for_a_second_lane(root):
    """The second lane of calls costs no imports: the sibling is a fork of the first server, and each runs
    only the calls sent to it (the first's next request follows the sibling's at once)."""
    from engine.run.forkserver import ForkServer

    servers = [ForkServer(root, siblings=1)]
    first = servers[0]
    try:
        assert not first.ready()  # it is still importing torch
        servers.append(first.sibling())  # `sibling` waits for the server's first line (`forks`)
        assert first.ready() and first.forks is True
        first.submit("tests.engine.test_prefetch", "lineage", 60)
        servers[1].submit("tests.engine.test_prefetch", "lineage", 60)
        by_first, by_sibling = first.result().output.split(), servers[1].result().output.split()
        assert int(by_first[0]) == first.process.pid
        assert int(by_sibling[1]) == first.process.pid != int(by_sibling[0])
    finally:
        for server in reversed(servers):  # the sibling first: the server that forked it waits for it
            server.close()
