"""Inductor on a GPU: the same TinyHead, and the Python wrapper and Triton kernel it writes there."""

from snippets.phase25.theory03.inductor_code import call_function, generated_code, kernels
from snippets.phase25.theory03.tiny_head import model_and_input

ISOLATE = True
DEVICES = ("cuda",)


def main():
    model, x = model_and_input(device="cuda")
    code = generated_code(model, x)
    print(f"the generated module: {len(code.splitlines())} lines of Python; its call():")
    print(call_function(code))
    for name, source in kernels(code).items():
        print(f"\nkernel {name}: {len(source.splitlines())} lines of Triton:")
        print(source)


def claim_same_structure(main):
    """#inductor-gpu: an extern call for the matrix product and one fused kernel for the softmax, launched from call() with .run(...) on a CUDA stream; the kernel is a @triton.jit persistent reduction."""
    call = main.between("its call():", "kernel triton_").text
    return (call.count("extern_kernels.addmm(") == 1 and call.count(".run(") == 1 and "stream=stream0" in call
            and "@triton_heuristics.persistent_reduction(" in main and "@triton.jit" in main)


def claim_two_reductions(main):
    """#inductor-gpu: the name lists prepare_softmax_online, yet the kernel takes max2 over the row, then tl.sum of the exponentials: two reductions, like the CPU path's amax and sum; it computes exp twice."""
    body = main.between("@triton.jit").lines
    reductions = [i for i, line in enumerate(body) if "max2(" in line or "tl.sum(" in line]
    return ("prepare_softmax_online" in main.line("kernel triton_") and len(reductions) == 2
            and "max2(" in body[reductions[0]] and "tl.sum(" in body[reductions[1]]
            and "online_softmax" not in "\n".join(body[1:]) and sum("libdevice.exp(" in line for line in body) == 2)
