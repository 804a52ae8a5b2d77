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
