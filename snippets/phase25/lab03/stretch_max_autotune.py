"""Stretch: mode="max-autotune" against the default mode on a GPU, compile time and run time (caches off)."""

import contextlib
import io
import re
import time
import warnings

import torch
import torch._inductor.config as inductor_config
from torch._inductor.utils import run_and_get_code

from snippets.phase25.lab03.part_e_bench import per_call_us
from snippets.phase25.theory03.inductor_code import call_function, kernels
from snippets.phase25.theory03.tiny_head import model_and_input

ISOLATE = True
DEVICES = ("cuda",)
TIMEOUT = 300
BATCH = 32768
MODES = ("default", "max-autotune-no-cudagraphs", "max-autotune")
AUTOTUNE_LINE = re.compile(r"AUTOTUNE|\d+\.\d+ ms")  # the report's header and its rows of timed choices


def gemm_choice(code: str) -> str:
    """How the generated code computes the Linear: a Triton GEMM template, or an extern (cuBLAS) call."""
    templates = [name for name in kernels(code) if name.startswith("triton_tem_")]
    if templates:
        return f"a Triton GEMM template, {templates[0]}"
    extern = re.search(r"extern_kernels\.(\w+)\(", call_function(code))
    return f"extern_kernels.{extern.group(1)} (cuBLAS)" if extern else "neither a template nor an extern call"


def measure(mode: str) -> dict:
    """Compile time (caches disabled, so it is a real compile), run time, what the GEMM became, and what
    autotuning wrote to stderr while compiling."""
    model, x = model_and_input(BATCH, "cuda")
    torch._dynamo.reset()
    report = io.StringIO()
    with inductor_config.patch(force_disable_caches=True), torch.no_grad():
        compiled = torch.compile(model, mode=None if mode == "default" else mode, dynamic=False)
        start = time.perf_counter()
        with contextlib.redirect_stderr(report), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            _, (code,) = run_and_get_code(compiled, x)
        torch.cuda.synchronize()
        compile_s = time.perf_counter() - start
        run_us = per_call_us(lambda: compiled(x), "cuda")
    autotune = [line.rstrip() for line in report.getvalue().splitlines() if AUTOTUNE_LINE.search(line)]
    return {"compile_s": compile_s, "run_us": run_us, "gemm": gemm_choice(code), "kernels": list(kernels(code)),
            "autotune": autotune}


def main():
    print(f"TinyHead, batch {BATCH}, on {torch.cuda.get_device_name()}; compile with caches disabled\n")
    for mode in MODES:
        result = measure(mode)
        print(f"{mode}:")
        print(f"  compile + first call {result['compile_s']:7.1f} s")
        print(f"  run                  {result['run_us']:7.1f} µs per call")
        print(f"  the Linear became    {result['gemm']}")
        print(f"  kernels              {', '.join(result['kernels'])}")
        if result["autotune"]:
            print("  autotuning's report on stderr while compiling (its first 12 lines):")
            for line in result["autotune"][:12]:
                print(f"    {line}")
