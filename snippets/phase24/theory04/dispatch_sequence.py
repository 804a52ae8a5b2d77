"""TinyMLP's forward pass as the ops the dispatcher sees: the Python calls above it, the ATen ops below."""

import torch

from snippets.phase24.theory04.tiny_mlp import TinyMLP
from snippets.phase25.lab00.dispatch_log import dispatched_ops, function_calls

DEVICES = ("cpu", "cuda")


def forward_ops(device: str) -> dict[str, list[str]]:
    """Python-level calls and ATen ops of one forward of TinyMLP on (2, 64) inputs, under no_grad."""
    torch.manual_seed(0)
    model = TinyMLP().to(device).eval()
    x = torch.randn(2, 64, device=device)
    with torch.no_grad():
        return {"TorchFunctionMode (Python calls)": function_calls(model, x),
                "TorchDispatchMode (ATen ops)": dispatched_ops(model, x)}


def main():
    device = "cuda" if torch.cuda.is_available() else "cpu"
    print("device:", device)
    for layer, ops in forward_ops(device).items():
        print(f"{layer:34} {', '.join(ops)}")


def claim_linear_is_t_and_addmm(main):
    """#dispatch-sequence: each nn.Linear is one linear call in Python and two ATen ops below, aten.t and aten.addmm; the sequence is the same on both devices."""
    return (main.line("TorchFunctionMode").endswith("linear, relu, linear") and main.line("TorchDispatchMode").endswith(
        "aten.t.default, aten.addmm.default, aten.relu.default, aten.t.default, aten.addmm.default"))
