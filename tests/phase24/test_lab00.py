"""Lab 00, hello CUDA: the checks pass here, each missing piece fails with a sentence and status 1, the
exercises' solutions hold, and the page opens and closes as the course's pages do."""

import json
import sys
from pathlib import Path

import pytest
import torch

from engine.source.sources import closure, source_hash
from snippets.experiment import ROOT
from snippets.phase24.lab00 import deliverable, exercises, hello_cuda
from tests.deliverables import doubled, validated
from tests.reading_order import follows_the_reading_order

PAGES = sorted((ROOT / "docs" / "phase-24" / "lab").glob("00-hello-cuda*.md"))


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
    """(The checks passing, and three failing in a real run, are the build's claims on the page's outputs.)"""
    missing = hello_cuda.Check("triton", False, "not installed", "Install Triton: `pip install triton`.")
    monkeypatch.setattr(hello_cuda, "check_triton", lambda: missing)
    monkeypatch.setattr(hello_cuda, "check_compiled", lambda: hello_cuda.Check("torch.compile", True, "not run here"))
    assert hello_cuda.main() == 1
    out = capsys.readouterr().out
    assert "[MISSING] triton" in out and "Install Triton" in out and "] Triton kernel" not in out


def test_deliverable_writes_checks_and_manifest(tmp_path):
    out, passed = deliverable.write_experiment(tmp_path / "24-hello-cuda")
    assert passed
    checks = json.loads((out / "checks.json").read_text())
    assert [c["name"] for c in checks][-1] == "Triton kernel" and all(c["ok"] for c in checks)
    manifest = json.loads((out / "manifest.json").read_text())
    assert {"torch", "seed", "timestamp", "code_hash"} <= manifest.keys() and manifest["all_checks_passed"]
    validated("phase24/lab00", out, tmp_path,
              ("checks.json", r'"detail": "a @ a.T on \w+ = \[\[(\d+\.\d+)', doubled,
               "the product checks.json's tensor op shows is '[[10, 14.0], [14.0, 50.0]]', expected '[[5.0, 14.0]"),
              ("manifest.json", r'"all_checks_passed": true', lambda m: '"all_checks_passed": false',
               "manifest.json's all_checks_passed is False, expected True (whether every entry of checks.json is ok)"))


def test_exact_comparison_holds_for_arange_only():
    a = torch.arange(6.0).reshape(2, 3)
    assert (a @ a.T).tolist() == exercises.python_products(a.tolist())
    r = torch.randn(2, 3, generator=torch.Generator().manual_seed(0))
    assert (r @ r.T).tolist() != exercises.python_products(r.tolist())
    assert torch.allclose(r @ r.T, torch.tensor(exercises.python_products(r.tolist())), atol=1e-6)


def test_minigpt_check_passes_and_fails_with_its_sentence(monkeypatch):
    check = exercises.check_minigpt()
    assert check.ok and "(8, 32, 600)" in check.detail

    def missing():
        raise FileNotFoundError("grammar_minigpt.pt")

    monkeypatch.setattr(exercises, "load_pretrained", missing)
    failed = exercises.check_minigpt()
    assert not failed.ok and "FileNotFoundError" in failed.detail and "grammar_minigpt.pt" in failed.fix


def test_code_hash_follows_content_not_location():
    here = source_hash(ROOT, Path(deliverable.__file__))
    assert exercises.hash_of_a_copy() == here
    assert exercises.hash_of_a_copy(("triton_add.py", "# a comment\n")) != here
    assert exercises.hash_of_a_copy(("hello_cuda.py", "\n")) != here
    names = [f.name for f in closure(ROOT, Path(deliverable.__file__))]
    assert {"deliverable.py", "hello_cuda.py", "triton_add.py", "experiment.py"} <= set(names)


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_page_opens_with_before_closes_with_previous_and_next(page):
    text = page.read_text(encoding="utf-8")
    assert follows_the_reading_order(text, "(../theory/04-pytorch-as-substrate.md)", "(../theory/02-triton-primer.md)")
    assert text.count('??? success') == 8  # four worked parts, four exercises
