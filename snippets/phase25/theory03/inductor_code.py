"""Inductor's generated code for a model, and the parts worth reading: the kernels and the `call` wrapper."""

import re
import textwrap

import torch
import torch._inductor.config as inductor_config
from functorch.compile import make_boxed_func
from torch._dynamo.backends.common import aot_autograd
from torch._inductor.decomposition import select_decomp_table
from torch._inductor.utils import run_and_get_code

# Pinned so that the C++ kernel is the same text on every x86 machine that builds the site:
# 256-bit vectors (AVX2, which every x86-64 CPU of the last decade has) and one thread (no OpenMP).
# Left alone, Inductor picks the widest vectors the CPU has and plans its loops for the core count.
PINNED_CPU = {"cpp.simdlen": 256, "cpp.threads": 1}

KERNEL = re.compile(r"^(?P<name>\w+) = async_compile\.(?P<kind>\w+)\((?P<head>[^\n]*?)r?'''\n(?P<source>.*?)'''",
                    re.MULTILINE | re.DOTALL)


def generated_code(model, x, options: dict | None = None, mode: str | None = None) -> str:
    """The Python module Inductor writes for one inference call of `model(x)` (after a Dynamo reset)."""
    torch._dynamo.reset()
    with inductor_config.patch(options or {}), torch.no_grad():
        _, codes = run_and_get_code(torch.compile(model, mode=mode), x)
    if len(codes) != 1:
        raise RuntimeError(f"expected one generated module, got {len(codes)}")
    return codes[0]


def kernels(code: str) -> dict[str, str]:
    """Kernel name -> kernel source (C++ on CPU, Triton on a GPU), in the order they are defined."""
    return {m["name"]: m["source"].rstrip() for m in KERNEL.finditer(code)}


def call_function(code: str) -> str:
    """The wrapper's `call`: the Python that allocates buffers and launches the kernels in order."""
    lines = code.splitlines()
    start = next(i for i, line in enumerate(lines) if re.match(r"\s*def call\(", line))
    indent = len(lines[start]) - len(lines[start].lstrip())
    end = next(i for i in range(start + 1, len(lines))
               if lines[i].strip() and len(lines[i]) - len(lines[i].lstrip()) <= indent)
    return textwrap.dedent("\n".join(lines[start:end])).rstrip()


def decomposed_graph(model, x) -> torch.fx.GraphModule:
    """The inference graph after Inductor's decompositions: the ATen ops that Inductor lowers and fuses."""
    graphs = []

    def keep(gm, example_inputs):
        graphs.append(gm)
        return make_boxed_func(gm.forward)

    torch._dynamo.reset()
    with torch.no_grad():
        torch.compile(model, backend=aot_autograd(fw_compiler=keep, decompositions=select_decomp_table()))(x)
    return graphs[0]


def aten_ops(gm: torch.fx.GraphModule) -> list[str]:
    """The ATen ops a graph calls, in order."""
    return [str(node.target) for node in gm.graph.nodes if node.op == "call_function"]
