"""Lab "trace an op": write experiments/week09-trace/ (TRACE.md, manifest.json) and check it.

Usage: python -m snippets.week09.deliverable [OUT_DIR]
On a machine with a GPU the traces are of CUDA tensors and list the kernels launched.
"""

import tempfile
from pathlib import Path

import torch

from snippets.experiment import cli, has_manifest, print_checklist, read_manifest, write_manifest
from snippets.phase25.theory01.cpu_gemm import build_settings
from snippets.week09.layers import chain, layers

SEED = 0
DEFAULT_OUT = Path("experiments/week09-trace")


def matmul_chain(device: str) -> dict[str, list[str]]:
    """The chain of one torch.matmul on two (64, 64) float32 tensors on `device`."""
    torch.manual_seed(SEED)
    a = torch.randn(64, 64, device=device)
    b = torch.randn(64, 64, device=device)
    blas = f"a BLAS GEMM: BLAS_INFO={build_settings()['BLAS_INFO']}"
    return chain(torch.matmul, (a, b), "aten::mm", "mm.out", blas)


def trace_md(device: str) -> str:
    """TRACE.md: the call chain of a + b and of torch.matmul, layer by layer."""
    torch.manual_seed(SEED)
    sections = [f"# TRACE: a + b and torch.matmul(a, b), layer by layer\n\ntorch {torch.__version__}, device {device}"]
    for title, layers_of_call in (("a + b", layers(device)), ("torch.matmul(a, b)", matmul_chain(device))):
        body = "\n\n".join(f"### {layer}\n\n```text\n" + "\n".join(lines) + "\n```"
                           for layer, lines in layers_of_call.items())
        sections.append(f"## {title}\n\n{body}")
    return "\n\n".join(sections) + "\n"


def write_experiment(out: Path = DEFAULT_OUT, device: str | None = None) -> Path:
    device = device or ("cuda" if torch.cuda.is_available() else "cpu")
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "TRACE.md").write_text(trace_md(device), encoding="utf-8")
    write_manifest(out, SEED, Path(__file__), device=device)
    return out


def check_acceptance(out: Path) -> dict[str, bool]:
    """The lab's deliverable, checked on the folder."""
    text = (out / "TRACE.md").read_text(encoding="utf-8")
    backend = "CUDA" if read_manifest(out)["device"] == "cuda" else "CPU"
    return {
        "TRACE.md documents a + b and torch.matmul": "## a + b" in text and "## torch.matmul(a, b)" in text,
        "a + b reaches aten.add.Tensor, matmul reaches aten.mm": "aten.add.Tensor" in text and "aten.mm.default" in text,
        f"both chains end at a {backend} kernel row": text.count(f"\n{backend} ") >= 2,
        "the autograd key is visited before the backend key": text.index(f"Autograd{backend}") < text.index(f"\n{backend} "),
        "manifest has torch version, seed, timestamp and code hash": has_manifest(out),
    }


def main():
    with tempfile.TemporaryDirectory() as tmp:
        out = write_experiment(Path(tmp) / DEFAULT_OUT.name)
        print(f"wrote {sorted(p.name for p in out.iterdir())}; TRACE.md's outline:\n")
        for line in (out / "TRACE.md").read_text(encoding="utf-8").splitlines():
            if line.startswith("#"):
                print(f"{'    ' * (line.count('#', 0, 3) - 1)}{line.lstrip('# ')}")
        print()
        print_checklist(check_acceptance(out))


def claim_checked(main):
    """#lab-step-6: the folder written here passes every check."""
    return main.count("[x]") == 5 and "[ ]" not in main


if __name__ == "__main__":
    cli(write_experiment, DEFAULT_OUT)
