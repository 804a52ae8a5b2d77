"""Every way a snippet can break must fail the build, naming language, page and snippet."""

import json
import time

import pytest

from engine.gpu import recordings
from tests.engine.sandbox import Sandbox, include


@pytest.fixture
def sandbox(tmp_path):
    return Sandbox(tmp_path)


def assert_fails(build, *needles):
    assert build.returncode != 0, build.log
    for needle in needles:
        assert needle in build.log, f"{needle!r} not in:\n{build.log}"


def test_exception_fails_strict_and_plain_builds(sandbox):
    sandbox.snippet("boom.py", "def main():\n    print('before')\n    1 / 0\n")
    sandbox.page("index", include("boom.py"))
    for strict in (True, False):
        assert_fails(sandbox.build(strict=strict), "[en] page index.md", "snippets/boom.py:main()",
                     "ZeroDivisionError", "before")


def test_sys_exit_zero_fails(sandbox):
    sandbox.snippet("quits.py", "import sys\ndef main():\n    sys.exit(0)\n")
    sandbox.page("index", include("quits.py"))
    assert_fails(sandbox.build(), "snippets/quits.py:main()", "sys.exit(0)")


def test_hang_in_process_times_out(sandbox):
    sandbox.snippet("spins.py", "TIMEOUT = 1\ndef main():\n    while True:\n        pass\n")
    sandbox.page("index", include("spins.py"))
    assert_fails(sandbox.build(), "snippets/spins.py:main()", "timed out after 1 s")


def test_hang_in_child_is_killed(sandbox):
    sandbox.snippet("sleeps.py", """
        import subprocess, sys, time
        ISOLATE = True
        TIMEOUT = 2
        def main():
            subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
            time.sleep(60)
    """)
    sandbox.page("index", include("sleeps.py"))
    start = time.monotonic()
    assert_fails(sandbox.build(), "snippets/sleeps.py:main()", "timed out after 2 s", "process group killed")
    assert time.monotonic() - start < 50


def test_missing_snippet_file(sandbox):
    sandbox.page("index", include("nowhere.py"))
    assert_fails(sandbox.build(), "[en] page index.md", "missing snippet file: snippets/nowhere.py")


def test_missing_part(sandbox):
    sandbox.snippet("parts.py", "def main():\n    pass\n")
    sandbox.page("index", include("parts.py", part="absent"))
    assert_fails(sandbox.build(), "no top-level function or class named 'absent'")


def test_missing_and_stale_recordings(sandbox):
    file = sandbox.snippet("gpu.py", 'DEVICES = ("cuda",)\ndef main():\n    print("on a GPU")\n')
    sandbox.page("index", include("gpu.py"))
    assert_fails(sandbox.build(), "no GPU recording of snippets/gpu.py:main()", "make record")
    recordings.save(sandbox.path, file, "main", "on a GPU\n",
                    {"gpu": "Test GPU", "torch": "x", "triton": "y", "cuda": "z", "python": "3", "date": "2026-01-02"})
    good = sandbox.build()
    assert good.returncode == 0, good.log
    assert "recorded on Test GPU" in good.page("en").replace("Output recorded", "recorded")
    file.write_text(file.read_text() + "# changed\n")
    assert_fails(sandbox.build(), "GPU recording of snippets/gpu.py:main() is stale", "make record")


def test_missing_translation(sandbox):
    sandbox.snippet("ok.py", "def main():\n    print('fine')\n")
    sandbox.page("index", include("ok.py"))
    sandbox.page("other", "Text.\n", translate=False)
    assert_fails(sandbox.build(), "missing translation", "other.es.md is missing")


def test_exec_block_other_than_a_snippet_call(sandbox):
    sandbox.page("index", '```python exec="1"\nimport sys; sys.exit(0)\n```\n')
    assert_fails(sandbox.build(), "[en] page index.md", "exactly print(snippet(...))")


def test_malformed_fence_options(sandbox):
    sandbox.snippet("ok.py", "def main():\n    print('fine')\n")
    sandbox.page("index", '```python exec="on" workdir="nowhere"\nprint(snippet("ok.py"))\n```\n')
    assert_fails(sandbox.build(), "[en] page index.md", 'open exactly as ```python exec="1"')


def test_outputs_modules_sharing_and_cache(sandbox):
    sandbox.snippet("helper.py", """
        import sys
        def shout(text):
            print(text)
            print("to stderr", file=sys.stderr)
    """)
    sandbox.snippet("real.py", """
        import os, pickle
        from snippets.helper import shout
        COUNTER = os.path.join(os.path.dirname(__file__), "runs.txt")
        def square(v):
            return v * v
        def main():
            with open(COUNTER, "a") as f:
                f.write("run\\n")
            shout(f"name={__name__} file={os.path.basename(__file__)}")
            print("pickled:", pickle.loads(pickle.dumps(square)) is square)
    """)
    sandbox.snippet("native.py", """
        import os
        ISOLATE = True
        def main():
            print("python print")
            os.write(1, b"written to fd 1\\n")
            os.write(2, b"written to fd 2\\n")
    """)
    sandbox.snippet("profiled.py", """
        import torch
        from torch.profiler import profile
        def main():
            with profile() as prof:
                torch.ones(2) + 1
            print("profiled ops:", len(prof.key_averages()) > 0)
    """)
    sandbox.page("index", include("real.py") + include("native.py") + include("profiled.py"))
    first = sandbox.build()
    assert first.returncode == 0, first.log
    for lang in ("en", "es"):
        html = first.page(lang)
        for text in ("name=snippets.real file=real.py", "to stderr", "pickled: True",
                     "written to fd 1", "written to fd 2", "python print", "profiled ops: True"):
            assert text in html, (lang, text)
    assert "USDT" not in first.log, first.log  # the profiler's library says nothing in the build's own output
    assert (sandbox.path / "snippets" / "runs.txt").read_text() == "run\n"  # once for both languages
    stats = sandbox.path / ".cache" / "last-build.json"
    assert sorted(json.loads(stats.read_text())["executed"]) == ["snippets.native.main", "snippets.profiled.main",
                                                                 "snippets.real.main"]

    second = sandbox.build()
    assert second.returncode == 0 and json.loads(stats.read_text())["executed"] == []

    helper = sandbox.path / "snippets" / "helper.py"
    helper.write_text(helper.read_text() + "\n# an edit to an imported module\n")
    third = sandbox.build()
    assert third.returncode == 0 and json.loads(stats.read_text())["executed"] == ["snippets.real.main"]
