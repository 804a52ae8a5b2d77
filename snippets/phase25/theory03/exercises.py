"""Theory 03's exercises: a graph break from .item(), the guards that recompile, and a ReLU head's kernels."""

import logging
import re

import torch

from snippets.phase25.theory03.graph_break import explain
from snippets.phase25.theory03.inductor_code import PINNED_CPU, generated_code, kernels
from snippets.phase25.theory03.readable import captured_logs
from snippets.phase25.theory03.recompile import guard_failures
from snippets.phase25.theory03.tiny_head import model_and_input

ISOLATE = True


def head_scaled_by_item(model, x):
    """TinyHead with the logits scaled by a Python float read from a tensor."""
    logits = model.fc(x)
    return torch.softmax(logits * logits.abs().max().item(), dim=-1)


def item_break() -> tuple[int, int, str]:
    """Exercise 1: graphs, graph breaks and the first break reason of head_scaled_by_item."""
    model, x = model_and_input()
    dynamo_log = logging.getLogger("torch._dynamo")
    level = dynamo_log.level
    dynamo_log.setLevel(logging.ERROR)  # Dynamo also warns about this break on stderr; the report is enough
    try:
        report = explain(head_scaled_by_item, model, x)
    finally:
        dynamo_log.setLevel(level)
    return report.graph_count, report.graph_break_count, str(report.break_reasons[0].reason).splitlines()[0]


CALLS = (  # exercise 2: the calls made, in this order, on one compiled TinyHead
    ("x: float32 (2, 64)", lambda x: x, torch.enable_grad),
    ("the same x again", lambda x: x, torch.enable_grad),
    ("x.double() (the model cast too)", lambda x: x.double(), torch.enable_grad),
    ("float32 x again, under torch.no_grad()", lambda x: x, torch.no_grad),
)


def compiles_per_call() -> list[tuple[str, int, list[str]]]:
    """Exercise 2: how many graphs Dynamo compiles at each call, and the guard failures that made it."""
    model, x = model_and_input()
    compiled_graphs = []

    def counting_backend(gm, example_inputs):
        compiled_graphs.append(gm)
        return gm.forward

    torch._dynamo.reset()
    compiled = torch.compile(model, backend=counting_backend)
    rows = []
    for name, make_input, mode in CALLS:
        before = len(compiled_graphs)
        inp = make_input(x)
        model.to(inp.dtype)
        with captured_logs("recompiles") as reasons, mode():
            compiled(inp)
        rows.append((name, len(compiled_graphs) - before, guard_failures(reasons)))
    return rows


class ReluHead(torch.nn.Module):
    """TinyHead with ReLU in place of the softmax."""

    def __init__(self, fc: torch.nn.Linear):
        super().__init__()
        self.fc = fc

    def forward(self, x):
        return torch.relu(self.fc(x))


def relu_kernels() -> tuple[list[str], list[str]]:
    """Exercise 3: the kernels Inductor generates for ReluHead on CPU, and its extern calls."""
    model, x = model_and_input()
    code = generated_code(ReluHead(model.fc), x, PINNED_CPU)
    return list(kernels(code)), sorted(set(re.findall(r"extern_kernels\.(\w+)\(", code)))


def main_item():
    graphs, breaks, reason = item_break()
    print(f"graphs: {graphs}, graph breaks: {breaks}")
    print(f"reason: {reason}")


def main_recompiles():
    for name, compiled, failures in compiles_per_call():
        print(f"{name:<39} graphs compiled: {compiled}")
        for failure in failures:
            print(f"    guard failure {failure}")


def main_relu():
    generated, extern = relu_kernels()
    print(f"generated kernels: {', '.join(generated)}")
    print(f"extern calls: {', '.join(extern)}")


def claim_item_breaks(main_item):
    """#exercises: .item() breaks the graph: two graphs, one break, because Dynamo does not capture scalar outputs by default."""
    return (main_item.line("graphs:") == "graphs: 2, graph breaks: 1" and "item()" in main_item.line("reason:")
            and "capture_scalar_outputs=False" in main_item.line("reason:"))


def claim_recompiles(main_recompiles):
    """#exercises: the first call compiles, the same input reuses the graph, and both float64 and no_grad compile a new one: three graphs in all."""
    counts = [int(line.rsplit(":", 1)[1]) for line in main_recompiles.lines if "graphs compiled" in line]
    return counts == [1, 0, 1, 1]


def claim_failed_guards(main_recompiles):
    """#exercises: float64 fails the guard on `x`'s dtype; the last call fails the `GLOBAL_STATE` guard on grad mode, for both earlier graphs."""
    double = main_recompiles.between("x.double()", "no_grad").text.strip()
    no_grad = [line.strip() for line in main_recompiles.between("no_grad").lines]
    return (double == "guard failure 0/0: tensor 'x' dtype mismatch. expected Float, actual Double"
            and no_grad == ["guard failure 0/1: GLOBAL_STATE changed: grad_mode", "guard failure 0/0: GLOBAL_STATE changed: grad_mode"])


def claim_relu_kernel(main_relu):
    """#exercises: the ReLU head gets one generated kernel, cpp_fused_relu_0, and the matrix product stays an extern addmm."""
    return (main_relu.line("generated kernels:") == "generated kernels: cpp_fused_relu_0"
            and main_relu.line("extern calls:") == "extern calls: addmm")
