"""Calls run before pages render, side by side, and still never share process state."""

import json
import os
import re
import select
import socket
import subprocess
import sys
import time
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
    """This process runs its calls one at a time while the fork server imports: a call that waits on processes
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


RANKS = """
import multiprocessing  # a launcher: the engine counts this call as one that starts ranks
import os, time
from pathlib import Path
ISOLATE = True
def main():
    mine = Path(__file__).with_name("running." + Path(__file__).stem)
    mine.touch()
    seen = set()
    for _ in range(40):
        seen |= {p.name for p in mine.parent.glob("running.*")} - {mine.name}
        time.sleep(0.05)
    mine.unlink()
    print("ran beside:", sorted(seen) or "nothing")
"""


def test_two_calls_that_start_ranks_never_run_side_by_side_another_runs_beside_them(tmp_path):
    sandbox = Sandbox(tmp_path)
    sandbox.snippet("ranks1.py", RANKS)
    sandbox.snippet("ranks2.py", RANKS)
    sandbox.snippet("other.py", RANKS.replace("import multiprocessing", "import subprocess"))  # one interpreter
    sandbox.page("index", include("ranks1.py") + include("ranks2.py") + include("other.py"))
    build = sandbox.build(env={"NMB_JOBS": "3"})
    assert build.returncode == 0, build.log
    seen = re.findall(r"ran beside: (.*)", build.page("en"))
    assert len(seen) == 3 and "running.ranks" not in seen[0] + seen[1]
    assert "running.other" in seen[0] + seen[1]


def meet():
    """Waits, up to 30 s, for the other call of a pair (which comes only if both run at once), then prints
    the process id of its parent and how many of the pair it saw."""
    folder = Path(os.environ["NMB_MEET"])
    (folder / str(os.getpid())).touch()
    for _ in range(600):
        if len(list(folder.iterdir())) == 2:
            break
        time.sleep(0.05)
    print(os.getppid(), len(list(folder.iterdir())))


def test_one_fork_server_runs_calls_side_by_side_each_in_a_fork_of_its_own(root, tmp_path):
    """Every lane is served by one server, whose imports are made once, while its creator goes on."""
    from engine.run.forkserver import ForkServer

    server = ForkServer(root)
    try:
        assert not server.ready()  # it is still importing torch
        calls = [server.submit("tests.engine.test_prefetch", "meet", 60, {"NMB_MEET": str(tmp_path)})
                 for _ in range(2)]
        assert server.forks is True
        assert [call.result().output.split() for call in calls] == [[str(server.process.pid), "2"]] * 2
    finally:
        server.close()


def sleeper():
    Path(os.environ["NMB_MEET"], "pid").write_text(str(os.getpid()))
    time.sleep(120)


ENGINE = """
import sys, time
from pathlib import Path
from engine.run.forkserver import ForkServer
server = ForkServer(Path(sys.argv[1]))
server.submit("tests.engine.test_prefetch", "sleeper", 120, {"NMB_MEET": sys.argv[2]})
time.sleep(120)
"""


def test_a_call_dies_with_the_engine_that_asked_for_it(root, tmp_path):
    """A build killed (SIGKILL: no clean-up) leaves no call running: the server sees its stdin end."""
    from engine.run.runner import child_env

    engine = subprocess.Popen([sys.executable, "-c", ENGINE, str(root), str(tmp_path)], cwd=root, env=child_env(root))
    pid_file = tmp_path / "pid"
    try:
        for _ in range(1200):
            if pid_file.exists() and pid_file.read_text():
                break
            time.sleep(0.05)
        pid = int(pid_file.read_text())
    finally:
        engine.kill()
        engine.wait()
    for _ in range(600):
        if not Path(f"/proc/{pid}").exists():
            break
        time.sleep(0.05)
    assert not Path(f"/proc/{pid}").exists(), "the call outlived the engine"


def main_module():
    print(sys.modules["__main__"].__spec__.name)


def test_where_forking_is_not_safe_the_server_starts_a_fresh_interpreter_for_each_call(root, tmp_path):
    """The server's fallback (engine.run.forkserver.start, forks=False): `python -m engine.run.child`, its output
    in the file the request names, its exit status or "timeout" as the reply, its process group killed."""
    from engine.run import forkserver
    from engine.run.runner import child_env

    for call, timeout, status, output in (("main_module", 60, 0, "engine.run.child\n"), ("sleeper", 3, "timeout", "")):
        ours, theirs = socket.socketpair()
        request = {"module": "tests.engine.test_prefetch", "call": call, "output": str(tmp_path / "output"),
                   "timeout": timeout, "env": {"NMB_MEET": str(tmp_path)}}
        ours.sendall((json.dumps(request) + "\n").encode())
        running = forkserver.start(theirs, False, child_env(root), [])
        ended = select.select([running], [], [], timeout)[0]  # as the server waits: for its end or its deadline
        running.end(expired=not ended)
        with ours.makefile(encoding="utf-8") as replies:
            assert json.loads(replies.readline()) == {"status": status}
        ours.close()
        assert (tmp_path / "output").read_text() == output and not Path(f"/proc/{running.pid}").exists()
