"""A cache that heals: entries are written whole or not at all, and one that cannot be read is a miss."""

import json
import os
import resource
import signal
import subprocess
import sys

from tests.engine.sandbox import Sandbox, include
from tests.website.support import BUILD_FIXTURE

BIG = "def main():\n    for i in range(1500):\n        print(str(i).rjust(1000, '.'))\n"  # a 1.5 MB entry
SMALL = "def main():\n    print({!r})\n"


def sandbox_of(tmp_path, snippets: dict[str, str]) -> Sandbox:
    """A sandbox whose one page shows each of `snippets` (file name -> source)."""
    sandbox = Sandbox(tmp_path)
    for name, source in snippets.items():
        sandbox.snippet(name, source)
    sandbox.page("index", "".join(include(name) for name in snippets))
    return sandbox


def executed(sandbox) -> list[str]:
    return json.loads((sandbox.path / ".cache" / "last-build.json").read_text())["executed"]


def entries(sandbox) -> list:
    return sorted((sandbox.path / ".cache" / "snippets").glob("*.json"))


# Loaded by the build's Python (sitecustomize): the moment it opens a file in the snippet cache for
# writing, it is killed, as a build stopped by Ctrl-C, the OOM killer or a CI timeout would be.
KILL_ON_WRITE = """
import os, signal, sys

def kill_on_write(event, args):
    if event == "open" and isinstance(args[0], str) and "/.cache/snippets/" in args[0]:
        mode, flags = args[1] or "", args[2] or 0
        if "w" in mode or "a" in mode or flags & (os.O_WRONLY | os.O_RDWR):
            os.kill(os.getpid(), signal.SIGKILL)

sys.addaudithook(kill_on_write)
"""


def test_build_killed_mid_write_leaves_no_entry_and_the_next_build_runs_the_call(tmp_path, tmp_path_factory):
    sandbox = sandbox_of(tmp_path, {"small.py": SMALL.format("the entry's output")})
    hook = tmp_path_factory.mktemp("hook")
    (hook / "sitecustomize.py").write_text(KILL_ON_WRITE)
    killed = sandbox.build(env={"PYTHONPATH": str(hook)})
    assert killed.returncode == -signal.SIGKILL, killed.log
    assert entries(sandbox) == []  # the file being written never took the entry's name
    healed = sandbox.build()
    assert healed.returncode == 0, healed.log
    assert executed(sandbox) == ["snippets.small.main"]
    assert "the entry's output" in healed.page("en")


def limit_file_size():
    """In the build: a write past 1 MB fails (EFBIG), halfway through the 1.5 MB entry, as on a full disk."""
    resource.setrlimit(resource.RLIMIT_FSIZE, (1 << 20, 1 << 20))


def test_full_disk_mid_write_fails_the_build_and_leaves_no_entry(tmp_path):
    sandbox = sandbox_of(tmp_path, {"big.py": BIG})
    full = sandbox.build(preexec_fn=limit_file_size)
    assert full.returncode != 0 and "File too large" in full.log, full.log
    assert list((sandbox.path / ".cache" / "snippets").iterdir()) == []  # nor a temporary file
    healed = sandbox.build()
    assert healed.returncode == 0, healed.log
    assert executed(sandbox) == ["snippets.big.main"]


DAMAGES = {"truncated": lambda text: text[: len(text) // 2].encode(), "empty": lambda text: b"",
           "not an object": lambda text: b"[1, 2]", "not text": lambda text: b"\xff\xfe\x00"}


def test_unreadable_entries_are_misses_each_said_in_one_line(tmp_path):
    """One entry damaged each way; the next build runs those calls again and names each entry once."""
    sandbox = sandbox_of(tmp_path, {f"entry{number}.py": SMALL.format(f"entry {number}") for number in range(len(DAMAGES))})
    assert sandbox.build().returncode == 0
    texts = {entry: entry.read_text() for entry in entries(sandbox)}
    for entry, damage in zip(texts, DAMAGES.values()):
        entry.write_bytes(damage(texts[entry]))
    healed = sandbox.build()
    assert healed.returncode == 0, healed.log
    calls = [f"snippets.entry{number}.main" for number in range(len(DAMAGES))]
    assert sorted(executed(sandbox)) == calls
    lines = [line for line in healed.log.splitlines() if "cache entry" in line]
    assert len(lines) == len(DAMAGES), healed.log
    assert sorted(next(entry.name for entry in texts if entry.name in line) for line in lines) == sorted(e.name for e in texts)
    assert sorted(next(f"{call}()" for call in calls if f"{call}()" in line) for line in lines) == [f"{c}()" for c in calls]
    assert all(json.loads(entry.read_text())["output"] == json.loads(text)["output"] for entry, text in texts.items())


def test_a_build_keeps_only_the_entries_it_used(tmp_path):
    """The cache does not grow: an output no page shows any more, and any other entry no build used, is
    removed by the next build, which keeps (and does not run again) what its pages show."""
    sandbox = sandbox_of(tmp_path, {"kept.py": SMALL.format("kept"), "dropped.py": SMALL.format("dropped")})
    assert sandbox.build().returncode == 0 and len(entries(sandbox)) == 2
    stray = sandbox.path / ".cache" / "snippets" / "0123456789abcdef01234567.json"
    stray.write_text(json.dumps({"output": "of code long gone\n"}))
    sandbox.page("index", include("kept.py"))
    build = sandbox.build()
    assert build.returncode == 0, build.log
    assert executed(sandbox) == [] and len(entries(sandbox)) == 1 and "kept" in entries(sandbox)[0].read_text()
    assert "2 cache entries that this build did not use removed" in build.log



def test_a_build_of_other_pages_removes_nothing(tmp_path):
    """A build of other pages with the course's configuration (the tests' fixture site, built beside the
    course's) keeps every entry: only a whole build of the course knows what the course needs."""
    sandbox = sandbox_of(tmp_path, {"kept.py": SMALL.format("kept")})
    assert sandbox.build().returncode == 0 and len(entries(sandbox)) == 1
    other = tmp_path / "other-docs"
    other.mkdir()
    (other / "index.md").write_text("# Other\n\nNo snippet here.\n")
    (other / "index.es.md").write_text("# Otra\n\nAquí no hay ningún snippet.\n")
    build = subprocess.run([sys.executable, "-c", BUILD_FIXTURE, str(sandbox.path / "mkdocs.yml"), str(other),
                            str(tmp_path / "other-site")], cwd=sandbox.path, capture_output=True, text=True,
                           timeout=120, env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    assert build.returncode == 0, build.stdout + build.stderr
    assert len(entries(sandbox)) == 1, build.stdout + build.stderr
