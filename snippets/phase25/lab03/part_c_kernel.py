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
