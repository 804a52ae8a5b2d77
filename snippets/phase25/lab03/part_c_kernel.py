"""Part C: find the fused kernel in Inductor's output, see which ATen ops went into it and what it is passed."""

import re

from snippets.phase25.theory03.inductor_code import (PINNED_CPU, aten_ops, call_function, decomposed_graph,
                                                     generated_code, kernels)
from snippets.phase25.theory03.tiny_head import model_and_input

ISOLATE = True


def fused_softmax_kernel(model=None, x=None) -> tuple[str, str, str]:
    """(kernel name, kernel C++ source, whole generated module) for TinyHead on CPU, with the pinned ISA."""
    if model is None:
        model, x = model_and_input()
    code = generated_code(model, x, PINNED_CPU)
    fused = {name: source for name, source in kernels(code).items() if "softmax" in name}
    if len(fused) != 1:
        raise RuntimeError(f"expected one fused softmax kernel, found {sorted(fused)}")
    (name, source), = fused.items()
    return name, source, code


def kernel_arguments(name: str, source: str, code: str) -> list[tuple[str, str]]:
    """(buffer passed by call(), kernel parameter) pairs: what each pointer of the kernel points at."""
    passed = re.search(rf"{name}\(([^)]*)\)", call_function(code)).group(1).split(", ")
    parameters = re.findall(r"float\*\s*(\w+)", source.split("{", 1)[0])
    return list(zip(passed, parameters))


def main():
    model, x = model_and_input()
    ops = aten_ops(decomposed_graph(model, x))
    print("ATen ops after Inductor's decompositions:", ", ".join(ops))
    name, source, code = fused_softmax_kernel(model, x)
    print("kernels in the generated module:", ", ".join(kernels(code)))
    print(f"the fused one: {name}, {len(source.splitlines())} lines of C++")
    print("\nhow call() launches it:")
    for line in call_function(code).splitlines():
        if name in line or "empty_strided" in line or "extern_kernels" in line:
            print("   ", line.strip())
    print("\nbuffer -> kernel pointer:")
    for buffer, parameter in kernel_arguments(name, source, code):
        print(f"    {buffer} -> {parameter}")


def claim_fused_ops(main):
    """#part-c: after the decompositions softmax is amax, sub, exp, sum and div, all in cpp_fused__softmax_0, the
    only kernel; permute and addmm are not in it: addmm is an extern call."""
    ops = main.line("ATen ops after Inductor's decompositions:")
    return (all(f"aten.{op}." in ops for op in ("permute", "addmm", "amax", "sub", "exp", "sum", "div"))
            and main.line("kernels in the generated module:").endswith(": cpp_fused__softmax_0")
            and "extern_kernels.addmm(" in main)


def claim_pointers(main):
    """#part-c: the addmm output goes in (in_ptr0), the probabilities come out (out_ptr2), the row maxima and sums
    sit in between."""
    out = re.search(r"extern_kernels\.addmm\(.*out=(buf\d+)\)", main.text).group(1)
    return (f"{out} -> in_ptr0" in main and "buf4 -> out_ptr2" in main and "buf1 -> out_ptr0" in main
            and "buf3 -> out_ptr1" in main and "cpp_fused__softmax_0(buf0, buf1, buf3, buf4)" in main)
