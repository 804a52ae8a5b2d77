"""torch.compile(fullgraph=True) around the LM head and nmb::softmax: one graph, the op kept whole."""

import torch

from snippets.phase25.lab02 import ops
from snippets.phase25.lab02.generated import call_function, compile_step

DEVICES = ("cpu", "cuda")
ISOLATE = True


class Head(torch.nn.Module):
    """The grammar MiniGPT's LM head followed by the custom op."""

    def __init__(self):
        super().__init__()
        self.lm_head = torch.nn.Linear(64, 600)

    def forward(self, x):
        return ops.softmax(self.lm_head(x))


def main():
    device = "cuda" if torch.cuda.is_available() else "cpu"
    torch.manual_seed(0)
    model, x = Head().to(device), torch.randn(2, 64, device=device, requires_grad=True)
    explanation = torch._dynamo.explain(model)(x)
    print(f"graphs: {explanation.graph_count}, graph breaks: {explanation.graph_break_count}")
    difference, codes = compile_step(model, x)
    print(f"compiled vs eager, output and gradients, max |difference|: {difference:.1e}")
    for name, code in zip(("forward", "backward"), codes, strict=True):
        print(f"\n# generated {name}\n{call_function(code)}")


def claim_one_graph_matching_eager(main):
    """#compile: `fullgraph=True` compiles one graph with no break, and the compiled output and gradients match eager."""
    return main.line("graphs:").strip() == "graphs: 1, graph breaks: 0" and main.number("max |difference|:") < 1e-6


def claim_forward_calls_the_op_after_addmm(main):
    """#compile: The forward runs `extern_kernels.addmm` into `buf0`, then `torch.ops.nmb.softmax.default(buf0)`: the op is called as one opaque unit, and its output is kept for the backward."""
    lines = [line.strip() for line in main.between("# generated forward", "# generated backward").lines]
    calls = [line for line in lines if line.startswith("extern_kernels.") or "= torch.ops." in line]
    returned = [line.removeprefix("return (").split(", ") for line in lines if line.startswith("return (")]
    return (len(calls) == 2 and calls[0].startswith("extern_kernels.addmm(") and calls[0].endswith("out=buf0)")
            and calls[1] == "buf1 = torch.ops.nmb.softmax.default(buf0)"
            and len(returned) == 1 and returned[0].count(returned[0][0]) == 2)  # the output, and saved for backward


def claim_backward_order(main):
    """#compile: The backward starts with `torch.ops.nmb.softmax_backward.default(...)`, then the matrix products of the linear layer's gradients and a small generated kernel for the bias gradient's sum."""
    lines = [line.strip() for line in main.between("# generated backward").lines]
    calls = [line for line in lines if line.startswith(("extern_kernels.", "cpp_fused_", "triton_")) or "= torch.ops." in line]
    return (len(calls) == 4 and "torch.ops.nmb.softmax_backward.default(" in calls[0]
            and all(call.startswith("extern_kernels.mm(") for call in calls[1:3]) and "fused_sum_0" in calls[3])


def claim_cpp_on_cpu_triton_on_gpu(main):
    """#compile: On CPU the rest of the code is C++ (`cpp_fused_...`); on the GPU it is Triton (`triton_...`), and the custom op's call looks the same in both."""
    kernel = "cpp_fused_" if main.device == "cpu" else "triton_"
    other = "triton_" if main.device == "cpu" else "cpp_fused_"
    return kernel in main and other not in main and main.count("= torch.ops.nmb.softmax.default(buf0)") == 1


def claim_tf32_warning_on_gpu(main):
    """#compile: If your GPU run prints a `TensorFloat32` warning, it is Inductor noting that float32 matrix products run in full precision unless you opt in to TF32 (none on CPU)."""
    if "TensorFloat32" not in main:
        return True
    return main.device == "cuda" and "torch/_inductor/" in main.line("UserWarning: TensorFloat32 tensor cores")
