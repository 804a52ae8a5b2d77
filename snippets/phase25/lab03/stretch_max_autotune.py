"""Stretch: mode="max-autotune" against the default mode on a GPU, compile time and run time (caches off),
the run times compared in interleaved rounds."""

import contextlib
import io
import re
import statistics
import time
import warnings

import torch
import torch._inductor.config as inductor_config
from torch._inductor.utils import run_and_get_code

from snippets.phase25.lab03.part_e_bench import rounds
from snippets.phase25.theory03.inductor_code import kernels
from snippets.phase25.theory03.tiny_head import model_and_input
from snippets.timing import compare, spread

ISOLATE = True
DEVICES = ("cuda",)
TIMEOUT = 300
BATCH = 32768
MODES = ("default", "max-autotune-no-cudagraphs", "max-autotune")
AUTOTUNE_LINE = re.compile(r"AUTOTUNE|\d+\.\d+ ms")  # the report's header and its rows of timed choices


def gemm_choice(code: str) -> str:
    """How the generated code computes the Linear: a Triton GEMM template, or an extern (cuBLAS) call.

    The whole module is searched: with CUDA graphs on, call() hands the work to a graph partition
    function, where the extern call sits."""
    templates = [name for name in kernels(code) if name.startswith("triton_tem_")]
    if templates:
        return f"a Triton GEMM template, {templates[0]}"
    extern = re.search(r"extern_kernels\.(\w+)\(", code)
    return f"extern_kernels.{extern.group(1)} (cuBLAS)" if extern else "neither a template nor an extern call"


def compile_mode(mode: str) -> dict:
    """One compile (caches disabled, so it is a real compile): its time, what the GEMM became, the kernels,
    what autotuning wrote to stderr while compiling, and the compiled callable."""
    model, x = model_and_input(BATCH, "cuda")
    report = io.StringIO()
    with inductor_config.patch(force_disable_caches=True), torch.no_grad():
        compiled = torch.compile(model, mode=None if mode == "default" else mode, dynamic=False)
        start = time.perf_counter()
        with contextlib.redirect_stderr(report), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            _, (code,) = run_and_get_code(compiled, x)
        torch.cuda.synchronize()
        compile_s = time.perf_counter() - start
    autotune = [line.rstrip() for line in report.getvalue().splitlines() if AUTOTUNE_LINE.search(line)]
    return {"compile_s": compile_s, "gemm": gemm_choice(code), "kernels": list(kernels(code)),
            "autotune": autotune, "run": lambda: compiled(x)}


def main():
    print(f"TinyHead, batch {BATCH}, on {torch.cuda.get_device_name()}; compile with caches disabled\n")
    torch._dynamo.reset()
    results = {mode: compile_mode(mode) for mode in MODES}
    for mode, result in results.items():
        print(f"{mode}:")
        print(f"  compile + first call {result['compile_s']:7.1f} s")
        print(f"  the Linear became    {result['gemm']}")
        print(f"  kernels              {', '.join(result['kernels'])}")
        if result["autotune"]:
            print("  autotuning's report on stderr while compiling (its first 12 lines):")
            for line in result["autotune"][:12]:
                print(f"    {line}")
    with torch.no_grad(), contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        times = rounds({mode: result["run"] for mode, result in results.items()}, "cuda")  # Inductor's logs muted
    print(f"\nrun, µs per call (median of {len(times['default'])} interleaved rounds, and their spread):")
    for mode, row in times.items():
        print(f"  {mode:28} {statistics.median(row):7.1f} µs  spread {spread(row):5.1%}")
    for mode in MODES[1:]:
        print(f"    {mode} vs default: {compare(times, 'default', mode)}")


def claim_autotune_keeps_cublas(main):
    """#stretch-max-autotune: in both autotune modes the autotuner ranks bias_addmm, a cuBLAS call, first, and
    the Linear becomes extern_kernels.bias_addmm; the default mode calls extern_kernels.addmm."""
    firsts = [main.lines[i + 1].split()[0] for i, line in enumerate(main.lines) if line.strip().startswith("AUTOTUNE ")]
    return (firsts == ["bias_addmm", "bias_addmm"] and main.count("the Linear became    extern_kernels.bias_addmm") == 2
            and "extern_kernels.addmm (cuBLAS)" in main.between("default:", "max-autotune-no-cudagraphs:"))


def claim_autotune_table_ranks_addmm_lower(main):
    """#stretch-max-autotune: in the autotuner's own harness its plain addmm choice is slower than the winner, bias_addmm, in both modes."""
    shares = [float(line.split()[3].rstrip("%")) for line in main.lines if line.split()[:1] == ["addmm"]]
    return len(shares) == 2 and all(share < 100 for share in shares)


def claim_autotune_compiles_longer(main):
    """#stretch-max-autotune: both autotune modes take longer to compile than the default mode."""
    sections = (("default:", "max-autotune-no-cudagraphs:"), ("max-autotune-no-cudagraphs:", "max-autotune:"),
                ("max-autotune:", "run, µs"))
    default, *autotune = (main.between(start, end).number("compile + first call") for start, end in sections)
    return all(seconds > default for seconds in autotune)


def claim_no_gain(main):
    """#stretch-max-autotune: neither autotune mode runs faster than the default mode beyond the margin."""
    verdicts = [line.split(": ", 1)[1] for line in main.lines if " vs default: " in line]
    return len(verdicts) == 2 and all(v.startswith("default is ") or " tie " in v for v in verdicts)
