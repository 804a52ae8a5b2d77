"""Lab 00, hello CUDA: the checks pass here, and each missing piece fails with a sentence and status 1."""

import json
import sys

from snippets.phase24.lab00 import deliverable, hello_cuda
from snippets.phase24.lab00.missing_toolchain import run_without_toolchain


def test_toolchain_passes_on_this_machine(capsys):
    assert hello_cuda.main() == 0
    out = capsys.readouterr().out
    import torch
    import triton

    assert torch.__version__ in out and triton.__version__ in out
    assert "interpreter mode" in out or "cuda:" in out
    assert out.rstrip().endswith("all checks passed")


def test_missing_triton_says_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "triton", None)  # import triton now raises ImportError
    check = hello_cuda.check_triton()
    assert not check.ok and "pip install triton" in check.fix


def test_missing_compiler_says_what_to_install(monkeypatch):
    monkeypatch.setattr(hello_cuda.shutil, "which", lambda name: None)
    check = hello_cuda.check_compiler()
    assert not check.ok and "g++" in check.fix


def test_no_gpu_and_no_interpreter_says_what_to_do(monkeypatch):
    monkeypatch.delenv("TRITON_INTERPRET", raising=False)
    monkeypatch.setattr("torch.cuda.is_available", lambda: False)
    check = hello_cuda.check_device()
    assert not check.ok and "TRITON_INTERPRET=1" in check.fix


def test_a_failed_check_makes_main_return_1(monkeypatch, capsys):
    missing = hello_cuda.Check("triton", False, "not installed", "Install Triton: `pip install triton`.")
    monkeypatch.setattr(hello_cuda, "check_triton", lambda: missing)
    assert hello_cuda.main() == 1
    out = capsys.readouterr().out
    assert "[MISSING] triton" in out and "Install Triton" in out and "] Triton kernel" not in out


def test_command_exits_1_without_toolchain():
    status, output = run_without_toolchain()
    assert status == 1
    assert "apt-get install g++" in output and "TRITON_INTERPRET=1" in output
    assert "3 check(s) failed" in output


def test_deliverable_writes_checks_and_manifest(tmp_path):
    out, passed = deliverable.write_experiment(tmp_path / "24-hello-cuda")
    assert passed
    checks = json.loads((out / "checks.json").read_text())
    assert [c["name"] for c in checks][-1] == "Triton kernel" and all(c["ok"] for c in checks)
    manifest = json.loads((out / "manifest.json").read_text())
    assert {"torch", "seed", "timestamp", "code_hash"} <= manifest.keys() and manifest["all_checks_passed"]
