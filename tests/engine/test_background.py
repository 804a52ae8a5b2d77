"""`mkdocs serve` on a cold cache serves its pages at once: an output still running says so, and the
page shows it once the background run has made it; `mkdocs build` still runs everything first."""

import os
import subprocess
import sys
import time

from engine.bench import fetch, free_port
from tests.engine.sandbox import Sandbox, include

SLOW = """
import time

def main():
    time.sleep(6)
    print("the slow output")
"""


PID = """
import os
import time
from pathlib import Path

def main():
    Path("background.pid").write_text(str(os.getpid()))
    time.sleep(120)
"""


def serve(sandbox) -> tuple[subprocess.Popen, str]:
    """`mkdocs serve --dirty --livereload` on the sandbox, as `make serve` runs it, and its address."""
    port = free_port()
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    process = subprocess.Popen([sys.executable, "-m", "mkdocs", "serve", "--dirty", "--livereload", "-f",
                                str(sandbox.path / "mkdocs.yml"), "--dev-addr", f"127.0.0.1:{port}"],
                               cwd=sandbox.path, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return process, f"http://127.0.0.1:{port}/"


def wait_for(condition, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.5)
    return False


def test_serve_shows_pages_before_their_outputs_exist(tmp_path):
    sandbox = Sandbox(tmp_path)
    sandbox.snippet("slow.py", SLOW)
    sandbox.page("index", include("slow.py"))
    server, english = serve(sandbox)
    spanish = english + "es/"
    try:
        assert wait_for(lambda: fetch(english), 90), "no page served"
        first = fetch(english)
        assert "Still running" in first and "the slow output" not in first
        assert "Ejecutándose" in fetch(spanish)
        assert wait_for(lambda: "the slow output" in fetch(english) and "the slow output" in fetch(spanish), 90)
        assert "Still running" not in fetch(english)
    finally:
        server.terminate()
        log = server.communicate(timeout=30)[0]
    assert "they run in the background" in log and "background run has ended (exit status 0)" in log, log


def test_the_background_run_yields_to_serve_and_stops_with_it(tmp_path):
    sandbox = Sandbox(tmp_path)
    sandbox.snippet("waits.py", PID)
    sandbox.page("index", include("waits.py"))
    server, address = serve(sandbox)
    pid_file = sandbox.path / "background.pid"
    try:
        assert wait_for(lambda: pid_file.exists() and pid_file.read_text().strip(), 90), "the background run never started the call"
        fields = open(f"/proc/{int(pid_file.read_text())}/stat").read().rpartition(")")[2].split()
        assert int(fields[16]) >= 10, "the background run should yield the CPU to serve's rebuilds (nice 10)"
    finally:
        server.kill()  # no chance to clean up: the kernel tells the background run
        server.communicate(timeout=30)
    pid = int(pid_file.read_text())
    assert wait_for(lambda: not os.path.exists(f"/proc/{pid}") or "Z" in open(f"/proc/{pid}/stat").read().split()[2], 30)
