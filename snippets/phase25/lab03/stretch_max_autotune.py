"""Stretch: mode="max-autotune" against the default mode on a GPU, compile time and run time (caches off)."""

import re
import time

import torch
import torch._inductor.config as inductor_config
from torch._inductor.utils import run_and_get_code

from snippets.phase25.lab03.part_e_bench import per_call_us
from snippets.phase25.theory03.inductor_code import kernels
from snippets.phase25.theory03.tiny_head import model_and_input

ISOLATE = True
DEVICES = ("cuda",)
TIMEOUT = 300
BATCH = 32768
MODES = ("default", "max-autotune-no-cudagraphs", "max-autotune")


def gemm_choice(code: str) -> str:
    """How the generated code computes the Linear: an extern (cuBLAS) call or a Triton GEMM template."""
    if "extern_kernels.addmm" in code or "extern_kernels.mm" in code:
        return "extern addmm (cuBLAS)"
    templates = [name for name in kernels(code) if re.match(r"triton_tem_", name)]
    return f"Triton template {templates[0]}" if templates else "other"


def measure(mode: str) -> dict:
    """Compile time (caches disabled, so it is a real compile), run time, and what the GEMM became."""
    model, x = model_and_input(BATCH, "cuda")
    torch._dynamo.reset()
    with inductor_config.patch(force_disable_caches=True), torch.no_grad():
        compiled = torch.compile(model, mode=None if mode == "default" else mode, dynamic=False)
        start = time.perf_counter()
        _, (code,) = run_and_get_code(compiled, x)
        torch.cuda.synchronize()
        compile_s = time.perf_counter() - start
        run_us = per_call_us(lambda: compiled(x), "cuda")
    return {"compile_s": compile_s, "run_us": run_us, "gemm": gemm_choice(code), "kernels": list(kernels(code))}


def main():
    print(f"TinyHead, batch {BATCH}, on {torch.cuda.get_device_name()}; compile with caches disabled\n")
    for mode in MODES:
        result = measure(mode)
        print(f"{mode}:")
        print(f"  compile + first call {result['compile_s']:7.1f} s")
        print(f"  run                  {result['run_us']:7.1f} µs per call")
        print(f"  the Linear became    {result['gemm']}")
        print(f"  kernels              {', '.join(result['kernels'])}")
