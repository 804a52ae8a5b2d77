"""Lab 02's deliverable: the custom op's checks written to an experiment folder.

    python -m snippets.phase25.lab02.deliverable [OUT_DIR]     # default: experiments/lab02-custom-op

Writes checks.json (gradcheck, opcheck, torch.compile), the generated code that calls the op
(generated_forward.py, generated_backward.py) and manifest.json, then checks the folder against the
lab's acceptance list. Without a GPU, the Triton kernels run in the interpreter (TRITON_INTERPRET=1
is set before they are imported).
"""

import json
import os
from importlib.metadata import version
from pathlib import Path

import torch

from snippets.experiment import MANIFEST_KEYS, cli, preview, read_manifest, write_manifest

DEFAULT_DIR = Path("experiments/lab02-custom-op")
SEED = 0
ISOLATE = True  # torch.compile: process-wide state


def checks(device: str) -> tuple[dict, dict[str, str]]:
    """gradcheck, opcheck and torch.compile verdicts, and the generated code by pass."""
    from snippets.phase25.lab02 import compile_demo, gradcheck_demo, opcheck_demo
    from snippets.phase25.lab02.generated import call_function, compile_step

    torch.manual_seed(SEED)
    gradchecks = {f"{shape} fast_mode={fast}": gradcheck_demo.check(shape, fast, device)
                  for shape, fast in (((4, 10), False), ((2, 600), True))}
    opchecks = opcheck_demo.results(device)
    model = compile_demo.Head().to(device)
    x = torch.randn(2, 64, device=device, requires_grad=True)
    explanation = torch._dynamo.explain(model)(x)
    difference, codes = compile_step(model, x)
    generated = {name: call_function(code) for name, code in zip(("forward", "backward"), codes, strict=True)}
    results = {
        "gradcheck": gradchecks,
        "opcheck": opchecks,
        "compile": {
            "fullgraph": True,
            "graphs": explanation.graph_count,
            "graph_breaks": explanation.graph_break_count,
            "max_abs_difference_vs_eager": difference,
            "calls_custom_op": {name: f"torch.ops.nmb.{op}.default(" in code
                                for (name, code), op in zip(generated.items(), ("softmax", "softmax_backward"))},
        },
    }
    return results, generated


def write(folder: Path) -> dict:
    """Run the checks and write the experiment folder; returns the checks."""
    device = "cuda" if torch.cuda.is_available() else "cpu"
    if device == "cpu":
        os.environ.setdefault("TRITON_INTERPRET", "1")
    results, generated = checks(device)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "checks.json").write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    for name, code in generated.items():
        (folder / f"generated_{name}.py").write_text(code + "\n", encoding="utf-8")
    write_manifest(folder, SEED, Path(__file__), lab="phase-25 lab 02: the Triton softmax as a custom op",
                   command="python -m snippets.phase25.lab02.deliverable", triton=version("triton"),
                   device=torch.cuda.get_device_name(0) if device == "cuda" else "cpu (Triton interpreter)")
    return results


def write_experiment(folder: Path = DEFAULT_DIR) -> Path:
    write(Path(folder))
    return Path(folder)


def check_acceptance(folder: Path) -> dict[str, bool]:
    """The lab's acceptance list, checked on the folder."""
    checks = json.loads((folder / "checks.json").read_text(encoding="utf-8"))
    compiled = checks["compile"]
    generated = {name: (folder / f"generated_{name}.py").read_text(encoding="utf-8") for name in ("forward", "backward")}
    return {
        "gradcheck passes in float64, in full on (4, 10) and in fast mode on (2, 600)":
            len(checks["gradcheck"]) == 2 and all(checks["gradcheck"].values()),
        "opcheck reports SUCCESS for all four tests on every sample":
            all(list(v.values()) == ["SUCCESS"] * 4 for v in checks["opcheck"].values()),
        "torch.compile(fullgraph=True): one graph, no break, output and gradients match eager":
            (compiled["graphs"], compiled["graph_breaks"]) == (1, 0) and compiled["max_abs_difference_vs_eager"] < 1e-6,
        "the generated forward calls nmb::softmax, the backward nmb::softmax_backward":
            "torch.ops.nmb.softmax.default(" in generated["forward"]
            and "torch.ops.nmb.softmax_backward.default(" in generated["backward"],
        "manifest has torch and Triton versions, device, seed, timestamp and code hash":
            MANIFEST_KEYS | {"triton", "device"} <= read_manifest(folder).keys(),
    }


def main():
    preview(write_experiment, DEFAULT_DIR, check_acceptance, "checks.json")


if __name__ == "__main__":
    cli(write_experiment, DEFAULT_DIR)


def claim_acceptance_met(main):
    """#deliverable: The same code writes the folder into a temporary directory, prints its checks and ticks every item of the acceptance list."""
    return main.count("[x]") == 5 and "[ ]" not in main
