"""Reading Inductor's generated code: compile a step, keep the parts a page can show."""

import re

import torch
import torch._inductor.config as inductor_config
from torch._inductor.utils import run_and_get_code


def step(model, x: torch.Tensor) -> list[torch.Tensor]:
    """Forward, then the gradients of sum(y**2) for x and every parameter: [y, dx, *dparams]."""
    y = model(x)
    return [y, *torch.autograd.grad(y.pow(2).sum(), [x, *model.parameters()])]


def compile_step(model, x: torch.Tensor) -> tuple[float, list[str]]:
    """Run `step` compiled with fullgraph=True and eagerly.

    Returns the largest difference between the two over the output and every gradient, and the
    generated modules (one for the forward, one for the backward). Shape padding is off: on a GPU,
    Inductor would time each small matrix product padded and unpadded while compiling and keep the
    faster, so the code would change with the GPU's load.
    """
    compiled = torch.compile(model, fullgraph=True)
    with inductor_config.patch(shape_padding=False):
        results, codes = run_and_get_code(step, compiled, x)
    difference = max((a - b).abs().max().item() for a, b in zip(results, step(model, x), strict=True))
    return difference, codes


def call_function(code: str) -> str:
    """The `call` function of a generated module: the buffers and the kernel calls, in order."""
    lines = code.splitlines()
    start = next(i for i, line in enumerate(lines) if line.lstrip().startswith("def call("))
    indent = len(lines[start]) - len(lines[start].lstrip())
    body = [lines[start]]
    for line in lines[start + 1:]:
        if line.strip() and len(line) - len(line.lstrip()) <= indent:
            break
        body.append(line)
    return "\n".join(body).rstrip()


def triton_kernels(code: str) -> list[str]:
    """Names of the Triton kernels whose source a generated module carries."""
    return re.findall(r"async_compile\.triton\('(\w+)'", code)
