"""nmb::softmax_inlined: the same kernels as a triton_op, launched through wrap_triton, so that
torch.compile traces into them and Inductor puts their source into its own generated code.

Importing this module registers the two ops (once per process).
"""

import logging
import warnings

import torch
from torch.library import triton_op, wrap_triton

from snippets.phase24.triton_softmax import kernels
from snippets.phase25.lab02 import ops
from snippets.phase25.lab02.compile_demo import Head
from snippets.phase25.lab02.generated import call_function, compile_step, triton_kernels

DEVICES = ("cpu", "cuda")
ISOLATE = True


@triton_op("nmb::softmax_inlined", mutates_args=())
def softmax_inlined(x: torch.Tensor) -> torch.Tensor:
    return kernels.softmax(x, wrap=wrap_triton)


@triton_op("nmb::softmax_inlined_backward", mutates_args=())
def softmax_inlined_backward(y: torch.Tensor, dy: torch.Tensor) -> torch.Tensor:
    return kernels.softmax_backward(y, dy, wrap=wrap_triton)


def backward(ctx, grad_output):
    (y,) = ctx.saved_tensors
    return softmax_inlined_backward(y, grad_output)


softmax_inlined.register_autograd(backward, setup_context=ops.save_output)


class InlinedHead(Head):
    def forward(self, x):
        return softmax_inlined(self.lm_head(x))


def attempt(action):
    """(what `action()` returned, None), or (None, the exception's type and first sentence).

    Torch's own warnings and error log about the failure are silenced: the page shows the verdict.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        logging.disable(logging.ERROR)
        try:
            return action(), None
        except Exception as error:  # noqa: BLE001 - the failure is what the page shows
            return None, f"{type(error).__name__}: {str(error).split('. ')[0].splitlines()[0]}"
        finally:
            logging.disable(logging.NOTSET)


def main():
    device = "cuda" if torch.cuda.is_available() else "cpu"
    torch.manual_seed(0)
    print(f"@triton.jit made: {type(kernels.softmax_kernel).__name__}; "
          f"wrap_triton returned: {type(wrap_triton(kernels.softmax_kernel)).__name__}")
    x = torch.randn(2, 600, device=device)
    print("eager, max |difference| to torch.softmax:",
          f"{(softmax_inlined(x) - torch.softmax(x, dim=-1)).abs().max().item():.1e}")
    verdicts, error = attempt(lambda: torch.library.opcheck(softmax_inlined, (x.requires_grad_(),)))
    print("opcheck:", error or verdicts)
    model, h = InlinedHead().to(device), torch.randn(2, 64, device=device, requires_grad=True)
    compiled, error = attempt(lambda: compile_step(model, h))
    print("torch.compile(fullgraph=True):", error or "compiled")
    if compiled:
        difference, codes = compiled
        print(f"compiled vs eager, output and gradients, max |difference|: {difference:.1e}")
        for name, code in zip(("forward", "backward"), codes, strict=True):
            print(f"\n# generated {name}: Triton kernels {triton_kernels(code)}\n{call_function(code)}")


def claim_runs_eagerly(main):
    """#triton-op: Called eagerly, the `triton_op` variant runs and matches `torch.softmax`, on CPU in the interpreter and on the GPU."""
    return main.number("eager, max |difference| to torch.softmax:") < 1e-6


def claim_gpu_traces_into_the_kernel(main):
    """#triton-op: On the GPU, `@triton.jit` makes a `JITFunction`, `wrap_triton` turns it into a traceable wrapper, the launch becomes a `triton_kernel_wrapper` node, and `opcheck` passes."""
    return main.device != "cuda" or (
        main.line("@triton.jit made").strip() == "@triton.jit made: JITFunction; wrap_triton returned: TraceableTritonKernelWrapper"
        and "triton_kernel_wrapper" in main and main.line("opcheck:").count("'SUCCESS'") == 4
        and main.line("torch.compile(fullgraph=True)").endswith(": compiled"))


def claim_gpu_kernel_inlined_after_addmm(main):
    """#triton-op: In the generated code the `Triton kernels` line lists `softmax_kernel`, launched as `softmax_kernel_0.run(...)` right after the `addmm`, with no custom op call in between."""
    if main.device != "cuda":
        return True
    lines = [line.strip() for line in main.between("# generated forward", "# generated backward").lines]
    calls = [line for line in lines if line.startswith("extern_kernels.") or ".run(" in line or "= torch.ops." in line]
    return ("softmax_kernel" in main.line("# generated forward: Triton kernels") and len(calls) == 2
            and calls[0].startswith("extern_kernels.addmm(") and calls[1].startswith("softmax_kernel_0.run(")
            and "torch.ops.nmb" not in main)


def claim_interpreter_fails_to_trace(main):
    """#triton-op: On CPU, `@triton.jit` makes an `InterpretedFunction`, which `wrap_triton` hands back unchanged; `opcheck` reports the failure in its fake tensor test, and `torch.compile` stops at the same place."""
    return main.device != "cpu" or (
        main.line("@triton.jit made").strip() == "@triton.jit made: InterpretedFunction; wrap_triton returned: InterpretedFunction"
        and "test_faketensor failed" in main.line("opcheck:")
        and "fake tensor" in main.line("torch.compile(fullgraph=True)"))
