"""`make record` refuses the wrong machine and the wrong output: checked without a GPU, on a sandbox
project whose "CUDA" snippets only print, with the machine's description faked."""

import json
import subprocess
import sys

import pytest
import torch

from engine.gpu import record, recordings
from engine.run.runner import child_env
from engine.source.sources import Declarations
from tests.engine.sandbox import Sandbox, include

ONE_H100 = {"gpu": "NVIDIA H100", "gpu_count": "1", "gpu_memory_gib": "79.2", "torch": "2.11", "triton": "3.6",
            "cuda": "13.0", "python": "3.12", "date": "2026-11-24"}
TWO_H200 = dict(ONE_H100, gpu="NVIDIA H200", gpu_count="2", gpu_memory_gib="139.8", date="2026-11-22")
SNIPPETS = {
    "fine.py": 'DEVICES = ("cuda",)\ndef main():\n    print("a kernel ran")\n',
    "two_gpus.py": 'DEVICES = ("cuda",)\nGPUS = 2\ndef main():\n    print("both GPUs talked")\n',
    "ordinal.py": 'DEVICES = ("cuda",)\ndef main():\n    print("DDP did not finish on NCCL: rank 1: CUDA error: invalid device ordinal")\n',
    "oom.py": 'DEVICES = ("cuda",)\ndef main():\n    raise MemoryError("CUDA out of memory. Tried to allocate 2.00 GiB")\n',
    "big_memory.py": 'DEVICES = ("cuda",)\ndef main():\n    print("a large model fits")\n',
}


@pytest.fixture
def project(tmp_path, monkeypatch):
    sandbox = Sandbox(tmp_path)
    for name, code in SNIPPETS.items():
        sandbox.snippet(name, code)
    sandbox.page("index", "".join(include(name) for name in SNIPPETS))
    for name in ("two_gpus.py", "big_memory.py"):
        path = tmp_path / "snippets" / name
        recordings.save(tmp_path, path, "main", "made on two H200s\n", TWO_H200)
    monkeypatch.setattr(record, "ROOT", tmp_path)
    monkeypatch.setattr(record, "provenance", lambda: dict(ONE_H100))
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    return tmp_path


def recorded(project, name):
    file = project / "snippets" / "recordings" / f"{name}.main.json"
    return json.loads(file.read_text()) if file.exists() else None


def test_one_gpu_machine_records_only_what_it_may(project, capsys):
    before = {name: recorded(project, name) for name in ("two_gpus", "big_memory")}
    assert record.main(["--all", "--jobs", "2"]) == 1  # two outputs refused
    out = capsys.readouterr().out
    assert "calls run as forks of a server that has imported torch" in out  # no CUDA driver here
    assert "skipped snippets.two_gpus.main(): needs 2 GPUs (GPUS = 2), this machine has 1" in out
    assert "skipped snippets.big_memory.main(): the recording was made on NVIDIA H200 with 139.8 GiB" in out
    assert {name: recorded(project, name) for name in before} == before  # left as they were
    assert "snippets.ordinal.main()" in out and "environment failing (DDP did not finish" in out
    assert "snippets.oom.main()" in out and "CUDA out of memory" in out
    assert recorded(project, "ordinal") is None and recorded(project, "oom") is None
    assert recorded(project, "fine")["output"] == "a kernel ran\n"
    assert recorded(project, "fine")["provenance"] == ONE_H100
    assert "1 recorded, 2 not, 2 skipped" in out


def test_an_engine_error_in_a_lane_is_counted_as_not_recorded(project, monkeypatch, capsys):
    def full_disk(*args):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(recordings, "save", full_disk)
    assert record.main(["--all", "--only", "fine"]) == 1
    out = capsys.readouterr().out
    assert "snippets.fine.main()" in out and "ENGINE ERROR" in out and "No space left on device" in out
    assert "0 recorded, 1 not" in out


def test_two_gpu_machine_records_the_two_gpu_snippet(project, monkeypatch, capsys):
    monkeypatch.setattr(record, "provenance", lambda: dict(TWO_H200))
    assert record.main(["--all", "--only", "two_gpus"]) == 0
    assert "recorded snippets.two_gpus.main()" in capsys.readouterr().out
    assert recorded(project, "two_gpus")["output"] == "both GPUs talked\n"


def test_a_recording_that_a_page_shows_folded_is_recorded_too(tmp_path, monkeypatch, capsys):
    """A page may show a CUDA snippet's code alone and its recording through a snippet that reads it (INPUTS,
    as lab 03 folds long lines): `make record` finds that call too, and re-records it once its source changes."""
    sandbox = Sandbox(tmp_path)
    demo = sandbox.snippet("demo.py", 'DEVICES = ("cuda",)\ndef main():\n    print("a kernel ran")\n')
    sandbox.snippet("demo_folded.py", 'INPUTS = ("recordings/demo.main.json",)\ndef main():\n    print("folded")\n')
    sandbox.page("index", include("demo.py", call=None) + include("demo_folded.py", show="output"))
    monkeypatch.setattr(record, "ROOT", tmp_path)
    assert record.cuda_calls(tmp_path) == [(demo.resolve(), "main")]
    recordings.save(tmp_path, demo, "main", "a kernel ran\n", ONE_H100)
    assert record.main(["--dry-run"]) == 0
    assert capsys.readouterr().out == "0 recording(s) to make\n"
    demo.write_text(demo.read_text() + "# changed\n")
    assert record.main(["--dry-run"]) == 0
    assert capsys.readouterr().out == "1 recording(s) to make\n  snippets.demo.main()\n"


@pytest.mark.parametrize("line", [
    "RuntimeError: CUDA error: invalid device ordinal",
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB",
    "torch.distributed.DistBackendError: NCCL error in: ProcessGroupNCCL.cpp:1",
    "rank 1 never started",
    "PP GPipe did not finish on NCCL: rank 0: stuck in recv",
    "RuntimeError: CUDA error: device-side assert triggered",
])
def test_environment_failures_are_recognised(line):
    assert record.environment_failure(f"a first line\n{line}\nmore\n") == line


def test_ordinary_outputs_are_not_failures():
    for name in sorted((record.ROOT / "snippets" / "recordings").glob("*.json")):
        assert record.environment_failure(json.loads(name.read_text())["output"]) is None, name


def test_more_capable_recordings_are_kept_while_current():
    one, two = Declarations(), Declarations(gpus=2)
    assert record.lacking(two, ONE_H100, None) == "needs 2 GPUs (GPUS = 2), this machine has 1"
    assert record.lacking(one, ONE_H100, TWO_H200).startswith("the recording was made on NVIDIA H200 with 139.8 GiB")
    assert record.lacking(two, TWO_H200, dict(TWO_H200, gpu_count="4")) is None  # the call uses two of them
    assert record.lacking(one, TWO_H200, ONE_H100) is None
    assert record.lacking(one, ONE_H100, dict(ONE_H100, gpu_memory_gib="80.0")) is None  # within 5%
    assert record.lacking(one, ONE_H100, {"gpu": "old", "gpu_count": "1"}) is None  # no memory recorded then


def test_a_stale_recording_is_replaced_by_any_machine_that_meets_what_the_snippet_declares():
    assert record.lacking(Declarations(), ONE_H100, TWO_H200, stale=True) is None
    big = Declarations(gpu_memory_gib=100)
    assert record.lacking(big, ONE_H100, TWO_H200, stale=True) == (
        "needs 100 GiB per GPU (GPU_MEMORY_GIB), this machine's NVIDIA H100 has 79.2 GiB")
    assert record.lacking(Declarations(gpus=2), ONE_H100, TWO_H200, stale=True).startswith("needs 2 GPUs")


def test_a_stale_recording_made_on_a_larger_gpu_is_re_recorded(project, capsys):
    big = project / "snippets" / "big_memory.py"
    big.write_text(big.read_text() + "# changed: its recording is stale now\n")
    assert record.main(["--only", "big_memory"]) == 0
    assert "recorded snippets.big_memory.main()" in capsys.readouterr().out
    assert recorded(project, "big_memory")["provenance"]["gpu"] == "NVIDIA H100"


FLIPPING = """DEVICES = ("cuda",)
import time
from pathlib import Path

def main():
    started = time.perf_counter()
    runs = Path(__file__).with_suffix(".runs")
    runs.write_text(runs.read_text() + "x" if runs.exists() else "x")
    print("ours is 3.0% faster than torch's" if len(runs.read_text()) == 1 else "ours and torch's tie")

def claim_ours_wins(main):
    \"\"\"#bench: ours beats the other.\"\"\"
    return "ours is " in main.line("ours")
"""


def test_a_verdict_that_moves_between_two_runs_is_refused_and_named(tmp_path, monkeypatch, capsys):
    sandbox = Sandbox(tmp_path)
    sandbox.snippet("bench.py", FLIPPING)
    sandbox.snippet("steady.py", FLIPPING.replace("== 1 else", "> 0 else"))
    sandbox.page("index", "## Bench { #bench }\n" + include("bench.py") + include("steady.py"))
    monkeypatch.setattr(record, "ROOT", tmp_path)
    monkeypatch.setattr(record, "provenance", lambda: dict(ONE_H100))
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    assert record.main(["--all"]) == 1
    out = capsys.readouterr().out
    assert "snippets.bench.main()" in out and "NOT RECORDED: a verdict moved between its 2 runs" in out
    assert "claim claim_ours_wins (#bench: 'ours beats the other.') held on run 1 only" in out
    assert recorded(tmp_path, "bench") is None
    assert "recorded snippets.steady.main()" in out and "(2 runs, the same verdicts)" in out
    assert recorded(tmp_path, "steady")["output"] == "ours is 3.0% faster than torch's\n"


PRELOAD = "import itertools; from engine.run import forkserver; forkserver.threads = itertools.count(1).__next__; " \
          "print(forkserver.preload(compiler=False))"


def test_a_server_that_saw_a_thread_start_while_importing_does_not_fork():
    """An initialized CUDA driver runs threads of its own, which a fork could not use: a server that
    saw any native thread start while it imported torch starts fresh interpreters instead."""
    done = subprocess.run([sys.executable, "-c", PRELOAD], cwd=record.ROOT, capture_output=True, text=True,
                          env=child_env(record.ROOT), check=True)
    assert done.stdout.strip() == "False", done.stderr
