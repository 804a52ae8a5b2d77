"""Solutions of lab 00's exercises, each one run: when the interpreter must be switched on,
why the tensor-op check can compare exactly, a check of your own, and what the manifest's code
hash covers."""

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import torch

from engine import closure, source_hash
from snippets.experiment import ROOT
from snippets.minigpt.torch_model import load_pretrained, sample_batch
from snippets.phase24.lab00 import deliverable
from snippets.phase24.lab00.hello_cuda import Check, device
from snippets.phase24.lab00.switch_moment import MOMENTS

TIMEOUT = 600  # four fresh interpreters, each importing torch and triton
LAB = Path(deliverable.__file__).parent


def launch_at(moments: tuple[str, ...]) -> dict[str, str]:
    """Per moment, what the add kernel returns, or the last line of its error: each in a
    fresh process started without TRITON_INTERPRET, all side by side."""
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    command = [sys.executable, "-m", "snippets.phase24.lab00.switch_moment"]
    children = {moment: subprocess.Popen(command + [moment], env=env, cwd=ROOT, text=True,
                                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
                for moment in moments}
    results = {}
    for moment, child in children.items():
        out, err = child.communicate(timeout=300)
        results[moment] = out.strip() if child.returncode == 0 else err.strip().splitlines()[-1]
    return results


def when_to_switch():
    for moment, result in launch_at(MOMENTS).items():
        print(f"{moment:<28} {result}")


def python_products(rows: list[list[float]]) -> list[list[float]]:
    """a @ a.T in Python floats: every product and sum in double precision."""
    return [[sum(x * y for x, y in zip(r, s)) for s in rows] for r in rows]


def exact_or_close():
    """Exercise 2: the tensor-op check's a @ a.T against the Python products, on arange and on randn."""
    generator = torch.Generator().manual_seed(0)
    for name, a in (("arange(6.0)", torch.arange(6.0).reshape(2, 3)),
                    ("randn(2, 3)", torch.randn(2, 3, generator=generator))):
        product, expected = (a @ a.T).tolist(), python_products(a.tolist())
        gap = max(abs(p - e) for row, e_row in zip(product, expected)
                  for p, e in zip(row, e_row))
        close = torch.allclose(a @ a.T, torch.tensor(expected), atol=1e-6)
        print(f"{name}: equal {product == expected}, largest gap {gap:.1e}, "
              f"allclose {close}")


def check_minigpt() -> Check:
    """The grammar MiniGPT with its shipped weights runs one batch on the device."""
    try:
        model = load_pretrained().to(device())
        with torch.no_grad():
            logits = model(sample_batch(8, 32, seed=0).to(device()))
    except Exception as error:  # missing weights, a device the model cannot use
        return Check("MiniGPT", False, f"{type(error).__name__}: {str(error)[:200]}",
                     "The MiniGPT did not run: is snippets/minigpt/grammar_minigpt.pt there?")
    ok = logits.shape == (8, 32, 600) and bool(logits.isfinite().all())
    detail = f"logits {tuple(logits.shape)} on {logits.device.type}, " + (
        "all finite" if ok else "wrong shape or not finite")
    return Check("MiniGPT", ok, detail,
                 "" if ok else "The MiniGPT gave wrong logits: rerun theory 04's port check.")


def my_check():
    check = check_minigpt()
    print(f"[{'ok' if check.ok else 'MISSING':7}] {check.name:14} {check.detail}")


def hash_of_a_copy(append: tuple[str, str] | None = None) -> str:
    """The deliverable's code hash, computed on a copy of its files in another folder;
    `append` = (a file of the lab, text added at its end)."""
    with tempfile.TemporaryDirectory() as tmp:
        copy_root = Path(tmp)
        for file in closure(ROOT, Path(deliverable.__file__)):
            copy = copy_root / file.relative_to(ROOT)
            copy.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(file, copy)
        lab = copy_root / LAB.relative_to(ROOT)
        if append is not None:
            name, text = append
            (lab / name).write_text((lab / name).read_text(encoding="utf-8") + text,
                                    encoding="utf-8")
        return source_hash(copy_root, lab / "deliverable.py")


def what_the_hash_covers():
    files = closure(ROOT, Path(deliverable.__file__))
    print(f"code_hash covers {len(files)} files:")
    for file in files:
        print("  " + str(file.relative_to(ROOT)))
    here = source_hash(ROOT, Path(deliverable.__file__))
    for label, append in (("a copy of them in another folder", None),
                          ("the copy, with a comment added to triton_add.py",
                           ("triton_add.py", "# a comment\n"))):
        same = hash_of_a_copy(append) == here
        print(f"{label}: {'same hash' if same else 'different hash'}")


def claim_set_before_the_kernel_is_defined(when_to_switch):
    """#exercises: the launch runs when the variable is set before the kernel is defined, imported Triton or not, and fails with 0 active drivers when set after (or never)."""
    moments = ("never", "before import triton", "after import triton", "after the kernel is defined")
    result = {moment: when_to_switch.line(moment) for moment in moments}
    return (all("[0.0, 2.0, 4.0, 6.0]" in result[m] for m in ("before import triton", "after import triton"))
            and all("0 active drivers" in result[m] for m in ("never", "after the kernel is defined")))


def claim_random_floats_differ_by_a_rounding_step(exact_or_close):
    """#exercises: with random floats == fails by about one float32 rounding step; arange's products are exact; both are close."""
    gap = exact_or_close.number("randn(2, 3)")
    return ("arange(6.0): equal True, largest gap 0.0e+00, allclose True" in exact_or_close
            and "randn(2, 3): equal False" in exact_or_close and 1e-8 < gap < 1e-6
            and exact_or_close.line("randn").endswith("allclose True"))


def claim_minigpt_check_passes(my_check):
    """#exercises: the MiniGPT check passes: finite logits of the right shape on the device."""
    return my_check.text.startswith("[ok     ] MiniGPT") and "(8, 32, 600)" in my_check and "all finite" in my_check


def claim_seven_files_copy_same_edit_different(what_the_hash_covers):
    """#exercises: seven files, triton_add.py among them; a copy elsewhere gets the same hash, a comment gives another."""
    out = what_the_hash_covers
    return ("covers 7 files" in out and "  snippets/phase24/lab00/triton_add.py" in out
            and out.line("another folder").endswith("same hash") and out.line("a comment").endswith("different hash"))
