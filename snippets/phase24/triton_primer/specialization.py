"""What a compiled launch of add_kernel is keyed on: the type and property Triton's launcher computes
for each argument before it looks up a compiled kernel. Computed on CPU; nothing is compiled or launched."""

from functools import cache

import torch
from triton.backends.compiler import BaseBackend
from triton.runtime.jit import JITFunction, create_function_from_signature

from snippets.phase24.triton_primer.vector_add import add_kernel

LENGTHS = (1, 600, 1000, 1024, 4096, 2**31)


@cache
def binder():
    """The function a JITFunction's launch calls to bind its arguments and specialise them
    (BaseBackend's rules, which the CUDA backend inherits)."""
    kernel = JITFunction(add_kernel.fn)
    return create_function_from_signature(kernel.signature, kernel.params, BaseBackend)


def launch_key(n: int, block: int = 256) -> tuple[tuple, ...]:
    """(type, property) of each of add_kernel's arguments for length n: the compiled kernels' cache key.

    The tensors only lend their addresses: nothing is launched."""
    x = torch.empty(16)
    _, specialization, _ = binder()(x, x, x, n, BLOCK=block)
    return tuple(specialization)


def distinct_keys(lengths, blocks) -> int:
    """How many compiled kernels the launches with these lengths and blocks need."""
    return len({launch_key(n, block) for n in lengths for block in blocks})


def main():
    print(f"x, y, out:       {launch_key(1000)[0]}")
    print(f"BLOCK = 256:     {launch_key(1000)[4]}")
    for n in LENGTHS:
        print(f"{f'n = {n}:':<17}{launch_key(n)[3]}")
    print(f"'D' reaches the compiler as: {BaseBackend.parse_attr('D')}")
    print(f"distinct keys for every n from 1 to 5000, BLOCK = 256: {distinct_keys(range(1, 5001), [256])}")
    print(f"distinct keys for n = 1000, BLOCK = 64, 128, 256, 512: {distinct_keys([1000], [64, 128, 256, 512])}")


def claim_three_properties(main):
    """#constexpr: a length of 1 becomes a constant; a multiple of 16 is marked D, which reaches the compiler as tt.divisibility = 16; any other length is a plain i32, and a length of 2**31 an i64."""
    keys = {int(line.split()[2].rstrip(":")): line.split(":", 1)[1].strip() for line in main.lines if line.startswith("n = ")}
    return (keys[1] == "('constexpr', 1)" and keys[600] == keys[1000] == "('i32', '')"
            and keys[1024] == keys[4096] == "('i32', 'D')" and keys[2**31] == "('i64', 'D')"
            and "tt.divisibility', 16" in main.line("'D' reaches the compiler as"))


def claim_three_kernels_for_5000_lengths(main):
    """#constexpr: the 5000 lengths from 1 to 5000 give three keys, so three compiled kernels; four values of BLOCK give four."""
    return main.number("every n from 1 to 5000, BLOCK = 256:") == 3 and main.number("BLOCK = 64, 128, 256, 512:") == 4


def claim_aligned_pointers(main):
    """#constexpr: the pointers get the same treatment: these tensors' addresses, multiples of 16 bytes, are marked D too."""
    return main.line("x, y, out:").endswith("('*fp32', 'D')")
